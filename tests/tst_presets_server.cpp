// The lessons of the presets of the server behind the limiter: every number a lesson
// states is checked here against the engine's rows, derived by hand from semantics.md ("The
// server behind the limiter") and the gates' sources (docs/concurrency-limits.md,
// docs/fairness.md, docs/client-throttles.md) where a hand can follow it.
#include "preset_rows.h"
#include "preset_load.h"
#include "report/report_run.h"

#include <QTest>

#include <map>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

const RowRun& runOf(const AlgorithmTrace& row)
{
    if (!row.engine)
        qFatal("a row of the server ran without the engine");
    return row.engine->run;
}

// goodput counts, per whole second [k, k + 1), the attempts served in time that completed in it.
std::vector<std::int64_t> goodput(const AlgorithmTrace& row, int seconds)
{
    std::vector<std::int64_t> out(std::size_t(seconds), 0);
    for (const ServedAttempt& a : runOf(row).served)
        if (a.outcome == Outcome::InTime && a.end / kSecond < seconds)
            ++out[std::size_t(a.end / kSecond)];
    return out;
}

// serverAloneFirst checks that a preset's first row is the server alone: no algorithm row, and
// the concurrency row `none` (no limit) before the limiter the lesson is about.
void serverAloneFirst(const Scenario& s)
{
    QVERIFY(s.algorithms.empty());
    QVERIFY(s.layers.empty());
    QVERIFY(s.concurrency.size() >= 2);
    QCOMPARE(s.concurrency.front().text(), std::string("none"));
}

} // namespace

class TestPresetsServer : public QObject {
    Q_OBJECT
private slots:
    void retryStormMetastable()
    {
        // Requests every 20 ms from 0 to 29.98 s, 150 more at 10 s; 10 workers of 100 ms; the
        // client gives up after 1 s and retries 0.1 s later, 3 times at most. Before the spike a
        // request finds a free worker (5 in flight) and is served in time 100 ms later: the ones
        // of [0, 0.9) complete in [0.1, 1), 45, then 50 a second.
        const Scenario s = preset("retry-storm-metastable");
        serverAloneFirst(s);
        const ServerOptions& server = s.server->options();
        QCOMPARE(server.workers, 10);
        QCOMPARE(server.service.nanos, kSecond / 10);
        QCOMPARE(server.clientTimeout, kSecond);
        QCOMPARE(s.clients->options().retryDelayNanos, kSecond / 10);
        QCOMPARE(s.clients->options().maxRetries, 3);
        QCOMPARE(s.addedArrivals, std::vector<Nanos>(150, 10 * kSecond));
        const Trace t = simulateRows(s);
        QCOMPARE(t.arrivals.size(), std::size_t(1500 + 150));
        QCOMPARE(t.results.size(), std::size_t(2));
        const std::vector<std::int64_t> alone = goodput(t.results[0], 31);
        const std::vector<std::int64_t> limited = goodput(t.results[1], 31);
        for (int k = 0; k < 10; ++k) {
            QCOMPARE(alone[std::size_t(k)], k == 0 ? 45 : 50);
            QCOMPARE(limited[std::size_t(k)], k == 0 ? 45 : 50);
        }
        // Without a limit (the engine's count, which the claim bounds): 145 of the spike
        // wait in the queue, those past the 100th wait over 1 s, their retries and every normal
        // request queue behind them, and 4 attempts a request keep it full: from 12 s on goodput
        // stays below half of normal (25), in fact 1 at 12 s and 0 after, though the load is back.
        QCOMPARE(alone[11], 6);
        QCOMPARE(alone[12], 1);
        for (int k = 12; k < 30; ++k)
            QVERIFY2(alone[std::size_t(k)] * 2 < 50, qPrintable(QString::number(k)));
        for (int k = 13; k < 30; ++k)
            QCOMPARE(alone[std::size_t(k)], 0);
        // fixed:limit=10: at 10 s 4 are in flight (9.92 ... 9.98 s); the normal request goes first
        // and 5 of the spike fill the limit, 145 are rejected. At 10.1, 10.2 and 10.3 s the 6 that
        // complete free 6 places: the normal request takes one and 5 retries the rest; 140, 135
        // and 130 are rejected, the last giving up. 20 of the spike are served in time by 10.4 s:
        // 70 in [10, 11), and every normal request finds a free place: 50 a second from 11 s,
        // back within 5 s as the issue asks.
        QCOMPARE(limited[10], 70);
        for (int k = 11; k < 30; ++k)
            QCOMPARE(limited[std::size_t(k)], 50);
        QCOMPARE(runOf(t.results[1]).server->rejected, 145 + 140 + 135 + 130);
        QCOMPARE(runOf(t.results[1]).server->late, 0);
    }

