// The simulator and its metrics, checked against the semantics page's reference cases: each
// scenario's rows run as the app runs them (engine_helpers.h).
#include "engine_helpers.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::test;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

Scenario uniform(std::int64_t n, Nanos delay, Nanos start = 0)
{
    Scenario s;
    s.pattern.kind = PatternKind::Uniform;
    s.pattern.count = n;
    s.pattern.delayNanos = delay;
    s.pattern.startNanos = start;
    return s;
}

std::vector<std::int64_t> allowedCounts(const Trace& t)
{
    std::vector<std::int64_t> out;
    for (const AlgorithmTrace& r : t.results)
        out.push_back(r.metrics.allowed);
    return out;
}

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT
private slots:
    // Columns: fixed, log, counter, token, leaky, leaky queue, gcra (the kAllAlgorithms order).
    void referenceCases_data()
    {
        QTest::addColumn<std::int64_t>("n");
        QTest::addColumn<Nanos>("delay");
        QTest::addColumn<Nanos>("start");
        QTest::addColumn<std::vector<std::int64_t>>("allowed");
        // The semantics page's table: the 11th token arrives at exactly t = 1.0 s.
        QTest::newRow("15 requests 0.1 s apart") << std::int64_t(15) << kSecond / 10 << Nanos(0)
                                                 << std::vector<std::int64_t>{10, 10, 10, 11, 11, 11, 11};
        // 30 requests 0.5 s apart (0 .. 14.5 s). Fixed: 10 of the 20 in [0, 10), all 10 in
        // [10, 15). Log: the entry of 0.5k expires at exactly 10 + 0.5k, so every request from
        // 10 s on is admitted. Counter: in window 1, E = 10 - e + cur < 10 iff cur < e, true at
        // e = 0.5, 1.5, ..., 4.5 only. Bucket: before request k it holds 10 - 0.5k tokens, so
        // k = 0..18 pass, then every other one (k = 20, 22, ..., 28).
        QTest::newRow("30 requests 0.5 s apart") << std::int64_t(30) << kSecond / 2 << Nanos(0)
                                                 << std::vector<std::int64_t>{20, 20, 15, 24, 24, 24, 24};
        // One request a second, exactly the refill interval: the bucket always has a token. The
        // counter denies at e = 0 of odd windows, where prev = 10 counts in full (10 < 10 fails),
        // and so alternates 9 and 10: 10 + 50 * 9 + 49 * 10.
        QTest::newRow("1000 requests 1 s apart") << std::int64_t(1000) << kSecond << Nanos(0)
                                                 << std::vector<std::int64_t>{1000, 1000, 950, 1000, 1000, 1000, 1000};
    }

    void referenceCases()
    {
        QFETCH(std::int64_t, n);
        QFETCH(Nanos, delay);
        QFETCH(Nanos, start);
        QFETCH(std::vector<std::int64_t>, allowed);
        QCOMPARE(allowedCounts(traceOf(uniform(n, delay, start))), allowed);
    }

    void boundaryBurstDoublesFixedWindow()
    {
        Scenario s;
        s.pattern.kind = PatternKind::Edge;
        s.pattern.gapNanos = kSecond / 1000;
        const Trace t = traceOf(s);
        QCOMPARE(t.arrivals.size(), std::size_t(20));
        QCOMPARE(t.arrivals.front(), 10 * kSecond - kSecond / 1000);
        QCOMPARE(t.arrivals.back(), 10 * kSecond);
        const auto& fixed = t.results[0].metrics;
        QCOMPARE(fixed.allowed, std::int64_t(20));
        QCOMPARE(fixed.maxInWindow, std::int64_t(20));
        QCOMPARE(fixed.overshoot, 2.0);
        const auto& log = t.results[1].metrics;
        QCOMPARE(log.allowed, std::int64_t(10));
        QCOMPARE(log.maxInWindow, std::int64_t(10));
        // At the boundary e = 0, so the previous window counts in full: 10 * W / W = 10, not < 10.
        QCOMPARE(t.results[2].metrics.allowed, std::int64_t(10));
        // The bucket spent its 10 tokens at 9.999 s and has refilled only 0.001 by 10 s.
        QCOMPARE(t.results[3].metrics.allowed, std::int64_t(10));
    }

    void queueDelaysAreCountedAndRoundedUp()
    {
        // 3 per 7 s: the second request of a burst waits 7/3 s, reported as 2.333333334 s.
        Scenario s = uniform(3, 0);
        s.config = LimiterConfig::make(3, 7 * kSecond);
        s.algorithms = {Algorithm::LeakyBucketQueue};
        const Trace t = traceOf(s);
        const auto& d = t.results[0].decisions;
        QCOMPARE(d[0].delay, Nanos(0));
        QCOMPARE(d[1].delay, Nanos(2'333'333'334));
        QCOMPARE(d[2].delay, Nanos(4'666'666'667));
        QCOMPARE(t.results[0].metrics.delayed, std::int64_t(2));
        QCOMPARE(t.results[0].metrics.allowed, std::int64_t(3));
    }

    // max_in_window, counted with the arrivals' lookback and by walking the window, equals a
    // brute-force count, over Poisson arrivals and over bursts of equal times.
    void maxInWindowMatchesBruteForce_data()
    {
        QTest::addColumn<std::vector<Nanos>>("arrivals");
        Scenario s;
        s.pattern.kind = PatternKind::Poisson;
        s.pattern.count = 400;
        s.pattern.lambda = Rate{3, kSecond};
        s.pattern.seed = 7;
        QTest::newRow("poisson") << resolveArrivals(s);
        std::vector<Nanos> bursts;
        for (int k = 0; k < 30; ++k)
            for (int j = 0; j < 1 + k % 7; ++j) // 1 to 7 requests at once, 0.3 s apart
                bursts.push_back(Nanos(k) * 300'000'000);
        QTest::newRow("bursts") << bursts;
    }

    void maxInWindowMatchesBruteForce()
    {
        QFETCH(std::vector<Nanos>, arrivals);
        const LimiterConfig config; // 10 per 10 s
        const Nanos w = config.windowNanos();
        const auto lookback = makeWindowLookback(arrivals, w);
        QVERIFY(lookback);
        for (Algorithm a : kAllAlgorithms) {
            const AlgorithmTrace r = simulateOne(config, a, arrivals);
            std::int64_t best = 0;
            for (std::size_t j = 0; j < arrivals.size(); ++j) {
                std::int64_t inside = 0;
                for (std::size_t i = 0; i <= j; ++i)
                    inside += r.decisions[i].allowed && arrivals[i] > arrivals[j] - w ? 1 : 0;
                best = std::max(best, inside);
            }
            QCOMPARE(r.metrics.maxInWindow, best);
            QCOMPARE(r.metrics.overshoot, double(best) / 10.0);
            QCOMPARE(simulateOne(config, a, arrivals, {}, lookback.get()).metrics.maxInWindow, best);
        }
    }

    // The lookback of each arrival counts the earlier arrivals in (t - W, t], derived by hand
    // with W = 1 s; its ring is the power of two above the largest.
    void windowLookbackCountsEarlierArrivalsInTheWindow()
    {
        const std::vector<Nanos> t = {0, 0, kSecond, 1'500'000'000, 2 * kSecond, 2 * kSecond, 5 * kSecond};
        const auto lookback = makeWindowLookback(t, kSecond);
        QVERIFY(lookback);
        QCOMPARE(lookback->back, (std::vector<std::uint16_t>{0, 1, 0, 1, 1, 2, 0}));
        QCOMPARE(lookback->ring, std::size_t(4));
        QVERIFY(makeWindowLookback({}, kSecond));
    }

    // Made in halves on two threads, the lookback is the one made in one pass: groups of 7 at
    // once every 0.25 s with W = 1 s, the split inside a group. By hand: the j-th of group k has
    // j of its own group before it and 7 from each of the up to 3 groups in (t - 1 s, t).
    void windowLookbackInHalvesIsTheSame()
    {
        std::vector<Nanos> t;
        for (int k = 0; k < 10'001; ++k)
            t.insert(t.end(), 7, Nanos(k) * 250'000'000);
        QVERIFY(t.size() >= kHalvesFrom && t.size() / 2 % 7 != 0);
        for (const Threads threads : {Threads::One, Threads::Two}) {
            const auto lookback = makeWindowLookback(t, kSecond, threads);
            QVERIFY(lookback);
            for (std::size_t i = 0; i < t.size(); ++i)
                QCOMPARE(lookback->back[i], std::uint16_t(i % 7 + 7 * std::min<std::size_t>(i / 7, 3)));
            QCOMPARE(lookback->ring, std::size_t(32)); // above 6 + 21
        }
        // A window too full in the upper half alone: no lookback either way.
        t.insert(t.end(), kMaxLookback + 2, t.back() + kSecond);
        QVERIFY(!makeWindowLookback(t, kSecond, Threads::One));
        QVERIFY(!makeWindowLookback(t, kSecond, Threads::Two));
    }

    // A window holding more earlier arrivals than a lookback counts has none: each algorithm
    // walks its window instead, and counts the same.
    void aWindowTooFullForALookbackIsWalked()
    {
        const std::vector<Nanos> most(kMaxLookback + 1, 0), over(kMaxLookback + 2, 0);
        const auto fits = makeWindowLookback(most, kSecond);
        QVERIFY(fits);
        QCOMPARE(fits->ring, std::size_t(65536));
        QVERIFY(!makeWindowLookback(over, kSecond));
        const Trace tr = traceOf(LimiterConfig::make(100'000, kSecond), kAllAlgorithms, over);
        for (const AlgorithmTrace& r : tr.results)
            QCOMPARE(r.metrics.maxInWindow, r.metrics.allowed); // all at one instant: all in one window
    }

    void memoryPerKey()
    {
        const Trace t = traceOf(uniform(15, kSecond / 10));
        QCOMPARE(t.results[0].metrics.memory.bytes, std::int64_t(16)); // fixed: window, count
        QCOMPARE(t.results[1].metrics.memory.entries, std::int64_t(10)); // log: one per admission
        QCOMPARE(t.results[1].metrics.memory.bytes, std::int64_t(80));
        QCOMPARE(t.results[3].metrics.memory.bytes, std::int64_t(16)); // token: tokens, time
        QCOMPARE(t.results[6].metrics.memory.bytes, std::int64_t(8));  // gcra: TAT only
    }

    void sameScenarioSameTrace()
    {
        Scenario s;
        s.pattern.kind = PatternKind::Poisson;
        s.pattern.count = 2000;
        const Trace a = traceOf(s), b = traceOf(s);
        QCOMPARE(a.arrivals, b.arrivals);
        for (std::size_t r = 0; r < a.results.size(); ++r)
            for (std::size_t i = 0; i < a.arrivals.size(); ++i) {
                QCOMPARE(a.results[r].decisions[i].allowed, b.results[r].decisions[i].allowed);
                QCOMPARE(a.results[r].decisions[i].level, b.results[r].decisions[i].level);
            }
    }

    void addedArrivalsAreMergedInOrder()
    {
        Scenario s = uniform(3, kSecond);
        s.addedArrivals = {kSecond / 2, 5 * kSecond};
        QCOMPARE(resolveArrivals(s), (std::vector<Nanos>{0, kSecond / 2, kSecond, 2 * kSecond, 5 * kSecond}));
    }
};

QTEST_APPLESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
