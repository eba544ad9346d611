#include "view/served.h"

#include "view/reduce.h"

#include "server/gate.h"

#include <algorithm>
#include <cstdint>

namespace ratelab {

namespace {

// roundWidth returns the least of 1, 2 or 5 times a power of ten ns that is at least `least`.
Nanos roundWidth(Nanos least)
{
    for (Nanos p = 1;; p *= 10) {
        for (Nanos m : {1, 2, 5})
            if (p * m >= least)
                return p * m;
        if (p > kMaxNanos / 100)
            return kMaxNanos;
    }
}

// rankIndex returns the index in n sorted values of their nearest-rank q-quantile: the
// ceil(q * n)-th, q in (0, 1] given as a fraction num / den so the rank is exact (n >= 1).
std::size_t rankIndex(std::size_t n, std::int64_t num, std::int64_t den)
{
    const std::int64_t rank = (num * std::int64_t(n) + den - 1) / den; // ceil, at least 1 for n >= 1
    return std::size_t(std::max<std::int64_t>(rank, 1) - 1);
}

// emptyBuckets returns servedBuckets' buckets of [from, to) with nothing in them.
ServedBuckets emptyBuckets(Nanos from, Nanos to, int buckets)
{
    ServedBuckets b;
    b.from = from;
    b.widthNanos = roundWidth(std::max<Nanos>(1, (to - from + buckets - 1) / buckets));
    const auto count = std::size_t(std::min<Nanos>(buckets, (to - from + b.widthNanos - 1) / b.widthNanos));
    b.served.assign(count, 0);
    b.inTime.assign(count, 0);
    b.p50.assign(count, 0);
    b.p99.assign(count, 0);
    return b;
}

// ServedTally adds served attempts to buckets and keeps each bucket's latencies for its
// percentiles, which finish() picks with nth_element: no bucket is ever sorted.
class ServedTally {
public:
    ServedTally(ServedBuckets& b, Nanos to)
        : m_b(b)
        , m_to(to)
        , m_latencies(b.served.size())
    {
    }
    void add(const ServedAttempt& a)
    {
        if ((a.outcome != Outcome::InTime && a.outcome != Outcome::Late) || a.end < m_b.from || a.end >= m_to)
            return;
        const auto k = std::size_t((a.end - m_b.from) / m_b.widthNanos);
        if (k >= m_latencies.size())
            return;
        ++m_b.served[k];
        m_b.inTime[k] += a.outcome == Outcome::InTime ? 1 : 0;
        m_latencies[k].push_back(a.end - a.arrived);
    }
    void finish()
    {
        for (std::size_t k = 0; k < m_latencies.size(); ++k) {
            std::vector<Nanos>& l = m_latencies[k];
            if (l.empty())
                continue;
            const auto p50 = l.begin() + std::ptrdiff_t(rankIndex(l.size(), 1, 2));
            const auto p99 = l.begin() + std::ptrdiff_t(rankIndex(l.size(), 99, 100));
            std::nth_element(l.begin(), p50, l.end());
            m_b.p50[k] = *p50; // read now: the next nth_element reorders [p50, end), p50's place too
            std::nth_element(p50, p99, l.end()); // p99 >= p50: the rest holds it
            m_b.p99[k] = *p99;
        }
    }

private:
    ServedBuckets& m_b;
    Nanos m_to; // the range's end
    std::vector<std::vector<Nanos>> m_latencies;
};

} // namespace

ServedBuckets servedBuckets(std::span<const ServedAttempt> served, Nanos from, Nanos to, int buckets)
{
    ServedBuckets b = emptyBuckets(from, to, buckets);
    ServedTally tally(b, to);
    for (const ServedAttempt& a : served)
        tally.add(a);
    tally.finish();
    return b;
}

std::vector<std::pair<Nanos, std::int64_t>> inSystemSteps(std::span<const ServedAttempt> served)
{
    std::vector<std::pair<Nanos, int>> deltas; // +1 at arrival, -1 at the end
    for (const ServedAttempt& a : served)
        if (reachedServer(a.outcome) && a.end > a.arrived) {
            deltas.emplace_back(a.arrived, 1);
            deltas.emplace_back(a.end, -1);
        }
    std::sort(deltas.begin(), deltas.end()); // at one time the leaving (-1) first
    std::vector<std::pair<Nanos, std::int64_t>> steps;
    std::int64_t n = 0;
    for (std::size_t i = 0; i < deltas.size();) {
        const Nanos t = deltas[i].first;
        for (; i < deltas.size() && deltas[i].first == t; ++i)
            n += deltas[i].second;
        if (steps.empty() || steps.back().second != n)
            steps.emplace_back(t, n);
    }
    return steps;
}

std::vector<OutcomeCounts> outcomeColumns(std::span<const ServedAttempt> served, std::span<const Nanos> times,
                                          std::size_t first, std::size_t end, Nanos from, Nanos to, int columns)
{
    std::vector<OutcomeCounts> out(std::size_t(columns), OutcomeCounts{});
    std::vector<Nanos> starts(std::size_t(columns) + 1);
    for (int k = 0; k <= columns; ++k)
        starts[std::size_t(k)] = k == columns ? to : columnStart(from, to, columns, k);
    end = std::min({end, served.size(), times.size()});
    for (std::size_t i = first; i < end; ++i) {
        if (times[i] < from || times[i] >= to)
            continue;
        const auto k = std::size_t(std::upper_bound(starts.begin(), starts.end(), times[i]) - starts.begin()) - 1;
        if (k < out.size())
            ++out[k][std::size_t(served[i].outcome)];
    }
    return out;
}

namespace {

// clippedLimits returns the gate's limit steps (the unlimited ones dropped) from where its line
// starts, the later of `from` and its first change, with the limit in force there, to `to`.
Steps clippedLimits(std::span<const std::pair<Nanos, std::int64_t>> limits, Nanos from, Nanos to)
{
    Steps out;
    Nanos start = 0;
    for (const auto& [t, v] : limits) {
        if (v == Gate::kUnlimited)
            continue;
        if (out.empty())
            start = std::max(t, from);
        if (t <= start) // the limit in force where the line starts
            out.assign(1, {start, v});
        else if (t <= to)
            out.emplace_back(t, v);
    }
    return out;
}

// StepLine collects a line's steps in time order, each a change of value. A line of more than
// kThinAbove changes a column (of `columns` equal columns of [from, to)) is thinned as it comes:
// in each column only the first change to the column's highest value, the first to its lowest
// and the last change are kept, so the line reaches the same extremes in every column and ends
// each column at the same value, in at most three changes a column; a change to the value already
// in force is dropped. Thinning as the steps come keeps a line of millions of changes from being
// built whole only to be cut to the pixel.
class StepLine {
public:
    StepLine(Nanos from, Nanos to, int columns)
        : m_from(from)
        , m_to(to)
        , m_columns(columns)
        , m_most(columns > 0 ? kThinAbove * std::size_t(columns) : SIZE_MAX)
        , m_end(columnEnd(0))
    {
    }

