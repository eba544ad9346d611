// The one engine (semantics.md, "Everything together"): hand-derived tables for pairs of
// features (the fleet's dynamics are in tst_engine_fleet), and every combination of {clients with retries, cluster mode, cost, layers, nginx}
// against an O(n^2) oracle written from the text (engine_oracle.h), over seeded random scenarios
// (RATELAB_PROPERTY_SEEDS, default 200).
#include "property_seeds.h"
#include "engine/attempt_log.h"
#include "engine/chunk_pool.h"
#include "engine/engine.h"
#include "engine_log.h"
#include "engine_oracle.h"
#include "arithmetic/decimal.h"
#include "limiters/limiter.h"

#include <QTest>

#include <atomic>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>

using namespace ratelab;
using test::compareLog;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

ClientConfig clientsOf(std::int64_t k, RetryPolicy p, std::int64_t maxRetries, Nanos delay = 0,
                       KeyMode key = KeyMode::Client)
{
    ClientOptions o;
    o.clients = k;
    o.retry = p;
    o.maxRetries = maxRetries;
    o.retryDelayNanos = delay;
    o.key = key;
    return ClientConfig::make(o);
}

ClusterConfig clusterOf(int nodes, Coordination c)
{
    return ClusterConfig::make({nodes, Balancer::RoundRobin, c, 0, 0, 0, 1});
}

} // namespace

class TestEngine : public QObject {
    Q_OBJECT

private slots:

    // A log's chunks go to the pool when it is freed and the next log takes them; values survive
    // the chunks' growth. Sizes by hand: chunks of 1, 2, 4, ... 64 Ki entries (127 Ki in all),
    // then 64 Ki each; 127 Ki + 2 x 64 Ki = 255 Ki entries of 40 bytes = 10,444,800 bytes.
    void logChunksAreKeptAndReused()
    {
        releaseKeptChunks();
        QCOMPARE(keptChunkBytes(), std::size_t(0));
        constexpr std::size_t entries = 255 * 1024;
        const auto fill = [](ChunkedLog<LoggedAttempt>& log) {
            for (std::size_t i = 0; i < entries; ++i) {
                LoggedAttempt a;
                a.t = Nanos(i) * 3;
                a.request = std::int32_t(i);
                log.push_back(a);
            }
        };
        {
            ChunkedLog<LoggedAttempt> log;
            fill(log);
            QCOMPARE(log.size(), entries);
            QCOMPARE(log[entries - 1].t, Nanos(entries - 1) * 3);
            QCOMPARE(log[130047].request, 130047); // the last of the growing chunks
            QCOMPARE(log[130048].request, 130048); // the first of 64 Ki
        }
        QCOMPARE(keptChunkBytes(), std::size_t(10'444'800));
        {
            ChunkedLog<LoggedAttempt> log;
            fill(log);
            QCOMPARE(keptChunkBytes(), std::size_t(0)); // every chunk taken again
            QCOMPARE(log[200000].t, Nanos(600000));
        }
        QCOMPARE(releaseKeptChunks(), std::size_t(10'444'800));
        QCOMPARE(keptChunkBytes(), std::size_t(0));
    }

