// Limit changes (semantics.md, "Fleets and storms", Start: "a limit change at time T keeps the
// state and applies the new config from T on (tokens capped at the new capacity)"): hand tables
// per algorithm, the grammar, the level line drawn through a change, and the seeded property
// that a change to the same config changes nothing, on one limiter and on clusters.
#include "engine/engine.h"
#include "view/row_extras.h"
#include "engine/limit_change.h"
#include "property_seeds.h"
#include "arithmetic/decimal.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kHalf = kSecond / 2;

RowRun run(Algorithm a, const LimiterConfig& config, const std::vector<Nanos>& t, const std::vector<LimitChange>& changes,
           std::optional<ClusterConfig> cluster = std::nullopt)
{
    EngineSetup setup;
    setup.layers = {{a, config}};
    setup.cluster = std::move(cluster);
    setup.changes = changedConfigs(config, changes);
    return runRow(setup, {t, {}, {}});
}

std::vector<bool> verdicts(const RowRun& r)
{
    std::vector<bool> out;
    for (const LoggedAttempt& a : r.log)
        out.push_back(a.allowed);
    return out;
}

std::vector<double> levels(const RowRun& r)
{
    std::vector<double> out;
    for (const LoggedAttempt& a : r.log)
        out.push_back(a.level);
    return out;
}

std::vector<Nanos> every(Nanos gap, int n)
{
    std::vector<Nanos> t;
    for (int i = 0; i < n; ++i)
        t.push_back(i * gap);
    return t;
}

} // namespace

class TestLimitChange : public QObject {
    Q_OBJECT
private slots:
    // 4 per 4 s (C = 4, r = 1/s), requests every 0.5 s from 0 to 5.5 s, limit 8 from 3 s on
    // (C = 8 and r = 2/s follow, as they followed the limit). Token bucket: 3, 2.5, 2, 1.5, 1,
    // 0.5 tokens after each of the first six; at 3 s 1 token is kept and taken; then 2/s refills
    // exactly the one each 0.5 s takes: all 12 pass, level 0 from 3 s. Fixed window: 4 pass in
    // [0, 4 s), 2 s and 2.5 s are denied, 3 s and 3.5 s pass under 8 (count 5, 6); [4 s, 8 s) takes
    // the last four. Leaky bucket: water 3.5 at 2.5 s, 3 at 3 s, kept (cap 8), + 1 = 4; at 2/s it
    // drains the 1 each request adds: level 4. GCRA: the backlog of 3 s at 3 s (three emission
    // intervals of 1 s) becomes three of 0.5 s, 1.5 s; + 0.5 s = 2 s, and stays.
    void aLimitGoesUp()
    {
        const LimiterConfig config = LimiterConfig::make(4, 4 * kSecond);
        const std::vector<Nanos> t = every(kHalf, 12);
        const std::vector<LimitChange> up{{3 * kSecond, 8, std::nullopt, std::nullopt}};
        const RowRun token = run(Algorithm::TokenBucket, config, t, up);
        QCOMPARE(verdicts(token), std::vector<bool>(12, true));
        QCOMPARE(levels(token), (std::vector<double>{3, 2.5, 2, 1.5, 1, 0.5, 0, 0, 0, 0, 0, 0}));
        QCOMPARE(verdicts(run(Algorithm::FixedWindow, config, t, up)),
                 (std::vector<bool>{true, true, true, true, false, false, true, true, true, true, true, true}));
        const RowRun leaky = run(Algorithm::LeakyBucket, config, t, up);
        QCOMPARE(levels(leaky), (std::vector<double>{1, 1.5, 2, 2.5, 3, 3.5, 4, 4, 4, 4, 4, 4}));
        const RowRun gcra = run(Algorithm::Gcra, config, t, up);
        QCOMPARE(levels(gcra), (std::vector<double>{1, 1.5, 2, 2.5, 3, 3.5, 2, 2, 2, 2, 2, 2}));
        // Without the change the token bucket denies from 3 s on but each whole second.
        QCOMPARE(verdicts(run(Algorithm::TokenBucket, config, t, {})),
                 (std::vector<bool>{true, true, true, true, true, true, true, false, true, false, true, false}));
    }

    // Capacity down: a full bucket of 10 (r = 1/s) holds 3 after a change to capacity 3 at 1 s:
    // three requests at 1 s pass and the fourth is told 1 s. The leaky bucket keeps its water
    // instead: 0 at 1 s (it started empty), room for 3. The sliding log keeps its entries: 5 at
    // 0 s under L = 10, L = 3 from 1 s: nothing passes until they expire at 10 s.
    void capacityDownCapsTheTokens()
    {
        const LimiterConfig config = LimiterConfig::make(10, 10 * kSecond);
        const std::vector<LimitChange> down{{kSecond, std::nullopt, 3, std::nullopt}};
        const std::vector<Nanos> t{kSecond, kSecond, kSecond, kSecond};
        const RowRun token = run(Algorithm::TokenBucket, config, t, down);
        QCOMPARE(verdicts(token), (std::vector<bool>{true, true, true, false}));
        QCOMPARE(token.log[3].wait, kSecond);
        QCOMPARE(verdicts(run(Algorithm::LeakyBucket, config, t, down)), (std::vector<bool>{true, true, true, false}));
        const std::vector<LimitChange> limitDown{{kSecond, 3, std::nullopt, std::nullopt}};
        const std::vector<Nanos> log{0, 0, 0, 0, 0, kSecond, 10 * kSecond};
        const RowRun r = run(Algorithm::SlidingWindowLog, config, log, limitDown);
        QCOMPARE(verdicts(r), (std::vector<bool>{true, true, true, true, true, false, true}));
        QCOMPARE(r.log[5].wait, 9 * kSecond); // the oldest of 5 at 0 s leaves at 10 s: still 4 > 2 then
    }