    void push(Nanos t, std::int64_t v)
    {
        if (m_count++ == 0) { // where the line starts: kept as it is
            m_exact.emplace_back(t, v);
            m_thin.emplace_back(t, v);
            return;
        }
        if (!m_overflow) {
            m_exact.emplace_back(t, v);
            if (m_exact.size() > m_most) {
                m_overflow = true;
                Steps().swap(m_exact);
            }
        }
        while (m_column < m_columns && t >= m_end) {
            flush();
            m_end = columnEnd(++m_column);
        }
        const Step step{{t, v}, m_count};
        if (!m_group) {
            m_high = m_low = step;
            m_group = true;
        }
        m_high = v > m_high.at.second ? step : m_high;
        m_low = v < m_low.at.second ? step : m_low;
        m_last = step;
    }

    Steps finish()
    {
        if (!m_overflow)
            return std::move(m_exact);
        flush();
        return std::move(m_thin);
    }

private:
    struct Step {
        std::pair<Nanos, std::int64_t> at;
        std::size_t order = 0;
    };
    Nanos columnEnd(int k) const { return k >= m_columns ? kMaxNanos : columnStart(m_from, m_to, m_columns, k + 1); }
    void flush()
    {
        if (!m_group)
            return;
        const bool highFirst = m_high.order <= m_low.order;
        for (const Step* kept : {highFirst ? &m_high : &m_low, highFirst ? &m_low : &m_high, &m_last})
            if (kept->at.second != m_thin.back().second)
                m_thin.push_back(kept->at);
        m_group = false;
    }

