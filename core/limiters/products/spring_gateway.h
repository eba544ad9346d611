// SpringGateway is Spring Cloud Gateway's RedisRateLimiter as it computes at commit
// d2625f9740efbf37b72bc36006ecca57c1be62cb (spring-cloud-gateway-server/.../ratelimit/
// RedisRateLimiter.java) with its script META-INF/scripts/request_rate_limiter.lua (commit
// 20713405f023f51140c4b6972de9c68dd8e3ff0f).
//
// Java passes replenishRate, burstCapacity, Instant.now().getEpochSecond() (WHOLE seconds) and
// requestedTokens; the script, in Lua numbers:
//     fill_time = capacity / rate; ttl = floor(fill_time * 2)
//     last_tokens = stored or capacity; last_refreshed = stored or 0
//     filled = min(capacity, last_tokens + max(0, now - last_refreshed) * rate)
//     allowed = filled >= requested; new_tokens = allowed and filled - requested or filled
//     if ttl > 0: store new_tokens and now, expiring after ttl seconds
// So tokens arrive in whole seconds (rate of them at each second boundary), burstCapacity 0
// refuses every request (nothing ever fills a bucket of 0), and when burstCapacity is less than
// half of replenishRate the ttl is 0, nothing is ever stored and EVERY request is allowed:
// limiting is off. The expiry never changes a decision (after ttl >= fill_time whole seconds the
// bucket would be full anyway). Options: replenishRate (>= 1), burstCapacity (default 1),
// requestedTokens (default 1); a request of cost k asks k * requestedTokens.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class SpringGateway final : public ProductLimiter<SpringGateway> {
    friend class ProductLimiter<SpringGateway>;
public:
    explicit SpringGateway(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const
    {
        if (m_ttl == 0)
            return m_capacity >= m_requested ? clampRemaining(Int128(2'000'000'000)) : 0;
        return clampRemaining(filledAt(t / kNanosPerSecond) / m_requested);
    }
    std::int64_t quota() const { return m_capacity / m_requested; }
    double levelAt(Nanos t) const { return double(filledAt(t / kNanosPerSecond)); }
    Memory memory() const { return m_ttl == 0 ? Memory{0, 0} : Memory{16, 1}; } // tokens, timestamp
    Algorithm algorithm() const { return Algorithm::SpringGateway; }

    std::int64_t ttlSeconds() const { return m_ttl; }
    std::int64_t replenishRate() const { return m_rate; }
    std::int64_t requestedTokens() const { return m_requested; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        const std::int64_t now = t / kNanosPerSecond;
        const Int128 filled = filledAt(now);
        const Int128 requested = Int128(m_requested) * cost;
        Decision d;
        d.allowed = filled >= requested;
        if (m_ttl > 0) {
            m_tokens = static_cast<std::int64_t>(d.allowed ? filled - requested : filled);
            m_refreshed = now;
            m_stored = true;
        }
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const
    {
        return filledAt(t / kNanosPerSecond) >= Int128(m_requested) * cost;
    }
    bool neverAdmits(std::int64_t cost) const { return Int128(m_requested) * cost > m_capacity; }

private:
    // filledAt is the script's filled_tokens at whole second `now` (every value is a whole number,
    // so Lua's doubles are exact here).
    Int128 filledAt(std::int64_t now) const
    {
        const Int128 last = m_stored ? m_tokens : m_capacity;
        const std::int64_t refreshed = m_stored ? m_refreshed : 0;
        const Int128 filled = last + Int128(std::max<std::int64_t>(0, now - refreshed)) * m_rate;
        return filled < m_capacity ? filled : Int128(m_capacity);
    }

    std::int64_t m_rate;
    std::int64_t m_capacity;
    std::int64_t m_requested;
    std::int64_t m_ttl;
    std::int64_t m_tokens = 0;
    std::int64_t m_refreshed = 0;
    bool m_stored = false;
};

} // namespace ratelab
