// SlidingWindowLog keeps the time of every admitted request still inside the window and admits
// while fewer than `limit` are there.
//
// It is the exact answer to "at most L in any window of length W": an entry s counts while
// s > t - W, so it expires exactly W after it was admitted, and no interval (s - W, s] ever holds
// more than L admissions. The price is memory: up to L timestamps per key. Bursts are admitted
// up to L at once, then one more each time an old entry expires.
//
// The entries are a ring buffer (power-of-two capacity, grown on demand up to L) so admitting
// and expiring are O(1) amortised and nothing shifts.
#pragma once

#include "limiter.h"

#include <optional>
#include <vector>

namespace ratelab {

class SlidingWindowLog final : public Limiter {
public:
    explicit SlidingWindowLog(const LimiterConfig& config)
        : m_limit(config.limit())
        , m_windowNanos(config.windowNanos())
    {
    }

    Decision decide(Nanos t) override
    {
        const Nanos oldestKept = t - m_windowNanos; // entries s <= oldestKept have expired
        while (m_size > 0 && at(0) <= oldestKept) {
            m_head = (m_head + 1) & m_mask;
            --m_size;
        }
        Decision d;
        if (m_size < m_limit) {
            push(t);
            d.allowed = true;
            d.remaining = clampRemaining(m_limit - m_size);
        } else {
            d.retryAfter = m_windowNanos - (t - at(0)); // at(0) + W could overflow near the end of time
        }
        d.level = static_cast<double>(m_size);
        return d;
    }

    double levelAt(Nanos t) const override { return static_cast<double>(m_size - firstInside(t)); }

    // oldestAt returns the oldest entry still inside the window at t (not earlier than the last
    // request), or nullopt when the log is empty then. It expires, and makes room, at
    // oldest + W.
    std::optional<Nanos> oldestAt(Nanos t) const
    {
        const std::int64_t first = firstInside(t);
        return first < m_size ? std::optional<Nanos>(at(first)) : std::nullopt;
    }

    Memory memory() const override { return {8 * m_size, m_size}; }
    Algorithm algorithm() const override { return Algorithm::SlidingWindowLog; }
    std::unique_ptr<Limiter> clone() const override { return std::make_unique<SlidingWindowLog>(*this); }

private:
    Nanos at(std::int64_t i) const { return m_ring[(m_head + i) & m_mask]; }

    // firstInside returns the index of the first entry still inside at t (s > t - W); the
    // entries are sorted, so it is a binary search.
    std::int64_t firstInside(Nanos t) const
    {
        std::int64_t lo = 0, hi = m_size;
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (at(mid) <= t - m_windowNanos)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    void push(Nanos t)
    {
        if (m_size == static_cast<std::int64_t>(m_ring.size()))
            grow();
        m_ring[(m_head + m_size) & m_mask] = t;
        ++m_size;
    }

    void grow()
    {
        std::vector<Nanos> bigger(m_ring.empty() ? 16 : m_ring.size() * 2);
        for (std::int64_t i = 0; i < m_size; ++i)
            bigger[i] = at(i);
        m_ring.swap(bigger);
        m_head = 0;
        m_mask = static_cast<std::int64_t>(m_ring.size()) - 1;
    }

    std::int64_t m_limit;
    Nanos m_windowNanos;
    std::vector<Nanos> m_ring;
    std::int64_t m_head = 0;
    std::int64_t m_size = 0;
    std::int64_t m_mask = -1;
};

} // namespace ratelab
