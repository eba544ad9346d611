#include "server/apf.h"

#include "arithmetic/decimal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ratelab {

namespace {

// kMaxSeatSeconds is MaxSeatSeconds (ss.go:32); rDecrement and highR bound the progress meter
// (qs.go:483, 487).
constexpr ApfGate::SeatSeconds kMaxSeatSeconds = std::numeric_limits<std::uint64_t>::max();
constexpr ApfGate::SeatSeconds kRDecrement = kMaxSeatSeconds / 2;
constexpr ApfGate::SeatSeconds kHighR = kRDecrement + kRDecrement / 2;
// kSeats is every request's width: WorkEstimate{InitialSeats: minimumSeats = 1} with no final
// seats and no additional latency (request/width.go:135, config.go's MinimumSeats).
constexpr std::int64_t kSeats = 1;

} // namespace

ApfGate::SeatSeconds ApfGate::seatsTimesDuration(double seats, Nanos d)
{
    // SeatSeconds(int64(math.Round(seats * float64(duration/time.Nanosecond) / (1e9 / ssScale))))
    const double x = std::round(seats * static_cast<double>(d) / (1e9 / 1e8));
    const std::int64_t i = (x >= -9.223372036854775808e18 && x < 9.223372036854775808e18)
                               ? static_cast<std::int64_t>(x)
                               : std::numeric_limits<std::int64_t>::min();
    return static_cast<SeatSeconds>(i); // a negative value wraps, as SeatSeconds(int64) does
}

ApfGate::ApfGate(const ApfConfig& config) : m_cfg(config), m_work(seatsTimesDuration(kSeats, kEstimatedServiceDuration))
{
    // checkConfig (qs.go:199-208): no dealer without queues; otherwise NewDealer's checks.
    if (m_cfg.queues > 0) {
        m_dealer.emplace(m_cfg.queues, m_cfg.handSize);
        m_queues.resize(static_cast<std::size_t>(m_cfg.queues)); // createQueues, qs.go:231-237
    }
}

// syncTime is syncTimeLocked (qs.go:465-479): R advances by the ratio times the real time since
// the last sync, then winds back by rDecrement past highR.
void ApfGate::syncTime(Nanos t)
{
    const Nanos since = t - m_lastRealTime;
    m_lastRealTime = t;
    const SeatSeconds prevR = m_currentR;
    const SeatSeconds incrR = seatsTimesDuration(virtualTimeRatio(), since);
    m_currentR = prevR + incrR;
    if (prevR <= m_currentR && m_currentR >= kHighR) // the source only logs an overflow
        advanceEpoch();
}

// virtualTimeRatio is getVirtualTimeRatioLocked (qs.go:526-541): min(seats requested, limit) /
// active queues, 0 when none is active. The source sums both over the queues at every call;
// here they are kept as the queues change (the seats requested are the seats in use plus the
// waiting requests' seats, every request in a queue when there are queues).
double ApfGate::virtualTimeRatio() const
{
    if (m_activeQueues == 0)
        return 0;
    const std::int64_t seatsRequested = m_totSeatsInUse + m_totRequestsWaiting * kSeats;
    return std::min(static_cast<double>(seatsRequested), static_cast<double>(m_cfg.seats))
           / static_cast<double>(m_activeQueues);
}

// advanceEpoch is qs.go:492-522: R and every reading taken from it go back by rDecrement; an
// idle queue's start is reset to 0.
void ApfGate::advanceEpoch()
{
    m_currentR -= kRDecrement;
    for (Queue& q : m_queues) {
        if (q.waiting.empty() && q.executing == 0) {
            q.nextDispatchR = 0;
            continue;
        }
        q.nextDispatchR -= kRDecrement;
        for (Waiting& w : q.waiting)
            w.arrivalR -= kRDecrement;
    }
}

// shuffleShard is shuffleShardLocked (qs.go:583-612): deal the flow's hand, visit it from an
// offset that turns with every enqueue attempt, take the first queue with the least waiting work.
int ApfGate::shuffleShard(std::int64_t client)
{
    auto it = m_hands.find(client);
    if (it == m_hands.end())
        it = m_hands.emplace(client, m_dealer->deal(hashFlowId(kFlowSchema, std::to_string(client)))).first;
    const std::vector<int>& hand = it->second;
    const auto handSize = static_cast<std::int64_t>(hand.size());
    const std::int64_t offset = m_enqueues % handSize;
    ++m_enqueues;
    int best = -1;
    SeatSeconds minQueueSeatSeconds = kMaxSeatSeconds;
    for (std::int64_t i = 0; i < handSize; ++i) {
        const int idx = hand[static_cast<std::size_t>((offset + i) % handSize)];
        const SeatSeconds work = m_queues[static_cast<std::size_t>(idx)].waiting.size() * m_work; // TotalWorkSum
        if (work < minQueueSeatSeconds) {
            minQueueSeatSeconds = work;
            best = idx;
        }
    }
    return best;
}

