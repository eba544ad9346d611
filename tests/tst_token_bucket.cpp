// TokenBucket against semantics.md: starts full with C tokens, refills at r per second capped at
// C, admit iff tokens >= 1, then tokens -= 1. Level = tokens.
//
// Every expected value below is derived by hand from those rules; the comments show how. A
// denied request waits for the missing part of a token: retry_after = (1 - tokens) / r, rounded
// up to the next ns.
#include "limiter_steps.h"

#include <QTest>

using namespace ratelab;

namespace {

// grid is n requests `gap` apart, each expected admitted with the given remaining and level.
Steps grid(int n, Nanos gap, std::int32_t remaining, double level)
{
    Steps s;
    for (int k = 0; k < n; ++k)
        s.push_back(admitted(gap * k, remaining, level));
    return s;
}

} // namespace

class TestTokenBucket : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        addDecisionColumns();

        // C = 10, r = 1/s, request k at 0.1 k s. Before request k (all earlier admitted) the
        // bucket holds 10 - k + 0.1 k = 10 - 0.9 k tokens, >= 1 iff k <= 10: 11 admitted, the
        // 11th (k = 10, t = 1.0 s) on exactly the one token refilled. After request k: 9 - 0.9 k
        // tokens, remaining = floor of that. Then before request k = 11..14: 0.1 (k - 10) tokens,
        // wait (1 - 0.1 (k - 10)) s.
        QTest::newRow("reference: 15 requests 0.1 s apart")
            << config(10, sec(10))
            << Steps{admitted(ms(0), 9, 9),     admitted(ms(100), 8, 8.1),  admitted(ms(200), 7, 7.2),
                     admitted(ms(300), 6, 6.3), admitted(ms(400), 5, 5.4),  admitted(ms(500), 4, 4.5),
                     admitted(ms(600), 3, 3.6), admitted(ms(700), 2, 2.7),  admitted(ms(800), 1, 1.8),
                     admitted(ms(900), 0, 0.9), admitted(ms(1000), 0, 0),   denied(ms(1100), ms(900), 0.1),
                     denied(ms(1200), ms(800), 0.2), denied(ms(1300), ms(700), 0.3), denied(ms(1400), ms(600), 0.4)};

        // C = 1, r = 1/s. After the token at 0 is spent, 1 s - 1 ns later the bucket holds
        // 1 - 1e-9: wait 1 ns. At exactly 1 s the token is there. Refill stops at C: at 5 s
        // there is 1 token, not 4.
        QTest::newRow("a token due exactly at t is there at t")
            << config(1, sec(1))
            << Steps{admitted(0, 0, 0), denied(sec(1) - 1, ns(1), 1 - 1e-9), admitted(sec(1), 0, 0),
                     denied(sec(1), sec(1), 0), admitted(sec(5), 0, 0)};

        // C = 2, r = 1/s: two at 0 drain it, a 3rd waits 1 s. By 10 s it has refilled to C = 2
        // (not 10): two pass, and at 10.5 s there is 0.5 token: wait 0.5 s.
        QTest::newRow("refill is capped at C")
            << config(2, sec(2))
            << Steps{admitted(0, 1, 1), admitted(0, 0, 0), denied(0, sec(1), 0), admitted(sec(10), 1, 1),
                     admitted(sec(10), 0, 0), denied(ms(10500), ms(500), 0.5)};

        // C = 3, r = 3/7 per s (limit 3, window 7 s). Three at 0 empty it; a token takes 7/3 s =
        // 2333333333.3 ns: wait 2333333334 ns (rounded up). At 2.333333333 s there are
        // 3/7 * 2.333333333 = 6999999999 / 7e9 tokens: 1 ns short (3/7e9 token per ns), wait
        // 1 ns. At 2.333333334 s there are 7000000002 / 7e9: admitted, leaving 2 / 7e9; the next
        // waits (1 - 2/7e9) / (3/7) s = (7e9 - 2) / 3 ns = 2333333332.7 ns, rounded up.
        QTest::newRow("3 per 7 s: retry_after rounded up to the ns")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 2), admitted(0, 1, 1), admitted(0, 0, 0), denied(0, ns(2'333'333'334), 0),
                     denied(ns(2'333'333'333), ns(1), 6'999'999'999 / 7e9),
                     admitted(ns(2'333'333'334), 0, 2 / 7e9),
                     denied(ns(2'333'333'334), ns(2'333'333'333), 2 / 7e9)};

        // C = 1, r = 10/s: every 0.1 s exactly one token is refilled, so each of 1000 requests
        // 0.1 s apart finds exactly 1 token and leaves 0. Any drift would deny some.
        QTest::newRow("1000 requests exactly at the refill interval")
            << LimiterConfig::make(1, sec(1), 1, Rate::reduced(10, sec(1))) << grid(1000, ms(100), 0, 0);

        // C = 3, r = 3/7 per s: groups of three requests 7 s apart. 7 s refills exactly 3 tokens,
        // so every group finds a full bucket (remaining 2, 1, 0; level 2, 1, 0), and a 4th in the
        // group waits 7/3 s rounded up.
        Steps groups;
        for (int j = 0; j < 100; ++j) {
            const Nanos t = sec(7) * j;
            groups.insert(groups.end(), {admitted(t, 2, 2), admitted(t, 1, 1), admitted(t, 0, 0),
                                         denied(t, ns(2'333'333'334), 0)});
        }
        QTest::newRow("groups of 3 every 7 s at 3/7 per s") << config(3, sec(7)) << groups;

        // A rate that is not limit / window: C = 5, r = 2.5/s (one token per 0.4 s). Five at 0,
        // a 6th waits 0.4 s; at 0.3 s there is 0.75 token: wait 0.1 s; at 0.4 s exactly 1.
        QTest::newRow("C = 5, r = 2.5/s")
            << LimiterConfig::make(1, sec(1), 5, Rate::reduced(5, sec(2)))
            << Steps{admitted(0, 4, 4), admitted(0, 3, 3), admitted(0, 2, 2), admitted(0, 1, 1), admitted(0, 0, 0),
                     denied(0, ms(400), 0), denied(ms(300), ms(100), 0.75), admitted(ms(400), 0, 0)};
    }

    // checks every field of each decision, and on copies that remaining and retry_after are exact.
    void decisions() { checkDecisions<TokenBucket>(); }

    void levelAt_data()
    {
        addLevelColumns();

        // C = 10, r = 1/s, ten at 0: the level ramps from 0 at 1 token per s and stops at 10 s.
        QTest::newRow("ramps from empty, capped at C")
            << config(10, sec(10)) << std::vector<Nanos>(10, 0)
            << Probes{{0, 0}, {ms(500), 0.5}, {ms(2500), 2.5}, {sec(10) - 1, 10 - 1e-9}, {sec(10), 10}, {sec(60), 10}};

        // Three of ten spent at 0: 7 + t tokens until 3 s.
        QTest::newRow("ramps from part full")
            << config(10, sec(10)) << std::vector<Nanos>(3, 0)
            << Probes{{0, 7}, {sec(1), 8}, {ms(2999), 9.999}, {sec(3), 10}, {sec(5), 10}};

        // C = 3, r = 3/7 per s, three at 0: 3/7 token after 1 s, 1.5 after 3.5 s, full at 7 s.
        QTest::newRow("3 per 7 s")
            << config(3, sec(7)) << std::vector<Nanos>(3, 0)
            << Probes{{sec(1), 3.0 / 7}, {ms(3500), 1.5}, {sec(7) - 1, 3 - 3 / 7e9}, {sec(7), 3}, {sec(100), 3}};
    }

    // checks levelAt(t) between requests, and that levelAt does not change the state.
    void levelAt() { checkLevels<TokenBucket>(); }

    // checks that a bucket that starts full admits a burst of exactly C at t = 0.
    void startsFull()
    {
        TokenBucket limiter(config(10, sec(10)));
        QCOMPARE(limiter.levelAt(0), 10.0);
        for (int i = 0; i < 10; ++i)
            QVERIFY(limiter.decide(0).allowed);
        QVERIFY(!limiter.decide(0).allowed);
    }
};

QTEST_APPLESS_MAIN(TestTokenBucket)
#include "tst_token_bucket.moc"
