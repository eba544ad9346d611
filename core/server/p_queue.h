// PQueue: npm's `p-queue` 10.0.0 (sindresorhus/p-queue; its dist/index.js and
// dist/priority-queue.js as npm ships them, the TypeScript of source/index.ts at commit
// 180ab9e25cd1, 9.3.3, holds the same rules) as a ClientThrottle. p_queue.cpp cites the line
// of dist/index.js (I) and dist/priority-queue.js (PQ) each rule comes from.
//
// Options: concurrency (how many run at once), interval and interval_cap (at most interval_cap
// starts in a window of `interval`; the windows are fixed, timed from the start that opened
// one), carryover_interval_count (a new window counts the calls still running; p-queue 9 also
// read it as carryoverConcurrencyCount, 10 reads only this name), strict (a sliding window: at
// most interval_cap starts in any `interval`). Left out: timeout, pause/start, abort signals,
// setPriority.
#pragma once

#include "server/client_throttle.h"

#include <deque>
#include <map>

namespace ratelab {

class GateOptions;

struct PQueueOptions {
    static constexpr std::int64_t kInfinity = INT64_MAX;
    std::int64_t concurrency = kInfinity;
    Nanos interval = 0;
    std::int64_t intervalCap = kInfinity;
    bool carryoverIntervalCount = false;
    bool strict = false;
    int priority = 0; // every call's (PQ:43, default 0)
};

// readPQueueOptions reads concurrency, interval, interval_cap, carryover_interval_count, strict
// and priority (an integer, every call's), and refuses what the package's constructor throws for (I:26-41: strict without an
// interval or a cap).
PQueueOptions readPQueueOptions(GateOptions& o);

class PQueue final : public ClientThrottle {
public:
    explicit PQueue(const PQueueOptions& options);

    void submit(Nanos t, std::int64_t id, double priority, std::vector<std::int64_t>& dropped) override;
    void done(Nanos t, std::int64_t id) override;
    Nanos nextWake() const override;
    void wake(Nanos t, std::vector<std::int64_t>& started) override;
    void takeStarted(std::vector<std::int64_t>& started) override;
    double defaultPriority() const override { return m_o.priority; }

private:
    void timersUntil(Nanos t, bool inclusive);
    bool startNextTask(Nanos now); // I:361-396
    void processQueue(Nanos now);  // I:430-433
    bool isIntervalPausedAt(Nanos now);
    void createIntervalTimeout(Nanos now, Nanos delay);
    void initializeIntervalIfNeeded(Nanos now);
    void onInterval(Nanos now);
    void cleanupStrictTicks(Nanos now);
    std::int64_t countAtWindowStart() const { return m_o.carryoverIntervalCount ? m_pending : 0; }

    PQueueOptions m_o;
    bool m_intervalIgnored;
    std::int64_t m_pending = 0;
    std::int64_t m_intervalCount = 0;
    Nanos m_intervalEnd = std::numeric_limits<Nanos>::min(); // I:58: 0 of the epoch, long past
    Nanos m_intervalNext = kNever;                           // the recurring timer's next firing; kNever: none
    Nanos m_timeoutAt = kNever;                              // the one-shot resume timer; kNever: none
    std::deque<Nanos> m_strictTicks;
    std::multimap<double, std::int64_t, std::greater<>> m_queue; // priority (larger first), then FIFO
    std::vector<std::int64_t> m_ready;                         // started, not yet reported
    Nanos m_now = 0;                                           // the last event's time
};

} // namespace ratelab
