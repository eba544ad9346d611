// Rate is an exact refill or drain rate: `tokens` tokens every `perNanos` nanoseconds.
//
// Keeping both integers (reduced by their gcd) means "3 per 7 s" stays 3/7 per second instead
// of 0.42857142857142855, so a token due exactly at t is there at t.
#pragma once

#include "nanos.h"

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

    // perSecond is the rate as a double, for display only.
    double perSecond() const { return static_cast<double>(tokens) * 1e9 / static_cast<double>(perNanos); }

    // exactText writes the rate per second as a decimal when it has one ("2.5") and as a
    // fraction otherwise ("3/7").
    std::string exactText() const;

    friend constexpr bool operator==(const Rate&, const Rate&) = default;
};

} // namespace ratelab
