// Every feature together through the real scripts: clients that retry, a cluster's
// nodes and clocks, cost, layers and headers, run through the Lua scripts on a private
// redis-server the test starts itself, decide exactly as the simulation's shared store; one Redis
// key per (limiter key, layer), all gone when the run ends; File > Check against Redis counts
// retries and names what it still cannot run.
#include "engine/engine.h"
#include "redis_check.h"
#include "redis_client.h"
#include "redis_test.h"
#include "redis_run.h"
#include "report/report_run.h"
#include "scenario/rows.h"

#include <QProcess>
#include <QTest>

using namespace ratelab;
using namespace ratelab::io;
using ratelab::test::RedisClient;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

struct Output {
    int code = -1;
    QByteArray out, err;
};

Output runRatelab(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(RATELAB_BIN), args);
    if (!p.waitForFinished(120000))
        return {};
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace

class TestRedisCombined : public RedisTest {
    Q_OBJECT

    long long keys() { return (*m_c)({"DBSIZE"}).integer; }

private slots:
    void initTestCase() { startRedis(); }
    void cleanupTestCase() { stopRedis(); }

    // `compare --backend redis` writes the simulation's bytes for each combination: the engine
    // asks Redis every layer it asks and stops at the first answer that differs, so equal bytes
    // mean every one of these decisions was Redis's too. Each case has retries (more attempts
    // than requests) or layers, so the combination is really exercised.
    void combinedRunsEqualShared_data()
    {
        QTest::addColumn<QStringList>("args");
        const QStringList base{"--n", "40", "--delay", "0.05", "--limit", "5", "--window", "2"};
        QTest::newRow("clients, retry_after") << base + QStringList{"--clients", "3", "--retry", "retry_after"};
        QTest::newRow("clients, backoff, one global key")
            << base + QStringList{"--clients", "4", "--retry", "backoff", "--key", "global", "--jitter", "equal"};
        QTest::newRow("cohorts on 3 skewed nodes")
            << base + QStringList{"--clients", "6", "--cohort", "3:immediate", "--cohort", "3:retry_after", "--nodes", "3",
                                  "--skew", "0.01", "--balancer", "random"};
        QTest::newRow("cost and layers")
            << base + QStringList{"--cost", "2", "--layer", "token_bucket:capacity=6,rate=3", "--layer",
                                  "sliding_window_log:limit=20,window=10"};
        QTest::newRow("everything, with headers")
            << base + QStringList{"--clients", "4", "--retry", "backoff", "--nodes", "3", "--skew", "0.01", "--cost", "2",
                                  "--layer", "gcra:capacity=6,rate=3", "--layer", "sliding_window_counter:limit=20,window=10",
                                  "--headers"};
        QTest::newRow("a node joins, clients hashed")
            << base + QStringList{"--clients", "5", "--retry", "retry_after", "--nodes", "3", "--balancer", "hash", "--join",
                                  "2@1"};
    }

    void combinedRunsEqualShared()
    {
        QFETCH(QStringList, args);
        args = QStringList{"compare", "--format", "csv"} + args;
        const Output simulated = runRatelab(args);
        QVERIFY2(simulated.code == 0, simulated.err.constData());
        const Output redis = runRatelab(args + QStringList{"--backend", "redis", "--redis", QString::fromStdString(m_redis->address())});
        QVERIFY2(redis.code == 0, redis.err.constData());
        QVERIFY(redis.err.isEmpty());
        const QList<QByteArray> lines = simulated.out.split('\n');
        const bool layered = args.contains("--layer"), retried = args.contains("--retry") || args.contains("--cohort");
        QVERIFY(!layered || simulated.out.contains("\nlayered,"));
        if (retried) { // some attempt after the first: the column after client
            bool any = false;
            for (const QByteArray& line : lines)
                any = any || (line.split(',').size() > 3 && line.split(',')[3].toInt() > 0);
            QVERIFY2(any, "no retry in this case");
        }
        QCOMPARE(redis.out, simulated.out);
        QCOMPARE(keys(), 0LL);
    }

