// The column reducer: a trace reduced to pixel columns as its requests go by, with the limiter
// that decides them at hand. Internal to core/view (reduce.cpp, the fused pass).
#pragma once

#include "view/reduce.h"

#include <algorithm>
#include <type_traits>
#include <utility>

namespace ratelab::detail {

// A limiter that reports its level as the integer it is computed from (levelUnitsAt) is reduced
// in those units: a column's extremes are the extremes of its units, converted once when it
// closes, which gives the same doubles (the conversion never lowers a level as units grow).
// Any other limiter is reduced in its levels.
template <typename L>
concept HasLevelUnits = requires(const L& l, Nanos t) { l.levelFromUnits(l.levelUnitsAt(t)); };

// A limiter that reports in units the level right after its last decision (decidedLevelUnits,
// the same as levelUnitsAt at that decision's time) and what one admission of cost 1 adds to it
// (admissionUnits) lets a pass of cost-1 requests skip asking the level at each request's time,
// before and after: the level before is the one after, less the admission if there was one. The
// log and the fixed window do (their count is at hand; asking costs them a search or divisions);
// the buckets, whose level the 64-bit decision leaves in registers, are slower with it (a token
// bucket's pass by about half) and ask.
template <typename L>
concept HasDecidedLevel = HasLevelUnits<L> && requires(const L& l) {
    l.decidedLevelUnits();
    l.admissionUnits();
};

template <typename L>
auto levelKeyAt(const L& limiter, Nanos t)
{
    if constexpr (HasLevelUnits<L>)
        return limiter.levelUnitsAt(t);
    else
        return limiter.levelAt(t);
}

template <typename L, typename K>
double levelOfKey(const L& limiter, K key)
{
    if constexpr (HasLevelUnits<L>)
        return limiter.levelFromUnits(key);
    else
        return key;
}

// OpenColumn is what the reduction touches for each request: the open column's bounds, counts
// and extreme levels (as keys: units or levels). The caller keeps it as a local, so the compiler
// holds it in registers; as the reducer's members (which the columns' doubles may alias) it went
// through memory.
template <typename K>
struct OpenColumn {
    Nanos lo = 0, hi = 0; // a request at lo <= t < hi falls in it; none before the first and after the last
    std::int32_t count = 0, delayed = 0, denied = 0;
    K levelMin{}, levelMax{};
    Nanos firstT = 0, lastT = 0;
    K firstBefore{}, firstAfter{}, lastAfter{};
    K before{}; // the level key just before the request being decided

    // add counts a request of this column: its time, its level keys just before and just after
    // its decision, and the decision's lane.
    void add(Nanos t, K before, K after, Verdict v)
    {
        if (count++ == 0) {
            firstT = t;
            firstBefore = before;
            firstAfter = after;
        }
        lastT = t;
        lastAfter = after;
        levelMin = std::min(levelMin, std::min(before, after));
        levelMax = std::max(levelMax, std::max(before, after));
        // The lanes as bits, without a branch.
        static_assert(int(Verdict::Delayed) == 1 && int(Verdict::Denied) == 2);
        denied += std::uint8_t(v) >> 1;
        delayed += std::uint8_t(v) & 1;
    }
};

// ColumnReducer reduces a row to columns as its requests go by in time order, with the limiter
// that decides them at hand: a column's levels are asked at its edges, when every request before
// the edge is decided and none after it. Requests before `from` pass through untouched.
// OpenColumns holds an open column for each kind of level key; a row's limiter uses one.
struct OpenColumns {
    explicit OpenColumns(Nanos fromNanos)
        : units{fromNanos, fromNanos}, counts{fromNanos, fromNanos}, levels{fromNanos, fromNanos}
    {
    }
    OpenColumn<Int128> units;
    OpenColumn<std::int64_t> counts;
    OpenColumn<double> levels;

    template <typename L>
    auto& of()
    {
        using K = decltype(levelKeyAt(std::declval<const L&>(), 0));
        if constexpr (std::is_same_v<K, Int128>)
            return units;
        else if constexpr (std::is_same_v<K, std::int64_t>)
            return counts;
        else
            return levels;
    }
};

class ColumnReducer {
public:
    ColumnReducer(ReducedRow& out, Nanos fromNanos, Nanos toNanos, int columns)
        : m_out(out), m_from(fromNanos), m_to(toNanos), m_columns(columns)
    {
        out.fromNanos = fromNanos;
        out.toNanos = toNanos;
        out.columns.resize(std::size_t(columns));
        out.levelPoints.reserve(4 * std::size_t(columns) + 8);
    }