    void grammar()
    {
        const LimitChange c = parseLimitChange("10.5:limit=20,rate=3/7");
        QCOMPARE(c.at, Nanos(10'500'000'000));
        QCOMPARE(c.limit, std::optional<std::int64_t>(20));
        QVERIFY(!c.capacity);
        QCOMPARE(c.rate->tokens, std::int64_t(3));
        QCOMPARE(limitChangeText(c), std::string("10.5:limit=20,rate=3/7"));
        QVERIFY(parseLimitChange(limitChangeText(c)) == c);
        for (const char* bad : {"10", "10:", "x:limit=2", "-1:limit=2", "1:limit=0", "1:window=3", "1:limit=2,limit=3",
                                "1:rate=0"}) {
            bool refused = false;
            try {
                (void)parseLimitChange(bad);
            } catch (const InputError& e) {
                refused = !std::string(e.what()).empty();
            }
            QVERIFY2(refused, bad);
        }
        // Capacity and rate follow a new limit only where they followed the old one.
        const LimiterConfig own = LimiterConfig::make(4, 4 * kSecond, 10, Rate{3, kSecond});
        const LimiterConfig changed = changedConfig(own, {0, 8, std::nullopt, std::nullopt});
        QCOMPARE(changed.capacity(), std::int64_t(10));
        QCOMPARE(changed.rate(), (Rate{3, kSecond}));
        QCOMPARE(changedConfig(LimiterConfig::make(4, 4 * kSecond), {0, 8, std::nullopt, std::nullopt}).capacity(),
                 std::int64_t(8));
    }

    // The token bucket's one line through the change of aLimitGoesUp: 0.5 at 2.5 s, 1 at 3 s just
    // before the change and after it (kept), 0 after the request at 3 s.
    void theLevelLineCrossesTheChange()
    {
        EngineSetup setup;
        const LimiterConfig config = LimiterConfig::make(4, 4 * kSecond);
        setup.layers = {{Algorithm::TokenBucket, config}};
        setup.changes = changedConfigs(config, std::vector<LimitChange>{{3 * kSecond, 8, std::nullopt, std::nullopt}});
        setup.levelLines = LevelLineSetup{8, 1};
        const std::vector<Nanos> t = every(kHalf, 8);
        const RowRun r = runRow(setup, {t, {}, {}});
        const KeyLevels& k = r.levels;
        QCOMPARE(k.lines.size(), std::size_t(1));
        QCOMPARE(k.lines[0].name, std::string("level"));
        std::vector<double> at3;
        for (const KeyLevelPoint& p : k.lines[0].points)
            if (p.t == 3 * kSecond)
                at3.push_back(p.level);
        QCOMPARE(at3, (std::vector<double>{1, 1, 1, 0}));
    }

    // Seeded: a change to the config in force (any time, any algorithm, one node or a cluster)
    // decides every attempt as no change does.
    void aChangeToTheSameConfigChangesNothing()
    {
        const std::uint64_t seeds = propertySeeds();
        const Algorithm algorithms[] = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter,
                                        Algorithm::TokenBucket, Algorithm::LeakyBucket,       Algorithm::LeakyBucketQueue,
                                        Algorithm::Gcra,        Algorithm::NginxLimitReq};
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 rng(seed);
            const std::int64_t limit = 1 + std::int64_t(rng() % 8);
            const LimiterConfig config = LimiterConfig::make(limit, Nanos(1 + rng() % 4) * kSecond,
                                                             1 + std::int64_t(rng() % 8), Rate::reduced(1 + std::int64_t(rng() % 5), kSecond));
            std::vector<Nanos> t;
            Nanos at = 0;
            for (int i = 0, n = 1 + int(rng() % 40); i < n; ++i) {
                t.push_back(at);
                at += Nanos(rng() % 7) * kSecond / 8;
            }
            const LimitChange same{Nanos(rng() % 8) * kSecond / 2, config.limit(), config.capacity(), config.rate()};
            std::optional<ClusterConfig> cluster;
            if (rng() % 2) { // any coordination, racy with a round trip, hybrid with a sync period
                const Coordination c = kAllCoordinations[std::size_t(rng() % kAllCoordinations.size())];
                cluster = ClusterConfig::make({int(1 + rng() % 3), Balancer::RoundRobin, c,
                                               c == Coordination::Racy ? kSecond / 4 : 0,
                                               c == Coordination::Hybrid ? kHalf : 0, 0, 1});
            }
            const Algorithm a = algorithms[rng() % std::size(algorithms)];
            const RowRun with = run(a, config, t, {same}, cluster), without = run(a, config, t, {}, cluster);
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed));
            QCOMPARE(with.log.size(), without.log.size());
            for (std::size_t i = 0; i < with.log.size(); ++i)
                QVERIFY2(with.log[i].allowed == without.log[i].allowed && with.log[i].wait == without.log[i].wait
                             && with.log[i].remaining == without.log[i].remaining,
                         where + " attempt " + QByteArray::number(qulonglong(i)));
        }
    }
};

QTEST_GUILESS_MAIN(TestLimitChange)
#include "tst_limit_change.moc"
