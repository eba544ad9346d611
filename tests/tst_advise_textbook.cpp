// advise --compare (core/advise/textbook_advice.h): the textbook token bucket's and GCRA's least
// capacity for a trace, worked out by hand in exact rates, checked against a brute-force search
// on TokenBucket and Gcra themselves, and their rows on a small log.
#include "limiters/any_limiter.h"
#include "advise/textbook_advice.h"
#include "arithmetic/decimal.h"
#include "limiters/config.h"
#include "property_seeds.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

// bruteCapacity is the least capacity at which the algorithm's model admits every request of the
// trace: tried from 1 upwards.
std::int64_t bruteCapacity(Algorithm a, const std::vector<Nanos>& times, Rate rate)
{
    for (std::int64_t c = 1;; ++c) {
        AnyLimiter limiter = makeLimiter(a, LimiterConfig::make(c, rate.perNanos, c, rate));
        bool all = true;
        for (Nanos t : times)
            all = limiter.decide(t).allowed && all;
        if (all)
            return c;
    }
}

std::vector<Nanos> randomTrace(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, 1, 300'000, kMs, 60 * kMs, 333 * kMs, 1000 * kMs, 4700 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, kMs)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 7)(rng)];
        out.push_back(t);
    }
    return out;
}

} // namespace

class TestAdviseTextbook : public QObject {
    Q_OBJECT
private slots:
    // Three requests at 0 s, one at 0.5 s, one at 1 s. The deficit in tokens:
    //   1/s:   3, 3 - 0.5 + 1 = 3.5, 3.5 - 0.5 + 1 = 4: capacity 4.
    //   0.5/s: 3, 3 - 0.25 + 1 = 3.75, 4.5: capacity 5.
    //   0.4/s (24 a minute): 3, 3.8, 4.6: 5.
    //   2/s:   3, 3 - 1 + 1 = 3, 3: 3.
    // One request needs 1; ten at once 10.
    void capacityByHand()
    {
        const std::vector<Nanos> a{0, 0, 0, 500 * kMs, 1000 * kMs};
        QCOMPARE(bucketCapacityNeeded(KeyTrace{a, {}}, Rate::reduced(1, kNanosPerSecond)), 4);
        QCOMPARE(bucketCapacityNeeded(KeyTrace{a, {}}, Rate::reduced(1, 2 * kNanosPerSecond)), 5);
        QCOMPARE(bucketCapacityNeeded(KeyTrace{a, {}}, Rate::reduced(24, 60 * kNanosPerSecond)), 5);
        QCOMPARE(bucketCapacityNeeded(KeyTrace{a, {}}, Rate::reduced(2, kNanosPerSecond)), 3);
        const std::vector<Nanos> one{5 * kMs}, ten(10, 0);
        QCOMPARE(bucketCapacityNeeded(KeyTrace{one, {}}, Rate::reduced(1, kNanosPerSecond)), 1);
        QCOMPARE(bucketCapacityNeeded(KeyTrace{ten, {}}, Rate::reduced(1000, kNanosPerSecond)), 10);
    }

    // The rows on keys a (above, kept) and c (ten at once, not kept) at 0.5/s: capacity 5; the
    // token bucket and GCRA each let c's first 5 through and deny the other 5.
    void rowsByHand()
    {
        KeyedTraces traces;
        traces.start = {0, 5, 15};
        traces.times = {0, 0, 0, 500 * kMs, 1000 * kMs, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        traces.limited = {1, 1};
        const std::vector<TextbookRow> rows = textbookRows(traces, {1, 0}, Rate::reduced(1, 2 * kNanosPerSecond));
        QCOMPARE(rows.size(), std::size_t(2));
        QVERIFY(rows[0].algorithm == Algorithm::TokenBucket && rows[1].algorithm == Algorithm::Gcra);
        for (const TextbookRow& r : rows) {
            QCOMPARE(r.capacity, 5);
            QCOMPARE(r.denied.kept, 0);
            QCOMPARE(r.denied.other, 5);
            QCOMPARE(r.denied.keys, 1);
        }
    }

    // Property: on random traces and rates the one-pass capacity equals the brute-force least on
    // TokenBucket and on Gcra.
    void capacityIsTheBruteForceLeast()
    {
        const Rate rates[] = {Rate::reduced(1, 60 * kNanosPerSecond), Rate::reduced(7, 60 * kNanosPerSecond),
                              Rate::reduced(1, kNanosPerSecond), Rate::reduced(3, kNanosPerSecond),
                              Rate::reduced(20, kNanosPerSecond), Rate::reduced(1000, kNanosPerSecond)};
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTrace(rng);
            for (const Rate& r : rates) {
                const std::int64_t c = bucketCapacityNeeded(KeyTrace{times, {}}, r);
                QVERIFY2(c == bruteCapacity(Algorithm::TokenBucket, times, r), qPrintable(QString("seed %1").arg(seed)));
                QVERIFY2(c == bruteCapacity(Algorithm::Gcra, times, r), qPrintable(QString("seed %1").arg(seed)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestAdviseTextbook)
#include "tst_advise_textbook.moc"
