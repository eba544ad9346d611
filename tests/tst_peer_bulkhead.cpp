// Peer test of the bulkhead gate: cockatiel 4.0.0's BulkheadPolicy itself (peers/bulkhead_peer.js,
// its clock faked by @sinonjs/fake-timers) against the Gate (server/bulkhead.h) on the same seeded
// calls: every call's start time and every rejection agree, for five (max_parallel, max_queue)
// and three seeds each. The test drives the Gate with a small event loop of its own: arrivals,
// and completions at start + service, completions first at one instant (semantics.md, "The
// server behind the limiter"). Registered as peer_bulkhead (label "peer"): a missing node or
// package skips, unless RATELAB_PEERS=1 (.ci/run installs them).
#include "peer_node.h"
#include "server/bulkhead.h"

#include <QTest>

#include <queue>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

struct Call {
    std::int64_t atMs;
    std::int64_t serviceMs; // >= 1: a call never completes at the instant it starts
};

// calls returns n calls from the seed: bursts at one instant, short and long gaps, service
// times of 1 to maxServiceMs, so the bulkhead fills, queues, rejects and drains.
std::vector<Call> calls(std::uint64_t seed, int n, std::int64_t maxServiceMs)
{
    std::mt19937_64 random(seed);
    std::vector<Call> out;
    std::int64_t t = std::int64_t(random() % 50);
    while (int(out.size()) < n) {
        const std::uint64_t kind = random() % 10;
        t += kind < 3 ? 0 : kind < 9 ? std::int64_t(random() % 8) : std::int64_t(random() % 200);
        out.push_back({t, 1 + std::int64_t(random() % std::uint64_t(maxServiceMs))});
    }
    return out;
}

// modelStarts runs the gate on the calls: each call's start in ms, or "R" when rejected.
QStringList modelStarts(Gate& gate, const std::vector<Call>& in)
{
    using Done = std::pair<Nanos, std::int64_t>; // completion time, id
    std::priority_queue<Done, std::vector<Done>, std::greater<>> done;
    QStringList out(qsizetype(in.size()), QStringLiteral("?"));
    std::vector<std::int64_t> dispatched;
    const auto start = [&](Nanos t, std::int64_t id) {
        out[qsizetype(id)] = QString::number(t / kMs);
        done.emplace(t + in[std::size_t(id)].serviceMs * kMs, id);
    };
    const auto completeUntil = [&](Nanos t) {
        while (!done.empty() && done.top().first <= t) {
            const auto [at, id] = done.top();
            done.pop();
            gate.advance(at);
            dispatched.clear();
            gate.release(at, id, false, dispatched);
            for (const std::int64_t d : dispatched)
                start(at, d);
        }
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        const Nanos t = in[i].atMs * kMs;
        completeUntil(t);
        gate.advance(t);
        switch (gate.offer(t, std::int64_t(i), 0)) {
        case Gate::Verdict::Admit: start(t, std::int64_t(i)); break;
        case Gate::Verdict::Queue: break;
        case Gate::Verdict::Reject: out[qsizetype(i)] = QStringLiteral("R"); break;
        }
    }
    completeUntil(kMaxNanos);
    return out;
}

} // namespace

class TestPeerBulkhead : public QObject {
    Q_OBJECT
private slots:
    void bulkhead()
    {
        const test::NodePeers node = test::findNode({"cockatiel", "@sinonjs/fake-timers"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);

        struct Config {
            std::int64_t maxParallel, maxQueue, maxServiceMs;
        };
        int queuedSeen = 0, rejectedSeen = 0;
        for (const Config& c : {Config{1, 0, 10}, Config{2, 1, 15}, Config{3, 5, 25}, Config{4, 0, 20}, Config{8, 30, 60}})
            for (const std::uint64_t seed : {1, 2, 3}) {
                const std::vector<Call> in = calls(seed, 1500, c.maxServiceMs);
                Bulkhead gate(c.maxParallel, c.maxQueue);
                const QStringList mine = modelStarts(gate, in);
                QByteArray input;
                for (const Call& call : in)
                    input += QByteArray::number(qint64(call.atMs)) + ' ' + QByteArray::number(qint64(call.serviceMs)) + '\n';
                QString error;
                const QStringList theirs =
                    node.run("bulkhead_peer.js", {QString::number(c.maxParallel), QString::number(c.maxQueue)}, input, error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                QCOMPARE(theirs.size(), mine.size());
                for (qsizetype i = 0; i < mine.size(); ++i) {
                    QVERIFY2(mine[i] == theirs[i],
                             qPrintable(QStringLiteral("max_parallel %1 max_queue %2 seed %3: call %4 at %5 ms: model '%6', cockatiel '%7'")
                                            .arg(c.maxParallel).arg(c.maxQueue).arg(seed).arg(i)
                                            .arg(in[std::size_t(i)].atMs).arg(mine[i], theirs[i])));
                    rejectedSeen += mine[i] == QLatin1String("R");
                    queuedSeen += mine[i] != QLatin1String("R") && mine[i].toLongLong() > in[std::size_t(i)].atMs;
                }
            }
        // The traffic exercised all three verdicts, not only admissions.
        QVERIFY(rejectedSeen > 100);
        QVERIFY(queuedSeen > 100);
    }
};

QTEST_GUILESS_MAIN(TestPeerBulkhead)
#include "tst_peer_bulkhead.moc"
