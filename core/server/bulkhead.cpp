#include "server/bulkhead.h"

#include "arithmetic/decimal.h"

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
        m_queue.push_back(id);
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
    if (m_active > 0)
        --m_active;
    if (m_queue.empty() || m_active >= m_maxParallel)
        return;
    ++m_active;
    dispatched.push_back(m_queue.front());
    m_queue.pop_front();
}

std::unique_ptr<Gate> makeBulkhead(GateOptions& o, std::uint64_t)
{
    const std::int64_t maxParallel = o.integer("max_parallel", 0, 1, 1'000'000);
    const std::int64_t maxQueue = o.integer("max_queue", 0, 0, 10'000'000);
    o.done();
    if (maxParallel == 0)
        throw InputError("bulkhead: max_parallel: required (the calls it runs at once, 1 or more)");
    return std::make_unique<Bulkhead>(maxParallel, maxQueue);
}

} // namespace ratelab
