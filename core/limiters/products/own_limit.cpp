#include "limiters/products/own_limit.h"

#include "limiters/limiters.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace ratelab {

namespace {

// kKongSeconds is the length of each Kong period (second ... year) as Kong's
// rate-limiting/expiration.lua counts it: a month is 30 days and a year 365.
constexpr std::int64_t kKongSeconds[Kong::kPeriods] = {1, 60, 3600, 86400, 2'592'000, 31'536'000};

// gcd128 returns the greatest common divisor of a and b (Euclid's).
Int128 gcd128(Int128 a, Int128 b)
{
    while (b != 0) {
        const Int128 r = a % b;
        a = b;
        b = r;
    }
    return a;
}

// wholeOver returns count / per requests every `unit` as a whole limit: over the least whole
// number of units that makes it whole (5/2 a second is 5 per 2 s). Where that limit or window is
// beyond what RateLab holds, the rate rounded up to whole requests per unit.
LimitWindow wholeOver(Int128 count, Int128 per, Nanos unit)
{
    const Int128 g = gcd128(count, per);
    const Int128 limit = count / g, units = per / g;
    if (limit <= LimiterConfig::kMaxLimit && units <= kMaxNanos / unit)
        return {static_cast<std::int64_t>(limit), static_cast<Nanos>(units * unit)};
    return {static_cast<std::int64_t>(std::max<Int128>(1, ceilDiv(count, per))), unit};
}

// guavaLimit returns permitsPerSecond per second, read exactly from the option's decimal text
// (the model holds the double strtod makes of it); a text parseRate cannot hold exactly, rounded up.
LimitWindow guavaLimit(const LimiterConfig& config, const GuavaRateLimiter& guava)
{
    const auto text = productOptionText(Algorithm::Guava, config, "permitsPerSecond");
    try {
        const Rate r = parseRate(text.value_or(""));
        return wholeOver(Int128(r.tokens) * kNanosPerSecond, r.perNanos, kNanosPerSecond);
    } catch (const InputError&) {
        const double pps = guava.permitsPerSecond(); // 1e-9 to 1e6, as the model checked
        return {std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(pps))), kNanosPerSecond};
    }
}

} // namespace

// Each product given its options, its own limit and why:
// - express_rate_limit: `limit` (alias max) per windowMs: its MemoryStore answers 429 once a window's
//   hits pass limit.
// - rate_limiter_flexible: points per duration; duration 0 never expires, so points in all: over
//   the longest window (kMaxNanos), the whole run.
// - python_limits: the limit item's amount per its expiry ("10/minute" is 10 per 60 s), whatever the
//   strategy (an expiry beyond 292 years is cut to the longest window).
// - guava: no window, a rate: permitsPerSecond per second (it stores at most one second of permits),
//   a fraction over the least whole seconds that make it whole (0.5 is 1 per 2 s).
// - envoy_local: min(tokens_per_fill, max_tokens) per fill_interval: what one timer fire adds (a
//   fill above max_tokens is cut to it), the most it admits per interval once a burst is spent.
// - traefik: average per period, its rate (`average 6, period 1m` is 6 per 60 s); average 0 is
//   x/time/rate's Limit(0), burst in all: burst over the longest window.
// - spring_gateway: no window, a rate: replenishRate tokens each whole second, requestedTokens a
//   request, so replenishRate / requestedTokens requests per second (over whole seconds, as guava).
// - kong: the shortest configured period's limit per that period (month 30 days, year 365, as
//   expiration.lua counts them): the window its level counts; longer periods only cap it further.
// - redis_cell: GCRA's sustained rate, count_per_period / quantity requests per period seconds
//   (max_burst + 1 at once is the burst it allows above that rate).
// - node_limiter: tokensPerInterval per interval: its bucket's refill, and its window's cap.
// - cloudflare_rate: requests_per_period per period. aws_waf_rate: Limit per EvaluationWindowSec.
// - aws_api_gateway: its slowest level's rate per second (over the least whole seconds, as guava).
// - upstash_ratelimit: tokens per window (fixedWindow, slidingWindow); refillRate per interval
//   (tokenBucket: its whole-interval refill, the rate once maxTokens is spent).
LimitWindow ownLimit(Algorithm a, const LimiterConfig& config)
{
    const LimitWindow textbook{config.limit(), config.windowNanos()};
    if (!readsOwnOptions(a, config))
        return textbook;
    constexpr Nanos kMillis = 1'000'000;
    return visitLimiter(a, config, [&](const auto& l) -> LimitWindow {
        using L = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<L, ExpressRateLimit>)
            return {l.limit(), l.windowMs() * kMillis};
        else if constexpr (std::is_same_v<L, RateLimiterFlexible>)
            return {l.points(), l.durationMs() == 0 ? kMaxNanos : l.durationMs() * kMillis};
        else if constexpr (std::is_same_v<L, PythonLimits>)
            return {l.amount(), clampToNanos(Int128(l.expirySeconds()) * kNanosPerSecond)}; // at most ~292 years
        else if constexpr (std::is_same_v<L, GuavaRateLimiter>)
            return guavaLimit(config, l);
        else if constexpr (std::is_same_v<L, EnvoyLocal>)
            return {std::min<std::int64_t>(l.tokensPerFill(), l.maxTokens()), l.fillInterval()};
        else if constexpr (std::is_same_v<L, Traefik>)
            return l.average() == 0 ? LimitWindow{l.burst(), kMaxNanos} : LimitWindow{l.average(), l.period()};
        else if constexpr (std::is_same_v<L, SpringGateway>)
            return wholeOver(l.replenishRate(), l.requestedTokens(), kNanosPerSecond);
        else if constexpr (std::is_same_v<L, Kong>) {
            for (int p = 0; p < Kong::kPeriods; ++p)
                if (l.limits()[std::size_t(p)] != 0)
                    return {l.limits()[std::size_t(p)], kKongSeconds[p] * kNanosPerSecond};
            return textbook; // not reached: given options configure at least one period
        } else if constexpr (std::is_same_v<L, RedisCell>)
            return wholeOver(l.countPerPeriod(), l.quantity(), l.periodSeconds() * kNanosPerSecond);
        else if constexpr (std::is_same_v<L, NodeLimiter>)
            return {l.tokensPerInterval(), static_cast<Nanos>(l.intervalMs()) * kMillis};
        else if constexpr (std::is_same_v<L, CloudflareRate>)
            return {l.requestsPerPeriod(), l.period()};
        else if constexpr (std::is_same_v<L, AwsWafRate>)
            return {l.limit(), l.window()};
        else if constexpr (std::is_same_v<L, AwsApiGateway>)
            return wholeOver(Int128(l.slowest().tokens) * kNanosPerSecond, l.slowest().perNanos, kNanosPerSecond);
        else if constexpr (std::is_same_v<L, UpstashRatelimit>)
            return l.kind() == UpstashRatelimit::Kind::TokenBucket
                       ? LimitWindow{l.refillRate(), l.intervalMs() * kMillis}
                       : LimitWindow{l.tokens(), l.windowMs() * kMillis};
        else
            return textbook;
    });
}

} // namespace ratelab