// canAccommodateSeats is canAccommodateSeatsLocked (qs.go:748-769).
bool ApfGate::canAccommodateSeats(std::int64_t seats) const
{
    if (seats > m_cfg.seats)
        return m_totRequestsExecuting == 0;
    return m_totSeatsInUse + seats <= m_cfg.seats;
}

// boundNextDispatch is boundNextDispatchLocked (qs.go:952-964), the anti-windup: a queue's next
// dispatch does not precede its oldest waiting request's arrival in R.
void ApfGate::boundNextDispatch(Queue& q)
{
    if (!q.waiting.empty() && q.nextDispatchR < q.waiting.front().arrivalR)
        q.nextDispatchR = q.waiting.front().arrivalR;
}

Gate::Verdict ApfGate::offer(Nanos t, std::int64_t id, std::int64_t client)
{
    syncTime(t); // StartRequest, qs.go:308-356
    if (m_cfg.queues < 1) {
        // Step 0 (qs.go:316-326): the concurrency limit alone; dispatchSansQueueLocked.
        if (!canAccommodateSeats(kSeats))
            return Verdict::Reject;
        ++m_totRequestsExecuting;
        m_totSeatsInUse += kSeats;
        m_executing.emplace(id, Executing{-1, t});
        return Verdict::Admit;
    }
    // Step 1: shuffleShardAndRejectOrEnqueueLocked (qs.go:552-579).
    const int qi = shuffleShard(client);
    m_lastQueue = qi;
    Queue& q = m_queues[static_cast<std::size_t>(qi)];
    // rejectOrEnqueueToBoundLocked (qs.go:618-629): only when every seat is taken.
    if (m_totSeatsInUse >= m_cfg.seats && static_cast<std::int64_t>(q.waiting.size()) >= m_cfg.queueLengthLimit) {
        boundNextDispatch(q);
        return Verdict::Reject;
    }
    // enqueueToBoundLocked (qs.go:632-651): an idle queue starts at the current R.
    if (q.waiting.empty() && q.executing == 0) {
        q.nextDispatchR = m_currentR;
        ++m_activeQueues;
    }
    q.waiting.push_back(Waiting{id, m_currentR});
    ++m_totRequestsWaiting;
    boundNextDispatch(q);
    // Step 2 (qs.go:353). Waiting requests and a free seat never outlast a call, so what this
    // dispatches can only be the request just queued.
    std::vector<std::int64_t> dispatched;
    dispatchAsMuchAsPossible(t, dispatched);
    if (std::find(dispatched.begin(), dispatched.end(), id) != dispatched.end())
        return Verdict::Admit;
    m_waitingIn.emplace(id, qi);
    return Verdict::Queue;
}

// dispatchAsMuchAsPossible is dispatchAsMuchAsPossibleLocked (qs.go:654-657).
void ApfGate::dispatchAsMuchAsPossible(Nanos t, std::vector<std::int64_t>& dispatched)
{
    while (m_totRequestsWaiting != 0 && m_totSeatsInUse < m_cfg.seats && dispatch(t, dispatched)) {
    }
}

// dispatch is dispatchLocked (qs.go:695-743) with findDispatchQueueToBoundLocked (qs.go:776-844):
// the queues are visited round robin from the one after the last dispatched; the first whose
// head has the least virtual finish (next dispatch R + the head's work) gives its head a seat.
bool ApfGate::dispatch(Nanos t, std::vector<std::int64_t>& dispatched)
{
    SeatSeconds minVirtualFinish = kMaxSeatSeconds;
    int minIndex = -1;
    const int nq = static_cast<int>(m_queues.size());
    for (int k = 0; k < nq; ++k) {
        m_robinIndex = (m_robinIndex + 1) % nq;
        const Queue& q = m_queues[static_cast<std::size_t>(m_robinIndex)];
        if (q.waiting.empty())
            continue;
        const SeatSeconds virtualFinish = q.nextDispatchR + m_work;
        if (virtualFinish < minVirtualFinish) {
            minVirtualFinish = virtualFinish;
            minIndex = m_robinIndex;
        }
    }
    if (minIndex < 0 || !canAccommodateSeats(kSeats))
        return false; // the robin index stays where the visit left it (qs.go:812-813)
    Queue& q = m_queues[static_cast<std::size_t>(minIndex)];
    const std::int64_t id = q.waiting.front().id;
    q.waiting.pop_front();
    m_robinIndex = minIndex; // ties go to the other queues next time (qs.go:834-837)
    --m_totRequestsWaiting;
    ++m_totRequestsExecuting;
    m_totSeatsInUse += kSeats;
    ++q.executing;
    q.seatsInUse += kSeats;
    q.nextDispatchR += m_work; // "qs.virtualStart += G * width" (qs.go:735-741)
    boundNextDispatch(q);      // deferred in the source (qs.go:709)
    m_executing.emplace(id, Executing{minIndex, t});
    m_waitingIn.erase(id);
    dispatched.push_back(id);
    return true;
}

