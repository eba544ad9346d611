// A client that gives up on an attempt still held in the concurrency limiter's own queue
// (semantics.md, "The server behind the limiter"; Gate::cancel): the server stage tells the gate
// at a + T. APF takes the request out of its queue (kubernetes/apiserver queueset.go:404-440, at
// 24a394e5); cockatiel's bulkhead leaves the aborted call in its queue, holding its place, and
// skips it when it reaches the head (BulkheadPolicy.js 78-81, cockatiel 4.0.0). Either way the
// attempt is never served: it leaves at a + T as timed out in the queue, with no work wasted.
// Every expected value is derived by hand in the comments, from those rules and the stage's
// order at one instant (completions, queue timeouts, client timeouts, arrivals).
#include "spec_helpers.h"
#include "server/gate.h"
#include "server/server.h"
#include "server/server_stage.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos ms = 1'000'000;

struct Arrival {
    Nanos t;
    std::int64_t request, client;
};

// drive enters the attempts (no delay) in order, running every event due at or before each
// one's time first, then the rest; it returns what the clients learnt, in order.
std::vector<ClientResponse> drive(ServerStage& stage, const std::vector<Arrival>& in)
{
    std::vector<ClientResponse> out;
    for (const Arrival& a : in) {
        while (stage.due(a.t))
            stage.step(out);
        stage.enter(a.t, 0, ClientResponse{0, a.request, 0, a.client, 0, false}, out);
    }
    while (stage.nextEvent() != kMaxNanos)
        stage.step(out);
    return out;
}

// learnt is "request@ms:ok|fail" per response.
QStringList learnt(const std::vector<ClientResponse>& out)
{
    QStringList s;
    for (const ClientResponse& r : out)
        s << QStringLiteral("%1@%2:%3").arg(r.request).arg(r.t / ms).arg(r.success ? "ok" : "fail");
    return s;
}

// outcomes is "arrived-start-end outcome" in ms per attempt.
QStringList outcomes(const ServerStage& stage)
{
    QStringList s;
    for (const ServedAttempt& a : stage.attempts())
        s << QStringLiteral("%1-%2-%3 %4").arg(a.arrived / ms).arg(a.start / ms).arg(a.end / ms)
                 .arg(QString::fromLatin1(outcomeId(a.outcome)));
    return s;
}

} // namespace

class TestGateCancel : public QObject {
    Q_OBJECT
private slots:
    // APF, 1 seat, 2 queues, hand 1 (client 1 -> queue 0, client 7 -> queue 1, tst_apf's hashes);
    // one worker, 10 ms a request, no server queue, the client waits 15 ms.
    //   t 0   A (client 1) takes the seat, served 0-10; B (client 7) waits in q1, C (client 1)
    //         in q0; their clients give up at 15.
    //   t 10  A done, in time. R = 0.5 * 10 ms = 500000; q0 = 300000 + 700000 (A took 7 ms more
    //         than its 3 ms estimate) = 1000000, q1 = 0: B's queue finishes first, B is served
    //         10-20.
    //   t 15  B's client gives up (B is served late, its 10 ms wasted); C's client gives up
    //         while C waits: APF removes it, it leaves unserved (queue_timeout).
    //   t 16  E (client 1) waits in q0; its client would give up at 31.
    //   t 20  B done (late); the seat goes to E, served 20-30, in time.
    // Before the gate was told, C stayed queued, took the seat at 20 and was served 20-30 after
    // its client had gone (late, 10 ms more wasted), and E, served 30-40, was late too.
    void apfDropsTheAbandonedRequest()
    {
        ServerStage stage(ServerConfig::parse("workers=1,service=const:10ms,queue=0,timeout=15ms"),
                          makeGate("apf:seats=1,queues=2,hand_size=1", 1), 1, true);
        const auto out = drive(stage, {{0, 0, 1}, {0, 1, 7}, {0, 2, 1}, {16 * ms, 3, 1}});
        QCOMPARE(learnt(out), (QStringList{"0@10:ok", "1@15:fail", "2@15:fail", "3@30:ok"}));
        QCOMPARE(outcomes(stage),
                 (QStringList{"0-0-10 in_time", "0-10-20 late", "0-15-15 queue_timeout", "16-20-30 in_time"}));
        const ServerFigures& f = stage.figures();
        QCOMPARE(f.inTime, 2);
        QCOMPARE(f.late, 1);
        QCOMPARE(f.queueTimeouts, 1);
        QCOMPARE(f.wastedNanos, 10 * ms);
        QCOMPARE(f.busyNanos, 30 * ms);
        // Little: in the system A 10 + B 20 + C 15 + E 14 = 59 ms.
        QVERIFY(f.areaInSystem == Int128(59 * ms));
    }

    // cockatiel's bulkhead, max_parallel 1, max_queue 1; one worker, 20 ms a request, the client
    // waits 15 ms.
    //   t 0   A runs, 0-20; its client gives up at 15 (late).
    //   t 1   B waits in the bulkhead's queue; at 16 its client gives up: the call is aborted and
    //         leaves unserved, but keeps its place in cockatiel's queue.
    //   t 17  C: the slot is taken and the queue holds (aborted) B: rejected at once.
    //   t 20  A done; dequeue shifts B out unrun (TaskCancelledError) and the slot stays free:
    //         D, arriving at 20, runs at once, 20-40 (late: its client gives up at 35).
    // Before, B took the slot at 20 and was served 20-40 for nobody, and D waited behind it.
    void bulkheadSkipsTheAbortedCall()
    {
        ServerStage stage(ServerConfig::parse("workers=1,service=const:20ms,queue=0,timeout=15ms"),
                          makeGate("bulkhead:max_parallel=1,max_queue=1", 1), 1, true);
        const auto out = drive(stage, {{0, 0, 0}, {1 * ms, 1, 0}, {17 * ms, 2, 0}, {20 * ms, 3, 0}});
        QCOMPARE(learnt(out), (QStringList{"0@15:fail", "1@16:fail", "2@17:fail", "3@35:fail"}));
        QCOMPARE(outcomes(stage),
                 (QStringList{"0-0-20 late", "1-16-16 queue_timeout", "17-17-17 rejected", "20-20-40 late"}));
        const ServerFigures& f = stage.figures();
        QCOMPARE(f.late, 2);
        QCOMPARE(f.queueTimeouts, 1);
        QCOMPARE(f.rejected, 1);
        QCOMPARE(f.wastedNanos, 40 * ms);
    }
};

QTEST_GUILESS_MAIN(TestGateCancel)
#include "tst_gate_cancel.moc"
