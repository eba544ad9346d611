// The cluster simulation: hand-derived tables for each coordination, and property tests over
// seeded random streams (RATELAB_PROPERTY_SEEDS, default 200), including a brute-force replay of
// the visibility rule exactly as semantics.md states it.
#include "property_seeds.h"
#include "engine/cluster.h"
#include "arithmetic/decimal.h"
#include "limiters/limiters.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;
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

Counts allowedIndices(const ClusterTrace& r)
{
    Counts out;
    for (std::size_t i = 0; i < r.trace.decisions.size(); ++i)
        if (r.trace.decisions[i].allowed)
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

// ---- property-test streams (the generator of tst_properties, trimmed) ----

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
    bool chance(int percent) { return in(0, 99) < percent; }
    double unit() { return double(g() >> 11) * 0x1.0p-53; }
};

struct Case {
    std::uint64_t seed = 0;
    LimiterConfig config;
    std::vector<Nanos> arrivals;
    ClusterConfig::Options cluster; // nodes, balancer, skew, seed, latency, sync drawn; coordination set by the test
};

Case makeCase(std::uint64_t seed, std::size_t maxRequests = 200)
{
    Rng r(seed * 0x9E3779B97F4A7C15ull + 7);
    Case c;
    c.seed = seed;
    const std::int64_t limit = r.in(1, 12);
    const Nanos window = r.chance(50) ? r.in(1, 20) * kSecond : r.in(kMilli, 5 * kSecond);
    std::optional<std::int64_t> capacity;
    if (r.chance(50))
        capacity = r.in(1, 12);
    std::optional<Rate> rate;
    if (r.chance(50))
        rate = Rate{r.in(1, 20), r.chance(50) ? r.in(1, 20) * kSecond : r.in(kMilli, 5 * kSecond)};
    c.config = LimiterConfig::make(limit, window, capacity, rate);
    const Nanos w = c.config.windowNanos();
    const auto n = std::size_t(r.in(20, std::int64_t(maxRequests)));
    Nanos t = 0;
    while (c.arrivals.size() < n) {
        switch (r.in(0, 6)) {
        case 0: case 1: case 2: t += std::llround(-std::log1p(-r.unit()) * double(w / limit)); break;
        case 3:
            for (std::int64_t k = r.in(1, 12); k > 0 && c.arrivals.size() + 1 < n; --k)
                c.arrivals.push_back(t);
            break;
        case 4: t += r.chance(50) ? 1 : w; break;
        case 5: t = (t / w + 1) * w - (r.chance(50) ? 1 : 0); break;
        default: break;
        }
        c.arrivals.push_back(t);
    }
    ClusterConfig::Options& o = c.cluster;
    o.nodes = int(r.in(1, 6));
    o.balancer = kAllBalancers[std::size_t(r.in(0, 2))];
    o.seed = std::uint64_t(r.in(0, 1000));
    o.skewNanos = r.chance(40) ? 0 : r.chance(50) ? r.in(1, 1000) : r.in(0, 2 * w);
    o.latencyNanos = r.chance(20) ? 0 : r.in(0, w);
    o.syncNanos = r.chance(30) ? r.in(1, w) : r.in(w / 10 + 1, 3 * w);
    return c;
}

ClusterConfig withMode(ClusterConfig::Options o, Coordination mode)
{
    o.coordination = mode;
    if (mode != Coordination::Racy)
        o.latencyNanos = 0;
    if (mode != Coordination::Hybrid)
        o.syncNanos = 0;
    return ClusterConfig::make(o);
}

QByteArray describe(const Case& c)
{
    return QStringLiteral("seed %1: L=%2 W=%3ns C=%4 r=%5/%6ns, %7 requests, %8 nodes, balancer %9, skew %10ns, "
                          "latency %11ns, sync %12ns")
        .arg(c.seed).arg(c.config.limit()).arg(c.config.windowNanos()).arg(c.config.capacity())
        .arg(c.config.rate().tokens).arg(c.config.rate().perNanos).arg(c.arrivals.size()).arg(c.cluster.nodes)
        .arg(QString::fromUtf8(balancerId(c.cluster.balancer).data())).arg(c.cluster.skewNanos)
        .arg(c.cluster.latencyNanos).arg(c.cluster.syncNanos).toUtf8();
}

// forEachCase checks RATELAB_PROPERTY_SEEDS cases, at most maxSeeds (3,000 unless told: each
// case runs every algorithm in every mode of 200 requests, and CI's 20,000 seeds under the
// sanitizers would take a quarter of an hour; tst_engine's oracle covers every mode at every seed).
template <typename F>
void forEachCase(F check, std::size_t maxRequests = 200, std::uint64_t maxSeeds = 3000)
{
    const std::uint64_t seeds = std::min(propertySeeds(), maxSeeds);
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const Case c = makeCase(seed, maxRequests);
        check(c);
        if (QTest::currentTestFailed()) {
            qWarning("failing case: %s", describe(c).constData());
            return;
        }
    }
}