// finishRequest is finishRequestLocked (qs.go:863-943) for a request without additional latency:
// the queue's next dispatch R moves back by (estimate - real service time) seat-seconds (forward
// when the request took longer), then its seats are released.
void ApfGate::finishRequest(Nanos t, const Executing& r)
{
    --m_totRequestsExecuting;
    const Nanos actualServiceDuration = t - r.start;
    if (r.queue >= 0) {
        Queue& q = m_queues[static_cast<std::size_t>(r.queue)];
        --q.executing;
        if (q.waiting.empty() && q.executing == 0)
            --m_activeQueues;
        q.nextDispatchR -= seatsTimesDuration(kSeats, kEstimatedServiceDuration - actualServiceDuration);
        boundNextDispatch(q);
        q.seatsInUse -= kSeats;
    }
    m_totSeatsInUse -= kSeats;
}

void ApfGate::release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched)
{
    // finishRequestAndDispatchAsMuchAsPossible (qs.go:851-858). APF does not tell a request the
    // server dropped from one it served: both end its execution.
    (void)dropped;
    const auto it = m_executing.find(id);
    if (it == m_executing.end())
        return; // not one this gate admitted: nothing of it to release
    const Executing r = it->second;
    m_executing.erase(it);
    syncTime(t);
    finishRequest(t, r);
    dispatchAsMuchAsPossible(t, dispatched);
}

// cancel follows request.wait (qs.go:397-441) when the decision it gets is decisionCancel: the
// request's context ended (RateLab: its client's timeout) before a seat was its. It syncs R
// (lockAndSyncTime, :405), takes the request out of its queue (removeFromQueueLocked, :427),
// counts it (:429-432) and bounds the queue's next dispatch by its new head (:428, deferred). No
// seat frees, so nothing is dispatched. A queue left with nothing waiting or executing stops
// counting as active in the virtual time ratio (getVirtualTimeRatioLocked counts queues with
// either, qs.go:526-541).
bool ApfGate::cancel(Nanos t, std::int64_t id)
{
    const auto it = m_waitingIn.find(id);
    if (it == m_waitingIn.end())
        return false; // not waiting here: dispatched, or never queued
    Queue& q = m_queues[static_cast<std::size_t>(it->second)];
    m_waitingIn.erase(it);
    syncTime(t);
    q.waiting.erase(std::find_if(q.waiting.begin(), q.waiting.end(), [id](const Waiting& w) { return w.id == id; }));
    --m_totRequestsWaiting;
    ++m_totRequestsCancelled;
    if (q.waiting.empty() && q.executing == 0)
        --m_activeQueues;
    boundNextDispatch(q);
    return true;
}

GateRecipe readApfGate(GateOptions& o)
{
    ApfConfig c;
    c.seats = o.integer("seats", c.seats, 1, 1'000'000);
    c.queues = static_cast<int>(o.integer("queues", c.queues, 0, 65'536));
    c.handSize = static_cast<int>(o.integer("hand_size", c.handSize, 1, 65'536));
    c.queueLengthLimit = o.integer("queue_length_limit", c.queueLengthLimit, 1, 1'000'000'000);
    o.done();
    try {
        if (c.queues > 0) // the check ApfGate's dealer makes
            (void)Dealer(c.queues, c.handSize);
    } catch (const InputError& e) {
        throw InputError("apf: hand_size: " + std::string(e.what()) + " (the deck is the queues)");
    }
    return {[c](std::uint64_t) -> std::unique_ptr<Gate> { return std::make_unique<ApfGate>(c); }};
}

} // namespace ratelab
