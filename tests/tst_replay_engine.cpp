// Replay is the engine, key by key: over random scenarios, replaying a log of the
// scenario's requests, each request's client its key, decides every request as the engine does
// with a limiter per client and no retries (the log holds the retries): the same algorithm,
// config, costs and layers, and the same max_in_window. RATELAB_PROPERTY_SEEDS sets the seeds.
#include "arithmetic/decimal.h"
#include "engine/engine.h"
#include "limiters/nginx_limit_req.h"
#include "property_seeds.h"
#include "random_layer.h"
#include "replay/replay.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

using Random = ratelab::test::RandomLayer;

// Requests are a log's worth: times, each one's key (a client) and cost.
struct Requests {
    std::vector<Nanos> times;
    std::vector<std::int64_t> clientOf;
    std::vector<std::int64_t> costs; // empty: all 1
    std::int64_t keys = 1;
};

Requests requests(Random& r)
{
    Requests q;
    q.keys = 1 + r.below(5);
    Nanos at = 0;
    for (int i = 0, n = 1 + int(r.below(60)); i < n; ++i) {
        q.times.push_back(at);
        q.clientOf.push_back(r.below(q.keys));
        at += r.below(9) * kSecond / 8;
    }
    if (r.below(2))
        for (std::size_t i = 0; i < q.times.size(); ++i)
            q.costs.push_back(1 + r.below(3));
    return q;
}

Traffic logOf(const Requests& q)
{
    Traffic t;
    t.times = q.times;
    for (std::int64_t c : q.clientOf)
        t.keys.push_back(std::uint32_t(c));
    t.costs = q.costs;
    for (std::int64_t k = 0; k < q.keys; ++k)
        t.keyNames.push_back("client-" + std::to_string(k));
    return t;
}

// place draws where the keys' state lives: one server, or a cluster of 1 to 4 nodes in any
// coordination, the buckets full or empty at the start.
ReplayPlace place(Random& r)
{
    ReplayPlace p;
    p.startEmpty = r.below(3) == 0;
    p.seed = 1 + r.below(1000);
    if (r.below(2)) {
        ClusterConfig::Options o;
        o.nodes = 1 + int(r.below(4));
        o.balancer = kAllBalancers[r.below(kAllBalancers.size())];
        o.coordination = kAllCoordinations[r.below(kAllCoordinations.size())];
        if (o.coordination == Coordination::Racy)
            o.latencyNanos = r.below(5) * kSecond / 4;
        if (o.coordination == Coordination::Hybrid)
            o.syncNanos = (1 + r.below(4)) * kSecond / 2;
        o.seed = p.seed;
        p.cluster = ClusterConfig::make(o);
    }
    return p;
}

RowRun engineRun(const std::vector<Layer>& layers, const Requests& q, const ReplayPlace& at = {})
{
    EngineSetup setup;
    setup.layers = layers;
    setup.cluster = at.cluster;
    setup.startEmpty = at.startEmpty;
    setup.seed = at.seed;
    ClientOptions o;
    o.clients = q.keys;
    o.key = KeyMode::Client;
    o.retry = RetryPolicy::None;
    setup.clients = ClientConfig::make(o);
    return runRow(setup, {q.times, q.costs, q.clientOf});
}

// sameDecisions compares the engine's log (one attempt per request, no retries) with replay's
// admitted bytes, request by request.
void sameDecisions(const RowRun& engine, const std::vector<std::uint8_t>& admitted, const QByteArray& where)
{
    QCOMPARE(engine.log.size(), admitted.size());
    for (std::size_t i = 0; i < engine.log.size(); ++i) {
        const LoggedAttempt& a = engine.log[i];
        QVERIFY2(bool(a.allowed) == bool(admitted.at(a.request)),
                 where + " request " + QByteArray::number(qulonglong(a.request)));
    }
}

bool nginxCanRun(const Layer& l)
{
    if (l.algorithm != Algorithm::NginxLimitReq)
        return true;
    try {
        (void)nginxRateThousandths(l.config.rate());
        return true;
    } catch (const InputError&) {
        return false;
    }
}

} // namespace

class TestReplayEngine : public QObject {
    Q_OBJECT
private slots:
    void oneAlgorithmKeyByKey()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            if (!nginxCanRun(layer))
                continue;
            const Requests q = requests(r);
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed)) + " "
                                     + QByteArray(algorithmId(layer.algorithm).data());
            const RowRun engine = engineRun({layer}, q);
            std::vector<std::uint8_t> admitted;
            const ReplayRow row = replayOne(logOf(q), layer.algorithm, layer.config, 1, &admitted);
            sameDecisions(engine, admitted, where);
            QCOMPARE(row.allowed, engine.metrics.allowed);
            QVERIFY2(row.maxInWindow == engine.metrics.maxInWindow, where);
        }
    }

    // Placed on a cluster or started empty, replay runs on the engine's keyed store: each key's
    // decisions are compare's with a client per key.
    void placedKeyByKey()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            const Layer layer = r.layer();
            if (!nginxCanRun(layer))
                continue;
            const ReplayPlace at = place(r);
            if (at.cluster && at.cluster->coordination() == Coordination::Split) // r / N must be exact
                try {
                    (void)splitConfig(layer.config, at.cluster->nodes());
                } catch (const InputError&) {
                    continue;
                }
            const Requests q = requests(r);
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed)) + " "
                                     + QByteArray(algorithmId(layer.algorithm).data());
            const RowRun engine = engineRun({layer}, q, at);
            std::vector<std::uint8_t> admitted;
            const ReplayRow row = replayOne(logOf(q), layer.algorithm, layer.config, 1, &admitted, nullptr, at);
            sameDecisions(engine, admitted, where);
            QVERIFY2(row.maxInWindow == engine.metrics.maxInWindow, where);
        }
    }

    void layersKeyByKey()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            Random r(seed);
            std::vector<Layer> layers;
            for (int l = 0, n = 2 + int(r.below(2)); l < n; ++l)
                layers.push_back(r.layer());
            if (!std::all_of(layers.begin(), layers.end(), nginxCanRun))
                continue;
            const Requests q = requests(r);
            const QByteArray where = "seed " + QByteArray::number(qulonglong(seed));
            const RowRun engine = engineRun(layers, q);
            std::vector<std::uint8_t> admitted;
            const ReplayRow row =
                replayLayered(logOf(q), layers, layers.front().config.windowNanos(), 1, &admitted);
            sameDecisions(engine, admitted, where);
            QCOMPARE(row.allowed, engine.metrics.allowed);
            QVERIFY2(row.maxInWindow == engine.metrics.maxInWindow, where);
        }
    }
};

QTEST_GUILESS_MAIN(TestReplayEngine)
#include "tst_replay_engine.moc"
