#include "engine/simulator.h"

#include "engine/decide.h"
#include "limiters/limiters.h"

#include <algorithm>
#include <bit>

namespace ratelab {

using detail::decideAll;

std::shared_ptr<const WindowLookback> makeWindowLookback(std::span<const Nanos> arrivals, Nanos windowNanos, Threads threads)
{
    auto out = std::make_shared<WindowLookback>();
    out->back.resize(arrivals.size());
    // Each arrival's count depends on the times alone: a half starts at its own window's first
    // arrival (found by bisection) and the halves' results are the same as one pass's.
    std::size_t most[2] = {0, 0};
    bool tooMany[2] = {false, false};
    forHalves(arrivals.size(), threads, [&](std::size_t begin, std::size_t end) {
        const int half = begin == 0 ? 0 : 1;
        std::size_t first = begin == 0 ? 0
                                       : std::size_t(std::upper_bound(arrivals.begin(), arrivals.begin() + std::ptrdiff_t(begin),
                                                                      arrivals[begin] - windowNanos)
                                                     - arrivals.begin());
        for (std::size_t i = begin; i < end; ++i) {
            const Nanos oldest = arrivals[i] - windowNanos;
            // One arrival enters per step, so about one leaves: that one without a branch (the
            // first is never past i, whose time is inside its own window), then any more.
            first += arrivals[first] <= oldest;
            while (arrivals[first] <= oldest)
                ++first;
            const std::size_t back = i - first;
            if (back > kMaxLookback) {
                tooMany[half] = true;
                return;
            }
            out->back[i] = static_cast<std::uint16_t>(back);
            most[half] = std::max(most[half], back);
        }
    });
    if (tooMany[0] || tooMany[1])
        return nullptr;
    out->ring = std::bit_ceil(std::max(most[0], most[1]) + 1);
    return out;
}

AlgorithmTrace simulateOne(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                           std::span<const std::int64_t> costs, const WindowLookback* lookback)
{
    AlgorithmTrace r;
    r.algorithm = algorithm;
    r.decisions.reserve(arrivals.size()); // written once, never zeroed first; never moves
    const Decision* const decisions = r.decisions.data();
    r.metrics = decideAll(
        config, algorithm, arrivals, costs, lookback, [&](const auto&, std::size_t, const Decision& d) { r.decisions.push_back(d); },
        [decisions](std::size_t i) { return decisions[i].allowed; });
    return r;
}

Metrics decideStream(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                     std::span<const std::int64_t> costs, const DecisionSink& sink, const WindowLookback* lookback)
{
    constexpr std::size_t kChunk = 4096;
    // What max_in_window looks back on when there is no lookback: the verdicts, a byte each.
    std::vector<std::uint8_t> admitted(lookback ? 0 : arrivals.size());
    std::vector<Decision> chunk;
    chunk.reserve(kChunk);
    std::size_t first = 0;
    const Metrics m = decideAll(
        config, algorithm, arrivals, costs, lookback,
        [&](const auto&, std::size_t i, const Decision& d) {
            if (!lookback)
                admitted[i] = d.allowed;
            chunk.push_back(d);
            if (chunk.size() == kChunk) {
                sink(first, chunk);
                first += chunk.size();
                chunk.clear();
            }
        },
        [&admitted](std::size_t i) { return bool(admitted[i]); });
    if (!chunk.empty())
        sink(first, chunk);
    return m;
}

} // namespace ratelab
