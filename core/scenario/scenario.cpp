#include "scenario/scenario.h"

#include "limiters/algorithm_facts.h"
#include "arithmetic/decimal.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>

namespace ratelab {

void checkDurations(const LimiterConfig& c, std::span<const Algorithm> algorithms)
{
    const auto uses = [&](ConfigUse u) {
        return std::any_of(algorithms.begin(), algorithms.end(), [u](Algorithm a) { return facts(a).reads == u; });
    };
    const std::string longest = formatSeconds(kMaxNanos) + " s, about 292 years";
    // The sliding window counter may ask a client to wait until the next window's estimate drops
    // below L: up to 2W.
    if (std::find(algorithms.begin(), algorithms.end(), Algorithm::SlidingWindowCounter) != algorithms.end()
        && Int128(c.windowNanos()) * 2 - 1 > kMaxNanos)
        throw InputError("window " + formatSeconds(c.windowNanos()) + " s is too long for the sliding window counter, "
                         "whose retry_after reaches twice the window: at most " + formatSeconds(kMaxNanos / 2 + 1)
                         + " s");
    // A bucket drains or refills in capacity / rate: the longest queue delay and retry_after.
    if (uses(ConfigUse::CapacityRate) && Int128(c.capacity()) * c.rate().perNanos > Int128(kMaxNanos) * c.rate().tokens)
        throw InputError("capacity / rate is longer than the longest duration RateLab reports (" + longest
                         + "): a queue delay or retry_after could not be written; raise the rate or lower the capacity");
}

namespace {

// withAdded returns the arrivals with the scenario's added ones merged in, refusing too many.
std::vector<Nanos> withAdded(const Scenario& s, std::vector<Nanos> arrivals)
{
    if (!s.addedArrivals.empty()) {
        const auto middle = arrivals.insert(arrivals.end(), s.addedArrivals.begin(), s.addedArrivals.end());
        std::sort(middle, arrivals.end());
        std::inplace_merge(arrivals.begin(), middle, arrivals.end());
    }
    if (static_cast<std::int64_t>(arrivals.size()) > kMaxArrivals)
        throw InputError("at most " + std::to_string(kMaxArrivals) + " requests per scenario");
    return arrivals;
}

} // namespace

std::vector<Nanos> resolveArrivals(const Scenario& s)
{
    checkDurations(s.config, s.algorithms);
    checkRequestColumns(s);
    return withAdded(s, s.explicitArrivals ? *s.explicitArrivals : generateArrivals(s.pattern, s.config));
}

std::vector<Nanos> resolveArrivals(Scenario&& s)
{
    checkDurations(s.config, s.algorithms);
    checkRequestColumns(s);
    return withAdded(s, s.explicitArrivals ? std::move(*s.explicitArrivals) : generateArrivals(s.pattern, s.config));
}

std::vector<std::int64_t> resolveCosts(const Scenario& s)
{
    if (s.cost < 1 || s.cost > kMaxCost)
        throw InputError("cost must be 1 to " + std::to_string(kMaxCost) + " (got " + std::to_string(s.cost) + ")");
    const bool perRequest = s.explicitArrivals && !s.explicitCosts.empty();
    if (s.cost == 1 && !perRequest)
        return {};
    // The same merge as resolveArrivals: explicit (or generated) times first, then the added ones
    // sorted; a stable merge keeps equal times in that order, so each cost follows its time.
    std::vector<std::pair<Nanos, std::int64_t>> all;
    if (s.explicitArrivals) {
        if (perRequest && s.explicitCosts.size() != s.explicitArrivals->size())
            throw InputError("one cost per arrival is needed");
        for (std::size_t i = 0; i < s.explicitArrivals->size(); ++i) {
            const std::int64_t c = perRequest && s.explicitCosts[i] != 0 ? s.explicitCosts[i] : s.cost;
            all.emplace_back((*s.explicitArrivals)[i], c);
        }
    } else {
        for (Nanos t : generateArrivals(s.pattern, s.config))
            all.emplace_back(t, s.cost);
    }
    const auto middle = all.size();
    for (Nanos t : s.addedArrivals)
        all.emplace_back(t, s.cost);
    std::stable_sort(all.begin() + std::ptrdiff_t(middle), all.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::inplace_merge(all.begin(), all.begin() + std::ptrdiff_t(middle), all.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::int64_t> costs;
    costs.reserve(all.size());
    for (const auto& [t, c] : all)
        costs.push_back(c);
    return costs;
}

namespace {

// mergedColumn returns one value per resolveArrivals(s) time: explicit arrival i's column[i],
// `added` for a request added by hand, merged as resolveArrivals merges the times (explicit
// first at equal times).
template <typename T>
std::vector<T> mergedColumn(const Scenario& s, const std::vector<T>& column, T added)
{
    std::vector<std::pair<Nanos, T>> all;
    all.reserve(column.size() + s.addedArrivals.size());
    for (std::size_t i = 0; i < column.size(); ++i)
        all.emplace_back((*s.explicitArrivals)[i], column[i]);
    const auto middle = std::ptrdiff_t(all.size());
    for (Nanos t : s.addedArrivals)
        all.emplace_back(t, added);
    const auto earlier = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(all.begin() + middle, all.end(), earlier);
    std::inplace_merge(all.begin(), all.begin() + middle, all.end(), earlier);
    std::vector<T> out;
    out.reserve(all.size());
    for (const auto& [t, v] : all)
        out.push_back(v);
    return out;
}

} // namespace

void checkRequestColumns(const Scenario& s)
{
    const bool hasService = s.explicitArrivals && !s.explicitService.empty();
    const bool hasPriority = s.explicitArrivals && !s.explicitCritical.empty();
    const bool hasNumbers = s.explicitArrivals && !s.explicitPriority.empty();
    if (hasService && s.explicitService.size() != s.explicitArrivals->size())
        throw InputError("one service time per arrival is needed");
    if (hasPriority && s.explicitCritical.size() != s.explicitArrivals->size())
        throw InputError("one priority per arrival is needed");
    if (hasNumbers && s.explicitPriority.size() != s.explicitArrivals->size())
        throw InputError("one priority per arrival is needed");
    if (hasPriority && hasNumbers)
        throw InputError("the priority column holds words (critical, normal) or numbers, not both");
    const bool byFile = s.server && s.server->options().service.kind == ServiceKind::File;
    if (hasService && !byFile)
        throw InputError("the arrivals file has a service column; use --server service=file (or leave the column out)");
    if (byFile && !hasService)
        throw InputError("--server service=file: the arrivals have no service column (name it in a header line, "
                         "such as t,service)");
    if (byFile && !s.addedArrivals.empty())
        throw InputError("--server service=file: " + std::to_string(s.addedArrivals.size())
                         + " request(s) added by hand have no arrivals line, so no service time");
    const bool shedsByPriority = s.layeredGate.readsPriorities()
                                 || std::ranges::any_of(s.concurrency, &GateSpec::readsPriorities);
    const bool throttled = !s.throttle.empty();
    if (hasNumbers && shedsByPriority)
        throw InputError("stripe: priority=file reads critical or normal from the priority column, and it holds numbers "
                         "(a client throttle's priorities)");
    if (hasNumbers && !throttled)
        throw InputError("the arrivals file's priority column holds numbers, which only a client throttle reads "
                         "(--throttle bottleneck:... or p-queue:...); write critical or normal for a stripe row's "
                         "priority=file, or leave the column out");
    if (hasPriority && throttled)
        throw InputError("--throttle: the arrivals file's priority column holds critical or normal, and a client throttle "
                         "takes a number per request (such as 9 or -1); the words are for a stripe row's priority=file "
                         "without a throttle");
    if (hasPriority && !shedsByPriority)
        throw InputError("the arrivals file has a priority column; shed by it with a stripe row of priority=file "
                         "(--concurrency stripe:capacity=C,priority=file) or leave the column out");
    if (shedsByPriority && !hasPriority)
        throw InputError("stripe: priority=file: the arrivals have no priority column (name it in a header line, "
                         "such as t,priority)");
}

std::vector<Nanos> resolveServices(const Scenario& s)
{
    if (!s.explicitArrivals || s.explicitService.empty() || !s.server
        || s.server->options().service.kind != ServiceKind::File)
        return {};
    return mergedColumn<Nanos>(s, s.explicitService, 0);
}

std::vector<std::uint8_t> resolveCritical(const Scenario& s)
{
    if (!s.explicitArrivals || s.explicitCritical.empty())
        return {};
    return mergedColumn<std::uint8_t>(s, s.explicitCritical, 0);
}

std::vector<double> resolvePriorities(const Scenario& s)
{
    if (!s.explicitArrivals || s.explicitPriority.empty())
        return {};
    return mergedColumn<double>(s, s.explicitPriority, std::nan(""));
}

std::vector<FleetEvent> fleetEvents(const Scenario& s)
{
    std::vector<FleetEvent> out = s.cluster ? fleetEvents(*s.cluster) : std::vector<FleetEvent>{};
    for (std::size_t i = 0; i < s.changes.size(); ++i)
        out.push_back({FleetEvent::Kind::LimitChange, int(i), s.changes[i].at});
    std::stable_sort(out.begin(), out.end(), [](const FleetEvent& a, const FleetEvent& b) { return a.at < b.at; });
    return out;
}

Scenario withEventMoved(const Scenario& s, const FleetEvent& e, Nanos to)
{
    Scenario out = s;
    if (e.kind == FleetEvent::Kind::LimitChange) {
        if (to < 0)
            throw InputError("a change's time must not be negative (got " + formatSeconds(to) + " s)");
        out.changes.at(std::size_t(e.node)).at = to;
    } else if (out.cluster) {
        out.cluster = movedEvent(*out.cluster, e, to);
    }
    return out;
}

Scenario withEventAdded(const Scenario& s, FleetEvent::Kind kind, Nanos at)
{
    if (!s.cluster)
        throw InputError("nodes join and leave a cluster: tick Cluster first");
    ClusterConfig::Options o = s.cluster->options();
    if (o.autoscaleMax > 0)
        throw InputError("the autoscaler decides which nodes are up: untick Autoscale to add joins and leaves");
    Scenario out = s;
    if (kind == FleetEvent::Kind::Join) {
        o.joins.push_back({o.nodes, at});
        ++o.nodes;
    } else if (kind == FleetEvent::Kind::Leave) {
        int node = -1;
        for (int n = o.nodes - 1; n >= 0 && node < 0; --n) {
            const bool leaves = std::any_of(o.leaves.begin(), o.leaves.end(), [&](const NodeEvent& e) { return e.node == n; });
            if (!leaves && s.cluster->joinedAt(n) < at)
                node = n;
        }
        if (node < 0)
            throw InputError("no node is up at " + formatSeconds(at) + " s without a leave of its own");
        o.leaves.push_back({node, at});
    } else {
        throw InputError("only a join or a leave is added here");
    }
    out.cluster = ClusterConfig::make(o);
    return out;
}

Scenario withEventRemoved(const Scenario& s, const FleetEvent& e)
{
    Scenario out = s;
    if (e.kind == FleetEvent::Kind::LimitChange) {
        out.changes.erase(out.changes.begin() + e.node);
        return out;
    }
    if (!s.cluster)
        return out;
    ClusterConfig::Options o = s.cluster->options();
    const auto drop = [&](std::vector<NodeEvent>& events) {
        std::erase_if(events, [&](const NodeEvent& x) { return x.node == e.node && x.at == e.at; });
    };
    switch (e.kind) {
    case FleetEvent::Kind::Join: drop(o.joins); break;
    case FleetEvent::Kind::Leave: drop(o.leaves); break;
    case FleetEvent::Kind::StoreDown:
    case FleetEvent::Kind::StoreBack: o.outageFromNanos = o.outageToNanos = 0; break;
    case FleetEvent::Kind::LimitChange: break;
    }
    out.cluster = ClusterConfig::make(o);
    return out;
}

} // namespace ratelab
