// TokenBucket holds up to `capacity` tokens, refilled at `rate`; each request takes one (a
// request of cost k takes k).
//
// It models "an average of r per second, with bursts of up to C": a client that was quiet saves
// credit and may then spend it all at once. The refill is lazy (computed from the time since the
// last request) and exact: tokens are counted in units of 1/perNanos of a token, so with a rate of
// `tokens` per `perNanos` ns, dt nanoseconds add exactly dt * tokens units. A token due at t is
// there at t: 10 requests 0.1 s apart drain a full 10-token bucket at 1/s and the request at
// exactly t = 1.0 s finds one token refilled.
#pragma once

#include "limiters/limiter.h"

#include <algorithm>

namespace ratelab {

class TokenBucket final {
public:
    explicit TokenBucket(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_rate(config.rate())
        , m_unitsPerToken(config.rate().unitsFromTokens(1))
        , m_capacityUnits(config.rate().unitsFromTokens(config.capacity()))
        , m_capacity(config.capacity())
        , m_units(m_capacityUnits)
        , m_fits64(path == DecidePath::Fast && fits64(config.rate(), m_capacityUnits))
    {
        if (m_fits64) {
            m_tokens64 = config.rate().tokens;
            m_unitsPerToken64 = static_cast<std::int64_t>(m_unitsPerToken);
            m_capacityUnits64 = static_cast<std::int64_t>(m_capacityUnits);
            m_fillNanos = static_cast<Nanos>(ceilDiv(m_capacityUnits, config.rate().tokens));
        }
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide with cost k: admit iff tokens >= k, then tokens -= k. A cost above C never fits.
    // k * perNanos < 2^30 * 2^63: no overflow.
    Decision decide(Nanos t, std::int64_t cost)
    {
        if (cost == 1 && m_fits64)
            return decide64(t);
        m_units = unitsAt(t);
        m_lastNanos = t;
        const Int128 needed = cost == 1 ? m_unitsPerToken : m_rate.unitsFromTokens(cost);
        Decision d;
        if (m_units >= needed) {
            m_units -= needed;
            d.allowed = true;
        } else {
            d.retryAfter = cost > m_capacity ? kRetryNever : clampToNanos(m_rate.nanosCeilFromUnits(needed - m_units));
        }
        if (d.allowed || cost > 1) // a denied request of cost 1 found less than one token
            d.remaining = clampRemaining(quotient(m_units, m_unitsPerToken));
        d.level = toDouble(m_units) / toDouble(m_unitsPerToken);
        return d;
    }

    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        const Int128 missing = m_rate.unitsFromTokens(cost) - unitsAt(t);
        return missing > 0 ? clampToNanos(m_rate.nanosCeilFromUnits(missing)) : 0;
    }

    std::int32_t remainingAt(Nanos t) const
    {
        // Less than one token is 0 whichever the sign: no division (a denial's every layer asks).
        const Int128 units = unitsAt(t);
        return units < m_unitsPerToken ? 0 : clampRemaining(quotient(units, m_unitsPerToken));
    }
    std::int64_t quota() const { return m_capacity; }

    // levelUnitsAt returns the level at t as the exact integer it is computed from, and
    // levelFromUnits the level of such an integer: levelAt(t) == levelFromUnits(levelUnitsAt(t)),
    // and more units are never a lower level, so a reduction compares units and converts only
    // the extremes (one division a column, not two a request).
    Int128 levelUnitsAt(Nanos t) const
    {
        if (m_fits64) { // as decide64 refills: the same units, in 64 bits
            const Nanos dt = t > m_lastNanos ? std::min(t - m_lastNanos, m_fillNanos) : 0;
            return std::min(static_cast<std::int64_t>(m_units) + dt * m_tokens64, m_capacityUnits64);
        }
        return unitsAt(t);
    }
    double levelFromUnits(Int128 units) const { return toDouble(units) / toDouble(m_unitsPerToken); }
    double levelAt(Nanos t) const { return levelFromUnits(levelUnitsAt(t)); }

    // retarget applies config c from t on and keeps the tokens, capped at c's capacity (a limit
    // change, semantics.md "Start"); the refill goes on at c's rate.
    void retarget(const LimiterConfig& c, Nanos t)
    {
        t = std::max(t, m_lastNanos); // nothing refills backwards
        TokenBucket next(c);
        next.m_units = std::min(unitsIn(unitsAt(t), m_rate, next.m_rate), next.m_capacityUnits);
        next.m_lastNanos = t;
        *this = next;
    }

    Memory memory() const { return {16, 1}; } // tokens, last refill time
    Algorithm algorithm() const { return Algorithm::TokenBucket; }

    // unitsAt returns the exact tokens at t, in units of 1/perNanos of a token
    // (config.rate().perNanos units make one token). A time before the last request (a view
    // that starts before it) finds the tokens that request left: nothing refills backwards.
    Int128 unitsAt(Nanos t) const
    {
        const Int128 refilled = m_units + (t > m_lastNanos ? m_rate.unitsFromNanos(t - m_lastNanos) : 0);
        return refilled < m_capacityUnits ? refilled : m_capacityUnits;
    }

private:
    // fits64 is true when every quantity decide64 forms stays below 2^63: the units of a full
    // bucket twice over plus one nanosecond's refill (refills are capped at m_fillNanos).
    static bool fits64(const Rate& rate, Int128 capacityUnits)
    {
        return capacityUnits < (Int128(1) << 61) && rate.tokens < (Int128(1) << 61);
    }

    // decide64 is decide(t, 1) in 64-bit integers with a branch-free verdict, for configs that
    // fit64; it returns the same Decision and leaves the same state as the 128-bit path.
    Decision decide64(Nanos t)
    {
        // A refill longer than m_fillNanos fills even an empty bucket, so capping it changes
        // nothing and keeps the product inside 64 bits.
        const Nanos dt = std::min(t - m_lastNanos, m_fillNanos);
        const std::int64_t units = std::min(static_cast<std::int64_t>(m_units) + dt * m_tokens64, m_capacityUnits64);
        const bool allowed = units >= m_unitsPerToken64;
        const std::int64_t left = units - (m_unitsPerToken64 & -std::int64_t(allowed));
        m_units = left;
        m_lastNanos = t;
        // One division answers both: remaining (whole tokens left) when admitted, retry_after
        // (the missing units over the rate, rounded up) when denied.
        const std::int64_t q = allowed ? left / m_unitsPerToken64
                                       : (m_unitsPerToken64 - units + m_tokens64 - 1) / m_tokens64;
        Decision d;
        d.allowed = allowed;
        d.remaining = allowed ? clampRemaining(q) : 0;
        d.retryAfter = allowed ? 0 : q;
        d.level = static_cast<double>(left) / static_cast<double>(m_unitsPerToken64);
        return d;
    }

    Rate m_rate;
    Int128 m_unitsPerToken;
    Int128 m_capacityUnits;
    std::int64_t m_capacity;
    Int128 m_units;
    Nanos m_lastNanos = 0;
    // The 64-bit copies decide64 reads, set when m_fits64.
    bool m_fits64;
    std::int64_t m_tokens64 = 0, m_unitsPerToken64 = 0, m_capacityUnits64 = 0;
    Nanos m_fillNanos = 0; // the refill that fills an empty bucket: ceil(capacity units / tokens)
};

} // namespace ratelab
