// The interface every rate limiter in RateLab implements, and the Decision it returns.
//
// A limiter is a small value type: its whole state is a few integers (or, for the log, a ring of
// timestamps). It never reads a clock; each call is handed the request time `t` in nanoseconds,
// and times must not decrease from one call to the next. Copying a limiter copies its state,
// which is how tests ask "what if a request came at t + d instead".
#pragma once

#include "limiters/config.h"
#include "arithmetic/nanos.h"

#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ratelab {

enum class Algorithm : std::uint8_t {
    FixedWindow,
    SlidingWindowLog,
    SlidingWindowCounter,
    TokenBucket,
    LeakyBucket,
    LeakyBucketQueue,
    Gcra,
    NginxLimitReq, // nginx's limit_req as nginx computes it; not in the default set
    // The products people deploy, each as its own code decides (core/products/); opt-in like nginx.
    ExpressRateLimit,
    RateLimiterFlexible,
    PythonLimits,
    Guava,
    EnvoyLocal,
    Traefik,
    SpringGateway,
    Kong,
    RedisCell,
    NodeLimiter,
    UpstashRatelimit,
    CloudflareRate,
    AwsWafRate,
    AwsApiGateway,
};

// kAllAlgorithms is the seven textbook algorithms of semantics.md, the set every comparison runs
// unless told otherwise (so it is also kDefaultAlgorithms). nginx_limit_req is left out on
// purpose: the UI, presets and properties iterate this set, and the issue keeps nginx opt-in.
inline constexpr std::array<Algorithm, 7> kAllAlgorithms = {
    Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter, Algorithm::TokenBucket,
    Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue, Algorithm::Gcra,
};

// kDefaultAlgorithms is what a scenario runs by default: the textbook seven.
inline constexpr const std::array<Algorithm, 7>& kDefaultAlgorithms = kAllAlgorithms;

// kEveryAlgorithm is every algorithm RateLab knows, the opt-in ones included: what an id may name.
inline constexpr std::array<Algorithm, 22> kEveryAlgorithm = {
    Algorithm::FixedWindow,      Algorithm::SlidingWindowLog,    Algorithm::SlidingWindowCounter, Algorithm::TokenBucket,
    Algorithm::LeakyBucket,      Algorithm::LeakyBucketQueue,    Algorithm::Gcra,                 Algorithm::NginxLimitReq,
    Algorithm::ExpressRateLimit, Algorithm::RateLimiterFlexible, Algorithm::PythonLimits,         Algorithm::Guava,
    Algorithm::EnvoyLocal,       Algorithm::Traefik,             Algorithm::SpringGateway,        Algorithm::Kong,
    Algorithm::RedisCell,        Algorithm::NodeLimiter,         Algorithm::UpstashRatelimit,
    Algorithm::CloudflareRate,   Algorithm::AwsWafRate,          Algorithm::AwsApiGateway,
};

// isProduct is true for the product models (express_rate_limit ... redis_cell): they read their
// product's own options (LimiterConfig::productOptions) and decide as the product's code does.
constexpr bool isProduct(Algorithm a) { return a >= Algorithm::ExpressRateLimit; }

// onTheClock is true for the products whose decisions depend on the clock's time, not only on the
// time between requests: Kong's windows start on the clock's seconds, minutes, hours...;
// Cloudflare's periods and Upstash's windows are floor(now / period); AWS WAF checks every 10 s
// of the clock; API Gateway's quotas are UTC calendar days, weeks and months; Spring's script
// counts whole epoch seconds. Their t = 0 is 1970-01-01T00:00:00Z, so a replayed log hands them its
// times since 1970. The other limiters read only the times between requests, so a log's own start
// serves them as well.
constexpr bool onTheClock(Algorithm a)
{
    return a == Algorithm::Kong || a == Algorithm::CloudflareRate || a == Algorithm::UpstashRatelimit
        || a == Algorithm::AwsWafRate || a == Algorithm::AwsApiGateway || a == Algorithm::SpringGateway;
}

// isWindowAlgorithm is true for the limiters configured by limit L and window W (false: by
// capacity C and rate r, or nginx's burst).
constexpr bool isWindowAlgorithm(Algorithm a)
{
    return a == Algorithm::FixedWindow || a == Algorithm::SlidingWindowLog || a == Algorithm::SlidingWindowCounter;
}

// DecidePath is how a limiter decides a request of cost 1. Fast (the default) takes its 64-bit
// path with a branch-free verdict when the config's scaled integers fit 64 bits; General always
// takes the 128-bit path every cost takes. Both give the same Decisions; tests compare them.
enum class DecidePath : std::uint8_t { Fast, General };

// kMaxCost is the largest cost one request may have.
inline constexpr std::int64_t kMaxCost = 1'000'000'000;

