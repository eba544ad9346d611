// NodeLimiter is the npm package `limiter`'s RateLimiter({tokensPerInterval, interval,
// fireImmediately: true}) asked tryRemoveTokens(1), as version 4.1.0 (npm) computes it:
// dist/cjs/RateLimiter.js and TokenBucket.js, time in performance.now() milliseconds (a double;
// here t / 1e6, the same double).
//
// A token bucket of tokensPerInterval tokens that starts FULL and drips tokensPerInterval /
// interval per millisecond (content = min(content + deltaMs * rate, bucketSize), in doubles),
// AND a fixed window of `interval` ms that starts at the limiter's creation and restarts at the
// first request at least `interval` after the current one started, admitting at most
// tokensPerInterval per window. A request passes only if both have room: the window forbids the
// burst a refilled bucket would allow just after a window restarts. Options: tokensPerInterval,
// interval (ms, or "second", "minute", "hour", "day").
#pragma once

#include "limiters/products/product.h"

#include <algorithm>
#include <cmath>

namespace ratelab {

class NodeLimiter final : public ProductLimiter<NodeLimiter> {
    friend class ProductLimiter<NodeLimiter>;
public:
    explicit NodeLimiter(const LimiterConfig& config);

    // remainingAt: each further request at t takes one token (content - 1 is exact while
    // content >= 1) and one place in the window: min(room in the window, floor(content)).
    std::int32_t remainingAt(Nanos t) const
    {
        const double now = ms(t);
        const bool restart = now < m_intervalStart || now - m_intervalStart >= m_intervalMs;
        const std::int64_t room = m_perInterval - (restart ? 0 : m_thisInterval);
        return clampRemaining(std::min<std::int64_t>(room, static_cast<std::int64_t>(std::floor(contentAt(now)))));
    }
    std::int64_t quota() const { return m_perInterval; }
    double levelAt(Nanos t) const { return contentAt(ms(t)); }
    Memory memory() const { return {32, 1}; } // content, lastDrip, curIntervalStart, tokensThisInterval
    Algorithm algorithm() const { return Algorithm::NodeLimiter; }

    static double ms(Nanos t) { return double(t) / 1e6; }
    std::int64_t tokensPerInterval() const { return m_perInterval; }
    double intervalMs() const { return m_intervalMs; } // whole milliseconds

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        Decision d;
        if (cost > m_perInterval)
            return d;
        const double now = ms(t);
        if (now < m_intervalStart || now - m_intervalStart >= m_intervalMs) {
            m_intervalStart = now;
            m_thisInterval = 0;
        }
        if (cost > m_perInterval - m_thisInterval)
            return d;
        m_content = contentAt(now); // drip()
        m_lastDrip = now;
        if (double(cost) > m_content)
            return d;
        m_content -= double(cost);
        m_thisInterval += cost;
        d.allowed = true;
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const
    {
        if (cost > m_perInterval)
            return false;
        const double now = ms(t);
        const bool restart = now < m_intervalStart || now - m_intervalStart >= m_intervalMs;
        if (cost > m_perInterval - (restart ? 0 : m_thisInterval))
            return false;
        return !(double(cost) > contentAt(now));
    }

private:
    double contentAt(double now) const
    {
        const double delta = std::max(now - m_lastDrip, 0.0);
        const double rate = double(m_perInterval) / m_intervalMs;
        return std::min(m_content + delta * rate, double(m_perInterval));
    }

    std::int64_t m_perInterval;
    double m_intervalMs;
    double m_content;
    double m_lastDrip = 0;
    double m_intervalStart = 0;
    std::int64_t m_thisInterval = 0;
};

} // namespace ratelab
