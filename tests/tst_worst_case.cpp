// tst_worst_case: each algorithm's "at most X in any T" (core/limiters/worst_case.h). A hand table of bounds
// derived from semantics.md; then, for RATELAB_PROPERTY_SEEDS seeds (default 200; at most 20000
// are run: 2000 take 0.2 s in Release, so CI's 20000 stays a few seconds under ASan), random configs, windows T and traffic: no run
// admits more than the bound in any (t - T, t], and the worst pattern reaches it exactly where
// worstCaseTight says it does.
#include "arithmetic/decimal.h"
#include "property_seeds.h"
#include "limiters/any_limiter.h"
#include "limiters/worst_case.h"
#include "max_admitted.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

constexpr Algorithm kBounded[] = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter,
                                  Algorithm::TokenBucket, Algorithm::LeakyBucket,      Algorithm::LeakyBucketQueue,
                                  Algorithm::Gcra,        Algorithm::NginxLimitReq};

std::uint64_t seedCount() { return std::min<std::uint64_t>(propertySeeds(), 20000); }

// admittedMost runs a fresh limiter over the times and returns the most admitted in any window T.
std::int64_t admittedMost(Algorithm a, const LimiterConfig& c, const std::vector<Nanos>& times, Nanos T)
{
    AnyLimiter limiter = makeLimiter(a, c);
    std::vector<bool> admitted;
    admitted.reserve(times.size());
    for (Nanos t : times)
        admitted.push_back(limiter.decide(t).allowed);
    return maxAdmittedIn(times, admitted, T);
}

// randomConfig draws L, W, C and a rate nginx can write (a whole number per second or per minute).
LimiterConfig randomConfig(std::mt19937_64& rng)
{
    const auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    const std::int64_t L = pick(1, 6);
    static constexpr Nanos kWindows[] = {kSecond, 10 * kSecond, 3 * kSecond / 2, 7 * kMilli, 250 * kMilli, 5};
    const Nanos W = kWindows[pick(0, 5)];
    const std::int64_t C = pick(1, 6);
    static constexpr Rate kRates[] = {{1, kSecond}, {2, kSecond}, {4, kSecond}, {5, kSecond}, {10, kSecond},
                                      {3, kSecond}, {7, kSecond}, {1, 60 * kSecond}, {1, 10 * kSecond}};
    return LimiterConfig::make(L, W, C, kRates[pick(0, 8)]);
}

// randomTraffic draws up to 60 non-decreasing times: bursts at one instant, 1 ns steps, steps of
// W, W - 1 and W + 1, whole milliseconds and random gaps up to 2 W.
std::vector<Nanos> randomTraffic(std::mt19937_64& rng, Nanos W)
{
    const auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    std::vector<Nanos> out;
    Nanos t = pick(0, 2) == 0 ? 0 : pick(0, 2 * W);
    const std::int64_t n = pick(1, 60);
    for (std::int64_t i = 0; i < n; ++i) {
        out.push_back(t);
        switch (pick(0, 7)) {
        case 0: case 1: break; // same instant
        case 2: t += 1; break;
        case 3: t += W; break;
        case 4: t += std::max<Nanos>(W - 1, 0); break;
        case 5: t += kMilli; break;
        case 6: t += std::max<Nanos>(W / 4, 1); break;
        default: t += pick(0, 2 * W); break;
        }
    }
    return out;
}

} // namespace

