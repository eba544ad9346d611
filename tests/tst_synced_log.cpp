// SyncedLog, the store cell's shared-entry log (hybrid and racy), against its contract: it
// decides as SlidingWindowLog does, and a copy sees the entries as of the copy plus its own.
// A hand table first, then seeded streams decided side by side with SlidingWindowLog, copies
// and all, long enough that the owner moves its entries to a new buffer many times.
#include "property_seeds.h"
#include "limiters/synced_log.h"
#include "limiters/sliding_window_log.h"

#include <QtTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSec = 1'000'000'000;

} // namespace

class TestSyncedLog : public QObject {
    Q_OBJECT

private slots:
    // L = 2, W = 10 s. An entry s is kept while s > t - W. The copy A is taken after the
    // store admitted at 0; after that each decides on its own entries.
    void copyHandTable()
    {
        SyncedLog store(2, 10 * kSec);
        QVERIFY(store.decide(0).allowed);
        SyncedLog a = store;
        QVERIFY(store.decide(3 * kSec).allowed); // store: 0, 3
        QVERIFY(a.decide(4 * kSec).allowed);     // a: 0, 4 (3 is not in its copy)
        const Decision denied = a.decide(5 * kSec);
        QVERIFY(!denied.allowed);
        QCOMPARE(denied.retryAfter, 5 * kSec); // 0 expires at 10
        QCOMPARE(denied.level, 2.0);
        QVERIFY(store.decide(10 * kSec).allowed); // 0 expired: store 3, 10
        QVERIFY(a.decide(10 * kSec).allowed);     // a: 4, 10
        const Decision full = store.decide(12 * kSec);
        QVERIFY(!full.allowed);
        QCOMPARE(full.retryAfter, 1 * kSec); // 3 expires at 13
        QCOMPARE(a.remainingAt(12 * kSec), 0);
        QCOMPARE(a.remainingAt(14 * kSec), 1); // 4 expired at 14
        QCOMPARE(a.memory().entries, std::int64_t(2));
        QCOMPARE(a.waitFor(12 * kSec, 2), 8 * kSec); // both must go: 10 expires at 20
    }

    // A cost above the limit never fits; a cost that fits after two expiries waits for the second.
    void costHandTable()
    {
        SyncedLog log(5, 10 * kSec);
        QVERIFY(log.decide(0, 2).allowed);
        QVERIFY(log.decide(1 * kSec, 2).allowed);
        const Decision d = log.decide(2 * kSec, 4);
        QVERIFY(!d.allowed);
        QCOMPARE(d.retryAfter, 9 * kSec); // 2 + 2 + 4 > 5 until the entry at 1 s expires at 11 s
        QCOMPARE(d.remaining, 1);
        QCOMPARE(log.decide(2 * kSec, 6).retryAfter, kRetryNever);
        QCOMPARE(log.memory().bytes, std::int64_t(32)); // 16 bytes an entry once a cost was not 1
    }

    // Seeded streams: the store and a few copies each decide random times and costs beside a
    // SlidingWindowLog copied at the same moments; every answer agrees.
    void agreesWithSlidingWindowLog()
    {
        const int seeds = int(std::min<std::uint64_t>(propertySeeds(), 1000)); // 6000 steps each: CI's 20,000 would take minutes
        for (int seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const std::int64_t limit = 1 + std::int64_t(rng() % (seed % 4 == 0 ? 3000 : 12));
            const Nanos window = 1 + Nanos(rng() % (5 * kSec));
            const LimiterConfig config = LimiterConfig::make(limit, window);
            const bool costs = seed % 3 == 0;
            SyncedLog store(limit, window);
            SlidingWindowLog reference(config, DecidePath::General);
            std::vector<SyncedLog> copies;
            std::vector<SlidingWindowLog> references;
            std::vector<Nanos> lastOf;
            Nanos t = 0;
            for (int i = 0; i < 6000; ++i) {
                t += Nanos(rng() % (window / (limit + 1) * 3 + 2));
                const std::int64_t cost = costs ? 1 + std::int64_t(rng() % 4) : 1;
                const std::size_t who = rng() % (copies.size() + 2);
                if (who == copies.size() + 1 && copies.size() < 4) { // copy the store now
                    copies.push_back(store);
                    references.push_back(reference);
                    continue;
                }
                const bool onStore = who >= copies.size();
                SyncedLog& s = onStore ? store : copies[who];
                SlidingWindowLog& r = onStore ? reference : references[who];
                const Decision got = s.decide(t, cost);
                const Decision want = r.decide(t, cost);
                const QString where = QStringLiteral("seed %1, step %2, t %3").arg(seed).arg(i).arg(t);
                QVERIFY2(got.allowed == want.allowed && got.retryAfter == want.retryAfter
                             && got.remaining == want.remaining && got.level == want.level,
                         qPrintable(where));
                const Nanos later = t + Nanos(rng() % window);
                QVERIFY2(s.waitFor(later, cost) == r.waitFor(later, cost), qPrintable(where));
                QVERIFY2(s.remainingAt(later) == r.remainingAt(later), qPrintable(where));
                QVERIFY2(s.levelAt(later) == r.levelAt(later), qPrintable(where));
                QVERIFY2(s.memory().entries == r.memory().entries && s.memory().bytes == r.memory().bytes,
                         qPrintable(where));
                if (rng() % 50 == 0 && !copies.empty()) { // a sync: a copy becomes the store again
                    const std::size_t k = rng() % copies.size();
                    copies[k] = store;
                    references[k] = reference;
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestSyncedLog)
#include "tst_synced_log.moc"
