// ownLimit: the limit L and window W a row is measured against (max_in_window's window, and
// overshoot = max_in_window / L). A textbook algorithm, and a product given none of its own
// options, is measured against RateLab's L per W. A product given its options is measured against
// its own configured quota over its own period (Traefik `average=100, period=1m` is 100 per 60 s,
// whatever RateLab's Limits say): a row is judged by the limit it was configured to keep.
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"
#include "arithmetic/nanos.h"

#include <cstdint>
#include <limits>

namespace ratelab {

// LimitWindow is "at most `limit` requests per `windowNanos`" (limit >= 0, windowNanos >= 1).
struct LimitWindow {
    std::int64_t limit = 0;
    Nanos windowNanos = 1;

    // overshoot returns maxInWindow / limit; 0 when nothing was admitted against a limit of 0 (a
    // product configured to refuse everything), infinity for anything admitted against it.
    double overshoot(std::int64_t maxInWindow) const
    {
        if (limit == 0)
            return maxInWindow == 0 ? 0.0 : std::numeric_limits<double>::infinity();
        return static_cast<double>(maxInWindow) / static_cast<double>(limit);
    }

    friend bool operator==(const LimitWindow&, const LimitWindow&) = default;
};

// ownLimit returns the limit and window row `a` is measured against: {config.limit(),
// config.windowNanos()} for a textbook algorithm, nginx_limit_req and a product given none of its
// options; otherwise the product's own (each product's rule is documented in own_limit.cpp). It
// builds the product, so it throws InputError for options the product refuses.
LimitWindow ownLimit(Algorithm a, const LimiterConfig& config);

} // namespace ratelab
