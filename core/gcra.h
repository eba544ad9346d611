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

#include "limiter.h"

#include <optional>

namespace ratelab {

class Gcra final : public Limiter {
public:
    explicit Gcra(const LimiterConfig& config)
        : m_scale(config.rate().tokens)
        , m_emissionScaled(config.rate().perNanos)
        , m_toleranceScaled(Int128(config.capacity() - 1) * config.rate().perNanos)
    {
    }

    Decision decide(Nanos t) override
    {
        const Int128 now = Int128(t) * m_scale;
        const Int128 x = m_hasTat && m_tatScaled > now ? m_tatScaled : now;
        Decision d;
        if (x - now <= m_toleranceScaled) {
            m_tatScaled = x + m_emissionScaled;
            m_hasTat = true;
            d.allowed = true;
            const Int128 slack = m_toleranceScaled - (m_tatScaled - now);
            d.remaining = clampRemaining(slack >= 0 ? quotient(slack, m_emissionScaled) + 1 : 0);
        } else {
            d.retryAfter = clampToNanos(ceilDiv(x - now - m_toleranceScaled, m_scale));
        }
        d.level = backlogSeconds(now);
        return d;
    }

    double levelAt(Nanos t) const override { return backlogSeconds(Int128(t) * m_scale); }
    Memory memory() const override { return {8, 1}; } // TAT
    Algorithm algorithm() const override { return Algorithm::Gcra; }
    std::unique_ptr<Limiter> clone() const override { return std::make_unique<Gcra>(*this); }

    // tatScaled returns the theoretical arrival time in units of 1/config.rate().tokens ns, or
    // nullopt before the first admission.
    std::optional<Int128> tatScaled() const { return m_hasTat ? std::optional<Int128>(m_tatScaled) : std::nullopt; }

private:
    double backlogSeconds(Int128 nowScaled) const
    {
        if (!m_hasTat || m_tatScaled <= nowScaled)
            return 0.0;
        return toDouble(m_tatScaled - nowScaled) / static_cast<double>(m_scale) / 1e9;
    }

    std::int64_t m_scale;
    Int128 m_emissionScaled;
    Int128 m_toleranceScaled;
    Int128 m_tatScaled = 0;
    bool m_hasTat = false;
};

} // namespace ratelab
