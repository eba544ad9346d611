// SlidingWindowCounter approximates the sliding log with two fixed-window counters.
//
// The estimate of requests in the last W is E = prev * (W - e) / W + cur, where prev counts the
// previous fixed window, cur the current one and e is how far into the current window t is: it
// assumes the previous window's requests were spread evenly. It admits while E < L, compared
// exactly as prev*(W - e) + cur*W < L*W in 128 bits. Memory is O(1); the error shows when
// traffic bunches at the end of a window (the estimate undercounts it). Boundary bursts are
// mostly, not entirely, held to L.
#pragma once

#include "limiters/limiter.h"

namespace ratelab {

class SlidingWindowCounter final {
public:
    explicit SlidingWindowCounter(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_limit(config.limit())
        , m_windowNanos(config.windowNanos())
        , m_fits64(path == DecidePath::Fast && (Int128(config.limit()) + 1) * config.windowNanos() < (Int128(1) << 62))
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide with cost k: admit iff prev*(W - e) + (cur + k - 1)*W < L*W, then cur += k. That is
    // the cost-1 rule with L replaced by m = L - k + 1, which is how retry_after is found too.
    Decision decide(Nanos t, std::int64_t cost)
    {
        if (cost == 1 && m_fits64)
            return decide64(t);
        advance(t);
        const Nanos e = t - m_window * m_windowNanos;
        const Int128 bound = Int128(m_limit) * m_windowNanos;
        const Int128 weighted = Int128(m_prev) * (m_windowNanos - e);
        Int128 scaled = weighted + Int128(m_cur) * m_windowNanos; // E * W
        Decision d;
        if (scaled + Int128(cost - 1) * m_windowNanos < bound) {
            m_cur += cost;
            scaled += Int128(cost) * m_windowNanos;
            d.allowed = true;
        } else {
            d.retryAfter = cost > m_limit ? kRetryNever : wait(e, m_limit - cost + 1);
        }
        if (d.allowed || cost > 1) // More at t are admitted while (cur + j) * W + weighted < L*W, j = 0, 1, ...
            d.remaining = clampRemaining(scaled < bound ? ceilDiv(bound - scaled, m_windowNanos) : 0);
        d.level = toDouble(scaled) / static_cast<double>(m_windowNanos);
        return d;
    }

    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        SlidingWindowCounter there = *this;
        there.advance(t);
        const Nanos e = t - there.m_window * m_windowNanos;
        const Int128 scaled = Int128(there.m_prev) * (m_windowNanos - e) + Int128(there.m_cur) * m_windowNanos;
        if (scaled + Int128(cost - 1) * m_windowNanos < Int128(m_limit) * m_windowNanos)
            return 0;
        return there.wait(e, m_limit - cost + 1);
    }

    std::int32_t remainingAt(Nanos t) const
    {
        SlidingWindowCounter there = *this;
        there.advance(t);
        const Nanos e = t - there.m_window * m_windowNanos;
        const Int128 scaled = Int128(there.m_prev) * (m_windowNanos - e) + Int128(there.m_cur) * m_windowNanos;
        const Int128 bound = Int128(m_limit) * m_windowNanos;
        return clampRemaining(scaled < bound ? ceilDiv(bound - scaled, m_windowNanos) : 0);
    }

    std::int64_t quota() const { return m_limit; }

    // levelUnitsAt returns the level at t as the exact integer it is computed from, and
    // levelFromUnits the level of such an integer: levelAt(t) == levelFromUnits(levelUnitsAt(t)),
    // and more units are never a lower level, so a reduction compares units and converts only
    // the extremes (one division a column, not two a request).
    Int128 levelUnitsAt(Nanos t) const // the estimate E scaled by W
    {
        const std::int64_t window = t / m_windowNanos;
        const std::int64_t cur = window == m_window ? m_cur : 0;
        const std::int64_t prev = window == m_window ? m_prev : window == m_window + 1 ? m_cur : 0;
        const Nanos e = t - window * m_windowNanos;
        return Int128(prev) * (m_windowNanos - e) + Int128(cur) * m_windowNanos;
    }
    double levelFromUnits(Int128 scaled) const { return toDouble(scaled) / static_cast<double>(m_windowNanos); }
    double levelAt(Nanos t) const { return levelFromUnits(levelUnitsAt(t)); }