    // reach closes every column that ends at or before t, the time of the next request, and
    // reports whether that request falls in a column (then `open` is that column).
    template <typename L, typename K>
    bool reach(const L& limiter, OpenColumn<K>& open, Nanos t)
    {
        if (t >= open.lo && t < open.hi) [[likely]]
            return true;
        if (t < m_from)
            return false;
        if (m_k < 0)
            start(limiter, open, 0);
        while (m_k < m_columns && t >= open.hi)
            next(limiter, open);
        return m_k < m_columns;
    }

    // finish closes the columns left once every request is decided.
    // closed reports whether every column is closed: no later request falls in one.
    bool closed() const { return m_k >= m_columns; }
    Nanos from() const { return m_from; }

    template <typename L, typename K>
    void finish(const L& limiter, OpenColumn<K>& open)
    {
        if (m_k < 0)
            start(limiter, open, 0);
        while (m_k < m_columns)
            next(limiter, open);
    }

private:
    template <typename L, typename K>
    void start(const L& limiter, OpenColumn<K>& open, int k)
    {
        m_k = k;
        open = OpenColumn<K>{};
        open.lo = columnStart(m_from, m_to, m_columns, k);
        open.hi = columnStart(m_from, m_to, m_columns, k + 1);
        open.levelMin = open.levelMax = levelKeyAt(limiter, open.lo);
        m_levelFirst = levelOfKey(limiter, open.levelMin);
    }

    template <typename L, typename K>
    void next(const L& limiter, OpenColumn<K>& open)
    {
        Column& c = m_out.columns[std::size_t(m_k)];
        c.admitted = open.count - open.delayed - open.denied;
        c.delayed = open.delayed;
        c.denied = open.denied;
        c.levelFirst = m_levelFirst;
        const K last = levelKeyAt(limiter, open.hi);
        c.levelLast = levelOfKey(limiter, last);
        c.levelMin = levelOfKey(limiter, std::min(open.levelMin, last));
        c.levelMax = levelOfKey(limiter, std::max(open.levelMax, last));
        const auto emit = [&](Nanos at, double level) { m_out.levelPoints.push_back({secondsAsDouble(at), level}); };
        // A column starts where the last ended, at the same level: one vertex serves both.
        const auto& points = m_out.levelPoints;
        if (points.empty() || points.back().seconds != secondsAsDouble(open.lo) || points.back().level != c.levelFirst)
            emit(open.lo, c.levelFirst);
        if (open.count == 1) { // one request: its own step, exactly where it is
            emit(open.firstT, levelOfKey(limiter, open.firstBefore));
            emit(open.firstT, levelOfKey(limiter, open.firstAfter));
        } else if (open.count > 1 && open.firstT == open.lastT) { // many at one instant: their steps there
            emit(open.firstT, levelOfKey(limiter, open.firstBefore));
            emit(open.firstT, levelOfKey(limiter, open.levelMax));
            emit(open.firstT, levelOfKey(limiter, open.levelMin));
            emit(open.firstT, levelOfKey(limiter, open.lastAfter));
        } else if (open.count > 1) { // many: the column's extremes, drawn as one vertical stroke
            const Nanos mid = open.lo + (open.hi - open.lo) / 2;
            emit(mid, c.levelMax);
            emit(mid, c.levelMin);
        }
        // A level that holds and then steps at the column's end (a window rolls, an entry
        // expires) steps there, not over the column: zoomed to nanoseconds a column is many
        // pixels wide. A level that moves on its own (a bucket refilling) keeps its slope.
        if (open.hi - 1 >= open.lo && open.hi - 1 >= (open.count ? open.lastT : open.lo)) {
            const K justBefore = levelKeyAt(limiter, open.hi - 1);
            if (justBefore != last && justBefore == (open.count ? open.lastAfter : open.levelMin))
                emit(open.hi, levelOfKey(limiter, justBefore));
        }
        emit(open.hi, c.levelLast);
        if (m_k + 1 < m_columns) {
            start(limiter, open, m_k + 1);
        } else {
            m_k = m_columns;
            open.lo = open.hi = m_to; // no request falls in a column any more
        }
    }

    ReducedRow& m_out;
    Nanos m_from, m_to;
    int m_columns;
    int m_k = -1; // the open column; -1 before the first, m_columns after the last
    double m_levelFirst = 0;
};

} // namespace ratelab::detail
