// Level lines: the level of each node, the store or each client, as the engine's store records
// them (RowRun::levels, level_lines.h).
// Tables by hand: token bucket C = 2, r = 1/s (LimiterConfig 2 per 2 s); requests at 0, 0, 1 s,
// 1 s, round robin over two nodes (or clients); two samples per gap (one between decisions).
#include "view/row_extras.h"
#include "property_seeds.h"

#include <random>

#include <QtTest>

using namespace ratelab;

namespace {

constexpr Nanos kSec = 1'000'000'000;
const std::vector<Nanos> kArrivals{0, 0, kSec, kSec};

EngineSetup setupOf(std::optional<ClusterConfig> cluster, std::optional<ClientConfig> clients = std::nullopt)
{
    EngineSetup s;
    s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(2, 2 * kSec)}};
    s.cluster = std::move(cluster);
    s.clients = std::move(clients);
    s.levelLines = LevelLineSetup{8, 2};
    return s;
}

KeyLevels levelsOf(const EngineSetup& s)
{
    return runRow(s, {kArrivals, {}, {}}).levels;
}

using Points = std::vector<std::pair<double, double>>; // seconds, level

Points pointsOf(const KeyLevel& line)
{
    Points out;
    for (const KeyLevelPoint& p : line.points)
        out.emplace_back(double(p.t) / 1e9, p.level);
    return out;
}

} // namespace

