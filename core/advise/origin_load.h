// What a limit leaves for the origin, measured on the log it is advised on: the busiest second
// before and under the limit, and how much of what gets through the busiest keys still take.
// Across keys a per-key limit guarantees nothing (a thousand keys may each send their burst at
// once), so only the log can say what the origin sees.
#pragma once

#include "traffic/traffic_log.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ratelab {

struct OriginLoad {
    std::int64_t requests = 0, admitted = 0;
    // peak: the most of the log's requests in any second (t - 1 s, t]; admittedPeak: the most
    // of the admitted ones in any second.
    std::int64_t peak = 0, admittedPeak = 0;
    // Of the log's keys that are keys (keys of them; keylessName: not logged empty), the topKeys
    // busiest (most requests; of equal counts the first logged), their requests and how many of
    // those were admitted.
    std::size_t keys = 0, topKeys = 0;
    std::int64_t topRequests = 0, topAdmitted = 0;
};

// originLoad measures the log under a limit: deniedBy holds one entry per request, negative for
// an admitted one (DryRunResult::deniedBy). top is how many busiest keys to follow.
OriginLoad originLoad(const Traffic& traffic, const std::vector<std::int32_t>& deniedBy, std::size_t top);

} // namespace ratelab
