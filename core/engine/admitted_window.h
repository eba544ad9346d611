// AdmittedWindow: the one streaming count of admissions in a trailing window, for max_in_window
// wherever decisions come one at a time in time order (the engine, replay). The one-pass fast
// path (decide.h) counts over the arrays it already holds instead.
#pragma once

#include "arithmetic/nanos.h"

#include <cstdint>
#include <vector>

namespace ratelab {

// AdmittedWindow counts the admitted requests inside (t - W, t]: a ring of their times. Times
// given to add never decrease.
class AdmittedWindow {
public:
    explicit AdmittedWindow(Nanos windowNanos) : m_windowNanos(windowNanos), m_ring(64) {}

    // add records a request at t (admitted or not) and returns the admitted ones in its window.
    std::int64_t add(Nanos t, bool allowed)
    {
        const Nanos oldest = t - m_windowNanos;
        while (m_size > 0 && m_ring[m_head] <= oldest) {
            m_head = (m_head + 1) & (m_ring.size() - 1);
            --m_size;
        }
        if (allowed) {
            if (m_size == m_ring.size())
                grow();
            m_ring[(m_head + m_size) & (m_ring.size() - 1)] = t;
            ++m_size;
        }
        return std::int64_t(m_size);
    }

private:
    void grow()
    {
        std::vector<Nanos> bigger(m_ring.size() * 2);
        for (std::size_t i = 0; i < m_size; ++i)
            bigger[i] = m_ring[(m_head + i) & (m_ring.size() - 1)];
        m_ring = std::move(bigger);
        m_head = 0;
    }

    Nanos m_windowNanos;
    std::vector<Nanos> m_ring;
    std::size_t m_head = 0;
    std::size_t m_size = 0;
};

} // namespace ratelab
