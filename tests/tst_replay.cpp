// Replaying traffic per key and sweeping. A key's decisions in a replay are those of
// one limiter over that key's requests alone (simulateOne), for every key of a seeded log and
// every algorithm; a sweep point is the replay at that point's config; and a small log's figures
// are worked out by hand from semantics.md.
#include "engine/clients.h"
#include "arithmetic/decimal.h"
#include "engine/layered.h"
#include "replay/replay.h"
#include "engine/simulator.h"
#include "replay/sweep.h"

#include <QTest>

#include <random>

using namespace ratelab;

Q_DECLARE_METATYPE(ratelab::ReplayPlace)
Q_DECLARE_METATYPE(ratelab::LimiterConfig)

namespace {

// The textbook seven and nginx: the products take their own options, tested apart.
const std::vector<ratelab::Algorithm> kTextbookAndNginx(ratelab::kEveryAlgorithm.begin(),
                                                        ratelab::kEveryAlgorithm.begin() + 8);

}

namespace {

constexpr Nanos kS = kNanosPerSecond;

// seededTraffic is n requests over `keys` keys with a few heavy ones, times in whole
// milliseconds and sometimes equal, costs 1..3 when asked.
Traffic seededTraffic(std::uint64_t seed, std::size_t n, std::uint32_t keys, bool costs)
{
    std::mt19937_64 rng(seed);
    Traffic t;
    Nanos now = 0;
    for (std::uint32_t k = 0; k < keys; ++k)
        t.keyNames.push_back("key" + std::to_string(k));
    for (std::size_t i = 0; i < n; ++i) {
        now += Nanos(rng() % 4) * 100 * 1'000'000 / 4; // 0, 25, 50 or 75 ms
        t.times.push_back(now);
        t.keys.push_back(rng() % 3 == 0 ? std::uint32_t(rng() % 3) : std::uint32_t(rng() % keys));
        if (costs)
            t.costs.push_back(std::int64_t(1 + rng() % 3));
    }
    return t;
}

// handTraffic: key A at 0, 1, 2 and 11 s; key B at 0.5 and 1.5 s.
Traffic handTraffic()
{
    Traffic t;
    t.keyNames = {"A", "B"};
    t.times = {0, kS / 2, 1 * kS, 3 * kS / 2, 2 * kS, 11 * kS};
    t.keys = {0, 1, 0, 1, 0, 0};
    return t;
}

} // namespace

class TestReplay : public QObject {
    Q_OBJECT
private slots:
    void eachKeyDecidesAsItsOwnLimiter_data()
    {
        QTest::addColumn<bool>("costs");
        QTest::newRow("cost 1") << false;
        QTest::newRow("costs 1..3") << true;
    }

    void eachKeyDecidesAsItsOwnLimiter()
    {
        QFETCH(bool, costs);
        const Traffic t = seededTraffic(costs ? 7 : 3, 6000, 40, costs);
        const LimiterConfig config = LimiterConfig::make(5, 2 * kS, 4, Rate{3, kS});
        for (Algorithm a : kTextbookAndNginx) {
            std::vector<std::uint8_t> admitted;
            const ReplayRow row = replayOne(t, a, config, 1, &admitted);
            std::int64_t denied = 0, keysDenied = 0;
            for (std::uint32_t k = 0; k < t.keyNames.size(); ++k) {
                std::vector<Nanos> times;
                std::vector<std::int64_t> keyCosts;
                std::vector<std::size_t> at;
                for (std::size_t i = 0; i < t.times.size(); ++i)
                    if (t.keys[i] == k) {
                        times.push_back(t.times[i]);
                        at.push_back(i);
                        if (costs)
                            keyCosts.push_back(t.costs[i]);
                    }
                const AlgorithmTrace alone = simulateOne(config, a, times, keyCosts);
                std::int64_t keyDenied = 0;
                Nanos first = -1;
                for (std::size_t j = 0; j < times.size(); ++j) {
                    QCOMPARE(bool(admitted[at[j]]), alone.decisions[j].allowed);
                    if (!alone.decisions[j].allowed && keyDenied++ == 0)
                        first = times[j];
                }
                QCOMPARE(row.deniedPerKey[k], keyDenied);
                QCOMPARE(row.firstDenialPerKey[k], first);
                denied += keyDenied;
                keysDenied += keyDenied > 0;
            }
            QCOMPARE(row.denied, denied);
            QCOMPARE(row.keysDenied, keysDenied);
            QVERIFY2(row.denied > 0 && row.allowed > 0, row.id.c_str()); // the seeded log tests both verdicts
        }
    }

