#include "reduce.h"

#include "decide.h"
#include "limiters.h"

#include <algorithm>
#include <memory>
#include <type_traits>

namespace ratelab {

Nanos columnStart(Nanos fromNanos, Nanos toNanos, int columns, int k)
{
    return static_cast<Nanos>(fromNanos + Int128(toNanos - fromNanos) * k / columns);
}

namespace {

// ColumnReducer reduces a row to columns as its requests go by in time order, with the limiter
// that decides them at hand: a column's levels are asked at its edges, when every request before
// the edge is decided and none after it. Requests before `from` pass through untouched.
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
    // reports whether that request falls in a column.
    template <typename L>
    bool reach(const L& limiter, Nanos t)
    {
        if (t < m_from)
            return false;
        if (m_k < 0)
            open(limiter, 0);
        while (m_k < m_columns && t >= m_end)
            next(limiter);
        return m_k < m_columns;
    }

    // add counts a request of the current column: its time, the level just before it and its decision.
    void add(Nanos t, double before, const Decision& d)
    {
        Column& c = m_out.columns[std::size_t(m_k)];
        if (m_count++ == 0) {
            m_firstT = t;
            m_firstBefore = before;
            m_firstAfter = d.level;
        }
        c.levelMin = std::min({c.levelMin, before, d.level});
        c.levelMax = std::max({c.levelMax, before, d.level});
        (d.allowed ? (d.delay > 0 ? c.delayed : c.admitted) : c.denied) += 1;
    }

    // finish closes the columns left once every request is decided.
    template <typename L>
    void finish(const L& limiter)
    {
        if (m_k < 0)
            open(limiter, 0);
        while (m_k < m_columns)
            next(limiter);
    }

private:
    template <typename L>
    void open(const L& limiter, int k)
    {
        m_k = k;
        m_start = columnStart(m_from, m_to, m_columns, k);
        m_end = columnStart(m_from, m_to, m_columns, k + 1);
        m_count = 0;
        Column& c = m_out.columns[std::size_t(k)];
        c.levelFirst = c.levelMin = c.levelMax = limiter.levelAt(m_start);
    }

    template <typename L>
    void next(const L& limiter)
    {
        Column& c = m_out.columns[std::size_t(m_k)];
        c.levelLast = limiter.levelAt(m_end);
        c.levelMin = std::min(c.levelMin, c.levelLast);
        c.levelMax = std::max(c.levelMax, c.levelLast);
        const auto emit = [&](Nanos at, double level) { m_out.levelPoints.push_back({secondsAsDouble(at), level}); };
        emit(m_start, c.levelFirst);
        if (m_count == 1) { // one request: its own step, exactly where it is
            emit(m_firstT, m_firstBefore);
            emit(m_firstT, m_firstAfter);
        } else if (m_count > 1) { // many: the column's extremes, drawn as one vertical stroke
            const Nanos mid = m_start + (m_end - m_start) / 2;
            emit(mid, c.levelMax);
            emit(mid, c.levelMin);
        }
        emit(m_end, c.levelLast);
        if (m_k + 1 < m_columns)
            open(limiter, m_k + 1);
        else
            m_k = m_columns;
    }

    ReducedRow& m_out;
    Nanos m_from, m_to;
    int m_columns;
    int m_k = -1; // the open column; -1 before the first, m_columns after the last
    Nanos m_start = 0, m_end = 0;
    std::size_t m_count = 0;
    Nanos m_firstT = 0;
    double m_firstBefore = 0, m_firstAfter = 0;
};

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
    constexpr std::size_t kInterval = 4096;
    if (algorithm != Algorithm::SlidingWindowLog)
        return kInterval;
    const auto l = std::uint64_t(config.limit());
    return l >= (std::uint64_t(1) << 40) ? std::size_t(1) << 42 : std::max<std::size_t>(kInterval, std::size_t(4 * l));
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
    Verdict* const verdicts = r.verdicts.data();
    bool inRange = false;
    double before = 0;
    std::size_t untilCheckpoint = 1; // a countdown: no division a request
    r.metrics = detail::decideAll(
        config, algorithm, arrivals, costs, lookback,
        [&](std::size_t i, const Decision& d) {
            verdicts[i] = verdictOf(d);
            if (inRange)
                reducer.add(arrivals[i], before, d);
        },
        [verdicts](std::size_t i) { return verdicts[i] != Verdict::Denied; },
        [&](const auto& limiter, std::size_t i) {
            using L = std::decay_t<decltype(limiter)>;
            if (--untilCheckpoint == 0) {
                checkpoints->states.push_back(std::make_shared<const L>(limiter));
                untilCheckpoint = checkpoints->interval;
            }
            if (i % kCancelCheck == 0 && cancel && cancel->load(std::memory_order_relaxed)) // a power of two: a mask
                throw Cancelled{};
            inRange = reducer.reach(limiter, arrivals[i]);
            if (inRange)
                before = limiter.levelAt(arrivals[i]);
        },
        [&](const auto& limiter) { reducer.finish(limiter); });
    r.checkpoints = std::move(checkpoints);
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
        for (std::size_t i = detail::restoreCheckpoint(limiter, result, out.firstRequest); i < out.endRequest; ++i) {
            if (i % kCancelCheck == 0 && cancel && cancel->load(std::memory_order_relaxed))
                throw Cancelled{};
            const bool inRange = reducer.reach(limiter, t[i]);
            const double before = inRange ? limiter.levelAt(t[i]) : 0;
            const Decision d = limiter.decide(t[i], costOf(trace, i));
            if (inRange)
                reducer.add(t[i], before, d);
        }
        reducer.finish(limiter);
    });
    return out;
}

double levelBefore(const Trace& trace, std::size_t row, std::size_t index)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const std::vector<Nanos>& t = timesOf(trace, row);
    return visitLimiter(result.algorithm, result.levelConfig.value_or(trace.config), [&](auto& limiter) {
        for (std::size_t i = detail::restoreCheckpoint(limiter, result, index); i < index; ++i)
            limiter.decide(t[i], costOf(trace, i));
        return limiter.levelAt(t.at(index));
    });
}

Decision decisionAt(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& result = trace.results.at(row);
    if (!result.checkpoints)
        return result.decisions.at(i);
    (void)result.verdicts.at(i); // out of range throws, as decisions.at does
    const std::vector<Nanos>& t = timesOf(trace, row);
    return visitLimiter(result.algorithm, trace.config, [&](auto& limiter) {
        std::size_t j = detail::restoreCheckpoint(limiter, result, i);
        for (; j < i; ++j)
            limiter.decide(t[j], costOf(trace, j));
        return limiter.decide(t[i], costOf(trace, i));
    });
}

} // namespace ratelab
