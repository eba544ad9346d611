// The constructors of the product models whose options are read in a few lines: each reads its
// product's names, with the product's own defaults once any is given, else RateLab's L, W, C, r.
#include "limiters/products/envoy_local.h"
#include "limiters/products/express_rate_limit.h"
#include "limiters/products/node_limiter.h"
#include "limiters/products/rate_limiter_flexible.h"
#include "limiters/products/redis_cell.h"
#include "limiters/products/spring_gateway.h"

#include <cmath>

namespace ratelab {

namespace {


// whole returns RateLab's duration in whole units of the product, or refuses, naming the option.
std::int64_t whole(const ProductParams& p, Nanos n, Nanos unit, const char* option, const char* unitName)
{
    const auto w = wholeUnits(n, unit);
    if (!w)
        p.fail(std::string("the window is not a whole number of ") + unitName + ": give --product-option " + option + "=...");
    return *w;
}

// durationIn reads a duration option and returns it in whole units, refusing a finer one.
std::int64_t durationIn(const ProductParams& p, const char* option, std::optional<Nanos> fallback, Nanos plainUnit,
                        Nanos unit, const char* unitName)
{
    const Nanos n = p.duration(option, fallback, plainUnit);
    const auto w = wholeUnits(n, unit);
    if (!w)
        p.fail(std::string(option) + " must be a whole number of " + unitName + " here");
    return *w;
}

} // namespace

ExpressRateLimit::ExpressRateLimit(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::ExpressRateLimit, config);
    if (p.given()) {
        m_windowMs = durationIn(p, "windowMs", 60'000 * kNanosPerMs, kNanosPerMs, kNanosPerMs, "milliseconds");
        const std::int64_t max = p.integer("max", 5, 0, LimiterConfig::kMaxLimit);
        m_limit = p.integer("limit", max, 0, LimiterConfig::kMaxLimit);
    } else {
        m_windowMs = whole(p, config.windowNanos(), kNanosPerMs, "windowMs", "milliseconds");
        m_limit = config.limit();
    }
    if (m_windowMs > 2'147'483'647) // its validations.windowMs: a setTimeout/setInterval delay
        p.fail("windowMs must be at most 2147483647 (got " + std::to_string(m_windowMs) + ")");
}

RateLimiterFlexible::RateLimiterFlexible(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::RateLimiterFlexible, config);
    if (p.given()) {
        m_points = p.integer("points", 4, 0, LimiterConfig::kMaxLimit);
        m_durationMs = p.text("duration") == std::optional<std::string>("0")
                           ? 0
                           : durationIn(p, "duration", kNanosPerSecond, kNanosPerSecond, kNanosPerMs, "milliseconds");
    } else {
        m_points = config.limit();
        m_durationMs = whole(p, config.windowNanos(), kNanosPerMs, "duration", "milliseconds");
    }
    m_blockMs = !p.text("blockDuration") || p.text("blockDuration") == std::optional<std::string>("0")
                    ? 0
                    : durationIn(p, "blockDuration", kNanosPerMs, kNanosPerSecond, kNanosPerMs, "milliseconds");
}

EnvoyLocal::EnvoyLocal(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::EnvoyLocal, config);
    std::int64_t maxTokens = 0;
    std::int64_t perFill = 0;
    constexpr std::int64_t kU32 = 4'294'967'295;
    if (p.given()) {
        maxTokens = p.requiredInteger("max_tokens", 1, kU32);
        perFill = p.integer("tokens_per_fill", 1, 1, kU32);
        m_fillNanos = p.duration("fill_interval", std::nullopt, kNanosPerSecond);
    } else {
        maxTokens = config.capacity();
        perFill = config.limit();
        m_fillNanos = config.windowNanos();
    }
    if (m_fillNanos % kNanosPerMs != 0 || m_fillNanos < 50 * kNanosPerMs)
        p.fail("fill_interval must be whole milliseconds and at least 50 ms (Envoy: \"local rate limit token bucket "
               "fill timer must be >= 50ms\")");
    if (maxTokens + perFill > kU32)
        p.fail("max_tokens + tokens_per_fill must stay below 2^32 (Envoy's uint32 sum would wrap)");
    m_maxTokens = static_cast<std::uint32_t>(maxTokens);
    m_tokensPerFill = static_cast<std::uint32_t>(perFill);
    m_tokens = m_maxTokens;
}

