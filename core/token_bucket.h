// TokenBucket holds up to `capacity` tokens, refilled at `rate`; each request takes one.
//
// It models "an average of r per second, with bursts of up to C": a client that was quiet saves
// credit and may then spend it all at once. The refill is lazy (computed from the time since the
// last request) and exact: tokens are counted in units of 1/perNanos of a token, so with a rate of
// `tokens` per `perNanos` ns, dt nanoseconds add exactly dt * tokens units. A token due at t is
// there at t: 10 requests 0.1 s apart drain a full 10-token bucket at 1/s and the request at
// exactly t = 1.0 s finds one token refilled.
#pragma once

#include "limiter.h"

namespace ratelab {

class TokenBucket final : public Limiter {
public:
    explicit TokenBucket(const LimiterConfig& config)
        : m_ratePerNanos(config.rate())
        , m_unitsPerToken(config.rate().perNanos)
        , m_capacityUnits(Int128(config.capacity()) * config.rate().perNanos)
        , m_units(m_capacityUnits)
    {
    }

    Decision decide(Nanos t) override
    {
        m_units = unitsAt(t);
        m_lastNanos = t;
        Decision d;
        if (m_units >= m_unitsPerToken) {
            m_units -= m_unitsPerToken;
            d.allowed = true;
            d.remaining = clampRemaining(quotient(m_units, m_unitsPerToken));
        } else {
            d.retryAfter = clampToNanos(ceilDiv(m_unitsPerToken - m_units, m_ratePerNanos.tokens));
        }
        d.level = toDouble(m_units) / toDouble(m_unitsPerToken);
        return d;
    }

    double levelAt(Nanos t) const override
    {
        return toDouble(unitsAt(t)) / toDouble(m_unitsPerToken);
    }

    Memory memory() const override { return {16, 1}; } // tokens, last refill time
    Algorithm algorithm() const override { return Algorithm::TokenBucket; }
    std::unique_ptr<Limiter> clone() const override { return std::make_unique<TokenBucket>(*this); }

    // unitsAt returns the exact tokens at t (not earlier than the last request), in units of
    // 1/perNanos of a token (config.rate().perNanos units make one token).
    Int128 unitsAt(Nanos t) const
    {
        const Int128 refilled = m_units + Int128(t - m_lastNanos) * m_ratePerNanos.tokens;
        return refilled < m_capacityUnits ? refilled : m_capacityUnits;
    }

private:
    Rate m_ratePerNanos;
    Int128 m_unitsPerToken;
    Int128 m_capacityUnits;
    Int128 m_units;
    Nanos m_lastNanos = 0;
};

} // namespace ratelab
