// Bottleneck 2.19.5 transcribed; see bottleneck.h. Citations: LD = src/LocalDatastore.coffee,
// B = src/Bottleneck.coffee, Q = src/Queues.coffee, J = src/Job.coffee, at SGrondin/bottleneck
// commit b83528333ba4d27cf70b81cc2be12e09d7ff692f (identical to npm's bottleneck@2.19.5).
#include "server/bottleneck.h"

#include "arithmetic/decimal.h"
#include "server/gate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ratelab {

namespace {
constexpr std::int64_t kCount = std::int64_t(1) << 40;
constexpr std::int64_t kNone = BottleneckOptions::kNone;
} // namespace

int bottleneckPriority(double priority)
{
    // ~~x is ToInt32: it keeps an integer from -2^31 to 2^31 - 1 and changes every other number
    // (a fraction is truncated, a larger one wraps), which then gets the default.
    if (!(priority >= -2147483648.0 && priority <= 2147483647.0) || priority != std::trunc(priority))
        return 5;
    return std::clamp(int(priority), 0, 9);
}

BottleneckOptions readBottleneckOptions(GateOptions& o)
{
    BottleneckOptions b;
    b.maxConcurrent = o.integer("max_concurrent", kNone, 1, kCount);
    b.minTime = o.duration("min_time", 0);
    b.highWater = o.integer("high_water", kNone, 0, kCount);
    const std::string s = o.word("strategy", "leak", {"leak", "overflow", "overflow_priority", "block"});
    b.strategy = s == "leak" ? BottleneckOptions::Strategy::Leak
        : s == "overflow"    ? BottleneckOptions::Strategy::Overflow
        : s == "block"       ? BottleneckOptions::Strategy::Block
                             : BottleneckOptions::Strategy::OverflowPriority;
    b.penalty = o.duration("penalty", kNone);
    b.reservoir = o.integer("reservoir", kNone, 0, kCount);
    b.reservoirRefreshInterval = o.duration("reservoir_refresh_interval", kNone, true);
    b.reservoirRefreshAmount = o.integer("reservoir_refresh_amount", kNone, 0, kCount);
    b.reservoirIncreaseInterval = o.duration("reservoir_increase_interval", kNone, true);
    b.reservoirIncreaseAmount = o.integer("reservoir_increase_amount", kNone, 0, kCount);
    b.reservoirIncreaseMaximum = o.integer("reservoir_increase_maximum", kNone, 0, kCount);
    b.heartbeatInterval = o.duration("heartbeat_interval", b.heartbeatInterval, true);
    b.priority = bottleneckPriority(o.real("priority", 5, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()));
    o.done();
    // The heartbeat is a Node timer, whose resolution is 1 ms: a finer one would only make the
    // model beat a billion times a second.
    for (const auto& [key, value] : {std::pair{"heartbeat_interval", b.heartbeatInterval},
                                     std::pair{"reservoir_refresh_interval", b.reservoirRefreshInterval},
                                     std::pair{"reservoir_increase_interval", b.reservoirIncreaseInterval}})
        if (value != kNone && value < kNanosPerMs)
            throw InputError(std::string("bottleneck: ") + key + ": must be at least 1ms (got " + formatSeconds(value) + " s)");
    const auto pair = [](bool a, bool b2, const char* first, const char* second) {
        if (a != b2)
            throw InputError(std::string("bottleneck: ") + (a ? first : second) + " needs " + (a ? second : first));
    };
    pair(b.reservoirRefreshInterval != kNone, b.reservoirRefreshAmount != kNone, "reservoir_refresh_interval",
         "reservoir_refresh_amount");
    pair(b.reservoirIncreaseInterval != kNone, b.reservoirIncreaseAmount != kNone, "reservoir_increase_interval",
         "reservoir_increase_amount");
    if (b.reservoirIncreaseMaximum != kNone && b.reservoirIncreaseInterval == kNone)
        throw InputError("bottleneck: reservoir_increase_maximum needs reservoir_increase_interval");
    if (b.penalty != kNone && b.strategy != BottleneckOptions::Strategy::Block)
        throw InputError("bottleneck: penalty applies only to strategy=block");
    return b;
}