    void aimdSawtooth()
    {
        // AIMDLimit.java:102-112: a response within the timeout with inflight * 2 >= limit adds 1;
        // one slower than 150 ms (or dropped) makes the limit (int) (limit * 0.5), at least
        // min_limit 1. Every change of the limit over time is one of the two.
        const Scenario s = preset("aimd-sawtooth");
        serverAloneFirst(s);
        QCOMPARE(s.concurrency, (std::vector<GateSpec>{GateSpec::parse("none"), GateSpec::parse("aimd:initial_limit=10,min_limit=1,backoff_ratio=0.5,timeout=150ms")}));
        const Trace t = simulateRows(s);
        const ServerFigures& f = *runOf(t.results[1]).server;
        QVERIFY(f.limits.size() > 100);
        QCOMPARE(f.limits.front().second, 10);
        std::vector<std::int64_t> peaks;
        std::vector<Nanos> peakTimes;
        for (std::size_t i = 1; i < f.limits.size(); ++i) {
            const std::int64_t before = f.limits[i - 1].second, now = f.limits[i].second;
            QVERIFY2(now == before + 1 || now == std::max<std::int64_t>(1, before / 2),
                     qPrintable(QString("%1 -> %2 at %3 ns").arg(before).arg(now).arg(f.limits[i].first)));
            if (now < before && i >= 2 && f.limits[i - 2].second < before && before > 3) { // a tooth's top, not the small ones to 3 between
                peaks.push_back(before);
                peakTimes.push_back(f.limits[i - 1].first);
            }
        }
        // The first tooth: 31, then 15, 7, 3, 1 (each (int) (x * 0.5)); every later one tops at
        // 25, 0.92 s after the one before.
        QCOMPARE(peaks.front(), 31); // 10 + 21 responses in time: limits[21]
        QCOMPARE(f.limits[21].second, 31);
        QCOMPARE(f.limits[22].second, 15);
        QCOMPARE(f.limits[23].second, 7);
        QCOMPARE(f.limits[24].second, 3);
        QCOMPARE(f.limits[25].second, 1);
        QVERIFY(peaks.size() >= 10);
        for (std::size_t i = 1; i < peaks.size(); ++i) {
            QCOMPARE(peaks[i], 25);
            if (i > 1)
                QCOMPARE(peakTimes[i] - peakTimes[i - 1], Nanos(920'000'000));
        }
    }

    void gradient2Knee()
    {
        // Gradient2Limit.java:278-323: with rtt equal to the long average the gradient is 1 and
        // the limit becomes 0.8 L + 0.2 (L + 4) = L + 0.8 a response: from 5 it reaches 6 and 7
        // with the first responses, past the knee of 10. The peaks of its teeth are the engine's.
        serverAloneFirst(preset("gradient2-knee"));
        const Trace t = simulateRows(preset("gradient2-knee"));
        const ServerFigures& g = *runOf(t.results[1]).server;
        QCOMPARE(g.limits[0].second, 5);
        QCOMPARE(g.limits[1].second, 6);
        QCOMPARE(g.limits[2].second, 7);
        std::vector<std::int64_t> peaks;
        for (std::size_t i = 1; i + 1 < g.limits.size(); ++i)
            if (g.limits[i].second > g.limits[i - 1].second && g.limits[i].second >= g.limits[i + 1].second)
                peaks.push_back(g.limits[i].second);
        QCOMPARE(peaks, (std::vector<std::int64_t>{29, 34, 42, 51, 63, 73, 72, 72}));
        QCOMPARE(g.inTime, 998);
        QCOMPARE(g.maxQueue, 63);
        // fixed:limit=10 = the workers: nothing queues; 10 in flight serve 100 a second for 10 s.
        const ServerFigures& fixed = *runOf(t.results[2]).server;
        QCOMPARE(fixed.inTime, 1000);
        QCOMPARE(fixed.maxQueue, 0);
    }

