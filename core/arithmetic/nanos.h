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
inline constexpr Nanos kNanosPerMs = 1'000'000;
inline constexpr Nanos kNanosPerMinute = 60 * kNanosPerSecond;
inline constexpr Nanos kNanosPerHour = 60 * kNanosPerMinute;
inline constexpr Nanos kNanosPerDay = 24 * kNanosPerHour;
inline constexpr Nanos kMaxNanos = std::numeric_limits<Nanos>::max();

// quotient returns a / b (truncated, b > 0). Operands that fit in 64 bits, the common case, take
// the hardware divide instead of the much slower 128-bit library routine.
constexpr Int128 quotient(Int128 a, Int128 b)
{
    if (a >= 0 && (a >> 63) == 0 && (b >> 63) == 0)
        return static_cast<std::uint64_t>(a) / static_cast<std::uint64_t>(b);
    return a / b;
}

// ceilDiv returns ceil(a / b) for b > 0 and any sign of a.
constexpr Int128 ceilDiv(Int128 a, Int128 b)
{
    const Int128 q = quotient(a, b);
    return (a > 0 && q * b != a) ? q + 1 : q;
}

// floorDiv returns floor(a / b) for b > 0 and any sign of a.
constexpr Int128 floorDiv(Int128 a, Int128 b)
{
    const Int128 q = quotient(a, b);
    return (a < 0 && q * b != a) ? q - 1 : q;
}

// floorDiv64 is floorDiv in 64 bits, for times and counts that cannot overflow there.
constexpr std::int64_t floorDiv64(std::int64_t a, std::int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

// toDouble converts a 128-bit count for drawing, through 64 bits when it fits.
constexpr double toDouble(Int128 v)
{
    return (v >> 63) == 0 || (v >> 63) == -1 ? static_cast<double>(static_cast<std::int64_t>(v))
                                             : static_cast<double>(v);
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
