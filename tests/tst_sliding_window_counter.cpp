// SlidingWindowCounter against semantics.md: prev counts window b - 1, cur window b,
// e = t - b W, estimate E = prev (W - e) / W + cur; admit iff prev (W - e) + cur W < L W
// (exactly), then cur += 1. Level = E at that instant.
//
// Every expected value below is derived by hand from those rules; the comments show how.
// retry_after is the least d for which the inequality holds at t + d: within the window while
// prev's weight decays, or in the next window, where prev' = cur and e' starts at 0.
#include "limiter_steps.h"

#include <QTest>

using namespace ratelab;

class TestSlidingWindowCounter : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        addDecisionColumns();

        // L = 10, W = 10 s, requests at 0.1 k s, all in window 0 with prev = 0: E = cur, so the
        // first 10 pass (remaining 10 - cur). Then cur = L, and E >= L for the rest of window 0.
        // In window 1 prev = 10 and E = 10 (W - e) / W < 10 iff e >= 1 ns, so the wait runs to
        // 1 ns past the boundary: retry_after = 10 s - t + 1 ns (the fixed window's + 1 ns).
        QTest::newRow("reference: 15 requests 0.1 s apart")
            << config(10, sec(10))
            << Steps{admitted(ms(0), 9, 1),   admitted(ms(100), 8, 2), admitted(ms(200), 7, 3),
                     admitted(ms(300), 6, 4), admitted(ms(400), 5, 5), admitted(ms(500), 4, 6),
                     admitted(ms(600), 3, 7), admitted(ms(700), 2, 8), admitted(ms(800), 1, 9),
                     admitted(ms(900), 0, 10),
                     denied(ms(1000), ms(9000) + 1, 10), denied(ms(1100), ms(8900) + 1, 10),
                     denied(ms(1200), ms(8800) + 1, 10), denied(ms(1300), ms(8700) + 1, 10),
                     denied(ms(1400), ms(8600) + 1, 10)};

        // L = 2, W = 1 s; two at 0.5 s. At exactly 1 s (e = 0) prev = 2 counts in full:
        // 2 W + 0 < 2 W fails; 1 ns later 2 (W - 1 ns) < 2 W: wait 1 ns.
        // At 1 s + 1 ns: admitted, E = 2 (W - 1 ns) / W + 1 = 3 - 2e-9 (remaining 0).
        // Again at 1 s + 1 ns: cur = 1 < L, need 2 (W - e) / W + 1 < 2, e > W / 2, so the least
        // e is 0.5 s + 1 ns: wait 0.5 s (within the window). At 1.5 s + 1 ns: admitted, E =
        // 2 (0.5 s - 1 ns) / 1 s + 2 = 3 - 2e-9. Again: cur = 2 = L, only window 2 helps, with
        // prev' = 2 and e' >= 1 ns: wait (2 s - 1.5 s - 1 ns) + 1 ns = 0.5 s (across the
        // boundary). At 2 s itself prev = 2 counts in full again: wait 1 ns.
        QTest::newRow("e = 0 counts prev in full; retry within and across windows")
            << config(2, sec(1))
            << Steps{admitted(ms(500), 1, 1), admitted(ms(500), 0, 2), denied(sec(1), ns(1), 2),
                     admitted(sec(1) + 1, 0, 3 - 2e-9), denied(sec(1) + 1, ms(500), 3 - 2e-9),
                     admitted(ms(1500) + 1, 0, 3 - 2e-9), denied(ms(1500) + 1, ms(500), 3 - 2e-9),
                     denied(sec(2), ns(1), 2)};

        // L = 10, W = 10 s; ten at 5 s, so cur = L: an 11th waits to 1 ns into window 1:
        // 10 s - 5 s + 1 ns. At 12.5 s (window 1, e = 2.5 s) prev = 10 weighs 7.5: E = 7.5 + cur,
        // so three pass (E after: 8.5, 9.5, 10.5; remaining: how many of 8.5, 9.5 are < 10, then
        // 9.5, then none). A 4th needs 10 (10 s - e) / 10 s + 3 < 10, e > 3 s: wait 0.5 s + 1 ns.
        QTest::newRow("the previous window decays")
            << config(10, sec(10))
            << Steps{admitted(sec(5), 9, 1),  admitted(sec(5), 8, 2),  admitted(sec(5), 7, 3),  admitted(sec(5), 6, 4),
                     admitted(sec(5), 5, 5),  admitted(sec(5), 4, 6),  admitted(sec(5), 3, 7),  admitted(sec(5), 2, 8),
                     admitted(sec(5), 1, 9),  admitted(sec(5), 0, 10), denied(sec(5), sec(5) + 1, 10),
                     admitted(ms(12500), 2, 8.5), admitted(ms(12500), 1, 9.5), admitted(ms(12500), 0, 10.5),
                     denied(ms(12500), ms(500) + 1, 10.5)};

        // L = 3, W = 7 s; three at 0, a 4th waits to 7 s + 1 ns. At 7 s (e = 0) prev = 3 counts in
        // full: wait 1 ns. At 7 s + 1 ns: E = 3 (7 s - 1 ns) / 7 s + 1 = 4 - 3 / 7e9. Again:
        // need 3 (7 - e) / 7 + 1 < 3, e > 7/3 s = 2333333333.3 ns, so e = 2333333334 ns: wait
        // 2333333333 ns. Then: admitted with E = 3 (7e9 - 2333333334) / 7e9 + 2 = 4 - 2 / 7e9.
        // Again: need 3 (7 - e) / 7 + 2 < 3, e > 14/3 s, e = 4666666667 ns: wait 2333333333 ns.
        QTest::newRow("3 per 7 s: non-decimal thresholds")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 1), admitted(0, 1, 2), admitted(0, 0, 3), denied(0, sec(7) + 1, 3),
                     denied(sec(7), ns(1), 3), admitted(sec(7) + 1, 0, 4 - 3 / 7e9),
                     denied(sec(7) + 1, ns(2'333'333'333), 4 - 3 / 7e9),
                     admitted(sec(7) + 2'333'333'334, 0, 4 - 2 / 7e9),
                     denied(sec(7) + 2'333'333'334, ns(2'333'333'333), 4 - 2 / 7e9)};

        // A window with no requests makes prev 0: L = 2, W = 1 s, two at 0.5 s, then at 2.5 s
        // (window 2, window 1 empty) E = 0 and both pass again.
        QTest::newRow("an empty window between makes prev 0")
            << config(2, sec(1))
            << Steps{admitted(ms(500), 1, 1), admitted(ms(500), 0, 2), admitted(ms(2500), 1, 1),
                     admitted(ms(2500), 0, 2), denied(ms(2500), ms(500) + 1, 2)};
    }

    // checks every field of each decision, and on copies that remaining and retry_after are exact.
    void decisions() { checkDecisions<SlidingWindowCounter>(); }

    void levelAt_data()
    {
        addLevelColumns();

        // L = 10, W = 10 s, ten at 5 s: E = 10 to the end of window 0 and at 10 s (prev in full),
        // then 10 (20 s - t) / 10 s: 7.5 at 12.5 s, 5 at 15 s, 1e-9 at 20 s - 1 ns; 0 from 20 s.
        QTest::newRow("decays linearly through the next window")
            << config(10, sec(10)) << std::vector<Nanos>(10, sec(5))
            << Probes{{sec(5), 10},      {sec(10) - 1, 10}, {sec(10), 10}, {ms(12500), 7.5},
                      {sec(15), 5},      {sec(20) - 1, 1e-9}, {sec(20), 0}, {sec(30), 0}};

        // As above plus three at 12.5 s (prev = 10, cur = 3): E = 10 (20 s - t) / 10 s + 3 in
        // window 1; in window 2 prev = 3: 3 at 20 s, 1.5 at 25 s, 0 from 30 s.
        std::vector<Nanos> both(10, sec(5));
        both.insert(both.end(), 3, ms(12500));
        QTest::newRow("prev decays, cur carries over")
            << config(10, sec(10)) << both
            << Probes{{ms(12500), 10.5}, {sec(15), 8}, {sec(20) - 1, 3 + 1e-9}, {sec(20), 3},
                      {sec(25), 1.5},    {sec(30), 0}};
    }

    // checks levelAt(t) between requests, and that levelAt does not change the state.
    void levelAt() { checkLevels<SlidingWindowCounter>(); }

    // checks the boundary burst: L just before a boundary and L at it admit only L, because at
    // e = 0 the previous window counts in full (the fixed window would admit 2L).
    void boundaryBurstIsHeldAtTheBoundary()
    {
        SlidingWindowCounter limiter(config(10, sec(10)));
        int admittedCount = 0;
        for (int i = 0; i < 10; ++i)
            admittedCount += limiter.decide(ms(9999)).allowed ? 1 : 0;
        for (int i = 0; i < 10; ++i)
            admittedCount += limiter.decide(sec(10)).allowed ? 1 : 0;
        QCOMPARE(admittedCount, 10);
    }
};

QTEST_APPLESS_MAIN(TestSlidingWindowCounter)
#include "tst_sliding_window_counter.moc"
