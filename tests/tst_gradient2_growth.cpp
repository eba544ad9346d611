// Gradient2's limit growing without end (Netflix/concurrency-limits PR #134, jhalterman's comment
// of 2024-11-08: "the inclusion of a queue will cause the limit to gradually increase
// indefinitely"), on the rule as transcribed (server/netflix_limits.h, Gradient2Limit.java:278-323
// at 78a74b9) and on the engine. docs/concurrency-limits.md derives the condition.
//
// Per sample that is not app-limited (inflight >= L / 2), with gradient g = max(0.5, min(1,
// 1.5 * longRtt / rtt)) and queue_size 4, smoothing 0.2:
//     L' = 0.8 L + 0.2 (g L + 4) = L + 0.2 (4 - (1 - g) L),
// so L grows while (1 - g) L < 4, and by exactly 0.8 a sample while g = 1, i.e. while every rtt is
// within 1.5 times the long average. Nothing in the rule ties that to the limit itself.
#include "server/netflix_limits.h"
#include "preset_rows.h"
#include "preset_load.h"
#include "report/report_run.h"

#include <QTest>

#include <cmath>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kSecond = kNanosPerSecond;

const ServerFigures& figuresOf(const AlgorithmTrace& row)
{
    if (!row.engine || !row.engine->run.server)
        qFatal("a row of the server ran without the engine");
    return *row.engine->run.server;
}

// peaksOf returns the local maxima of a limit series.
std::vector<std::int64_t> peaksOf(const std::vector<std::pair<Nanos, std::int64_t>>& limits)
{
    std::vector<std::int64_t> peaks;
    for (std::size_t i = 1; i + 1 < limits.size(); ++i)
        if (limits[i].second > limits[i - 1].second && limits[i].second >= limits[i + 1].second)
            peaks.push_back(limits[i].second);
    return peaks;
}

} // namespace

