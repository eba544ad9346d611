// ApfGate: one priority level of Kubernetes API Priority and Fairness (APF) as a Gate, the
// QueueSet of kubernetes/apiserver at commit 24a394e516bfda066d7e2221d7d92c052de27c54,
// pkg/util/flowcontrol/fairqueuing/queueset/queueset.go (cited below as qs.go:LINE), its
// types.go and pkg/util/flowcontrol/request/seat_seconds.go (ss.go). docs/fairness.md tells the
// model; semantics.md, "The server behind the limiter", the contract.
//
// A request's flow is its client: APF's hash of (FlowSchema "global-default", distinguisher the
// client id in decimal), as hashFlowID computes it (sha256). Shuffle sharding deals the flow a
// hand of queues; the request joins the hand's queue with the least waiting work, or is
// rejected when every seat is taken and that queue holds queue_length_limit requests. A seat
// that frees goes to the head of the queue whose head would finish earliest in virtual time (R,
// seat-seconds per queue), round robin among ties. Every request takes one seat and is
// estimated at 3 ms of service (APF's default work estimate, qs.go:215); its completion corrects
// its queue's virtual start by the estimate minus the real service time (qs.go:938).
#pragma once

#include "server/gate.h"
#include "server/shuffle_shard.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ratelab {

// ApfConfig is one priority level's queuing and dispatching config. The defaults are those of the
// suggested "global-default" priority level (pkg/apis/flowcontrol/bootstrap/default.go:257-272:
// 128 queues, hand size 6, queue length limit 50, 20 nominal shares), whose concurrency limit
// on a default server (600 seats: --max-requests-inflight 400 + --max-mutating-requests-inflight
// 200) is ceil(600 * 20 / 245) = 49 (apf_controller.go:863; 245 is the sum of the suggested
// levels' shares: 0 + 5 + 30 + 40 + 10 + 40 + 100 + 20).
struct ApfConfig {
    std::int64_t seats = 49;            // ConcurrencyLimit
    int queues = 128;                   // DesiredNumQueues; 0: no queuing, reject when full
    int handSize = 6;                   // HandSize
    std::int64_t queueLengthLimit = 50; // QueueLengthLimit
};

class ApfGate final : public Gate {
public:
    // SeatSeconds is APF's fixed-point work, in units of 1e-8 seat-second (ss.go:25-32, 65).
    using SeatSeconds = std::uint64_t;

    // ApfGate checks the config as checkConfig does (qs.go:199-208) and throws InputError.
    explicit ApfGate(const ApfConfig& config);

    Verdict offer(Nanos t, std::int64_t id, std::int64_t client) override;
    void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) override;
    // cancel is the cancel path of request.wait (qs.go:404-440): the waiting request's context
    // ended (its client gave up), so it leaves its queue at t; true when it was waiting here.
    bool cancel(Nanos t, std::int64_t id) override;
    std::int64_t limit() const override { return m_cfg.seats; }
    std::int64_t inflight() const override { return m_totRequestsExecuting; }
    std::int64_t queued() const override { return m_totRequestsWaiting; }

    // currentR returns the progress meter R after the last call (seat-seconds, scaled).
    SeatSeconds currentR() const { return m_currentR; }
    // nextDispatchR returns queue q's virtual start of its next dispatch.
    SeatSeconds nextDispatchR(int q) const { return m_queues.at(static_cast<std::size_t>(q)).nextDispatchR; }
    // lastQueue returns the queue the last offer chose (-1 before any, or without queues).
    int lastQueue() const { return m_lastQueue; }
    // cancelled returns the waiting requests cancel removed (totRequestsCancelled, qs.go:432).
    std::int64_t cancelled() const { return m_totRequestsCancelled; }

    // seatsTimesDuration is SeatsTimesDuration (ss.go:40-42): round(seats * ns / 10), in float64
    // as Go computes it, converted as Go on amd64 converts (an out-of-range value to INT64_MIN).
    static SeatSeconds seatsTimesDuration(double seats, Nanos d);
    // kEstimatedServiceDuration is estimatedServiceDuration (qs.go:215).
    static constexpr Nanos kEstimatedServiceDuration = 3'000'000;
    // kFlowSchema is the FlowSchema name hashed with the client id.
    static constexpr std::string_view kFlowSchema = "global-default";

private:
    struct Waiting {
        std::int64_t id;
        SeatSeconds arrivalR;
    };
    // Queue is qs.go's queue (types.go:93-110); its waiting work sums (types.go:114-125) are the
    // length times one request's, every request being alike.
    struct Queue {
        std::deque<Waiting> waiting;
        SeatSeconds nextDispatchR = 0;
        std::int64_t executing = 0;
        std::int64_t seatsInUse = 0;
    };
    struct Executing {
        int queue; // -1: dispatched without queuing (qs.go:659-688)
        Nanos start;
    };

    void syncTime(Nanos t);
    double virtualTimeRatio() const;
    void advanceEpoch();
    int shuffleShard(std::int64_t client);
    bool canAccommodateSeats(std::int64_t seats) const;
    void dispatchAsMuchAsPossible(Nanos t, std::vector<std::int64_t>& dispatched);
    bool dispatch(Nanos t, std::vector<std::int64_t>& dispatched);
    void boundNextDispatch(Queue& q);
    void finishRequest(Nanos t, const Executing& r);

    ApfConfig m_cfg;
    std::optional<Dealer> m_dealer;
    std::vector<Queue> m_queues;
    std::unordered_map<std::int64_t, std::vector<int>> m_hands; // a client's hand, dealt once
    std::unordered_map<std::int64_t, Executing> m_executing;
    std::unordered_map<std::int64_t, int> m_waitingIn; // a waiting request's queue, for cancel
    SeatSeconds m_work;        // a request's totalWork: 1 seat for 3 ms (types.go:131-146)
    SeatSeconds m_currentR = 0;
    Nanos m_lastRealTime = 0;
    int m_robinIndex = 0;
    std::int64_t m_enqueues = 0;
    std::int64_t m_totRequestsWaiting = 0;
    std::int64_t m_totRequestsExecuting = 0;
    std::int64_t m_totRequestsCancelled = 0;
    std::int64_t m_totSeatsInUse = 0;
    std::int64_t m_activeQueues = 0; // queues with requests waiting or executing
    int m_lastQueue = -1;
};

// readApfGate is the reader of kind "apf": seats, queues, hand_size, queue_length_limit.
GateRecipe readApfGate(GateOptions& o);

} // namespace ratelab