    // The keys: one per (limiter key, layer) while the run lasts, under the run's own prefix, and
    // none after. Three clients with their own keys, a token bucket of 10 then a sliding window
    // log of 20 in 10 s, six requests at 0 (two a client, all admitted): 3 x 2 keys, and the log's
    // entries under a key of their own: 9.
    void oneKeyPerClientAndLayer()
    {
        EngineSetup s;
        s.layers = {{Algorithm::TokenBucket, LimiterConfig::make(10, 10 * kSecond)},
                    {Algorithm::SlidingWindowLog, LimiterConfig::make(20, 10 * kSecond)}};
        ClientOptions o;
        o.clients = 3;
        s.clients = ClientConfig::make(o);
        RedisStore store(m_redis->address());
        const std::vector<Nanos> t(6, 0);
        std::vector<std::string> names;
        {
            RedisRun run(store, "keys");
            s.external = run.asker();
            const RowRun r = runRow(s, {t, {}, {}});
            QCOMPARE(r.metrics.allowed, 6);
            const ratelab::test::RedisReply listed = (*m_c)({"KEYS", "*"});
            for (const auto& e : listed.elements)
                names.push_back(e.text);
            run.finish();
        }
        QCOMPARE(names.size(), std::size_t(9));
        for (const std::string& n : names)
            QVERIFY2(n.rfind("{ratelab:", 0) == 0 && n.find(":keys.client-") != std::string::npos, n.c_str());
        QCOMPARE(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.find(":layer2") != std::string::npos; }),
                 6);
        QCOMPARE(keys(), 0LL);
    }

    // A check counts attempts, retries included. One client honouring retry_after, a fixed window
    // of 1 a second, two requests at 0: the first passes, the second is denied until 1 s and its
    // retry passes then: 3 decisions of 2 requests.
    void checkCountsRetries()
    {
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow};
        s.config = LimiterConfig::make(1, kSecond);
        s.explicitArrivals = std::vector<Nanos>{0, 0};
        ClientOptions o;
        o.retry = RetryPolicy::RetryAfter;
        s.clients = ClientConfig::make(o);
        QCOMPARE(redisDecisions(s), std::size_t(2));
        RedisProgress progress;
        const RedisCheck r = checkAgainstRedis(s, m_redis->address(), &progress);
        QVERIFY2(r.agreed, qPrintable(r.summary));
        QCOMPARE(progress.total.load(), std::size_t(3));
        QCOMPARE(progress.done.load(), std::size_t(3));
        QVERIFY2(r.summary.contains("3 attempts (2 requests)"), qPrintable(r.summary));
    }

    // File > Check against Redis on a combination: a racy cluster of clients with layers checks
    // its shared variant, and says so.
    void checkRunsCombinations()
    {
        Scenario s;
        s.algorithms = {Algorithm::TokenBucket, Algorithm::SlidingWindowCounter};
        s.layers = {{Algorithm::FixedWindow, LimiterConfig::make(4, kSecond)}, {Algorithm::Gcra, LimiterConfig::make(8, 4 * kSecond)}};
        ClientOptions o;
        o.clients = 3;
        o.retry = RetryPolicy::Backoff;
        s.clients = ClientConfig::make(o);
        s.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Racy, kSecond / 100, 0, 0, 1});
        s.cost = 2;
        const RedisCheck r = checkAgainstRedis(s, m_redis->address());
        QVERIFY2(r.agreed, qPrintable(r.summary));
        QVERIFY2(r.summary.contains("checked the shared variant") && r.summary.contains("x 3 rows"), qPrintable(r.summary));
        QCOMPARE(keys(), 0LL);
    }

    // What still cannot run through the scripts is refused with its reason, the same words on the
    // command line and in the app, before any key is written.
    void refusalsNameTheirReason_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("nginx") << QStringList{"--algorithms", "nginx_limit_req"} << "nginx_limit_req has no Lua script";
        QTest::newRow("a product") << QStringList{"--algorithms", "traefik"} << "traefik has no Lua script";
        QTest::newRow("an nginx layer") << QStringList{"--layer", "nginx_limit_req:capacity=3,rate=1"}
                                        << "a layer: nginx_limit_req has no Lua script";
        QTest::newRow("a limit change") << QStringList{"--change", "1:limit=4"} << "limit changes are not run through Redis";
        QTest::newRow("an outage") << QStringList{"--nodes", "2", "--outage", "1:2"} << "a store outage is modelled";
        QTest::newRow("empty buckets") << QStringList{"--buckets-start", "empty"} << "buckets that start empty";
        QTest::newRow("local nodes") << QStringList{"--nodes", "2", "--coordination", "local"} << "this scenario is local";
    }

    // A run whose store fails after the first row leaves stdout empty: the rows are printed only
    // once every row has run. The store here lets the scripts touch only the fixed
    // window's keys (a Redis ACL), so the first row runs and the token bucket's is refused.
    void aStoreThatFailsMidwayPrintsNothing()
    {
        std::string why;
        const auto redis = ratelab::test::startPrivateRedis(&why);
        QVERIFY2(redis, why.c_str());
        RedisClient c(redis->address());
        const ratelab::test::RedisReply acl = c({"ACL", "SETUSER", "default", "resetkeys", "~*fixed_window*"});
        QVERIFY2(!acl.error, acl.text.c_str());
        const QStringList run{"compare", "--backend", "redis", "--redis", QString::fromStdString(redis->address()),
                              "--algorithms", "fixed_window,token_bucket", "--n", "5", "--format", "csv"};
        const Output o = runRatelab(run);
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("NOPERM") && o.err.count('\n') == 1, o.err.constData());
        QVERIFY2(o.out.isEmpty(), o.out.constData());
        // The same run on fixed_window alone passes: the failure above was the second row's.
        const Output first = runRatelab(QStringList(run.begin(), run.end() - 5)
                                        + QStringList{"fixed_window", "--n", "5", "--format", "csv"});
        QVERIFY2(first.code == 0, first.err.constData());
        QCOMPARE(first.out.count('\n'), 6);
    }

    void refusalsNameTheirReason()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const Output o = runRatelab(QStringList{"compare", "--backend", "redis", "--redis",
                                             QString::fromStdString(m_redis->address())} + args);
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains(reason.toUtf8()) && o.err.count('\n') == 1, o.err.constData());
        QVERIFY(o.out.isEmpty());
        QCOMPARE(keys(), 0LL);
    }
};

QTEST_GUILESS_MAIN(TestRedisCombined)
#include "tst_redis_combined.moc"