bool same(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.remaining == b.remaining
        && a.retryAfter == b.retryAfter && a.level == b.level;
}

#define SAME_DECISIONS(got, want, what)                                                                        \
    do {                                                                                                       \
        QCOMPARE((got).size(), (want).size());                                                                 \
        for (std::size_t i_ = 0; i_ < (got).size(); ++i_)                                                      \
            if (!same((got)[i_], (want)[i_]))                                                                  \
                QFAIL(qPrintable(QStringLiteral("%1: %2, request %3 differs (allowed %4 vs %5)")                \
                                     .arg(what, QString::fromUtf8(algorithmId(a).data())).arg(i_)               \
                                     .arg((got)[i_].allowed).arg((want)[i_].allowed)));                         \
    } while (false)

// oracle decides every request by the visibility rule literally: replay the visible admissions,
// in arrival order, on a fresh limiter, then ask about one more. It is O(n^2) and shares no code
// with simulateCluster beyond the limiters and assignNodes. Handed times, from semantics.md:
// local/split the node clock; shared/racy the store clock, max of every node clock so far;
// hybrid max(node clock, the handed times of the visible admissions). A replay never goes back:
// it is handed max(its own handed time, the replay's last time).
std::vector<Decision> oracle(Algorithm a, const LimiterConfig& config, const ClusterConfig& cc,
                             const std::vector<Nanos>& t)
{
    const auto node = assignNodes(cc, t.size());
    const LimiterConfig per = cc.coordination() == Coordination::Split ? splitConfig(config, cc.nodes()) : config;
    std::vector<Decision> out(t.size());
    std::vector<Nanos> handed(t.size());
    Nanos storeClock = std::numeric_limits<Nanos>::min();
    for (std::size_t i = 0; i < t.size(); ++i) {
        const Nanos clock = t[i] + cc.nodeOffset(node[i]);
        std::vector<std::size_t> visible;
        for (std::size_t j = 0; j < i; ++j) {
            if (!out[j].allowed)
                continue;
            bool v = false;
            switch (cc.coordination()) {
            case Coordination::Local:
            case Coordination::Split: v = node[j] == node[i]; break;
            case Coordination::Shared: v = true; break;
            case Coordination::Racy: v = t[j] + cc.latencyNanos() <= t[i]; break;
            case Coordination::Hybrid: {
                const Nanos lastTick = t[i] / cc.syncNanos() * cc.syncNanos();
                v = node[j] == node[i] || (lastTick >= cc.syncNanos() && t[j] < lastTick);
                break;
            }
            }
            if (v)
                visible.push_back(j);
        }
        storeClock = std::max(storeClock, clock);
        Nanos h = clock;
        if (cc.coordination() == Coordination::Shared || cc.coordination() == Coordination::Racy)
            h = storeClock;
        if (cc.coordination() == Coordination::Hybrid)
            for (std::size_t j : visible)
                h = std::max(h, handed[j]);
        handed[i] = h;
        out[i] = visitLimiter(a, per, [&](auto& l) {
            Nanos last = std::numeric_limits<Nanos>::min();
            for (std::size_t j : visible) {
                last = std::max(last, handed[j]);
                (void)l.decide(last);
            }
            return l.decide(std::max(h, last));
        });
    }
    return out;
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
        const ClusterTrace r = simulateCluster(LimiterConfig{}, cc, algorithm, uniform(30, kTenth));
        QCOMPARE(allowedIndices(r), admitted);
        QCOMPARE(r.perNodeAllowed, perNode);
        QCOMPARE(r.trace.metrics.allowed, std::int64_t(admitted.size()));
        QCOMPARE(r.trace.metrics.denied, std::int64_t(30 - admitted.size()));
        QCOMPARE(r.trace.metrics.maxInWindow, std::int64_t(admitted.size()));
        QCOMPARE(r.trace.metrics.overshoot, double(admitted.size()) / 10.0);
        for (std::size_t i = 0; i < r.nodes.size(); ++i)
            QCOMPARE(int(r.nodes[i]), int(i % 2));
    }

    void skewMovesANodeIntoTheNextWindow()
    {
        // 20 requests at once at 9.5 s, two nodes round robin, node 1 runs 0.5 s ahead: its
        // clock reads 10.0 s, the next fixed window.
        const std::vector<Nanos> burst(20, 95 * kTenth);
        // local: node 0 admits 10 in window 0, node 1 10 in window 1: 20.
        const ClusterTrace local = simulateCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, kSecond / 2),
                                                   Algorithm::FixedWindow, burst);
        QCOMPARE(local.perNodeAllowed, (Counts{10, 10}));
        QCOMPARE(local.handed[0], 95 * kTenth);
        QCOMPARE(local.handed[1], 10 * kSecond);
        // shared: request 0 (node 0) is handed 9.5 s, request 1 (node 1) 10 s, and from then on
        // the store never goes back: node 0's 9.5 s is handed as 10 s. So one admission in window
        // 0 and ten in window 1 (requests 1..10); 11..19 are denied until the window after,
        // retry_after = W - 0 = 10 s on the store clock.
        const ClusterTrace shared = simulateCluster(LimiterConfig{}, cluster(2, Coordination::Shared, 0, 0, kSecond / 2),
                                                    Algorithm::FixedWindow, burst);
        QCOMPARE(allowedIndices(shared), range(0, 10));
        QCOMPARE(shared.perNodeAllowed, (Counts{6, 5}));
        QCOMPARE(shared.handed[0], 95 * kTenth);
        for (std::size_t i = 1; i < burst.size(); ++i)
            QCOMPARE(shared.handed[i], 10 * kSecond);
        QCOMPARE(shared.trace.decisions[11].retryAfter, 10 * kSecond);
        // Measured on true time all 11 lie at 9.5 s.
        QCOMPARE(shared.trace.metrics.maxInWindow, std::int64_t(11));
    }

    void storeClockNeverGoesBack()
    {
        // Token bucket, C = 1, r = 1/s, three nodes with skew 2 s: offsets 0, 1, 2 s. Requests at
        // 0, 0.5, 1, 1.5 s go to nodes 0, 1, 2, 0: clocks 0, 1.5, 3, 1.5 s. Shared hands 0, 1.5,
        // 3, 3 s: the first takes the token, 1.5 s finds it back (1 s later), 3 s too, and the
        // last, at 3 s on the store, finds 0 and must wait 1 s.
        const LimiterConfig one = LimiterConfig::make(1, kSecond);
        const std::vector<Nanos> t{0, 5 * kTenth, kSecond, 15 * kTenth};
        const ClusterTrace r = simulateCluster(one, cluster(3, Coordination::Shared, 0, 0, 2 * kSecond),
                                               Algorithm::TokenBucket, t);
        QCOMPARE(r.handed, (std::vector<Nanos>{0, 15 * kTenth, 3 * kSecond, 3 * kSecond}));
        QCOMPARE(allowedIndices(r), (Counts{0, 1, 2}));
        QCOMPARE(r.trace.decisions[3].retryAfter, kSecond);
        // local hands each node its own clock: node 0's 1.5 s finds its token (taken at 0) back.
        const ClusterTrace local = simulateCluster(one, cluster(3, Coordination::Local, 0, 0, 2 * kSecond),
                                                   Algorithm::TokenBucket, t);
        QCOMPARE(local.handed, (std::vector<Nanos>{0, 15 * kTenth, 3 * kSecond, 15 * kTenth}));
        QCOMPARE(allowedIndices(local), (Counts{0, 1, 2, 3}));
    }

    void racyLatencyOfTheWholeStreamAdmitsEverything()
    {
        // Nothing ever reaches the store in time: every request sees an empty one.
        const ClusterTrace r = simulateCluster(LimiterConfig{}, cluster(3, Coordination::Racy, 100 * kSecond),
                                               Algorithm::SlidingWindowLog, uniform(50, kTenth));
        QCOMPARE(r.trace.metrics.allowed, std::int64_t(50));
        QCOMPARE(r.trace.metrics.maxInWindow, std::int64_t(50));
        QCOMPARE(r.trace.decisions[49].remaining, std::int32_t(9));
    }

    void clockPastTheEndOfTimeIsRefused()
    {
        const std::vector<Nanos> t{kMaxNanos - 5};
        QVERIFY_THROWS_EXCEPTION(InputError, simulateCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, 10),
                                                             Algorithm::Gcra, t));
        QCOMPARE(simulateCluster(LimiterConfig{}, cluster(2, Coordination::Local, 0, 0, 5), Algorithm::Gcra, t)
                     .trace.metrics.allowed,
                 std::int64_t(1));
    }

    // ---- properties over seeded random streams ----

    // Racy is left at latency 0 here: its visibility rule (t_j + latency <= t_i) does not ask
    // which node, so one node that reads, checks and writes with a round trip races with itself
    // (see racyLatencyOfTheWholeStreamAdmitsEverything); semantics.md's "with one node every mode
    // equals the single limiter" holds for racy only without latency.
    void oneNodeIsTheSingleLimiterInEveryMode()
    {
        forEachCase([](const Case& c) {
            ClusterConfig::Options o = c.cluster;
            o.nodes = 1;
            o.latencyNanos = 0;
            for (Algorithm a : kAllAlgorithms) {
                const AlgorithmTrace single = simulateOne(c.config, a, c.arrivals);
                for (Coordination mode : kAllCoordinations) {
                    const ClusterTrace r = simulateCluster(c.config, withMode(o, mode), a, c.arrivals);
                    SAME_DECISIONS(r.trace.decisions, single.decisions, QString::fromUtf8(coordinationId(mode).data()));
                    QCOMPARE(r.trace.metrics.maxInWindow, single.metrics.maxInWindow);
                    QCOMPARE(r.perNodeAllowed, Counts{single.metrics.allowed});
                }
            }
        });
    }

    void racyWithoutLatencyIsShared()
    {
        forEachCase([](const Case& c) {
            ClusterConfig::Options o = c.cluster;
            o.latencyNanos = 0;
            for (Algorithm a : kAllAlgorithms) {
                const ClusterTrace racy = simulateCluster(c.config, withMode(o, Coordination::Racy), a, c.arrivals);
                const ClusterTrace shared = simulateCluster(c.config, withMode(o, Coordination::Shared), a, c.arrivals);
                SAME_DECISIONS(racy.trace.decisions, shared.trace.decisions, "racy");
                QCOMPARE(racy.handed, shared.handed);
                QCOMPARE(racy.trace.metrics.memory.bytes, shared.trace.metrics.memory.bytes);
            }
        });
    }

    void localRoundRobinIsIndependentLimiters()
    {
        forEachCase([](const Case& c) {
            ClusterConfig::Options o = c.cluster;
            o.balancer = Balancer::RoundRobin;
            const ClusterConfig cc = withMode(o, Coordination::Local);
            const auto n = std::size_t(cc.nodes());
            for (Algorithm a : kAllAlgorithms) {
                const ClusterTrace r = simulateCluster(c.config, cc, a, c.arrivals);
                for (std::size_t node = 0; node < n; ++node) {
                    std::vector<Nanos> sub;
                    std::vector<Decision> got;
                    for (std::size_t i = node; i < c.arrivals.size(); i += n) {
                        sub.push_back(c.arrivals[i] + cc.nodeOffset(int(node)));
                        got.push_back(r.trace.decisions[i]);
                    }
                    const AlgorithmTrace alone = simulateOne(c.config, a, sub);
                    SAME_DECISIONS(got, alone.decisions, QStringLiteral("node %1").arg(node));
                    QCOMPARE(r.perNodeAllowed[node], alone.metrics.allowed);
                }
            }
        });
    }

    void everyModeIsTheVisibilityRule()
    {
        forEachCase(
            [](const Case& c) {
                for (Algorithm a : kAllAlgorithms)
                    for (Coordination mode : kAllCoordinations) {
                        const ClusterConfig cc = withMode(c.cluster, mode);
                        const ClusterTrace r = simulateCluster(c.config, cc, a, c.arrivals);
                        SAME_DECISIONS(r.trace.decisions, oracle(a, c.config, cc, c.arrivals),
                                       QString::fromUtf8(coordinationId(mode).data()));
                    }
            },
            60, 300);
    }

    void storeTimesNeverGoBackAndNeverLag()
    {
        forEachCase([](const Case& c) {
            for (Coordination mode : kAllCoordinations) {
                const ClusterConfig cc = withMode(c.cluster, mode);
                const ClusterTrace r = simulateCluster(c.config, cc, Algorithm::TokenBucket, c.arrivals);
                for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                    const Nanos clock = c.arrivals[i] + cc.nodeOffset(r.nodes[i]);
                    QVERIFY(r.handed[i] >= clock);
                    if (mode == Coordination::Local || mode == Coordination::Split)
                        QCOMPARE(r.handed[i], clock);
                    if ((mode == Coordination::Shared || mode == Coordination::Racy) && i > 0)
                        QVERIFY(r.handed[i] >= r.handed[i - 1]);
                }
            }
        });
    }

    void hybridWithoutATickIsLocal()
    {
        forEachCase([](const Case& c) {
            ClusterConfig::Options o = c.cluster;
            o.syncNanos = c.arrivals.back() + 1; // the first tick comes after the last request
            for (Algorithm a : kAllAlgorithms) {
                const ClusterTrace hybrid = simulateCluster(c.config, withMode(o, Coordination::Hybrid), a, c.arrivals);
                const ClusterTrace local = simulateCluster(c.config, withMode(o, Coordination::Local), a, c.arrivals);
                SAME_DECISIONS(hybrid.trace.decisions, local.trace.decisions, "hybrid");
            }
        });
    }
};

QTEST_APPLESS_MAIN(TestCluster)
#include "tst_cluster.moc"
