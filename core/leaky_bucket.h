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

#include "limiter.h"

namespace ratelab {

namespace detail {

// Bucket is the exact water level shared by the meter and the queue.
class Bucket {
public:
    explicit Bucket(const LimiterConfig& config)
        : m_ratePerNanos(config.rate())
        , m_unitsPerRequest(config.rate().perNanos)
        , m_capacityUnits(Int128(config.capacity()) * config.rate().perNanos)
    {
    }

    // waterAt is the water at t (not earlier than the last pour), in units.
    Int128 waterAt(Nanos t) const
    {
        const Int128 drained = Int128(t - m_lastNanos) * m_ratePerNanos.tokens;
        return drained >= m_water ? 0 : m_water - drained;
    }

    // pour drains to t and adds one request if it fits. It returns the water found before.
    Int128 pour(Nanos t, Decision& d)
    {
        const Int128 before = waterAt(t);
        m_water = before;
        m_lastNanos = t;
        if (m_water + m_unitsPerRequest <= m_capacityUnits) {
            m_water += m_unitsPerRequest;
            d.allowed = true;
            d.remaining = clampRemaining(quotient(m_capacityUnits - m_water, m_unitsPerRequest));
        } else {
            const Int128 over = m_water + m_unitsPerRequest - m_capacityUnits;
            d.retryAfter = clampToNanos(ceilDiv(over, m_ratePerNanos.tokens));
        }
        return before;
    }

    Int128 water() const { return m_water; }
    Int128 unitsPerRequest() const { return m_unitsPerRequest; }
    std::int64_t tokensPerNanos() const { return m_ratePerNanos.tokens; }

private:
    Rate m_ratePerNanos;
    Int128 m_unitsPerRequest;
    Int128 m_capacityUnits;
    Int128 m_water = 0;
    Nanos m_lastNanos = 0;
};

} // namespace detail

class LeakyBucket final : public Limiter {
public:
    explicit LeakyBucket(const LimiterConfig& config)
        : m_bucket(config)
    {
    }

    Decision decide(Nanos t) override
    {
        Decision d;
        m_bucket.pour(t, d);
        d.level = requests(m_bucket.water());
        return d;
    }

    double levelAt(Nanos t) const override { return requests(m_bucket.waterAt(t)); }
    Memory memory() const override { return {16, 1}; } // water, last drain time
    Algorithm algorithm() const override { return Algorithm::LeakyBucket; }
    std::unique_ptr<Limiter> clone() const override { return std::make_unique<LeakyBucket>(*this); }

    // bucket exposes the exact water (Bucket::waterAt) for explanations.
    const detail::Bucket& bucket() const { return m_bucket; }

private:
    double requests(Int128 units) const
    {
        return toDouble(units) / toDouble(m_bucket.unitsPerRequest());
    }

    detail::Bucket m_bucket;
};

class LeakyBucketQueue final : public Limiter {
public:
    explicit LeakyBucketQueue(const LimiterConfig& config)
        : m_bucket(config)
    {
    }

    Decision decide(Nanos t) override
    {
        Decision d;
        const Int128 before = m_bucket.pour(t, d);
        if (d.allowed) // water before / r, in ns: units / tokens-per-ns, rounded up
            d.delay = clampToNanos(ceilDiv(before, m_bucket.tokensPerNanos()));
        d.level = waiting(m_bucket.water());
        return d;
    }

    // levelAt counts requests admitted but not yet left. Within a busy period departures are
    // exactly 1/r apart and the last one leaves when one unit of water is left, so the requests
    // still waiting are ceil(water) - 1.
    double levelAt(Nanos t) const override { return waiting(m_bucket.waterAt(t)); }
    Memory memory() const override { return {16, 1}; } // water, last drain time
    Algorithm algorithm() const override { return Algorithm::LeakyBucketQueue; }
    std::unique_ptr<Limiter> clone() const override { return std::make_unique<LeakyBucketQueue>(*this); }

    // bucket exposes the exact water (Bucket::waterAt) for explanations.
    const detail::Bucket& bucket() const { return m_bucket; }

private:
    double waiting(Int128 units) const
    {
        const Int128 n = ceilDiv(units, m_bucket.unitsPerRequest()) - 1;
        return n > 0 ? static_cast<double>(n) : 0.0;
    }

    detail::Bucket m_bucket;
};

} // namespace ratelab
