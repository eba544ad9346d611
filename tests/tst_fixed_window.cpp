// FixedWindow against semantics.md: window b = floor(t / W), the count resets when b changes,
// admit iff count < L, level = the count in the current window.
//
// Every expected value below is derived by hand from those rules; the comments show how.
#include "limiter_steps.h"

#include <QTest>

using namespace ratelab;

class TestFixedWindow : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        addDecisionColumns();

        // L = 10, W = 10 s, requests at 0.1 k s: all in window 0. The first 10 are admitted
        // (remaining 10 - count, level = count); then count = L and a request waits for the
        // window [10 s, 20 s): retry_after = 10 s - t.
        QTest::newRow("reference: 15 requests 0.1 s apart")
            << config(10, sec(10))
            << Steps{admitted(ms(0), 9, 1),      admitted(ms(100), 8, 2),    admitted(ms(200), 7, 3),
                     admitted(ms(300), 6, 4),    admitted(ms(400), 5, 5),    admitted(ms(500), 4, 6),
                     admitted(ms(600), 3, 7),    admitted(ms(700), 2, 8),    admitted(ms(800), 1, 9),
                     admitted(ms(900), 0, 10),   denied(ms(1000), ms(9000), 10), denied(ms(1100), ms(8900), 10),
                     denied(ms(1200), ms(8800), 10), denied(ms(1300), ms(8700), 10), denied(ms(1400), ms(8600), 10)};

        // L = 1, W = 1 s. The window [1 s, 2 s) is open at exactly 1 s (count back to 0) and
        // not 1 ns before (retry_after 1 ns). Skipping windows 1..2 entirely: 3.5 s is window 3.
        QTest::newRow("a window opening exactly at t is open at t")
            << config(1, sec(1))
            << Steps{admitted(0, 0, 1), denied(ms(500), ms(500), 1), denied(sec(1) - 1, ns(1), 1),
                     admitted(sec(1), 0, 1), denied(sec(1), sec(1), 1), admitted(ms(3500), 0, 1)};

        // L = 3, W = 1 s: three admitted 1 ns before the boundary (the 4th waits 1 ns), and three
        // more at the boundary, where the count restarts at 0 (the 4th there waits all of W).
        // Six admissions within 1 ns: 2L inside one window's length.
        QTest::newRow("boundary burst: L before the boundary and L at it")
            << config(3, sec(1))
            << Steps{admitted(sec(1) - 1, 2, 1), admitted(sec(1) - 1, 1, 2), admitted(sec(1) - 1, 0, 3),
                     denied(sec(1) - 1, ns(1), 3),
                     admitted(sec(1), 2, 1), admitted(sec(1), 1, 2), admitted(sec(1), 0, 3),
                     denied(sec(1), sec(1), 3)};

        // L = 3, W = 7 s: windows [0, 7 s), [7 s, 14 s), [14 s, 21 s). At 2.333333333 s the wait
        // is 7 s - 2.333333333 s = 4.666666667 s. Window 1 admits twice, window 2 restarts.
        QTest::newRow("3 per 7 s")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 1), admitted(0, 1, 2), admitted(0, 0, 3), denied(0, sec(7), 3),
                     denied(ns(2'333'333'333), ns(4'666'666'667), 3),
                     admitted(sec(7), 2, 1), admitted(sec(14) - 1, 1, 2), admitted(sec(14), 2, 1)};
    }

    // checks every field of each decision, and on copies that remaining and retry_after are exact.
    void decisions() { checkDecisions<FixedWindow>(); }

    void levelAt_data()
    {
        addLevelColumns();

        // Three admitted in window 0 (0, 0.5 s, 9.9 s): the level stays 3 to the last ns of the
        // window and drops to 0 at exactly 10 s, and stays 0 in later windows.
        QTest::newRow("drops to 0 at the boundary")
            << config(10, sec(10)) << std::vector<Nanos>{0, ms(500), ms(9900)}
            << Probes{{ms(9900), 3}, {sec(10) - 1, 3}, {sec(10), 0}, {sec(15), 0}, {sec(25), 0}};

        // Two admitted in window 1 (10.5 s, 12 s), after window 0 was empty.
        QTest::newRow("count of a later window")
            << config(10, sec(10)) << std::vector<Nanos>{ms(10500), sec(12)}
            << Probes{{sec(12), 2}, {sec(20) - 1, 2}, {sec(20), 0}};

        // L = 1 full at 0: a probe in window 1 reads 0, yet the state must still deny at 0.
        QTest::newRow("full window, probed far ahead")
            << config(1, sec(1)) << std::vector<Nanos>{0}
            << Probes{{0, 1}, {sec(1), 0}, {sec(100), 0}};
    }

    // checks levelAt(t) between requests, and that levelAt does not change the state.
    void levelAt() { checkLevels<FixedWindow>(); }

    // checks that L requests just before a boundary and L at it are all admitted: 2L admissions
    // within the interval (10 s - W, 10 s], which is one window's length.
    void boundaryBurstAdmitsTwiceTheLimit()
    {
        FixedWindow limiter(config(10, sec(10)));
        int admittedCount = 0;
        for (int i = 0; i < 10; ++i)
            admittedCount += limiter.decide(ms(9999)).allowed ? 1 : 0;
        for (int i = 0; i < 10; ++i)
            admittedCount += limiter.decide(sec(10)).allowed ? 1 : 0;
        QCOMPARE(admittedCount, 20);
        QVERIFY(!limiter.decide(sec(10)).allowed); // window 1 is full now
    }

    // checks that the count is per window index, not per request: a long idle gap resets it.
    void idleGapResets()
    {
        FixedWindow limiter(config(2, sec(1)));
        QVERIFY(limiter.decide(0).allowed);
        QVERIFY(limiter.decide(0).allowed);
        QVERIFY(!limiter.decide(ms(999)).allowed);
        const Decision d = limiter.decide(sec(3600));
        QVERIFY(d.allowed);
        QCOMPARE(d.remaining, 1);
        QCOMPARE(d.level, 1.0);
    }
};

QTEST_APPLESS_MAIN(TestFixedWindow)
#include "tst_fixed_window.moc"