class TestKeyLevels : public QObject {
    Q_OBJECT

private slots:
    // Local: each node its own bucket. 2 -> 1 at 0; half a token by 0.5 s; full 2 at 1 s -> 1.
    void localNodes()
    {
        const KeyLevels k = levelsOf(setupOf(ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local})));
        QCOMPARE(k.lines.size(), std::size_t(2));
        QCOMPARE(k.lines[0].name, std::string("node 1"));
        QCOMPARE(k.lines[1].name, std::string("node 2"));
        const Points want{{0, 2}, {0, 1}, {0.5, 1.5}, {1, 2}, {1, 1}};
        QCOMPARE(pointsOf(k.lines[0]), want);
        QCOMPARE(pointsOf(k.lines[1]), want);
        QCOMPARE(k.lines[0].attempts, std::int64_t(2));
    }

    // Shared: one store decides all four: 2 -> 1 -> 0 at 0; 0.5 at 0.5 s; 1 -> 0 at 1 s, then a
    // denial leaves 0.
    // Three samples a gap of 1 s + 1 ns: the j-th at floor((1e9 + 1) * j / 3) ns, 333,333,333 and
    // 666,666,667, the bucket a third and two thirds of a token up from 1.
    void samplesFallOnFlooredThirds()
    {
        EngineSetup s = setupOf(ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local}));
        s.levelLines = LevelLineSetup{8, 3};
        const std::vector<Nanos> arrivals{0, 0, kSec + 1, kSec + 1};
        const KeyLevels k = runRow(s, {arrivals, {}, {}}).levels;
        QCOMPARE(k.lines.size(), std::size_t(2));
        std::vector<Nanos> times;
        for (const KeyLevelPoint& p : k.lines[0].points)
            times.push_back(p.t);
        QCOMPARE(times, (std::vector<Nanos>{0, 0, 333'333'333, 666'666'667, kSec + 1, kSec + 1}));
        QVERIFY(qFuzzyCompare(k.lines[0].points[2].level, 1.333333333));
        QVERIFY(qFuzzyCompare(k.lines[0].points[3].level, 1.666666667));
        QCOMPARE(k.lines[0].points[4].level, 2.0);
        QCOMPARE(k.lines[0].points[5].level, 1.0);
    }

    void sharedStore()
    {
        const KeyLevels k = levelsOf(setupOf(ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Shared})));
        QCOMPARE(k.lines.size(), std::size_t(1));
        QCOMPARE(k.lines[0].name, std::string("store"));
        QCOMPARE(pointsOf(k.lines[0]), (Points{{0, 2}, {0, 1}, {0, 1}, {0, 0}, {0.5, 0.5}, {1, 1}, {1, 0}, {1, 0}, {1, 0}}));
    }

    // Shared with the store down over [0.5 s, 1.5 s), failing open: the two at 0 take the
    // store's tokens (2 -> 1 -> 0); the two at 1 s pass open and the store never sees them, so
    // its line refills on: 0.5 at 0.5 s, and the line ends at 1 s with 1 token. A local fallback
    // keeps levels on each node instead: no line.
    void sharedStoreThroughAnOutage()
    {
        ClusterConfig::Options o{2, Balancer::RoundRobin, Coordination::Shared};
        o.outageFromNanos = kSec / 2;
        o.outageToNanos = 3 * kSec / 2;
        const KeyLevels k = levelsOf(setupOf(ClusterConfig::make(o)));
        QCOMPARE(k.lines.size(), std::size_t(1));
        QCOMPARE(pointsOf(k.lines[0]), (Points{{0, 2}, {0, 1}, {0, 1}, {0, 0}, {0.5, 0.5}, {1, 1}}));
        o.fallback = Fallback::Local;
        QVERIFY(levelsOf(setupOf(ClusterConfig::make(o))).lines.empty());
        // Local nodes have no store to lose: the outage changes nothing, each node's line stays.
        o.coordination = Coordination::Local;
        QCOMPARE(levelsOf(setupOf(ClusterConfig::make(o))).lines.size(), std::size_t(2));
    }

    // Autoscaling 1 to 2 local nodes at 2 attempts a second: requests at 0, 0, 0.5, 0.5 s fill
    // second 0 (node 0 alone), so node 2 comes up new at 1 s, and 1.5 s (attempt 5: node 2)
    // finds it full: its line starts at 1 s with 2 tokens (empty start: 0, then 0.5 at 1.5 s).
    void aNodeThatComesUpStartsNew()
    {
        const std::vector<Nanos> t{0, 0, kSec / 2, kSec / 2, kSec, 3 * kSec / 2};
        for (const bool empty : {false, true}) {
            EngineSetup s = setupOf(std::nullopt);
            ClusterConfig::Options o{2, Balancer::RoundRobin, Coordination::Local};
            o.autoscaleMin = 1;
            o.autoscaleMax = 2;
            o.scaleAt = Rate{2, kSec};
            s.cluster = ClusterConfig::make(o);
            s.startEmpty = empty;
            const RowRun run = runRow(s, {t, {}, {}});
            const KeyLevels& k = run.levels;
            QCOMPARE(k.lines.size(), std::size_t(2));
            const Points node2 = pointsOf(k.lines[1]);
            QCOMPARE(node2.front(), (std::pair<double, double>{1, empty ? 0.0 : 2.0}));
            QCOMPARE(run.log[5].node, std::uint8_t(1));
            QCOMPARE(bool(run.log[5].allowed), !empty);
        }
        // Down and up again: second 1 holds 2 attempts (1 node from 2 s), seconds 2 and 3 hold 0
        // and 4 (2 nodes again from 4 s): node 2's line restarts at 4 s, full, and the second
        // attempt at 4.5 s (attempt 11: 11 mod 2 = node 2) takes a token: 2 -> 1.
        const std::vector<Nanos> again{0, 0, kSec / 2, kSec / 2, kSec, kSec, 3 * kSec, 3 * kSec, 3 * kSec, 3 * kSec,
                                       9 * kSec / 2, 9 * kSec / 2};
        EngineSetup s = setupOf(std::nullopt);
        ClusterConfig::Options o{2, Balancer::RoundRobin, Coordination::Local};
        o.autoscaleMin = 1;
        o.autoscaleMax = 2;
        o.scaleAt = Rate{2, kSec};
        s.cluster = ClusterConfig::make(o);
        const RowRun run = runRow(s, {again, {}, {}});
        QCOMPARE(run.scaling, (std::vector<std::pair<Nanos, int>>{{0, 1}, {kSec, 2}, {2 * kSec, 1}, {4 * kSec, 2}}));
        QCOMPARE(run.log[11].node, std::uint8_t(1));
        const KeyLevels& k = run.levels;
        QCOMPARE(k.lines.size(), std::size_t(2));
        const Points node2 = pointsOf(k.lines[1]);
        QVERIFY(std::find(node2.begin(), node2.end(), std::pair<double, double>{4, 2}) != node2.end());
        QCOMPARE(node2.back(), (std::pair<double, double>{4.5, 1}));
    }

    // Clients with keys of their own, no retries: as the local nodes, named by client.
    void clientKeys()
    {
        ClientOptions o;
        o.clients = 2;
        o.key = KeyMode::Client;
        o.retry = RetryPolicy::None;
        const KeyLevels k = levelsOf(setupOf(std::nullopt, ClientConfig::make(o)));
        QCOMPARE(k.lines.size(), std::size_t(2));
        QCOMPARE(k.lines[1].name, std::string("client 1"));
        QCOMPARE(pointsOf(k.lines[1]), (Points{{0, 2}, {0, 1}, {0.5, 1.5}, {1, 2}, {1, 1}}));
    }

    // Buckets of a round width: 4 s over 4 buckets is 1 s each. A fixed window of 1 per 2 s and a
    // client retrying at once, at most 3 times: 0 is admitted; 1.5 s is denied (the window [0, 2 s)
    // holds one) and so are its 3 retries at 1.5 s.
    void attemptBucketsByHand()
    {
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(1, 2 * kSec)}};
        ClientOptions o;
        o.retry = RetryPolicy::Immediate;
        o.maxRetries = 3;
        s.clients = ClientConfig::make(o);
        const std::vector<Nanos> arrivals{0, 3 * kSec / 2};
        const RowRun run = runRow(s, {arrivals, {}, {}});
        const AttemptBuckets b = attemptBuckets(run, 0, 4 * kSec, 4);
        QCOMPARE(b.widthNanos, kSec);
        QCOMPARE(b.first, (std::vector<std::int64_t>{1, 1, 0, 0}));
        QCOMPARE(b.retries, (std::vector<std::int64_t>{0, 3, 0, 0}));
        QCOMPARE(attemptBuckets(run, 0, 3 * kSec, 4).widthNanos, kSec); // 0.75 s rounds up to 1 s
    }

    // Beyond `most`, the busiest are drawn and the rest counted; racy and a single limiter: none.
    // Racy, a round trip of 0.25 s: the store's line is what the writes make of it as they land.
    // Both reads at 0 find 2 tokens and admit; their writes land at 0.25 s (2 -> 1 -> 0, handed
    // the reads' time 0). At 1 s the first read finds the token refilled since and admits; the
    // second reads before that write lands, finds the same token and admits too: 4 admitted of a
    // capacity of 2. At 1.25 s the writes land: 1 -> 0, and the second is refused by the store.
    void racyStore()
    {
        const EngineSetup s = setupOf(ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Racy, kSec / 4}));
        const RowRun run = runRow(s, {kArrivals, {}, {}});
        QCOMPARE(run.metrics.allowed, std::int64_t(4));
        const KeyLevels& k = run.levels;
        QCOMPARE(k.lines.size(), std::size_t(1));
        QCOMPARE(k.lines[0].name, std::string("store"));
        QCOMPARE(pointsOf(k.lines[0]), (Points{{0, 2}, {0.125, 2}, {0.25, 2}, {0.25, 1}, {0.25, 1}, {0.25, 0}, {0.75, 0.5},
                                               {1.25, 1}, {1.25, 0}, {1.25, 0}, {1.25, 0}}));
    }

    // Hybrid, syncing every 0.5 s: each node spends its own copy (2 -> 1 at 0), refilling to 2 by
    // 1 s. At 1 s each node's first attempt after the tick at 1 s takes the store, which by then
    // holds both admissions at 0 (2 -> 0, handed 0): 1 token at 1 s. Node 1 spends it; node 2
    // copies the store before node 1's admission reaches it (the next tick) and spends it too.
    void hybridNodes()
    {
        const EngineSetup s = setupOf(ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Hybrid, 0, kSec / 2}));
        const RowRun run = runRow(s, {kArrivals, {}, {}});
        QCOMPARE(run.metrics.allowed, std::int64_t(4));
        const KeyLevels& k = run.levels;
        QCOMPARE(k.lines.size(), std::size_t(2));
        QCOMPARE(k.lines[0].name, std::string("node 1"));
        const Points want{{0, 2}, {0, 1}, {0.5, 1.5}, {1, 2}, {1, 1}, {1, 1}, {1, 0}};
        QCOMPARE(pointsOf(k.lines[0]), want);
        QCOMPARE(pointsOf(k.lines[1]), want);
    }

    // Over seeded clusters (2-4 nodes, skew, any balancer) and every algorithm, hybrid always
    // draws its node lines, and a racy store's line lands every admitted attempt's write.
    void replaysFollowTheEngine()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds() / 10 + 1; ++seed) {
            std::mt19937_64 rng(seed);
            const auto pick = [&](std::uint64_t n) { return rng() % n; };
            std::vector<Nanos> t(10 + pick(40));
            Nanos at = 0;
            for (Nanos& x : t)
                x = at += Nanos(pick(4)) * kSec / 8;
            const int nodes = 2 + int(pick(3));
            const Balancer balancer = kAllBalancers[pick(kAllBalancers.size())];
            const Nanos skew = Nanos(pick(3)) * kSec / 100;
            for (Algorithm a : kAllAlgorithms) {
                EngineSetup s;
                s.layers = {{a, LimiterConfig::make(1 + std::int64_t(pick(5)), kSec * Nanos(1 + pick(3)))}};
                s.seed = seed;
                s.levelLines = LevelLineSetup{8, 2};
                s.cluster = ClusterConfig::make({nodes, balancer, Coordination::Hybrid, 0, kSec / 4 * Nanos(1 + pick(4)), skew, seed});
                const RowRun run = runRow(s, {t, {}, {}});
                QVERIFY2(!run.levels.lines.empty(),
                         qPrintable(QString("seed %1, %2").arg(seed).arg(QString::fromUtf8(algorithmId(a).data()))));
                s.cluster = ClusterConfig::make({nodes, balancer, Coordination::Racy, kSec / 10 * Nanos(pick(5)), 0, skew, seed});
                const RowRun racy = runRow(s, {t, {}, {}});
                const KeyLevels& store = racy.levels;
                QCOMPARE(store.lines.size(), std::size_t(1));
                QCOMPARE(store.lines[0].attempts, racy.metrics.allowed); // every write lands
            }
        }
    }

    void busiestAndNone()
    {
        EngineSetup three = setupOf(ClusterConfig::make({3, Balancer::RoundRobin, Coordination::Local}));
        three.levelLines->most = 1;
        const RowRun run = runRow(three, {kArrivals, {}, {}}); // nodes 1, 2, 3, 1
        const KeyLevels& k = run.levels;
        QCOMPARE(k.lines.size(), std::size_t(1));
        QCOMPARE(k.lines[0].name, std::string("node 1"));
        QCOMPARE(k.others, std::int64_t(2));
        QVERIFY(levelsOf(setupOf(std::nullopt)).lines.empty());
    }
};

QTEST_APPLESS_MAIN(TestKeyLevels)
#include "tst_key_levels.moc"
