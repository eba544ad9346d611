// AnyLimiter: one limiter of any algorithm as a value (a std::variant of the concrete classes),
// so the engine keeps a policy's layers, a store's state and a node's copy side by side and
// copies them without a heap allocation or a virtual call per decision.
#pragma once

#include "arithmetic/decimal.h"
#include "limiters/limiters.h"
#include "limiters/synced_log.h"

#include <type_traits>
#include <variant>

namespace ratelab {

using AnyLimiter = std::variant<FixedWindow, SlidingWindowLog, SlidingWindowCounter, TokenBucket, LeakyBucket,
                                LeakyBucketQueue, Gcra, NginxLimitReq, ExpressRateLimit, RateLimiterFlexible,
                                PythonLimits, GuavaRateLimiter, EnvoyLocal, Traefik, SpringGateway, Kong, RedisCell,
                                NodeLimiter, UpstashRatelimit, CloudflareRate, AwsWafRate,
                                AwsApiGateway, SyncedLog>;

// SyncedLog is never built from an algorithm: a store cell whose nodes copy it (hybrid, racy)
// turns a SlidingWindowLog into one (store.cpp).

// makeAnyLimiter builds a fresh limiter of algorithm a as a value.
inline AnyLimiter makeAnyLimiter(Algorithm a, const LimiterConfig& config)
{
    return visitLimiter(a, config, [](auto& l) { return AnyLimiter(std::move(l)); });
}

// The Limiter calls on an AnyLimiter, each one std::visit.
inline Decision decideAny(AnyLimiter& l, Nanos t, std::int64_t cost)
{
    return std::visit([&](auto& x) { return cost == 1 ? x.decide(t) : x.decide(t, cost); }, l);
}
inline Nanos waitForAny(const AnyLimiter& l, Nanos t, std::int64_t cost)
{
    return std::visit([&](const auto& x) { return x.waitFor(t, cost); }, l);
}
// resetAny is the wait until a request of `quota` passes, or the reset a product that answers
// its own (kOwnReset: upstash_ratelimit) answered for its last decision.
inline Nanos resetAny(const AnyLimiter& l, Nanos t, std::int64_t quota)
{
    return std::visit([&](const auto& x) {
        if constexpr (requires { std::decay_t<decltype(x)>::kOwnReset; })
            return x.reset(t);
        else
            return x.waitFor(t, quota);
    }, l);
}
inline std::int32_t remainingAny(const AnyLimiter& l, Nanos t)
{
    return std::visit([&](const auto& x) { return x.remainingAt(t); }, l);
}
inline std::int64_t quotaAny(const AnyLimiter& l)
{
    return std::visit([](const auto& x) { return x.quota(); }, l);
}
inline double levelAny(const AnyLimiter& l, Nanos t)
{
    return std::visit([&](const auto& x) { return x.levelAt(t); }, l);
}
inline Memory memoryAny(const AnyLimiter& l)
{
    return std::visit([](const auto& x) { return x.memory(); }, l);
}

// retargetAny applies a limit change at t: the limiter keeps its state and takes config c from
// t on (each limiter's retarget says what it keeps). A product keeps its own configuration:
// InputError.
inline void retargetAny(AnyLimiter& l, const LimiterConfig& c, Nanos t)
{
    std::visit([&](auto& x) {
        if constexpr (requires { x.retarget(c, t); })
            x.retarget(c, t);
        else
            throw InputError("a limit change applies to the seven algorithms and nginx_limit_req; a product keeps "
                             "its own configuration");
    }, l);
}

// startsAsBucket is true for the algorithms whose state is a bucket that starts full or empty
// (semantics.md, "Start"): the token bucket, both leaky buckets, GCRA and nginx. A window's
// counters start empty either way; a product starts as its own code does.
inline bool startsAsBucket(Algorithm a)
{
    return a == Algorithm::TokenBucket || a == Algorithm::LeakyBucket || a == Algorithm::LeakyBucketQueue
        || a == Algorithm::Gcra || a == Algorithm::NginxLimitReq;
}

// emptyAt makes a fresh bucket hold no credit from time t on, as if its whole quota had just
// passed at t: no tokens, a full leaky bucket (or queue), GCRA's TAT at t + C * T, nginx's excess
// at its burst. Any other limiter is left as it is.
inline void emptyAt(AnyLimiter& l, Nanos t)
{
    std::visit([&](auto& x) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, SyncedLog>) // a log: a window
            if (startsAsBucket(x.algorithm()))
                (void)x.decide(t, x.quota());
    }, l);
}

} // namespace ratelab
