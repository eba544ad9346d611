// An Amazon API Gateway usage plan's throttle as a BurstFamily (advise.h), its decisions the
// AwsApiGateway model's (limiters/products/aws_api_gateway.h): a token bucket per API key of
// rateLimit requests a second and burstLimit, beside the account's own (10,000 a second, burst
// 5,000), which the model always applies.
//
// The ladder, in the plan's own unit (rateLimit, requests a second, a decimal): steps 1..99 are
// 0.01 to 0.99 a second, step 99 + N is N a second, up to the account's 10,000 (a plan above it
// throttles nothing the account does not). Every step is an exact decimal, so the written
// rateLimit reads back as the same rate.
//
// The least burst at a step: with d the bucket's deficit (burstLimit - tokens), each request
// makes d = max(0, d - rate * elapsed) + cost and passes iff d <= burstLimit; with every request
// passing d does not depend on the burst, so one pass (exact: d scaled by the rate's
// denominator, in Int128) gives the candidate ceil(max d), at least 1 (burstLimit 0 throttles
// every request). It is then checked on the model itself, which the account's bucket joins:
// moved up until the model admits every request, down while it admits them at one less. A
// higher rate drains at least as much between two requests, so d, and the burst, never grow
// with the step; the property test checks both against a brute-force search on the model.
#pragma once

#include "advise/advise.h"
#include "limiters/config.h"
#include "limiters/products/aws_api_gateway.h"

namespace ratelab {

class AwsApiGatewayBurstFamily final : public BurstFamily {
public:
    static constexpr std::int64_t kHundredthSteps = 99;   // steps 1..99 are N hundredths a second
    static constexpr std::int64_t kAccountRate = AwsApiGateway::kAccountRate; // the account's requests a second

    std::string product() const override { return "Amazon API Gateway"; }
    std::int64_t maxStep() const override { return kHundredthSteps + kAccountRate; }
    std::vector<std::int64_t> roundSteps() const override;
    Rate rate(std::int64_t step) const override;
    std::string rateText(std::int64_t step) const override;
    std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const override;
    std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const override;
    void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const override;
    // mostIn: the usage plan's token bucket's worstCaseBound (burst + floor(rate * (T - 1 ns));
    // for burst 1, 1 + floor((T - 1 ns) / ceil(1 / rate)); reached), or the account's (5,000 +
    // 10,000 a second), when that is less.
    std::optional<std::int64_t> mostIn(std::int64_t step, std::int64_t burst, Nanos window) const override;

    static std::int64_t perSecond(std::int64_t n) { return kHundredthSteps + n; }
    // rateLimit is the step's rate as the usage plan writes it: "0.5", "20".
    std::string rateLimit(std::int64_t step) const { return rate(step).exactText(); }
    LimiterConfig config(std::int64_t step, std::int64_t burst) const;

private:
    bool admitsAll(KeyTrace trace, std::int64_t step, std::int64_t burst) const;
};

// awsUsagePlanJson is the usage plan `advise` writes, as `aws apigateway get-usage-plan` prints
// one (and `aws apigateway create-usage-plan --cli-input-json` takes its name, description and
// throttle): no apiStages yet, so it throttles no stage until one is added.
std::string awsUsagePlanJson(const AwsApiGatewayBurstFamily& family, std::int64_t step, std::int64_t burst);

} // namespace ratelab
