// Plain-word explanations of single decisions, for the playback panel.
//
// Each explanation is one line: the time, the algorithm, the state it found (from the limiter's
// exact integer state, replayed from the start), what it decided and why, and when to retry.
// Nothing is recomputed on the side: the replayed decision must agree with the trace's, field
// by field, or explain throws.
//
// Numbers are written so that they never contradict the decision next to them:
// - times and durations in seconds with at least three decimals, more when the value is not a
//   whole millisecond ("1.000 s", "2.333333334 s"), so a retry of 1 ns is not shown as 0.000 s;
//   durations that are not whole nanoseconds are rounded up, as semantics.md says. Window bounds
//   and W come from the configuration and are written exactly ("[0 s, 10 s)").
// - tokens, water and estimates with two decimals, rounded towards the side of the rule that
//   decides: tokens and the counter's estimate down (0.999999999 tokens is "0.99", and denied),
//   water up (9.000000001 is "9.01", and does not fit a bucket of 10).
// - a noun is singular exactly when the number before it is written as 1 ("1.00 token",
//   "0.50 tokens", "1 request waiting").
#pragma once

#include "engine/simulator.h"

#include <cstddef>
#include <string>

namespace ratelab {

// explain describes request `index` of result `row` in one line of plain words: the state the
// algorithm found, what it decided and why, and when to retry. It replays the row's algorithm
// from the start (O(index)). It throws std::out_of_range for a row or index outside the trace,
// and std::logic_error when the replayed decision disagrees with the trace's.
//
//   t = 1.000 s: token bucket: had 1.00 token (refilled 0.10 since the last request) -> admitted, 0.00 left
std::string explain(const Trace& trace, std::size_t row, std::size_t index);

// explainSeconds writes t as explanations do, without the unit: at least three decimals, and
// exact ("0.000", "1.000", "0.000000001", "2.333333334").
std::string explainSeconds(Nanos t);

} // namespace ratelab