Bottleneck::Bottleneck(const BottleneckOptions& options) : m_o(options), m_reservoir(options.reservoir)
{
    // LD:16-22: the heartbeat runs, every heartbeatInterval from the limiter's creation, when a
    // refresh or an increase is set.
    scheduleBeat();
}

void Bottleneck::scheduleBeat()
{
    // The beats are at whole multiples of heartbeatInterval from creation; only one at or past
    // the last refresh plus its interval, or the last increase plus its, changes anything
    // (LD:25, 30), so the next beat kept is the first of those.
    const Int128 h = m_o.heartbeatInterval;
    Int128 due = kNever;
    if (m_o.reservoirRefreshInterval != kNone)
        due = std::min(due, ceilDiv(Int128(m_lastRefresh) + m_o.reservoirRefreshInterval, h) * h);
    if (m_o.reservoirIncreaseInterval != kNone)
        due = std::min(due, ceilDiv(Int128(m_lastIncrease) + m_o.reservoirIncreaseInterval, h) * h);
    m_nextBeat = Nanos(std::min(due, Int128(kNever)));
}

std::int64_t Bottleneck::capacity() const
{
    // LD:77-82: the least of maxConcurrent - running and the reservoir; null when neither is set.
    if (m_o.maxConcurrent != kNone && m_reservoir != kNone)
        return std::min(m_o.maxConcurrent - m_running, m_reservoir);
    if (m_o.maxConcurrent != kNone)
        return m_o.maxConcurrent - m_running;
    return m_reservoir;
}

bool Bottleneck::conditionsCheck() const
{
    const std::int64_t c = capacity();
    return c == kNone || 1 <= c; // LD:86, weight 1
}

void Bottleneck::drainAll(Nanos now)
{
    // B:158-186: while a call is queued, take the first of the most urgent non-empty priority
    // (Q:21-24, the oldest of it) and register it (LD:107-116): the capacity allows it (else stop),
    // running and the reservoir take it, and it starts after wait = max(nextRequest - now, 0)
    // (B:143-156, setTimeout(doExecute, wait)); nextRequest moves to its start plus minTime. The
    // capacity the callers pass (B:137, LD:28) stops no drain the register's own check would not.
    // minTime does not stop the drain: every call the capacity allows is registered at once,
    // spaced minTime apart.
    while (m_queued > 0 && conditionsCheck()) {
        auto& queue = *std::find_if(m_queues.begin(), m_queues.end(), [](const auto& q) { return !q.empty(); });
        ++m_running;
        if (m_reservoir != kNone)
            --m_reservoir;
        const Nanos start = std::max(m_nextRequest, now);
        m_nextRequest = later(start, m_o.minTime);
        if (start == now) { // no wait: it starts in this event, not at a timer of this instant
            m_startedNow.push_back(queue.front());
            m_startedAt = now;
        } else {
            m_scheduled.emplace_back(start, queue.front());
        }
        queue.pop_front();
        --m_queued;
    }
}

void Bottleneck::beat(Nanos now)
{
    // LD:25-28: a refresh due sets the reservoir to the amount (not adds) and drains.
    if (m_o.reservoirRefreshInterval != kNone && now >= later(m_lastRefresh, m_o.reservoirRefreshInterval)) {
        m_lastRefresh = now;
        m_reservoir = m_o.reservoirRefreshAmount;
        drainAll(now);
    }
    // LD:30-36: an increase due adds the amount, up to the maximum (a null reservoir reads as 0
    // in JavaScript's arithmetic), and drains when it added anything.
    if (m_o.reservoirIncreaseInterval != kNone && now >= later(m_lastIncrease, m_o.reservoirIncreaseInterval)) {
        const std::int64_t reservoir = m_reservoir == kNone ? 0 : m_reservoir;
        m_lastIncrease = now;
        const std::int64_t incr = m_o.reservoirIncreaseMaximum != kNone
            ? std::min(m_o.reservoirIncreaseAmount, m_o.reservoirIncreaseMaximum - reservoir)
            : m_o.reservoirIncreaseAmount;
        if (incr > 0) {
            m_reservoir = reservoir + incr;
            drainAll(now);
        }
    }
}

