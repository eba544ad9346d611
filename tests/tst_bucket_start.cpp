// Buckets that start empty (semantics.md, "Fleets and storms", Start): hand tables for each
// bucket, a node that joins empty, a local fallback that starts empty at the outage; and seeded
// properties: windows do not care, an empty bucket never admits more than a full one, and after
// C / r of quiet the two are the same.
#include "engine/engine.h"
#include "property_seeds.h"
#include "report/report_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kHalf = kSecond / 2;

RowRun run(Algorithm a, const LimiterConfig& config, const std::vector<Nanos>& arrivals, bool empty,
           std::optional<ClusterConfig> cluster = std::nullopt)
{
    EngineSetup setup;
    setup.layers = {{a, config}};
    setup.cluster = std::move(cluster);
    setup.startEmpty = empty;
    return runRow(setup, {arrivals, {}, {}});
}

struct Want {
    bool allowed;
    Nanos wait; // delay when admitted, retry_after when denied
};

void compare(const RowRun& got, const std::vector<Want>& want)
{
    QCOMPARE(got.log.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const QByteArray where = "attempt " + QByteArray::number(qulonglong(i));
        QVERIFY2(bool(got.log[i].allowed) == want[i].allowed, where);
        QVERIFY2(got.log[i].wait == want[i].wait, where + ": wait " + QByteArray::number(qlonglong(got.log[i].wait)));
    }
}

} // namespace

class TestBucketStart : public QObject {
    Q_OBJECT
private slots:
    // 4 per 4 s (C = 4, r = 1/s; nginx burst 3), requests at 0, 0.5, ..., 2.5 s, empty at 0.
    // Token bucket: 0 tokens at 0, 0.5 at 0.5 s: denied, told the missing part; the token of 1 s
    // admits 1 s, and so each whole second. Leaky bucket (meter): water 4 at 0, draining 1/s:
    // room for one at 1 s and 2 s. GCRA: TAT = 0 + 4 T = 4 s, tolerance 3 T: admits from
    // TAT - 3 s = 1 s. The queue holds 4 at 0: the one at 1 s finds 3 ahead and waits 3 s; nginx's
    // excess is 3000 at 0, 2000 at 1 s: admitted, delayed 3 s. The fixed window starts empty
    // either way: 0 .. 1.5 s pass, 2 s and 2.5 s wait for 4 s.
    void eachBucketStartsEmpty()
    {
        const LimiterConfig config = LimiterConfig::make(4, 4 * kSecond);
        const std::vector<Nanos> t{0, kHalf, kSecond, 3 * kHalf, 2 * kSecond, 5 * kHalf};
        const std::vector<Want> meter{{false, kSecond}, {false, kHalf}, {true, 0}, {false, kHalf}, {true, 0}, {false, kHalf}};
        for (Algorithm a : {Algorithm::TokenBucket, Algorithm::LeakyBucket, Algorithm::Gcra})
            compare(run(a, config, t, true), meter);
        const std::vector<Want> queue{{false, kSecond}, {false, kHalf}, {true, 3 * kSecond},
                                      {false, kHalf},   {true, 3 * kSecond}, {false, kHalf}};
        compare(run(Algorithm::LeakyBucketQueue, config, t, true), queue);
        compare(run(Algorithm::NginxLimitReq, config, t, true), queue);
        const std::vector<Want> fixed{{true, 0}, {true, 0}, {true, 0}, {true, 0}, {false, 2 * kSecond}, {false, 3 * kHalf}};
        compare(run(Algorithm::FixedWindow, config, t, true), fixed);
        compare(run(Algorithm::FixedWindow, config, t, false), fixed);
        // Full, as always: the token bucket admits all six (4 tokens and 1.5 refilled by 1.5 s).
        for (const LoggedAttempt& a : run(Algorithm::TokenBucket, config, t, false).log)
            QVERIFY(a.allowed);
    }

