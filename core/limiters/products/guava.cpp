#include "limiters/products/guava.h"

#include <cmath>
#include <limits>

namespace ratelab {

GuavaRateLimiter::GuavaRateLimiter(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::Guava, config);
    m_permitsPerSecond = p.real("permitsPerSecond", config.rate().perSecond());
    // SmoothRateLimiter.doSetRate: stableIntervalMicros = SECONDS.toMicros(1L) / permitsPerSecond;
    // SmoothBursty.doSetRate: maxPermits = maxBurstSeconds (1.0) * permitsPerSecond, and
    // storedPermits = 0.0 since the old maxPermits was 0.0.
    m_intervalMicros = double(1'000'000LL) / m_permitsPerSecond;
    m_maxPermits = 1.0 * m_permitsPerSecond;
    if (!(m_intervalMicros >= 1.0) || m_intervalMicros > 1e15)
        p.fail("permitsPerSecond must be from 1e-9 to 1000000 (got " + p.text("permitsPerSecond").value_or(std::to_string(m_permitsPerSecond)) + ")");
}

void GuavaRateLimiter::reserve(std::int64_t permits, std::int64_t nowMicros)
{
    // SmoothRateLimiter.reserveEarliestAvailable; SmoothBursty's storedPermitsToWaitTime is 0.
    resync(nowMicros);
    const double spend = std::min(double(permits), m_storedPermits);
    const double fresh = double(permits) - spend;
    const std::int64_t wait = saturatingCast(fresh * m_intervalMicros); // Java's (long): truncates, saturates
    // LongMath.saturatedAdd
    m_nextFreeMicros = wait > std::numeric_limits<std::int64_t>::max() - m_nextFreeMicros
                           ? std::numeric_limits<std::int64_t>::max()
                           : m_nextFreeMicros + wait;
    m_storedPermits -= spend;
}

std::int32_t GuavaRateLimiter::remainingAt(Nanos t) const
{
    const std::int64_t now = t / 1000;
    if (m_nextFreeMicros > now)
        return 0;
    // Requests of 1 at the same microsecond: each of the first floor(S) takes a stored permit
    // (S - 1 is exact for S < 2^52), the next pays (long)((1 - frac) * interval); while that is
    // 0 (a sub-microsecond interval) they keep coming. Counted on a copy past the closed form.
    GuavaRateLimiter copy(*this);
    copy.resync(now);
    const double whole = std::floor(copy.m_storedPermits);
    if (whole > 2e9)
        return clampRemaining(Int128(2'000'000'000));
    std::int64_t n = static_cast<std::int64_t>(whole);
    copy.m_storedPermits -= whole;
    while (copy.m_nextFreeMicros <= now && n < 2'000'000'000) {
        copy.reserve(1, now);
        ++n;
    }
    return clampRemaining(n);
}

double GuavaRateLimiter::levelAt(Nanos t) const
{
    GuavaRateLimiter copy(*this);
    copy.resync(t / 1000);
    return copy.m_storedPermits;
}

} // namespace ratelab
