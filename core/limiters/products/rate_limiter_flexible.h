// RateLimiterFlexible is rate-limiter-flexible's RateLimiterMemory as version 11.4.0 (npm)
// computes it: lib/RateLimiterMemory.js consume() and lib/component/MemoryStorage/MemoryStorage.js.
//
// Per key a record {value, expiresAt} in milliseconds of Date.now(). consume(k):
//     incrby: if the record exists and (no expiresAt or expiresAt - now > 0) value += k,
//             else the record is set anew: value = k, expiresAt = now + duration*1000 (none
//             when duration is 0: it never expires)
//     if value > points: if blockDuration > 0 and value <= points + k (the first excess),
//             the record is set anew with expiresAt = now + blockDuration*1000; reject
//     else resolve
// So it is a fixed window that starts at the key's first request, in which rejected requests
// count too, and the first rejection may lengthen the window to blockDuration. Options: points,
// duration (seconds; 0 = never expires) and blockDuration (seconds, default 0); points and
// duration have no defaults in 11.x (4 and 1 are the documentation's examples, used here when
// only blockDuration is given). Times are whole milliseconds; a duration finer than 1 ms is refused.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class RateLimiterFlexible final : public ProductLimiter<RateLimiterFlexible> {
    friend class ProductLimiter<RateLimiterFlexible>;
public:
    explicit RateLimiterFlexible(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const { return clampRemaining(Int128(m_points) - valueAt(t / kMillis)); }
    std::int64_t quota() const { return m_points; }
    double levelAt(Nanos t) const { return double(valueAt(t / kMillis)); }
    Memory memory() const { return {16, 1}; } // value, expiresAt
    Algorithm algorithm() const { return Algorithm::RateLimiterFlexible; }
    std::int64_t durationMs() const { return m_durationMs; }
    std::int64_t points() const { return m_points; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        const std::int64_t now = t / kMillis;
        if (live(now))
            m_value += cost;
        else
            set(cost, m_durationMs, now);
        Decision d;
        if (m_value > m_points) {
            if (m_blockMs > 0 && m_value <= m_points + cost)
                set(m_value, m_blockMs, now);
            return d;
        }
        d.allowed = true;
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const { return valueAt(t / kMillis) + cost <= m_points; }

private:
    static constexpr Nanos kMillis = 1'000'000;

    bool live(std::int64_t nowMs) const { return m_hasRecord && (m_expiresMs < 0 || m_expiresMs - nowMs > 0); }
    std::int64_t valueAt(std::int64_t nowMs) const { return live(nowMs) ? m_value : 0; }
    void set(std::int64_t value, std::int64_t durationMs, std::int64_t nowMs)
    {
        m_hasRecord = true;
        m_value = value;
        m_expiresMs = durationMs > 0 ? nowMs + durationMs : -1;
    }

    std::int64_t m_points;
    std::int64_t m_durationMs; // 0: never expires
    std::int64_t m_blockMs;
    std::int64_t m_value = 0;
    std::int64_t m_expiresMs = -1; // -1: no expiry
    bool m_hasRecord = false;
};

} // namespace ratelab
