// What a row's server did over time, reduced for a chart: the served attempts
// (RowRun::served, one per decision) bucketed into latency percentiles and goodput, and the
// number in the system as a step line. The chart only draws these.
#pragma once

#include "server/server_stage.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ratelab {

struct ReducedRow; // view/reduce.h

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

// Steps are a count over time as (time, count) at every change, in time order.
using Steps = std::vector<std::pair<Nanos, std::int64_t>>;

// ServerView is a row's server as its chart draws it over a frame's range [from, to), made with
// the frame on the simulation's threads so the chart only draws: the served attempts'
// buckets (servedBuckets), the strip's columns by outcome (outcomeColumns) and, on a concurrency
// limiter's row (`gate`), its limit (the unlimited steps dropped) and the attempts in the server
// (inSystemSteps), each cut to the range: the first step is the value in force where the line
// starts (`from`, or the limit's first change if later), the others each change up to `to`.
// A line of more than kThinAbove changes a strip column on average is thinned: in each column
// only the first change to its highest value, the first to its lowest and its last are kept (the
// same extremes and the same value at each column's end, drawn in a few vertices a pixel).
// ClientServed is one client's requests (first attempts) and those of its attempts the server
// served in time: what a lesson about clients' shares (APF, cohorts) reads per client.
struct ClientServed {
    std::int64_t requests = 0, inTime = 0;
};

struct ServerView {
    ServedBuckets buckets;
    std::vector<OutcomeCounts> columns;
    bool gate = false;
    Steps limits, inSystem;
    std::vector<ClientServed> byClient; // the whole run's, by client id (servedByClient)
};

// kServedBuckets is how many buckets of the range a chart's latency band and goodput bars have.
inline constexpr int kServedBuckets = 60;
// kThinAbove is how many changes a strip column a gate row's line may have on average and be
// drawn exactly (ServerView).
inline constexpr std::size_t kThinAbove = 4;

// serverView makes a row's ServerView in one pass over its served attempts (plus a sort of the
// departures inside the range on a gate row): `times` are its decisions' times, `row` its
// reduction (the strip's columns, over its own range, which thin the lines), `limits` the gate's
// limit over time.
// It throws Cancelled (reduce.h) once *cancel (when given) is true.
ServerView serverView(std::span<const ServedAttempt> served, std::span<const Nanos> times, const ReducedRow& row,
                      std::span<const std::pair<Nanos, std::int64_t>> limits, bool gate, Nanos from, Nanos to,
                      const std::atomic<bool>* cancel = nullptr);

// reachedServer is true for an attempt the server took in (queued or served).
inline bool reachedServer(Outcome o) { return o == Outcome::InTime || o == Outcome::Late || o == Outcome::QueueTimeout; }

} // namespace ratelab
