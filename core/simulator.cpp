#include "simulator.h"

#include "limiters.h"

namespace ratelab {

namespace {

// WindowCounter tracks the admissions inside (t - W, t] as requests go by, with two indices
// into the arrivals: each admitted request enters once and leaves once, without branches on
// the (unpredictable) verdicts. admitted(i) reports request i's verdict once it is decided.
template <typename Admitted>
class WindowCounter {
public:
    WindowCounter(std::span<const Nanos> arrivals, Admitted admitted, Nanos windowNanos)
        : m_arrivals(arrivals), m_admitted(admitted), m_windowNanos(windowNanos)
    {
    }

    // add counts request i (decided) and returns the admissions now inside its window.
    std::int64_t add(std::size_t i)
    {
        m_inside += m_admitted(i);
        const Nanos oldest = m_arrivals[i] - m_windowNanos;
        // One request enters per step, so about one leaves: that one without a branch (the
        // first is never past i, whose time is inside its own window), then any more.
        const bool left = m_arrivals[m_first] <= oldest;
        m_inside -= m_admitted(m_first) & left;
        m_first += left;
        for (; m_arrivals[m_first] <= oldest; ++m_first)
            m_inside -= m_admitted(m_first);
        return m_inside;
    }

private:
    std::span<const Nanos> m_arrivals;
    Admitted m_admitted;
    Nanos m_windowNanos;
    std::size_t m_first = 0;
    std::int64_t m_inside = 0;
};

// decideAll runs one algorithm over the arrivals from a fresh state, hands each decision to
// emit(i, d) in order and measures the metrics. admitted(i) must report request i's verdict
// once emit(i, d) has run. simulateOne and decideStream share it, so their metrics agree.
template <typename Emit, typename Admitted>
Metrics decideAll(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                  std::span<const std::int64_t> costs, Emit&& emit, Admitted admitted)
{
    Metrics m;
    WindowCounter window(arrivals, admitted, config.windowNanos());
    visitLimiter(algorithm, config, [&](auto& limiter) {
        if (!costs.empty()) { // the same loop with costs, kept apart so the cost-1 loop stays as fast
            for (std::size_t i = 0; i < arrivals.size(); ++i) {
                const Decision d = limiter.decide(arrivals[i], costs[i]);
                emit(i, d);
                m.allowed += d.allowed;
                m.allowedCost += d.allowed ? costs[i] : 0;
                m.never += d.retryNever();
                m.delayed += d.delay > 0;
                m.maxInWindow = std::max(m.maxInWindow, window.add(i));
            }
            m.memory = limiter.memory();
            return;
        }
        for (std::size_t i = 0; i < arrivals.size(); ++i) {
            const Decision d = limiter.decide(arrivals[i]);
            emit(i, d);
            m.allowed += d.allowed;
            m.delayed += d.delay > 0;
            m.maxInWindow = std::max(m.maxInWindow, window.add(i));
        }
        m.memory = limiter.memory();
        m.allowedCost = m.allowed;
    });
    m.denied = static_cast<std::int64_t>(arrivals.size()) - m.allowed;
    m.overshoot = static_cast<double>(m.maxInWindow) / static_cast<double>(config.limit());
    return m;
}

} // namespace

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
