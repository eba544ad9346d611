#include "simulator.h"

#include "limiters.h"

namespace ratelab {

std::int64_t maxInWindow(std::span<const Nanos> arrivals, std::span<const Decision> decisions, Nanos windowNanos)
{
    // Two pointers over the admitted times: `first` is the oldest admission still inside
    // (t - W, t] for the admission at i. Every admitted index enters and leaves once.
    std::int64_t best = 0, inside = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        if (!decisions[i].allowed)
            continue;
        ++inside;
        for (; arrivals[first] <= arrivals[i] - windowNanos; ++first)
            inside -= decisions[first].allowed ? 1 : 0;
        best = std::max(best, inside);
    }
    return best;
}

Trace simulate(const LimiterConfig& config, std::span<const Algorithm> algorithms, std::vector<Nanos> arrivals)
{
    Trace trace{config, std::move(arrivals), {}};
    trace.results.reserve(algorithms.size());
    for (Algorithm a : algorithms) {
        AlgorithmTrace& r = trace.results.emplace_back();
        r.algorithm = a;
        r.decisions.resize(trace.arrivals.size());
        visitLimiter(a, config, [&](auto& limiter) {
            for (std::size_t i = 0; i < trace.arrivals.size(); ++i)
                r.decisions[i] = limiter.decide(trace.arrivals[i]);
            r.metrics.memory = limiter.memory();
        });
        for (const Decision& d : r.decisions) {
            r.metrics.allowed += d.allowed ? 1 : 0;
            r.metrics.delayed += d.allowed && d.delay > 0 ? 1 : 0;
        }
        r.metrics.denied = static_cast<std::int64_t>(r.decisions.size()) - r.metrics.allowed;
        r.metrics.maxInWindow = maxInWindow(trace.arrivals, r.decisions, config.windowNanos());
        r.metrics.overshoot = static_cast<double>(r.metrics.maxInWindow) / static_cast<double>(config.limit());
    }
    return trace;
}

} // namespace ratelab