    void smallLogByHand()
    {
        // L = 2 per 10 s, C = 2, r = 0.2/s. Fixed window: A's third request (2 s) finds the window's
        // count at 2: denied; at 11 s a new window admits. Token bucket: A has 1 token after 0 s,
        // 1.2 at 1 s (0.2 after it), 0.4 at 2 s: denied; 2 (capped) at 11 s. B's two always pass.
        const Traffic t = handTraffic();
        const LimiterConfig config = LimiterConfig::make(2, 10 * kS);
        for (Algorithm a : {Algorithm::FixedWindow, Algorithm::TokenBucket, Algorithm::Gcra}) {
            const ReplayRow row = replayOne(t, a, config);
            QCOMPARE(row.attempts, std::int64_t(6));
            QCOMPARE(row.denied, std::int64_t(1));
            QCOMPARE(row.keysDenied, std::int64_t(1));
            QCOMPARE(row.deniedPerKey, (std::vector<std::int64_t>{1, 0}));
            QCOMPARE(row.firstDenialPerKey, (std::vector<Nanos>{2 * kS, -1}));
            // Admitted at 0, 0.5, 1, 1.5 and 11 s: four inside (-8.5, 1.5]; (1, 11] holds 1.5 and 11.
            QCOMPARE(row.maxInWindow, std::int64_t(4));
            // memory at scale: two keys of the worst case
            QCOMPARE(row.predicted.bytes, 2 * memoryAtScale(a, config, 1).bytes);
            const SweepCell cell = cellOf(row, attemptsPerKey(t), 0);
            QCOMPARE(cell.heaviestAttempts, std::int64_t(4));
            QCOMPARE(cell.heaviestAllowed, std::int64_t(3));
        }
        const std::vector<KeyDenials> top = topKeys(replayOne(t, Algorithm::FixedWindow, config), 5);
        QCOMPARE(top.size(), std::size_t(1)); // only keys with denials
        QCOMPARE(top[0].key, 0u);
        // A request of cost 3 never fits a limit of 2: each is denied, retry never.
        const ReplayRow heavy = replayOne(t, Algorithm::FixedWindow, config, 3);
        QCOMPARE(heavy.denied, std::int64_t(6));
        QCOMPARE(heavy.never, std::int64_t(6));
    }

    // max_in_window counts admitted units (semantics.md). handTraffic with costs 2, 2, 1, 1, 1, 2
    // (A@0 2, B@0.5 2, A@1 1, B@1.5 1, A@2 1, A@11 2), a fixed window of 2 per 10 s per key: A@0
    // and B@0.5 fill their keys' windows (2 + 2), A@1, B@1.5 and A@2 find 2 + 1 > 2, A@11 opens
    // [10 s, 20 s). (-9.5, 0.5] holds 2 + 2 = 4 units, (1, 11] only A@11's 2: max_in_window 4
    // (2 requests). On the fast path and on the engine (an empty start leaves windows as they are).
    void maxInWindowWeighsCost()
    {
        Traffic t = handTraffic();
        t.costs = {2, 2, 1, 1, 1, 2};
        const LimiterConfig config = LimiterConfig::make(2, 10 * kS);
        ReplayPlace engine;
        engine.startEmpty = true;
        for (const ReplayPlace& place : {ReplayPlace{}, engine}) {
            const ReplayRow row = replayOne(t, Algorithm::FixedWindow, config, 1, nullptr, nullptr, place);
            QCOMPARE(row.allowed, std::int64_t(3));
            QCOMPARE(row.maxInWindow, std::int64_t(4));
        }
    }

