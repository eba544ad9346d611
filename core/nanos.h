// Simulated time and the exact integer arithmetic every limiter shares.
//
// Time is an integer count of nanoseconds from the start of a scenario (t = 0 is a window
// boundary). No limiter reads a clock: the caller hands it `t`. Quantities that are not whole
// nanoseconds (7/3 s) are kept as exact rationals and rounded up only when reported.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace ratelab {

using Nanos = std::int64_t;
using Int128 = __int128;

inline constexpr Nanos kNanosPerSecond = 1'000'000'000;
inline constexpr Nanos kMaxNanos = std::numeric_limits<Nanos>::max();

// ceilDiv returns ceil(a / b) for b > 0 and any sign of a.
constexpr Int128 ceilDiv(Int128 a, Int128 b)
{
    const Int128 q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
}

// floorDiv returns floor(a / b) for b > 0 and any sign of a.
constexpr Int128 floorDiv(Int128 a, Int128 b)
{
    const Int128 q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

// clampToNanos saturates a 128-bit duration into the Nanos range.
constexpr Nanos clampToNanos(Int128 v)
{
    if (v > kMaxNanos)
        return kMaxNanos;
    if (v < -kMaxNanos)
        return -kMaxNanos;
    return static_cast<Nanos>(v);
}

// formatSeconds writes a nanosecond count as decimal seconds, exact, with at most nine decimals
// and no trailing zeros ("0.1", "10", "1.000000001").
std::string formatSeconds(Nanos t);

// secondsAsDouble converts for drawing and for floating-point output only.
constexpr double secondsAsDouble(Nanos t) { return static_cast<double>(t) / 1e9; }

} // namespace ratelab
