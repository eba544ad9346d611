#include "replay/replay_memory.h"

#include <algorithm>

namespace ratelab {

std::int64_t replayBytesPerKey(const ReplayPolicy& policy, unsigned concurrent)
{
    const auto rows = std::int64_t(policy.algorithms.size() + (policy.layers.empty() ? 0 : 1));
    bool log = std::find(policy.algorithms.begin(), policy.algorithms.end(), Algorithm::SlidingWindowLog)
               != policy.algorithms.end();
    for (const Layer& l : policy.layers)
        log |= l.algorithm == Algorithm::SlidingWindowLog;
    const std::int64_t layers = std::max<std::int64_t>(1, std::int64_t(policy.layers.size()));
    return kReplayKeyBytes + std::max<std::int64_t>(1, rows) * kReplayRowBytesPerKey
           + std::int64_t(std::max(1u, concurrent)) * (layers * kReplayRowBytesPerKey + (log ? kReplayLogBytesPerKey : 0));
}

std::int64_t defaultMaxKeys(std::int64_t availableBytes, std::int64_t bytesPerKey)
{
    return std::max<std::int64_t>(1000, availableBytes / 2 / std::max<std::int64_t>(1, bytesPerKey));
}

} // namespace ratelab
