// Pace::follow against hand-derived tables: each gap between requests (0 at one instant) plays in
// real time clamped to [0.3 s, 1 s], the whole scaled to a length asked for or down to 30 s.
#include "view/pace.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = 1'000'000'000;
constexpr Nanos kMilli = 1'000'000;

} // namespace

class TestPace : public QObject {
    Q_OBJECT

private slots:
    // edge-burst's shape: ten requests 1 ms apart from 9.9 s, ten from 10.1 s, a view 9.8..11.6 s.
    // Knots 9.8, 9.900..9.909, 10.100..10.109, 11.6. Gaps in real time, clamped:
    //   9.8 -> 9.9      0.1 s   -> 0.3 s (slowed)     reached at 0.3 s
    //   9.900 -> 9.909  9 x 1 ms -> 9 x 0.3 s          9.909 at 3.0 s
    //   9.909 -> 10.1   0.191 s -> 0.3 s               10.100 at 3.3 s
    //   10.100 -> 10.109 9 x 0.3 s                     10.109 at 6.0 s
    //   10.109 -> 11.6  1.491 s -> 1 s (compressed)    11.6 at 7.0 s
    // 7 s in all (under the 30 s cap, no length asked for: no scaling).
    void aBurstIsSlowedAndTheIdleTailCompressed_data()
    {
        QTest::addColumn<Nanos>("real");
        QTest::addColumn<Nanos>("sim");
        QTest::newRow("before the start") << -kSecond << 9800 * kMilli;
        QTest::newRow("start") << Nanos(0) << 9800 * kMilli;
        QTest::newRow("halfway to the first") << 150 * kMilli << 9850 * kMilli;     // 9.8 + 0.1 / 2
        QTest::newRow("the first request") << 300 * kMilli << 9900 * kMilli;
        QTest::newRow("half a step later") << 450 * kMilli << Nanos(9'900'500'000); // 0.5 ms on
        QTest::newRow("the second request") << 600 * kMilli << 9901 * kMilli;
        QTest::newRow("the tenth request") << 3000 * kMilli << 9909 * kMilli;
        QTest::newRow("across to 10.1") << 3150 * kMilli << Nanos(10'004'500'000); // 9.909 + 0.191 / 2
        QTest::newRow("the eleventh request") << 3300 * kMilli << 10100 * kMilli;
        QTest::newRow("the last request") << 6000 * kMilli << 10109 * kMilli;
        QTest::newRow("into the idle tail") << 6500 * kMilli << Nanos(10'854'500'000); // 10.109 + 1.491 / 2
        QTest::newRow("the end") << 7000 * kMilli << 11600 * kMilli;
        QTest::newRow("after the end") << 8000 * kMilli << 11600 * kMilli;
    }

    void aBurstIsSlowedAndTheIdleTailCompressed()
    {
        QFETCH(Nanos, real);
        QFETCH(Nanos, sim);
        const Pace pace = Pace::follow(edgeBurst(), 9800 * kMilli, 11600 * kMilli);
        QCOMPARE(pace.realLength(), 7 * kSecond);
        QCOMPARE(pace.segmentCount(), std::size_t(21));
        QCOMPARE(pace.instantCount(), std::size_t(20));
        QCOMPARE(pace.simAt(real), sim);
        if (real >= 0 && real <= pace.realLength())
            QCOMPARE(pace.realAt(sim), real); // every row above is exact both ways
    }

    void segmentsSayWhichGapsAreCompressed()
    {
        const Pace pace = Pace::follow(edgeBurst(), 9800 * kMilli, 11600 * kMilli);
        const PaceSegment tail = pace.segmentAt(11 * kSecond);
        QCOMPARE(tail.simFrom, 10109 * kMilli);
        QCOMPARE(tail.simTo, 11600 * kMilli);
        QCOMPARE(tail.realFrom, 6 * kSecond);
        QCOMPARE(tail.realTo, 7 * kSecond);
        QVERIFY(tail.compressed());
        const PaceSegment inBurst = pace.segmentAt(9901 * kMilli); // a knot starts its gap
        QCOMPARE(inBurst.simFrom, 9901 * kMilli);
        QCOMPARE(inBurst.simTo, 9902 * kMilli);
        QVERIFY(!inBurst.compressed());
        QCOMPARE(pace.segmentAt(0).simFrom, 9800 * kMilli); // before the view: the first gap
        QCOMPARE(pace.segmentAt(20 * kSecond).simTo, 11600 * kMilli);
    }

    // Gaps between 0.3 s and 1 s play as they happened: 0.5 s, 0.5 s, 1 s in 2 s, 1x throughout.
    void gapsInTheBandPlayInRealTime()
    {
        const Pace pace = Pace::follow({500 * kMilli, 1000 * kMilli}, 0, 2 * kSecond);
        QCOMPARE(pace.realLength(), 2 * kSecond);
        for (Nanos t : {Nanos(0), 123 * kMilli, 500 * kMilli, 777 * kMilli, 1500 * kMilli, 2 * kSecond})
            QCOMPARE(pace.simAt(t), t);
    }

    // Requests at one instant are reached one by one, min apart; an instant past the end adds
    // nothing. {12, 1, 1, 0, 1, 2} in [0, 10] s: knots 0 (from), 0, 1, 1, 1, 2, 10; gaps 0, 1, 0,
    // 0, 1, 8 s play in 0.3, 1, 0.3, 0.3, 1, 1 s: the knots are reached at 0, 0.3, 1.3, 1.6, 1.9,
    // 2.9 and 3.9 s.
    void requestsAtOneInstantAreReachedOneByOne_data()
    {
        QTest::addColumn<Nanos>("real");
        QTest::addColumn<Nanos>("sim");
        QTest::addColumn<int>("reached");
        QTest::newRow("start: none yet") << Nanos(0) << Nanos(0) << 0;
        QTest::newRow("the request at 0 s") << 300 * kMilli << Nanos(0) << 1;
        QTest::newRow("the first at 1 s") << 1300 * kMilli << kSecond << 2;
        QTest::newRow("waiting for the second") << 1450 * kMilli << kSecond << 2;
        QTest::newRow("the second at 1 s") << 1600 * kMilli << kSecond << 3;
        QTest::newRow("the third at 1 s") << 1900 * kMilli << kSecond << 4;
        QTest::newRow("towards 2 s") << 2400 * kMilli << 1500 * kMilli << 4;
        QTest::newRow("the idle tail, 8 s in 1 s") << 3400 * kMilli << 6 * kSecond << 5; // 2 + 0.5 * 8
        QTest::newRow("the end") << 3900 * kMilli << 10 * kSecond << 5;
    }

    void requestsAtOneInstantAreReachedOneByOne()
    {
        QFETCH(Nanos, real);
        QFETCH(Nanos, sim);
        QFETCH(int, reached);
        const Pace pace = Pace::follow({12 * kSecond, kSecond, kSecond, 0, kSecond, 2 * kSecond}, 0, 10 * kSecond);
        QCOMPARE(pace.instantCount(), std::size_t(5));
        QCOMPARE(pace.segmentCount(), std::size_t(6));
        QCOMPARE(pace.realLength(), 3900 * kMilli);
        QCOMPARE(pace.at(real), (PacePosition{sim, std::size_t(reached)}));
        if (real != 1450 * kMilli) // waiting: the same position is reached at 1.3 s
            QCOMPARE(pace.realAt(PacePosition{sim, std::size_t(reached)}), real);
    }

    // A position asked for with more or fewer reached than its instant holds is taken to the
    // nearest: at 1 s, one instant (the one at 0 s) is before it, four at or before it.
    void positionsAreTakenToTheirInstant()
    {
        const Pace pace = Pace::follow({kSecond, kSecond, 0, kSecond, 2 * kSecond}, 0, 10 * kSecond);
        QCOMPARE(pace.instantsBefore(kSecond), std::size_t(1));
        QCOMPARE(pace.realAt(kSecond), 1300 * kMilli);                   // the first at 1 s
        QCOMPARE(pace.realAt(PacePosition{kSecond, 0}), 1300 * kMilli);  // none there yet: as the first
        QCOMPARE(pace.realAt(PacePosition{kSecond, 9}), 1900 * kMilli);  // all three
        QCOMPARE(pace.realAt(PacePosition{0, 0}), Nanos(0));              // before the one at 0 s
        QCOMPARE(pace.realAt(PacePosition{1500 * kMilli, 0}), 2400 * kMilli);
    }

    // A scenario's own length scales the whole: {10} in [0, 20] s is 1 s + 1 s naturally;
    // asked for 4 s each gap takes 2 s, asked for 1 s each takes 0.5 s.
    void aLengthAskedForScalesTheWhole()
    {
        const Pace slow = Pace::follow({10 * kSecond}, 0, 20 * kSecond, 4 * kSecond);
        QCOMPARE(slow.realLength(), 4 * kSecond);
        QCOMPARE(slow.simAt(kSecond), 5 * kSecond);
        QCOMPARE(slow.simAt(2 * kSecond), 10 * kSecond);
        QCOMPARE(slow.simAt(3 * kSecond), 15 * kSecond);
        const Pace fast = Pace::follow({10 * kSecond}, 0, 20 * kSecond, kSecond);
        QCOMPARE(fast.realAt(10 * kSecond), 500 * kMilli);
        QCOMPARE(fast.simAt(250 * kMilli), 5 * kSecond);
    }

    // 199 requests 1 ms apart from 1 ms in [0, 0.2] s: knots 0, 1, ..., 199, 200 ms, 200 gaps of
    // 0.3 s, 60 s naturally, over the 30 s cap: each gap takes 0.15 s. A length asked for wins.
    void aLongActivityIsCappedAtThirtySeconds()
    {
        std::vector<Nanos> instants;
        for (int i = 1; i < 200; ++i)
            instants.push_back(i * kMilli);
        const Pace pace = Pace::follow(instants, 0, 200 * kMilli);
        QCOMPARE(pace.segmentCount(), std::size_t(200));
        QCOMPARE(pace.realLength(), 30 * kSecond);
        QCOMPARE(pace.simAt(7 * 150 * kMilli), 7 * kMilli);
        QCOMPARE(pace.simAt(75 * kMilli), 500'000);
        QCOMPARE(Pace::follow(instants, 0, 200 * kMilli, 60 * kSecond).realLength(), 60 * kSecond);
    }

    // Scaling rounds each knot down: {1, 2} ms in [0, 3] ms asked for 1 s makes three gaps of
    // 0.3 s scaled by 1/0.9: knots at 333333333, 666666666 and 1000000000 ns. realAt rounds up:
    // 1 ns of simulated time is reached at ceil(333333333 / 1e6) = 334 ns, and simAt(334) =
    // floor(334 * 1e6 / 333333333) = 1, never behind.
    void roundingNeverMovesThePlayheadBack()
    {
        const Pace pace = Pace::follow({kMilli, 2 * kMilli}, 0, 3 * kMilli, kSecond);
        QCOMPARE(pace.segment(0).realTo, Nanos(333'333'333));
        QCOMPARE(pace.segment(1).realTo, Nanos(666'666'666));
        QCOMPARE(pace.realLength(), kSecond);
        QCOMPARE(pace.simAt(333'333'333), kMilli);
        QCOMPARE(pace.simAt(1), Nanos(0));
        QCOMPARE(pace.realAt(1), Nanos(334));
        QCOMPARE(pace.simAt(334), Nanos(1));
        for (Nanos s = 0; s <= 3 * kMilli; s += 7919) {
            QVERIFY(pace.simAt(pace.realAt(s)) >= s);
            QVERIFY(pace.realAt(s + 7919) >= pace.realAt(s));
        }
    }

    // A view with no request is one idle gap: 10 s in 1 s. An empty view plays in no time.
    void aViewWithoutRequests()
    {
        const Pace idle = Pace::follow({}, 5 * kSecond, 15 * kSecond);
        QCOMPARE(idle.realLength(), kSecond);
        QCOMPARE(idle.simAt(500 * kMilli), 10 * kSecond);
        QVERIFY(idle.segmentAt(10 * kSecond).compressed());
        const Pace none = Pace::follow({5 * kSecond}, 5 * kSecond, 5 * kSecond);
        QCOMPARE(none.realLength(), Nanos(0));
        QCOMPARE(none.segmentCount(), std::size_t(0));
        QCOMPARE(none.simAt(kSecond), 5 * kSecond);
        QCOMPARE(none.realAt(6 * kSecond), Nanos(0));
    }

private:
    static std::vector<Nanos> edgeBurst()
    {
        std::vector<Nanos> t;
        for (Nanos start : {9900 * kMilli, 10100 * kMilli})
            for (int j = 0; j < 10; ++j)
                t.push_back(start + j * kMilli);
        return t;
    }
};

QTEST_APPLESS_MAIN(TestPace)
#include "tst_pace.moc"
