// Reducing a trace to what a chart of a given width can show.
//
// Drawing one point per request costs time in the number of requests; drawing per pixel column
// costs time in pixels. reduceRow splits a visible time range into columns and gives, per column,
// the admitted / delayed / denied counts and the first, min, max and last level (M4), from which
// a polyline that is exact to the pixel is built. Levels between requests are exact because the
// row's limiter is replayed and asked levelAt at every column edge; between two requests every
// level is monotone, so a column's extremes lie at its edges or just before and after a request.
#pragma once

#include "arithmetic/cancel.h"
#include "engine/simulator.h"
#include "limiters/any_limiter.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ratelab {

struct Column {
    std::int32_t admitted = 0; // admitted at once
    std::int32_t delayed = 0;  // admitted after a delay (queue)
    std::int32_t denied = 0;
    double levelFirst = 0, levelMin = 0, levelMax = 0, levelLast = 0;
};

// LevelPoint is one vertex of the level polyline, at time `seconds`.
struct LevelPoint {
    double seconds = 0;
    double level = 0;
};

struct ReducedRow {
    Nanos fromNanos = 0, toNanos = 0;
    std::vector<Column> columns;
    std::vector<LevelPoint> levelPoints; // at most about four per column
    std::size_t firstRequest = 0, endRequest = 0; // requests with time in [from, to)
};

// columnStart returns where column k of `columns` over [from, to) begins.
Nanos columnStart(Nanos fromNanos, Nanos toNanos, int columns, int k);

// reduceRow reduces result `row` of the trace over [fromNanos, toNanos) to `columns` columns
// (from < to, columns >= 1), replaying from the row's last checkpoint before `from` when it has them. A row whose level cannot be replayed gets its verdicts and no level
// points. firstRequest and endRequest index the row's own decisions (timesOf).
ReducedRow reduceRow(const Trace& trace, std::size_t row, Nanos fromNanos, Nanos toNanos, int columns,
                     const std::atomic<bool>* cancel = nullptr);

// levelAfter is the level of `state` left alone over [fromNanos, toNanos) in `columns` columns,
// as reduceRow draws a row's level past its last request (a bucket refilling, a window rolling),
// its points' times shifted by -clockAhead seconds: a node whose clock runs ahead of true time
// reads its state at true time + clockAhead.
std::vector<LevelPoint> levelAfter(const AnyLimiter& state, Nanos fromNanos, Nanos toNanos, int columns, Nanos clockAhead = 0);

// thinnedPoints is the polyline of the n points `at` gives (at(i), i < n, in time order) cut into
// `buckets` equal spans of [from, to) (seconds): of each span's points the first, the least, the
// most and the last, in time order (points outside [from, to) kept as they are). Drawn, it covers
// the pixels the whole line covers when a span is narrower than a pixel, with at most four
// vertices a span: a line of a hundred thousand vertices a node is stroked in milliseconds rather
// than seconds. A time that is not a number is kept as it is. The points are read through `at`,
// so a line in another form (the engine's, in nanoseconds) is thinned without being copied first.
template <typename At>
std::vector<LevelPoint> thinnedPoints(std::size_t n, At at, double from, double to, int buckets)
{
    std::vector<LevelPoint> out;
    out.reserve(std::min(n, 4 * std::size_t(std::max(buckets, 1)) + 4));
    const double width = (to - from) / buckets;
    const auto bucketOf = [&](double x) { return std::min<std::int64_t>(std::int64_t((x - from) / width), buckets - 1); };
    std::size_t i = 0;
    while (i < n) {
        const LevelPoint start = at(i);
        const double x = start.seconds;
        if (!(width > 0) || !(x >= from) || x >= to) { // outside the spans (or not a number): as it is
            out.push_back(start);
            ++i;
            continue;
        }
        const std::int64_t bucket = bucketOf(x);
        std::size_t j = i, least = i, most = i;
        double leastLevel = start.level, mostLevel = start.level;
        for (; j < n; ++j) {
            const LevelPoint q = at(j);
            if (!(q.seconds < to) || bucketOf(q.seconds) != bucket)
                break;
            if (q.level < leastLevel)
                least = j, leastLevel = q.level;
            if (q.level > mostLevel)
                most = j, mostLevel = q.level;
        }
        // first, least, most, last: in time order, each once
        const std::size_t keep[] = {i, std::min(least, most), std::max(least, most), j - 1};
        for (std::size_t k = 0; k < 4; ++k)
            if (k == 0 || keep[k] != keep[k - 1])
                out.push_back(at(keep[k]));
        i = j;
    }
    return out;
}

// ReducedResult is one plain row simulated and reduced in one pass: its compact trace (metrics,
// verdicts and checkpoints, no decisions) and its columns.
// WindowReach is the most admissions a row had in one window (t - W, t] ending at an admitted
// request (0 when none was admitted), and the time of the first request where it reached them.
struct WindowReach {
    std::int64_t most = 0;
    Nanos end = 0;
};

struct ReducedResult {
    AlgorithmTrace trace;
    ReducedRow row;
    std::optional<WindowReach> reach; // with a lookback: over its W (what boundReach scans for)
};

// checkpointInterval returns how many requests apart a row's checkpoints are kept.
std::size_t checkpointInterval(Algorithm algorithm, const LimiterConfig& config);

// simulateReduced runs one algorithm over the arrivals from a fresh state, as simulateOne does,
// and reduces it over [fromNanos, toNanos) to `columns` columns, as reduceRow does, in one pass
// that keeps no decision: one verdict byte a request and a checkpoint every checkpointInterval
// requests, from which decisionAt, levelBefore and reduceRow replay. It throws Cancelled once
// *cancel (when given) is true. lookback, when given, is the arrivals' (makeWindowLookback);
// then the pass also measures its reach over the lookback's W, branch-free, so a frame need not
// scan the verdicts again for the row's bound (boundReach).
ReducedResult simulateReduced(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                              std::span<const std::int64_t> costs, Nanos fromNanos, Nanos toNanos, int columns,
                              const std::atomic<bool>* cancel = nullptr, const WindowLookback* lookback = nullptr);

// levelBefore returns the level of result `row` just before its decision `index` was made. The
// row's level must be replayable (AlgorithmTrace::levelReplayable).
double levelBefore(const Trace& trace, std::size_t row, std::size_t index);

} // namespace ratelab
