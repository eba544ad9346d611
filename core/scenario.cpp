#include "scenario.h"

#include "algorithm_facts.h"
#include "decimal.h"

#include <algorithm>
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

std::vector<Nanos> resolveArrivals(const Scenario& s)
{
    checkDurations(s.config, s.algorithms);
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
