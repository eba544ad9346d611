// decideAll, the one loop that runs a limiter over arrivals and measures it, shared by the
// simulator, the streaming report and the one-pass reduction. Internal to core.
#pragma once

#include "limiters.h"
#include "simulator.h"

#include <algorithm>
#include <span>
#include <vector>

namespace ratelab::detail {

// WindowCounter tracks the admissions inside (t - W, t] as requests go by. With the arrivals'
// lookback, a step is branch-free: a ring holds the running count of admissions before each of
// the last `ring` requests, and the window's count is today's running count less the one before
// its first request. Without one, it walks two indices into the arrivals: each admitted request
// enters once and leaves once, admitted(j) reporting the verdict of an earlier request j.
template <typename Admitted>
class WindowCounter {
public:
    WindowCounter(std::span<const Nanos> arrivals, Admitted admitted, Nanos windowNanos, const WindowLookback* lookback)
        : m_arrivals(arrivals), m_admitted(admitted), m_windowNanos(windowNanos)
    {
        if (lookback) {
            m_back = lookback->back.data();
            m_ring.resize(lookback->ring);
            m_mask = lookback->ring - 1;
        }
    }

    // add counts request i, decided (`allowed`), and returns the admissions now inside its window.
    std::int64_t add(std::size_t i, bool allowed)
    {
        if (m_back) { // the same branch every step: predicted
            // Counts modulo 2^32: a window's count (below 2^16) is their exact difference.
            m_ring[i & m_mask] = m_before;
            m_before += allowed;
            return std::uint32_t(m_before - m_ring[(i - m_back[i]) & m_mask]);
        }
        m_inside += allowed;
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
    const std::uint16_t* m_back = nullptr;
    std::vector<std::uint32_t> m_ring;
    std::size_t m_mask = 0;
    std::uint32_t m_before = 0;
};

// NoHook is a hook of decideAll that does nothing.
struct NoHook {
    template <typename... Args>
    void operator()(Args&&...) const {}
};

// decideAll runs one algorithm over the arrivals from a fresh state, hands each decision to
// emit(i, d) in order and measures the metrics. admitted(i) must report request i's verdict
// once emit(i, d) has run; with a lookback (the arrivals' own, or nullptr) it is never called. before(limiter, i) runs just before request i is decided and
// done(limiter) after the last, with the limiter itself (checkpoints, levels between requests).
// simulateOne, decideStream and the one-pass reduction share it, so their metrics agree.
template <typename Emit, typename Admitted, typename Before = NoHook, typename Done = NoHook>
Metrics decideAll(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                  std::span<const std::int64_t> costs, const WindowLookback* lookback, Emit&& emit, Admitted admitted,
                  Before&& before = {}, Done&& done = {})
{
    Metrics m;
    WindowCounter window(arrivals, admitted, config.windowNanos(), lookback);
    visitLimiter(algorithm, config, [&](auto& limiter) {
        if (!costs.empty()) { // the same loop with costs, kept apart so the cost-1 loop stays as fast
            for (std::size_t i = 0; i < arrivals.size(); ++i) {
                before(limiter, i);
                const Decision d = limiter.decide(arrivals[i], costs[i]);
                emit(i, d);
                m.allowed += d.allowed;
                m.allowedCost += d.allowed ? costs[i] : 0;
                m.never += d.retryNever();
                m.delayed += d.delay > 0;
                m.maxInWindow = std::max(m.maxInWindow, window.add(i, d.allowed));
            }
            m.memory = limiter.memory();
            done(limiter);
            return;
        }
        for (std::size_t i = 0; i < arrivals.size(); ++i) {
            before(limiter, i);
            const Decision d = limiter.decide(arrivals[i]);
            emit(i, d);
            m.allowed += d.allowed;
            m.delayed += d.delay > 0;
            m.maxInWindow = std::max(m.maxInWindow, window.add(i, d.allowed));
        }
        m.memory = limiter.memory();
        m.allowedCost = m.allowed;
        done(limiter);
    });
    m.denied = static_cast<std::int64_t>(arrivals.size()) - m.allowed;
    m.overshoot = static_cast<double>(m.maxInWindow) / static_cast<double>(config.limit());
    return m;
}

// restoreCheckpoint sets `limiter` to result r's state at its latest checkpoint at or before decision
// `index` and returns that checkpoint's decision; a row without checkpoints starts fresh, at 0.
template <typename L>
std::size_t restoreCheckpoint(L& limiter, const AlgorithmTrace& r, std::size_t index)
{
    if (!r.checkpoints || r.checkpoints->states.empty())
        return 0;
    const Checkpoints& c = *r.checkpoints;
    const std::size_t k = std::min(index / c.interval, c.states.size() - 1);
    limiter = static_cast<const L&>(*c.states[k]);
    return k * c.interval;
}

} // namespace ratelab::detail
