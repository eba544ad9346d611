#include "limiters/limiter.h"

#include "limiters/algorithm_facts.h"
#include "limiters/limiters.h"

#include <iterator>

namespace ratelab {

namespace {

double limitOf(const LimiterConfig& c) { return double(c.limit()); }
double capacityOf(const LimiterConfig& c) { return double(c.capacity()); }

// ownLimitOf is the dashed line of a product that counts requests in a window: its own limit
// (ownLimit), 0 when config does not build it. (Kong's is its shortest period's, the one its level counts.)
template <Algorithm A>
double ownLimitOf(const LimiterConfig& c)
{
    try {
        visitLimiter(A, c, [](auto&) {}); // refuses what the product refuses, options or not
        return double(ownLimit(A, c).limit);
    } catch (const InputError&) {
        return 0.0;
    }
}

// kFacts is in the order of the Algorithm enum. A table, one row an algorithm: long because it lists
// them all, each row read on its own.
const AlgorithmFacts kFacts[] = {
    {Algorithm::FixedWindow, "fixed_window", "Fixed window", "fixed window", "requests in window", "limit",
     ConfigUse::LimitWindow, limitOf,
     "Counts requests in fixed windows [kW, (k+1)W) and admits up to L in each. One counter per key, "
     "and the easiest to explain, but it forgets everything at a boundary: L just before it and L just "
     "after are all admitted, twice the limit within one window's length."},
    {Algorithm::SlidingWindowLog, "sliding_window_log", "Sliding window log", "sliding window log", "entries in log",
     "limit", ConfigUse::LimitWindow, limitOf,
     "Keeps the time of every admitted request still inside the trailing window (t - W, t] and admits "
     "while fewer than L are there. Exact: no window of length W ever holds more than L. The price is "
     "memory, up to L timestamps per key."},
    {Algorithm::SlidingWindowCounter, "sliding_window_counter", "Sliding window counter", "sliding window counter",
     "estimated requests", "limit", ConfigUse::LimitWindow, limitOf,
     "Estimates the trailing window from two fixed-window counters, weighting the previous window by how "
     "much of it still overlaps: E = prev * (W - e) / W + cur, admitting while E < L. Two counters per "
     "key; it errs when the previous window's requests bunched at its end."},
    {Algorithm::TokenBucket, "token_bucket", "Token bucket", "token bucket", "tokens", "capacity",
     ConfigUse::CapacityRate, capacityOf,
     "A bucket of up to C tokens, refilled at r per second; each request takes one. A quiet client saves "
     "up credit and may spend it at once: bursts of up to C, an average of r."},
    {Algorithm::LeakyBucket, "leaky_bucket", "Leaky bucket (meter)", "leaky bucket (meter)", "water", "capacity",
     ConfigUse::CapacityRate, capacityOf,
     "Each request pours one unit into a bucket of size C that drains at r per second; a request that "
     "would overflow it is denied. Its water is C minus a token bucket's tokens: it admits exactly the "
     "same requests."},
    {Algorithm::LeakyBucketQueue, "leaky_bucket_queue", "Leaky bucket (queue)", "leaky bucket (queue)",
     "requests waiting", "most that can wait (capacity - 1)", ConfigUse::CapacityRate,
     [](const LimiterConfig& c) { return double(c.capacity() - 1); },
     "Admits what the meter admits, but holds each admitted request until the water ahead of it has "
     "drained, so requests leave at most r per second: bursts are smoothed into a steady stream, at the "
     "cost of waiting."},
    {Algorithm::Gcra, "gcra", "GCRA", "GCRA", "backlog (s)", "largest backlog (capacity / rate)",
     ConfigUse::CapacityRate, [](const LimiterConfig& c) { return double(c.capacity()) / c.rate().perSecond(); },
     "The generic cell rate algorithm keeps one timestamp, the theoretical arrival time, and admits a "
     "request if it is no more than (C - 1) / r ahead of it. It admits exactly what the token bucket "
     "admits, with a single number of state."},
    {Algorithm::NginxLimitReq, "nginx_limit_req", "nginx limit_req", "nginx limit_req", "excess (requests)",
     "burst", ConfigUse::CapacityRate, [](const LimiterConfig& c) { return double(c.nginxBurst()); },
     "nginx's limit_req as nginx 1.22 computes it: a leaky bucket of burst B + 1 kept in whole "
     "milliseconds and thousandths of a request, rejecting when the excess would pass B. It admits what "
     "the textbook leaky bucket admits when every time is a whole millisecond and the rate a whole number "
     "per second; elsewhere the truncations show."},
    // Product models (core/products/): each Help paragraph names the source and version it follows.
    {Algorithm::ExpressRateLimit, "express_rate_limit", "express-rate-limit", "express-rate-limit", "hits in window",
     "limit", ConfigUse::LimitWindow, ownLimitOf<Algorithm::ExpressRateLimit>,
     "express-rate-limit's MemoryStore as version 8.7.5 computes it (npm; source/memory-store.ts): a window of "
     "windowMs that starts at the client's first request, Date.now() milliseconds, and a 429 once the hits pass "
     "limit. Rejected requests are hits too, so a client that keeps retrying stays limited until the window ends."},
    {Algorithm::RateLimiterFlexible, "rate_limiter_flexible", "rate-limiter-flexible", "rate-limiter-flexible",
     "points consumed", "points", ConfigUse::LimitWindow,
     ownLimitOf<Algorithm::RateLimiterFlexible>,
     "rate-limiter-flexible's RateLimiterMemory as version 11.4.0 computes it (npm; lib/RateLimiterMemory.js, "
     "MemoryStorage.js): points per duration seconds from the key's first request, rejected requests counted too, "
     "and with blockDuration the first rejection blocks the key for that long."},
    {Algorithm::PythonLimits, "python_limits", "Python limits", "Python limits", "hits in window", "amount",
     ConfigUse::LimitWindow, ownLimitOf<Algorithm::PythonLimits>,
     "The Python limits library (Flask-Limiter, slowapi) with MemoryStorage as version 2.8.0 computes it (Debian's "
     "python3-limits; strategies.py, storage/memory.py), in time.time() floats: fixed-window (from the first hit, "
     "rejected hits counted), fixed-window-elastic-expiry (every hit moves the end), moving-window (an entry exactly "
     "the expiry old still counts)."},
    {Algorithm::Guava, "guava", "Guava RateLimiter", "Guava RateLimiter", "stored permits", "max permits",
     ConfigUse::CapacityRate,
     [](const LimiterConfig& c) {
         try {
             return GuavaRateLimiter(c).permitsPerSecond(); // maxPermits: one second of permits
         } catch (const InputError&) {
             return 0.0;
         }
     },
     "Guava's RateLimiter.create(permitsPerSecond) (SmoothBursty) asked with tryAcquire(1, 0, unit), as Guava 31.1 "
     "computes it (SmoothRateLimiter.java): it starts with no stored permits, stores up to one second of them, and "
     "admits a request whenever the next ticket is free, letting it borrow: the request that exceeds pays for the "
     "next."},
    {Algorithm::EnvoyLocal, "envoy_local", "Envoy local rate limit", "Envoy local rate limit", "tokens", "max_tokens",
     ConfigUse::CapacityRate, [](const LimiterConfig& c) { return productQuota(Algorithm::EnvoyLocal, c); },
     "Envoy's local_ratelimit token bucket as Envoy computes it at commit 016c0c8 (local_ratelimit_impl.cc): "
     "max_tokens, refilled by tokens_per_fill only when the fill_interval timer fires (at least 50 ms). Between "
     "fires nothing refills, and tokens_per_fill above max_tokens is cut to max_tokens."},
    {Algorithm::Traefik, "traefik", "Traefik rateLimit", "Traefik rateLimit", "tokens", "burst",
     ConfigUse::CapacityRate, [](const LimiterConfig& c) { return productQuota(Algorithm::Traefik, c); },
     "Traefik's rateLimit middleware (v2, rate_limiter.go at commit 001e9aa) on golang.org/x/time/rate v0.3.0: "
     "average per period (average 6, period 1m is one per 10 s), burst, and requests held back up to maxDelay "
     "(half an interval, or 500 ms below 1/s) instead of refused."},
    {Algorithm::SpringGateway, "spring_gateway", "Spring Cloud Gateway", "Spring Cloud Gateway RedisRateLimiter",
     "tokens", "burstCapacity", ConfigUse::CapacityRate,
     [](const LimiterConfig& c) { return productQuota(Algorithm::SpringGateway, c); },
     "Spring Cloud Gateway's RedisRateLimiter and its request_rate_limiter.lua (commit d2625f9): replenishRate "
     "tokens each whole second up to burstCapacity. burstCapacity 0 refuses everything, and a burstCapacity below "
     "half the replenishRate makes the script's ttl 0: nothing is stored and every request passes."},
    {Algorithm::Kong, "kong", "Kong rate-limiting", "Kong rate-limiting", "requests in window", "limit",
     ConfigUse::LimitWindow, ownLimitOf<Algorithm::Kong>,
     "Kong's rate-limiting plugin, policy local, as Kong 3.10.0 computes it (handler.lua, policies/init.lua): fixed "
     "windows per second, minute, hour, day, month and year on the UTC calendar, whole seconds of ngx.time(); a "
     "request passes while every configured window has room."},
    {Algorithm::RedisCell, "redis_cell", "redis-cell CL.THROTTLE", "redis-cell", "backlog (s)", "max_burst + 1",
     ConfigUse::CapacityRate, [](const LimiterConfig& c) { return productQuota(Algorithm::RedisCell, c); },
     "redis-cell's CL.THROTTLE key max_burst count_per_period period, GCRA as redis-cell computes it at commit "
     "97d409c (redis-cell-impl/src/lib.rs): the tolerance is max_burst + 1 emission intervals, so max_burst 15 "
     "admits 16 at once."},
    {Algorithm::NodeLimiter, "node_limiter", "npm limiter", "npm limiter", "tokens", "tokensPerInterval",
     ConfigUse::LimitWindow, ownLimitOf<Algorithm::NodeLimiter>,
     "The npm package limiter's RateLimiter (tryRemoveTokens, fireImmediately) as version 4.1.0 computes it "
     "(RateLimiter.js, TokenBucket.js): a full bucket of tokensPerInterval dripping in performance.now() "
     "milliseconds, and a fixed window of interval from the first request that also caps each window at "
     "tokensPerInterval."},
    {Algorithm::UpstashRatelimit, "upstash_ratelimit", "Upstash Ratelimit", "@upstash/ratelimit", "tokens used", "limit",
     ConfigUse::LimitWindow, [](const LimiterConfig& c) { return productQuota(Algorithm::UpstashRatelimit, c); },
     "@upstash/ratelimit 2.2.0 (npm) as its Lua scripts and TypeScript compute it, in Date.now() milliseconds: limiter "
     "fixedWindow or slidingWindow (tokens per window such as \"10 s\") or tokenBucket (refillRate per interval, "
     "maxTokens). Its slidingWindow is the two-bucket estimate with the previous window's weighted count rounded "
     "down, its tokenBucket refills in whole intervals, and its ephemeralCache (on by default) keeps a denied "
     "identifier blocked until the reset it was told, that millisecond included."},
    {Algorithm::CloudflareRate, "cloudflare_rate", "Cloudflare rate limiting rule", "Cloudflare rate limiting rule",
     "estimated requests", "requests_per_period", ConfigUse::LimitWindow, ownLimitOf<Algorithm::CloudflareRate>,
     "A Cloudflare rate limiting rule per IP or header value. Documented: period (10 s to 1 h), "
     "requests_per_period, and the mitigation_timeout for which the request that passes the limit blocks every "
     "later one, whatever the rate. Published (Cloudflare's 2017 blog): the rate is the previous period's count "
     "weighted by its overlap plus this period's. Assumed: exact arithmetic, blocked requests not counted. Without "
     "its options: RateLab's L per W and no timeout."},
    {Algorithm::AwsWafRate, "aws_waf_rate", "AWS WAF rate-based rule", "AWS WAF rate-based rule", "requests in window",
     "Limit", ConfigUse::LimitWindow, ownLimitOf<Algorithm::AwsWafRate>,
     "An AWS WAF rate-based rule with a Block action per aggregation key (action=Count counts and blocks nothing, as "
     "WAF's Count action does). Documented: EvaluationWindowSec 60, 120, "
     "300 or 600, Limit at least 10, a check about every 10 s (rate_check_interval) and a delay usually below 30 s "
     "before blocking starts or stops (detection_delay, taken as 30 s). Assumed: checks on multiples of the "
     "interval, an exact count (AWS says its estimate favours recent requests and is not exact), and every request "
     "counted, blocked or not. Without its options: RateLab's L per W, whatever AWS offers."},
    {Algorithm::AwsApiGateway, "aws_api_gateway", "Amazon API Gateway throttling", "API Gateway throttling", "tokens",
     "burst", ConfigUse::CapacityRate, [](const LimiterConfig& c) { return productQuota(Algorithm::AwsApiGateway, c); },
     "Amazon API Gateway's throttling as documented: a token bucket (rate per second, burst) at every level at once "
     "(the account's 10,000/s burst 5,000 in a Region, the stage, a method, a usage plan's per API key), and a "
     "usage plan's quota per DAY, WEEK or MONTH. Assumed: a throttled request takes no token and no quota, quota "
     "periods on the UTC calendar (weeks from Sunday)."},
};

static_assert(std::size(kFacts) == kEveryAlgorithm.size(), "one row of facts per algorithm");

} // namespace

std::span<const AlgorithmFacts> algorithmFacts() { return kFacts; }

const AlgorithmFacts& facts(Algorithm a) { return kFacts[static_cast<std::size_t>(a)]; }

std::string_view algorithmId(Algorithm a) { return facts(a).id; }
std::string_view algorithmTitle(Algorithm a) { return facts(a).title; }
std::string_view levelUnit(Algorithm a) { return facts(a).levelUnit; }

std::optional<Algorithm> algorithmFromId(std::string_view id)
{
    for (const AlgorithmFacts& f : kFacts)
        if (f.id == id)
            return f.algorithm;
    return std::nullopt;
}

} // namespace ratelab
