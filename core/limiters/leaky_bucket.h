// LeakyBucket (the meter) and LeakyBucketQueue (the shaper) share one bucket of water.
//
// The meter: each request pours one unit into a bucket of size `capacity` that drains at `rate`;
// a request that would overflow it is denied. Its water is exactly `capacity - tokens` of a token
// bucket with the same C and r, so the two admit the very same requests; articles that say the
// leaky bucket "forbids bursts" are describing the queue, not the meter.
//
// The queue admits exactly what the meter admits, but an admitted request does not leave at
// once: it waits until the water ahead of it has drained, `delay = level_before / r`, so
// departures are never closer than 1/r. Bursts are absorbed and smoothed, at the cost of latency.
//
// Water is counted exactly, in units of 1/perNanos of a request (see TokenBucket).
#pragma once

#include "limiters/limiter.h"

#include <algorithm>

namespace ratelab {

namespace detail {

// Bucket is the exact water level shared by the meter and the queue.
class Bucket {
public:
    explicit Bucket(const LimiterConfig& config, DecidePath path)
        : m_rate(config.rate())
        , m_unitsPerRequest(config.rate().unitsFromTokens(1))
        , m_capacityUnits(config.rate().unitsFromTokens(config.capacity()))
        , m_capacity(config.capacity())
        , m_fits64(path == DecidePath::Fast && m_capacityUnits < (Int128(1) << 61) &&
                   config.rate().tokens < (Int128(1) << 61))
    {
        if (m_fits64) {
            m_tokens64 = config.rate().tokens;
            m_unitsPerRequest64 = static_cast<std::int64_t>(m_unitsPerRequest);
            m_capacityUnits64 = static_cast<std::int64_t>(m_capacityUnits);
            m_emptyNanos = static_cast<Nanos>(ceilDiv(m_capacityUnits, config.rate().tokens));
        }
    }

    // retarget applies config c from t on and keeps the water, capped at c's capacity (a limit
    // change); it drains on at c's rate.
    void retarget(const LimiterConfig& c, Nanos t)
    {
        t = std::max(t, m_lastNanos);
        Bucket next(c, DecidePath::Fast);
        next.m_water = std::min(unitsIn(waterAt(t), m_rate, next.m_rate), next.m_capacityUnits);
        next.m_lastNanos = t;
        *this = next;
    }

    // fits64 is true when pour64 may be used: a full bucket's units twice over, plus one
    // nanosecond's drain, stay below 2^63 (drains are capped at the time that empties a full bucket).
    bool fits64() const { return m_fits64; }

    // waterAt is the water at t, in units; a time before the last pour finds the water it left.
    Int128 waterAt(Nanos t) const
    {
        if (m_fits64) { // as pour64 drains: the same units, in 64 bits
            const Nanos dt = t > m_lastNanos ? std::min(t - m_lastNanos, m_emptyNanos) : 0;
            return std::max<std::int64_t>(static_cast<std::int64_t>(m_water) - dt * m_tokens64, 0);
        }
        const Int128 drained = t > m_lastNanos ? m_rate.unitsFromNanos(t - m_lastNanos) : Int128(0);
        return drained >= m_water ? 0 : m_water - drained;
    }

    // pour drains to t and adds a request of `cost` if it fits (level + k <= C). It returns the
    // water found before.
    Int128 pour(Nanos t, std::int64_t cost, Decision& d)
    {
        if (cost == 1 && m_fits64)
            return pour64(t, d);
        const Int128 before = waterAt(t);
        m_water = before;
        m_lastNanos = t;
        const Int128 poured = cost == 1 ? m_unitsPerRequest : m_rate.unitsFromTokens(cost);
        if (m_water + poured <= m_capacityUnits) {
            m_water += poured;
            d.allowed = true;
        } else {
            d.retryAfter = cost > m_capacity ? kRetryNever : waitFor(t, cost);
        }
        if (d.allowed || cost > 1) // a denied request of cost 1 found no room for one
            d.remaining = clampRemaining(quotient(m_capacityUnits - m_water, m_unitsPerRequest));
        return before;
    }

    // pour64 is pour(t, 1, d) in 64-bit integers with a branch-free verdict, for a bucket that
    // fits64: the same Decision fields and the same state.
    std::int64_t pour64(Nanos t, Decision& d)
    {
        const Nanos dt = std::min(t - m_lastNanos, m_emptyNanos); // longer drains empty it all the same
        const std::int64_t before = std::max<std::int64_t>(static_cast<std::int64_t>(m_water) - dt * m_tokens64, 0);
        const bool allowed = before + m_unitsPerRequest64 <= m_capacityUnits64;
        const std::int64_t after = before + (m_unitsPerRequest64 & -std::int64_t(allowed));
        m_water = after;
        m_lastNanos = t;
        // One division answers both: remaining (room left, in requests) when admitted, retry_after
        // (the overflow over the rate, rounded up) when denied.
        const std::int64_t q = allowed ? (m_capacityUnits64 - after) / m_unitsPerRequest64
                                       : (before + m_unitsPerRequest64 - m_capacityUnits64 + m_tokens64 - 1) / m_tokens64;
        d.allowed = allowed;
        d.remaining = allowed ? clampRemaining(q) : 0;
        d.retryAfter = allowed ? 0 : q;
        return before;
    }

    // waitFor is the least d after which a request of `cost` (at most C) fits: the overflow drained.
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        const Int128 over = waterAt(t) + m_rate.unitsFromTokens(cost) - m_capacityUnits;
        return over > 0 ? clampToNanos(m_rate.nanosCeilFromUnits(over)) : 0;
    }

    std::int32_t remainingAt(Nanos t) const
    {
        return clampRemaining(quotient(m_capacityUnits - waterAt(t), m_unitsPerRequest));
    }

