#include "view/row_extras.h"

#include "limiters/algorithm_facts.h"
#include "limiters/any_limiter.h"
#include "limiters/products/product.h"
#include "limiters/nginx_limit_req.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>

namespace ratelab {

AttemptBuckets attemptBuckets(const RowRun& run, Nanos from, Nanos to, int buckets)
{
    AttemptBuckets b;
    b.from = from;
    // A round width (1, 2 or 5 times a power of ten ns) of at least (to - from) / buckets, so a
    // bar's count per second reads as a round rate.
    const Nanos least = std::max<Nanos>(1, Nanos((Int128(to - from) + buckets - 1) / buckets));
    Nanos width = 1;
    for (Nanos decade = 1;; decade *= 10) {
        if (decade >= least) { width = decade; break; }
        if (2 * decade >= least) { width = 2 * decade; break; }
        if (5 * decade >= least) { width = 5 * decade; break; }
        if (decade > std::numeric_limits<Nanos>::max() / 100) { width = least; break; }
    }
    b.widthNanos = width;
    buckets = int(std::min<Int128>((Int128(to - from) + width - 1) / width, buckets));
    b.first.assign(std::size_t(buckets), 0);
    b.retries.assign(std::size_t(buckets), 0);
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        if (a.t < from)
            continue;
        const Int128 k = Int128(a.t - from) / b.widthNanos;
        if (k >= buckets)
            continue;
        ++(a.attempt == 0 ? b.first : b.retries)[std::size_t(k)];
    }
    return b;
}

std::vector<ClientServed> servedByClient(const RowRun& run, std::size_t most)
{
    std::vector<ClientServed> by;
    if (!run.server || run.served.size() != run.log.size())
        return by;
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        if (a.client < 0)
            continue;
        if (std::size_t(a.client) >= most)
            return {};
        if (std::size_t(a.client) >= by.size())
            by.resize(std::size_t(a.client) + 1);
        ClientServed& c = by[std::size_t(a.client)];
        c.requests += a.attempt == 0;
        c.inTime += run.served[i].outcome == Outcome::InTime;
    }
    return by;
}

NginxWater nginxWater(const Trace& trace, std::size_t row, std::size_t first, std::size_t end)
{
    NginxWater water;
    const std::int64_t rate = nginxRateThousandths(trace.config.rate());
    constexpr Nanos kMs = 1'000'000;
    std::optional<std::pair<std::int64_t, std::int64_t>> held; // (thousandths after the admission, ms)
    const auto heldAt = [&](std::int64_t ms) {
        const std::int64_t drained = std::int64_t(Int128(rate) * (ms - held->second) / 1000);
        return std::max<std::int64_t>(0, held->first - drained);
    };
    const auto emptyAt = [&] { return held->second + (rate > 0 ? (held->first * 1000 + rate - 1) / rate : 0); };
    for (std::size_t i = first; i < end; ++i) {
        const Nanos t = trace.arrivals[i];
        const std::int64_t ms = t / kMs;
        const Decision d = decisionAt(trace, row, i);
        if (held) { // the drain up to this request, a vertex a millisecond
            const std::int64_t before = heldAt(ms);
            if (before == 0 && emptyAt() < ms)
                water.points.push_back({emptyAt() * kMs, 0});
            water.points.push_back({ms * kMs, double(before)});
            if (!d.allowed)
                water.leftovers.emplace_back(t, before);
        }
        if (d.allowed) {
            held = {std::llround(d.level * 1000) + 1000 * costOf(trace, i), ms};
            water.points.push_back({ms * kMs, double(held->first)});
        }
    }
    if (held) // the drain after the last, to empty
        water.points.push_back({emptyAt() * kMs, 0});
    return water;
}

LimitWindow measuredAgainst(Algorithm a, const LimiterConfig& c)
{
    try {
        return ownLimit(a, c);
    } catch (const InputError&) {
        return {c.limit(), c.windowNanos()};
    }
}

std::vector<std::uint32_t> maxUnitsSoFar(const Trace& trace, std::size_t row)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const auto& times = timesOf(trace, row);
    const Nanos w = measuredAgainst(result.algorithm, trace.config).windowNanos;
    const bool costs = !trace.costs.empty();
    const std::size_t n = times.size();
    // One byte a decision, admitted or not, read once: the compact verdicts where the row keeps them.
    std::vector<std::uint8_t> in(n);
    for (std::size_t i = 0; i < n; ++i)
        in[i] = verdictAt(result, i) != Verdict::Denied;
    // Each decision's units: its request's cost (a retry costs what its request costs), as the
    // engine's max_in_window counts them.
    std::vector<std::int64_t> cost;
    if (costs) {
        cost.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            cost[i] = trace.costs[result.kind.attempts ? std::size_t((*result.log)[i].request) : i];
    }
    std::vector<std::uint32_t> prefix(n + 1, 0);
    // Two pointers over the decisions: the units admitted inside (t_i - W, t_i].
    std::size_t head = 0;
    std::int64_t inside = 0, best = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (in[i]) {
            inside += costs ? cost[i] : 1;
            for (; times[head] <= times[i] - w; ++head)
                inside -= in[head] ? (costs ? cost[head] : 1) : 0;
            best = std::max(best, inside);
        }
        prefix[i + 1] = std::uint32_t(std::min<std::int64_t>(best, std::numeric_limits<std::uint32_t>::max()));
    }
    return prefix;
}

UnitsOvershoot unitsOvershoot(const Trace& trace, std::size_t row)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const LimitWindow limit = measuredAgainst(result.algorithm, trace.config);
    UnitsOvershoot out;
    out.units = maxUnitsSoFar(trace, row).back();
    out.quota = limit.limit; // what overshoot divides by (semantics.md): the row's own limit
    out.overshoot = LimitWindow{out.quota, limit.windowNanos}.overshoot(out.units);
    return out;
}

} // namespace ratelab
