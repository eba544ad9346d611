#include "advise/spring_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/products/spring_gateway.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ratelab {

namespace {


// mostDeficit is the one pass (spring_advice.h): the most d reaches, in tokens.
Int128 mostDeficit(KeyTrace trace, std::int64_t replenish, std::int64_t requested)
{
    Int128 deficit = 0, most = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        if (i > 0) {
            const Nanos now = trace.clock + trace.times[i], before = trace.clock + trace.times[i - 1];
            const std::int64_t seconds = now / kNanosPerSecond - before / kNanosPerSecond;
            deficit = std::max<Int128>(0, deficit - Int128(replenish) * seconds);
        }
        deficit += Int128(trace.cost(i)) * requested;
        most = std::max(most, deficit);
    }
    return most;
}

} // namespace

std::vector<std::int64_t> SpringBurstFamily::roundSteps() const
{
    std::vector<std::int64_t> out;
    for (std::int64_t m : {1, 2, 5, 10, 20, 30}) // a minute
        out.push_back(m);
    for (std::int64_t decade = 1; decade <= 1'000'000'000; decade *= 10) // a second
        for (std::int64_t m : {1, 2, 5})
            out.push_back(perSecond(decade * m));
    return out;
}

std::int64_t SpringBurstFamily::replenishRate(std::int64_t step)
{
    return step <= kPerMinuteSteps ? step / std::gcd(step, std::int64_t(60)) : step - kPerMinuteSteps;
}

std::int64_t SpringBurstFamily::requestedTokens(std::int64_t step)
{
    return step <= kPerMinuteSteps ? 60 / std::gcd(step, std::int64_t(60)) : 1;
}

std::int64_t SpringBurstFamily::burstCapacity(std::int64_t step, std::int64_t burst)
{
    const Int128 capacity = Int128(burst) * requestedTokens(step);
    if (capacity > kJavaInt) // the model reads burstCapacity as the int it was
        throw InputError("advise: a key needs a burstCapacity above " + grouping(kJavaInt) + " at "
                         + SpringBurstFamily{}.rateText(step) + ", more than the Spring model holds");
    return std::int64_t(capacity);
}

std::optional<std::int64_t> SpringBurstFamily::mostIn(std::int64_t step, std::int64_t burst, Nanos window) const
{
    const std::int64_t capacity = burstCapacity(step, burst), replenish = replenishRate(step);
    if (capacity == 0)
        return 0;
    if (Int128(2) * capacity < replenish) // the script's ttl is 0: nothing stored, nothing limited
        return std::numeric_limits<std::int64_t>::max();
    const Int128 seconds = ceilDiv(Int128(window) - 1, kNanosPerSecond);
    const Int128 most = (Int128(capacity) + Int128(std::min(replenish, capacity)) * seconds) / requestedTokens(step);
    return most > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max() : std::int64_t(most);
}

Rate SpringBurstFamily::rate(std::int64_t step) const
{
    return step <= kPerMinuteSteps ? Rate::reduced(step, kNanosPerMinute) : Rate::reduced(step - kPerMinuteSteps, kNanosPerSecond);
}

std::string SpringBurstFamily::rateText(std::int64_t step) const
{
    return step <= kPerMinuteSteps ? grouping(step) + "/min" : grouping(step - kPerMinuteSteps) + "/s";
}

LimiterConfig SpringBurstFamily::config(std::int64_t step, std::int64_t burst) const
{
    return LimiterConfig{}.withProductOptions({{"replenishRate", std::to_string(replenishRate(step))},
                                               {"burstCapacity", std::to_string(burstCapacity(step, burst))},
                                               {"requestedTokens", std::to_string(requestedTokens(step))}});
}

std::int64_t SpringBurstFamily::denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    SpringGateway spring(config(step, burst));
    return deniedOn(spring, trace, trace.clock);
}

void SpringBurstFamily::passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const
{
    SpringGateway spring(config(step, burst));
    passedOn(spring, trace, out, trace.clock);
}

// admitsAll checks a burst on the model. Above a second's tokens the rate does not matter (the
// bucket is whole at each second) and below half of them the script stores nothing, so a burst
// under the rate is checked at the rate equal to it, where the script keeps the bucket.
bool SpringBurstFamily::admitsAll(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    const std::int64_t at = step > kPerMinuteSteps ? std::min(step, perSecond(burst)) : step;
    return denied(trace, at, burst) == 0;
}

std::int64_t SpringBurstFamily::burstNeeded(KeyTrace trace, std::int64_t step) const
{
    const std::int64_t requested = requestedTokens(step);
    const Int128 tokens = ceilDiv(mostDeficit(trace, replenishRate(step), requested), Int128(requested));
    std::int64_t burst = std::int64_t(std::max<Int128>(1, std::min<Int128>(tokens, kJavaInt + Int128(1))));
    (void)burstCapacity(step, burst); // refused beyond the int burstCapacity is
    while (!admitsAll(trace, step, burst)) // the model has the last word
        (void)burstCapacity(step, ++burst);
    while (burst > 1 && admitsAll(trace, step, burst - 1))
        --burst;
    return burst;
}

std::int64_t SpringBurstFamily::topStep(std::int64_t floorBurst) const
{
    return std::min(maxStep(), perSecond(floorBurst));
}

std::optional<std::string> springKeyResolver(const std::string& logKey)
{
    const std::string request = "exchange.getRequest()";
    if (logKey == "user")
        return "";
    if (logKey == "ip")
        return "Mono.justOrEmpty(" + request + ".getRemoteAddress()).map(a -> a.getAddress().getHostAddress())";
    if (logKey == "host")
        return "Mono.justOrEmpty(" + request + ".getURI().getHost())";
    if (logKey.starts_with("http_") && logKey.size() > 5
        && std::all_of(logKey.begin() + 5, logKey.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
           })) {
        // The log's field http_x_api_key is the header x-api-key (HttpHeaders reads names case-blind).
        std::string header = logKey.substr(5);
        std::replace(header.begin(), header.end(), '_', '-');
        return "Mono.justOrEmpty(" + request + ".getHeaders().getFirst(\"" + header + "\"))";
    }
    return std::nullopt;
}

std::string springAdviceConfig(std::int64_t step, std::int64_t burst, const std::string& keyResolver)
{
    const std::string filter = "            - name: RequestRateLimiter\n"
                               "              args:\n"
                               "                redis-rate-limiter.replenishRate: "
                               + std::to_string(SpringBurstFamily::replenishRate(step)) + "\n"
                               "                redis-rate-limiter.burstCapacity: "
                               + std::to_string(SpringBurstFamily::burstCapacity(step, burst)) + "\n"
                               "                redis-rate-limiter.requestedTokens: "
                               + std::to_string(SpringBurstFamily::requestedTokens(step)) + "\n"
                               + (keyResolver.empty() ? "" : "                key-resolver: \"#{@ratelabKeyResolver}\"\n")
                               + "                deny-empty-key: false\n";
    const std::string bean = keyResolver.empty() ? ""
                             : "# The key: a bean of the application, beside @SpringBootApplication:\n"
                               "#   @Bean KeyResolver ratelabKeyResolver() {\n"
                               "#     return exchange -> " + keyResolver + ";\n"
                               "#   }\n";
    return "spring:\n"
           "  cloud:\n"
           "    gateway:\n"
           "      routes:\n"
           "        - id: ratelab-limit\n"
           "          uri: http://localhost:8080\n"
           "          predicates:\n"
           "            - Path=/**\n"
           "          filters:\n"
           + filter + bean;
}

} // namespace ratelab