    std::int64_t capacity() const { return m_capacity; }
    Int128 water() const { return m_water; }
    Int128 unitsPerRequest() const { return m_unitsPerRequest; }
    const Rate& rate() const { return m_rate; }

private:
    Rate m_rate;
    Int128 m_unitsPerRequest;
    Int128 m_capacityUnits;
    std::int64_t m_capacity;
    Int128 m_water = 0;
    Nanos m_lastNanos = 0;
    // The 64-bit copies pour64 reads, set when m_fits64.
    bool m_fits64;
    std::int64_t m_tokens64 = 0, m_unitsPerRequest64 = 0, m_capacityUnits64 = 0;
    Nanos m_emptyNanos = 0; // the drain that empties a full bucket: ceil(capacity units / tokens)
};

} // namespace detail

class LeakyBucket final {
public:
    explicit LeakyBucket(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_bucket(config, path)
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    Decision decide(Nanos t, std::int64_t cost)
    {
        Decision d;
        m_bucket.pour(t, cost, d);
        d.level = requests(m_bucket.water());
        return d;
    }

    // levelUnitsAt returns the level at t as the exact integer it is computed from, and
    // levelFromUnits the level of such an integer: levelAt(t) == levelFromUnits(levelUnitsAt(t)),
    // and more units are never a lower level, so a reduction compares units and converts only
    // the extremes (one division a column, not two a request).
    Int128 levelUnitsAt(Nanos t) const { return m_bucket.waterAt(t); }
    double levelFromUnits(Int128 water) const { return requests(water); }
    double levelAt(Nanos t) const { return requests(m_bucket.waterAt(t)); }
    Nanos waitFor(Nanos t, std::int64_t cost) const { return m_bucket.waitFor(t, cost); }
    std::int32_t remainingAt(Nanos t) const { return m_bucket.remainingAt(t); }
    std::int64_t quota() const { return m_bucket.capacity(); }

    void retarget(const LimiterConfig& c, Nanos t) { m_bucket.retarget(c, t); }

    Memory memory() const { return {16, 1}; } // water, last drain time
    Algorithm algorithm() const { return Algorithm::LeakyBucket; }

    // bucket exposes the exact water (Bucket::waterAt) for explanations.
    const detail::Bucket& bucket() const { return m_bucket; }

private:
    double requests(Int128 units) const
    {
        return toDouble(units) / toDouble(m_bucket.unitsPerRequest());
    }

    detail::Bucket m_bucket;
};

class LeakyBucketQueue final {
public:
    explicit LeakyBucketQueue(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_bucket(config, path)
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    Decision decide(Nanos t, std::int64_t cost)
    {
        Decision d;
        if (cost == 1 && m_bucket.fits64())
            return decide64(t);
        const Int128 before = m_bucket.pour(t, cost, d);
        if (d.allowed) // delay = water before / r, rounded up to the ns
            d.delay = clampToNanos(m_bucket.rate().nanosCeilFromUnits(before));
        d.level = waiting(m_bucket.water());
        return d;
    }

    // levelAt counts requests admitted but not yet left. Within a busy period departures are
    // exactly 1/r apart and the last one leaves when one unit of water is left, so the requests
    // still waiting are ceil(water) - 1.
    double levelAt(Nanos t) const { return waiting(m_bucket.waterAt(t)); }
    // levelUnitsAt returns the level at t as the exact integer it is computed from, and
    // levelFromUnits the level of such an integer: levelAt(t) == levelFromUnits(levelUnitsAt(t)),
    // and more units are never a lower level, so a reduction compares units and converts only
    // the extremes (one division a column, not two a request).
    Int128 levelUnitsAt(Nanos t) const { return m_bucket.waterAt(t); }
    double levelFromUnits(Int128 water) const { return waiting(water); }
    Nanos waitFor(Nanos t, std::int64_t cost) const { return m_bucket.waitFor(t, cost); }
    std::int32_t remainingAt(Nanos t) const { return m_bucket.remainingAt(t); }
    std::int64_t quota() const { return m_bucket.capacity(); }
    void retarget(const LimiterConfig& c, Nanos t) { m_bucket.retarget(c, t); }

    Memory memory() const { return {16, 1}; } // water, last drain time
    Algorithm algorithm() const { return Algorithm::LeakyBucketQueue; }

    // bucket exposes the exact water (Bucket::waterAt) for explanations.
    const detail::Bucket& bucket() const { return m_bucket; }

private:
    // decide64 is decide(t, 1) for a bucket that fits64, with the delay and level in 64 bits.
    Decision decide64(Nanos t)
    {
        Decision d;
        const std::int64_t before = m_bucket.pour64(t, d);
        const std::int64_t tokens = m_bucket.rate().tokens;
        // Admitted onto water, it waits ceil(before / tokens) ns, written so that the compiler
        // sees it positive: a caller that reads only the verdict then skips the division.
        const bool waits = d.allowed & (before > 0);
        d.delay = waits ? Nanos((std::uint64_t(before) - 1) / std::uint64_t(tokens) + 1) : 0;
        const auto water = static_cast<std::int64_t>(m_bucket.water());
        const auto perRequest = static_cast<std::int64_t>(m_bucket.unitsPerRequest());
        const std::int64_t n = (water + perRequest - 1) / perRequest - 1;
        d.level = n > 0 ? static_cast<double>(n) : 0.0;
        return d;
    }

    double waiting(Int128 units) const
    {
        const Int128 n = ceilDiv(units, m_bucket.unitsPerRequest()) - 1;
        return n > 0 ? static_cast<double>(n) : 0.0;
    }

    detail::Bucket m_bucket;
};

} // namespace ratelab
