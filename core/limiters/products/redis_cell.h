// RedisCell is redis-cell's CL.THROTTLE key max_burst count_per_period period [quantity], GCRA,
// as redis-cell computes it at commit 97d409c3a62f2a0f5518c31fc9b4b65afbce2053:
// redis-cell-impl/src/lib.rs (RateLimiter::rate_limit, Rate::per_period).
//
// emission_interval = (i64)((period_ns as f64) / (count as f64)) nanoseconds (a float divide,
// truncated); delay_variation_tolerance = emission_interval * (max_burst + 1); limit =
// max_burst + 1. With increment = emission_interval * quantity and tat the stored theoretical
// arrival time (now when the key is missing):
//     new_tat = max(tat, now) + increment; allow_at = new_tat - tolerance
//     limited iff now - allow_at < 0; else tat = new_tat (stored with ttl new_tat - now)
// So `max_burst 15` admits 16 at once: the tolerance is max_burst + 1 intervals. Options:
// max_burst, count_per_period, period (whole seconds, as the command takes them), quantity
// (default 1; a request of cost k asks k * quantity). The key's expiry (at new_tat) never
// changes a decision: a missing key and a tat in the past both give new_tat = now + increment.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class RedisCell final : public ProductLimiter<RedisCell> {
    friend class ProductLimiter<RedisCell>;
public:
    explicit RedisCell(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const
    {
        const Int128 backlog = m_hasTat && m_tat > t ? Int128(m_tat) - t : 0;
        const Int128 room = Int128(m_tolerance) - backlog;
        return clampRemaining(room < 0 ? 0 : quotient(room, Int128(m_interval) * m_quantity));
    }
    std::int64_t quota() const { return (m_maxBurst + 1) / m_quantity; }
    double levelAt(Nanos t) const { return m_hasTat && m_tat > t ? double(m_tat - t) / 1e9 : 0.0; }
    Memory memory() const { return {8, 1}; } // tat
    Algorithm algorithm() const { return Algorithm::RedisCell; }

    Nanos emissionInterval() const { return m_interval; }
    std::int64_t countPerPeriod() const { return m_count; }
    std::int64_t periodSeconds() const { return m_periodSeconds; }
    std::int64_t quantity() const { return m_quantity; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        Decision d;
        const Int128 newTat = newTatAt(t, cost);
        if (Int128(t) - (newTat - m_tolerance) < 0)
            return d;
        m_tat = static_cast<Nanos>(newTat);
        m_hasTat = true;
        d.allowed = true;
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const { return Int128(t) - (newTatAt(t, cost) - m_tolerance) >= 0; }

private:
    Int128 newTatAt(Nanos t, std::int64_t cost) const
    {
        const Nanos tat = m_hasTat ? m_tat : t;
        return Int128(t > tat ? t : tat) + Int128(m_interval) * m_quantity * cost;
    }

    std::int64_t m_maxBurst;
    std::int64_t m_quantity;
    std::int64_t m_count; // count_per_period, as configured
    std::int64_t m_periodSeconds;
    Nanos m_interval;
    Nanos m_tolerance;
    Nanos m_tat = 0;
    bool m_hasTat = false;
};

} // namespace ratelab