    Nanos m_from, m_to;
    int m_columns;
    std::size_t m_most; // the most changes kept exact
    Nanos m_end;        // where the column being grouped ends
    int m_column = 0;
    std::size_t m_count = 0;
    bool m_overflow = false, m_group = false;
    Step m_high, m_low, m_last; // the column's group so far
    Steps m_exact, m_thin;
};

// inSystemFrom gives `line` the number in the server at `from` and its steps after it up to
// `to`, from the arrivals and departures in (from, to] (each in any order; sorted here).
void inSystemFrom(std::int64_t atFrom, Nanos from, std::vector<Nanos>& arrivals, std::vector<Nanos>& departures,
                  StepLine& line)
{
    if (!std::is_sorted(arrivals.begin(), arrivals.end())) // in decision order they mostly are
        std::sort(arrivals.begin(), arrivals.end());
    std::sort(departures.begin(), departures.end());
    line.push(from, atFrom);
    std::int64_t n = atFrom, drawn = atFrom;
    auto in = arrivals.begin();
    auto out = departures.begin();
    while (in != arrivals.end() || out != departures.end()) {
        const Nanos t = out == departures.end() || (in != arrivals.end() && *in < *out) ? *in : *out;
        for (; in != arrivals.end() && *in == t; ++in)
            ++n;
        for (; out != departures.end() && *out == t; ++out)
            --n;
        if (drawn != n) {
            line.push(t, n);
            drawn = n;
        }
    }
}

} // namespace

ServerView serverView(std::span<const ServedAttempt> served, std::span<const Nanos> times, const ReducedRow& row,
                      std::span<const std::pair<Nanos, std::int64_t>> limits, bool gate, Nanos from, Nanos to,
                      const std::atomic<bool>* cancel)
{
    ServerView v;
    v.gate = gate;
    v.buckets = emptyBuckets(from, to, kServedBuckets);
    ServedTally tally(v.buckets, to);
    // The strip's columns: a decision's column found by a cursor, as decisions come in time order.
    const int columns = int(row.columns.size());
    v.columns.assign(std::size_t(columns), OutcomeCounts{});
    std::vector<Nanos> starts(std::size_t(columns) + 1);
    for (int k = 0; k <= columns; ++k)
        starts[std::size_t(k)] = k == columns ? row.toNanos : columnStart(row.fromNanos, row.toNanos, columns, k);
    const std::size_t first = row.firstRequest, end = std::min({row.endRequest, served.size(), times.size()});
    std::size_t column = 0;
    // The attempts in the server: those in it at `from`, and the arrivals and departures after.
    std::int64_t atFrom = 0;
    std::vector<Nanos> arrivals, departures;
    if (gate) { // room for every attempt: untouched room costs no memory, a doubling copies
        arrivals.reserve(served.size());
        departures.reserve(served.size());
    }
    for (std::size_t i = 0; i < served.size(); ++i) {
        if (i % kCancelCheck == 0)
            throwIfCancelled(cancel);
        const ServedAttempt& a = served[i];
        tally.add(a);
        if (i >= first && i < end && columns > 0 && times[i] >= row.fromNanos && times[i] < row.toNanos) {
            if (times[i] < starts[column]) // out of order: look it up
                column = 0;
            while (starts[column + 1] <= times[i])
                ++column;
            ++v.columns[column][std::size_t(a.outcome)];
        }
        if (gate && reachedServer(a.outcome) && a.end > a.arrived) { // in it over [arrived, end)
            if (a.arrived <= from)
                atFrom += a.end > from ? 1 : 0;
            else if (a.arrived <= to)
                arrivals.push_back(a.arrived);
            if (a.end > from && a.end <= to)
                departures.push_back(a.end);
        }
    }
    tally.finish();
    if (gate) {
        // Lines of more changes than the chart has pixels are thinned to the pixel (a line of
        // millions of vertices stalls the GUI thread that fills it); lighter ones stay exact.
        StepLine limitLine(from, to, columns), inSystemLine(from, to, columns);
        for (const auto& [t, value] : clippedLimits(limits, from, to))
            limitLine.push(t, value);
        inSystemFrom(atFrom, from, arrivals, departures, inSystemLine);
        v.limits = limitLine.finish();
        v.inSystem = inSystemLine.finish();
    }
    return v;
}

} // namespace ratelab
