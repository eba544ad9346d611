#include "server/bulkhead.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab {

Gate::Verdict Bulkhead::offer(Nanos, std::int64_t id, std::int64_t)
{
    // BulkheadPolicy.js lines 54-55: `if (this.active < this.capacity) { this.active++; ...`
    if (m_active < m_maxParallel) {
        ++m_active;
        return Verdict::Admit;
    }
    // Lines 64-67: `if (this.queue.length < this.queueCapacity) { ... this.queue.push(...)`
    if (std::int64_t(m_queue.size()) < m_maxQueue) {
        m_queue.push_back(Queued{id, false});
        return Verdict::Queue;
    }
    // Lines 69-70: `throw new BulkheadRejectedError(...)`
    return Verdict::Reject;
}

void Bulkhead::release(Nanos, std::int64_t, bool, std::vector<std::int64_t>& dispatched)
{
    // Lines 59-62, the finally of a running call, whatever its outcome: `this.active--;
    // this.dequeue();`. dequeue (lines 72-83) shifts the head and runs execute for it on the next
    // microtask, before any other event of the instant: the slot just freed is the head's.
    // An aborted head is shifted out and rejected (TaskCancelledError) without taking the slot,
    // and dequeue runs again for the next (lines 78-81).
    if (m_active > 0)
        --m_active;
    while (!m_queue.empty() && m_active < m_maxParallel) {
        const Queued head = m_queue.front();
        m_queue.pop_front();
        if (head.aborted)
            continue;
        ++m_active;
        dispatched.push_back(head.id);
    }
}

bool Bulkhead::cancel(Nanos, std::int64_t id)
{
    // cockatiel 4.0.0 adds no abort listener to a queued item (lines 64-67): the
    // signal is read only when dequeue reaches it. Ids are offered increasing, so the queue is
    // sorted by id.
    const auto it = std::lower_bound(m_queue.begin(), m_queue.end(), id,
                                     [](const Queued& q, std::int64_t v) { return q.id < v; });
    if (it == m_queue.end() || it->id != id || it->aborted)
        return false;
    it->aborted = true;
    return true;
}

GateRecipe readBulkhead(GateOptions& o)
{
    const std::int64_t maxParallel = o.integer("max_parallel", 0, 1, 1'000'000);
    const std::int64_t maxQueue = o.integer("max_queue", 0, 0, 10'000'000);
    o.done();
    if (maxParallel == 0)
        throw InputError("bulkhead: max_parallel: required (the calls it runs at once, 1 or more)");
    return {[maxParallel, maxQueue](std::uint64_t) -> std::unique_ptr<Gate> {
        return std::make_unique<Bulkhead>(maxParallel, maxQueue);
    }};
}

} // namespace ratelab
