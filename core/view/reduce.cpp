#include "view/reduce.h"

#include "view/column_reducer.h"

#include "engine/clients.h"

#include "engine/decide.h"
#include "limiters/limiters.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>
#include <type_traits>

namespace ratelab {

Nanos columnStart(Nanos fromNanos, Nanos toNanos, int columns, int k)
{
    return static_cast<Nanos>(fromNanos + Int128(toNanos - fromNanos) * k / columns);
}

// Flattened: decide, the window counter and the hooks inline into one loop per limiter, so the
// fields of a Decision a pass never reads (remaining, retry_after) are never computed.
#ifdef RATELAB_NO_FLATTEN // sanitizer builds (core/CMakeLists.txt)
#define RATELAB_FLATTEN
#else
#define RATELAB_FLATTEN [[gnu::flatten]]
#endif

namespace {

using detail::ColumnReducer;
using detail::OpenColumn;
using detail::OpenColumns;
using detail::HasDecidedLevel;
using detail::levelKeyAt;

// NoVerdicts is a WindowCounter's verdict reader where the arrivals' lookback counts the window,
// which never asks it.
struct NoVerdicts {
    bool operator()(std::size_t) const { return false; }
};

// reachColumn is ColumnReducer::reach for the fused pass, out of line: it runs about once a
// column, and an open column passed by reference to it would live in memory for the whole loop,
// so the pass hands it a copy. The limiter goes by reference: a copy would cost a log its entries
// at every column, and the reference costs the others 0 to 5%.
template <typename L, typename K>
[[gnu::noinline]] bool reachColumn(ColumnReducer& reducer, const L& limiter, OpenColumn<K>& open, Nanos t)
{
    return reducer.reach(limiter, open, t);
}

// reducePlain is simulateReduced's pass for the common row: cost 1, its window counted on the
// arrivals' lookback. It decides, keeps the verdict, counts the window and adds to the open
// column in one loop whose state is all locals: long because splitting the loop would take its
// state out of registers on the hottest path.
template <typename L>
[[gnu::noinline]] RATELAB_FLATTEN Metrics reducePlain(L& outside, std::span<const Nanos> arrivals,
                                                   const WindowLookback& lookback, ColumnReducer& reducer,
                                                   OpenColumns& opens, Verdict* verdicts, Checkpoints& checkpoints,
                                                   const std::atomic<bool>* cancel, WindowReach& reach)
{
    using K = decltype(levelKeyAt(outside, 0));
    OpenColumn<K> open = opens.of<L>();
    detail::WindowCounter window(arrivals, NoVerdicts{}, 0, &lookback);
    std::int64_t allowed = 0, delayed = 0, most = 0;
    std::size_t mostAt = 0;
    const Nanos from = reducer.from();
    bool closed = reducer.closed();
    const std::size_t n = arrivals.size();
    for (std::size_t block = 0; block < n; block += detail::kDecideBlock) {
        if (block % checkpoints.interval == 0)
            checkpoints.states.emplace_back(std::in_place_type<L>, outside);
        if (block % kCancelCheck == 0)
            throwIfCancelled(cancel);
        L limiter = std::move(outside);
        const std::size_t end = std::min(n, block + detail::kDecideBlock);
        for (std::size_t i = block; i < end; ++i) {
            const Nanos t = arrivals[i];
            bool inRange = t >= open.lo && t < open.hi;
            if (!inRange && t >= from && !closed) [[unlikely]] {
                OpenColumn<K> moved = open;
                inRange = reachColumn(reducer, limiter, moved, t);
                open = moved;
                closed = reducer.closed();
            }
            // A limiter that knows its level after a decision gives the level before from it:
            // asking at the time, twice, was a third of the log's pass and two divisions of the
            // fixed window's.
            const K before = !HasDecidedLevel<L> && inRange ? levelKeyAt(limiter, t) : K{};
            const Decision d = limiter.decide(t);
            const Verdict v = verdictOf(d);
            verdicts[i] = v;
            const std::int64_t inside = window.add(i, d.allowed);
            if (inside > most) [[unlikely]] { // first reached at an admitted request
                most = inside;
                mostAt = i;
            }
            allowed += d.allowed;
            delayed += std::uint8_t(v) & 1; // Delayed, without a branch
            if constexpr (HasDecidedLevel<L>) {
                const K after = limiter.decidedLevelUnits();
                if (inRange)
                    open.add(t, d.allowed ? K(after - limiter.admissionUnits()) : after, after, v);
            } else if (inRange) {
                open.add(t, before, levelKeyAt(limiter, t), v);
            }
        }
        outside = std::move(limiter);
    }
    opens.of<L>() = open;
    reducer.finish(outside, opens.of<L>());
    if (most > 0)
        reach = {most, arrivals[mostAt]};
    Metrics m;
    m.allowed = allowed;
    m.allowedCost = allowed;
    m.delayed = delayed;
    m.maxInWindow = most;
    m.memory = outside.memory();
    return m;
}

// GenericPass is what simulateReduced's generic pass shares with reduceGeneric.
struct GenericPass {
    std::span<const Nanos> arrivals;
    std::span<const std::int64_t> costs;
    const WindowLookback* lookback;
    ColumnReducer& reducer;
    OpenColumns& opens;
    Verdict* verdicts;
    Checkpoints& checkpoints;
    const std::atomic<bool>* cancel;
    WindowReach& reach;
};

// reduceGeneric is simulateReduced's pass for the other rows: costs, a product's own window, or no
// lookback. With the lookback, the reach over its W is counted beside the metrics' own window
// (which may be the product's). One function per limiter type, as reducePlain: flattening them all
// into one function made this file take GCC minutes.
template <typename L>
[[gnu::noinline]] RATELAB_FLATTEN Metrics reduceGeneric(L& outside, const LimiterConfig& config, Algorithm algorithm,
                                                     const GenericPass& p)
{
    const std::span<const Nanos> arrivals = p.arrivals;
    const std::span<const std::int64_t> costs = p.costs;
    Verdict* const verdicts = p.verdicts;
    WindowReach& reach = p.reach;
    OpenColumn<decltype(levelKeyAt(outside, 0))>& open = p.opens.of<L>();
    bool inRange = false;
    std::optional<detail::WindowCounter<NoVerdicts>> reachWindow;
    if (p.lookback)
        reachWindow.emplace(arrivals, NoVerdicts{}, 0, p.lookback, false, costs);
    return detail::decideAllOf(
        outside, config, algorithm, arrivals, costs, p.lookback,
        [&](const L& limiter, std::size_t i, const Decision& d) {
            verdicts[i] = verdictOf(d);
            if (reachWindow) {
                const std::int64_t inside = costs.empty() ? reachWindow->add(i, d.allowed) : reachWindow->addCost(i, d.allowed);
                // Only at an admitted request, as boundReach: a denied one's window holds no more
                // than the last admitted one's, so this only keeps the scan's definition plain.
                if (d.allowed && inside > reach.most) [[unlikely]]
                    reach = {inside, arrivals[i]};
            }
            if (inRange)
                open.add(arrivals[i], open.before, levelKeyAt(limiter, arrivals[i]), verdicts[i]);
        },
        [verdicts](std::size_t i) { return verdicts[i] != Verdict::Denied; },
        [&](const L& limiter, std::size_t i) { // every kDecideBlock requests; the interval is a multiple
            if (i % p.checkpoints.interval == 0)
                p.checkpoints.states.emplace_back(std::in_place_type<L>, limiter);
            if (i % kCancelCheck == 0)
                throwIfCancelled(p.cancel);
        },
        [&](const L& limiter, std::size_t i) {
            inRange = p.reducer.reach(limiter, open, arrivals[i]);
            if (inRange)
                open.before = levelKeyAt(limiter, arrivals[i]);
        },
        [&](const L& limiter) { p.reducer.finish(limiter, open); });
}

// decisionCost is the cost of decision i of row `row`: its request's (a retry costs what its
// request costs; with clients, decisions are attempts, not arrivals).
std::int64_t decisionCost(const Trace& trace, std::size_t row, std::size_t i)
{
    if (trace.costs.empty())
        return 1;
    const AlgorithmTrace& r = trace.results[row];
    return trace.costs[r.clients ? std::size_t((*r.log)[i].request) : i];
}

void setRequests(ReducedRow& out, std::span<const Nanos> t, Nanos fromNanos, Nanos toNanos)
{
    out.firstRequest = std::size_t(std::lower_bound(t.begin(), t.end(), fromNanos) - t.begin());
    out.endRequest = std::size_t(std::lower_bound(t.begin(), t.end(), toNanos) - t.begin());
}

} // namespace

std::size_t checkpointInterval(Algorithm algorithm, const LimiterConfig& config)
{
    // The log's state grows to L timestamps: a checkpoint every 4 L requests or more keeps its
    // copies under 2 bytes a request (4 with costs).
    // A power of two, at least decideAll's block, so checkpoints fall on the blocks' starts.
    static_assert(detail::kDecideBlock == 4096);
    constexpr std::size_t kInterval = detail::kDecideBlock;
    if (algorithm != Algorithm::SlidingWindowLog)
        return kInterval;
    const auto l = std::uint64_t(config.limit());
    return l >= (std::uint64_t(1) << 40) ? std::size_t(1) << 42 : std::bit_ceil(std::max<std::size_t>(kInterval, std::size_t(4 * l)));
}

ReducedResult simulateReduced(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                              std::span<const std::int64_t> costs, Nanos fromNanos, Nanos toNanos, int columns,
                              const std::atomic<bool>* cancel, const WindowLookback* lookback)
{
    ReducedResult out;
    AlgorithmTrace& r = out.trace;
    r.algorithm = algorithm;
    r.verdicts.resize(arrivals.size());
    auto checkpoints = std::make_shared<Checkpoints>();
    checkpoints->interval = checkpointInterval(algorithm, config);
    checkpoints->states.reserve(arrivals.size() / checkpoints->interval + 1);
    setRequests(out.row, arrivals, fromNanos, toNanos);
    ColumnReducer reducer(out.row, fromNanos, toNanos, columns);
    OpenColumns opens(fromNanos);
    Verdict* const verdicts = r.verdicts.data();
    WindowReach reach;
    const LimitWindow own = ownLimit(algorithm, config);
    if (costs.empty() && lookback && own.windowNanos == config.windowNanos()) {
        visitLimiter(algorithm, config, [&](auto& limiter) {
            r.metrics = reducePlain(limiter, arrivals, *lookback, reducer, opens, verdicts, *checkpoints, cancel, reach);
        });
        r.metrics.denied = static_cast<std::int64_t>(arrivals.size()) - r.metrics.allowed;
        r.metrics.overshoot = own.overshoot(r.metrics.maxInWindow);
        r.checkpoints = std::move(checkpoints);
        out.reach = reach;
        return out;
    }
    const GenericPass pass{arrivals, costs, lookback, reducer, opens, verdicts, *checkpoints, cancel, reach};
    r.metrics = visitLimiter(algorithm, config, [&](auto& limiter) { return reduceGeneric(limiter, config, algorithm, pass); });
    r.checkpoints = std::move(checkpoints);
    if (lookback)
        out.reach = reach;
    return out;
}

ReducedRow reduceRow(const Trace& trace, std::size_t row, Nanos fromNanos, Nanos toNanos, int columns,
                     const std::atomic<bool>* cancel)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const std::vector<Nanos>& t = timesOf(trace, row);
    ReducedRow out;
    setRequests(out, t, fromNanos, toNanos);
    ColumnReducer reducer(out, fromNanos, toNanos, columns);
    OpenColumns opens(fromNanos);
    if (!result.levelReplayable) { // no one limiter holds the state: the verdicts, no level
        out.levelPoints.clear();
        std::size_t i = out.firstRequest;
        for (int k = 0; k < columns; ++k) {
            const Nanos end = columnStart(fromNanos, toNanos, columns, k + 1);
            Column& c = out.columns[std::size_t(k)];
            for (; i < out.endRequest && t[i] < end; ++i) {
                const Verdict v = verdictAt(result, i);
                (v == Verdict::Denied ? c.denied : v == Verdict::Delayed ? c.delayed : c.admitted) += 1;
            }
        }
        return out;
    }
    visitLimiter(result.algorithm, result.levelConfig.value_or(trace.config), [&](auto& limiter) {
        auto& open = opens.of<std::decay_t<decltype(limiter)>>();
        for (std::size_t i = detail::restoreCheckpoint(limiter, result, out.firstRequest); i < out.endRequest; ++i) {
            if (i % kCancelCheck == 0)
                throwIfCancelled(cancel);
            const bool inRange = reducer.reach(limiter, open, t[i]);
            if (inRange)
                open.before = levelKeyAt(limiter, t[i]);
            const Decision d = limiter.decide(t[i], decisionCost(trace, row, i));
            if (inRange)
                open.add(t[i], open.before, levelKeyAt(limiter, t[i]), verdictOf(d));
        }
        reducer.finish(limiter, open);
    });
    return out;
}

