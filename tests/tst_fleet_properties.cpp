// Seeded properties of fleets and storms (semantics.md, "Fleets and storms"), over random
// algorithms, clusters and traffic (RATELAB_PROPERTY_SEEDS, default 200): a node joining at 0 is a
// node that was there all along; an outage no attempt meets changes nothing; a local fallback during
// an outage decides the outage's attempts as a local cluster of just those attempts does.
#include "engine/engine.h"
#include "property_seeds.h"
#include "random_layer.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

struct Random : ratelab::test::RandomLayer {
    using RandomLayer::RandomLayer;

    std::vector<Nanos> arrivals(int most)
    {
        std::vector<Nanos> t;
        Nanos at = 0;
        for (int i = 0, n = 1 + int(below(most)); i < n; ++i) {
            t.push_back(at);
            at += below(9) * kSecond / 8;
        }
        return t;
    }
    ClusterConfig::Options cluster()
    {
        ClusterConfig::Options o;
        o.nodes = int(1 + below(4));
        o.balancer = kAllBalancers[std::size_t(below(3))];
        o.coordination = kAllCoordinations[std::size_t(below(5))];
        o.latencyNanos = o.coordination == Coordination::Racy ? below(3) * kSecond / 4 : 0;
        o.syncNanos = o.coordination == Coordination::Hybrid ? (1 + below(4)) * kSecond / 4 : 0;
        o.seed = rng();
        return o;
    }
};

void sameDecisions(const RowRun& a, const RowRun& b, const QByteArray& where)
{
    QVERIFY2(a.log.size() == b.log.size(), where);
    for (std::size_t i = 0; i < a.log.size(); ++i)
        QVERIFY2(a.log[i].allowed == b.log[i].allowed && a.log[i].wait == b.log[i].wait && a.log[i].node == b.log[i].node,
                 where + " attempt " + QByteArray::number(qulonglong(i)));
}

RowRun run(const Layer& layer, const ClusterConfig::Options& o, const std::vector<Nanos>& t,
           std::optional<ClientConfig> clients = std::nullopt, std::vector<std::int64_t> clientOf = {})
{
    EngineSetup s;
    s.layers = {layer};
    s.cluster = ClusterConfig::make(o);
    s.clients = std::move(clients);
    return runRow(s, {t, {}, clientOf});
}

} // namespace

