// KeyLevels: the level lines of a row whose state is not one limiter's (semantics.md, "Cluster"
// and "Clients that react"): one line per node of a local or split cluster, one for the store of
// a shared one, one per client key. Each is replayed exactly from the engine's log: a fresh
// limiter of the row's first layer, handed what that state was handed (a node its own clock, the
// store the latest clock it has seen), sampled between decisions so refills and window resets show.
// A racy cluster's line is its store as the writes land, a round trip after their reads (nodes
// decide on the copy they read, so they admit past it). A hybrid node's line is its own copy,
// jumping to the store's level at the sync tick before its next decision.
#pragma once

#include "engine/engine.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ratelab {

// KeyLevelPoint is the level of a line at a true time.
struct KeyLevelPoint {
    Nanos t = 0;
    double level = 0;
};

// KeyLevel is one line: what holds the state ("node 2", "store", "client 7"), how many attempts
// it decided, and its level over time, non-decreasing in t (a vertical step is two points at one t).
struct KeyLevel {
    std::string name;
    int index = 0;             // the node or client: a colour each
    std::int64_t attempts = 0;
    std::vector<KeyLevelPoint> points;
};

// KeyLevels are the lines drawn: the busiest `most` states by attempts (in index order), and how
// many more there were.
struct KeyLevels {
    std::vector<KeyLevel> lines;
    std::int64_t others = 0;
};

// keyLevels replays the row's log (costs: one per request, empty for all 1) into its lines, each
// with at most about `samplesPerGap` samples between two of its decisions. It returns no lines
// where they do not apply: a single limiter's row, per-client keys on a cluster, a policy of
// more than one layer, and racy or hybrid clusters with an outage, an empty start or a limit
// change (hybrid also with joins, leaves or autoscaling).
KeyLevels keyLevels(const EngineSetup& setup, const RowRun& run, std::span<const std::int64_t> costs, std::size_t most = 8,
                    int samplesPerGap = 24);

// NginxWater is nginx's excess over requests [first, end) of an nginx_limit_req row, in whole
// thousandths as nginx holds it: a vertex a request (the drain up to it, then + 1000 per
// request admitted), the drain to empty after the last, and what each rejection found (often
// 1/1000, where a level of 0 is drawn).
struct NginxWater {
    std::vector<KeyLevelPoint> points;                   // level in thousandths
    std::vector<std::pair<Nanos, std::int64_t>> leftovers; // a rejection's time and what it found
};

// nginxWater replays row `row` of the trace (nginx_limit_req over the arrivals) from its
// decisions: after an admission at ms nginx holds excess + 1000 * cost, and a request at ms'
// finds max(0, that - rate * (ms' - ms) / 1000), integer division (nginx_limit_req.h).
NginxWater nginxWater(const Trace& trace, std::size_t row, std::size_t first, std::size_t end);

// AttemptBuckets counts a client row's attempts in equal buckets of a time range: first
// attempts and retries apart, so a retry storm shows as the retries stacked on the requests.
struct AttemptBuckets {
    Nanos from = 0, widthNanos = 1;
    std::vector<std::int64_t> first, retries; // one per bucket
};

// attemptBuckets counts run's attempts in buckets of a round width (1, 2 or 5 times a power of
// ten ns) of at least (to - from) / buckets, from `from` on, as many as reach `to` (at most `buckets`).
AttemptBuckets attemptBuckets(const RowRun& run, Nanos from, Nanos to, int buckets);

} // namespace ratelab
