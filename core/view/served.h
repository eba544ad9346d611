// What a row's server did over time, reduced for a chart (issue 33): the served attempts
// (RowRun::served, one per decision) bucketed into latency percentiles and goodput, and the
// number in the system as a step line. The chart only draws these.
#pragma once

#include "server/server_stage.h"

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ratelab {

// ServedBuckets are equal buckets of a time range by when each served attempt left the server
// (its end): per bucket, the attempts served (in time or late), those served in time (goodput)
// and the nearest-rank p50 and p99 of their latency, end - arrived (0 in a bucket with none).
struct ServedBuckets {
    Nanos from = 0, widthNanos = 1;
    std::vector<std::int64_t> served, inTime;
    std::vector<Nanos> p50, p99;
};

// servedBuckets buckets the attempts served (InTime or Late) whose end lies in [from, to) in
// buckets of a round width (1, 2 or 5 times a power of ten ns) of at least (to - from) / buckets,
// from `from` on, as many as reach `to` (at most `buckets`; from < to, buckets >= 1). The
// percentile q of n latencies sorted is the ceil(q * n)-th.
ServedBuckets servedBuckets(std::span<const ServedAttempt> served, Nanos from, Nanos to, int buckets);

// inSystemSteps returns the number of attempts in the server (arrived, not yet left: in its
// queue or in service) from each time on, as (time, count) at every change, in time order: an
// attempt counts over [arrived, end). Rejected, refused and never admitted attempts never count.
std::vector<std::pair<Nanos, std::int64_t>> inSystemSteps(std::span<const ServedAttempt> served);

// OutcomeCounts are one pixel column's decisions by outcome, indexed by Outcome.
using OutcomeCounts = std::array<std::int32_t, 6>;

// outcomeColumns counts decisions [first, end) (times[i] their times, served[i] what became of
// them) in the `columns` columns of [from, to) that columnStart (reduce.h) splits it into, by
// outcome: what a strip too dense for a mark a decision colours its bars by.
std::vector<OutcomeCounts> outcomeColumns(std::span<const ServedAttempt> served, std::span<const Nanos> times,
                                          std::size_t first, std::size_t end, Nanos from, Nanos to, int columns);

// reachedServer is true for an attempt the server took in (queued or served).
inline bool reachedServer(Outcome o) { return o == Outcome::InTime || o == Outcome::Late || o == Outcome::QueueTimeout; }

} // namespace ratelab