class TestGradient2Growth : public QObject {
    Q_OBJECT
private slots:
    // A standing queue whose wait no longer grows (every rtt the same, as behind a queue
    // timeout): longRtt = rtt, 1.5 * longRtt / rtt = 1.5, g = 1, and the limit adds 0.8 a sample
    // from its initial 20 until max_concurrency: 20 + 0.8 n, 200 from n = 225 on. Drops are not
    // read: the same samples marked dropped give the same limits.
    void constantRttAddsPointEightASample()
    {
        Gradient2Limit served(Gradient2Limit::Options{}), dropped(Gradient2Limit::Options{});
        for (int n = 1; n <= 1000; ++n) {
            served.onSample(0, 500 * kMs, served.limit(), false);
            dropped.onSample(0, 500 * kMs, dropped.limit(), true);
            QCOMPARE(dropped.estimatedLimit(), served.estimatedLimit());
            if (n < 225) {
                QVERIFY2(std::abs(served.estimatedLimit() - (20 + 0.8 * n)) < 1e-9, qPrintable(QString::number(n)));
                if (n % 5 != 0) // away from the integers 20 + 0.8 n reaches, (int) truncates
                    QCOMPARE(served.limit(), std::int32_t(std::floor(20 + 0.8 * n)));
            } else if (n > 225) {
                QCOMPARE(served.estimatedLimit(), 200.0);
                QCOMPARE(served.limit(), 200);
            }
        }
        // With max_concurrency out of the way it never stops: 20 + 0.8 * 100000.
        Gradient2Limit::Options wide;
        wide.maxConcurrency = 1'000'000;
        Gradient2Limit g(wide);
        for (int n = 0; n < 100'000; ++n)
            g.onSample(0, 500 * kMs, g.limit(), false);
        QVERIFY(std::abs(g.estimatedLimit() - 80'020) < 1e-6);
    }

    // The rtt of a queue that follows the limit at once (10 workers of 100 ms: rtt = 10 ms *
    // max(L, 10)). The long average trails a ramp of 0.8 a sample by (600 - 1) / 2 samples, 240
    // of limit, so rtt / longRtt = L / (L - 240) <= 1.5 from L = 720 on: g = 1 and +0.8 a sample
    // for ever. Below that g settles just under 1 with (1 - g) L < 4: the limit still grows.
    void rttThatFollowsTheLimitAtOnceNeverStops()
    {
        Gradient2Limit::Options o;
        o.initialLimit = 5;
        o.minLimit = 1;
        o.maxConcurrency = 1'000'000;
        Gradient2Limit g(o);
        double before = g.estimatedLimit();
        int steady = 0;
        for (int n = 0; n < 20'000; ++n) {
            const double l = g.estimatedLimit();
            g.onSample(0, Nanos(10 * kMs * std::max(l, 10.0)), g.limit(), false);
            QVERIFY2(g.estimatedLimit() > before, qPrintable(QString::number(n))); // every sample adds
            if (l >= 1000) {
                QVERIFY2(std::abs(g.estimatedLimit() - l - 0.8) < 1e-9, qPrintable(QString::number(n)));
                ++steady;
            }
            before = g.estimatedLimit();
        }
        QVERIFY(steady > 15'000);
        QVERIFY(g.estimatedLimit() > 12'000);
    }

    // The same queue seen through a server: an rtt reports the queue as it was when its attempt
    // was admitted, one rtt earlier. The limit overshoots, rtt passes 1.5 times the long average,
    // g falls to 0.5 and the limit to a tenth of a sample, then climbs again: gradient2-knee run
    // for 100 s instead of 10 keeps its teeth at the 72 it reached by 10 s. The tolerance term
    // bounds it; there is no growth without end here.
    void kneeIsBoundedOverOneHundredSeconds()
    {
        Scenario s = preset("gradient2-knee");
        s.pattern.count = 20'000; // 200 a second for 100 s
        const Trace t = simulateRows(s);
        const ServerFigures& g = figuresOf(t.results[1]);
        const std::vector<std::int64_t> peaks = peaksOf(g.limits);
        QVERIFY(peaks.size() > 40);
        QCOMPARE(*std::max_element(peaks.begin(), peaks.end()), 73);
        std::int64_t late = 0; // the teeth after the first 10 s
        for (std::size_t i = 1; i + 1 < g.limits.size(); ++i)
            if (g.limits[i].first > 10 * kSecond && g.limits[i].second > g.limits[i - 1].second
                && g.limits[i].second >= g.limits[i + 1].second)
                late = std::max(late, g.limits[i].second);
        QVERIFY(late >= 70 && late <= 73);
    }

    // gradient2-standing-queue: gradient2-knee with a server queue that drops a request after
    // 0.5 s and a client that waits 0.5 s. Once the queue holds 0.5 s of work every response
    // comes 0.5 s (dropped) or 0.6 s (served) after admission, so rtt / longRtt <= 0.6 / 0.5 < 1.5:
    // g = 1, +0.8 a response, until max_concurrency 200, where the clamp holds it.
    void standingQueuePreset()
    {
        const Scenario s = preset("gradient2-standing-queue");
        QVERIFY(s.algorithms.empty()); // the server alone first, as the other server presets
        QCOMPARE(s.concurrency.front().text(), std::string("none"));
        const ServerOptions& server = s.server->options();
        QCOMPARE(server.workers, 10);
        QCOMPARE(server.service.nanos, kSecond / 10);
        QCOMPARE(server.queueTimeout, kSecond / 2);
        QCOMPARE(server.clientTimeout, kSecond / 2);
        const Trace t = simulateRows(s);
        const ServerFigures& g = figuresOf(t.results[1]);
        // The last fall of the limit, then one step of +1 at a time to 200, the last change.
        std::size_t lastFall = 0;
        for (std::size_t i = 1; i < g.limits.size(); ++i)
            if (g.limits[i].second < g.limits[i - 1].second)
                lastFall = i;
        QVERIFY(lastFall > 0 && g.limits[lastFall].first < 8 * kSecond);
        for (std::size_t i = lastFall + 1; i < g.limits.size(); ++i)
            QCOMPARE(g.limits[i].second, g.limits[i - 1].second + 1);
        QCOMPARE(g.limits.back().second, 200);
        QVERIFY(g.limits.back().first < 9 * kSecond);
        // From 9 s every admitted attempt leaves 0.5 s (queue timeout) or 0.6 s (served, after
        // its client gave up) after it arrived: none is served in time.
        const RowRun& run = t.results[1].engine->run;
        std::int64_t after = 0, inTimeBefore = 0;
        for (const ServedAttempt& a : run.served) {
            if (a.outcome == Outcome::NotAdmitted || a.outcome == Outcome::Rejected)
                continue;
            if (a.arrived < 9 * kSecond) {
                inTimeBefore += a.outcome == Outcome::InTime;
                continue;
            }
            ++after;
            QVERIFY((a.outcome == Outcome::QueueTimeout && a.end - a.arrived == kSecond / 2)
                    || (a.outcome == Outcome::Late && a.end - a.arrived == 6 * kSecond / 10));
        }
        QCOMPARE(after, 2200); // 200 a second from 9 s to 20 s, every one admitted
        QCOMPARE(g.inTime, inTimeBefore);
        QCOMPARE(g.inTime, 660);
        // fixed:limit=10 = the workers: nothing waits, 100 a second served in time for 20 s.
        const ServerFigures& fixed = figuresOf(t.results[2]);
        QCOMPARE(fixed.inTime, 2000);
        QCOMPARE(fixed.maxQueue, 0);
    }
};

QTEST_GUILESS_MAIN(TestGradient2Growth)
#include "tst_gradient2_growth.moc"
