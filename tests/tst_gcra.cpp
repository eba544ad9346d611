// Gcra against semantics.md: emission interval T = 1/r, tolerance tau = (C - 1) T, TAT unset at
// the start; x = max(TAT, t) (t when unset); admit iff x - t <= tau, then TAT = x + T.
// Level = TAT - t clamped at 0, in seconds of backlog.
//
// Every expected value below is derived by hand from those rules; the comments show how. A
// denied request waits until x - (t + d) <= tau: retry_after = x - t - tau, rounded up to the ns.
// `remaining` counts k >= 0 with TAT + k T - t <= tau after the request.
#include "limiter_steps.h"

#include <QTest>

using namespace ratelab;

namespace {

// mixedStream is 400 request times: gaps of 0 to 0.699 s from a fixed sequence, every 3rd gap 0.
std::vector<Nanos> mixedStream()
{
    std::vector<Nanos> ts;
    Nanos t = 0;
    for (int k = 0; k < 400; ++k) {
        if (k % 3 != 0)
            t += ms((k * 7919 + 13) % 700);
        ts.push_back(t);
    }
    return ts;
}

} // namespace

class TestGcra : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        addDecisionColumns();

        // C = 10, r = 1/s: T = 1 s, tau = 9 s. Request k at 0.1 k s (all earlier admitted) finds
        // TAT = k s, x - t = 0.9 k <= 9 iff k <= 10: 11 admitted. After request k: TAT = k + 1,
        // backlog 1 + 0.9 k s, remaining = floor((9 - (1 + 0.9 k)) / 1) + 1 while that is >= 0
        // (9 - k for k <= 8), else 0. Then TAT = 11 s: request k = 11..14 has x - t =
        // 11 - 0.1 k s (the level), and waits (x - t) - 9 s.
        QTest::newRow("reference: 15 requests 0.1 s apart")
            << config(10, sec(10))
            << Steps{admitted(ms(0), 9, 1),     admitted(ms(100), 8, 1.9), admitted(ms(200), 7, 2.8),
                     admitted(ms(300), 6, 3.7), admitted(ms(400), 5, 4.6), admitted(ms(500), 4, 5.5),
                     admitted(ms(600), 3, 6.4), admitted(ms(700), 2, 7.3), admitted(ms(800), 1, 8.2),
                     admitted(ms(900), 0, 9.1), admitted(ms(1000), 0, 10),  denied(ms(1100), ms(900), 9.9),
                     denied(ms(1200), ms(800), 9.8), denied(ms(1300), ms(700), 9.7), denied(ms(1400), ms(600), 9.6)};

        // C = 1, r = 1/s: tau = 0, so a request passes only when TAT <= t. After 0: TAT = 1 s;
        // at 1 s - 1 ns the backlog is 1 ns (wait 1 ns); at 1 s exactly it passes (TAT = 2 s).
        // At 5 s the old TAT is in the past: x = t, backlog 1 s.
        QTest::newRow("tau = 0 when C = 1")
            << config(1, sec(1))
            << Steps{admitted(0, 0, 1), denied(sec(1) - 1, ns(1), 1e-9), admitted(sec(1), 0, 1),
                     denied(sec(1), sec(1), 1), admitted(sec(5), 0, 1)};

        // C = 4, r = 1/s: tau = 3 s. Four at 0: TAT 1..4 s, remaining = floor((3 - TAT) / 1) + 1
        // = 3, 2, 1, then 3 - 4 < 0 gives 0. A 5th has x - t = 4 > 3: wait 1 s. At 1 s:
        // x - t = 3 <= 3 passes (TAT = 5 s, backlog 4 s); another waits 4 - 3 = 1 s.
        QTest::newRow("tau = 3 s when C = 4, r = 1/s")
            << config(4, sec(4))
            << Steps{admitted(0, 3, 1), admitted(0, 2, 2), admitted(0, 1, 3), admitted(0, 0, 4), denied(0, sec(1), 4),
                     admitted(sec(1), 0, 4), denied(sec(1), sec(1), 4)};

        // C = 3, r = 3/7 per s: T = 7/3 s, tau = 14/3 s. Three at 0: TAT 7/3, 14/3, 7 s
        // (remaining floor((14/3 - TAT) / T) + 1 = 2, 1, then < 0: 0). A 4th: x - t - tau = 7/3 s
        // = 2333333333.3 ns, rounded up. At 2.333333333 s: x - t = 4.666666667 s > 14/3 s by
        // 1/3 ns: wait 1 ns. At 2.333333334 s: 4.666666666 s <= 14/3 s passes, TAT = 28/3 s; the
        // next waits 28/3 - 2.333333334 - 14/3 s = 2333333332.7 ns, rounded up.
        QTest::newRow("3 per 7 s: retry_after rounded up to the ns")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 7.0 / 3), admitted(0, 1, 14.0 / 3), admitted(0, 0, 7),
                     denied(0, ns(2'333'333'334), 7), denied(ns(2'333'333'333), ns(1), 7 - 2.333333333),
                     admitted(ns(2'333'333'334), 0, 28.0 / 3 - 2.333333334),
                     denied(ns(2'333'333'334), ns(2'333'333'333), 28.0 / 3 - 2.333333334)};

        // C = 1, r = 10/s: T = 0.1 s, tau = 0. Request k at 0.1 k s finds TAT = 0.1 k s = t
        // exactly: x - t = 0 <= 0, all 1000 pass, each leaving a backlog of 0.1 s.
        Steps grid;
        for (int k = 0; k < 1000; ++k)
            grid.push_back(admitted(ms(100) * k, 0, 0.1));
        QTest::newRow("1000 requests exactly at the emission interval")
            << LimiterConfig::make(1, sec(1), 1, Rate::reduced(10, sec(1))) << grid;

        // C = 3, r = 3/7 per s: groups of three 7 s apart. Each group finds TAT = t exactly
        // (3 T = 7 s), so it behaves as the first: backlogs 7/3, 14/3, 7 s, and a 4th waits 7/3 s
        // rounded up.
        Steps groups;
        for (int j = 0; j < 100; ++j) {
            const Nanos t = sec(7) * j;
            groups.insert(groups.end(), {admitted(t, 2, 7.0 / 3), admitted(t, 1, 14.0 / 3), admitted(t, 0, 7),
                                         denied(t, ns(2'333'333'334), 7)});
        }
        QTest::newRow("groups of 3 every 7 s at 3/7 per s") << config(3, sec(7)) << groups;
    }

    // checks every field of each decision, and on copies that remaining and retry_after are exact.
    void decisions() { checkDecisions<Gcra>(); }

    void levelAt_data()
    {
        addLevelColumns();

        // C = 10, r = 1/s, ten at 0: TAT = 10 s, backlog 10 - t s, 0 from 10 s on.
        QTest::newRow("backlog falls to 0")
            << config(10, sec(10)) << std::vector<Nanos>(10, 0)
            << Probes{{0, 10}, {ms(2500), 7.5}, {sec(10) - 1, 1e-9}, {sec(10), 0}, {sec(20), 0}};

        // C = 3, r = 3/7 per s, three at 0: TAT = 7 s.
        QTest::newRow("3 per 7 s")
            << config(3, sec(7)) << std::vector<Nanos>(3, 0)
            << Probes{{sec(1), 6}, {ms(4500), 2.5}, {sec(7) - 1, 1e-9}, {sec(7), 0}};

        // A first request at 5 s (TAT unset, so x = t): TAT = 6 s, backlog 6 s - t.
        QTest::newRow("one request late")
            << config(10, sec(10)) << std::vector<Nanos>{sec(5)}
            << Probes{{sec(5), 1}, {ms(5250), 0.75}, {sec(6), 0}};
    }

    // checks levelAt(t) between requests, and that levelAt does not change the state.
    void levelAt() { checkLevels<Gcra>(); }

    void mirrorsTokenBucket_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::newRow("C = 10, r = 1/s") << config(10, sec(10));
        QTest::newRow("C = 3, r = 3/7 per s") << config(3, sec(7));
        QTest::newRow("C = 5, r = 2.5/s") << LimiterConfig::make(1, sec(1), 5, Rate::reduced(5, sec(2)));
        QTest::newRow("C = 1, r = 10/s") << LimiterConfig::make(1, sec(1), 1, Rate::reduced(10, sec(1)));
    }

    // checks that GCRA decides exactly as a token bucket with the same C and r, and that its
    // backlog is the bucket's missing tokens times T: backlog = (C - tokens) / r.
    void mirrorsTokenBucket()
    {
        QFETCH(LimiterConfig, config);
        TokenBucket token(config);
        Gcra gcra(config);
        const double secondsPerToken = 1.0 / config.rate().perSecond();
        int admittedCount = 0, deniedCount = 0;
        for (Nanos t : mixedStream()) {
            const Decision a = token.decide(t), b = gcra.decide(t);
            QCOMPARE(b.allowed, a.allowed);
            QCOMPARE(b.remaining, a.remaining);
            QCOMPARE(b.retryAfter, a.retryAfter);
            QVERIFY2(sameLevel(b.level, (double(config.capacity()) - a.level) * secondsPerToken), qPrintable(at(t)));
            (a.allowed ? admittedCount : deniedCount) += 1;
        }
        QVERIFY(admittedCount > 0 && deniedCount > 0); // the stream exercises both
    }

    // checks that GCRA keeps one timestamp per key.
    void memoryIsOneTimestamp()
    {
        Gcra limiter(config(10, sec(10)));
        for (int k = 0; k < 15; ++k)
            limiter.decide(ms(100) * k);
        QCOMPARE(limiter.memory().bytes, std::int64_t(8));
        QCOMPARE(limiter.memory().entries, std::int64_t(1));
    }
};

QTEST_APPLESS_MAIN(TestGcra)
#include "tst_gcra.moc"
