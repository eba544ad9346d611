#include "advise/traefik_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/products/traefik.h"

#include <algorithm>
#include <cmath>

namespace ratelab {

namespace {


// envelopeBurst is the one-pass candidate (traefik_advice.h) in long double: the most deficit
// less the debt maxDelay allows, rounded up, at least 1.
std::int64_t envelopeBurst(KeyTrace trace, const Traefik& model)
{
    const long double perNano = (long double)model.limitPerSecond() / 1e9L;
    long double deficit = 0, most = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        if (i > 0)
            deficit = std::max<long double>(0, deficit - perNano * (long double)(trace.times[i] - trace.times[i - 1]));
        deficit += (long double)trace.cost(i);
        most = std::max(most, deficit);
    }
    const long double debt = perNano * (long double)model.maxDelay();
    return std::max<std::int64_t>(1, (std::int64_t)std::ceil(most - debt));
}

} // namespace

std::vector<std::int64_t> TraefikBurstFamily::roundSteps() const
{
    std::vector<std::int64_t> out;
    for (std::int64_t m : {1, 2, 5, 10, 20, 30}) // a minute
        out.push_back(m);
    for (std::int64_t decade = 1; kPerMinuteSteps + decade <= m_top; decade *= 10) // a second
        for (std::int64_t m : {1, 2, 5})
            if (kPerMinuteSteps + decade * m <= m_top)
                out.push_back(kPerMinuteSteps + decade * m);
    return out;
}

Rate TraefikBurstFamily::rate(std::int64_t step) const
{
    return step <= kPerMinuteSteps ? Rate::reduced(step, kNanosPerMinute) : Rate::reduced(average(step), kNanosPerSecond);
}

std::string TraefikBurstFamily::rateText(std::int64_t step) const
{
    return grouping(average(step)) + " per " + periodText(step);
}

LimiterConfig TraefikBurstFamily::config(std::int64_t step, std::int64_t burst) const
{
    return LimiterConfig{}.withProductOptions({{"average", std::to_string(average(step))},
                                               {"period", periodText(step)},
                                               {"burst", std::to_string(burst)}});
}

std::int64_t TraefikBurstFamily::burstNeeded(KeyTrace trace, std::int64_t step) const
{
    if (trace.times.empty())
        return 1;
    std::int64_t burst = envelopeBurst(trace, Traefik(config(step, 1)));
    const auto admitsAll = [&](std::int64_t b) { return denied(trace, step, b) == 0; };
    while (!admitsAll(burst)) { // float64 rounding put the candidate below the least
        if (burst >= LimiterConfig::kMaxLimit)
            throw InputError("advise: a key needs a burst above " + grouping(LimiterConfig::kMaxLimit) + " at "
                             + rateText(step) + ", more than the Traefik model holds");
        ++burst;
    }
    while (burst > 1 && admitsAll(burst - 1)) // or above it
        --burst;
    return burst;
}

std::int64_t TraefikBurstFamily::denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    Traefik traefik(config(step, burst));
    return deniedOn(traefik, trace);
}

void TraefikBurstFamily::passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const
{
    Traefik traefik(config(step, burst));
    passedOn(traefik, trace, out);
}

std::optional<std::string> traefikSourceCriterion(const std::string& logKey)
{
    if (logKey == "ip")
        return "";
    if (logKey == "host")
        return "        sourceCriterion:\n          requestHost: true\n";
    if (const std::optional<std::string> header = headerOfField(logKey))
        return "        sourceCriterion:\n          requestHeaderName: " + *header + "\n";
    return std::nullopt;
}

std::string traefikAdviceConfig(std::int64_t step, std::int64_t burst, const std::string& sourceCriterion,
                                const LetBy& letBy)
{
    std::string routers;
    if (letBy.any()) { // the regex in Go's backquotes
        const std::string rule = letBy.path.empty() ? "HeaderRegexp(`User-Agent`, `" + letBy.written() + "`)"
                                                    : "PathRegexp(`" + letBy.written() + "`)";
        routers = "  routers:\n"
                  "    ratelab-let-by:\n"
                  "      rule: " + yamlQuoted(rule) + "\n"
                  "      priority: 2\n"
                  "      service: ratelab-upstream\n"
                  "    ratelab-limited:\n"
                  "      rule: 'PathPrefix(`/`)'\n"
                  "      priority: 1\n"
                  "      middlewares:\n"
                  "      - ratelab-limit\n"
                  "      service: ratelab-upstream\n"
                  "  services:\n"
                  "    ratelab-upstream:\n"
                  "      loadBalancer:\n"
                  "        servers:\n"
                  "        - url: http://upstream.invalid\n";
    }
    return "http:\n" + routers +
           "  middlewares:\n"
           "    ratelab-limit:\n"
           "      rateLimit:\n"
           "        average: " + std::to_string(TraefikBurstFamily::average(step)) + "\n"
           "        period: " + TraefikBurstFamily::periodText(step) + "\n"
           "        burst: " + std::to_string(burst) + "\n"
           + sourceCriterion;
}

} // namespace ratelab