    // A replay placed as a scenario places it (the engine's keyed store), by hand on
    // handTraffic: requests 0:A@0, 1:B@0.5, 2:A@1, 3:B@1.5, 4:A@2, 5:A@11 (s).
    void placedReplayByHand_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<std::int64_t>("limit");
        QTest::addColumn<ReplayPlace>("place");
        QTest::addColumn<std::vector<std::uint8_t>>("admitted");
        QTest::addColumn<std::int64_t>("maxInWindow");

        // Three local nodes, round robin (request i to node i mod 3), fixed window 1 per 10 s: A's
        // requests land on nodes 0, 2, 1 and 2, each node's own limiter, so every one passes (one
        // server admits A@0, B@0.5 and A@11 only). Admitted 0..2 s: five inside (-8, 2].
        ClusterConfig::Options local;
        local.nodes = 3;
        local.coordination = Coordination::Local;
        QTest::addRow("local, 3 nodes") << int(Algorithm::FixedWindow) << std::int64_t(1)
                                        << ReplayPlace{ClusterConfig::make(local)}
                                        << std::vector<std::uint8_t>{1, 1, 1, 1, 1, 1} << std::int64_t(5);
        // Token bucket C = 2, r = 0.2/s, every key's bucket empty at 0: A finds 0, 0.2, 0.4 tokens
        // and B 0.1, 0.3 before 11 s; A@11 finds 2.2, capped at 2.
        QTest::addRow("empty start") << int(Algorithm::TokenBucket) << std::int64_t(2) << ReplayPlace{{}, true}
                                     << std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1} << std::int64_t(1);
        // Fixed window 2 per 10 s, 1 from 1.5 s on (the count kept): B@1.5 finds 1 of 1, A@2 2 of
        // 1; A@11 is a new window.
        QTest::addRow("limit change") << int(Algorithm::FixedWindow) << std::int64_t(2)
                                      << ReplayPlace{{}, false, {LimitChange{3 * kS / 2, 1, {}, {}}}}
                                      << std::vector<std::uint8_t>{1, 1, 1, 0, 0, 1} << std::int64_t(3);
    }

    void placedReplayByHand()
    {
        QFETCH(int, algorithm);
        QFETCH(std::int64_t, limit);
        QFETCH(ReplayPlace, place);
        QFETCH(std::vector<std::uint8_t>, admitted);
        QFETCH(std::int64_t, maxInWindow);
        const Traffic t = handTraffic();
        std::vector<std::uint8_t> got;
        const ReplayRow row = replayOne(t, Algorithm(algorithm), LimiterConfig::make(limit, 10 * kS), 1, &got, nullptr, place);
        QCOMPARE(got, admitted);
        QCOMPARE(row.allowed, std::int64_t(std::count(admitted.begin(), admitted.end(), 1)));
        QCOMPARE(row.maxInWindow, maxInWindow);
        std::int64_t deniedA = 0;
        for (std::size_t i = 0; i < admitted.size(); ++i)
            deniedA += t.keys[i] == 0 && !admitted[i];
        QCOMPARE(row.deniedPerKey.at(0), deniedA);
    }

    // The layers replay on the engine too when placed: two local nodes, each key's layers on
    // each node, admit what one server's layers would admit twice over.
    void placedLayersRunOnTheEngine()
    {
        const Traffic t = handTraffic();
        const std::vector<Layer> layers = {parseLayer("fixed_window:limit=1,window=10"),
                                           parseLayer("token_bucket:capacity=5,rate=1")};
        ClusterConfig::Options local;
        local.nodes = 3;
        local.coordination = Coordination::Local;
        std::vector<std::uint8_t> one, three;
        (void)replayLayered(t, layers, 10 * kS, 1, &one);
        (void)replayLayered(t, layers, 10 * kS, 1, &three, nullptr, ReplayPlace{ClusterConfig::make(local)});
        QCOMPARE(one, (std::vector<std::uint8_t>{1, 1, 0, 0, 0, 1})); // the fixed window's 1 per key
        QCOMPARE(three, (std::vector<std::uint8_t>{1, 1, 1, 1, 1, 1})); // as placedReplayByHand's nodes
    }

    void layeredPerKey()
    {
        const Traffic t = seededTraffic(11, 3000, 20, false);
        const std::vector<Layer> layers = {parseLayer("token_bucket:capacity=3,rate=2"),
                                           parseLayer("sliding_window_counter:limit=8,window=5")};
        std::vector<std::uint8_t> admitted;
        const ReplayRow row = replayLayered(t, layers, 5 * kS, 1, &admitted);
        std::vector<LayeredPolicy> policies(t.keyNames.size(), LayeredPolicy(layers));
        std::int64_t denied = 0;
        for (std::size_t i = 0; i < t.times.size(); ++i) {
            const bool allowed = policies[t.keys[i]].decide(t.times[i]).allowed;
            QCOMPARE(bool(admitted[i]), allowed);
            denied += !allowed;
        }
        QCOMPARE(row.denied, denied);
        QVERIFY(denied > 0);
        QCOMPARE(row.id, std::string("layered"));
    }

    void sweepPointIsTheReplayAtItsConfig()
    {
        const Traffic t = seededTraffic(5, 4000, 30, false);
        SweepBase base;
        base.algorithms = {kTextbookAndNginx.begin(), kTextbookAndNginx.end()};
        const std::vector<SweepAxis> axes = {parseSweepAxis(SweepParameter::Limit, "2:8:3"),
                                             parseSweepAxis(SweepParameter::Window, "1:2:0.5")};
        const SweepResult r = runSweep(t, base, axes, 2);
        const std::vector<std::int64_t> attempts = attemptsPerKey(t);
        const std::int64_t limits[] = {2, 5, 8};
        const Nanos windows[] = {kS, 3 * kS / 2, 2 * kS};
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j) {
                // What `replay --limit L --window W` builds: capacity L, rate L/W.
                const LimiterConfig c = LimiterConfig::make(limits[i], windows[j]);
                QCOMPARE(pointConfig(base, axes, i, j), c);
                for (std::size_t a = 0; a < base.algorithms.size(); ++a) {
                    const ReplayRow row = replayOne(t, base.algorithms[a], c);
                    const SweepCell& cell = r.cell(i, j, a);
                    const SweepCell want = cellOf(row, attempts, r.heaviestKey);
                    QCOMPARE(cell.denied, want.denied);
                    QCOMPARE(cell.keysDenied, want.keysDenied);
                    QCOMPARE(cell.heaviestAllowed, want.heaviestAllowed);
                    QCOMPARE(cell.maxInWindow, want.maxInWindow);
                }
            }
        // The heaviest key is the one with most requests.
        QCOMPARE(attempts[r.heaviestKey], *std::max_element(attempts.begin(), attempts.end()));
        // A given capacity stays while the limit moves; a rate axis leaves the window alone.
        base.capacity = 7;
        QCOMPARE(pointConfig(base, axes, 0, 1), LimiterConfig::make(2, 3 * kS / 2, 7));
        const std::vector<SweepAxis> rates = {parseSweepAxis(SweepParameter::Rate, "1/3:1:1/3")};
        QCOMPARE(pointConfig(base, rates, 2, 0), LimiterConfig::make(10, 10 * kS, 7, Rate{1, kS}));
    }

    void sweepAxes()
    {
        QCOMPARE(parseSweepAxis(SweepParameter::Limit, "10:200:10").values.size(), std::size_t(20));
        QCOMPARE(parseSweepAxis(SweepParameter::Limit, "1:10:4").values, (std::vector<std::int64_t>{1, 5, 9}));
        QCOMPARE(parseSweepAxis(SweepParameter::Limit, "7").values, (std::vector<std::int64_t>{7}));
        QCOMPARE(parseSweepAxis(SweepParameter::Window, "0.1:0.3:0.1").values,
                 (std::vector<std::int64_t>{100'000'000, 200'000'000, 300'000'000}));
        const SweepAxis r = parseSweepAxis(SweepParameter::Rate, "0.5:1.5:0.5");
        QCOMPARE(r.rates.size(), std::size_t(3));
        QCOMPARE(r.text(0), std::string("0.5"));
        QCOMPARE(r.text(2), std::string("1.5"));
        for (const char* bad : {"10:1:1", "1:10", "1:10:0", "a:b:c", "1:100000:1"}) {
            bool refused = false;
            try {
                (void)parseSweepAxis(SweepParameter::Limit, bad);
            } catch (const InputError&) {
                refused = true;
            }
            QVERIFY2(refused, bad);
        }
    }

    // The products onTheClock see the log's clock: two requests 0.7 s apart, at 12:00:59.500 and
    // 12:01:00.200, lie in one second counted from the log's start but in two seconds (and two
    // minutes) of the clock. One request a second then admits both, as the products would:
    // - Kong second=1: the windows 12:00:59 and 12:01:00, one request each;
    // - Upstash fixedWindow(1, "1 s"): floor(now / 1000 ms) differs, one request each;
    // - Spring replenishRate 1, burstCapacity 1: the second request is one epoch second later, so
    //   the bucket has refilled its one token.
    // The same two requests at 12:00:59.000 and 12:00:59.700 share a second of the clock too: each
    // denies the second. The textbook fixed window (1 per 1 s) counts from the log's start in both.
    void productsOnTheClockReadTheLogsClock_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<std::int64_t>("deniedMidSecond");
        QTest::addColumn<std::int64_t>("deniedOnTheSecond");
        const LimiterConfig base = LimiterConfig::make(1, kS);
        QTest::addRow("kong") << int(Algorithm::Kong) << base.withProductOptions({{"second", "1"}}) << std::int64_t(0)
                              << std::int64_t(1);
        QTest::addRow("upstash") << int(Algorithm::UpstashRatelimit)
                                 << base.withProductOptions({{"limiter", "fixedWindow"}, {"tokens", "1"}, {"window", "1 s"}})
                                 << std::int64_t(0) << std::int64_t(1);
        QTest::addRow("spring") << int(Algorithm::SpringGateway)
                                << base.withProductOptions({{"replenishRate", "1"}, {"burstCapacity", "1"}})
                                << std::int64_t(0) << std::int64_t(1);
        QTest::addRow("textbook fixed window") << int(Algorithm::FixedWindow) << base << std::int64_t(1) << std::int64_t(1);
    }
    void productsOnTheClockReadTheLogsClock()
    {
        QFETCH(int, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(std::int64_t, deniedMidSecond);
        QFETCH(std::int64_t, deniedOnTheSecond);
        constexpr Nanos kNoon = 1'795'435'200 * kS; // 2026-11-23T12:00:00Z
        Traffic t;
        t.keyNames = {"A"};
        t.keys = {0, 0};
        t.times = {0, 700 * kS / 1000};
        t.startEpochNanos = kNoon + 59'500 * kS / 1000;
        QCOMPARE(replayOne(t, Algorithm(algorithm), config).denied, deniedMidSecond);
        QCOMPARE(replayLayered(t, {Layer{Algorithm(algorithm), config}}, kS).denied, deniedMidSecond);
        t.startEpochNanos = kNoon + 59 * kS;
        QCOMPARE(replayOne(t, Algorithm(algorithm), config).denied, deniedOnTheSecond);
    }

    // In a layered policy each layer keeps its own clock: Kong's second=1 sees 12:00:59.500 and
    // 12:01:00.200 in two seconds and admits both; the textbook fixed window of 1 per 1 s beside
    // it counts from the log's start, where both fall in its first second: it denies the second,
    // as it does alone. So the policy denies 1.
    void layersKeepTheirOwnClocks()
    {
        Traffic t;
        t.keyNames = {"A"};
        t.keys = {0, 0};
        t.times = {0, 700 * kS / 1000};
        t.startEpochNanos = 1'795'435'259'500 * (kS / 1000); // 2026-11-23T12:00:59.500Z
        const LimiterConfig one = LimiterConfig::make(1, kS);
        const std::vector<Layer> kongAlone = {{Algorithm::Kong, one.withProductOptions({{"second", "1"}})}};
        const std::vector<Layer> both = {kongAlone.front(), {Algorithm::FixedWindow, one}};
        QCOMPARE(replayLayered(t, kongAlone, kS).denied, std::int64_t(0));
        QCOMPARE(replayLayered(t, {{Algorithm::FixedWindow, one}}, kS).denied, std::int64_t(1));
        QCOMPARE(replayLayered(t, both, kS).denied, std::int64_t(1));
    }

    // API Gateway's quota_offset is taken off the plan's first period, the one its first request
    // falls in: quota 3 a day, offset 1, four requests in the log's first seconds (on
    // 2026-11-23) pass 3 - 1 = 2, not the whole 3 a later day would give.
    void apiGatewaysOffsetIsTheLogsFirstDay()
    {
        Traffic t;
        t.keyNames = {"A"};
        t.keys = {0, 0, 0, 0};
        t.times = {0, kS, 2 * kS, 3 * kS};
        t.startEpochNanos = 1'795'435'200 * kS; // 2026-11-23T12:00:00Z
        const LimiterConfig plan = LimiterConfig::make(100, kS).withProductOptions(
            {{"quota_limit", "3"}, {"quota_period", "DAY"}, {"quota_offset", "1"}});
        QCOMPARE(replayOne(t, Algorithm::AwsApiGateway, plan).denied, std::int64_t(2));
    }

    // A replay on a cluster runs the engine from the scenario's t = 0, so a product onTheClock is
    // refused there by name rather than counted from the log's start.
    void clusterRefusesAProductOnTheClock()
    {
        Traffic t = handTraffic();
        t.startEpochNanos = 1'795'435'200 * kS;
        ClusterConfig::Options local;
        local.nodes = 2;
        local.coordination = Coordination::Local;
        const LimiterConfig kong = LimiterConfig::make(1, kS).withProductOptions({{"second", "1"}});
        try {
            (void)replayOne(t, Algorithm::Kong, kong, 1, nullptr, nullptr, ReplayPlace{ClusterConfig::make(local)});
            QFAIL("a cluster replayed Kong from the log's start");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).starts_with("kong counts on the clock's time"), e.what());
        }
        // A product neither starts empty nor takes a limit change, so buckets that start empty
        // leave it on one server, on the clock: A's 0, 1 and 2 s pass one a second.
        QCOMPARE(replayOne(t, Algorithm::Kong, kong, 1, nullptr, nullptr, ReplayPlace{{}, true}).denied, std::int64_t(0));
        // Token buckets see only the times between requests: the same cluster replays them.
        QCOMPARE(replayOne(t, Algorithm::TokenBucket, LimiterConfig::make(2, 2 * kS, 2, Rate{1, kS}), 1, nullptr, nullptr,
                           ReplayPlace{ClusterConfig::make(local)}).attempts, std::int64_t(6));
    }

    void cancelStopsReplayAndSweep()
    {
        const Traffic t = seededTraffic(1, 1000, 10, false);
        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(ReplayCancelled, replayOne(t, Algorithm::Gcra, LimiterConfig{}, 1, nullptr, &cancel));
        SweepBase base;
        QVERIFY_THROWS_EXCEPTION(SweepCancelled,
                                 runSweep(t, base, {parseSweepAxis(SweepParameter::Limit, "1:50:1")}, 2, &cancel));
    }
};

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
