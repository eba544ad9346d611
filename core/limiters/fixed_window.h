// FixedWindow counts requests per window [b*W, (b+1)*W) and admits up to `limit` in each.
//
// It is the cheapest limiter (one counter and one window index) and the easiest to explain, but
// it has no memory across a boundary (a request costing k counts k): `limit` requests just before a boundary and `limit` just
// after are all admitted, so a burst can reach twice the limit within one window's length.
#pragma once

#include "limiters/limiter.h"

namespace ratelab {

class FixedWindow final {
public:
    explicit FixedWindow(const LimiterConfig& config)
        : m_limit(config.limit())
        , m_windowNanos(config.windowNanos())
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide with cost k: admit iff count + k <= L, then count += k. A cost above L never fits.
    Decision decide(Nanos t, std::int64_t cost)
    {
        if (t >= m_windowEndNanos) { // times never go back: one divide per new window, not per request
            const std::int64_t window = t / m_windowNanos;
            m_window = window;
            m_windowEndNanos = (Int128(window) + 1) * m_windowNanos; // window + 1 overflows at the last ns
            m_count = 0;
        }
        Decision d;
        if (m_count + cost <= m_limit) {
            m_count += cost;
            d.allowed = true;
        } else {
            // Only the next window helps, where the count starts at 0 and any cost <= L fits.
            d.retryAfter = cost > m_limit ? kRetryNever : m_windowNanos - (t - m_window * m_windowNanos);
        }
        if (d.allowed || cost > 1) // a denied request of cost 1 leaves no room for another
            d.remaining = clampRemaining(m_limit - m_count);
        d.level = static_cast<double>(m_count);
        return d;
    }

    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        const std::int64_t window = t / m_windowNanos;
        if (window != m_window || m_count + cost <= m_limit)
            return 0;
        return m_windowNanos - (t - window * m_windowNanos);
    }

    std::int32_t remainingAt(Nanos t) const
    {
        return clampRemaining(t / m_windowNanos == m_window ? m_limit - m_count : m_limit);
    }

    std::int64_t quota() const { return m_limit; }

    double levelAt(Nanos t) const { return levelFromUnits(levelUnitsAt(t)); }
    // levelUnitsAt is the count at t: the current window's, or 0 in any other (for t >= 0, the
    // old t / W == window without the division). levelFromUnits is the level of a count.
    std::int64_t levelUnitsAt(Nanos t) const
    {
        return t < m_windowEndNanos && t >= m_windowEndNanos - m_windowNanos ? m_count : 0;
    }
    double levelFromUnits(std::int64_t count) const { return static_cast<double>(count); }
    // decidedLevelUnits is levelUnitsAt(t) right after decide(t), whose window is the current one;
    // admissionUnits is what an admission of cost 1 adds to the count.
    std::int64_t decidedLevelUnits() const { return m_count; }
    static std::int64_t admissionUnits() { return 1; }

    Memory memory() const { return {16, 1}; } // window index, count
    // retarget applies config c from t on (a limit change; the window stays): the counts kept
    // are measured against c's limit.
    void retarget(const LimiterConfig& c, Nanos) { m_limit = c.limit(); }
    Algorithm algorithm() const { return Algorithm::FixedWindow; }

private:
    std::int64_t m_limit;
    Nanos m_windowNanos;
    std::int64_t m_window = 0;
    Int128 m_windowEndNanos = m_windowNanos; // where window m_window ends (may lie past the last Nanos)
    std::int64_t m_count = 0;
};

} // namespace ratelab
