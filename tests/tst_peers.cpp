// Peer tests: each product model against the product itself, decision for decision, on seeded
// random traffic. The product runs in its own language (Node, Python, Java, Go) with its clock
// replaced by the arrival times, as its own tests do; where no registry here holds the product
// (Envoy, Kong, redis-cell, Spring Cloud Gateway), against a transcription of its deciding code
// (peers/transcribed.h). Registered as one ctest per peer (peer_*, label "peer").
//
// A missing runtime or package skips the test, unless RATELAB_PEERS=1 (set by .ci/run, which
// installs them): then it fails. The npm packages are looked for in RATELAB_PEERS_DIR/node_modules
// (the build tree's peers/ by default).
#include "limiters/any_limiter.h"
#include "limiters/limiters.h"
#include "peer_node.h"
#include "peers/transcribed.h"
#include "limiters/products/product.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using namespace ratelab;

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

constexpr Nanos ms(std::int64_t n) { return n * 1'000'000; }
constexpr Nanos sec(std::int64_t n) { return n * kNanosPerSecond; }

LimiterConfig with(const Options& options)
{
    std::vector<ProductOption> out;
    for (const auto& [name, value] : options)
        out.push_back({name, value});
    return LimiterConfig{}.withProductOptions(std::move(out));
}

// traffic returns n arrival times from the seed: runs of requests at one instant, short gaps
// and long ones (up to `longGap`), each time a multiple of `grain` ns.
std::vector<Nanos> traffic(std::uint64_t seed, int n, Nanos shortGap, Nanos longGap, Nanos grain)
{
    std::mt19937_64 random(seed);
    std::vector<Nanos> times;
    Nanos t = 0;
    while (int(times.size()) < n) {
        const std::uint64_t kind = random() % 10;
        const Nanos gap = kind < 3 ? 0 : kind < 8 ? Nanos(random() % std::uint64_t(shortGap)) : Nanos(random() % std::uint64_t(longGap));
        t += gap / grain * grain;
        times.push_back(t);
    }
    return times;
}

struct Verdict {
    bool allowed = false;
    Nanos delay = 0;
};

std::vector<Verdict> model(Algorithm a, const LimiterConfig& config, const std::vector<Nanos>& times)
{
    AnyLimiter l = makeLimiter(a, config);
    std::vector<Verdict> out;
    for (Nanos t : times) {
        const Decision d = l.decide(t);
        out.push_back({d.allowed, d.delay});
    }
    return out;
}

// compare returns the first decision where the peer's output line differs from the model's.
QString compare(const std::vector<Nanos>& times, const std::vector<Verdict>& mine, const QStringList& theirs,
                bool withDelay)
{
    if (qsizetype(times.size()) != theirs.size())
        return QStringLiteral("the peer answered %1 of %2 requests").arg(theirs.size()).arg(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        const QString want = mine[i].allowed ? (withDelay ? QStringLiteral("1 %1").arg(mine[i].delay) : "1") : "0";
        if (theirs[qsizetype(i)].trimmed() != want)
            return QStringLiteral("request %1 at t = %2 ns: the model says '%3', the product '%4'")
                .arg(i).arg(times[i]).arg(want, theirs[qsizetype(i)]);
    }
    return {};
}

QByteArray lines(const std::vector<Nanos>& times, Nanos unit)
{
    QByteArray out;
    for (Nanos t : times)
        out += QByteArray::number(qint64(t / unit)) + '\n';
    return out;
}

// seconds writes t as exact decimal seconds, as Python's float() reads it (correctly rounded,
// as the model's double(t) / 1e9 is).
QByteArray secondsLines(const std::vector<Nanos>& times)
{
    QByteArray out;
    for (Nanos t : times)
        out += QByteArray::number(qint64(t / kNanosPerSecond)) + '.'
             + QByteArray::number(qint64(t % kNanosPerSecond)).rightJustified(9, '0') + '\n';
    return out;
}

constexpr int kRequests = 3000;
// Runs: a seed and a grain. Fine times (1 ns) test the products' truncations; coarse ones (50 ms,
// 100 ms) land requests exactly one window or interval apart, where `<` and `<=` part.
struct RunSpec {
    std::uint64_t seed;
    Nanos grain;
};
constexpr RunSpec kRuns[] = {{1, 1}, {2, 1}, {3, 50'000'000}, {4, 100'000'000}};

} // namespace