// kMaxArrivals caps how many requests one scenario may hold, so that a trace of every algorithm
// stays within a few hundred megabytes. It lives with the limiters because the worst pattern
// (worst_case.h) is generated here, below the traffic that also obeys it.
inline constexpr std::int64_t kMaxArrivals = 5'000'000;

// kRetryNever is Decision::retryAfter for a request that can never be admitted (its cost exceeds
// the quota): JSON writes it as null, CSV as an empty field.
inline constexpr Nanos kRetryNever = -1;

// algorithmId returns the id used everywhere: CLI, JSON, scenario files, UI ("token_bucket").
std::string_view algorithmId(Algorithm a);
// algorithmTitle returns the name people read ("Token bucket").
std::string_view algorithmTitle(Algorithm a);
// levelUnit names what the algorithm's level counts ("tokens", "requests waiting").
std::string_view levelUnit(Algorithm a);
// algorithmFromId parses an id; it returns nullopt for an unknown one.
std::optional<Algorithm> algorithmFromId(std::string_view id);

// Decision is what a limiter answers for one request.
struct Decision {
    // delay is how long an admitted request waits before it leaves (the queue only), rounded up
    // to the nanosecond.
    Nanos delay = 0;
    // retryAfter is, for a denied request, the least d such that one request of the same cost at
    // t + d would be admitted if nothing else arrived; 0 when admitted; kRetryNever when no time
    // helps (the cost exceeds the limit or capacity).
    Nanos retryAfter = 0;
    // level is the limiter's state after the request, in the unit levelUnit names.
    double level = 0;
    // remaining is how many more requests of cost 1 at the same instant would be admitted.
    std::int32_t remaining = 0;
    bool allowed = false;

    // retryNever is true for a denied request that no wait would admit (retryAfter kRetryNever).
    bool retryNever() const { return retryAfter == kRetryNever; }
};

// Memory is the state a limiter holds for one key: each entry is one stored record (a
// timestamp, or the handful of counters of an O(1) limiter), counted as 8 bytes a field.
struct Memory {
    std::int64_t bytes = 0;
    std::int64_t entries = 0;

    // += adds another key's or layer's state: a sum of what several hold.
    Memory& operator+=(const Memory& m)
    {
        bytes += m.bytes;
        entries += m.entries;
        return *this;
    }
};

// Limiter is what every limiter type provides. A type is used by its concrete name in hot loops
// (visitLimiter, limiters.h) and as one value of any algorithm through AnyLimiter (any_limiter.h);
// there is no virtual base.
//  - decide(t) admits or denies one request of cost 1 at t, which must not be earlier than the
//    last t; decide(t, cost) one of the given cost (1..kMaxCost), as the "Request cost" table of
//    semantics.md says (decide(t, 1) is decide(t)).
//  - waitFor(t, cost) returns the least d >= 0 such that a request of `cost` (at most quota())
//    at t + d would be admitted if nothing else arrived, without changing state (t not earlier
//    than the last request).
//  - remainingAt(t) returns how many requests of cost 1 at t would be admitted, without changing
//    state.
//  - quota() returns the most one instant can admit from a fresh limiter: L or C (nginx: B + 1).
//    A request costing more is never admitted.
//  - levelAt(t) reports the level at t (not earlier than the last request) without changing state.
//  - memory() reports the state held now; algorithm() which algorithm it is.
// A product that answers a reset of its own with each decision (upstash_ratelimit) declares
// kOwnReset and reset(t): resetOf (below) says how the others' reset follows from waitFor.
template <typename L>
concept Limiter = requires(L& l, const L& c, Nanos t, std::int64_t cost) {
    { l.decide(t) } -> std::same_as<Decision>;
    { l.decide(t, cost) } -> std::same_as<Decision>;
    { c.waitFor(t, cost) } -> std::same_as<Nanos>;
    { c.remainingAt(t) } -> std::same_as<std::int32_t>;
    { c.quota() } -> std::same_as<std::int64_t>;
    { c.levelAt(t) } -> std::same_as<double>;
    { c.memory() } -> std::same_as<Memory>;
};

// resetOf returns the least d such that, with nothing else arriving, the limiter is back to its
// full quota at t + d: a request of cost `quota` (its quota(), unless the caller kept another)
// would be admitted then, waitFor(t, quota). A product that answers a reset of its own with
// each decision (kOwnReset: upstash_ratelimit) gives the one it answered for its last decision,
// from t.
template <Limiter L>
Nanos resetOf(const L& l, Nanos t, std::int64_t quota)
{
    if constexpr (requires { L::kOwnReset; })
        return l.reset(t);
    else
        return l.waitFor(t, quota);
}
template <Limiter L>
Nanos resetOf(const L& l, Nanos t) { return resetOf(l, t, l.quota()); }

// clampRemaining narrows a count of further admissions to the Decision field.
constexpr std::int32_t clampRemaining(Int128 n)
{
    return n < 0 ? 0 : n > 2'000'000'000 ? 2'000'000'000 : static_cast<std::int32_t>(n);
}

} // namespace ratelab
