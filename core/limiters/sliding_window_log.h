// SlidingWindowLog keeps the time (and cost) of every admitted request still inside the window
// and admits while their costs plus the new one's are at most `limit`.
//
// It is the exact answer to "at most L in any window of length W": an entry s counts while
// s > t - W, so it expires exactly W after it was admitted, and no interval (s - W, s] ever holds
// more than L admissions. The price is memory: up to L timestamps per key. Bursts are admitted
// up to L at once, then one more each time an old entry expires.
//
// The entries are a ring buffer (power-of-two capacity, grown on demand up to L) so admitting
// and expiring are O(1) amortised and nothing shifts.
#pragma once

#include "limiters/limiter.h"

#include <optional>
#include <vector>

namespace ratelab {

class SlidingWindowLog final {
public:
    explicit SlidingWindowLog(const LimiterConfig& config, DecidePath path = DecidePath::Fast)
        : m_limit(config.limit())
        , m_windowNanos(config.windowNanos())
        , m_fast(path == DecidePath::Fast)
    {
    }

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide with cost k: admit iff the kept entries' costs plus k are at most L, then record
    // (t, k). Denied requests are not recorded; a cost above L never fits.
    Decision decide(Nanos t, std::int64_t cost)
    {
        if (cost == 1 && m_fast && m_costs.empty())
            return decide1(t);
        if (m_costs.empty())
            m_used = m_size; // decide1 leaves m_used behind: every entry costs 1, so it is the count
        const Nanos oldestKept = t - m_windowNanos; // entries s <= oldestKept have expired
        while (m_size > 0 && at(0) <= oldestKept) {
            m_used -= costAt(0);
            m_head = (m_head + 1) & m_mask;
            --m_size;
        }
        Decision d;
        if (m_used + cost <= m_limit) {
            push(t, cost);
            d.allowed = true;
        } else {
            // Every entry costs 1 and the log is full: room comes when the oldest expires (O(1),
            // the hot path); otherwise walk the entries.
            d.retryAfter = cost > m_limit          ? kRetryNever
                           : cost == 1 && m_costs.empty() ? m_windowNanos - (t - at(0))
                                                          : waitFor(t, cost);
        }
        if (d.allowed || cost > 1) // a denied request of cost 1 leaves no room for another
            d.remaining = clampRemaining(m_limit - m_used);
        d.level = static_cast<double>(m_used);
        return d;
    }

    // waitFor walks the entries from the oldest: the wait ends when enough of them have expired
    // (each at s + W) that cost fits. With cost 1 and a full log that is the oldest entry.
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        std::int64_t used = usedFrom(firstInside(t));
        for (std::int64_t i = firstInside(t); i < m_size && used + cost > m_limit; ++i) {
            used -= costAt(i);
            if (used + cost <= m_limit)
                return m_windowNanos - (t - at(i)); // at(i) + W could overflow near the end of time
        }
        return 0;
    }

    std::int32_t remainingAt(Nanos t) const { return clampRemaining(m_limit - usedFrom(firstInside(t))); }
    std::int64_t quota() const { return m_limit; }
    Nanos windowNanos() const { return m_windowNanos; }

    // level is the sum of the kept entries' costs: the number of entries when every cost is 1.
    double levelAt(Nanos t) const { return static_cast<double>(levelUnitsAt(t)); }

    // levelUnitsAt returns the level at t as the integer it is (levelFromUnits converts it). At
    // the next request's time usually no entry or one has expired since the last: those two
    // are looked at without a branch on the verdict-like comparisons, the rest searched.
    std::int64_t levelUnitsAt(Nanos t) const
    {
        if (m_costs.empty() && m_size > 0) {
            const Nanos oldestKept = t - m_windowNanos;
            const bool first = at(0) <= oldestKept;
            if (m_size == 1 || at(1) > oldestKept) [[likely]]
                return m_size - first;
        }
        return usedFrom(firstInside(t));
    }
    double levelFromUnits(std::int64_t used) const { return static_cast<double>(used); }

    // decidedLevelUnits is levelUnitsAt(t) right after decide(t): every entry expired at t is
    // gone. admissionUnits is what an admission of cost 1 adds: one entry.
    std::int64_t decidedLevelUnits() const { return m_costs.empty() ? m_size : m_used; }
    static std::int64_t admissionUnits() { return 1; }

    // oldestAt returns the oldest entry still inside the window at t (not earlier than the last
    // request), or nullopt when the log is empty then. It expires, and makes room, at
    // oldest + W.
    std::optional<Nanos> oldestAt(Nanos t) const
    {
        const std::int64_t first = firstInside(t);
        return first < m_size ? std::optional<Nanos>(at(first)) : std::nullopt;
    }

