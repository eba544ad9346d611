// LeakyBucket (meter) and LeakyBucketQueue (shaper) against semantics.md.
//
// Meter: starts empty, the water falls at r per second floored at 0, admit iff level + 1 <= C,
// then level += 1; level = water. A denied request waits until level + 1 - C has drained:
// retry_after = (level + 1 - C) / r, rounded up to the ns.
// Queue: admits what the meter admits; an admitted request waits delay = level_before / r
// (rounded up) and leaves at t + delay; level = requests admitted and not yet left.
//
// Every expected value in the tables is derived by hand from those rules; the comments show how.
#include "limiter_steps.h"

#include <QTest>

#include <cmath>

using namespace ratelab;

namespace {

// mixedStream is 400 request times: gaps of 0 to 0.699 s from a fixed sequence, every 3rd gap 0
// (bursts), about 4 requests a second, so the buckets below both admit and deny.
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

// The reference case for both: C = 10, r = 1/s, request k at 0.1 k s. Before request k (all
// earlier admitted) the water is 0.9 k: it fits (0.9 k + 1 <= 10) iff k <= 10, so 11 are
// admitted, the 11th at exactly 1.0 s onto water 9. After request k: 1 + 0.9 k, remaining =
// floor(10 - water). Before k = 11..14 the water is 10 - 0.1 (k - 10): wait (1 - 0.1 (k - 10)) s.
// The queue's delay is water_before / r = 0.9 k s, so request k leaves at 0.1 k + 0.9 k = k s;
// waiting after request k = those with departure > t: k (k = 1..9: requests 1..k), 0 for k = 0,
// and 9 from t = 1.0 s on (request 1 leaves at exactly 1.0 s; requests 2..10 wait until 2..10 s).
Steps reference(bool queue)
{
    const double water[] = {1, 1.9, 2.8, 3.7, 4.6, 5.5, 6.4, 7.3, 8.2, 9.1, 10};
    Steps s;
    for (int k = 0; k <= 10; ++k) {
        const std::int32_t remaining = std::max(9 - k, 0);
        s.push_back(queue ? admitted(ms(100) * k, remaining, std::min(k, 9), ms(900) * k)
                          : admitted(ms(100) * k, remaining, water[k]));
    }
    for (int k = 11; k <= 14; ++k)
        s.push_back(denied(ms(100) * k, ms(1000) - ms(100) * (k - 10), queue ? 9 : 10 - 0.1 * (k - 10)));
    return s;
}

} // namespace

class TestLeakyBucket : public QObject {
    Q_OBJECT
private slots:
    void meter_data()
    {
        addDecisionColumns();

        QTest::newRow("reference: 15 requests 0.1 s apart") << config(10, sec(10)) << reference(false);

        // C = 2, r = 1/s: two at 0 fill it (a 3rd needs 1 unit drained: 1 s). At 1 s the water is
        // 1: admitted back to 2. By 100 s it has drained to 0, not below: 1 after, remaining 1.
        // At 100.25 s: 0.75, then 1.75 (remaining floor(0.25) = 0); a next waits 0.75 s.
        QTest::newRow("drains to 0 and not below")
            << config(2, sec(2))
            << Steps{admitted(0, 1, 1), admitted(0, 0, 2), denied(0, sec(1), 2), admitted(sec(1), 0, 2),
                     admitted(sec(100), 1, 1), admitted(ms(100250), 0, 1.75), denied(ms(100250), ms(750), 1.75)};

        // C = 3, r = 3/7 per s: three at 0 fill it; a 4th needs 1 unit drained: 7/3 s, rounded up
        // to 2333333334 ns. At 2.333333333 s the water is 3 - 6999999999/7e9 = 2 + 1/7e9: still
        // 1/7e9 over, which drains in 1/3 ns: wait 1 ns. At 2.333333334 s: 2 - 2/7e9, admitted
        // to 3 - 2/7e9 (remaining 0).
        QTest::newRow("3 per 7 s: retry_after rounded up to the ns")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 1), admitted(0, 1, 2), admitted(0, 0, 3), denied(0, ns(2'333'333'334), 3),
                     denied(ns(2'333'333'333), ns(1), 2 + 1 / 7e9), admitted(ns(2'333'333'334), 0, 3 - 2 / 7e9)};

        // C = 1, r = 10/s: each 0.1 s drains exactly the 1 unit the previous request poured.
        Steps grid;
        for (int k = 0; k < 1000; ++k)
            grid.push_back(admitted(ms(100) * k, 0, 1));
        QTest::newRow("1000 requests exactly at the drain interval")
            << LimiterConfig::make(1, sec(1), 1, Rate::reduced(10, sec(1))) << grid;
    }

