// The worst case: the most requests (of cost 1) an algorithm can admit in any trailing window
// (t - T, t] of length T, for any T, and the arrivals that reach it. "N per T" is not "at most N
// in any T": a fixed window admits 2L across a boundary, a token bucket C plus what refills.
// core/limiters/worst_case.cpp derives each bound by hand from semantics.md.
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"
#include "arithmetic/nanos.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace ratelab {

// worstCaseBound returns the most requests of cost 1 that one limiter of algorithm a (one key, one
// node) admits in any window (t - T, t] of length windowNanos >= 1 ns, whatever the traffic; or
// nothing for the products (no closed form here). A bound beyond int64 is returned as INT64_MAX.
// For nginx_limit_req it is an upper bound that worstCaseTight says when is reached.
std::optional<std::int64_t> worstCaseBound(Algorithm a, const LimiterConfig& config, Nanos windowNanos);

// worstCaseTight is true when worstArrivals(a, config, T) makes the limiter admit exactly
// worstCaseBound in one window of length T. It is false for the products, for
// sliding_window_counter when L >= W in ns and two windows or more must be full, and for
// nginx_limit_req unless its rate is a whole number r per second that divides 1000.
bool worstCaseTight(Algorithm a, const LimiterConfig& config, Nanos windowNanos);

// worstArrivals returns the arrivals that reach the bound of algorithm a in a window of length
// windowNanos (for a product or a bound that is not tight: the same shape, as close as it comes).
// It throws InputError for a window below 1 ns, more than kMaxArrivals requests or a time beyond
// the range of Nanos.
std::vector<Nanos> worstArrivals(Algorithm a, const LimiterConfig& config, Nanos windowNanos);

} // namespace ratelab