class TestFleetProperties : public QObject {
    Q_OBJECT
private slots:
    void aJoinAtZeroIsANodeThereAllAlong()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            const std::vector<Nanos> t = r.arrivals(30);
            ClusterConfig::Options o = r.cluster();
            const RowRun always = run(layer, o, t);
            o.joins = {{int(r.below(o.nodes)), 0}};
            sameDecisions(always, run(layer, o, t), "seed " + QByteArray::number(qulonglong(seed)));
        }
    }

    // Autoscaling from N to N nodes is a cluster of N nodes: nobody comes or goes.
    void autoscalingWithNoRoomIsAFixedCluster()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            const std::vector<Nanos> t = r.arrivals(30);
            ClusterConfig::Options o = r.cluster();
            const RowRun fixed = run(layer, o, t);
            o.autoscaleMin = o.autoscaleMax = o.nodes;
            o.scaleAt = Rate::reduced(1 + r.below(5), kSecond);
            sameDecisions(fixed, run(layer, o, t), "seed " + QByteArray::number(qulonglong(seed)));
        }
    }

    // An outage between two attempts (of a shared store, every fallback) changes no decision: the
    // store comes back as it was when it went down, and nobody asked it meanwhile. The same
    // outage moved onto the next attempt with nodes failing closed denies that attempt, so the
    // outage is really there (the property cannot hold by the outage being dropped).
    void anOutageNoAttemptMeetsChangesNothing()
    {
        int outages = 0;
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            const std::vector<Nanos> t = r.arrivals(30);
            ClusterConfig::Options o = r.cluster();
            o.coordination = Coordination::Shared;
            o.latencyNanos = o.syncNanos = 0;
            std::vector<std::size_t> gaps; // i with t[i] < t[i + 1]
            for (std::size_t i = 0; i + 1 < t.size(); ++i)
                if (t[i + 1] - t[i] > 1)
                    gaps.push_back(i);
            if (gaps.empty())
                continue;
            const std::size_t i = gaps[std::size_t(r.below(std::int64_t(gaps.size())))];
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed));
            const RowRun up = run(layer, o, t);
            o.outageFromNanos = t[i] + 1;
            o.outageToNanos = t[i + 1]; // back at t[i + 1]: that attempt finds the store up
            o.fallback = kAllFallbacks[std::size_t(r.below(3))];
            sameDecisions(up, run(layer, o, t), where);
            o.outageFromNanos = t[i + 1];
            o.outageToNanos = t[i + 1] + 1;
            o.fallback = Fallback::Closed;
            const RowRun down = run(layer, o, t);
            for (std::size_t k = 0; k < down.log.size(); ++k)
                if (down.log[k].t == t[i + 1])
                    QVERIFY2(!down.log[k].allowed, where + " attempt " + QByteArray::number(qulonglong(k)));
            ++outages;
        }
        QVERIFY(outages > 0);
    }

    // Clients on one global key with no retries, sent to nodes by the hash of the client (so a
    // run of fewer requests sends each to the same node): the attempts inside [T1, T2) on a store
    // failing over to local limiters decide as a local cluster of those attempts alone, whose
    // limiters, idle until T1, are as new there as the fallback's.
    void aLocalFallbackIsALocalClusterOverTheOutage()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            const std::vector<Nanos> t = r.arrivals(40);
            ClusterConfig::Options o = r.cluster();
            if (o.coordination == Coordination::Local || o.coordination == Coordination::Split)
                o.coordination = Coordination::Shared;
            o.latencyNanos = o.coordination == Coordination::Racy ? o.latencyNanos : 0;
            o.syncNanos = o.coordination == Coordination::Hybrid ? kSecond / 2 : 0;
            o.balancer = Balancer::Hash;
            o.outageFromNanos = r.below(8) * kSecond / 2;
            o.outageToNanos = o.outageFromNanos + (1 + r.below(8)) * kSecond / 2;
            o.fallback = Fallback::Local;
            const std::int64_t k = 1 + r.below(6);
            ClientOptions co;
            co.clients = k;
            co.key = KeyMode::Global;
            const ClientConfig clients = ClientConfig::make(co);
            std::vector<std::int64_t> clientOf;
            for (std::size_t i = 0; i < t.size(); ++i)
                clientOf.push_back(r.below(k));
            const RowRun whole = run(layer, o, t, clients, clientOf);

            std::vector<Nanos> span; // the outage's attempts, at their times: a new limiter idle until T1 is new at T1
            std::vector<std::int64_t> spanClients;
            std::vector<std::size_t> index;
            for (std::size_t i = 0; i < t.size(); ++i)
                if (t[i] >= o.outageFromNanos && t[i] < o.outageToNanos) {
                    span.push_back(t[i]);
                    spanClients.push_back(clientOf[i]);
                    index.push_back(i);
                }
            if (span.empty())
                continue;
            ClusterConfig::Options local = o;
            local.coordination = Coordination::Local;
            local.latencyNanos = local.syncNanos = 0;
            local.outageFromNanos = local.outageToNanos = 0;
            const RowRun part = run(layer, local, span, clients, spanClients);
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed));
            for (std::size_t j = 0; j < span.size(); ++j) {
                const LoggedAttempt &a = whole.log[index[j]], &b = part.log[j];
                QVERIFY2(a.allowed == b.allowed && a.wait == b.wait && a.node == b.node,
                         where + " attempt " + QByteArray::number(qulonglong(index[j])));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFleetProperties)
#include "tst_fleet_properties.moc"