    // checks every field of each meter decision, and remaining / retry_after on copies.
    void meter() { checkDecisions<LeakyBucket>(); }

    void queue_data()
    {
        addDecisionColumns();

        QTest::newRow("reference: 15 requests 0.1 s apart") << config(10, sec(10)) << reference(true);

        // C = 3, r = 3/7 per s, a burst of 3 at 0: water before 0, 1, 2, so delays 0, 7/3 s and
        // 14/3 s, rounded up: 2333333334 and 4666666667 ns. Waiting: 0, 1, 2. The 4th is
        // dropped (wait 7/3 s rounded up), delay 0.
        QTest::newRow("3 per 7 s: delays rounded up to the ns")
            << config(3, sec(7))
            << Steps{admitted(0, 2, 0, 0), admitted(0, 1, 1, ns(2'333'333'334)), admitted(0, 0, 2, ns(4'666'666'667)),
                     denied(0, ns(2'333'333'334), 2)};

        // C = 3, r = 1/s. Water before: 0 at 0; 0.75 at 0.25 s; 1.5 at 0.5 s; so delays 0,
        // 0.75 s, 1.5 s and departures 0, 1 s, 2 s (1/r apart). Waiting after: 0, 1, 2.
        // At 0.5 s the water is 2.5: a 4th is 0.5 over (wait 0.5 s). At 1 s the water is 2:
        // admitted with delay 2 s (leaves at 3 s); the one of 0.25 s leaves at exactly 1 s, so
        // waiting = 2 (those leaving at 2 s and 3 s).
        QTest::newRow("departures 1/r apart")
            << config(3, sec(3))
            << Steps{admitted(0, 2, 0, 0), admitted(ms(250), 1, 1, ms(750)), admitted(ms(500), 0, 2, ms(1500)),
                     denied(ms(500), ms(500), 2), admitted(sec(1), 0, 2, sec(2))};

        // C = 1, r = 10/s: every request finds the bucket drained: delay 0, nobody waiting.
        Steps grid;
        for (int k = 0; k < 1000; ++k)
            grid.push_back(admitted(ms(100) * k, 0, 0, 0));
        QTest::newRow("1000 requests exactly at the drain interval")
            << LimiterConfig::make(1, sec(1), 1, Rate::reduced(10, sec(1))) << grid;
    }

    // checks every field of each queue decision (delay included), and remaining / retry_after.
    void queue() { checkDecisions<LeakyBucketQueue>(); }

    void levelAt_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<std::vector<Nanos>>("requests");
        QTest::addColumn<Probes>("meter");
        QTest::addColumn<Probes>("queue");

        // C = 3, r = 1/s, three at 0: water 3 - t until 3 s, then 0. The queue's three leave at
        // 0, 1 s and 2 s: 2 waiting until 1 s, 1 until 2 s, then none.
        QTest::newRow("burst of 3 at 1/s")
            << config(3, sec(3)) << std::vector<Nanos>(3, 0)
            << Probes{{0, 3}, {ms(500), 2.5}, {sec(1), 2}, {sec(3) - 1, 1e-9}, {sec(3), 0}, {sec(10), 0}}
            << Probes{{0, 2}, {ms(500), 2}, {sec(1) - 1, 2}, {sec(1), 1}, {ms(1500), 1}, {sec(2), 0}, {sec(10), 0}};

        // C = 3, r = 3/7 per s: departures at 0, 7/3 s, 14/3 s; water 3 - 3t/7.
        QTest::newRow("burst of 3 at 3/7 per s")
            << config(3, sec(7)) << std::vector<Nanos>(3, 0)
            << Probes{{sec(1), 3 - 3.0 / 7}, {ms(3500), 1.5}, {sec(7), 0}}
            << Probes{{ns(2'333'333'333), 2}, {ns(2'333'333'334), 1}, {ns(4'666'666'666), 1},
                      {ns(4'666'666'667), 0}};
    }

    // checks levelAt(t) between requests for the meter (water) and the queue (waiting count),
    // and that levelAt does not change the state of either.
    void levelAt()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(std::vector<Nanos>, requests);
        QFETCH(Probes, meter);
        QFETCH(Probes, queue);
        LeakyBucket m(config);
        const QString meterProblem = levelProblem(m, requests, meter);
        QVERIFY2(meterProblem.isEmpty(), qPrintable("meter: " + meterProblem));
        LeakyBucketQueue q(config);
        const QString queueProblem = levelProblem(q, requests, queue);
        QVERIFY2(queueProblem.isEmpty(), qPrintable("queue: " + queueProblem));
    }

    void mirrorsTokenBucket_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<std::int64_t>("capacity");
        QTest::newRow("C = 10, r = 1/s") << config(10, sec(10)) << std::int64_t(10);
        QTest::newRow("C = 3, r = 3/7 per s") << config(3, sec(7)) << std::int64_t(3);
        QTest::newRow("C = 5, r = 2.5/s") << LimiterConfig::make(1, sec(1), 5, Rate::reduced(5, sec(2))) << std::int64_t(5);
    }

    // checks that the meter decides exactly as a token bucket with the same C and r, with
    // water = C - tokens after every request.
    void mirrorsTokenBucket()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(std::int64_t, capacity);
        TokenBucket token(config);
        LeakyBucket meter(config);
        int admittedCount = 0, deniedCount = 0;
        for (Nanos t : mixedStream()) {
            const Decision a = token.decide(t), b = meter.decide(t);
            QCOMPARE(b.allowed, a.allowed);
            QCOMPARE(b.remaining, a.remaining);
            QCOMPARE(b.retryAfter, a.retryAfter);
            QVERIFY2(sameLevel(b.level, double(capacity) - a.level), qPrintable(at(t)));
            (a.allowed ? admittedCount : deniedCount) += 1;
        }
        QVERIFY(admittedCount > 0 && deniedCount > 0); // the stream exercises both
    }

    void queueShapes_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Nanos>("interval"); // 1/r, a whole number of ns here
        QTest::newRow("C = 10, r = 1/s") << config(10, sec(10)) << sec(1);
        QTest::newRow("C = 5, r = 2.5/s") << LimiterConfig::make(1, sec(1), 5, Rate::reduced(5, sec(2))) << ms(400);
    }

    // checks the queue against its definition on a mixed stream: it admits what the meter admits,
    // delay = water_before / r (the meter's level just before the request), departures are at
    // least 1/r apart (exactly 1/r when delayed), and its level counts admitted requests whose
    // departure t + delay is still ahead.
    void queueShapes()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(Nanos, interval);
        LeakyBucket meter(config);
        LeakyBucketQueue queue(config);
        std::vector<Nanos> departures;
        int delayedCount = 0;
        for (Nanos t : mixedStream()) {
            const double before = meter.levelAt(t);
            const Decision m = meter.decide(t), q = queue.decide(t);
            QCOMPARE(q.allowed, m.allowed);
            QCOMPARE(q.remaining, m.remaining);
            QCOMPARE(q.retryAfter, m.retryAfter);
            if (q.allowed) {
                // Times are whole ms and 1/r a whole number of ns, so the delay is exact.
                QCOMPARE(q.delay, Nanos(std::llround(before * double(interval))));
                if (!departures.empty()) {
                    QVERIFY(t + q.delay >= departures.back() + interval);
                    if (q.delay > 0)
                        QCOMPARE(t + q.delay, departures.back() + interval);
                }
                departures.push_back(t + q.delay);
                delayedCount += q.delay > 0 ? 1 : 0;
            } else {
                QCOMPARE(q.delay, Nanos(0));
            }
            const auto waiting = std::count_if(departures.begin(), departures.end(), [t](Nanos d) { return d > t; });
            QVERIFY2(q.level == double(waiting), qPrintable(at(t)));
        }
        QVERIFY(delayedCount > 0);
    }
};

QTEST_APPLESS_MAIN(TestLeakyBucket)
#include "tst_leaky_bucket.moc"
