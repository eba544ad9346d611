#include "advise/origin_load.h"

#include "replay/log_keys.h"

#include <algorithm>
#include <numeric>

namespace ratelab {

namespace {

// busiestSecond is the most requests (admittedOnly: those deniedBy marks admitted) in any
// (t - 1 s, t]: each window worth checking ends at a counted request; times are non-decreasing.
std::int64_t busiestSecond(const std::vector<Nanos>& times, const std::vector<std::int32_t>& deniedBy, bool admittedOnly)
{
    std::int64_t most = 0, inWindow = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (admittedOnly && deniedBy[i] >= 0)
            continue;
        ++inWindow;
        for (; times[first] <= times[i] - kNanosPerSecond; ++first)
            inWindow -= !admittedOnly || deniedBy[first] < 0;
        most = std::max(most, inWindow);
    }
    return most;
}

} // namespace

OriginLoad originLoad(const Traffic& traffic, const std::vector<std::int32_t>& deniedBy, std::size_t top)
{
    OriginLoad out;
    const std::size_t keys = traffic.keyNames.size();
    std::vector<std::int64_t> requests(keys, 0), admitted(keys, 0);
    for (std::size_t i = 0; i < traffic.times.size(); ++i) {
        ++requests[traffic.keys[i]];
        admitted[traffic.keys[i]] += deniedBy[i] < 0;
    }
    out.requests = std::int64_t(traffic.times.size());
    out.admitted = std::accumulate(admitted.begin(), admitted.end(), std::int64_t(0));
    out.peak = busiestSecond(traffic.times, deniedBy, false);
    out.admittedPeak = busiestSecond(traffic.times, deniedBy, true);

    std::vector<std::uint32_t> order;
    for (std::uint32_t k = 0; k < keys; ++k)
        if (!keylessName(traffic.keyNames[k]))
            order.push_back(k);
    out.keys = order.size();
    out.topKeys = std::min(top, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(out.topKeys), order.end(),
                      [&](std::uint32_t a, std::uint32_t b) { return requests[a] != requests[b] ? requests[a] > requests[b] : a < b; });
    for (std::size_t i = 0; i < out.topKeys; ++i) {
        out.topRequests += requests[order[i]];
        out.topAdmitted += admitted[order[i]];
    }
    return out;
}

} // namespace ratelab