std::vector<LevelPoint> levelAfter(const AnyLimiter& state, Nanos fromNanos, Nanos toNanos, int columns, Nanos clockAhead)
{
    // The columns of a row with no request left in them, as reduceRow closes them after its last.
    ReducedRow out;
    std::visit(
        [&](const auto& limiter) {
            detail::ColumnReducer reducer(out, fromNanos + clockAhead, toNanos + clockAhead, std::max(columns, 1));
            detail::OpenColumns opens(fromNanos + clockAhead);
            reducer.finish(limiter, opens.of<std::decay_t<decltype(limiter)>>());
        },
        state);
    if (clockAhead != 0)
        for (LevelPoint& p : out.levelPoints)
            p.seconds -= secondsAsDouble(clockAhead);
    return std::move(out.levelPoints);
}

double levelBefore(const Trace& trace, std::size_t row, std::size_t index)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const std::vector<Nanos>& t = timesOf(trace, row);
    return visitLimiter(result.algorithm, result.levelConfig.value_or(trace.config), [&](auto& limiter) {
        for (std::size_t i = detail::restoreCheckpoint(limiter, result, index); i < index; ++i)
            limiter.decide(t[i], decisionCost(trace, row, i));
        return limiter.levelAt(t.at(index));
    });
}

Decision decisionAt(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& result = trace.results.at(row);
    if (result.log)
        return result.log->at(i).decision();
    if (!result.checkpoints)
        return result.decisions.at(i);
    (void)result.verdicts.at(i); // out of range throws, as decisions.at does
    const std::vector<Nanos>& t = timesOf(trace, row);
    return visitLimiter(result.algorithm, trace.config, [&](auto& limiter) {
        std::size_t j = detail::restoreCheckpoint(limiter, result, i);
        for (; j < i; ++j)
            limiter.decide(t[j], decisionCost(trace, row, j));
        return limiter.decide(t[i], decisionCost(trace, row, i));
    });
}

} // namespace ratelab
