// Worst cases (semantics.md, "Fleets and storms"): the most requests each algorithm admits in any
// window (t - T, t]. Hand tables from the derivations in core/worst_case.h; then seeded random
// traffic never exceeds the bound, and worstTraffic reaches it exactly where it is tight.
#include "property_seeds.h"
#include "any_limiter.h"
#include "worst_case.h"

#include <QtTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSec = 1'000'000'000;

constexpr Algorithm kBounded[] = {Algorithm::FixedWindow,  Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter,
                                  Algorithm::TokenBucket,  Algorithm::LeakyBucket,      Algorithm::LeakyBucketQueue,
                                  Algorithm::Gcra,         Algorithm::NginxLimitReq};

// admittedTimes runs a fresh limiter of a over the arrivals (cost 1) and returns the admitted ones.
std::vector<Nanos> admittedTimes(Algorithm a, const LimiterConfig& c, const std::vector<Nanos>& arrivals)
{
    AnyLimiter limiter = makeAnyLimiter(a, c);
    std::vector<Nanos> admitted;
    for (Nanos t : arrivals)
        if (decideAny(limiter, t, 1).allowed)
            admitted.push_back(t);
    return admitted;
}

std::int64_t bound(Algorithm a, const LimiterConfig& c, Nanos T) { return worstCase(a, c, T)->requests; }

} // namespace

class TestWorstCase : public QObject {
    Q_OBJECT

private slots:
    // L = 10 per W = 10 s; capacity 10, rate 1/s. A window (t - T, t] holds T instants.
    void handTable()
    {
        const LimiterConfig c = LimiterConfig::make(10, 10 * kSec);
        using A = Algorithm;
        // fixed: L * (ceil((T - 1) / W) + 1)
        QCOMPARE(bound(A::FixedWindow, c, 1), 10);             // one instant: one window
        QCOMPARE(bound(A::FixedWindow, c, 10 * kSec), 20);     // across one boundary
        QCOMPARE(bound(A::FixedWindow, c, 20 * kSec + 1), 30); // 20 s apart at most: three windows
        QCOMPARE(bound(A::FixedWindow, c, 20 * kSec + 2), 40); // 9.999999999 s, 10, 20 and 30 s
        // log: L * ceil(T / W)
        QCOMPARE(bound(A::SlidingWindowLog, c, 10 * kSec), 10);
        QCOMPARE(bound(A::SlidingWindowLog, c, 10 * kSec + 1), 20); // 0 and 10 s both inside
        QCOMPARE(bound(A::SlidingWindowLog, c, 1), 10);
        // buckets: C + floor(r * (T - 1))
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra}) {
            QCOMPARE(bound(a, c, 10 * kSec), 19);     // 10 at once, then one at 1 s, ..., 9 s
            QCOMPARE(bound(a, c, 10 * kSec + 1), 20); // ... and 10 s
            QCOMPARE(bound(a, c, 1), 10);
        }
        // capacity 1 at 12/s: every admission empties the bucket, the next waits ceil(1/12 s) =
        // 83,333,334 ns; in 2 s + 1 ns that is 0, g, ..., 23g = 1.916666682 s (24g = 2.000000016 s
        // is out), where r * (T - 1) would say 1 + 24.
        const LimiterConfig one = LimiterConfig::make(10, 10 * kSec, 1, Rate::reduced(12, kSec));
        QCOMPARE(bound(A::TokenBucket, one, 2 * kSec + 1), 24);
        QCOMPARE(bound(A::Gcra, one, 2 * kSec + 1), 24);
        // the counter: 2L at T = W, reached; an upper bound elsewhere
        QCOMPARE(bound(A::SlidingWindowCounter, c, 10 * kSec), 20);
        QVERIFY(worstCase(A::SlidingWindowCounter, c, 10 * kSec)->tight);
        QVERIFY(!worstCase(A::SlidingWindowCounter, c, 20 * kSec)->tight);
        // nginx at 1 r/s (capacity 10: burst 9): B + 1 + floor(1000 * ceil((T - 1) / 1 ms) / 10^6)
        QCOMPARE(bound(A::NginxLimitReq, c, 10 * kSec), 20); // 10,000 ms of drain is 10 requests
        QCOMPARE(bound(A::NginxLimitReq, c, 1), 10);
        QVERIFY(!worstCase(A::Guava, c, 10 * kSec));         // products: none derived
    }

    // The worst traffic, by hand: fixed L at 9.999999999 s and at 10 s; the buckets C at 0 and
    // then one each second.
    void worstTrafficByHand()
    {
        const LimiterConfig c = LimiterConfig::make(2, 10 * kSec);
        QCOMPARE(worstTraffic(Algorithm::FixedWindow, c, 10 * kSec),
                 (std::vector<Nanos>{10 * kSec - 1, 10 * kSec - 1, 10 * kSec, 10 * kSec}));
        const LimiterConfig b = LimiterConfig::make(2, 2 * kSec); // capacity 2, rate 1/s
        QCOMPARE(worstTraffic(Algorithm::TokenBucket, b, 3 * kSec), (std::vector<Nanos>{0, 0, kSec, 2 * kSec}));
        QCOMPARE(worstTraffic(Algorithm::SlidingWindowLog, b, 3 * kSec), (std::vector<Nanos>{0, 0, 2 * kSec, 2 * kSec}));
    }

    // No seeded traffic admits more than the bound in any window of length T; the worst traffic
    // admits every request and reaches the bound where it is tight.
    void neverExceededAndReached()
    {
        const int seeds = int(std::min<std::uint64_t>(propertySeeds(), 5000));
        for (int seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const std::int64_t limit = 1 + std::int64_t(rng() % 12);
            const Nanos window = (1 + Nanos(rng() % 20)) * (rng() % 2 ? kSec : 1'000'003);
            const std::int64_t capacity = 1 + std::int64_t(rng() % 12);
            const std::int64_t perSecond = 1 + std::int64_t(rng() % 30); // nginx: whole per second
            const LimiterConfig c = LimiterConfig::make(limit, window, capacity, Rate::reduced(perSecond, kSec));
            const Nanos choices[] = {window, 1, window / 3 + 1, 2 * window + 1, 1 + Nanos(rng() % (4 * window))};
            const Nanos T = choices[rng() % 5];
            std::vector<Nanos> arrivals;
            Nanos t = Nanos(rng() % kSec);
            for (int i = 0; i < 300; ++i) {
                if (rng() % 3 != 0) // equal times and gaps of any size, dense around the window
                    t += Nanos(rng() % (2 * window / (limit + 1) + 2));
                arrivals.push_back(t);
            }
            for (Algorithm a : kBounded) {
                const QString where = QStringLiteral("seed %1 %2 T %3").arg(seed).arg(int(a)).arg(T);
                const WorstCase w = *worstCase(a, c, T);
                QVERIFY2(maxInAnyWindow(admittedTimes(a, c, arrivals), T) <= w.requests, qPrintable(where));
                const std::vector<Nanos> worst = worstTraffic(a, c, T);
                QVERIFY2(worst.empty() == !w.tight, qPrintable(where));
                if (!w.tight)
                    continue;
                const std::vector<Nanos> admitted = admittedTimes(a, c, worst);
                QVERIFY2(admitted.size() == worst.size(), qPrintable(where));
                QVERIFY2(maxInAnyWindow(admitted, T) == w.requests, qPrintable(where));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestWorstCase)
#include "tst_worst_case.moc"