    // Two local nodes, token bucket C = 2, r = 1/s (2 per 2 s), node 1 joins at 2 s: before, node
    // 0 takes every request; from 2 s round robin over both (in node order, counting attempts
    // from the first: attempt k goes to up[k mod |up|]). Requests at 0, 0, 2, 2, 2, 2 s.
    // Empty: node 0 has no token at 0 (both denied, retry 1 s) and 2 at 2 s (refilled); node 1
    // joins empty at 2 s and denies its two. Full: node 0 admits 0, 0 and its two at 2 s (2 s
    // refill); node 1 joins full and admits its two.
    void aNodeJoinsEmpty()
    {
        ClusterConfig::Options o{2, Balancer::RoundRobin, Coordination::Local};
        o.joins = {{1, 2 * kSecond}};
        const ClusterConfig cluster = ClusterConfig::make(o);
        const LimiterConfig config = LimiterConfig::make(2, 2 * kSecond);
        const std::vector<Nanos> t{0, 0, 2 * kSecond, 2 * kSecond, 2 * kSecond, 2 * kSecond};
        const RowRun empty = run(Algorithm::TokenBucket, config, t, true, cluster);
        std::vector<int> nodes;
        for (const LoggedAttempt& a : empty.log)
            nodes.push_back(a.node);
        QCOMPARE(nodes, (std::vector<int>{0, 0, 0, 1, 0, 1}));
        compare(empty, {{false, kSecond}, {false, kSecond}, {true, 0}, {false, kSecond}, {true, 0}, {false, kSecond}});
        compare(run(Algorithm::TokenBucket, config, t, false, cluster),
                {{true, 0}, {true, 0}, {true, 0}, {true, 0}, {true, 0}, {true, 0}});
    }

    // Shared store, the store down over [1 s, 3 s) with a local fallback: each node's own bucket
    // is new at 1 s. One node, token bucket C = 2, r = 1/s, requests at 1, 1, 1 s: empty, none
    // passes (told 1 s); full, two pass and the third is told 1 s.
    void aLocalFallbackStartsEmpty()
    {
        ClusterConfig::Options o{1, Balancer::RoundRobin, Coordination::Shared};
        o.outageFromNanos = kSecond;
        o.outageToNanos = 3 * kSecond;
        o.fallback = Fallback::Local;
        const ClusterConfig cluster = ClusterConfig::make(o);
        const LimiterConfig config = LimiterConfig::make(2, 2 * kSecond);
        const std::vector<Nanos> t{kSecond, kSecond, kSecond};
        compare(run(Algorithm::TokenBucket, config, t, true, cluster), {{false, kSecond}, {false, kSecond}, {false, kSecond}});
        compare(run(Algorithm::TokenBucket, config, t, false, cluster), {{true, 0}, {true, 0}, {false, kSecond}});
    }

    // Seeded: random configs and traffic. For the windows, empty and full are the same run. For
    // each bucket, the empty run never has more admissions than the full one after any attempt
    // (less credit never admits more), and traffic that starts after C / r (the time an empty
    // bucket takes to fill) decides the same both ways.
    void emptyNeverAdmitsMore()
    {
        const std::uint64_t seeds = propertySeeds();
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const std::int64_t limit = 1 + std::int64_t(rng() % 6);
            const Nanos window = Nanos(1 + rng() % 4) * kSecond;
            const LimiterConfig config = LimiterConfig::make(limit, window);
            std::vector<Nanos> t;
            Nanos at = Nanos(rng() % 3) * kHalf;
            for (int i = 0, n = 1 + int(rng() % 30); i < n; ++i) {
                t.push_back(at);
                at += Nanos(rng() % 5) * kSecond / 8;
            }
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed));
            for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter}) {
                const RowRun e = run(a, config, t, true), f = run(a, config, t, false);
                for (std::size_t i = 0; i < t.size(); ++i)
                    QVERIFY2(e.log[i].allowed == f.log[i].allowed && e.log[i].wait == f.log[i].wait, where);
            }
            for (Algorithm a : {Algorithm::TokenBucket, Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue,
                                Algorithm::Gcra, Algorithm::NginxLimitReq}) {
                const RowRun e = run(a, config, t, true), f = run(a, config, t, false);
                std::int64_t admittedEmpty = 0, admittedFull = 0;
                for (std::size_t i = 0; i < t.size(); ++i) {
                    admittedEmpty += e.log[i].allowed;
                    admittedFull += f.log[i].allowed;
                    QVERIFY2(admittedEmpty <= admittedFull, where + " " + QByteArray::number(int(a)));
                }
                // Shifted past the fill time, the two starts agree: C / r = W here, and nginx's
                // rate is rounded down to thousandths (4/3 r/s drains 1333 a second), so 2 W.
                std::vector<Nanos> late = t;
                for (Nanos& x : late)
                    x += 2 * window;
                const RowRun el = run(a, config, late, true), fl = run(a, config, late, false);
                for (std::size_t i = 0; i < t.size(); ++i)
                    QVERIFY2(el.log[i].allowed == fl.log[i].allowed && el.log[i].wait == fl.log[i].wait,
                             where + " late " + QByteArray::number(int(a)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestBucketStart)
#include "tst_bucket_start.moc"
