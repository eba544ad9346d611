// Gcra is the generic cell rate algorithm: a token bucket kept as one timestamp.
//
// With emission interval T = 1/r and tolerance tau = (C - 1) * T, the theoretical arrival time
// TAT is when the bucket would next be full again. A request at t is admitted iff
// max(TAT, t) - t <= tau, and then TAT = max(TAT, t) + T. It admits exactly what TokenBucket
// admits; its level is the backlog TAT - t in seconds.
//
// T = perNanos / tokens ns is rational, so time is kept scaled by `tokens` (units of 1/tokens ns):
// T becomes the integer perNanos and every comparison is exact.
#pragma once

#include "limiters/limiter.h"

#include <optional>

namespace ratelab {

class Gcra final {
public:
    explicit Gcra(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_scale(config.rate().tokens)
        , m_emissionScaled(config.rate().unitsFromTokens(1))
        , m_toleranceScaled(config.rate().unitsFromTokens(config.capacity() - 1))
        , m_capacity(config.capacity())
        , m_fits64(path == DecidePath::Fast && m_toleranceScaled + m_emissionScaled < (Int128(1) << 61) &&
                   m_scale < (std::int64_t(1) << 61))
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide with cost k: admit iff max(TAT, t) + k*T - t <= C*T, i.e. x - t <= tau - (k - 1)*T,
    // then TAT = x + k*T. A cost above C never fits.
    Decision decide(Nanos t, std::int64_t cost)
    {
        if (cost == 1 && m_fits64)
            return decide64(t);
        const Int128 now = Int128(t) * m_scale;
        const Int128 x = m_hasTat && m_tatScaled > now ? m_tatScaled : now;
        const Int128 tolerance = cost == 1 ? m_toleranceScaled : m_toleranceScaled - Int128(cost - 1) * m_emissionScaled;
        Decision d;
        if (x - now <= tolerance) {
            m_tatScaled = x + (cost == 1 ? m_emissionScaled : Int128(cost) * m_emissionScaled);
            m_hasTat = true;
            d.allowed = true;
        } else {
            d.retryAfter = cost > m_capacity ? kRetryNever : clampToNanos(ceilDiv(x - now - tolerance, m_scale));
        }
        if (d.allowed || cost > 1)
            d.remaining = remainingFrom(now);
        d.level = backlogSeconds(now);
        return d;
    }

    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        const Int128 now = Int128(t) * m_scale;
        const Int128 x = m_hasTat && m_tatScaled > now ? m_tatScaled : now;
        const Int128 late = x - now - (m_toleranceScaled - Int128(cost - 1) * m_emissionScaled);
        return late > 0 ? clampToNanos(ceilDiv(late, m_scale)) : 0;
    }

    std::int32_t remainingAt(Nanos t) const { return remainingFrom(Int128(t) * m_scale); }
    std::int64_t quota() const { return m_capacity; }

    // retarget applies config c from t on and keeps the backlog TAT - t (the water of the
    // equivalent leaky bucket), capped at c's capacity C * T (a limit change).
    void retarget(const LimiterConfig& c, Nanos t)
    {
        Gcra next(c);
        if (m_hasTat) {
            const Int128 now = Int128(t) * m_scale;
            const Int128 backlog = m_tatScaled > now ? m_tatScaled - now : 0; // units of the old rate
            const Rate from{m_scale, Nanos(m_emissionScaled)}, to{next.m_scale, Nanos(next.m_emissionScaled)};
            const Int128 kept = std::min(unitsIn(backlog, from, to), next.m_toleranceScaled + next.m_emissionScaled);
            next.m_tatScaled = Int128(t) * next.m_scale + kept;
            next.m_hasTat = true;
        }
        *this = next;
    }

