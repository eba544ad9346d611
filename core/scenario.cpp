#include "scenario.h"

#include "decimal.h"

#include <algorithm>
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

Trace simulate(const Scenario& s)
{
    return simulate(s.config, s.algorithms, resolveArrivals(s));
}

} // namespace ratelab