void Bottleneck::heartbeatsUntil(Nanos t, bool inclusive)
{
    while (m_nextBeat != kNever && (inclusive ? m_nextBeat <= t : m_nextBeat < t)) {
        beat(m_nextBeat);
        scheduleBeat();
    }
}

bool Bottleneck::dropLastFrom(int priority, std::vector<std::int64_t>& dropped)
{
    // Q:26: the least urgent non-empty list from `priority` on, its oldest call.
    for (int p = kPriorities - 1; p >= priority; --p)
        if (!m_queues[std::size_t(p)].empty()) {
            dropped.push_back(m_queues[std::size_t(p)].front());
            m_queues[std::size_t(p)].pop_front();
            --m_queued;
            return true;
        }
    return false;
}

void Bottleneck::submit(Nanos t, std::int64_t id, double given, std::vector<std::int64_t>& dropped)
{
    heartbeatsUntil(t, true);
    const int priority = bottleneckPriority(given); // lib/Job.js:21
    using S = BottleneckOptions::Strategy;
    // LD:125: the high water is reached when exactly highWater calls are queued and this one
    // could not start now (the capacity is full, or minTime has not passed since the last start).
    const bool canStartNow = conditionsCheck() && m_nextRequest - t <= 0; // LD:100
    const bool reachedHWM = m_o.highWater != kNone && m_queued == m_o.highWater && !canStartNow;
    // LD:98, 126-130: BLOCK blocks on the high water or while blocked (until unblockTime,
    // inclusive); each blocked call moves the end of the block to now + penalty, pushes the next
    // start past it and drops every queued call (B:188, in priority order), and this one (B:229).
    if (m_o.strategy == S::Block && (reachedHWM || m_unblockTime >= t)) {
        const Nanos penalty = m_o.penalty != kNone ? m_o.penalty
            : m_o.minTime != 0                    ? clampToNanos(Int128(15) * m_o.minTime)
                                                  : Nanos(5'000'000'000); // LD:52
        m_unblockTime = later(t, penalty);
        m_nextRequest = later(m_unblockTime, m_o.minTime);
        for (auto& queue : m_queues) {
            dropped.insert(dropped.end(), queue.begin(), queue.end());
            queue.clear();
        }
        m_queued = 0;
        dropped.push_back(id);
        return;
    }
    // B:232-239: LEAK drops the oldest of the least urgent priority at or below this one's,
    // OVERFLOW_PRIORITY of one strictly below, OVERFLOW this call; with nothing to drop, this call.
    if (reachedHWM) {
        const bool shifted = m_o.strategy == S::Leak       ? dropLastFrom(priority, dropped)
            : m_o.strategy == S::OverflowPriority           ? dropLastFrom(priority + 1, dropped)
                                                            : false;
        if (!shifted) {
            dropped.push_back(id);
            return;
        }
    }
    m_queues[std::size_t(priority)].push_back(id); // B:241-243
    ++m_queued;
    drainAll(t);
}

void Bottleneck::done(Nanos t, std::int64_t)
{
    heartbeatsUntil(t, false);
    --m_running; // LD:133-137
    drainAll(t);
}

Nanos Bottleneck::nextWake() const
{
    Nanos next = m_scheduled.empty() ? kNever : m_scheduled.front().first;
    // takeStarted reports m_startedNow; left unreported, it is due now (its start).
    if (!m_startedNow.empty())
        next = std::min(next, m_startedAt);
    if (m_queued > 0)
        next = std::min(next, m_nextBeat);
    return next;
}

void Bottleneck::wake(Nanos t, std::vector<std::int64_t>& started)
{
    takeStarted(started); // started by the last event, before these timers
    heartbeatsUntil(t, true);
    while (!m_scheduled.empty() && m_scheduled.front().first <= t) {
        started.push_back(m_scheduled.front().second);
        m_scheduled.pop_front();
    }
    takeStarted(started);
}

void Bottleneck::takeStarted(std::vector<std::int64_t>& started)
{
    started.insert(started.end(), m_startedNow.begin(), m_startedNow.end());
    m_startedNow.clear();
}

} // namespace ratelab
