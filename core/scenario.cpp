#include "scenario.h"

#include "decimal.h"

#include <algorithm>
#include <utility>
#include <string>

namespace ratelab {

std::vector<Nanos> resolveArrivals(const Scenario& s)
{
    std::vector<Nanos> arrivals = s.explicitArrivals ? *s.explicitArrivals : generateArrivals(s.pattern, s.config);
    if (!s.addedArrivals.empty()) {
        const auto middle = arrivals.insert(arrivals.end(), s.addedArrivals.begin(), s.addedArrivals.end());
        std::sort(middle, arrivals.end());
        std::inplace_merge(arrivals.begin(), middle, arrivals.end());
    }
    if (static_cast<std::int64_t>(arrivals.size()) > kMaxArrivals)
        throw InputError("at most " + std::to_string(kMaxArrivals) + " requests per scenario");
    return arrivals;
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

Trace simulate(const Scenario& s)
{
    std::vector<std::int64_t> costs = resolveCosts(s);
    Trace trace = simulate(s.config, s.algorithms, resolveArrivals(s), std::move(costs));
    if (!s.layers.empty())
        trace.layered = simulateLayered(s.layers, trace.arrivals, trace.costs);
    return trace;
}

} // namespace ratelab
