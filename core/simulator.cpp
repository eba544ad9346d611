#include "simulator.h"

#include "decide.h"
#include "limiters.h"

namespace ratelab {

using detail::decideAll;
using detail::WindowCounter;

std::int64_t maxInWindow(std::span<const Nanos> arrivals, std::span<const Decision> decisions, Nanos windowNanos)
{
    // The count at a denied request never exceeds the count at the admission before it, so the
    // maximum over every request is the maximum over admissions.
    WindowCounter window(arrivals, [&](std::size_t i) { return decisions[i].allowed; }, windowNanos);
    std::int64_t best = 0;
    for (std::size_t i = 0; i < arrivals.size(); ++i)
        best = std::max(best, window.add(i));
    return best;
}

AlgorithmTrace simulateOne(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                           std::span<const std::int64_t> costs)
{
    AlgorithmTrace r;
    r.algorithm = algorithm;
    r.decisions.reserve(arrivals.size()); // written once, never zeroed first; never moves
    const Decision* const decisions = r.decisions.data();
    r.metrics = decideAll(
        config, algorithm, arrivals, costs, [&](std::size_t, const Decision& d) { r.decisions.push_back(d); },
        [decisions](std::size_t i) { return decisions[i].allowed; });
    return r;
}

Metrics decideStream(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                     std::span<const std::int64_t> costs, const DecisionSink& sink)
{
    constexpr std::size_t kChunk = 4096;
    std::vector<std::uint8_t> admitted(arrivals.size()); // what max_in_window looks back on
    std::vector<Decision> chunk;
    chunk.reserve(kChunk);
    std::size_t first = 0;
    const Metrics m = decideAll(
        config, algorithm, arrivals, costs,
        [&](std::size_t i, const Decision& d) {
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

Trace simulate(const LimiterConfig& config, std::span<const Algorithm> algorithms, std::vector<Nanos> arrivals)
{
    Trace trace{config, std::move(arrivals), {}, {}, {}};
    trace.results.reserve(algorithms.size());
    for (Algorithm a : algorithms)
        trace.results.push_back(simulateOne(config, a, trace.arrivals));
    return trace;
}

Trace simulate(const LimiterConfig& config, std::span<const Algorithm> algorithms, std::vector<Nanos> arrivals,
               std::vector<std::int64_t> costs)
{
    Trace trace{config, std::move(arrivals), {}, std::move(costs), {}};
    trace.results.reserve(algorithms.size());
    for (Algorithm a : algorithms)
        trace.results.push_back(simulateOne(config, a, trace.arrivals, trace.costs));
    return trace;
}

} // namespace ratelab
