// ExpressRateLimit is express-rate-limit's MemoryStore as version 8.7.5 (npm) computes it:
// source/memory-store.ts and the middleware in source/rate-limit.ts (dist/index.cjs).
//
// Per key: `totalHits` and `resetTime`, in whole milliseconds of Date.now(). increment():
//     if (client.resetTime <= now) { totalHits = 0; resetTime = now + windowMs }
//     totalHits++
// and the middleware answers 429 iff totalHits > limit. So the window starts at the key's first
// request (not at a clock boundary), and a rejected request counts too: a client that keeps
// retrying while limited stays limited until resetTime. Options: windowMs (default 60000),
// limit (alias max; default 5; 0 blocks every request). Cost k (RateLab's extension) is k hits.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class ExpressRateLimit final : public ProductLimiter<ExpressRateLimit> {
    friend class ProductLimiter<ExpressRateLimit>;
public:
    explicit ExpressRateLimit(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const
    {
        return clampRemaining(Int128(m_limit) - hitsAt(t / kMillis));
    }
    std::int64_t quota() const { return m_limit; }
    double levelAt(Nanos t) const { return double(hitsAt(t / kMillis)); }
    Memory memory() const { return {16, 1}; } // totalHits, resetTime
    Algorithm algorithm() const { return Algorithm::ExpressRateLimit; }

    std::int64_t windowMs() const { return m_windowMs; }
    std::int64_t limit() const { return m_limit; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        const std::int64_t now = t / kMillis;
        if (!m_hasClient || m_resetMs <= now) {
            m_hasClient = true;
            m_hits = 0;
            m_resetMs = now + m_windowMs;
        }
        m_hits += cost;
        Decision d;
        d.allowed = m_hits <= m_limit;
        return d;
    }
    bool admits(Nanos t, std::int64_t cost) const { return hitsAt(t / kMillis) + cost <= m_limit; }

private:
    static constexpr Nanos kMillis = 1'000'000;

    std::int64_t hitsAt(std::int64_t nowMs) const { return m_hasClient && m_resetMs > nowMs ? m_hits : 0; }

    std::int64_t m_windowMs;
    std::int64_t m_limit;
    std::int64_t m_hits = 0;
    std::int64_t m_resetMs = 0;
    bool m_hasClient = false;
};

} // namespace ratelab
