#include "reduce.h"

#include "limiters.h"

#include <algorithm>

namespace ratelab {

Nanos columnStart(Nanos fromNanos, Nanos toNanos, int columns, int k)
{
    return static_cast<Nanos>(fromNanos + Int128(toNanos - fromNanos) * k / columns);
}

ReducedRow reduceRow(const Trace& trace, std::size_t row, Nanos fromNanos, Nanos toNanos, int columns)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const std::vector<Nanos>& t = timesOf(trace, row);
    ReducedRow out;
    out.fromNanos = fromNanos;
    out.toNanos = toNanos;
    out.columns.resize(columns);
    out.levelPoints.reserve(4 * static_cast<std::size_t>(columns) + 8);
    out.firstRequest = std::lower_bound(t.begin(), t.end(), fromNanos) - t.begin();
    out.endRequest = std::lower_bound(t.begin(), t.end(), toNanos) - t.begin();

    if (!result.levelReplayable) { // no one limiter holds the state: the verdicts, no level
        std::size_t i = out.firstRequest;
        for (int k = 0; k < columns; ++k) {
            const Nanos end = columnStart(fromNanos, toNanos, columns, k + 1);
            Column& c = out.columns[k];
            for (; i < out.endRequest && t[i] < end; ++i) {
                const Decision& d = result.decisions[i];
                (d.allowed ? (d.delay > 0 ? c.delayed : c.admitted) : c.denied) += 1;
            }
        }
        return out;
    }
    visitLimiter(result.algorithm, result.levelConfig.value_or(trace.config), [&](auto& limiter) {
        std::size_t i = 0;
        for (; i < out.firstRequest; ++i)
            limiter.decide(t[i], costOf(trace, i));
        const auto emit = [&](Nanos at, double level) { out.levelPoints.push_back({secondsAsDouble(at), level}); };
        for (int k = 0; k < columns; ++k) {
            const Nanos start = columnStart(fromNanos, toNanos, columns, k);
            const Nanos end = columnStart(fromNanos, toNanos, columns, k + 1);
            Column& c = out.columns[k];
            c.levelFirst = c.levelMin = c.levelMax = limiter.levelAt(start);
            const std::size_t begin = i;
            double firstBefore = 0, firstAfter = 0;
            for (; i < out.endRequest && t[i] < end; ++i) {
                const double before = limiter.levelAt(t[i]);
                const Decision d = limiter.decide(t[i], costOf(trace, i));
                if (i == begin) {
                    firstBefore = before;
                    firstAfter = d.level;
                }
                c.levelMin = std::min({c.levelMin, before, d.level});
                c.levelMax = std::max({c.levelMax, before, d.level});
                (d.allowed ? (d.delay > 0 ? c.delayed : c.admitted) : c.denied) += 1;
            }
            c.levelLast = limiter.levelAt(end);
            c.levelMin = std::min(c.levelMin, c.levelLast);
            c.levelMax = std::max(c.levelMax, c.levelLast);
            emit(start, c.levelFirst);
            if (i - begin == 1) { // one request: its own step, exactly where it is
                emit(t[begin], firstBefore);
                emit(t[begin], firstAfter);
            } else if (i - begin > 1) { // many: the column's extremes, drawn as one vertical stroke
                const Nanos mid = start + (end - start) / 2;
                emit(mid, c.levelMax);
                emit(mid, c.levelMin);
            }
            emit(end, c.levelLast);
        }
    });
    return out;
}

double levelBefore(const Trace& trace, std::size_t row, std::size_t index)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const std::vector<Nanos>& t = timesOf(trace, row);
    return visitLimiter(result.algorithm, result.levelConfig.value_or(trace.config), [&](auto& limiter) {
        for (std::size_t i = 0; i < index; ++i)
            limiter.decide(t[i], costOf(trace, i));
        return limiter.levelAt(t.at(index));
    });
}

} // namespace ratelab