class TestWorstCase : public QObject {
    Q_OBJECT
private slots:
    // Bounds by hand, L = 10, W = 10 s, C = 10, r = 1/s (nginx: burst 9, 1r/s).
    void handTable_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<qint64>("window");
        QTest::addColumn<qint64>("bound");
        const auto row = [](const char* name, Algorithm a, Nanos T, qint64 bound) {
            QTest::newRow(name) << int(a) << qint64(T) << bound;
        };
        const Nanos W = 10 * kSecond;
        // fixed: the instants of (t - T, t] meet ceil((T - 1) / W) + 1 windows.
        row("fixed T=1ns", Algorithm::FixedWindow, 1, 10);
        row("fixed T=W", Algorithm::FixedWindow, W, 20);
        row("fixed T=W+1ns", Algorithm::FixedWindow, W + 1, 20);
        row("fixed T=W+2ns", Algorithm::FixedWindow, W + 2, 30);
        row("fixed T=3W", Algorithm::FixedWindow, 3 * W, 40);
        // log: ceil(T / W) pieces of W.
        row("log T=W", Algorithm::SlidingWindowLog, W, 10);
        row("log T=W+1ns", Algorithm::SlidingWindowLog, W + 1, 20);
        row("log T=1s", Algorithm::SlidingWindowLog, kSecond, 10);
        // buckets: C + floor(r (T - 1 ns)): the 10th refill in 10 s lands on the window's open end.
        row("token T=W", Algorithm::TokenBucket, W, 19);
        row("token T=W+1ns", Algorithm::TokenBucket, W + 1, 20);
        row("token T=1ns", Algorithm::TokenBucket, 1, 10);
        row("leaky T=W", Algorithm::LeakyBucket, W, 19);
        row("queue T=1min", Algorithm::LeakyBucketQueue, 60 * kSecond, 69);
        row("gcra T=2.5s", Algorithm::Gcra, 5 * kSecond / 2, 12);
        // counter: max(L, ceil(L (T + W - 2) / W)).
        row("counter T=1ns", Algorithm::SlidingWindowCounter, 1, 10);
        row("counter T=W", Algorithm::SlidingWindowCounter, W, 20); // ceil(20 - 2e-9)
        row("counter T=W/2", Algorithm::SlidingWindowCounter, W / 2, 15); // ceil(15 - 2e-9)
        row("counter T=2W", Algorithm::SlidingWindowCounter, 2 * W, 30);
        // nginx: B + 1 + floor(R D / 10^6), D = ceil((T - 1) / 1 ms): 10 s span 10000 ms.
        row("nginx T=W", Algorithm::NginxLimitReq, W, 20);
        row("nginx T=1ms", Algorithm::NginxLimitReq, kMilli, 10);
        row("nginx T=1s", Algorithm::NginxLimitReq, kSecond, 11);
    }
    void handTable()
    {
        QFETCH(int, algorithm);
        QFETCH(qint64, window);
        QFETCH(qint64, bound);
        const LimiterConfig c = LimiterConfig::make(10, 10 * kSecond);
        const auto a = Algorithm(algorithm);
        QCOMPARE(worstCaseBound(a, c, window).value_or(-1), bound);
        QVERIFY(worstCaseTight(a, c, window));
        QCOMPARE(admittedMost(a, c, worstArrivals(a, c, window), window), bound);
    }

    // A small window in ns (W = 5 ns, L = 6 >= W): the counter's bound holds but a second full
    // window cannot follow a full one, so it is not reached.
    void counterNotTightWhenLimitReachesWindow()
    {
        const LimiterConfig c = LimiterConfig::make(6, 5);
        QCOMPARE(worstCaseBound(Algorithm::SlidingWindowCounter, c, 10).value(), 16); // ceil(6 * 13 / 5)
        QVERIFY(!worstCaseTight(Algorithm::SlidingWindowCounter, c, 10));
        QVERIFY(worstCaseTight(Algorithm::SlidingWindowCounter, c, 5)); // j = 1
        QVERIFY(admittedMost(Algorithm::SlidingWindowCounter, c, worstArrivals(Algorithm::SlidingWindowCounter, c, 10), 10)
                < 16);
    }

    // nginx at 700 r/s with burst 0: one admission needs 2 ms, so 4 ms hold 2, not 1 + floor(2.8).
    void nginxNotTight()
    {
        const LimiterConfig c = LimiterConfig::make(1, kSecond, 1, Rate{700, kSecond});
        const Nanos T = 3 * kMilli + 1; // spans 4 whole ms: D = 3
        QCOMPARE(worstCaseBound(Algorithm::NginxLimitReq, c, T).value(), 3);
        QVERIFY(!worstCaseTight(Algorithm::NginxLimitReq, c, T));
        QCOMPARE(admittedMost(Algorithm::NginxLimitReq, c, worstArrivals(Algorithm::NginxLimitReq, c, T), T), 2);
    }

    void productsHaveNoBound()
    {
        const LimiterConfig c = LimiterConfig::make(10, 10 * kSecond);
        QVERIFY(!worstCaseBound(Algorithm::Guava, c, kSecond));
        QVERIFY(!worstCaseTight(Algorithm::Guava, c, kSecond));
    }

    void refusesBadWindows()
    {
        const LimiterConfig c = LimiterConfig::make(10, 10 * kSecond);
        QVERIFY_THROWS_EXCEPTION(InputError, worstCaseBound(Algorithm::FixedWindow, c, 0));
        QVERIFY_THROWS_EXCEPTION(InputError, worstArrivals(Algorithm::FixedWindow, c, -5));
        // 10 per 10 s over 100 years: more requests than a scenario may hold.
        QVERIFY_THROWS_EXCEPTION(InputError, worstArrivals(Algorithm::SlidingWindowLog, LimiterConfig::make(1000, 1), kSecond));
        QCOMPARE(worstCaseBound(Algorithm::FixedWindow, LimiterConfig::make(1'000'000'000, 1), kMaxNanos).value(),
                 std::numeric_limits<std::int64_t>::max());
    }

    // The property: no seeded traffic beats the bound; the worst pattern reaches it where tight.
    void noTrafficExceedsTheBound()
    {
        const std::uint64_t seeds = seedCount();
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const LimiterConfig c = randomConfig(rng);
            const Nanos W = c.windowNanos();
            const Nanos windows[] = {1, std::max<Nanos>(W - 1, 1), W, W + 1, 2 * W - 1, 2 * W + 1,
                                     std::uniform_int_distribution<Nanos>(1, 3 * W)(rng), kMilli, kMilli + 1};
            const std::vector<Nanos> traffic = randomTraffic(rng, W);
            for (Algorithm a : kBounded) {
                for (Nanos T : windows) {
                    const std::int64_t bound = worstCaseBound(a, c, T).value();
                    const std::int64_t got = admittedMost(a, c, traffic, T);
                    if (got > bound)
                        QFAIL(qPrintable(QString("seed %1 %2 T=%3 ns: %4 admitted > bound %5")
                                             .arg(seed).arg(QString::fromUtf8(algorithmId(a))).arg(T).arg(got).arg(bound)));
                    if (bound > 5000)
                        continue; // a long worst pattern: checked by the hand table
                    const std::int64_t worst = admittedMost(a, c, worstArrivals(a, c, T), T);
                    const bool tight = worstCaseTight(a, c, T);
                    if (worst > bound || (tight && worst != bound))
                        QFAIL(qPrintable(QString("seed %1 %2 L=%7 W=%8 C=%9 r=%10 T=%3 ns: the worst pattern admits %4, bound %5%6")
                                             .arg(seed).arg(QString::fromUtf8(algorithmId(a))).arg(T).arg(worst).arg(bound)
                                             .arg(tight ? "" : " (not tight)").arg(c.limit()).arg(W).arg(c.capacity())
                                             .arg(QString::fromStdString(c.rate().exactText()))));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestWorstCase)
#include "tst_worst_case.moc"
