// IdRing: values keyed by increasing ids, of which only a window [first, end) is held: the
// server stage's jobs and a gate's admissions, where ids come in order and mostly leave in order.
// A value is reached by its id in O(1); the ids before the first one still in use are dropped
// from the front, so the memory is that of the window, not of the run, and nothing is allocated
// per id once the ring is as large as the widest window.
#pragma once

#include <cstdint>
#include <vector>

namespace ratelab {

template <class T>
class IdRing {
public:
    // first returns the lowest id held (end() when none is).
    std::int64_t first() const { return m_first; }
    // end returns one past the highest id held.
    std::int64_t end() const { return m_end; }
    // holds is true for an id in [first, end).
    bool holds(std::int64_t id) const { return id >= m_first && id < m_end; }
    T& operator[](std::int64_t id) { return m_slots[std::size_t(id) & m_mask]; }
    const T& operator[](std::int64_t id) const { return m_slots[std::size_t(id) & m_mask]; }

    // push_back holds `id` (at least end()) with value v; the ids skipped between hold T{}. When the
    // ring is empty the window starts at id.
    void push_back(std::int64_t id, const T& v)
    {
        if (m_first == m_end)
            m_first = m_end = id;
        while (id >= m_end) {
            if (std::size_t(m_end - m_first) == m_slots.size())
                grow();
            (*this)[m_end] = m_end == id ? v : T{};
            ++m_end;
        }
    }
    // dropFront drops ids from the front while done(value) is true.
    template <class Done>
    void dropFront(Done done)
    {
        while (m_first < m_end && done((*this)[m_first]))
            ++m_first;
    }

private:
    void grow()
    {
        const std::size_t size = m_slots.empty() ? 64 : 2 * m_slots.size();
        std::vector<T> grown(size);
        for (std::int64_t id = m_first; id < m_end; ++id)
            grown[std::size_t(id) & (size - 1)] = (*this)[id];
        m_slots.swap(grown);
        m_mask = size - 1;
    }

    std::vector<T> m_slots; // a power of two long; id lives at id & m_mask
    std::size_t m_mask = 0;
    std::int64_t m_first = 0, m_end = 0;
};

} // namespace ratelab
