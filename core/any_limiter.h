// AnyLimiter: one limiter of any algorithm as a value (a std::variant of the concrete classes),
// so the engine keeps a policy's layers, a store's state and a node's copy side by side and
// copies them without a heap allocation or a virtual call per decision.
#pragma once

#include "limiters.h"
#include "synced_log.h"

#include <variant>

namespace ratelab {

using AnyLimiter = std::variant<FixedWindow, SlidingWindowLog, SlidingWindowCounter, TokenBucket, LeakyBucket,
                                LeakyBucketQueue, Gcra, NginxLimitReq, ExpressRateLimit, RateLimiterFlexible,
                                PythonLimits, GuavaRateLimiter, EnvoyLocal, Traefik, SpringGateway, Kong, RedisCell,
                                NodeLimiter, SyncedLog>;

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

} // namespace ratelab