    void noisyTenantApf()
    {
        // Client 0: 100 a second; clients 1 ... 4: 10 a second each, 5 s; 100 a second of room.
        const Scenario s = preset("noisy-tenant-apf");
        serverAloneFirst(s);
        QCOMPARE(s.server->options().clientTimeout, kSecond / 2);
        const Trace t = simulateRows(s);
        std::map<std::int64_t, std::int64_t> sent;
        for (const std::int64_t c : resolveRowInputs(s).clientOf)
            ++sent[c];
        QCOMPARE(sent, (std::map<std::int64_t, std::int64_t>{{0, 500}, {1, 50}, {2, 50}, {3, 50}, {4, 50}}));
        const auto inTimeOf = [](const AlgorithmTrace& row) {
            std::map<std::int64_t, std::int64_t> out;
            const RowRun& run = runOf(row);
            for (std::size_t i = 0; i < run.served.size(); ++i)
                out[run.log[i].client] += run.served[i].outcome == Outcome::InTime ? 1 : 0;
            return out;
        };
        const std::map<std::int64_t, std::int64_t> alone = inTimeOf(t.results[0]);
        const std::map<std::int64_t, std::int64_t> apf = inTimeOf(t.results[1]);
        // FIFO: once the queue holds more than 50 (0.5 s of work) every request waits past its
        // client's 0.5 s; the quiet clients get what came before (the engine's count).
        QCOMPARE(alone.at(1), 11);
        QCOMPARE(alone.at(2), 11);
        QCOMPARE(alone.at(3), 11);
        QCOMPARE(alone.at(4), 10);
        // APF with 10 seats: a quiet client's queue never holds more than its one request, and
        // fair queuing dispatches it before client 0's backlog: all 50 of each in time.
        for (std::int64_t c = 1; c <= 4; ++c)
            QCOMPARE(apf.at(c), 50);
    }

    void clientThrottleUnderLimit()
    {
        // p-queue interval=1s, interval_cap=5: the window opens at the first start (0 s), so 5
        // start at 0, 1, 2 and 3 s, each in its own fixed window of 5: all 20 pass, none refused.
        Scenario s = preset("client-throttle-under-limit");
        const Trace t = simulateRows(s);
        const AlgorithmTrace& throttled = t.results[0];
        QCOMPARE(throttled.metrics.allowed, 20);
        QCOMPARE(throttled.metrics.denied, 0);
        std::vector<Nanos> starts;
        for (const LoggedAttempt& a : *throttled.log)
            starts.push_back(a.t);
        for (std::size_t i = 0; i < 20; ++i)
            QCOMPARE(starts[i], Nanos(i / 5) * kSecond);
        // No throttle: 5 pass at 0 s; the 15 others retry at 0.25, 0.5, 0.75 s (denied) and at
        // 1 s, where the 5 denied first pass; the 10 left at 2 s, 5 pass; the last 5 at 3 s.
        // Refusals 5 * 4 + 5 * 8 + 5 * 12 = 120, attempts 140, the last pass at 3 s.
        s.throttle = {};
        const Trace retrying = simulateRows(s);
        const AlgorithmTrace& r = retrying.results[0];
        QCOMPARE(r.metrics.allowed, 20);
        QCOMPARE(r.metrics.denied, 120);
        QCOMPARE(r.log->size(), std::size_t(140));
        Nanos last = 0;
        for (const LoggedAttempt& a : *r.log)
            if (a.allowed)
                last = std::max(last, a.t);
        QCOMPARE(last, 3 * kSecond);
    }
};

QTEST_GUILESS_MAIN(TestPresetsServer)
#include "tst_presets_server.moc"
