#include "traffic/traffic_log.h"

#include "arithmetic/decimal.h"

#include <limits>

namespace ratelab {

Traffic subsetOf(const Traffic& traffic, const std::vector<std::uint8_t>& keep)
{
    Traffic out;
    out.pathNames = traffic.pathNames;
    out.keyFields = traffic.keyFields;
    out.fieldKeys.resize(traffic.fieldKeys.size());
    out.fieldSeen = traffic.fieldSeen; // whether the log has a field at all, which binds a rule to it
    out.format = traffic.format;
    out.key = traffic.key;
    out.noPaths = traffic.noPaths;
    out.pathIsUri = traffic.pathIsUri;
    out.lines = traffic.lines;
    out.comments = traffic.comments;
    out.firstLineCut = traffic.firstLineCut;
    out.filtered = traffic.filtered;
    out.unreadable = traffic.unreadable;
    out.firstErrors = traffic.firstErrors;
    out.wholeSeconds = traffic.wholeSeconds;
    out.outOfOrder = traffic.outOfOrder;
    out.largestStepBack = traffic.largestStepBack;
    constexpr std::uint32_t kUnused = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> renamed(traffic.keyNames.size(), kUnused);
    const auto rename = [&](std::uint32_t k) {
        if (renamed[k] == kUnused) {
            renamed[k] = std::uint32_t(out.keyNames.size());
            out.keyNames.push_back(traffic.keyNames[k]);
        }
        return renamed[k];
    };
    Nanos shift = -1;
    for (std::size_t i = 0; i < traffic.times.size(); ++i) {
        if (!keep[i])
            continue;
        if (shift < 0) // whole ms of the clock stay whole ms
            shift = traffic.times[i] / kNanosPerMs * kNanosPerMs;
        out.times.push_back(traffic.times[i] - shift);
        out.keys.push_back(rename(traffic.keys[i]));
        if (!traffic.costs.empty())
            out.costs.push_back(traffic.costs[i]);
        if (!traffic.paths.empty())
            out.paths.push_back(traffic.paths[i]);
        for (std::size_t f = 0; f < traffic.fieldKeys.size(); ++f)
            out.fieldKeys[f].push_back(rename(traffic.fieldKeys[f][i]));
    }
    if (shift < 0)
        throw InputError("no request is left");
    out.startEpochNanos = traffic.startEpochNanos + shift;
    return out;
}

void keyByField(Traffic& traffic, std::size_t field)
{
    traffic.keys = traffic.fieldKeys.at(field);
    traffic.key = traffic.keyFields.at(field);
}

} // namespace ratelab
