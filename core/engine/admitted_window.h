// AdmittedWindow: the one streaming sum of admitted costs in a trailing window, for max_in_window
// wherever decisions come one at a time in time order (the engine, replay). The one-pass fast
// path (decide.h) counts over the arrays it already holds instead.
#pragma once

#include "arithmetic/nanos.h"

#include <cstdint>
#include <vector>

namespace ratelab {

// AdmittedWindow sums the costs of the admitted requests inside (t - W, t] (semantics.md:
// max_in_window is weighted by cost): a ring of their times and costs. Times given to add never
// decrease. The sum stays below 2^63: at most 5,000,000 attempts of at most kMaxCost (10^9) each.
class AdmittedWindow {
public:
    explicit AdmittedWindow(Nanos windowNanos) : m_windowNanos(windowNanos), m_ring(64) {}

    // add records a request at t (admitted or not) of `cost` and returns the admitted units in
    // its window.
    std::int64_t add(Nanos t, bool allowed, std::int64_t cost = 1)
    {
        const Nanos oldest = t - m_windowNanos;
        while (m_size > 0 && m_ring[m_head].t <= oldest) {
            m_sum -= m_ring[m_head].cost;
            m_head = (m_head + 1) & (m_ring.size() - 1);
            --m_size;
        }
        if (allowed) {
            if (m_size == m_ring.size())
                grow();
            m_ring[(m_head + m_size) & (m_ring.size() - 1)] = {t, cost};
            ++m_size;
            m_sum += cost;
        }
        return m_sum;
    }

private:
    struct Entry {
        Nanos t;
        std::int64_t cost;
    };

    [[gnu::noinline]] void grow() // rarely: the add it serves stays small enough to inline
    {
        std::vector<Entry> bigger(m_ring.size() * 2);
        for (std::size_t i = 0; i < m_size; ++i)
            bigger[i] = m_ring[(m_head + i) & (m_ring.size() - 1)];
        m_ring = std::move(bigger);
        m_head = 0;
    }

    Nanos m_windowNanos;
    std::vector<Entry> m_ring;
    std::size_t m_head = 0;
    std::size_t m_size = 0;
    std::int64_t m_sum = 0;
};

} // namespace ratelab
