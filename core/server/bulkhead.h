// Bulkhead: npm cockatiel's BulkheadPolicy as a Gate (kind "bulkhead", options max_parallel and
// max_queue). Transcribed from cockatiel 4.0.0: the npm package's dist/BulkheadPolicy.js, and its
// source, src/BulkheadPolicy.ts of github.com/connor4312/cockatiel at commit
// f475a690eedbb9dc7e495b6e4b0f42105c195ec3 ("docs: for 4.0.0"), the same code:
//   - execute (.js lines 54-70, .ts 74-91): a call runs while active < capacity (maxParallel),
//     else it waits in a FIFO queue while queue.length < queueCapacity (maxQueue), else it is
//     rejected (BulkheadRejectedError, a 503 here);
//   - the finally of execute and dequeue (.js 59-62 and 72-85, .ts 78-81 and 94-109): when a
//     running call settles, succeeded or failed alike, active drops by one and the head of the
//     queue is shifted out and executed on the next microtask. execute checks the slot again
//     there; no arrival comes between (the server's order: completions, then arrivals), so the
//     head always takes the slot just freed.
//   - a queued call's AbortSignal (.js 50-53 and 72-85, .ts 66-72 and 94-109): a RateLab client
//     that gives up at a + T aborts it (Gate::cancel). cockatiel does not listen to the signal
//     while the call waits: the call keeps its place in the queue (queue.length still counts it
//     against queueCapacity) until dequeue shifts it out, sees signal.aborted, rejects it with
//     TaskCancelledError and dequeues the next head in its place (.js 78-81, .ts 101-104): the
//     aborted call never takes a slot.
// bulkhead(limit, queue = 0) (.js dist/Policy.js line 145, .ts src/Policy.ts 263): the queue is 0
// unless given, as max_queue's default here.
#pragma once

#include "server/gate.h"

#include <deque>

namespace ratelab {

// Bulkhead admits while fewer than maxParallel attempts are in flight, queues while its queue
// has room, and rejects the rest; release runs the head of its queue.
class Bulkhead final : public Gate {
public:
    // Bulkhead takes maxParallel >= 1 and maxQueue >= 0 (readBulkhead checks them).
    Bulkhead(std::int64_t maxParallel, std::int64_t maxQueue) : m_maxParallel(maxParallel), m_maxQueue(maxQueue) {}

    Verdict offer(Nanos t, std::int64_t id, std::int64_t client) override;
    void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) override;
    // cancel aborts queued call `id`: it keeps its queue place and is skipped when it reaches the
    // head; true when it was queued (the bulkhead never runs it).
    bool cancel(Nanos t, std::int64_t id) override;
    std::int64_t limit() const override { return m_maxParallel; }
    std::int64_t inflight() const override { return m_active; }
    std::int64_t queued() const override { return std::int64_t(m_queue.size()); }

private:
    std::int64_t m_maxParallel;
    std::int64_t m_maxQueue;
    std::int64_t m_active = 0;
    struct Queued {
        std::int64_t id;
        bool aborted; // its signal is aborted: dequeue will skip it
    };
    std::deque<Queued> m_queue; // oldest first, aborted calls included (they hold their place)
};

// readBulkhead reads "max_parallel=N[,max_queue=M]" (max_parallel required, 1 to 1,000,000;
// max_queue 0 to 10,000,000, default 0 as cockatiel's).
GateRecipe readBulkhead(GateOptions& o);

} // namespace ratelab
