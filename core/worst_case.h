// Worst case: the most requests (of cost 1) an algorithm can admit in any trailing window
// (t - T, t] of length T, whatever the traffic (semantics.md, "Fleets and storms": "N per T" is
// not "at most N in any T"). Each bound is derived from the algorithm's rule, below; a property
// test checks no traffic exceeds it and worstTraffic reaches it.
//
// A window (t - T, t] holds the T instants t - T + 1 .. t (integer ns), so two of its requests
// are at most T - 1 apart.
//
// - fixed_window (L per W, windows [bW, (b+1)W)): T consecutive instants touch at most
//   ceil((T - 1) / W) + 1 windows (the first instant the last of a window), each admitting L:
//   L * (ceil((T - 1) / W) + 1). At T = W that is 2L: L at the end of one window, L at the start
//   of the next.
// - sliding_window_log: any (u - W, u] admits at most L, and (t - T, t] is covered by
//   ceil(T / W) such intervals: L * ceil(T / W). Reached by L at x, x + W, x + 2W, ...: an entry
//   at x has expired at x + W (it is kept while s > t - W).
// - token_bucket, leaky_bucket, leaky_bucket_queue, gcra (capacity C, rate r; the four admit the
//   same requests): between the first admission a and the last b of the window, at most C tokens
//   were there at a and r * (b - a) <= r * (T - 1) arrived: C + floor(r * (T - 1)). Reached from
//   a full bucket: C at once, then one each time a whole token has arrived. With C = 1 the cap
//   loses what a token overshoots at the whole ns it completes (every admission leaves exactly
//   0), so admissions are at least ceil(1 / r) apart: 1 + floor((T - 1) / ceil(1 / r)).
// - sliding_window_counter: cur never exceeds L in its window (E >= cur), so the fixed window's
//   bound holds. It is an upper bound, not always reached: a full previous window slows the
//   current one. At T = W it is reached (2L) when W > 2L ns: L at the last instant before a
//   boundary, then cur < L * e / W admits one more each W / L after it.
// - nginx_limit_req (rate r per second in thousandths, burst B, time in whole ms): each
//   admission adds 1000 to the excess and it may not pass 1000 * B; between two instants of the
//   window nginx's clock advances at most ceil((T - 1) / 1 ms) ms, draining at most r * ms / 1000
//   thousandths, and a new key's first request is admitted at excess 0:
//   B + 1 + floor(rate_thousandths_per_s * ceil((T - 1) / 1 ms) / 1,000,000). An upper bound.
// The product models have no bound here.
#pragma once

#include "config.h"
#include "limiter.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ratelab {

// WorstCase is a bound: at most `requests` admitted in any window of `windowNanos`.
struct WorstCase {
    std::int64_t requests = 0;
    Nanos windowNanos = 0;
    bool tight = true; // false: an upper bound that some T never reach
};

// worstCase returns algorithm a's bound for windows of length windowNanos (> 0) under config,
// or nullopt where none is derived (the product models).
std::optional<WorstCase> worstCase(Algorithm a, const LimiterConfig& config, Nanos windowNanos);

// worstTraffic returns arrival times (sorted) that make algorithm a admit exactly its bound
// within one window of length windowNanos, starting from a fresh limiter. It returns an empty
// vector where the bound is not tight. At most kMaxArrivals times; it throws InputError past that.
std::vector<Nanos> worstTraffic(Algorithm a, const LimiterConfig& config, Nanos windowNanos);

// maxInAnyWindow returns the most of `admitted` (sorted times) inside any (t - T, t].
std::int64_t maxInAnyWindow(const std::vector<Nanos>& admitted, Nanos windowNanos);

} // namespace ratelab