    // The pool holds at most kChunkPoolBytes: a chunk past it is freed, not kept.
    void logChunkPoolIsBounded()
    {
        releaseKeptChunks();
        keepChunk(takeChunk(kChunkPoolBytes - 64), kChunkPoolBytes - 64); // never touched: no memory
        keepChunk(takeChunk(64), 64);
        QCOMPARE(keptChunkBytes(), kChunkPoolBytes);
        keepChunk(takeChunk(16), 16);
        QCOMPARE(keptChunkBytes(), kChunkPoolBytes);
        QCOMPARE(releaseKeptChunks(), kChunkPoolBytes);
    }
    // A drag's newer frame makes a running row moot: the row looks at its cancel flag every
    // kCancelCheck (65,536) attempts, as it takes the next. A fixed window of 1,000,000 a second
    // over 200,000 requests one nanosecond apart, the flag set at the 10th attempt: the run stops
    // as it takes its 65,536th, having decided 65,535 (the store is asked once an attempt), not
    // the 200,000. Unset, it runs whole.
    void aCancelledRowStopsAtItsNextLook()
    {
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(1'000'000, kSecond)}};
        std::atomic<bool> cancel = false;
        std::size_t asks = 0;
        std::optional<AnyLimiter> store;
        s.external = [&](const StoreAsk& a) {
            if (++asks == 10)
                cancel = true;
            if (!store)
                store = makeLimiter(a.algorithm, *a.config);
            return store->decide(a.clock, a.cost);
        };
        std::vector<Nanos> t(200'000);
        std::iota(t.begin(), t.end(), Nanos(0));
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)runRow(s, {t, {}, {}}, &cancel));
        QCOMPARE(asks, kCancelCheck - 1);
        s.external = nullptr;
        cancel = false;
        QCOMPARE(runRow(s, {t, {}, {}}, &cancel).metrics.allowed, 200'000);
    }

    // An external store (the Redis backend) is asked every layer the policy asks, for the key and
    // node that decide, in decision order; a layer after a denial is not asked. Two clients with
    // their own keys, a token bucket of 2 then a fixed window of 3 in 10 s, six requests at 0
    // (clients 0, 1, 0, 1, 0, 1): the first four pass both layers (8 asks), the last two are
    // denied by the bucket (2 asks). A store that answers otherwise stops the run at that ask.
    void externalStoreIsAskedEveryLayer()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(2, 2 * kSecond)},
                    {Algorithm::FixedWindow, LimiterConfig::make(3, 10 * kSecond)}};
        s.clients = clientsOf(2, RetryPolicy::None, 0);
        std::map<std::pair<std::int64_t, std::size_t>, std::optional<AnyLimiter>> states;
        std::vector<StoreAsk> asks;
        s.external = [&](const StoreAsk& a) {
            asks.push_back(a);
            auto& l = states[{a.key, a.layer}];
            if (!l)
                l = makeLimiter(a.algorithm, *a.config);
            return l->decide(a.clock, a.cost);
        };
        const std::vector<Nanos> t(6, 0);
        const RowRun r = runRow(s, {t, {}, {}});
        QCOMPARE(r.metrics.allowed, 4);
        const std::vector<std::size_t> attempt{0, 0, 1, 1, 2, 2, 3, 3, 4, 5};
        const std::vector<std::int64_t> key{0, 0, 1, 1, 0, 0, 1, 1, 0, 1};
        const std::vector<std::size_t> layer{0, 1, 0, 1, 0, 1, 0, 1, 0, 0};
        QCOMPARE(asks.size(), attempt.size());
        for (std::size_t i = 0; i < asks.size(); ++i) {
            QCOMPARE(asks[i].attempt, attempt[i]);
            QCOMPARE(asks[i].key, key[i]);
            QCOMPARE(asks[i].layer, layer[i]);
            QCOMPARE(asks[i].algorithm, s.layers[layer[i]].algorithm);
            QCOMPARE(asks[i].clock, Nanos(0));
        }

        // One global key: every ask names key -1. A store that admits the fifth attempt, which
        // the model denies, stops the run there.
        s.clients = clientsOf(2, RetryPolicy::None, 0, 0, KeyMode::Global);
        states.clear();
        s.external = [&](const StoreAsk& a) {
            if (a.key != -1)
                throw std::logic_error("a global key is asked as -1");
            auto& l = states[{a.key, a.layer}];
            if (!l)
                l = makeLimiter(a.algorithm, *a.config);
            Decision d = l->decide(a.clock, a.cost);
            if (a.attempt == 2) { // a store that lets the third through
                d.allowed = true;
                d.retryAfter = 0;
            }
            return d;
        };
        try {
            (void)runRow(s, {t, {}, {}});
            QFAIL("the store's admission of attempt 3 went unseen");
        } catch (const StoreDisagrees& e) {
            QCOMPARE(e.ask.attempt, std::size_t(2)); // one global key: the third finds the bucket empty
            QCOMPARE(e.ask.layer, std::size_t(0));
            QVERIFY(e.store.allowed && !e.model.allowed);
            QCOMPARE(e.model.retryAfter, Nanos(kSecond));
        }
    }

    // Clients + cost: a token bucket of 4 at 1/s; two requests of cost 3 at 0. The second finds 1
    // token and needs 2 more: retry_after 2 s; retried then, it finds 3 and passes.
    void clientsWithCost()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(4, 4 * kSecond)}};
        s.clients = clientsOf(1, RetryPolicy::RetryAfter, 3);
        const std::vector<Nanos> t{0, 0};
        const std::vector<std::int64_t> cost{3, 3};
        const RowRun r = runRow(s, {t, cost, {}});
        compareLog(r, {{0, 0, 0, true, 0, 0}, {1, 0, 0, false, 2 * kSecond, 0}, {1, 1, 2 * kSecond, true, 0, 0}});
        QCOMPARE(r.clients.latency.max, 2 * kSecond);
        QCOMPARE(r.metrics.allowedCost, 6);
    }

    // Cluster (local, 2 nodes) + cost: a fixed window of 3 per 10 s, four requests of cost 2 at
    // 0, 1, 2, 3 s, round robin. Each node admits its first (2 of 3) and denies its second (4 > 3)
    // until its window ends: 10 - 2 = 8 s and 10 - 3 = 7 s. max_in_window counts units over both
    // nodes on true time: the admissions at 0 and 1 s, 2 + 2 = 4 in (-9 s, 1 s].
    void clusterWithCost()
    {
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(3, 10 * kSecond)}};
        s.cluster = clusterOf(2, Coordination::Local);
        const std::vector<Nanos> t{0, kSecond, 2 * kSecond, 3 * kSecond};
        const std::vector<std::int64_t> cost{2, 2, 2, 2};
        const RowRun r = runRow(s, {t, cost, {}});
        compareLog(r, {{0, 0, 0, true, 0, 0},
                       {1, 0, kSecond, true, 0, 1},
                       {2, 0, 2 * kSecond, false, 8 * kSecond, 0},
                       {3, 0, 3 * kSecond, false, 7 * kSecond, 1}});
        QCOMPARE(r.perNodeAllowed, (std::vector<std::int64_t>{1, 1}));
        QCOMPARE(r.metrics.maxInWindow, 4);
    }

    // Cluster (shared, 2 nodes) + layers: a token bucket of 2 at 1/s over a fixed window of 3 per
    // 10 s; requests at 0, 0, 0, 1, 2 s.
    //   0: tokens 2 -> 1, count 1.  0: tokens 0, count 2.  0: no token: denied by the bucket (the
    //   window is not asked), retry when both pass: max(1 s for a token, 0) = 1 s; remaining
    //   min(0, 1) = 0.  1 s: a token: tokens 0, count 3.  2 s: a token, consumed; the window is full:
    //   denied, that token wasted; retry_after max(1 s, 10 - 2 = 8 s) = 8 s.
    void clusterWithLayers()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(2, 2 * kSecond)},
                    {Algorithm::FixedWindow, LimiterConfig::make(3, 10 * kSecond)}};
        s.cluster = clusterOf(2, Coordination::Shared);
        const std::vector<Nanos> t{0, 0, 0, kSecond, 2 * kSecond};
        const RowRun r = runRow(s, {t, {}, {}});
        compareLog(r, {{0, 0, 0, true, 0, 0},
                       {1, 0, 0, true, 0, 1},
                       {2, 0, 0, false, kSecond, 0},
                       {3, 0, kSecond, true, 0, 1},
                       {4, 0, 2 * kSecond, false, 8 * kSecond, 0}});
        QCOMPARE(r.log[2].remaining, 0);
        QCOMPARE(r.layers[0].allowed, 4);
        QCOMPARE(r.layers[0].deniedHere, 1);
        QCOMPARE(r.layers[0].wasted, 1);
        QCOMPARE(r.layers[1].allowed, 3);
        QCOMPARE(r.layers[1].deniedHere, 1);
    }

    // Clients + cluster: 2 clients, 2 local nodes round robin over attempts, a fixed window of 1
    // per 10 s per client, retried 0.5 s later once. Client 0's second request (t = 1, node 0)
    // is denied (retry in 9 s); its retry is the 4th attempt, so node 1, where client 0's key is
    // fresh: admitted. Each node holds its own state: the cluster admits 3 for 2 clients.
    void clientsOnACluster()
    {
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(1, 10 * kSecond)}};
        s.cluster = clusterOf(2, Coordination::Local);
        s.clients = clientsOf(2, RetryPolicy::Immediate, 1, kSecond / 2);
        const std::vector<Nanos> t{0, 0, kSecond};
        const std::vector<std::int64_t> who{0, 1, 0};
        const RowRun r = runRow(s, {t, {}, who});
        compareLog(r, {{0, 0, 0, true, 0, 0},
                       {1, 0, 0, true, 0, 1},
                       {2, 0, kSecond, false, 9 * kSecond, 0},
                       {2, 1, kSecond * 3 / 2, true, 0, 1}});
        QCOMPARE(r.clients.latency.max, kSecond / 2);
    }

    // Headers from the node that decided: a token bucket of 2 per 10 s (0.2/s) on 2 local nodes,
    // requests 1 s apart. Node 1's first request (t = 1) leaves it 1 token short: full again in
    // 5 s, so X-RateLimit-Reset is 6, not the 10 of one limiter replayed over every request.
    void resetOfTheDecidingNode()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(2, 10 * kSecond)}};
        s.cluster = clusterOf(2, Coordination::Local);
        s.headers = true;
        const std::vector<Nanos> t{0, kSecond, 2 * kSecond, 3 * kSecond};
        const RowRun r = runRow(s, {t, {}, {}});
        QCOMPARE(r.resets[1], 5 * kSecond);
        QCOMPARE(r.resets[2], 8 * kSecond); // node 0 at 2 s: 1.4 - 1 = 0.4 tokens, 1.6 short
        // split: each node holds L / N = 1 of a limit of 2
        s.cluster = clusterOf(2, Coordination::Split);
        QCOMPARE(quotaOfLayer(s, 0), 1);
    }

    // Each feature switched off reduces to the single limiter, decision for decision.
    void reducesToTheSingleLimiter()
    {
        std::mt19937_64 g(5);
        for (Algorithm a : kEveryAlgorithm) {
            const LimiterConfig c = LimiterConfig::make(3, 2 * kSecond);
            std::vector<Nanos> t;
            Nanos now = 0;
            for (int i = 0; i < 200; ++i)
                t.push_back(now += Nanos(g() % 4) * kSecond / 4);
            std::optional<AnyLimiter> single;
            try {
                single = makeLimiter(a, c);
            } catch (const InputError&) { // a product that needs its own options
                continue;
            }
            EngineSetup s;
            s.layers = {{a, c}};
            const RowRun r = runRow(s, {t, {}, {}});
            for (std::size_t i = 0; i < t.size(); ++i) {
                const Decision d = single->decide(t[i]);
                const Decision e = r.log[i].decision();
                QVERIFY(d.allowed == e.allowed && d.delay == e.delay && d.retryAfter == e.retryAfter
                        && d.remaining == e.remaining && d.level == e.level);
            }
        }
    }

    // Every combination against the oracle: random policies of 1 to 3 layers (nginx included),
    // costs, clients that retry (every policy), clusters (every mode and balancer, skew), headers.
    void everyCombinationIsTheOracle()
    {
        const int n = int(propertySeeds());
        for (int seed = 0; seed < n; ++seed) {
            std::mt19937_64 g(std::uint64_t(seed) * 7919 + 1);
            const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
            EngineSetup s;
            const int layers = int(in(1, 3));
            for (int l = 0; l < layers; ++l) {
                // the textbook seven and nginx: products are checked against the products
                // themselves, and some of them count denials, which the visibility rule does not
                const Algorithm a = kEveryAlgorithm[std::size_t(in(0, 7))];
                const std::int64_t limit = in(1, 4);
                // nginx writes whole requests per second: a window of 1 s makes L/W one
                const Nanos window = a == Algorithm::NginxLimitReq ? kSecond : in(1, 6) * kSecond / 2;
                s.layers.push_back({a, LimiterConfig::make(limit, window)});
            }
            const int features = int(in(0, 7)); // bit 0 cluster, 1 clients, 2 cost
            if (features & 1) {
                ClusterConfig::Options o;
                o.nodes = int(in(1, 3));
                o.balancer = kAllBalancers[std::size_t(in(0, 2))];
                o.coordination = kAllCoordinations[std::size_t(in(0, 4))];
                if (o.coordination == Coordination::Racy)
                    o.latencyNanos = in(0, 4) * kSecond / 4;
                if (o.coordination == Coordination::Hybrid)
                    o.syncNanos = in(1, 4) * kSecond / 2;
                o.skewNanos = in(0, 1) ? in(0, 3) * kSecond / 10 : 0;
                o.seed = std::uint64_t(seed);
                if (in(0, 2) == 0) { // a store outage
                    o.outageFromNanos = in(0, 8) * kSecond / 4;
                    o.outageToNanos = o.outageFromNanos + in(0, 8) * kSecond / 4;
                    o.fallback = kAllFallbacks[std::size_t(in(0, 2))];
                }
                if (o.nodes > 1 && in(0, 2) == 0) { // node 1 joins late, the last node may leave
                    o.joins.push_back({1, in(0, 8) * kSecond / 4});
                    if (in(0, 1))
                        o.leaves.push_back({o.nodes - 1, o.joins.back().at + in(1, 8) * kSecond / 4});
                }
                s.cluster = ClusterConfig::make(o);
            }
            std::vector<std::int64_t> who;
            const std::size_t count = std::size_t(in(0, 30));
            if (features & 2) {
                ClientOptions o;
                o.clients = in(1, 3);
                o.key = in(0, 1) ? KeyMode::Client : KeyMode::Global;
                o.retry = kAllRetryPolicies[std::size_t(in(0, 4))];
                o.maxRetries = in(0, 3);
                o.retryDelayNanos = in(0, 4) * kSecond / 4;
                o.jitter = kAllJitters[std::size_t(in(0, 3))];
                o.backoffBaseNanos = in(1, 4) * kSecond / 4;
                o.backoffCapNanos = in(1, 8) * kSecond / 2;
                if (o.clients > 1 && in(0, 1)) { // two cohorts, the second with a policy of its own
                    const std::int64_t first = in(1, o.clients - 1);
                    Cohort other{o.clients - first, kAllRetryPolicies[std::size_t(in(0, 4))], in(0, 4) * kSecond / 4,
                                 in(0, 3), in(1, 4) * kSecond / 4, in(1, 8) * kSecond / 2,
                                 kAllJitters[std::size_t(in(0, 3))]};
                    o.cohorts = {Cohort{first, o.retry, o.retryDelayNanos, o.maxRetries, o.backoffBaseNanos,
                                        o.backoffCapNanos, o.jitter},
                                 other};
                }
                s.clients = ClientConfig::make(o);
                if (in(0, 1))
                    for (std::size_t i = 0; i < count; ++i)
                        who.push_back(in(0, o.clients - 1));
            }
            std::vector<std::int64_t> cost;
            if (features & 4)
                for (std::size_t i = 0; i < count; ++i)
                    cost.push_back(in(1, 5));
            s.seed = std::uint64_t(seed) + 11;
            s.headers = true;
            std::vector<Nanos> t;
            Nanos now = 0;
            for (std::size_t i = 0; i < count; ++i)
                t.push_back(now += in(0, 1) ? 0 : in(0, 8) * kSecond / 8);

            QByteArray where = "seed " + QByteArray::number(seed) + " (";
            for (const Layer& l : s.layers)
                where += QByteArray(algorithmId(l.algorithm).data()) + " ";
            where += ")";
            RowRun got;
            try {
                got = runRow(s, {t, cost, who});
            } catch (const InputError&) { // split's r/N that nginx cannot write, no node up: refused by both
                QVERIFY_THROWS_EXCEPTION(InputError, oracle::run(s, t, cost, who));
                continue;
            }
            const oracle::Result want = oracle::run(s, t, cost, who);
            QVERIFY2(got.log.size() == want.log.size(), where);
            for (std::size_t i = 0; i < want.log.size(); ++i) {
                const LoggedAttempt &a = got.log[i], &w = want.log[i];
                const QByteArray at = where + ", attempt " + QByteArray::number(qulonglong(i));
                QVERIFY2(a.t == w.t && a.request == w.request && a.attempt == w.attempt && a.client == w.client, at);
                QVERIFY2(a.node == w.node, at + " node");
                QVERIFY2(a.allowed == w.allowed, at + " verdict");
                QVERIFY2(a.wait == w.wait, at + " wait " + QByteArray::number(qlonglong(a.wait)) + " vs "
                                               + QByteArray::number(qlonglong(w.wait)));
                QVERIFY2(a.remaining == w.remaining, at + " remaining");
                QVERIFY2(a.level == w.level, at + " level");
            }
            QVERIFY2(got.perNodeAllowed == want.perNodeAllowed, where);
        }
    }

    // A local or split cluster of one limiter with no clients runs its own typed loop
    // (row_runner_nodes.cpp); it must report what the general loop through the cells reports,
    // every field of every attempt. Every limiter and product, both coordinations, every
    // balancer, with and without skew, a late join and a leave, an empty start, costs and
    // clients named by the log (the hash balancer reads them), the nodes' lines, over bursts that
    // deny.
    void theTypedNodesLoopIsTheCellsLoop()
    {
        std::mt19937_64 g(17);
        int compared = 0;
        for (Algorithm a : kEveryAlgorithm)
            for (int variant = 0; variant < 12; ++variant) {
                const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
                EngineSetup s;
                const Nanos window = a == Algorithm::NginxLimitReq ? kSecond : in(1, 4) * kSecond / 2;
                s.layers = {{a, LimiterConfig::make(in(2, 6), window)}};
                ClusterConfig::Options o;
                o.nodes = int(in(1, 4));
                o.balancer = kAllBalancers[std::size_t(variant % 3)];
                o.coordination = variant % 2 ? Coordination::Split : Coordination::Local;
                o.skewNanos = variant % 4 >= 2 ? in(1, 3) * kSecond / 10 : 0;
                o.seed = std::uint64_t(variant);
                if (o.nodes > 1 && variant >= 6) { // node 1 joins late, the last may leave
                    o.joins.push_back({1, in(0, 8) * kSecond / 4});
                    o.leaves.push_back({o.nodes - 1, o.joins.back().at + in(1, 8) * kSecond / 4});
                }
                s.cluster = ClusterConfig::make(o);
                s.startEmpty = variant % 5 == 0;
                s.headers = variant % 3 != 2;
                s.seed = std::uint64_t(variant) + 3;
                if ((variant / 3) % 2 == 0) // the nodes' lines (local, split, costs), three samples between two steps
                    s.levelLines = LevelLineSetup{8, 4, 200'000};
                const std::size_t count = std::size_t(in(200, 600));
                std::vector<Nanos> t;
                std::vector<std::int64_t> cost, who;
                Nanos now = 0;
                for (std::size_t i = 0; i < count; ++i) {
                    t.push_back(now += in(0, 2) ? 0 : in(1, 8) * kSecond / 16);
                    if (variant % 4 == 1)
                        cost.push_back(in(1, 3));
                    if (variant % 3 == 2)
                        who.push_back(in(0, 9));
                }
                const QByteArray where = QByteArray(algorithmId(a).data()) + " variant " + QByteArray::number(variant);
                RowRun want;
                try {
                    want = detail::runRowByCells(s, {t, cost, who});
                } catch (const InputError&) { // a product's own options, split's L/N nginx cannot write
                    QVERIFY_THROWS_EXCEPTION(InputError, (void)runRow(s, {t, cost, who}));
                    continue;
                }
                QVERIFY2(detail::runsTyped(s, {t, cost, who}), where + " does not take the typed loop");
                const RowRun got = runRow(s, {t, cost, who});
                ++compared;
                QVERIFY2(got.log.size() == want.log.size(), where);
                for (std::size_t i = 0; i < want.log.size(); ++i) {
                    const LoggedAttempt &x = got.log[i], &w = want.log[i];
                    QVERIFY2(x.t == w.t && x.wait == w.wait && x.level == w.level && x.request == w.request
                                 && x.client == w.client && x.remaining == w.remaining && x.attempt == w.attempt
                                 && x.node == w.node && x.allowed == w.allowed && x.headerLayer == w.headerLayer,
                             where + ", attempt " + QByteArray::number(qulonglong(i)));
                }
                QVERIFY2(got.resets.size() == want.resets.size(), where);
                for (std::size_t i = 0; i < want.resets.size(); ++i)
                    QVERIFY2(got.resets[i] == want.resets[i], where + ", reset " + QByteArray::number(qulonglong(i)));
                QVERIFY2(got.verdicts == want.verdicts && got.nodes == want.nodes, where);
                QVERIFY2(got.verdicts.size() == count && got.nodes.size() == count, where);
                const Metrics &m = got.metrics, &n = want.metrics;
                QVERIFY2(m.allowed == n.allowed && m.denied == n.denied && m.delayed == n.delayed && m.never == n.never
                             && m.allowedCost == n.allowedCost && m.maxInWindow == n.maxInWindow
                             && m.overshoot == n.overshoot && m.memory.bytes == n.memory.bytes
                             && m.memory.entries == n.memory.entries,
                         where + " metrics");
                QVERIFY2(got.layers.size() == 1 && got.layers[0].allowed == want.layers[0].allowed
                             && got.layers[0].deniedHere == want.layers[0].deniedHere
                             && got.layers[0].wasted == want.layers[0].wasted,
                         where + " layer");
                QVERIFY2(got.perNodeAllowed == want.perNodeAllowed, where);
                QVERIFY2(got.levels.others == want.levels.others && got.levels.lines.size() == want.levels.lines.size(),
                         where + " lines");
                QVERIFY2(!s.levelLines || !want.levels.lines.empty(), where + " draws no line");
                for (std::size_t k = 0; k < want.levels.lines.size(); ++k) {
                    const KeyLevel &x = got.levels.lines[k], &w = want.levels.lines[k];
                    QVERIFY2(x.name == w.name && x.index == w.index && x.attempts == w.attempts && x.endT == w.endT
                                 && x.endHanded == w.endHanded && x.endState && w.endState
                                 && x.endState->levelAt(x.endHanded) == w.endState->levelAt(w.endHanded)
                                 && x.points.size() == w.points.size(),
                             where + ", line " + QByteArray::number(qulonglong(k)));
                    for (std::size_t i = 0; i < w.points.size(); ++i)
                        QVERIFY2(x.points[i].t == w.points[i].t && x.points[i].level == w.points[i].level,
                                 where + ", line " + QByteArray::number(qulonglong(k)) + " point "
                                     + QByteArray::number(qulonglong(i)));
                }
                const ClientStats &c = got.clients, &d = want.clients;
                QVERIFY2(c.requests == d.requests && c.attempts == d.attempts && c.succeeded == d.succeeded
                             && c.gaveUp == d.gaveUp && c.amplification == d.amplification
                             && c.latency.mean == d.latency.mean && c.latency.p50 == d.latency.p50
                             && c.latency.p99 == d.latency.p99 && c.latency.max == d.latency.max
                             && c.keysUsed == d.keysUsed && c.perKeyMax.bytes == d.perKeyMax.bytes
                             && c.perKeyMax.entries == d.perKeyMax.entries && c.total.bytes == d.total.bytes
                             && c.total.entries == d.total.entries,
                         where + " clients");
            }
        QVERIFY(compared > 150); // the products that need options of their own are the rest
    }

    // The typed loop looks at the frame's flag too: set before the run, 200,000 requests on two
    // local nodes stop at the first look, not at the end.
    void theTypedNodesLoopStopsWhenCancelled()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(10, kSecond)}};
        s.cluster = clusterOf(2, Coordination::Local);
        std::vector<Nanos> t(200'000);
        std::iota(t.begin(), t.end(), Nanos(0));
        std::atomic<bool> cancel = true;
        QVERIFY_THROWS_EXCEPTION(Cancelled, (void)runRow(s, {t, {}, {}}, &cancel));
        cancel = false;
        QCOMPARE(runRow(s, {t, {}, {}}, &cancel).metrics.allowed, 20); // 10 a node: t spans 0.2 ms
    }
};

QTEST_APPLESS_MAIN(TestEngine)
#include "tst_engine.moc"
