// Spring Cloud Gateway's RedisRateLimiter as a BurstFamily (advise.h), its decisions Spring's
// (limiters/products/spring_gateway.h: replenishRate tokens added at each whole second of the
// clock, up to burstCapacity, a request taking requestedTokens of them).
//
// The ladder: N a minute for N = 1..59, then N a second. A rate below one a second is a
// request's worth of tokens arriving over several seconds: replenishRate N and requestedTokens
// 60, reduced by their common factor (30 a minute: replenishRate 1, requestedTokens 2), with
// burstCapacity the burst times requestedTokens (1 a minute, burst 5: replenishRate 1,
// requestedTokens 60, burstCapacity 300). N a second is replenishRate N, requestedTokens 1,
// burstCapacity the burst. On this ladder the rate in requests (replenishRate / requestedTokens)
// grows with the step, so a key's deficit after each request is no larger at a higher step and
// the burst it needs never grows, which the property test checks on Spring's own model.
//
// The least burst at a step: with d = burstCapacity - tokens, each request at whole epoch second s
// makes d = max(0, d - replenishRate * (s - the previous request's second)) + requested, and
// passes iff d <= burstCapacity; with every request passing d does not depend on the capacity,
// so one pass gives the most d, in whole tokens (exact, as every value in the script is a whole
// number), and the burst is that over requestedTokens, rounded up, at least 1 (burstCapacity 0
// refuses every request). The candidate is then checked on the model itself.
//
// The top: a bucket no larger than a second's tokens is whole again at every second, so rate N
// a second with burst B <= N is the limit of B a second whatever N is, and below B = N / 2 the
// script's ttl (floor(2 * B / N)) is 0, it stores nothing and limiting is OFF. So the steps above
// the burst the kept keys need at any rate (the most their requests cost in one second of the
// clock) are that burst's own limit written with a rate that can only switch it off: topStep is
// that burst a second, and no step above it is written (burst >= rate everywhere below it).
#pragma once

#include "advise/advise.h"
#include "limiters/config.h"

#include <optional>

namespace ratelab {

class SpringBurstFamily final : public BurstFamily {
public:
    static constexpr std::int64_t kPerMinuteSteps = 59; // steps 1..59 are N a minute
    static constexpr std::int64_t kJavaInt = 2'147'483'647; // replenishRate and requestedTokens are ints

    std::string product() const override { return "Spring Cloud Gateway"; }
    std::int64_t maxStep() const override { return kPerMinuteSteps + kJavaInt; }
    std::vector<std::int64_t> roundSteps() const override;
    Rate rate(std::int64_t step) const override;
    std::string rateText(std::int64_t step) const override;
    std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const override;
    std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const override;
    void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const override;
    // mostIn: with C burstCapacity, R replenishRate and q requestedTokens, the bucket holds at most
    // C at the window's first instant and gains at most min(R, C) at each whole second of the
    // clock inside it (ceil((T - 1) / 1 s) at most), so at most floor((C + min(R, C) * seconds) /
    // q) requests pass: reached unless a second's tokens overflow C. INT64_MAX when 2C < R, where
    // the script stores nothing and limits nothing; 0 for C = 0.
    std::optional<std::int64_t> mostIn(std::int64_t step, std::int64_t burst, Nanos window) const override;
    std::int64_t topStep(std::int64_t floorBurst) const override;

    // What the written filter says for a step: replenishRate and requestedTokens, and
    // burstCapacity for a burst (it throws InputError above what the model holds).
    static std::int64_t replenishRate(std::int64_t step);
    static std::int64_t requestedTokens(std::int64_t step);
    static std::int64_t burstCapacity(std::int64_t step, std::int64_t burst);
    static std::int64_t perSecond(std::int64_t n) { return kPerMinuteSteps + n; }
    LimiterConfig config(std::int64_t step, std::int64_t burst) const;

private:
    bool admitsAll(KeyTrace trace, std::int64_t step, std::int64_t burst) const;
};

// springKeyResolver is what keys the filter by the log's key: "" for "user" (no key-resolver:
// Spring's default PrincipalNameKeyResolver, the authenticated principal's name), else the Java
// expression of a KeyResolver bean for the client's address ("ip"), the request's host ("host") or
// a header (field http_NAME); nullopt when the log's key is none of them (refused).
std::optional<std::string> springKeyResolver(const std::string& logKey);

// springAdviceConfig is the application.yml `advise` writes: one route, ratelab-limit, taking
// every path, with a RequestRateLimiter filter (deny-empty-key false: a request without a key
// passes, as no limit counts it), and the KeyResolver bean to add, as a comment, when the key
// is not the principal.
std::string springAdviceConfig(std::int64_t step, std::int64_t burst, const std::string& keyResolver);

} // namespace ratelab
