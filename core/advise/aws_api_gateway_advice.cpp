#include "advise/aws_api_gateway_advice.h"

#include "advise/textbook_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/products/aws_api_gateway.h"
#include "limiters/worst_case.h"

#include <algorithm>

namespace ratelab {

namespace {

// envelopeBurst is the one-pass candidate (aws_api_gateway_advice.h): the textbook token bucket's
// least capacity, the same deficit; above what the models hold it is that most, which the model
// then refuses by name.
std::int64_t envelopeBurst(KeyTrace trace, Rate r)
{
    try {
        return bucketCapacityNeeded(trace, r);
    } catch (const InputError&) {
        return LimiterConfig::kMaxLimit;
    }
}

} // namespace

std::vector<std::int64_t> AwsApiGatewayBurstFamily::roundSteps() const
{
    std::vector<std::int64_t> out{1, 2, 5, 10, 20, 50}; // hundredths a second
    for (std::int64_t decade = 1; decade <= kAccountRate; decade *= 10)
        for (std::int64_t m : {1, 2, 5})
            if (decade * m <= kAccountRate)
                out.push_back(perSecond(decade * m));
    return out;
}

Rate AwsApiGatewayBurstFamily::rate(std::int64_t step) const
{
    return step <= kHundredthSteps ? Rate::reduced(step, 100 * kNanosPerSecond)
                                   : Rate::reduced(step - kHundredthSteps, kNanosPerSecond);
}

std::string AwsApiGatewayBurstFamily::rateText(std::int64_t step) const { return rateLimit(step) + "/s"; }

LimiterConfig AwsApiGatewayBurstFamily::config(std::int64_t step, std::int64_t burst) const
{
    return LimiterConfig{}.withProductOptions({{"plan_rate", rateLimit(step)}, {"plan_burst", std::to_string(burst)}});
}

std::optional<std::int64_t> AwsApiGatewayBurstFamily::mostIn(std::int64_t step, std::int64_t burst, Nanos window) const
{
    const auto bucket = [window](std::int64_t capacity, Rate r) {
        return capacity == 0 ? 0
                             : *worstCaseBound(Algorithm::TokenBucket, LimiterConfig::make(capacity, r.perNanos, capacity, r), window);
    };
    return std::min(bucket(burst, rate(step)),
                    bucket(AwsApiGateway::kAccountBurst, Rate{AwsApiGateway::kAccountRate, kNanosPerSecond}));
}

bool AwsApiGatewayBurstFamily::admitsAll(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    return denied(trace, step, burst) == 0;
}

std::int64_t AwsApiGatewayBurstFamily::burstNeeded(KeyTrace trace, std::int64_t step) const
{
    if (trace.times.empty())
        return 1;
    std::int64_t burst = envelopeBurst(trace, rate(step));
    if (!admitsAll(trace, step, LimiterConfig::kMaxLimit)) // the account's bucket throttles it whatever the plan
        throw InputError("advise: a key's requests exceed the account's own throttle (10,000 requests a second, "
                         "burst 5,000), which no usage plan lifts");
    while (!admitsAll(trace, step, burst)) // not expected: the model's arithmetic is exact
        ++burst;
    while (burst > 1 && admitsAll(trace, step, burst - 1))
        --burst;
    return burst;
}

std::int64_t AwsApiGatewayBurstFamily::denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    AwsApiGateway gateway(config(step, burst));
    return deniedOn(gateway, trace);
}

void AwsApiGatewayBurstFamily::passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const
{
    AwsApiGateway gateway(config(step, burst));
    passedOn(gateway, trace, out);
}

std::string awsUsagePlanJson(const AwsApiGatewayBurstFamily& family, std::int64_t step, std::int64_t burst)
{
    return "{\n"
           "  \"name\": \"ratelab-limit\",\n"
           "  \"description\": \"Advised by ratelab advise: add the API stages and the API keys it throttles\",\n"
           "  \"apiStages\": [],\n"
           "  \"throttle\": {\n"
           "    \"burstLimit\": " + std::to_string(burst) + ",\n"
           "    \"rateLimit\": " + family.rateLimit(step) + "\n"
           "  }\n"
           "}\n";
}

} // namespace ratelab
