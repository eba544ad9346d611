// GuavaRateLimiter is Guava's RateLimiter.create(permitsPerSecond), a SmoothBursty, asked with
// tryAcquire(permits, 0, unit) (no waiting), as Guava 31.1 (Debian bookworm's libguava-java)
// computes it: com/google/common/util/concurrent/RateLimiter.java and SmoothRateLimiter.java.
//
// State, as Guava holds it: storedPermits and maxPermits (doubles), stableIntervalMicros
// (double, 1e6 / permitsPerSecond), nextFreeTicketMicros (long), time in whole microseconds of
// its stopwatch, which starts when the limiter is made (t = 0 here). maxBurstSeconds is 1.0, so
// maxPermits = permitsPerSecond, and a new limiter starts with NO stored permits.
//     tryAcquire: if nextFreeTicketMicros > now: false (nothing changes)
//     else resync(now): storedPermits = min(maxPermits, storedPermits + (now - next) / interval),
//                       next = now
//          spend = min(permits, storedPermits); fresh = permits - spend
//          next += (long) (fresh * interval); storedPermits -= spend; true
// So the request that finds too few stored permits is admitted anyway and the debt is paid by
// the requests after it ("the request that exceeds pays for the next"); a burst after a quiet
// second is maxPermits + 1; and any cost is admitted when the ticket is free.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class GuavaRateLimiter final : public ProductLimiter<GuavaRateLimiter> {
    friend class ProductLimiter<GuavaRateLimiter>;
public:
    explicit GuavaRateLimiter(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    // quota is kMaxCost: whenever the ticket is free a request of any cost passes (it borrows), so
    // no cost is "never". (A fresh limiter admits one request of cost 1 at once: it starts empty.)
    std::int64_t quota() const { return kMaxCost; }
    double levelAt(Nanos t) const;
    Memory memory() const { return {24, 1}; } // storedPermits, nextFreeTicketMicros, (interval)
    Algorithm algorithm() const { return Algorithm::Guava; }

    double permitsPerSecond() const { return m_permitsPerSecond; }
    double storedPermits() const { return m_storedPermits; }
    std::int64_t nextFreeTicketMicros() const { return m_nextFreeMicros; }

private:
    Decision step(Nanos t, std::int64_t cost)
    {
        Decision d;
        const std::int64_t now = t / 1000;
        if (m_nextFreeMicros > now)
            return d;
        reserve(cost, now);
        d.allowed = true;
        return d;
    }
    bool admits(Nanos t, std::int64_t) const { return m_nextFreeMicros <= t / 1000; }

private:
    void resync(std::int64_t nowMicros)
    {
        if (nowMicros > m_nextFreeMicros) {
            const double newPermits = double(nowMicros - m_nextFreeMicros) / m_intervalMicros;
            m_storedPermits = std::min(m_maxPermits, m_storedPermits + newPermits);
            m_nextFreeMicros = nowMicros;
        }
    }
    void reserve(std::int64_t permits, std::int64_t nowMicros);

    double m_permitsPerSecond;
    double m_maxPermits;
    double m_intervalMicros;
    double m_storedPermits = 0.0;
    std::int64_t m_nextFreeMicros = 0;
};

} // namespace ratelab
