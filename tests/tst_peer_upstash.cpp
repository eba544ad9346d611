// Peer test of upstash_ratelimit: @upstash/ratelimit 2.2.0 itself (peers/upstash_peer.js) on the
// test's private redis-server, its clock faked to the arrival times, against the model on the
// same seeded traffic: every decision, `remaining` and `reset` agrees, with and without the
// ephemeral cache, for fixedWindow, slidingWindow and tokenBucket, with costs (the package's
// `rate`) on one seed. Registered as peer_upstash
// (label "peer"): a missing node or package skips, unless RATELAB_PEERS=1 (.ci/run installs them).
#include "peer_node.h"
#include "redis_client.h"

#include "limiters/limiters.h"
#include "limiters/products/product.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

// traffic returns n arrival times in whole milliseconds from the seed: runs at one instant, short
// gaps and long ones (up to longGapMs), so windows turn over, buckets refill and keys expire.
std::vector<Nanos> traffic(std::uint64_t seed, int n, std::int64_t shortGapMs, std::int64_t longGapMs)
{
    std::mt19937_64 random(seed);
    std::vector<Nanos> times;
    std::int64_t t = std::int64_t(random() % 100'000);
    while (int(times.size()) < n) {
        const std::uint64_t kind = random() % 10;
        t += kind < 3 ? 0 : kind < 8 ? std::int64_t(random() % std::uint64_t(shortGapMs)) : std::int64_t(random() % std::uint64_t(longGapMs));
        times.push_back(t * kMs);
    }
    return times;
}

struct Peer {
    std::vector<std::pair<std::string, std::string>> options; // the model's
    QStringList args;                                         // upstash_peer.js's after the socket
    std::int64_t shortGapMs;
    std::int64_t longGapMs;
};

} // namespace

class TestPeerUpstash : public QObject {
    Q_OBJECT
private slots:
    void upstash()
    {
        const test::NodePeers node = test::findNode({"@upstash/ratelimit", "ioredis", "@sinonjs/fake-timers"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        std::string why;
        const auto redis = test::startPrivateRedis(&why);
        if (!redis)
            PEER_MISSING(QString::fromStdString(why));
        const QString socket = QString::fromStdString(redis->address()).mid(int(std::strlen("unix:")));

        // GRAIN and OFFSET: the grid of the TTLs each script sets (window; window * 2 + 1000; a
        // whole number of intervals), on which the adapter recovers them from PTTL.
        const std::vector<Peer> peers = {
            {{{"limiter", "fixedWindow"}, {"tokens", "5"}, {"window", "1 s"}}, {"1000", "0", "fixedWindow", "5", "1 s"}, 300, 3000},
            {{{"limiter", "slidingWindow"}, {"tokens", "10"}, {"window", "10 s"}}, {"10000", "1000", "slidingWindow", "10", "10 s"}, 900, 25000},
            {{{"limiter", "slidingWindow"}, {"tokens", "4"}, {"window", "1500ms"}}, {"1500", "1000", "slidingWindow", "4", "1500ms"}, 300, 4000},
            {{{"limiter", "tokenBucket"}, {"refillRate", "2"}, {"interval", "1 s"}, {"maxTokens", "5"}}, {"1000", "0", "tokenBucket", "2", "1 s", "5"}, 300, 6000},
            {{{"limiter", "tokenBucket"}, {"refillRate", "1"}, {"interval", "700ms"}, {"maxTokens", "3"}}, {"700", "0", "tokenBucket", "1", "700ms", "3"}, 300, 3000},
        };
        for (const Peer& peer : peers)
            for (const bool cache : {true, false})
                for (const std::uint64_t seed : {1, 2, 3}) {
                    const std::vector<Nanos> times = traffic(seed, 600, peer.shortGapMs, peer.longGapMs);
                    // Seed 3: costs 1 to 3 (a fixed draw per request), the package's limit(id, {rate}).
                    std::vector<std::int64_t> costs(times.size(), 1);
                    if (seed == 3)
                        for (std::size_t i = 0; i < costs.size(); ++i)
                            costs[i] = 1 + std::int64_t((i * 7 + i / 3) % 3);
                    std::vector<ProductOption> options;
                    for (const auto& [name, value] : peer.options)
                        options.push_back({name, value});
                    options.push_back({"ephemeralCache", cache ? "true" : "false"});
                    UpstashRatelimit model(LimiterConfig{}.withProductOptions(options));
                    QByteArray input;
                    for (std::size_t i = 0; i < times.size(); ++i)
                        input += QByteArray::number(qint64(times[i] / kMs)) + ' ' + QByteArray::number(qint64(costs[i])) + '\n';
                    QString error;
                    const QStringList theirs =
                        node.run("upstash_peer.js", QStringList{socket, cache ? "1" : "0"} + peer.args, input, error);
                    QVERIFY2(error.isEmpty(), qPrintable(error));
                    QCOMPARE(theirs.size(), qsizetype(times.size()));
                    for (std::size_t i = 0; i < times.size(); ++i) {
                        const Decision d = model.decide(times[i], costs[i]);
                        // The decision's own remaining and reset (from t, in whole ms: t is whole ms).
                        const Nanos reset = times[i] + model.reset(times[i]);
                        const QString mine = QStringLiteral("%1 %2 %3").arg(d.allowed ? 1 : 0).arg(d.remaining).arg(reset / kMs);
                        QVERIFY2(mine == theirs[qsizetype(i)],
                                 qPrintable(QStringLiteral("%1 cache %2 seed %3: request %4 at %5 ms: model '%6', package '%7'")
                                                .arg(peer.args.mid(2).join(' ')).arg(cache).arg(seed).arg(i)
                                                .arg(times[i] / kMs).arg(mine, theirs[qsizetype(i)])));
                    }
                }
    }
};

QTEST_GUILESS_MAIN(TestPeerUpstash)
#include "tst_peer_upstash.moc"
