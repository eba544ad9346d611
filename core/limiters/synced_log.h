// SyncedLog is the sliding window log of a store cell whose nodes decide on copies of the store
// (hybrid: a copy at each sync tick; racy: a copy at each read). It decides exactly as
// SlidingWindowLog; only its storage differs.
//
// Why a second class: copying a SlidingWindowLog copies every timestamp still in the window, up
// to L of them, and hybrid copies once a node and tick, racy once an attempt, which made those
// modes quadratic in the log (1M requests at L = 100,000: 7 s hybrid and 22 s racy, against
// 0.14 s shared). Here the store's entries live in one append-only buffer that its copies share:
// a copy is a shared pointer and a range, plus the few entries it admitted itself since. Only the
// buffer's owner (the store, the limiter that created it) appends to it; when half of it has
// expired the owner moves the rest to a new buffer, so it stays O(entries in the window), and a
// copy keeps the old one alive until it is copied again. SlidingWindowLog itself stays as it is:
// its one-pass path is the plain rows' hot loop.
#pragma once

#include "limiters/limiter.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ratelab {

class SyncedLog {
public:
    SyncedLog(std::int64_t limit, Nanos windowNanos) : m_limit(limit), m_windowNanos(windowNanos) {}

    // A copy shares the entries it was copied with and never appends to them.
    SyncedLog(const SyncedLog& o) { *this = o; }
    SyncedLog& operator=(const SyncedLog& o)
    {
        m_limit = o.m_limit;
        m_windowNanos = o.m_windowNanos;
        m_shared = o.m_shared;
        m_own = o.m_own.entries ? copyOf(o.m_own) : Range{};
        m_anyCost = o.m_anyCost;
        m_owner = false;
        return *this;
    }
    SyncedLog(SyncedLog&&) noexcept = default;
    SyncedLog& operator=(SyncedLog&&) noexcept = default;

    Decision decide(Nanos t) { return decide(t, 1); }

    // decide admits iff the kept entries' costs plus cost are at most the limit, then records
    // (t, cost), as SlidingWindowLog::decide does.
    Decision decide(Nanos t, std::int64_t cost)
    {
        expire(t);
        Decision d;
        if (usedFrom(0) + cost <= m_limit) {
            push(t, cost);
            d.allowed = true;
        } else {
            d.retryAfter = cost > m_limit ? kRetryNever : waitFor(t, cost);
        }
        const std::int64_t used = usedFrom(0);
        if (d.allowed || cost > 1)
            d.remaining = clampRemaining(m_limit - used);
        d.level = static_cast<double>(used);
        return d;
    }

    // waitFor returns how long until cost fits: entry i expires at at(i) + W, and the costs
    // still held fall as i grows, so the first i after which cost fits is a binary search.
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        std::int64_t lo = firstInside(t);
        if (usedFrom(lo) + cost <= m_limit || cost > m_limit) // as SlidingWindowLog: 0 when it never fits
            return 0;
        std::int64_t hi = size() - 1; // usedFrom(size()) is 0 and cost <= limit: fits after the last
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (usedFrom(mid + 1) + cost <= m_limit)
                hi = mid;
            else
                lo = mid + 1;
        }
        return m_windowNanos - (t - at(lo));
    }

    std::int32_t remainingAt(Nanos t) const { return clampRemaining(m_limit - usedFrom(firstInside(t))); }
    std::int64_t quota() const { return m_limit; }
    // retarget applies a new limit from t on (a limit change; the window stays).
    void retarget(const LimiterConfig& c, Nanos) { m_limit = c.limit(); }
    double levelAt(Nanos t) const { return static_cast<double>(usedFrom(firstInside(t))); }
    // memory counts as SlidingWindowLog does: 8 bytes a timestamp, 16 once any cost was not 1.
    Memory memory() const { return {(m_anyCost ? 16 : 8) * size(), size()}; }

private:
    // Entries holds times in order and costsBefore[i], the sum of the costs of entries before i.
    struct Entries {
        std::vector<Nanos> times;
        std::vector<std::int64_t> costsBefore{0};
        void push(Nanos t, std::int64_t cost)
        {
            times.push_back(t);
            costsBefore.push_back(costsBefore.back() + cost);
        }
    };
    // Range is the kept part [begin, end) of some entries.
    struct Range {
        std::shared_ptr<Entries> entries;
        std::int64_t begin = 0, end = 0;
        std::int64_t size() const { return end - begin; }
        Nanos at(std::int64_t i) const { return entries->times[std::size_t(begin + i)]; }
        // costOfFirst sums the costs of the first k kept entries.
        std::int64_t costOfFirst(std::int64_t k) const
        {
            return k == 0 ? 0 : entries->costsBefore[std::size_t(begin + k)] - entries->costsBefore[std::size_t(begin)];
        }
        void expire(Nanos oldestKept)
        {
            while (begin < end && entries->times[std::size_t(begin)] <= oldestKept)
                ++begin;
        }
    };

    std::int64_t size() const { return m_shared.size() + m_own.size(); }
    Nanos at(std::int64_t i) const { return i < m_shared.size() ? m_shared.at(i) : m_own.at(i - m_shared.size()); }
    // usedFrom sums the costs of the kept entries from index first on.
    std::int64_t usedFrom(std::int64_t first) const
    {
        const std::int64_t n = m_shared.size();
        const std::int64_t all = m_shared.costOfFirst(n) + m_own.costOfFirst(m_own.size());
        return all - (first <= n ? m_shared.costOfFirst(first) : m_shared.costOfFirst(n) + m_own.costOfFirst(first - n));
    }
    // firstInside returns the index of the first entry still inside at t (s > t - W).
    std::int64_t firstInside(Nanos t) const
    {
        std::int64_t lo = 0, hi = size();
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (at(mid) <= t - m_windowNanos)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    void expire(Nanos t)
    {
        const Nanos oldestKept = t - m_windowNanos;
        m_shared.expire(oldestKept);
        if (m_shared.size() == 0)
            m_own.expire(oldestKept);
    }
    void push(Nanos t, std::int64_t cost)
    {
        m_anyCost = m_anyCost || cost != 1;
        if (!m_shared.entries) { // nothing shared yet: this limiter starts the buffer and owns it
            m_shared.entries = std::make_shared<Entries>();
            m_owner = true;
        }
        Range& r = m_owner ? m_shared : m_own;
        if (!r.entries)
            r.entries = std::make_shared<Entries>();
        else if (r.begin > 1024 && 2 * r.begin > r.end) // half expired: move the rest
            compact(r);
        r.entries->push(t, cost);
        ++r.end;
    }
    // copyOf returns r's kept entries in a new buffer of their own.
    static Range copyOf(const Range& r)
    {
        auto fresh = std::make_shared<Entries>();
        fresh->times.reserve(std::size_t(r.size()) * 2);
        fresh->costsBefore.reserve(std::size_t(r.size()) * 2 + 1);
        for (std::int64_t i = 0; i < r.size(); ++i)
            fresh->push(r.at(i), r.costOfFirst(i + 1) - r.costOfFirst(i));
        return Range{std::move(fresh), 0, r.size()};
    }
    // compact moves r's kept entries to a new buffer; copies still holding the old one keep it.
    static void compact(Range& r) { r = copyOf(r); }

    std::int64_t m_limit;
    Nanos m_windowNanos;
    Range m_shared;        // the owner's entries, or the store's as of this copy
    Range m_own;           // a copy's own admissions since: never shared, a copy copies them
    bool m_anyCost = false;
    bool m_owner = false;
};

} // namespace ratelab
