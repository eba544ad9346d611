// Bottleneck: npm's `bottleneck` 2.19.5 (SGrondin/bottleneck, commit b83528333ba4, the same
// src/*.coffee the npm package ships), its local datastore, as a ClientThrottle. Every rule is
// transcribed from src/LocalDatastore.coffee (LD), src/Bottleneck.coffee (B) and
// src/Queues.coffee (Q); bottleneck.cpp cites the line of each.
//
// What it leaves out, named: weights (every call weighs 1), expiration, retries, Groups, Redis
// clustering, updateSettings and incrementReservoir at run time. The package's hops through
// setTimeout(…, 0) (LD:50 yieldLoop), which Node runs at least 1 ms later, take no time here: the
// model is the package's decisions, not its event loop's latency.
#pragma once

#include "server/client_throttle.h"

#include <array>
#include <deque>
#include <memory>

namespace ratelab {

class GateOptions;

struct BottleneckOptions {
    enum class Strategy : std::uint8_t { Leak, Overflow, OverflowPriority, Block };
    static constexpr std::int64_t kNone = -1; // an option the package leaves null

    std::int64_t maxConcurrent = kNone;
    Nanos minTime = 0;
    std::int64_t highWater = kNone;
    Strategy strategy = Strategy::Leak;
    Nanos penalty = kNone; // null: 15 * minTime, or 5000 ms when that is 0 (LD:52)
    std::int64_t reservoir = kNone;
    Nanos reservoirRefreshInterval = kNone;
    std::int64_t reservoirRefreshAmount = kNone;
    Nanos reservoirIncreaseInterval = kNone;
    std::int64_t reservoirIncreaseAmount = kNone;
    std::int64_t reservoirIncreaseMaximum = kNone;
    Nanos heartbeatInterval = 250'000'000; // B:43 localStoreDefaults
    int priority = 5;                      // every call's, as bottleneckPriority makes it (lib/Job.js:9)
};

// bottleneckPriority returns the priority Bottleneck gives a call scheduled with `priority`
// (npm's lib/Job.js:34-45, _sanitizePriority): a number ~~ changes (a fraction, or one past 32
// bits) is the default 5, others are clamped into 0..9.
int bottleneckPriority(double priority);

// readBottleneckOptions reads max_concurrent, min_time, high_water, strategy (leak, overflow,
// overflow_priority, block), penalty, reservoir, reservoir_refresh_interval/_amount,
// reservoir_increase_interval/_amount/_maximum, heartbeat_interval and priority (any number,
// bottleneckPriority), and refuses an interval
// without its amount (and the reverse), which the package would read as a null reservoir, and
// timers finer than 1 ms.
BottleneckOptions readBottleneckOptions(GateOptions& o);

class Bottleneck final : public ClientThrottle {
public:
    explicit Bottleneck(const BottleneckOptions& options);

    void submit(Nanos t, std::int64_t id, double priority, std::vector<std::int64_t>& dropped) override;
    void done(Nanos t, std::int64_t id) override;
    Nanos nextWake() const override;
    void wake(Nanos t, std::vector<std::int64_t>& started) override;
    void takeStarted(std::vector<std::int64_t>& started) override;
    double defaultPriority() const override { return m_o.priority; }

private:
    static constexpr int kPriorities = 10;
    std::int64_t capacity() const; // kNone for null (LD:77)
    bool conditionsCheck() const;  // LD:84
    void drainAll(Nanos now);      // B:158-186 with LD:107
    void heartbeatsUntil(Nanos t, bool inclusive);
    void scheduleBeat();
    void beat(Nanos now); // LD:22-36
    bool dropLastFrom(int priority, std::vector<std::int64_t>& dropped); // Q:26

    BottleneckOptions m_o;
    std::array<std::deque<std::int64_t>, kPriorities> m_queues;
    std::int64_t m_queued = 0;
    std::int64_t m_running = 0;
    std::int64_t m_reservoir;
    Nanos m_nextRequest = 0;                                   // LD:8, made at t = 0
    Nanos m_unblockTime = std::numeric_limits<Nanos>::min();   // LD:11: 0 of the epoch, long past
    Nanos m_lastRefresh = 0;
    Nanos m_lastIncrease = 0;
    Nanos m_nextBeat = kNever;
    std::deque<std::pair<Nanos, std::int64_t>> m_scheduled; // registered to start later: start, id (starts never decrease)
    std::vector<std::int64_t> m_startedNow;                 // registered to start at once (B:143-156, wait 0), not reported
    Nanos m_startedAt = 0;                                  // their start
};

} // namespace ratelab
