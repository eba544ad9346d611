#include "view/reduce.h"

#include "engine/clients.h"

#include "engine/decide.h"
#include "limiters/limiters.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <type_traits>

namespace ratelab {

Nanos columnStart(Nanos fromNanos, Nanos toNanos, int columns, int k)
{
    return static_cast<Nanos>(fromNanos + Int128(toNanos - fromNanos) * k / columns);
}

namespace {

// A limiter that reports its level as the integer it is computed from (levelUnitsAt) is reduced
// in those units: a column's extremes are the extremes of its units, converted once when it
// closes, which gives the same doubles (the conversion never lowers a level as units grow).
// Any other limiter is reduced in its levels.
template <typename L>
concept HasLevelUnits = requires(const L& l, Nanos t) { l.levelFromUnits(l.levelUnitsAt(t)); };

template <typename L>
auto levelKeyAt(const L& limiter, Nanos t)
{
    if constexpr (HasLevelUnits<L>)
        return limiter.levelUnitsAt(t);
    else
        return limiter.levelAt(t);
}

template <typename L, typename K>
double levelOfKey(const L& limiter, K key)
{
    if constexpr (HasLevelUnits<L>)
        return limiter.levelFromUnits(key);
    else
        return key;
}

// OpenColumn is what the reduction touches for each request: the open column's bounds, counts
// and extreme levels (as keys: units or levels). The caller keeps it as a local, so the compiler
// holds it in registers; as the reducer's members (which the columns' doubles may alias) it went
// through memory.
template <typename K>
struct OpenColumn {
    Nanos lo = 0, hi = 0; // a request at lo <= t < hi falls in it; none before the first and after the last
    std::int32_t count = 0, delayed = 0, denied = 0;
    K levelMin{}, levelMax{};
    Nanos firstT = 0, lastT = 0;
    K firstBefore{}, firstAfter{}, lastAfter{};
    K before{}; // the level key just before the request being decided

    // add counts a request of this column: its time, its level keys just before and just after
    // its decision, and the decision.
    void add(Nanos t, K before, K after, const Decision& d)
    {
        if (count++ == 0) {
            firstT = t;
            firstBefore = before;
            firstAfter = after;
        }
        lastT = t;
        lastAfter = after;
        levelMin = std::min(levelMin, std::min(before, after));
        levelMax = std::max(levelMax, std::max(before, after));
        denied += !d.allowed;
        delayed += d.allowed & (d.delay > 0);
    }
};

// ColumnReducer reduces a row to columns as its requests go by in time order, with the limiter
// that decides them at hand: a column's levels are asked at its edges, when every request before
// the edge is decided and none after it. Requests before `from` pass through untouched.
// OpenColumns holds an open column for each kind of level key; a row's limiter uses one.
struct OpenColumns {
    explicit OpenColumns(Nanos fromNanos)
        : units{fromNanos, fromNanos}, counts{fromNanos, fromNanos}, levels{fromNanos, fromNanos}
    {
    }
    OpenColumn<Int128> units;
    OpenColumn<std::int64_t> counts;
    OpenColumn<double> levels;

    template <typename L>
    auto& of()
    {
        using K = decltype(levelKeyAt(std::declval<const L&>(), 0));
        if constexpr (std::is_same_v<K, Int128>)
            return units;
        else if constexpr (std::is_same_v<K, std::int64_t>)
            return counts;
        else
            return levels;
    }
};

class ColumnReducer {
public:
    ColumnReducer(ReducedRow& out, Nanos fromNanos, Nanos toNanos, int columns)
        : m_out(out), m_from(fromNanos), m_to(toNanos), m_columns(columns)
    {
        out.fromNanos = fromNanos;
        out.toNanos = toNanos;
        out.columns.resize(std::size_t(columns));
        out.levelPoints.reserve(4 * std::size_t(columns) + 8);
    }