class TestPeers : public QObject {
    Q_OBJECT
private slots:
    void express()
    {
        const test::NodePeers node = test::findNode({"express-rate-limit"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        const std::pair<int, int> configs[] = {{1000, 5}, {250, 1}, {60000, 40}};
        for (const auto& [windowMs, limit] : configs)
            for (const auto& [seed, grain] : kRuns) {
                const auto times = traffic(seed, kRequests, ms(300), sec(3), grain);
                const LimiterConfig c = with({{"windowMs", std::to_string(windowMs)}, {"limit", std::to_string(limit)}});
                QString error;
                const QStringList theirs =
                    node.run("express_peer.js", {QString::number(windowMs), QString::number(limit)}, lines(times, ms(1)), error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                const QString problem = compare(times, model(Algorithm::ExpressRateLimit, c, times), theirs, false);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("windowMs %1 limit %2 seed %3: ")
                                                            .arg(windowMs).arg(limit).arg(seed) + problem));
            }
    }

    void flexible()
    {
        const test::NodePeers node = test::findNode({"rate-limiter-flexible"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        const std::array<int, 3> configs[] = {{5, 1, 0}, {3, 2, 5}, {10, 1, 1}, {2, 0, 0}};
        for (const auto& [points, duration, block] : configs)
            for (const auto& [seed, grain] : kRuns) {
                const auto times = traffic(seed, kRequests, ms(300), sec(4), grain);
                const LimiterConfig c = with({{"points", std::to_string(points)}, {"duration", std::to_string(duration)},
                                              {"blockDuration", std::to_string(block)}});
                QString error;
                const QStringList theirs = node.run(
                    "flexible_peer.js", {QString::number(points), QString::number(duration), QString::number(block)},
                    lines(times, ms(1)), error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                const QString problem = compare(times, model(Algorithm::RateLimiterFlexible, c, times), theirs, false);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("points %1 duration %2 block %3 seed %4: ")
                                                            .arg(points).arg(duration).arg(block).arg(seed) + problem));
            }
    }

    void limiter()
    {
        const test::NodePeers node = test::findNode({"limiter"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        const std::pair<int, int> configs[] = {{5, 1000}, {2, 300}, {30, 60000}, {3, 7}};
        for (const auto& [tokens, interval] : configs)
            for (const auto& [seed, grain] : kRuns) {
                const auto times = traffic(seed, kRequests, ms(300), sec(3), grain);
                const LimiterConfig c = with({{"tokensPerInterval", std::to_string(tokens)}, {"interval", std::to_string(interval)}});
                QByteArray input; // milliseconds as exact decimals: JavaScript's Number() rounds as t / 1e6 does
                for (Nanos t : times)
                    input += QByteArray::number(qint64(t / 1'000'000)) + '.'
                           + QByteArray::number(qint64(t % 1'000'000)).rightJustified(6, '0') + '\n';
                QString error;
                const QStringList theirs =
                    node.run("limiter_peer.js", {QString::number(tokens), QString::number(interval)}, input, error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                const QString problem = compare(times, model(Algorithm::NodeLimiter, c, times), theirs, false);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("tokensPerInterval %1 interval %2 seed %3: ")
                                                            .arg(tokens).arg(interval).arg(seed) + problem));
            }
    }

    void limits()
    {
        const QString python = QStringLiteral("/usr/bin/python3");
        QString error;
        if (!QFileInfo::exists(python) || (test::runPeer(python, {"-c", "import limits"}, {}, error), !error.isEmpty()))
            PEER_MISSING("Debian's python3-limits is not installed");
        const char* strategies[] = {"fixed-window", "fixed-window-elastic-expiry", "moving-window"};
        const char* items[] = {"5/second", "3 per 2 seconds", "20 per minute"};
        for (const char* strategy : strategies)
            for (const char* item : items)
                for (const auto& [seed, grain] : kRuns) {
                    const auto times = traffic(seed, kRequests, ms(300), sec(3), grain);
                    const LimiterConfig c = with({{"strategy", strategy}, {"limit", item}});
                    const QStringList theirs =
                        test::runPeer(python, {test::peerSource("limits_peer.py"), strategy, item}, secondsLines(times), error);
                    QVERIFY2(error.isEmpty(), qPrintable(error));
                    const QString problem = compare(times, model(Algorithm::PythonLimits, c, times), theirs, false);
                    QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("%1 %2 seed %3: ").arg(strategy, item).arg(seed) + problem));
                }
    }

    void guava()
    {
        const QString javac = QStandardPaths::findExecutable("javac");
        const QString java = QStandardPaths::findExecutable("java");
        const QString jar = QStringLiteral("/usr/share/java/guava.jar");
        if (javac.isEmpty() || java.isEmpty())
            PEER_MISSING("javac/java are not installed");
        if (!QFileInfo::exists(jar))
            PEER_MISSING("Debian's libguava-java is not installed (" + jar + ")");
        QTemporaryDir classes;
        QString error;
        test::runPeer(javac, {"-d", classes.path(), "-cp", jar, test::peerSource("GuavaPeer.java")}, {}, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const char* rates[] = {"2", "5.5", "0.7", "100", "3.3333"};
        for (const char* pps : rates)
            for (const auto& [seed, grain] : kRuns) {
                const auto times = traffic(seed, kRequests, ms(400), sec(3), grain);
                const LimiterConfig c = with({{"permitsPerSecond", pps}});
                const QStringList theirs =
                    test::runPeer(java, {"-cp", jar + ":" + classes.path(), "com.google.common.util.concurrent.GuavaPeer", pps},
                                  lines(times, 1000), error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                const QString problem = compare(times, model(Algorithm::Guava, c, times), theirs, false);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("permitsPerSecond %1 seed %2: ").arg(pps).arg(seed) + problem));
            }
    }

    void traefik()
    {
        const QString go = QStandardPaths::findExecutable("go");
        if (go.isEmpty())
            PEER_MISSING("go is not installed (Debian's golang-go)");
        if (!QFileInfo::exists("/usr/share/gocode/src/golang.org/x/time/rate/rate.go"))
            PEER_MISSING("Debian's golang-golang-x-time-dev is not installed");
        QTemporaryDir work;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("GOPATH", "/usr/share/gocode");
        env.insert("GO111MODULE", "off");
        env.insert("GOCACHE", work.path() + "/cache");
        env.insert("HOME", work.path());
        const QString binary = work.path() + "/traefik_peer";
        QString error;
        test::runPeer(go, {"build", "-o", binary, test::peerSource("traefik_peer.go")}, {}, error, env);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        struct Config {
            int average;
            Nanos period;
            int burst;
        };
        const Config configs[] = {{6, sec(60), 1}, {100, sec(1), 10}, {5, sec(1), 3}, {0, sec(1), 4}, {7, ms(1500), 2}};
        for (const Config& k : configs)
            for (const auto& [seed, grain] : kRuns) {
                const auto times = traffic(seed, kRequests, ms(200), sec(12), grain);
                const LimiterConfig c = with({{"average", std::to_string(k.average)},
                                              {"period", std::to_string(k.period) + "ns"},
                                              {"burst", std::to_string(k.burst)}});
                const QStringList theirs = test::runPeer(
                    binary, {QString::number(k.average), QString::number(k.period), QString::number(k.burst)}, lines(times, 1), error);
                QVERIFY2(error.isEmpty(), qPrintable(error));
                const QString problem = compare(times, model(Algorithm::Traefik, c, times), theirs, true);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("average %1 period %2 burst %3 seed %4: ")
                                                            .arg(k.average).arg(k.period).arg(k.burst).arg(seed) + problem));
            }
    }

    // The products no registry holds, against their transcribed deciding code.
    void transcribed()
    {
        for (const RunSpec& run : kRuns) {
            // A named copy, not a structured binding: clang before 16 does not let the lambda
            // below capture a binding.
            const auto seed = run.seed;
            const auto times = traffic(seed, 20000, ms(120), sec(4), run.grain);
            const auto agree = [&](Algorithm a, const LimiterConfig& c, auto peer, const char* what) {
                const std::vector<Verdict> mine = model(a, c, times);
                for (std::size_t i = 0; i < times.size(); ++i)
                    if (peer.request(times[i]) != mine[i].allowed)
                        return QStringLiteral("%1 seed %2: request %3 at %4 ns: model %5")
                            .arg(what).arg(seed).arg(i).arg(times[i]).arg(mine[i].allowed);
                return QString();
            };
            QString p = agree(Algorithm::EnvoyLocal, with({{"max_tokens", "5"}, {"tokens_per_fill", "2"}, {"fill_interval", "0.3s"}}),
                              peers::EnvoyTranscribed(300, 5, 2), "envoy 5/2/300ms");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::EnvoyLocal, with({{"max_tokens", "3"}, {"tokens_per_fill", "15"}, {"fill_interval", "1s"}}),
                      peers::EnvoyTranscribed(1000, 3, 15), "envoy 3/15/1s");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            const std::int64_t minute[6] = {3, 20, 0, 0, 0, 0};
            p = agree(Algorithm::Kong, with({{"second", "3"}, {"minute", "20"}}), peers::KongTranscribed(minute), "kong 3/s 20/min");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            const std::int64_t hour[6] = {0, 0, 100, 500, 0, 0};
            p = agree(Algorithm::Kong, with({{"hour", "100"}, {"day", "500"}}), peers::KongTranscribed(hour), "kong 100/h 500/d");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::RedisCell, with({{"max_burst", "15"}, {"count_per_period", "30"}, {"period", "60"}}),
                      peers::RedisCellTranscribed(15, 30, 60), "redis-cell 15 30 60");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::RedisCell, with({{"max_burst", "2"}, {"count_per_period", "7"}, {"period", "3"}}),
                      peers::RedisCellTranscribed(2, 7, 3), "redis-cell 2 7 3");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::SpringGateway, with({{"replenishRate", "3"}, {"burstCapacity", "7"}}),
                      peers::SpringTranscribed(3, 7, 1), "spring 3/7");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::SpringGateway, with({{"replenishRate", "2"}, {"burstCapacity", "9"}, {"requestedTokens", "2"}}),
                      peers::SpringTranscribed(2, 9, 2), "spring 2/9/2");
            QVERIFY2(p.isEmpty(), qPrintable(p));
            p = agree(Algorithm::SpringGateway, with({{"replenishRate", "10"}, {"burstCapacity", "4"}}),
                      peers::SpringTranscribed(10, 4, 1), "spring 10/4 (off)");
            QVERIFY2(p.isEmpty(), qPrintable(p));
        }
    }
};

QTEST_GUILESS_MAIN(TestPeers)
#include "tst_peers.moc"
