// SlidingWindowLog against semantics.md: an admitted time s is kept while s > t - W (it expires
// exactly W after it was admitted), admit iff entries < L, denied requests are not recorded,
// level = entries inside the window.
//
// Every expected value below is derived by hand from those rules; the comments show how. When
// full, a request must wait until the oldest entry s0 expires: retry_after = s0 + W - t.
#include "limiter_steps.h"

#include <QTest>

using namespace ratelab;

class TestSlidingWindowLog : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        addDecisionColumns();

        // L = 10, W = 10 s, requests at 0.1 k s: the first 10 are admitted (level = entries,
        // remaining = 10 - entries); none expires before 10 s, so the rest wait for the entry
        // at 0 to expire: retry_after = 0 + 10 s - t.
        QTest::newRow("reference: 15 requests 0.1 s apart")
            << config(10, sec(10))
            << Steps{admitted(ms(0), 9, 1),      admitted(ms(100), 8, 2),    admitted(ms(200), 7, 3),
                     admitted(ms(300), 6, 4),    admitted(ms(400), 5, 5),    admitted(ms(500), 4, 6),
                     admitted(ms(600), 3, 7),    admitted(ms(700), 2, 8),    admitted(ms(800), 1, 9),
                     admitted(ms(900), 0, 10),   denied(ms(1000), ms(9000), 10), denied(ms(1100), ms(8900), 10),
                     denied(ms(1200), ms(8800), 10), denied(ms(1300), ms(8700), 10), denied(ms(1400), ms(8600), 10)};

        // L = 2, W = 1 s, entries 0 and 0.4 s. At 1 s - 1 ns the entry 0 is still kept
        // (0 > -1 ns): wait 1 ns. At exactly 1 s it expires (0 <= 1 s - W): admitted, entries
        // {0.4, 1}. At 1.2 s the oldest is 0.4 s: wait 0.4 + 1 - 1.2 = 0.2 s. At 1.4 s it
        // expires: admitted, entries {1, 1.4}; one more at 1.4 s waits 1 + 1 - 1.4 = 0.6 s.
        QTest::newRow("an entry expires exactly W after it was admitted")
            << config(2, sec(1))
            << Steps{admitted(0, 1, 1), admitted(ms(400), 0, 2), denied(sec(1) - 1, ns(1), 2),
                     admitted(sec(1), 0, 2), denied(ms(1200), ms(200), 2), admitted(ms(1400), 0, 2),
                     denied(ms(1400), ms(600), 2)};

        // L = 3, W = 1 s: three at 1 s - 1 ns fill the log; a 4th there waits a full W. At the
        // boundary 1 s nothing has expired (1 s - 1 ns > 0), unlike the fixed window: wait
        // (1 s - 1 ns) + 1 s - 1 s. At 2 s - 1 ns all three expire together.
        QTest::newRow("no boundary burst")
            << config(3, sec(1))
            << Steps{admitted(sec(1) - 1, 2, 1), admitted(sec(1) - 1, 1, 2), admitted(sec(1) - 1, 0, 3),
                     denied(sec(1) - 1, sec(1), 3), denied(sec(1), sec(1) - 1, 3), denied(sec(1), sec(1) - 1, 3),
                     denied(sec(2) - 2, ns(1), 3), admitted(sec(2) - 1, 2, 1)};

        // L = 3, W = 7 s, admitted at 0, 1 s, 2.5 s. At 3 s: wait 0 + 7 - 3 = 4 s. At 7 s the 0
        // expires: admitted, entries {1, 2.5, 7}. At 7.5 s: wait 1 + 7 - 7.5 = 0.5 s. At 9.5 s
        // both 1 and 2.5 have expired (2.5 <= 9.5 - 7): admitted with entries {7, 9.5}.
        QTest::newRow("3 per 7 s")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 1), admitted(sec(1), 1, 2), admitted(ms(2500), 0, 3), denied(sec(3), sec(4), 3),
                     admitted(sec(7), 0, 3), denied(ms(7500), ms(500), 3), admitted(ms(9500), 1, 2)};

        // L = 20, W = 1 s, 500 requests 10 ms apart (request k at 10 k ms); the log's ring grows
        // past 16 and wraps. Requests 0..19 fill it (remaining 19 - k). Then entry 10 j ms
        // expires at exactly 1 s + 10 j ms, when request k + 100 arrives: so request k is
        // admitted iff k mod 100 < 20, from k = 100 on with remaining 0 (one expired, one
        // added). A denied request waits for the oldest entry, the first of its 100-block:
        // retry_after = 1 s - 10 (k mod 100) ms. The level is 20 once the log is full.
        Steps wrap;
        for (int k = 0; k < 500; ++k) {
            const int j = k % 100;
            if (j >= 20)
                wrap.push_back(denied(ms(10) * k, sec(1) - ms(10) * j, 20));
            else if (k < 20)
                wrap.push_back(admitted(ms(10) * k, 19 - k, k + 1));
            else
                wrap.push_back(admitted(ms(10) * k, 0, 20));
        }
        QTest::newRow("500 requests 10 ms apart, L = 20, W = 1 s") << config(20, sec(1)) << wrap;
    }

    // checks every field of each decision, and on copies that remaining and retry_after are exact.
    void decisions() { checkDecisions<SlidingWindowLog>(); }

    void levelAt_data()
    {
        addLevelColumns();

        // L = 3, W = 7 s; admitted 0, 1 s, 2.5 s, 7 s (0 expired at 7 s). The level steps down
        // by one at exactly each entry's time + 7 s: 1 s -> 8 s, 2.5 s -> 9.5 s, 7 s -> 14 s.
        QTest::newRow("steps down at expiry")
            << config(3, sec(7)) << std::vector<Nanos>{0, sec(1), ms(2500), sec(7)}
            << Probes{{sec(7), 3},         {sec(8) - 1, 3}, {sec(8), 2}, {ms(9500) - 1, 2},
                      {ms(9500), 1},       {sec(14) - 1, 1}, {sec(14), 0}, {sec(60), 0}};

        // Denied requests are not recorded: L = 1, requests at 0 and 0.5 s (denied). The level
        // falls to 0 at 1 s, not at 1.5 s.
        QTest::newRow("denied requests leave no entry")
            << config(1, sec(1)) << std::vector<Nanos>{0, ms(500)}
            << Probes{{ms(500), 1}, {sec(1) - 1, 1}, {sec(1), 0}, {ms(1500), 0}};

        // Two entries at the same instant expire together.
        QTest::newRow("equal times expire together")
            << config(5, sec(2)) << std::vector<Nanos>{sec(1), sec(1), ms(1500)}
            << Probes{{ms(1500), 3}, {sec(3) - 1, 3}, {sec(3), 1}, {ms(3500), 0}};
    }

    // checks levelAt(t) between requests, and that levelAt does not change the state.
    void levelAt() { checkLevels<SlidingWindowLog>(); }

    // checks that the log holds one timestamp per admitted request still inside the window.
    void memoryIsOneEntryPerAdmission()
    {
        SlidingWindowLog limiter(config(10, sec(10)));
        for (int k = 0; k < 15; ++k)
            limiter.decide(ms(100) * k); // 10 admitted, 5 denied (reference case)
        QCOMPARE(limiter.memory().entries, std::int64_t(10));
        QCOMPARE(limiter.memory().bytes, std::int64_t(80));
        limiter.decide(ms(10050)); // entry 0 expired: 9 kept + this one
        QCOMPARE(limiter.memory().entries, std::int64_t(10));
        limiter.decide(sec(30)); // all expired, this one kept
        QCOMPARE(limiter.memory().entries, std::int64_t(1));
    }
};

QTEST_APPLESS_MAIN(TestSlidingWindowLog)
#include "tst_sliding_window_log.moc"