    // reach closes every column that ends at or before t, the time of the next request, and
    // reports whether that request falls in a column (then `open` is that column).
    template <typename L, typename K>
    bool reach(const L& limiter, OpenColumn<K>& open, Nanos t)
    {
        if (t >= open.lo && t < open.hi) [[likely]]
            return true;
        if (t < m_from)
            return false;
        if (m_k < 0)
            start(limiter, open, 0);
        while (m_k < m_columns && t >= open.hi)
            next(limiter, open);
        return m_k < m_columns;
    }

    // finish closes the columns left once every request is decided.
    template <typename L, typename K>
    void finish(const L& limiter, OpenColumn<K>& open)
    {
        if (m_k < 0)
            start(limiter, open, 0);
        while (m_k < m_columns)
            next(limiter, open);
    }

private:
    template <typename L, typename K>
    void start(const L& limiter, OpenColumn<K>& open, int k)
    {
        m_k = k;
        open = OpenColumn<K>{};
        open.lo = columnStart(m_from, m_to, m_columns, k);
        open.hi = columnStart(m_from, m_to, m_columns, k + 1);
        open.levelMin = open.levelMax = levelKeyAt(limiter, open.lo);
        m_levelFirst = levelOfKey(limiter, open.levelMin);
    }

    template <typename L, typename K>
    void next(const L& limiter, OpenColumn<K>& open)
    {
        Column& c = m_out.columns[std::size_t(m_k)];
        c.admitted = open.count - open.delayed - open.denied;
        c.delayed = open.delayed;
        c.denied = open.denied;
        c.levelFirst = m_levelFirst;
        const K last = levelKeyAt(limiter, open.hi);
        c.levelLast = levelOfKey(limiter, last);
        c.levelMin = levelOfKey(limiter, std::min(open.levelMin, last));
        c.levelMax = levelOfKey(limiter, std::max(open.levelMax, last));
        const auto emit = [&](Nanos at, double level) { m_out.levelPoints.push_back({secondsAsDouble(at), level}); };
        // A column starts where the last ended, at the same level: one vertex serves both.
        const auto& points = m_out.levelPoints;
        if (points.empty() || points.back().seconds != secondsAsDouble(open.lo) || points.back().level != c.levelFirst)
            emit(open.lo, c.levelFirst);
        if (open.count == 1) { // one request: its own step, exactly where it is
            emit(open.firstT, levelOfKey(limiter, open.firstBefore));
            emit(open.firstT, levelOfKey(limiter, open.firstAfter));
        } else if (open.count > 1 && open.firstT == open.lastT) { // many at one instant: their steps there
            emit(open.firstT, levelOfKey(limiter, open.firstBefore));
            emit(open.firstT, levelOfKey(limiter, open.levelMax));
            emit(open.firstT, levelOfKey(limiter, open.levelMin));
            emit(open.firstT, levelOfKey(limiter, open.lastAfter));
        } else if (open.count > 1) { // many: the column's extremes, drawn as one vertical stroke
            const Nanos mid = open.lo + (open.hi - open.lo) / 2;
            emit(mid, c.levelMax);
            emit(mid, c.levelMin);
        }
        // A level that holds and then steps at the column's end (a window rolls, an entry
        // expires) steps there, not over the column: zoomed to nanoseconds a column is many
        // pixels wide. A level that moves on its own (a bucket refilling) keeps its slope.
        if (open.hi - 1 >= open.lo && open.hi - 1 >= (open.count ? open.lastT : open.lo)) {
            const K justBefore = levelKeyAt(limiter, open.hi - 1);
            if (justBefore != last && justBefore == (open.count ? open.lastAfter : open.levelMin))
                emit(open.hi, levelOfKey(limiter, justBefore));
        }
        emit(open.hi, c.levelLast);
        if (m_k + 1 < m_columns) {
            start(limiter, open, m_k + 1);
        } else {
            m_k = m_columns;
            open.lo = open.hi = m_to; // no request falls in a column any more
        }
    }

