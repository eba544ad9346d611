// The cluster against hand-derived tables: ids, validated configs, node offsets, the split
// quota, the balancers, and each coordination's decisions over streams worked out by hand
// (semantics.md, "Cluster: N nodes and a store"), each row run through runRow. The seeded
// properties are in tst_cluster_properties.cpp.
#include "engine_helpers.h"
#include "engine/cluster.h"
#include "arithmetic/decimal.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::test;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kTenth = kSecond / 10;

using Counts = std::vector<std::int64_t>;

std::vector<Nanos> uniform(std::size_t n, Nanos delay, Nanos start = 0)
{
    std::vector<Nanos> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(start + Nanos(i) * delay);
    return out;
}

ClusterConfig cluster(int nodes, Coordination c, Nanos latency = 0, Nanos sync = 0, Nanos skew = 0,
                      Balancer b = Balancer::RoundRobin, std::uint64_t seed = 1)
{
    return ClusterConfig::make({nodes, b, c, latency, sync, skew, seed});
}
Counts allowedIndices(const RowRun& r)
{
    Counts out;
    for (std::size_t i = 0; i < r.log.size(); ++i)
        if (r.log[i].allowed)
            out.push_back(std::int64_t(i));
    return out;
}

Counts range(std::int64_t from, std::int64_t to) // [from, to]
{
    Counts out;
    for (std::int64_t i = from; i <= to; ++i)
        out.push_back(i);
    return out;
}