    // memory counts 8 bytes a timestamp, and 8 more an entry once any request cost more than 1.
    Memory memory() const { return {(m_costs.empty() ? 8 : 16) * m_size, m_size}; }
    // retarget applies config c from t on (a limit change; the window stays): the entries kept
    // are measured against c's limit.
    void retarget(const LimiterConfig& c, Nanos) { m_limit = c.limit(); }
    Algorithm algorithm() const { return Algorithm::SlidingWindowLog; }

private:
    // decide1 is decide(t, 1) while every entry costs 1, with the expiry of one entry and the
    // verdict branch-free: the time is written after the last entry always, and kept only when
    // admitted. The state is worked on in locals, as the ring's stores could otherwise alias the
    // members. It does not keep m_used (decide takes it from m_size): one store less a request
    // is a sixth of its time when the limiter and its ring fall at an unlucky 4 kB offset.
    Decision decide1(Nanos t)
    {
        if (m_ring.empty())
            grow(); // so the slot at the head is memory even when the log is empty
        Nanos* ring = m_ring.data();
        std::int64_t mask = m_mask;
        std::int64_t head = m_head, size = m_size;
        const Nanos oldestKept = t - m_windowNanos;
        // Each admission expires once, so about one entry a request: that one without a branch.
        const bool expired = (size > 0) & (ring[head] <= oldestKept);
        head = (head + expired) & mask;
        size -= expired;
        while (size > 0 && ring[head] <= oldestKept) {
            head = (head + 1) & mask;
            --size;
        }
        Decision d;
        if (size == mask + 1) [[unlikely]] { // no free slot to write into: full at L, or grow first
            m_head = head;
            m_size = size;
            if (size == m_limit) {
                d.retryAfter = m_windowNanos - (t - ring[head]);
                d.level = static_cast<double>(size);
                return d;
            }
            grow();
            ring = m_ring.data();
            mask = m_mask;
            head = m_head;
        }
        const bool allowed = size < m_limit;
        ring[(head + size) & mask] = t;
        size += allowed;
        m_head = head;
        m_size = size;
        d.allowed = allowed;
        d.retryAfter = allowed ? 0 : m_windowNanos - (t - ring[head]); // full: room when the oldest expires
        d.remaining = allowed ? clampRemaining(m_limit - size) : 0;
        d.level = static_cast<double>(size);
        return d;
    }

    Nanos at(std::int64_t i) const { return m_ring[(m_head + i) & m_mask]; }
    // costAt is entry i's cost; m_costs stays empty (every cost 1) until a request costs more.
    std::int64_t costAt(std::int64_t i) const { return m_costs.empty() ? 1 : m_costs[(m_head + i) & m_mask]; }

    // usedFrom sums the costs of entries first..end: the units the log holds from there on.
    std::int64_t usedFrom(std::int64_t first) const
    {
        if (m_costs.empty())
            return m_size - first;
        std::int64_t used = m_used;
        for (std::int64_t i = 0; i < first; ++i)
            used -= costAt(i);
        return used;
    }

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

    void push(Nanos t, std::int64_t cost)
    {
        if (m_size == static_cast<std::int64_t>(m_ring.size()))
            grow();
        if (cost != 1 && m_costs.empty())
            m_costs.assign(m_ring.size(), 1);
        m_ring[(m_head + m_size) & m_mask] = t;
        if (!m_costs.empty())
            m_costs[(m_head + m_size) & m_mask] = cost;
        ++m_size;
        m_used += cost;
    }

    void grow()
    {
        std::vector<Nanos> bigger(m_ring.empty() ? 16 : m_ring.size() * 2);
        std::vector<std::int64_t> biggerCosts(m_costs.empty() ? 0 : bigger.size(), 1);
        for (std::int64_t i = 0; i < m_size; ++i) {
            bigger[i] = at(i);
            if (!m_costs.empty())
                biggerCosts[i] = costAt(i);
        }
        m_ring.swap(bigger);
        m_costs.swap(biggerCosts);
        m_head = 0;
        m_mask = static_cast<std::int64_t>(m_ring.size()) - 1;
    }

    std::int64_t m_limit;
    Nanos m_windowNanos;
    bool m_fast; // decide1 may be used (DecidePath::Fast)
    std::vector<Nanos> m_ring;
    std::vector<std::int64_t> m_costs; // parallel to m_ring; empty while every cost is 1
    std::int64_t m_used = 0;           // sum of the entries' costs (while all cost 1, m_size is; see decide1)
    std::int64_t m_head = 0;
    std::int64_t m_size = 0;
    std::int64_t m_mask = -1;
};

} // namespace ratelab
