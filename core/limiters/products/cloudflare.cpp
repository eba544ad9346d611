#include "limiters/products/cloudflare.h"

#include <algorithm>

namespace ratelab {

namespace {

constexpr std::int64_t kPeriodSeconds[] = {10, 60, 120, 300, 600, 3600};
constexpr std::int64_t kTimeouts[] = {0, 10, 60, 120, 300, 600, 3600, 86400};
constexpr std::string_view kCounting[] = {"sliding", "fixed"};

template <std::size_t N>
bool oneOf(std::int64_t v, const std::int64_t (&values)[N])
{
    return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

} // namespace

CloudflareRate::CloudflareRate(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::CloudflareRate, config);
    if (p.given()) {
        m_limit = p.requiredInteger("requests_per_period", 1, LimiterConfig::kMaxLimit);
        const std::int64_t periodSeconds = p.requiredInteger("period", 1, 86400);
        m_timeout = p.integer("mitigation_timeout", 0, 0, 86400) * kNanosPerSecond;
        if (!oneOf(periodSeconds, kPeriodSeconds))
            p.fail("period must be 10, 60, 120, 300, 600 or 3600 seconds (Cloudflare's values)");
        if (!oneOf(m_timeout / kNanosPerSecond, kTimeouts))
            p.fail("mitigation_timeout must be 0, 10, 60, 120, 300, 600, 3600 or 86400 seconds (Cloudflare's values)");
        m_period = periodSeconds * kNanosPerSecond;
    } else {
        // RateLab's L per W beside the textbook rows, any W; no mitigation timeout (throttle).
        m_limit = config.limit();
        m_period = config.windowNanos();
    }
    m_sliding = p.choice("counting", "sliding", kCounting) == "sliding";
}

Int128 CloudflareRate::weighted(Nanos t, std::int64_t extra) const
{
    const std::int64_t w = t / m_period;
    const Nanos e = t - w * m_period;
    const std::int64_t cur = w == m_window ? m_current : 0;
    const std::int64_t prev = !m_sliding ? 0 : w == m_window ? m_previous : w == m_window + 1 ? m_current : 0;
    return Int128(prev) * (m_period - e) + Int128(cur + extra) * m_period;
}

Decision CloudflareRate::step(Nanos t, std::int64_t cost)
{
    Decision d;
    if (blocked(t))
        return d; // the mitigation answers; not counted (assumed)
    const bool over = weighted(t, cost) > Int128(m_limit) * m_period;
    if (over && m_timeout == 0)
        return d; // throttle: refused while over, not counted (assumed)
    const std::int64_t w = t / m_period;
    if (w != m_window) {
        m_previous = w == m_window + 1 ? m_current : 0;
        m_current = 0;
        m_window = w;
    }
    m_current += cost;
    if (over) {
        m_blockedUntil = t + m_timeout;
        return d;
    }
    d.allowed = true;
    return d;
}

bool CloudflareRate::admits(Nanos t, std::int64_t cost) const
{
    return !blocked(t) && weighted(t, cost) <= Int128(m_limit) * m_period;
}

std::int32_t CloudflareRate::remainingAt(Nanos t) const
{
    if (blocked(t))
        return 0;
    const Int128 room = Int128(m_limit) * m_period - weighted(t, 0);
    return clampRemaining(room < 0 ? Int128(0) : room / m_period);
}

double CloudflareRate::levelAt(Nanos t) const { return double(weighted(t, 0)) / double(m_period); }

} // namespace ratelab