Counts join(Counts a, const Counts& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

Q_DECLARE_METATYPE(ratelab::Coordination)
Q_DECLARE_METATYPE(ratelab::Algorithm)
Q_DECLARE_METATYPE(ratelab::ClusterConfig)

class TestCluster : public QObject {
    Q_OBJECT
private slots:
    void idsRoundTrip()
    {
        for (Balancer b : kAllBalancers)
            QCOMPARE(balancerFromId(balancerId(b)), std::optional<Balancer>(b));
        for (Coordination c : kAllCoordinations)
            QCOMPARE(coordinationFromId(coordinationId(c)), std::optional<Coordination>(c));
        QCOMPARE(balancerId(Balancer::RoundRobin), std::string_view("round_robin"));
        QCOMPARE(coordinationId(Coordination::Hybrid), std::string_view("hybrid"));
        QVERIFY(!balancerFromId("roundrobin"));
        QVERIFY(!coordinationFromId("Shared"));
    }

    void configIsValidated_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<Coordination>("coordination");
        QTest::addColumn<Nanos>("latency");
        QTest::addColumn<Nanos>("sync");
        QTest::addColumn<Nanos>("skew");
        QTest::addColumn<QString>("error");
        using C = Coordination;
        QTest::newRow("0 nodes") << 0 << C::Shared << Nanos(0) << Nanos(0) << Nanos(0) << "nodes must be at least 1 (got 0)";
        QTest::newRow("65 nodes") << 65 << C::Local << Nanos(0) << Nanos(0) << Nanos(0) << "nodes must be at most 64 (got 65)";
        QTest::newRow("negative latency") << 2 << C::Racy << Nanos(-1) << Nanos(0) << Nanos(0)
                                          << "latency must not be negative (got -0.000000001 s)";
        QTest::newRow("latency without racy") << 2 << C::Shared << kTenth << Nanos(0) << Nanos(0)
                                              << "latency applies only to coordination racy (got shared)";
        QTest::newRow("hybrid without sync") << 2 << C::Hybrid << Nanos(0) << Nanos(0) << Nanos(0)
                                             << "coordination hybrid needs a sync period greater than 0 s (got 0 s)";
        QTest::newRow("sync without hybrid") << 2 << C::Local << Nanos(0) << kTenth << Nanos(0)
                                             << "sync applies only to coordination hybrid (got local)";
        QTest::newRow("negative skew") << 2 << C::Local << Nanos(0) << Nanos(0) << -kSecond
                                       << "skew must not be negative (got -1 s)";
        QTest::newRow("64 nodes hybrid") << 64 << C::Hybrid << Nanos(0) << kTenth << kSecond << "";
        QTest::newRow("racy latency 0") << 3 << C::Racy << Nanos(0) << Nanos(0) << Nanos(0) << "";
    }

    void configIsValidated()
    {
        QFETCH(int, nodes);
        QFETCH(Coordination, coordination);
        QFETCH(Nanos, latency);
        QFETCH(Nanos, sync);
        QFETCH(Nanos, skew);
        QFETCH(QString, error);
        QString got;
        try {
            const ClusterConfig c = cluster(nodes, coordination, latency, sync, skew);
            QCOMPARE(c.nodes(), nodes);
        } catch (const InputError& e) {
            got = QString::fromUtf8(e.what());
        }
        QCOMPARE(got, error);
    }

    void nodeOffsetsAreFlooredFractionsOfTheSkew()
    {
        // Node n runs ahead by skew * n / (N - 1): 1 s over 4 nodes is 0, 1/3, 2/3 and 1 s.
        const ClusterConfig four = cluster(4, Coordination::Local, 0, 0, kSecond);
        QCOMPARE(four.nodeOffset(0), Nanos(0));
        QCOMPARE(four.nodeOffset(1), Nanos(333'333'333));
        QCOMPARE(four.nodeOffset(2), Nanos(666'666'666));
        QCOMPARE(four.nodeOffset(3), kSecond);
        // 1 ns over 3 nodes: the middle node's 0.5 ns floors to 0.
        const ClusterConfig three = cluster(3, Coordination::Local, 0, 0, 1);
        QCOMPARE(three.nodeOffset(1), Nanos(0));
        QCOMPARE(three.nodeOffset(2), Nanos(1));
        QCOMPARE(cluster(1, Coordination::Local, 0, 0, kSecond).nodeOffset(0), Nanos(0));
    }

    void splitConfigDividesTheQuota()
    {
        // 10 per 10 s (r = 1/s) over 3 nodes: L = C = 3 (floored), r = 1/3 per s exactly.
        const LimiterConfig three = splitConfig(LimiterConfig{}, 3);
        QCOMPARE(three.limit(), std::int64_t(3));
        QCOMPARE(three.capacity(), std::int64_t(3));
        QCOMPARE(three.rate(), (Rate{1, 3 * kSecond}));
        QCOMPARE(three.windowNanos(), 10 * kSecond);
        // 64 nodes: 10/64 floors to 0, held at 1.
        QCOMPARE(splitConfig(LimiterConfig{}, 64).limit(), std::int64_t(1));
        QCOMPARE(splitConfig(LimiterConfig{}, 64).capacity(), std::int64_t(1));
        // 3 per 7 s over 6 nodes: 3/42 = 1/14 per s.
        QCOMPARE(splitConfig(LimiterConfig::make(3, 7 * kSecond), 6).rate(), (Rate{1, 14 * kSecond}));
        QCOMPARE(splitConfig(LimiterConfig{}, 1), LimiterConfig{});
    }

    void balancers()
    {
        const auto rr = assignNodes(cluster(3, Coordination::Local), 7);
        QCOMPARE(rr, (std::vector<std::uint8_t>{0, 1, 2, 0, 1, 2, 0}));
        // Hash: one client, one node, whatever the node is.
        const std::vector<std::uint64_t> clients{5, 9, 5, 5, 9, 11};
        const auto h = assignNodes(cluster(4, Coordination::Local, 0, 0, 0, Balancer::Hash), clients.size(), clients);
        QCOMPARE(h[0], h[2]);
        QCOMPARE(h[0], h[3]);
        QCOMPARE(h[1], h[4]);
        // Without clients each request is its own client: reproducible, in range, using every node.
        const auto h1 = assignNodes(cluster(4, Coordination::Local, 0, 0, 0, Balancer::Hash), 400);
        QCOMPARE(h1, assignNodes(cluster(4, Coordination::Local, 0, 0, 0, Balancer::Hash), 400));
        // Random: reproducible from the seed, a different seed a different spread, every node used.
        const auto r1 = assignNodes(cluster(5, Coordination::Local, 0, 0, 0, Balancer::Random, 7), 500);
        QCOMPARE(r1, assignNodes(cluster(5, Coordination::Local, 0, 0, 0, Balancer::Random, 7), 500));
        QVERIFY(r1 != assignNodes(cluster(5, Coordination::Local, 0, 0, 0, Balancer::Random, 8), 500));
        for (const auto* v : {&h1, &r1}) {
            std::vector<int> seen(5, 0);
            for (std::uint8_t n : *v)
                ++seen[n];
            const int used = int(std::count_if(seen.begin(), seen.end(), [](int k) { return k > 0; }));
            QCOMPARE(used, v == &h1 ? 4 : 5);
            QCOMPARE(seen[4], v == &h1 ? 0 : seen[4]);
        }
    }

    // 30 requests 0.1 s apart (t = 0 .. 2.9 s), defaults L = C = 10, W = 10 s, r = 1/s, two nodes
    // round robin: node 0 takes the even requests (0, 0.2, .., 2.8 s), node 1 the odd ones. Every
    // admission lies within 2.9 s < W, so max_in_window equals the admitted total.
    //
    // The single limiter, for reference: fixed/log/counter admit requests 0..9; a bucket holds
    // 10 - 0.9k tokens before request k, so 0..10 pass (10 finds exactly 1.0), then one token
    // is back at 2.0 s: 0..10 and 20, 12 in all.
    void twoNodes_data()
    {
        QTest::addColumn<ClusterConfig>("cc");
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<Counts>("admitted"); // indices of the admitted requests
        QTest::addColumn<Counts>("perNode");
        using A = Algorithm;
        using C = Coordination;
        // local: each node has the full limit. The window limiters admit 10 per node: 20 = 2L,
        // overshoot 2.0. A node's bucket sees 15 requests 0.2 s apart, 10 - 0.8k tokens before
        // its k-th: k = 0..11 pass (11 finds 1.2), then 0.4, 0.6, 0.8: 12 per node, 24 in all.
        for (A a : {A::FixedWindow, A::SlidingWindowLog, A::SlidingWindowCounter})
            QTest::addRow("local %s", algorithmId(a).data())
                << cluster(2, C::Local) << a << range(0, 19) << Counts{10, 10};
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra})
            QTest::addRow("local %s", algorithmId(a).data())
                << cluster(2, C::Local) << a << range(0, 23) << Counts{12, 12};
        // split: L = C = 5 and r = 1/2 per s per node. Windows: 5 per node. Bucket: 5 - 0.9k
        // tokens before the node's k-th request: k = 0..4 pass (4 finds 1.4, leaves 0.4), then
        // +0.1 per request: k = 10 (node 0 at exactly 2.0 s, node 1 at 2.1 s) finds exactly 1.0.
        for (A a : {A::FixedWindow, A::SlidingWindowLog, A::SlidingWindowCounter})
            QTest::addRow("split %s", algorithmId(a).data())
                << cluster(2, C::Split) << a << range(0, 9) << Counts{5, 5};
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra})
            QTest::addRow("split %s", algorithmId(a).data())
                << cluster(2, C::Split) << a << join(range(0, 9), {20, 21}) << Counts{6, 6};
        // shared: the single limiter, whatever the node.
        for (A a : {A::FixedWindow, A::SlidingWindowLog, A::SlidingWindowCounter})
            QTest::addRow("shared %s", algorithmId(a).data())
                << cluster(2, C::Shared) << a << range(0, 9) << Counts{5, 5};
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra})
            QTest::addRow("shared %s", algorithmId(a).data())
                << cluster(2, C::Shared) << a << join(range(0, 10), {20}) << Counts{7, 5};
        // racy, latency 0.35 s: j is visible to i iff 0.1j + 0.35 <= 0.1i, i.e. j <= i - 4, so
        // each request misses the last 3 admissions. Windows: i admitted while the visible count
        // i - 3 < 10: 0..12, 13 = L + 3. (The store replays the 11th..13th admissions into a
        // full window: refused there, so the count stays 10 and everything later is denied.)
        for (A a : {A::FixedWindow, A::SlidingWindowLog, A::SlidingWindowCounter})
            QTest::addRow("racy %s", algorithmId(a).data())
                << cluster(2, C::Racy, 35 * kTenth / 10) << a << range(0, 12) << Counts{7, 6};
        // Buckets: before the store has refused anything, the view of i holds
        // 10 + 0.1i - (i - 3) tokens: i = 0..13 pass (13 finds 1.3). The store replays j at
        // 0.1j: j = 0..10 fit (10 - 0.9j >= 1), 11..13 are refused (0.1 .. 0.3 tokens). So i = 14
        // finds 11 spent: 0.4; then 0.5 .. 0.9 for i = 15..19 (14..16 were denied, nothing to
        // replay); i = 20 finds exactly 1.0, and 21, 22, 23 do not yet see 20: 1.1, 1.2, 1.3. The
        // store takes 20 at 2.0 s (1.0 -> 0) and refuses 21..23, so 24..29 find 0.4 .. 0.9.
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra})
            QTest::addRow("racy %s", algorithmId(a).data())
                << cluster(2, C::Racy, 35 * kTenth / 10) << a << join(range(0, 13), range(20, 23)) << Counts{9, 9};
        // hybrid, sync 1.5 s: before the tick at 1.5 s each node counts alone: all 15 requests
        // (node 0: 8, node 1: 7) pass, 1.5 L. At the tick a node becomes the replay of those 15:
        // windows refuse the replays past 10, so the count is 10 and everything later is denied.
        for (A a : {A::FixedWindow, A::SlidingWindowLog, A::SlidingWindowCounter})
            QTest::addRow("hybrid %s", algorithmId(a).data())
                << cluster(2, C::Hybrid, 0, 15 * kTenth) << a << range(0, 14) << Counts{8, 7};
        // Buckets: the replay of 0..14 at 0.1j keeps 0..10 and leaves 0.4 tokens at 1.4 s. Node
        // 1 at 1.5, 1.7, 1.9 s finds 0.5, 0.7, 0.9; node 0 at 1.6, 1.8 finds 0.6, 0.8 and at
        // 2.0 s exactly 1.0 (request 20). Node 1 does not see it until the tick at 3.0 s: at
        // 2.1 s it finds 1.1 (request 21). Then node 0: 0.2, 0.4, 0.6, 0.8 and node 1: 0.3 .. 0.9.
        for (A a : {A::TokenBucket, A::LeakyBucket, A::LeakyBucketQueue, A::Gcra})
            QTest::addRow("hybrid %s", algorithmId(a).data())
                << cluster(2, C::Hybrid, 0, 15 * kTenth) << a << join(range(0, 14), {20, 21}) << Counts{9, 8};
    }

    void twoNodes()
    {
        QFETCH(ClusterConfig, cc);
        QFETCH(Algorithm, algorithm);
        QFETCH(Counts, admitted);
        QFETCH(Counts, perNode);
        const RowRun r = runCluster(LimiterConfig{}, cc, algorithm, uniform(30, kTenth));
        QCOMPARE(allowedIndices(r), admitted);
        QCOMPARE(r.perNodeAllowed, perNode);
        QCOMPARE(r.metrics.allowed, std::int64_t(admitted.size()));
        QCOMPARE(r.metrics.denied, std::int64_t(30 - admitted.size()));
        QCOMPARE(r.metrics.maxInWindow, std::int64_t(admitted.size()));
        QCOMPARE(r.metrics.overshoot, double(admitted.size()) / 10.0);
        for (std::size_t i = 0; i < r.log.size(); ++i)
            QCOMPARE(int(r.log[i].node), int(i % 2));
    }

    void skewMovesANodeIntoTheNextWindow()
    {
        // 20 requests at once at 9.5 s, two nodes round robin, node 1 runs 0.5 s ahead: its
        // clock reads 10.0 s, the next fixed window.
        const std::vector<Nanos> burst(20, 95 * kTenth);
        // local: node 0 admits 10 in window 0, node 1 10 in window 1: 20.
        const RowRun local = runCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, kSecond / 2),
                                        Algorithm::FixedWindow, burst);
        QCOMPARE(local.perNodeAllowed, (Counts{10, 10}));
        QCOMPARE(local.handed[0], 95 * kTenth);
        QCOMPARE(local.handed[1], 10 * kSecond);
        // shared: request 0 (node 0) is handed 9.5 s, request 1 (node 1) 10 s, and from then on
        // the store never goes back: node 0's 9.5 s is handed as 10 s. So one admission in window
        // 0 and ten in window 1 (requests 1..10); 11..19 are denied until the window after,
        // retry_after = W - 0 = 10 s on the store clock.
        const RowRun shared = runCluster(LimiterConfig{}, cluster(2, Coordination::Shared, 0, 0, kSecond / 2),
                                         Algorithm::FixedWindow, burst);
        QCOMPARE(allowedIndices(shared), range(0, 10));
        QCOMPARE(shared.perNodeAllowed, (Counts{6, 5}));
        QCOMPARE(shared.handed[0], 95 * kTenth);
        for (std::size_t i = 1; i < burst.size(); ++i)
            QCOMPARE(shared.handed[i], 10 * kSecond);
        QCOMPARE(shared.log[11].decision().retryAfter, 10 * kSecond);
        // Measured on true time all 11 lie at 9.5 s.
        QCOMPARE(shared.metrics.maxInWindow, std::int64_t(11));
    }

    void storeClockNeverGoesBack()
    {
        // Token bucket, C = 1, r = 1/s, three nodes with skew 2 s: offsets 0, 1, 2 s. Requests at
        // 0, 0.5, 1, 1.5 s go to nodes 0, 1, 2, 0: clocks 0, 1.5, 3, 1.5 s. Shared hands 0, 1.5,
        // 3, 3 s: the first takes the token, 1.5 s finds it back (1 s later), 3 s too, and the
        // last, at 3 s on the store, finds 0 and must wait 1 s.
        const LimiterConfig one = LimiterConfig::make(1, kSecond);
        const std::vector<Nanos> t{0, 5 * kTenth, kSecond, 15 * kTenth};
        const RowRun r = runCluster(one, cluster(3, Coordination::Shared, 0, 0, 2 * kSecond),
                                    Algorithm::TokenBucket, t);
        QCOMPARE(r.handed, (std::vector<Nanos>{0, 15 * kTenth, 3 * kSecond, 3 * kSecond}));
        QCOMPARE(allowedIndices(r), (Counts{0, 1, 2}));
        QCOMPARE(r.log[3].decision().retryAfter, kSecond);
        // local hands each node its own clock: node 0's 1.5 s finds its token (taken at 0) back.
        const RowRun local = runCluster(one, cluster(3, Coordination::Local, 0, 0, 2 * kSecond),
                                        Algorithm::TokenBucket, t);
        QCOMPARE(local.handed, (std::vector<Nanos>{0, 15 * kTenth, 3 * kSecond, 15 * kTenth}));
        QCOMPARE(allowedIndices(local), (Counts{0, 1, 2, 3}));
    }

    void racyLatencyOfTheWholeStreamAdmitsEverything()
    {
        // Nothing ever reaches the store in time: every request sees an empty one.
        const RowRun r = runCluster(LimiterConfig{}, cluster(3, Coordination::Racy, 100 * kSecond),
                                    Algorithm::SlidingWindowLog, uniform(50, kTenth));
        QCOMPARE(r.metrics.allowed, std::int64_t(50));
        QCOMPARE(r.metrics.maxInWindow, std::int64_t(50));
        QCOMPARE(r.log[49].remaining, std::int32_t(9));
    }

    void clockPastTheEndOfTimeIsRefused()
    {
        const std::vector<Nanos> t{kMaxNanos - 5};
        QVERIFY_THROWS_EXCEPTION(InputError, runCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, 10),
                                                        Algorithm::Gcra, t));
        QCOMPARE(runCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, 5), Algorithm::Gcra, t)
                     .metrics.allowed,
                 std::int64_t(1));
    }
};

QTEST_APPLESS_MAIN(TestCluster)
#include "tst_cluster.moc"