    ReducedRow& m_out;
    Nanos m_from, m_to;
    int m_columns;
    int m_k = -1; // the open column; -1 before the first, m_columns after the last
    double m_levelFirst = 0;
};

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

// Flattened: decide, the window counter and the hooks inline into one loop per limiter, so the
// fields of a Decision this pass never reads (remaining, retry_after) are never computed.
#ifdef RATELAB_NO_FLATTEN // sanitizer builds (core/CMakeLists.txt)
#define RATELAB_FLATTEN
#else
#define RATELAB_FLATTEN [[gnu::flatten]]
#endif
RATELAB_FLATTEN ReducedResult simulateReduced(const LimiterConfig& config, Algorithm algorithm,
                                               std::span<const Nanos> arrivals, std::span<const std::int64_t> costs,
                                               Nanos fromNanos, Nanos toNanos, int columns,
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
    bool inRange = false;
    // The reach over the lookback's W, as boundReach scans it from the verdicts: a ring of the
    // running count of admissions before each of the last `ring` requests (WindowCounter's way).
    const std::uint16_t* const back = lookback ? lookback->back.data() : nullptr;
    std::vector<std::uint32_t> ring(lookback ? lookback->ring : 0);
    const std::size_t mask = ring.empty() ? 0 : ring.size() - 1;
    std::uint32_t admittedBefore = 0;
    WindowReach reach;
    r.metrics = detail::decideAll(
        config, algorithm, arrivals, costs, lookback,
        [&](const auto& limiter, std::size_t i, const Decision& d) {
            verdicts[i] = verdictOf(d);
            if (back) {
                ring[i & mask] = admittedBefore;
                admittedBefore += d.allowed;
                // Modulo 2^32, as WindowCounter: a window's count (below 2^16) is the difference.
                const std::int64_t inside = std::uint32_t(admittedBefore - ring[(i - back[i]) & mask]);
                // Only at an admitted request, as boundReach: a denied one's window holds no more
                // than the last admitted one's, so this only keeps the scan's definition plain.
                if (d.allowed && inside > reach.most) [[unlikely]]
                    reach = {inside, arrivals[i]};
            }
            if (inRange) {
                auto& open = opens.of<std::decay_t<decltype(limiter)>>();
                open.add(arrivals[i], open.before, levelKeyAt(limiter, arrivals[i]), d);
            }
        },
        [verdicts](std::size_t i) { return verdicts[i] != Verdict::Denied; },
        [&](const auto& limiter, std::size_t i) { // every kDecideBlock requests; the interval is a multiple
            using L = std::decay_t<decltype(limiter)>;
            if (i % checkpoints->interval == 0)
                checkpoints->states.push_back(std::make_shared<const L>(limiter));
            if (i % kCancelCheck == 0 && cancel && cancel->load(std::memory_order_relaxed))
                throw Cancelled{};
        },
        [&](const auto& limiter, std::size_t i) {
            auto& open = opens.of<std::decay_t<decltype(limiter)>>();
            inRange = reducer.reach(limiter, open, arrivals[i]);
            if (inRange)
                open.before = levelKeyAt(limiter, arrivals[i]);
        },
        [&](const auto& limiter) { reducer.finish(limiter, opens.of<std::decay_t<decltype(limiter)>>()); });
    r.checkpoints = std::move(checkpoints);
    if (back)
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
            if (i % kCancelCheck == 0 && cancel && cancel->load(std::memory_order_relaxed))
                throw Cancelled{};
            const bool inRange = reducer.reach(limiter, open, t[i]);
            if (inRange)
                open.before = levelKeyAt(limiter, t[i]);
            const Decision d = limiter.decide(t[i], decisionCost(trace, row, i));
            if (inRange)
                open.add(t[i], open.before, levelKeyAt(limiter, t[i]), d);
        }
        reducer.finish(limiter, open);
    });
    return out;
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