    // previousCountAt and currentCountAt return `prev` and `cur` as a request at t (not earlier
    // than the last request) would find them, before it is counted (the same rule as levelAt).
    std::int64_t previousCountAt(Nanos t) const
    {
        const std::int64_t window = t / m_windowNanos;
        return window == m_window ? m_prev : window == m_window + 1 ? m_cur : 0;
    }
    std::int64_t currentCountAt(Nanos t) const { return t / m_windowNanos == m_window ? m_cur : 0; }

    Memory memory() const { return {24, 1}; } // window index, prev, cur
    // retarget applies config c from t on (a limit change; the window stays): the counts kept
    // are measured against c's limit.
    void retarget(const LimiterConfig& c, Nanos)
    {
        m_fits64 = m_fits64 && (Int128(c.limit()) + 1) * m_windowNanos < (Int128(1) << 62);
        m_limit = c.limit();
    }
    Algorithm algorithm() const { return Algorithm::SlidingWindowCounter; }

private:
    // decide64 is decide(t, 1) in 64-bit integers with a branch-free verdict, for a config where
    // (L + 1) * W fits64: prev and cur are at most L, so E * W stays below 2 * L * W + W.
    Decision decide64(Nanos t)
    {
        advance(t);
        const Nanos e = t - m_window * m_windowNanos;
        const std::int64_t bound = m_limit * m_windowNanos;
        const std::int64_t scaled = m_prev * (m_windowNanos - e) + m_cur * m_windowNanos; // E * W
        const bool allowed = scaled < bound;
        m_cur += allowed;
        const std::int64_t after = scaled + (m_windowNanos & -std::int64_t(allowed));
        Decision d;
        d.allowed = allowed;
        d.remaining = allowed && after < bound ? clampRemaining((bound - after + m_windowNanos - 1) / m_windowNanos) : 0;
        if (!allowed)
            d.retryAfter = wait(e, m_limit);
        d.level = static_cast<double>(after) / static_cast<double>(m_windowNanos);
        return d;
    }

    // wait returns the least d > 0 after which a request passes the rule
    // prev*(W - e) + cur*W < m*W (m = L - cost + 1 >= 1), given that it fails now, e into the
    // current window.
    Nanos wait(Nanos e, std::int64_t m) const
    {
        if (m_cur >= m) {
            // Only the next window helps: there prev' = cur and e' must satisfy cur*(W - e') < m*W.
            const Int128 eNext = floorDiv(Int128(m_cur - m) * m_windowNanos, m_cur) + 1;
            return clampToNanos(Int128(m_windowNanos - e) + eNext);
        }
        // The previous window's weight decays by prev per ns: need prev*(W - e - d) < (m - cur)*W.
        const Int128 excess = Int128(m_prev) * (m_windowNanos - e) - Int128(m - m_cur) * m_windowNanos;
        const Int128 inWindow = floorDiv(excess, m_prev) + 1;
        return clampToNanos(inWindow < m_windowNanos - e ? inWindow : Int128(m_windowNanos - e));
    }

    void advance(Nanos t)
    {
        if (t < m_windowEndNanos) // times never go back: one divide per new window, not per request
            return;
        const std::int64_t window = t / m_windowNanos;
        m_prev = window == m_window + 1 ? m_cur : 0;
        m_cur = 0;
        m_window = window;
        m_windowEndNanos = (Int128(window) + 1) * m_windowNanos; // window + 1 overflows at the last ns
    }

    std::int64_t m_limit;
    Nanos m_windowNanos;
    std::int64_t m_window = 0;
    std::int64_t m_prev = 0;
    std::int64_t m_cur = 0;
    Int128 m_windowEndNanos = m_windowNanos; // where window m_window ends (may lie past the last Nanos)
    bool m_fits64;                           // (L + 1) * W below 2^62: decide64 may be used
};

} // namespace ratelab
