// Rate is an exact refill or drain rate: `tokens` tokens every `perNanos` nanoseconds.
//
// Keeping both integers (reduced by their gcd) means "3 per 7 s" stays 3/7 per second instead
// of 0.42857142857142855, so a token due exactly at t is there at t.
#pragma once

#include "arithmetic/nanos.h"

#include <cstdint>
#include <numeric>
#include <string>

namespace ratelab {

struct Rate {
    std::int64_t tokens = 1;
    Nanos perNanos = kNanosPerSecond;

    // reduced returns tokens / perNanos in lowest terms; both must be positive.
    static constexpr Rate reduced(std::int64_t tokens, Nanos perNanos)
    {
        const std::int64_t g = std::gcd(tokens, perNanos);
        return Rate{tokens / g, perNanos / g};
    }

    // Exact conversions between time and tokens. A "token unit" is 1/perNanos of a token, so one
    // nanosecond adds exactly `tokens` units and a whole token is `perNanos` units: every
    // quantity a bucket holds is an integer. Inputs are bounded by LimiterConfig (counts at most
    // 1e9, durations at most 2^63 ns), so each product stays inside 128 bits (< 2^93).

    // unitsFromTokens converts a whole number of tokens (or requests) to token units.
    constexpr Int128 unitsFromTokens(std::int64_t count) const { return Int128(count) * perNanos; }

    // unitsFromNanos returns the token units that `nanos` of refill (or drain) add, exactly.
    constexpr Int128 unitsFromNanos(Int128 nanos) const { return nanos * tokens; }

    // nanosCeilFromUnits returns the least whole nanoseconds that refill (or drain) at least
    // `units` token units: a duration that is not whole is rounded up, as semantics.md reports it.
    constexpr Int128 nanosCeilFromUnits(Int128 units) const { return ceilDiv(units, tokens); }

    // perSecond is the rate as a double, for display only.
    double perSecond() const { return static_cast<double>(tokens) * 1e9 / static_cast<double>(perNanos); }

    // exactText writes the rate per second as a decimal when it has one ("2.5") and as a
    // fraction otherwise ("3/7").
    std::string exactText() const;

    friend constexpr bool operator==(const Rate&, const Rate&) = default;
};

// unitsIn converts `units` token units of rate `from` to token units of rate `to`, rounded down
// (a limit change: the same tokens, counted in the new rate's units). Split into whole tokens
// and the remainder so each product stays inside 128 bits.
constexpr Int128 unitsIn(Int128 units, const Rate& from, const Rate& to)
{
    return units / from.perNanos * to.perNanos + units % from.perNanos * to.perNanos / from.perNanos;
}

} // namespace ratelab
