#include "view/served.h"

#include "view/reduce.h"

#include <algorithm>

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

// rankOf returns the nearest-rank q-quantile of sorted values: the ceil(q * n)-th, q in (0, 1]
// given as a fraction num / den so the rank is exact.
Nanos rankOf(const std::vector<Nanos>& sorted, std::int64_t num, std::int64_t den)
{
    const auto n = std::int64_t(sorted.size());
    const std::int64_t rank = (num * n + den - 1) / den; // ceil, at least 1 for n >= 1
    return sorted[std::size_t(std::max<std::int64_t>(rank, 1) - 1)];
}

} // namespace

ServedBuckets servedBuckets(std::span<const ServedAttempt> served, Nanos from, Nanos to, int buckets)
{
    ServedBuckets b;
    b.from = from;
    b.widthNanos = roundWidth(std::max<Nanos>(1, (to - from + buckets - 1) / buckets));
    const auto count = std::size_t(std::min<Nanos>(buckets, (to - from + b.widthNanos - 1) / b.widthNanos));
    b.served.assign(count, 0);
    b.inTime.assign(count, 0);
    std::vector<std::vector<Nanos>> latencies(count);
    for (const ServedAttempt& a : served) {
        if ((a.outcome != Outcome::InTime && a.outcome != Outcome::Late) || a.end < from || a.end >= to)
            continue;
        const auto k = std::size_t((a.end - from) / b.widthNanos);
        if (k >= count)
            continue;
        ++b.served[k];
        b.inTime[k] += a.outcome == Outcome::InTime ? 1 : 0;
        latencies[k].push_back(a.end - a.arrived);
    }
    b.p50.assign(count, 0);
    b.p99.assign(count, 0);
    for (std::size_t k = 0; k < count; ++k) {
        std::vector<Nanos>& l = latencies[k];
        if (l.empty())
            continue;
        std::sort(l.begin(), l.end());
        b.p50[k] = rankOf(l, 1, 2);
        b.p99[k] = rankOf(l, 99, 100);
    }
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

} // namespace ratelab