    double levelAt(Nanos t) const { return backlogSeconds(Int128(t) * m_scale); }
    // levelUnitsAt returns the level at t as the exact integer it is computed from, and
    // levelFromUnits the level of such an integer: levelAt(t) == levelFromUnits(levelUnitsAt(t)),
    // and more units are never a lower level, so a reduction compares units and converts only
    // the extremes (one division a column, not two a request).
    Int128 levelUnitsAt(Nanos t) const // the backlog TAT - t, scaled
    {
        const Int128 now = Int128(t) * m_scale;
        return m_hasTat && m_tatScaled > now ? m_tatScaled - now : Int128(0);
    }
    double levelFromUnits(Int128 backlog) const
    {
        return backlog > 0 ? toDouble(backlog) / static_cast<double>(m_scale) / 1e9 : 0.0;
    }
    Memory memory() const { return {8, 1}; } // TAT
    Algorithm algorithm() const { return Algorithm::Gcra; }

    // tatScaled returns the theoretical arrival time in units of 1/config.rate().tokens ns, or
    // nullopt before the first admission.
    std::optional<Int128> tatScaled() const { return m_hasTat ? std::optional<Int128>(m_tatScaled) : std::nullopt; }

private:
    // decide64 is decide(t, 1) with a branch-free verdict, for a config whose C*T fits64. The
    // times scaled by `tokens` need 128 bits, but the backlog TAT - t is at most C*T, so the
    // verdict, remaining, retry_after and level are computed in 64 bits from it.
    Decision decide64(Nanos t)
    {
        const Int128 now = Int128(t) * m_scale;
        const Int128 x = m_tatScaled > now ? m_tatScaled : now; // TAT is 0 before the first admission
        // x - t is at most C*T, so its low 64 bits are all of it.
        const auto backlog = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(now));
        const auto emission = static_cast<std::int64_t>(m_emissionScaled);
        const auto tolerance = static_cast<std::int64_t>(m_toleranceScaled);
        const bool allowed = backlog <= tolerance;
        // A denied request found TAT ahead of t (the backlog exceeds tau >= 0), so x is TAT then:
        // TAT = x + T when admitted and x when denied, with no branch and no select.
        m_tatScaled = x + (emission & -std::int64_t(allowed));
        m_hasTat = true; // a request with no TAT has no backlog, and is admitted
        const std::int64_t after = backlog + (emission & -std::int64_t(allowed)); // TAT - t, both cases
        Decision d;
        d.allowed = allowed;
        // remaining: each further request needs TAT - t <= tau and adds T; retry_after: the excess over tau.
        const std::int64_t slack = tolerance - after;
        d.remaining = allowed && slack >= 0 ? clampRemaining(slack / emission + 1) : 0;
        d.retryAfter = allowed ? 0 : (backlog - tolerance + m_scale - 1) / m_scale;
        d.level = after > 0 ? static_cast<double>(after) / static_cast<double>(m_scale) / 1e9 : 0.0;
        return d;
    }

    // remainingFrom counts requests of cost 1 admitted at now (scaled): each needs TAT - now <= tau
    // before it, and adds T. Before the first request there is no TAT: C of them.
    std::int32_t remainingFrom(Int128 now) const
    {
        const Int128 tat = m_hasTat && m_tatScaled > now ? m_tatScaled : now;
        const Int128 slack = m_toleranceScaled - (tat - now);
        return clampRemaining(slack >= 0 ? quotient(slack, m_emissionScaled) + 1 : 0);
    }

    double backlogSeconds(Int128 nowScaled) const
    {
        if (!m_hasTat || m_tatScaled <= nowScaled)
            return 0.0;
        return toDouble(m_tatScaled - nowScaled) / static_cast<double>(m_scale) / 1e9;
    }

    std::int64_t m_scale;
    Int128 m_emissionScaled;
    Int128 m_toleranceScaled;
    std::int64_t m_capacity;
    Int128 m_tatScaled = 0;
    bool m_hasTat = false;
    bool m_fits64; // C*T and tokens below 2^61: decide64 may be used
};

} // namespace ratelab
