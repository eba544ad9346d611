// What a row draws beside its decisions, computed with the frame off the GUI thread: nginx's
// water as nginx holds it, and a client row's attempts in buckets. (The level lines of a row's
// states are the engine's own: RowRun::levels, level_lines.h.)
#pragma once

#include "engine/engine.h"
#include "limiters/products/own_limit.h"
#include "view/served.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ratelab {

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

// kMostClientsListed is the most clients whose shares a row lists one by one.
inline constexpr std::size_t kMostClientsListed = 8;

// servedByClient counts a row's run by client, indexed by client id (as many as the highest id
// seen + 1); empty when the run has no server (no outcome to count), no log, or a client id of
// `most` or more (a run of every request its own client stops at once).
std::vector<ClientServed> servedByClient(const RowRun& run, std::size_t most = kMostClientsListed);

// measuredAgainst is the limit and window row `a` is measured against: ownLimit (a product given
// its own options: its own), RateLab's L and W where the product refuses its options.
LimitWindow measuredAgainst(Algorithm a, const LimiterConfig& c);

// maxUnitsSoFar returns, for decisions 0..n of result `row`, prefix[i]: the most units admitted
// inside any interval (s - W, s] of the row's own W among its first i decisions (prefix[0] = 0),
// where a request's units are its cost. Saturates at 2^32 - 1.
std::vector<std::uint32_t> maxUnitsSoFar(const Trace& trace, std::size_t row);

// UnitsOvershoot is a row's overshoot counted in the units its limit counts (request costs): the
// most units in a window over the quota they are measured against.
struct UnitsOvershoot {
    std::uint32_t units = 0;
    std::int64_t quota = 0;
    double overshoot = 0;
};

// unitsOvershoot measures row `row` of a trace with costs (not a layered row): its most units in
// a window (maxUnitsSoFar's last) over the limit it is measured against (measuredAgainst: L, or
// a product's own), as Metrics::overshoot.
UnitsOvershoot unitsOvershoot(const Trace& trace, std::size_t row);

} // namespace ratelab
