// The engine's fleets and storms (semantics.md, "Fleets and storms"): retry jitter's bounds and
// each client's own draws, a store outage and its fallbacks, nodes that join and leave, cohorts
// of clients with their own policies, and autoscaling, on hand-derived tables. The pairs of
// features and the oracle are in tst_engine.
#include "arithmetic/decimal.h"
#include "engine/engine.h"
#include "engine_log.h"

#include <QTest>

#include <algorithm>
#include <random>

using namespace ratelab;
using test::compareLog;
using test::Row;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

} // namespace

class TestEngineFleet : public QObject {
    Q_OBJECT

private slots:
    // Jitter (semantics.md, "Fleets and storms"): each draw within its bounds, d = min(cap, base *
    // 2^a): full [0, d], equal [d/2, d], decorrelated [base, min(cap, 3 prev)], none d; and a
    // client's draws are its own: the same seed and id give the same stream.
    void jitterBoundsAndStreams()
    {
        const Nanos base = kSecond / 10, cap = 2 * kSecond;
        std::mt19937_64 g(3);
        for (int i = 0; i < 2000; ++i) {
            const auto a = std::int32_t(g() % 8);
            const Nanos d = std::min(cap, base << a);
            const std::uint64_t u = g() >> 11;
            const Nanos prev = base + Nanos(g() % std::uint64_t(cap));
            const Nanos full = jitteredDelay(Jitter::Full, base, cap, a, prev, u);
            QVERIFY(full >= 0 && full <= d);
            const Nanos equal = jitteredDelay(Jitter::Equal, base, cap, a, prev, u);
            QVERIFY(equal >= (d + 1) / 2 && equal <= d);
            const Nanos dec = jitteredDelay(Jitter::Decorrelated, base, cap, a, prev, u);
            QVERIFY(dec >= base && dec <= std::min(cap, 3 * prev));
            QCOMPARE(jitteredDelay(Jitter::None, base, cap, a, prev, u), d);
        }
        // the extremes: u = 0 and u just below 1
        const std::uint64_t top = (std::uint64_t(1) << 53) - 1;
        QCOMPARE(jitteredDelay(Jitter::Full, base, cap, 0, base, 0), Nanos(0));
        QCOMPARE(jitteredDelay(Jitter::Equal, base, cap, 0, base, 0), base / 2);
        QCOMPARE(jitteredDelay(Jitter::Decorrelated, base, cap, 0, base, 0), base);
        QCOMPARE(jitteredDelay(Jitter::Equal, base, cap, 0, base, top), base); // rounded up to d
        QVERIFY(jitterDraw(7, 3, 0) == jitterDraw(7, 3, 0) && jitterDraw(7, 3, 0) != jitterDraw(7, 4, 0)
                && jitterDraw(7, 3, 0) != jitterDraw(8, 3, 0) && jitterDraw(7, 3, 0) != jitterDraw(7, 3, 1));
        // Client 0's retries are the same whether or not client 1 retries beside it.
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(1, kSecond)}};
        ClientOptions o;
        o.clients = 2;
        o.key = KeyMode::Client;
        o.retry = RetryPolicy::Backoff;
        o.maxRetries = 5;
        o.jitter = Jitter::Decorrelated;
        s.clients = ClientConfig::make(o);
        const std::vector<Nanos> alone{0, 0};
        const std::vector<std::int64_t> zero{0, 0};
        const RowRun one = runRow(s, {alone, {}, zero});
        const std::vector<Nanos> four{0, 0, 0, 0};
        const std::vector<std::int64_t> mixed{0, 1, 0, 1};
        const RowRun two = runRow(s, {four, {}, mixed});
        std::vector<Nanos> a, b;
        for (const LoggedAttempt& x : one.log)
            a.push_back(x.t);
        for (const LoggedAttempt& x : two.log)
            if (x.client == 0)
                b.push_back(x.t);
        QCOMPARE(a, b);
    }

    // A store outage from 1 s to 3 s (semantics.md, "Fleets and storms"): one node on a shared
    // fixed window of 2 per 10 s; requests at 0, 0.5, 1, 2, 3, 3.5. The store admits 0 and 0.5
    // (count 2). Closed: 1 and 2 are denied until 3 s (2 s, 1 s). Open: admitted, counted
    // nowhere. Local: a new in-memory window on the node admits both. At 3 s the store is as it
    // was at 1 s (count 2): 3 and 3.5 are denied until 10 s. An outage of no length changes nothing.
    void storeOutage()
    {
        const std::vector<Nanos> t{0, kSecond / 2, kSecond, 2 * kSecond, 3 * kSecond, 7 * kSecond / 2};
        const auto run = [&](Nanos from, Nanos to, Fallback f) {
            EngineSetup s;
            s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(2, 10 * kSecond)}};
            ClusterConfig::Options o;
            o.outageFromNanos = from;
            o.outageToNanos = to;
            o.fallback = f;
            s.cluster = ClusterConfig::make(o);
            return runRow(s, {t, {}, {}});
        };
        const Row after3{4, 0, 3 * kSecond, false, 7 * kSecond, 0}, after35{5, 0, 7 * kSecond / 2, false, 13 * kSecond / 2, 0};
        compareLog(run(kSecond, 3 * kSecond, Fallback::Closed),
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond / 2, true, 0, 0}, {2, 0, kSecond, false, 2 * kSecond, 0},
                    {3, 0, 2 * kSecond, false, kSecond, 0}, after3, after35});
        compareLog(run(kSecond, 3 * kSecond, Fallback::Open),
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond / 2, true, 0, 0}, {2, 0, kSecond, true, 0, 0},
                    {3, 0, 2 * kSecond, true, 0, 0}, after3, after35});
        compareLog(run(kSecond, 3 * kSecond, Fallback::Local),
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond / 2, true, 0, 0}, {2, 0, kSecond, true, 0, 0},
                    {3, 0, 2 * kSecond, true, 0, 0}, after3, after35});
        compareLog(run(kSecond, kSecond, Fallback::Open), // no length: the store decides throughout
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond / 2, true, 0, 0}, {2, 0, kSecond, false, 9 * kSecond, 0},
                    {3, 0, 2 * kSecond, false, 8 * kSecond, 0}, after3, after35});
    }

    // Nodes that join and leave: 2 local nodes round robin, a token bucket of 1 per 10 s,
    // requests at 0..4 s. Node 1 joins at 2 s: 0 and 1 go to node 0 (admitted; 1 is 0.9 token
    // short: 9 s); at 2 s the third attempt is up[2 mod 2] = node 0 (0.8 short: 8 s); at 3 s node 1,
    // new and full: admitted; at 4 s node 0 (6 s). If node 0 leaves at 3.5 s, 4 s goes to node 1
    // (0.9 short: 9 s). A join at 0 is a node that was there all along.
    void nodesJoinAndLeave()
    {
        std::vector<Nanos> t;
        for (int i = 0; i < 5; ++i)
            t.push_back(i * kSecond);
        const auto run = [&](std::vector<NodeEvent> joins, std::vector<NodeEvent> leaves) {
            EngineSetup s;
            s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(1, 10 * kSecond)}};
            ClusterConfig::Options o;
            o.nodes = 2;
            o.coordination = Coordination::Local;
            o.joins = std::move(joins);
            o.leaves = std::move(leaves);
            s.cluster = ClusterConfig::make(o);
            return runRow(s, {t, {}, {}});
        };
        compareLog(run({{1, 2 * kSecond}}, {}),
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond, false, 9 * kSecond, 0}, {2, 0, 2 * kSecond, false, 8 * kSecond, 0},
                    {3, 0, 3 * kSecond, true, 0, 1}, {4, 0, 4 * kSecond, false, 6 * kSecond, 0}});
        compareLog(run({{1, 2 * kSecond}}, {{0, 7 * kSecond / 2}}),
                   {{0, 0, 0, true, 0, 0}, {1, 0, kSecond, false, 9 * kSecond, 0}, {2, 0, 2 * kSecond, false, 8 * kSecond, 0},
                    {3, 0, 3 * kSecond, true, 0, 1}, {4, 0, 4 * kSecond, false, 9 * kSecond, 1}});
        const RowRun always = run({}, {}), joinedAtZero = run({{1, 0}}, {});
        QCOMPARE(always.log.size(), joinedAtZero.log.size());
        for (std::size_t i = 0; i < always.log.size(); ++i)
            QVERIFY(always.log[i].node == joinedAtZero.log[i].node && always.log[i].allowed == joinedAtZero.log[i].allowed);
        QVERIFY_THROWS_EXCEPTION(InputError, run({}, {{0, 0}, {1, 0}})); // nobody left to serve
    }

    // Cohorts: three clients on one global key, fixed window of 1 per 10 s; client 0 alone retries
    // immediately after 1 s, at most twice (cohort 1); clients 1 and 2 never retry (cohort 2).
    // Requests at 0 by clients 2, 0, 1: client 2 takes the one slot; client 0 is denied and
    // retries at 1 s and 2 s, denied again (9 s, 8 s); client 1 gives up at once. 5 attempts.
    void cohortsEachTheirOwnPolicy()
    {
        ClientOptions o;
        o.clients = 3;
        o.key = KeyMode::Global;
        o.cohorts = {Cohort{1, RetryPolicy::Immediate, kSecond, 2}, Cohort{2, RetryPolicy::None}};
        EngineSetup s;
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(1, 10 * kSecond)}};
        s.clients = ClientConfig::make(o);
        const std::vector<Nanos> t{0, 0, 0};
        const std::vector<std::int64_t> who{2, 0, 1};
        const RowRun r = runRow(s, {t, {}, who});
        compareLog(r, {{0, 0, 0, true, 0, 0}, {1, 0, 0, false, 10 * kSecond, 0}, {2, 0, 0, false, 10 * kSecond, 0},
                       {1, 1, kSecond, false, 9 * kSecond, 0}, {1, 2, 2 * kSecond, false, 8 * kSecond, 0}});
        QCOMPARE(r.clients.gaveUp, std::int64_t(2));
        QCOMPARE(s.clients->policyOf(0).retry, RetryPolicy::Immediate);
        QCOMPARE(s.clients->policyOf(2).retry, RetryPolicy::None);
        // The cohorts must hold every client.
        o.cohorts.back().clients = 1;
        QVERIFY_THROWS_EXCEPTION(InputError, ClientConfig::make(o));
    }

    // Autoscaling 1 to 3 local nodes at 2 attempts a second each, token bucket C = 1, r = 1/s.
    // Second 0: node 0 alone takes 0 s (its token) and denies 0.25, 0.5, 0.75 s (0.75, 0.5, 0.25
    // s short). At 1 s: 4 attempts -> ceil(4 / 2) = 2 nodes; node 1 comes up new. Round robin
    // counts attempts (4 so far): 1 s to node 0 (its token of 1 s), 1.1 s to node 1 (new, full),
    // 1.2 s to node 0 (0.8 s short). At 2 s: 3 -> 2 nodes; 2.5 s is attempt 7: node 1 (full
    // again). At 3 s: 1 -> 1 node; 4 s to node 0. Empty start: node 0 denies 0 s too (1 s short)
    // and node 1, new and empty at 1 s, denies 1.1 s (0.9 s short).
    void autoscaling()
    {
        const std::vector<Nanos> t{0, kSecond / 4, kSecond / 2, 3 * kSecond / 4, kSecond, 11 * kSecond / 10,
                                   6 * kSecond / 5, 5 * kSecond / 2, 4 * kSecond};
        const auto run = [&](bool empty) {
            EngineSetup s;
            s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(1, kSecond)}};
            ClusterConfig::Options o{3, Balancer::RoundRobin, Coordination::Local};
            o.autoscaleMin = 1;
            o.autoscaleMax = 3;
            o.scaleAt = Rate{2, kSecond};
            s.cluster = ClusterConfig::make(o);
            s.startEmpty = empty;
            return runRow(s, {t, {}, {}});
        };
        const RowRun full = run(false);
        compareLog(full, {{0, 0, 0, true, 0, 0}, {1, 0, kSecond / 4, false, 3 * kSecond / 4, 0},
                          {2, 0, kSecond / 2, false, kSecond / 2, 0}, {3, 0, 3 * kSecond / 4, false, kSecond / 4, 0},
                          {4, 0, kSecond, true, 0, 0}, {5, 0, 11 * kSecond / 10, true, 0, 1},
                          {6, 0, 6 * kSecond / 5, false, 4 * kSecond / 5, 0}, {7, 0, 5 * kSecond / 2, true, 0, 1},
                          {8, 0, 4 * kSecond, true, 0, 0}});
        QCOMPARE(full.scaling, (std::vector<std::pair<Nanos, int>>{{0, 1}, {kSecond, 2}, {3 * kSecond, 1}}));
        const RowRun empty = run(true);
        compareLog(empty, {{0, 0, 0, false, kSecond, 0}, {1, 0, kSecond / 4, false, 3 * kSecond / 4, 0},
                           {2, 0, kSecond / 2, false, kSecond / 2, 0}, {3, 0, 3 * kSecond / 4, false, kSecond / 4, 0},
                           {4, 0, kSecond, true, 0, 0}, {5, 0, 11 * kSecond / 10, false, 9 * kSecond / 10, 1},
                           {6, 0, 6 * kSecond / 5, false, 4 * kSecond / 5, 0}, {7, 0, 5 * kSecond / 2, true, 0, 1},
                           {8, 0, 4 * kSecond, true, 0, 0}});
    }
};

QTEST_APPLESS_MAIN(TestEngineFleet)
#include "tst_engine_fleet.moc"
