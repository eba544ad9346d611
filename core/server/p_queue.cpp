// p-queue 10.0.0 transcribed; see p_queue.h. Citations: I = dist/index.js, PQ =
// dist/priority-queue.js of npm's p-queue@10.0.0. Its timers (setInterval, setTimeout) are kept
// as the time each fires next; kNever is a cleared one.
#include "server/p_queue.h"

#include "arithmetic/decimal.h"
#include "server/gate.h"

#include <limits>

namespace ratelab {

PQueueOptions readPQueueOptions(GateOptions& o)
{
    constexpr std::int64_t kCount = std::int64_t(1) << 40;
    PQueueOptions p;
    // I:19-25: the limits are integers from 1 (Infinity when absent, I:87).
    p.concurrency = o.integer("concurrency", PQueueOptions::kInfinity, 1, kCount);
    p.interval = o.duration("interval", 0);
    p.intervalCap = o.integer("interval_cap", PQueueOptions::kInfinity, 1, kCount);
    p.carryoverIntervalCount = o.flag("carryover_interval_count", false);
    p.strict = o.flag("strict", false);
    p.priority = int(o.integer("priority", 0, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
    o.done();
    // The interval is a Node timer, whose resolution is 1 ms: a finer one would only make the
    // model tick a billion times a second.
    if (p.interval != 0 && p.interval < 1'000'000)
        throw InputError("p-queue: interval: must be 0 or at least 1ms (got " + formatSeconds(p.interval) + " s)");
    if (p.strict && p.interval == 0)
        throw InputError("p-queue: strict needs an interval of more than 0 s"); // I:35-37
    if (p.strict && p.intervalCap == PQueueOptions::kInfinity)
        throw InputError("p-queue: strict needs an interval_cap"); // I:38-40
    return p;
}

PQueue::PQueue(const PQueueOptions& options)
    : m_o(options), m_intervalIgnored(options.intervalCap == PQueueOptions::kInfinity || options.interval == 0) // I:90
{
}

void PQueue::cleanupStrictTicks(Nanos now)
{
    // I:209-219: a start older than the interval (now - tick >= interval) no longer counts.
    while (!m_strictTicks.empty() && now - m_strictTicks.front() >= m_o.interval)
        m_strictTicks.pop_front();
}

void PQueue::createIntervalTimeout(Nanos now, Nanos delay)
{
    if (m_timeoutAt == kNever) // I:312-319: one resume timer at a time
        m_timeoutAt = later(now, delay);
}

bool PQueue::isIntervalPausedAt(Nanos now)
{
    // I:282-296, strict: at the cap, wait until the oldest start of the last interval ages out.
    if (m_o.strict) {
        cleanupStrictTicks(now);
        if (std::int64_t(m_strictTicks.size()) >= m_o.intervalCap) {
            createIntervalTimeout(now, m_o.interval - (now - m_strictTicks.front()));
            return true;
        }
        return false;
    }
    // I:297-310, fixed windows: with no recurring timer (the queue went idle), a window that
    // has ended restarts the count (the running calls with carryover, I:164-166); inside the
    // window, a resume timer is set for its end and no new window may open now.
    if (m_intervalNext == kNever) {
        if (m_intervalEnd <= now)
            m_intervalCount = countAtWindowStart();
        else {
            createIntervalTimeout(now, m_intervalEnd - now);
            return true;
        }
    }
    return false;
}

void PQueue::initializeIntervalIfNeeded(Nanos now)
{
    // I:397-408: the first start with no recurring timer opens a window of `interval` from now
    // and starts the recurring timer (setInterval), clearing a resume timer.
    if (m_intervalIgnored || m_intervalNext != kNever || m_o.strict)
        return;
    m_timeoutAt = kNever;
    m_intervalNext = later(now, m_o.interval);
    m_intervalEnd = later(now, m_o.interval);
}

void PQueue::onInterval(Nanos now)
{
    // I:409-426: the recurring timer stops at a firing with nothing started in the window and
    // nothing running, else opens the next window; either way the count restarts.
    if (!m_o.strict) {
        if (m_intervalNext != kNever) {
            if (m_intervalCount == 0 && m_pending == 0)
                m_intervalNext = kNever;
            else
                m_intervalEnd = later(now, m_o.interval);
        }
        m_intervalCount = countAtWindowStart();
    }
    processQueue(now);
}

bool PQueue::startNextTask(Nanos now)
{
    if (m_queue.empty()) {
        // I:335-351 (#emitEmptyAndIdle): an empty queue stops the recurring timer; with nothing
        // running either, the resume timer too.
        m_intervalNext = kNever;
        if (m_pending == 0)
            m_timeoutAt = kNever;
        return false;
    }
    const bool canInitializeInterval = !isIntervalPausedAt(now); // I:373-374
    const bool intervalAllows = m_intervalIgnored
        || (m_o.strict ? std::int64_t(m_strictTicks.size()) : m_intervalCount) < m_o.intervalCap; // I:254-261
    if (intervalAllows && m_pending < m_o.concurrency) { // I:375
        const auto first = m_queue.begin();               // PQ:90-91, the head
        m_ready.push_back(first->second);
        m_queue.erase(first);
        if (!m_intervalIgnored) { // I:377-380, I:231-238
            if (m_o.strict)
                m_strictTicks.push_back(now);
            else
                ++m_intervalCount;
        }
        if (canInitializeInterval)
            initializeIntervalIfNeeded(now);
        ++m_pending; // I:472
        return true;
    }
    return false;
}

void PQueue::processQueue(Nanos now)
{
    while (startNextTask(now)) { // I:430-433
    }
}

void PQueue::timersUntil(Nanos t, bool inclusive)
{
    for (;;) {
        const Nanos next = std::min(m_intervalNext, m_timeoutAt);
        if (next == kNever || next > t || (!inclusive && next == t))
            return;
        if (m_intervalNext == next) {
            // The recurring timer (I:404-406) fires and is due again one interval later.
            m_intervalNext = later(next, m_o.interval);
            onInterval(next);
        } else {
            // I:273-281 (#onResumeInterval): the resume timer fires once, runs the window's
            // turn and opens a window if none is open.
            m_timeoutAt = kNever;
            onInterval(next);
            initializeIntervalIfNeeded(next);
        }
    }
}

void PQueue::submit(Nanos t, std::int64_t id, double priority, std::vector<std::int64_t>&)
{
    m_now = t;
    timersUntil(t, true);
    // PQ:42-67: larger priorities first, FIFO among equal ones (a multimap inserts an equal key
    // after the others).
    const bool hasWaitingTasks = !m_queue.empty();
    m_queue.emplace(priority, id);
    // I:566-572: with calls already waiting the queue starts all it can, else it tries once: a
    // call that starts at once does not reach #emitEmptyAndIdle, which would stop the recurring
    // timer.
    if (hasWaitingTasks)
        processQueue(t);
    else
        startNextTask(t);
}

void PQueue::done(Nanos t, std::int64_t)
{
    m_now = t;
    timersUntil(t, false);
    --m_pending; // I:265-272 (#next, a microtask after the call settles, I:539-541)
    processQueue(t);
}

Nanos PQueue::nextWake() const
{
    // Calls started by the last event are due at once; the timers stop by themselves when idle.
    return m_ready.empty() ? std::min(m_intervalNext, m_timeoutAt) : m_now;
}

void PQueue::wake(Nanos t, std::vector<std::int64_t>& started)
{
    m_now = t;
    timersUntil(t, true);
    takeStarted(started);
}

void PQueue::takeStarted(std::vector<std::int64_t>& started)
{
    started.insert(started.end(), m_ready.begin(), m_ready.end());
    m_ready.clear();
}

} // namespace ratelab
