// AnyLimiter: one limiter of any algorithm as a value (a std::variant of the concrete types), the
// one way to hold a limiter whose algorithm is chosen at run time: the engine keeps a policy's
// layers, a store's state and a node's copy side by side and copies them without a heap
// allocation or a virtual call per decision.
#pragma once

#include "arithmetic/decimal.h"
#include "limiters/limiters.h"
#include "limiters/synced_log.h"

#include <type_traits>
#include <variant>

namespace ratelab {

using LimiterVariant = std::variant<FixedWindow, SlidingWindowLog, SlidingWindowCounter, TokenBucket, LeakyBucket,
                                    LeakyBucketQueue, Gcra, NginxLimitReq, ExpressRateLimit, RateLimiterFlexible,
                                    PythonLimits, GuavaRateLimiter, EnvoyLocal, Traefik, SpringGateway, Kong, RedisCell,
                                    NodeLimiter, UpstashRatelimit, CloudflareRate, AwsWafRate, AwsApiGateway, SyncedLog>;

// SyncedLog is never built from an algorithm: a store cell whose nodes copy it (hybrid, racy)
// turns a SlidingWindowLog into one (store.cpp).

// AnyLimiter answers the Limiter calls (limiter.h) for whichever type it holds, each one
// std::visit; std::get and std::visit reach the type itself.
class AnyLimiter : public LimiterVariant {
public:
    using LimiterVariant::LimiterVariant;

    Decision decide(Nanos t, std::int64_t cost = 1)
    {
        return std::visit([&](auto& x) { return cost == 1 ? x.decide(t) : x.decide(t, cost); }, base());
    }
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        return std::visit([&](const auto& x) { return x.waitFor(t, cost); }, base());
    }
    // reset is resetOf (limiter.h) for the limiter held.
    Nanos reset(Nanos t, std::int64_t quota) const
    {
        return std::visit([&](const auto& x) { return resetOf(x, t, quota); }, base());
    }
    Nanos reset(Nanos t) const { return std::visit([&](const auto& x) { return resetOf(x, t); }, base()); }
    std::int32_t remainingAt(Nanos t) const
    {
        return std::visit([&](const auto& x) { return x.remainingAt(t); }, base());
    }
    std::int64_t quota() const { return std::visit([](const auto& x) { return x.quota(); }, base()); }
    double levelAt(Nanos t) const { return std::visit([&](const auto& x) { return x.levelAt(t); }, base()); }
    Memory memory() const { return std::visit([](const auto& x) { return x.memory(); }, base()); }

    // retarget applies a limit change at t: the limiter keeps its state and takes config c from
    // t on (each limiter's retarget says what it keeps). A product keeps its own configuration:
    // InputError.
    void retarget(const LimiterConfig& c, Nanos t)
    {
        std::visit([&](auto& x) {
            if constexpr (requires { x.retarget(c, t); })
                x.retarget(c, t);
            else
                throw InputError("a limit change applies to the seven algorithms and nginx_limit_req; a product keeps "
                                 "its own configuration");
        }, base());
    }

private:
    LimiterVariant& base() { return *this; }
    const LimiterVariant& base() const { return *this; }
};

// Every type AnyLimiter holds is a Limiter.
static_assert([]<typename... L>(std::variant<L...>*) { return (Limiter<L> && ...); }(static_cast<LimiterVariant*>(nullptr)));

// makeLimiter builds a fresh limiter of algorithm a. It throws InputError for a config the
// algorithm (or the product) refuses.
inline AnyLimiter makeLimiter(Algorithm a, const LimiterConfig& config)
{
    return visitLimiter(a, config, [](auto& l) { return AnyLimiter(std::move(l)); });
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
    }, static_cast<LimiterVariant&>(l));
}

} // namespace ratelab
