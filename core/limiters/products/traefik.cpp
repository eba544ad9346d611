#include "limiters/products/traefik.h"

#include <cmath>

namespace ratelab {

Traefik::Traefik(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::Traefik, config);
    std::int64_t average = 0;
    Nanos period = kNanosPerSecond;
    if (p.given()) {
        average = p.integer("average", 0, 0, LimiterConfig::kMaxLimit);
        m_burst = p.integer("burst", 1, 0, LimiterConfig::kMaxLimit);
        period = p.duration("period", kNanosPerSecond, kNanosPerSecond);
    } else {
        average = config.limit();
        period = config.windowNanos();
        m_burst = config.capacity();
    }
    m_average = average;
    m_period = period;
    if (m_burst < 1)
        m_burst = 1;
    m_burstLeft = m_burst;
    m_limit = 0;
    m_maxDelay = 0;
    if (average > 0) {
        const double rtl = double(average * kNanosPerSecond) / double(period);
        m_limit = rtl;
        m_maxDelay = rtl < 1 ? 500'000'000 : kNanosPerSecond / (static_cast<Nanos>(rtl) * 2);
    }
}

Decision Traefik::step(Nanos t, std::int64_t cost)
{
    Decision d;
    if (m_limit == 0) { // reserveN's `lim.limit == 0` branch: delay 0, burst spent for good
        if (m_burstLeft >= cost) {
            m_burstLeft -= cost;
            d.allowed = true;
        }
        return d;
    }
    // Reserve() with maxFutureReserve = InfDuration: ok iff cost <= burst.
    if (cost > m_burst)
        return d;
    const auto [tokens, wait] = reservation(t, cost);
    const Nanos timeToAct = clampToNanos(Int128(t) + wait); // Go's Time.Add; clamped far beyond any run
    m_last = t;
    m_hasLast = true;
    m_tokens = tokens;
    m_lastEvent = timeToAct;
    const Nanos delay = wait; // DelayFrom(t): timeToAct - t, not negative
    if (delay <= m_maxDelay) {
        d.allowed = true;
        d.delay = delay;
        return d;
    }
    // Cancel() at t (CancelAt): timeToAct is not before t and the reservation holds cost tokens.
    const double restore = double(cost) - tokensFromDuration(m_lastEvent - timeToAct);
    if (restore <= 0)
        return d;
    double back = advance(t);
    back += restore;
    if (back > double(m_burst))
        back = double(m_burst);
    m_last = t;
    m_tokens = back;
    if (timeToAct == m_lastEvent) {
        const Nanos prevEvent = clampToNanos(Int128(timeToAct) + durationFromTokens(double(-cost)));
        if (!(prevEvent < t))
            m_lastEvent = prevEvent;
    }
    return d;
}

bool Traefik::admits(Nanos t, std::int64_t cost) const
{
    if (m_limit == 0)
        return m_burstLeft >= cost;
    return cost <= m_burst && reservation(t, cost).second <= m_maxDelay;
}

std::int32_t Traefik::remainingAt(Nanos t) const
{
    if (m_limit == 0)
        return clampRemaining(m_burstLeft);
    // Further requests of 1 at t, as Go would reserve them one after another: tokens x -> x - 1.
    // While x >= 1 the subtraction is exact and the wait 0, so the first floor(x) pass at once;
    // from x < 1 on, each is subtracted as Go does (at most a few pass: maxDelay is at most one
    // interval).
    double x = advance(t);
    if (x > 4e9)
        return clampRemaining(Int128(4'000'000'000LL));
    std::int64_t n = 0;
    if (x >= 1) {
        const double whole = std::floor(x);
        n = static_cast<std::int64_t>(whole);
        x -= whole;
    }
    for (;;) {
        const double after = x - 1.0;
        if ((after < 0 ? durationFromTokens(-after) : 0) > m_maxDelay)
            return clampRemaining(n);
        x = after;
        ++n;
    }
}

} // namespace ratelab
