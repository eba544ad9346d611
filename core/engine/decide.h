// decideAll: the engine's loop specialised to one limiter over the arrivals (one layer, one node,
// one client, no retries), which runs and measures a plain row in one pass. The simulator, the
// streaming report and the one-pass reduction share it; docs/architecture.md lists it with the
// other specialisations and the tests that prove each equal to the engine. Internal to core.
#pragma once

#include "limiters/limiters.h"
#include "engine/simulator.h"

#include <algorithm>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace ratelab::detail {

// WindowCounter tracks the admissions inside (t - W, t] as requests go by (addCost: their costs,
// as max_in_window weighs them). With the arrivals'
// lookback, a step is branch-free: a ring holds the running count of admissions before each of
// the last `ring` requests, and the window's count is today's running count less the one before
// its first request. Without one, it walks two indices into the arrivals: each admitted request
// enters once and leaves once, admitted(j) reporting the verdict of an earlier request j, or, when
// it keeps the verdicts itself (keepVerdicts: a byte a request), its own record of them.
template <typename Admitted>
class WindowCounter {
public:
    // costs, when not empty, holds one cost per arrival: then only addCost is called.
    WindowCounter(std::span<const Nanos> arrivals, Admitted admitted, Nanos windowNanos, const WindowLookback* lookback,
                  bool keepVerdicts = false, std::span<const std::int64_t> costs = {})
        : m_arrivals(arrivals), m_admitted(admitted), m_windowNanos(windowNanos), m_costs(costs)
    {
        if (lookback) {
            m_back = lookback->back.data();
            if (costs.empty())
                m_ring.resize(lookback->ring);
            else
                m_costRing.resize(lookback->ring);
            m_mask = lookback->ring - 1;
        } else if (keepVerdicts) {
            m_verdicts.resize(arrivals.size());
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
        if (!m_verdicts.empty())
            m_verdicts[i] = allowed;
        const Nanos oldest = m_arrivals[i] - m_windowNanos;
        // One request enters per step, so about one leaves: that one without a branch (the
        // first is never past i, whose time is inside its own window), then any more.
        const bool left = m_arrivals[m_first] <= oldest;
        m_inside -= admittedAt(m_first) & left;
        m_first += left;
        for (; m_arrivals[m_first] <= oldest; ++m_first)
            m_inside -= admittedAt(m_first);
        return m_inside;
    }

    // addCost is add weighted by the requests' costs: it returns the admitted units now inside
    // request i's window. The sums stay below 2^63: a window holds at most kMaxLookback + 1
    // requests with a lookback, 5,000,000 without, each of at most kMaxCost (10^9).
    std::int64_t addCost(std::size_t i, bool allowed)
    {
        if (m_back) {
            // Sums modulo 2^64: a window's sum (below 2^63) is their exact difference.
            m_costRing[i & m_mask] = m_costBefore;
            m_costBefore += allowed ? std::uint64_t(m_costs[i]) : 0;
            return std::int64_t(m_costBefore - m_costRing[(i - m_back[i]) & m_mask]);
        }
        m_inside += allowed ? m_costs[i] : 0;
        if (!m_verdicts.empty())
            m_verdicts[i] = allowed;
        for (const Nanos oldest = m_arrivals[i] - m_windowNanos; m_arrivals[m_first] <= oldest; ++m_first)
            m_inside -= admittedAt(m_first) ? m_costs[m_first] : 0;
        return m_inside;
    }

private:
    bool admittedAt(std::size_t j) const { return m_verdicts.empty() ? bool(m_admitted(j)) : bool(m_verdicts[j]); }

    std::span<const Nanos> m_arrivals;
    Admitted m_admitted;
    Nanos m_windowNanos;
    std::size_t m_first = 0;
    std::int64_t m_inside = 0;
    const std::uint16_t* m_back = nullptr;
    std::vector<std::uint32_t> m_ring;
    std::size_t m_mask = 0;
    std::uint32_t m_before = 0;
    std::vector<std::uint8_t> m_verdicts; // with keepVerdicts and no lookback
    std::span<const std::int64_t> m_costs;
    std::vector<std::uint64_t> m_costRing; // addCost's m_ring
    std::uint64_t m_costBefore = 0;
};

// NoHook is a hook of decideAll that does nothing.
struct NoHook {
    template <typename... Args>
    void operator()(Args&&...) const {}
};

// kDecideBlock is how many requests decideAll decides between two calls of its block hook.
inline constexpr std::size_t kDecideBlock = 4096;

// decideAll runs one algorithm over the arrivals from a fresh state, hands each decision to
// emit(limiter, i, d) in order and measures the metrics. admitted(i) must report request i's verdict
// once emit(limiter, i, d) has run (the limiter just after deciding it); with a lookback (the
// arrivals' own, or nullptr) it is never called.
// block(limiter, i) runs before every kDecideBlock-th request i (checkpoints, cancellation),
// before(limiter, i) just before each request i is decided, and done(limiter) after the last,
// each with the limiter itself (levels between requests).
// simulateOne, decideStream and the one-pass reduction share it, so their metrics agree.
// max_in_window's window and overshoot's limit are ownLimit(algorithm, config): a product given
// its own options is measured over its own period, where the arrivals' lookback (over the
// config's W) does not apply: it gets one of its own, or the counter keeps the verdicts.
//
// Each block decides on a local limiter the state is moved into and back out of: its address
// never escapes (the checkpoints copy the one outside), so the compiler keeps its state in
// registers, where stores to the verdicts or the window's ring could otherwise alias it and
// force a store and a reload into every decision's dependency chain (which makes a token-bucket
// decision in the reduction's loop about three times as slow).
//
// decideAllOf is decideAll for a limiter whose type is known: `outside` holds the fresh state and
// is left holding the last. Callers that want one function per limiter type (the reduction's
// flattened passes) visit first and call it; decideAll visits for the others.
template <typename L, typename Emit, typename Admitted, typename Block = NoHook, typename Before = NoHook,
          typename Done = NoHook>
Metrics decideAllOf(L& outside, const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                    std::span<const std::int64_t> costs, const WindowLookback* lookback, Emit&& emit,
                    Admitted admitted, Block&& block = {}, Before&& before = {}, Done&& done = {})
{
    Metrics m;
    const LimitWindow own = ownLimit(algorithm, config);
    std::shared_ptr<const WindowLookback> ownLookback;
    const bool ownWindow = own.windowNanos != config.windowNanos();
    if (ownWindow)
        ownLookback = makeWindowLookback(arrivals, own.windowNanos);
    WindowCounter window(arrivals, admitted, own.windowNanos, ownWindow ? ownLookback.get() : lookback, ownWindow, costs);
    const std::size_t n = arrivals.size();
    for (std::size_t from = 0; from < n; from += kDecideBlock) {
        block(std::as_const(outside), from);
        L limiter = std::move(outside);
        const std::size_t to = std::min(n, from + kDecideBlock);
        if (!costs.empty()) { // the same loop with costs, kept apart so the cost-1 loop stays as fast
            for (std::size_t i = from; i < to; ++i) {
                before(std::as_const(limiter), i);
                const Decision d = limiter.decide(arrivals[i], costs[i]);
                emit(std::as_const(limiter), i, d);
                m.allowed += d.allowed;
                m.allowedCost += d.allowed ? costs[i] : 0;
                m.never += d.retryNever();
                m.delayed += d.delay > 0;
                m.maxInWindow = std::max(m.maxInWindow, window.addCost(i, d.allowed));
            }
        } else {
            for (std::size_t i = from; i < to; ++i) {
                before(std::as_const(limiter), i);
                const Decision d = limiter.decide(arrivals[i]);
                emit(std::as_const(limiter), i, d);
                m.allowed += d.allowed;
                m.delayed += d.delay > 0;
                m.maxInWindow = std::max(m.maxInWindow, window.add(i, d.allowed));
            }
        }
        outside = std::move(limiter);
    }
    if (costs.empty())
        m.allowedCost = m.allowed;
    m.memory = outside.memory();
    done(std::as_const(outside));
    m.denied = static_cast<std::int64_t>(n) - m.allowed;
    m.overshoot = own.overshoot(m.maxInWindow);
    return m;
}

template <typename Emit, typename Admitted, typename Block = NoHook, typename Before = NoHook, typename Done = NoHook>
Metrics decideAll(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                  std::span<const std::int64_t> costs, const WindowLookback* lookback, Emit&& emit, Admitted admitted,
                  Block&& block = {}, Before&& before = {}, Done&& done = {})
{
    return visitLimiter(algorithm, config, [&](auto& outside) {
        return decideAllOf(outside, config, algorithm, arrivals, costs, lookback, emit, admitted, block, before, done);
    });
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
    limiter = std::get<L>(c.states[k]);
    return k * c.interval;
}

} // namespace ratelab::detail