SpringGateway::SpringGateway(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::SpringGateway, config);
    constexpr std::int64_t kInt = 2'147'483'647; // Java int
    if (p.given()) {
        m_rate = p.requiredInteger("replenishRate", 1, kInt);
        m_capacity = p.integer("burstCapacity", 1, 0, kInt);
        m_requested = p.integer("requestedTokens", 1, 1, kInt);
    } else {
        const Rate r = config.rate();
        if (kNanosPerSecond % r.perNanos != 0)
            p.fail("the rate must be a whole number per second (replenishRate): give --product-option replenishRate=N");
        m_rate = r.tokens * (kNanosPerSecond / r.perNanos);
        m_capacity = config.capacity();
        m_requested = 1;
    }
    // ttl = math.floor(fill_time * 2), fill_time = capacity / rate, in Lua doubles.
    m_ttl = static_cast<std::int64_t>(std::floor(double(m_capacity) / double(m_rate) * 2));
}

RedisCell::RedisCell(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::RedisCell, config);
    std::int64_t count = 0;
    std::int64_t periodSeconds = 0;
    if (p.given()) {
        m_maxBurst = p.requiredInteger("max_burst", 0, LimiterConfig::kMaxLimit);
        count = p.requiredInteger("count_per_period", 1, LimiterConfig::kMaxLimit);
        periodSeconds = p.requiredInteger("period", 1, 9'223'372'036);
        m_quantity = p.integer("quantity", 1, 1, LimiterConfig::kMaxLimit);
    } else {
        m_maxBurst = config.capacity() - 1;
        count = config.limit();
        periodSeconds = whole(p, config.windowNanos(), kNanosPerSecond, "period", "seconds");
        m_quantity = 1;
    }
    m_count = count;
    m_periodSeconds = periodSeconds;
    // Rate::per_period: ((ns as f64) / (n as f64)) as i64, truncating.
    m_interval = saturatingCast(double(periodSeconds * kNanosPerSecond) / double(count));
    if (m_interval == 0)
        p.fail("the emission interval rounds to 0 ns (redis-cell: \"Zero rates are not supported\")");
    if (Int128(m_interval) * (m_maxBurst + 1) > kMaxNanos / 4)
        p.fail("period * (max_burst + 1) / count_per_period is beyond what this model reproduces");
    m_tolerance = m_interval * (m_maxBurst + 1);
}

NodeLimiter::NodeLimiter(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::NodeLimiter, config);
    if (p.given()) {
        m_perInterval = p.requiredInteger("tokensPerInterval", 1, LimiterConfig::kMaxLimit);
        const std::string interval = p.text("interval").value_or("");
        if (interval == "sec" || interval == "second")
            m_intervalMs = 1000;
        else if (interval == "min" || interval == "minute")
            m_intervalMs = 60'000;
        else if (interval == "hr" || interval == "hour")
            m_intervalMs = 3'600'000;
        else if (interval == "day")
            m_intervalMs = 86'400'000;
        else
            m_intervalMs = double(durationIn(p, "interval", std::nullopt, kNanosPerMs, kNanosPerMs, "milliseconds"));
    } else {
        m_perInterval = config.limit();
        m_intervalMs = double(whole(p, config.windowNanos(), kNanosPerMs, "interval", "milliseconds"));
    }
    m_content = double(m_perInterval); // RateLimiter: tokenBucket.content = tokensPerInterval
}

} // namespace ratelab
