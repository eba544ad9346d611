// `ratelab compare` with the cluster options and `ratelab lua`, run as the real executable.
#include "cli_run.h"

#include <QJsonArray>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace clitest;

namespace {

QJsonArray sequence(const QJsonObject& doc, const char* algorithm)
{
    return doc["results"].toObject()[algorithm].toObject()["sequence"].toArray();
}

QList<int> perNode(const QJsonObject& doc, const char* algorithm)
{
    QList<int> out;
    for (const QJsonValue& v : doc["results"].toObject()[algorithm].toObject()["cluster"].toObject()["per_node_allowed"].toArray())
        out << v.toInt();
    return out;
}

} // namespace

class TestCliCluster : public QObject {
    Q_OBJECT
private slots:
    // --buckets-start empty: the token bucket of 4 per 4 s starts with no token, so requests at
    // 0, 0.5, ..., 2.5 s pass only at 1 s and 2 s; the input says so, and a saved scenario keeps
    // it. A value other than full or empty exits 2 with one line.
    void bucketsStartEmpty()
    {
        const QStringList args{"compare", "--algorithms", "token_bucket", "--limit", "4", "--window", "4", "--n", "6",
                               "--delay", "0.5"};
        const Run r = runRatelab(args + QStringList{"--buckets-start", "empty"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        QCOMPARE(doc["input"].toObject()["buckets_start"].toString(), QString("empty"));
        QList<bool> allowed;
        for (const QJsonValue& v : sequence(doc, "token_bucket"))
            allowed << v.toObject()["allowed"].toBool();
        QCOMPARE(allowed, (QList<bool>{false, false, true, false, true, false}));
        QVERIFY(!runRatelab(args).out.contains("buckets_start"));
        QTemporaryDir dir;
        const QString saved = dir.filePath("s.json");
        QCOMPARE(runRatelab(args + QStringList{"--buckets-start", "empty", "--save-scenario", saved}).code, 0);
        QFile f(saved);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("\"buckets_start\": \"empty\""));
        const Run bad = runRatelab(args + QStringList{"--buckets-start", "half"});
        QCOMPARE(bad.code, 2);
        QCOMPARE(bad.err, QByteArray("ratelab: --buckets-start: expected full or empty (got 'half')\n"));
    }

    // --change 3:limit=8 on 4 per 4 s (requests every 0.5 s): the fixed window admits 3 s and
    // 3.5 s under the new limit (count 5, 6 of 8); the input lists the change; bad ones exit 2.
    void limitChange()
    {
        const QStringList args{"compare", "--algorithms", "fixed_window", "--limit", "4", "--window", "4", "--n", "8",
                               "--delay", "0.5"};
        const Run r = runRatelab(args + QStringList{"--change", "3:limit=8"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        QCOMPARE(doc["input"].toObject()["changes"].toArray().first().toString(), QString("3:limit=8"));
        QList<bool> allowed;
        for (const QJsonValue& v : sequence(doc, "fixed_window"))
            allowed << v.toObject()["allowed"].toBool();
        QCOMPARE(allowed, (QList<bool>{true, true, true, true, false, false, true, true}));
        const Run bad = runRatelab(args + QStringList{"--change", "3:limit=0"});
        QCOMPARE(bad.code, 2);
        QCOMPARE(bad.err, QByteArray("ratelab: --change '3:limit=0': limit: must be at least 1 (got 0)\n"));
        const Run product = runRatelab({"compare", "--algorithms", "traefik", "--change", "1:limit=3"});
        QCOMPARE(product.code, 2);
        QVERIFY2(product.err.contains("traefik keeps its own configuration"), product.err.constData());
    }

    // --autoscale 1:4 --scale-at 5: 40 requests 0.05 s apart; second 0 holds 20 attempts, so 4
    // nodes are up from 1 s: JSON lists the scaling; nodes takes MAX; bad values exit 2.
    void autoscale()
    {
        const Run r = runRatelab({"compare", "--algorithms", "token_bucket", "--limit", "5", "--window", "1", "--n", "40",
                                  "--delay", "0.05", "--coordination", "local", "--autoscale", "1:4", "--scale-at", "5"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        const QJsonObject cluster = doc["results"].toObject()["token_bucket"].toObject()["cluster"].toObject();
        QCOMPARE(cluster["nodes"].toInt(), 4);
        const QJsonArray scaling = cluster["scaling"].toArray();
        QCOMPARE(scaling.size(), 2);
        QCOMPARE(scaling[1].toObject()["at"].toDouble(), 1.0);
        QCOMPARE(scaling[1].toObject()["nodes"].toInt(), 4);
        const Run bad = runRatelab({"compare", "--autoscale", "1:4", "--nodes", "3"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--nodes 3: --autoscale 1:4 runs up to 4 nodes"), bad.err.constData());
    }

    void defaultOutputHasNoCluster()
    {
        const Run r = runRatelab({"compare", "--n", "5"});
        QCOMPARE(r.code, 0);
        QVERIFY(!r.out.contains("cluster"));
        QVERIFY(!r.out.contains("\"node\""));
        const Run csv = runRatelab({"compare", "--n", "5", "--format", "csv"});
        QVERIFY(csv.out.startsWith("algorithm,t,allowed,delay,remaining,retry_after,level\n"));
    }

    // 30 requests 0.1 s apart over two in-memory nodes, round robin: each node admits its own 10
    // (fixed window) or 12 (token bucket: 10 - 0.8k tokens before its k-th request), so the
    // cluster admits 2L = 20 and 24 (tst_cluster derives both).
    void localTwoNodesAdmitTwiceTheLimit()
    {
        const Run r = runRatelab({"compare", "--n", "30", "--nodes", "2", "--coordination", "local", "--algorithms",
                                  "fixed_window,token_bucket"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        const QJsonObject fixed = doc["results"].toObject()["fixed_window"].toObject();
        QCOMPARE(fixed["allowed"].toInt(), 20);
        QCOMPARE(fixed["max_in_window"].toInt(), 20);
        QCOMPARE(fixed["overshoot"].toDouble(), 2.0);
        QCOMPARE(fixed["cluster"].toObject()["nodes"].toInt(), 2);
        QCOMPARE(fixed["cluster"].toObject()["coordination"].toString(), QString("local"));
        QCOMPARE(perNode(doc, "fixed_window"), (QList<int>{10, 10}));
        QCOMPARE(perNode(doc, "token_bucket"), (QList<int>{12, 12}));
        const QJsonArray seq = sequence(doc, "fixed_window");
        QCOMPARE(seq.size(), 30);
        for (int i = 0; i < seq.size(); ++i)
            QCOMPARE(seq[i].toObject()["node"].toInt(), i % 2);
    }

    // A scenario file's "cluster" and "clients" run exactly as the options do.
    void aFilesClusterAndClientsRunAsTheOptions()
    {
        QTemporaryDir dir;
        const auto file = [&](const char* name, const QByteArray& extra) {
            const QString path = dir.filePath(name);
            QFile f(path);
            const QByteArray json = R"({"format": "ratelab-scenario", "version": 1, "limit": 5, "window": "10",
                "algorithms": ["fixed_window", "token_bucket"], "pattern": {"kind": "poisson", "n": 40, "lambda": "3",
                "seed": 7}, )" + extra + "}";
            return f.open(QIODevice::WriteOnly) && f.write(json) == json.size() ? path : QString();
        };
        const QString cluster = file("c.json", R"("cluster": {"nodes": 3, "balancer": "random", "coordination": "racy", "latency": "0.2"})");
        const Run a = runRatelab({"compare", "--scenario", cluster});
        const Run b = runRatelab({"compare", "--scenario", cluster, "--nodes", "3", "--balancer", "random",
                                  "--coordination", "racy", "--latency", "0.2"});
        QCOMPARE(a.code, 0);
        QVERIFY(a.out.contains("\"per_node_allowed\""));
        QCOMPARE(a.out, b.out);

        const QString clients = file("k.json", R"("clients": {"clients": 3, "retry": "backoff", "max_retries": 4})");
        const Run c = runRatelab({"compare", "--scenario", clients});
        const Run d = runRatelab({"compare", "--scenario", clients, "--clients", "3", "--retry", "backoff",
                                  "--max-retries", "4"});
        QCOMPARE(c.code, 0);
        QVERIFY(c.out.contains("\"amplification\""));
        QCOMPARE(c.out, d.out);
    }

    void csvHasANodeColumn()
    {
        const Run r = runRatelab({"compare", "--n", "3", "--nodes", "3", "--algorithms", "gcra", "--format", "csv"});
        QCOMPARE(r.code, 0);
        QCOMPARE(QString::fromUtf8(r.out),
                 QString("algorithm,t,allowed,delay,remaining,retry_after,level,node\n"
                         "gcra,0,true,0,9,0,1.0,0\n"
                         "gcra,0.1,true,0,8,0,1.9,1\n"
                         "gcra,0.2,true,0,7,0,2.8,2\n"));
    }

    // Through a private redis-server, the decisions are those of --coordination shared.
    void redisBackendEqualsShared()
    {
        const QStringList common{"compare", "--pattern", "poisson", "--n", "80", "--lambda", "3", "--limit", "3", "--window", "7",
                                 "--nodes", "3", "--skew", "0.25", "--balancer", "random"};
        const Run sim = runRatelab(common);
        const Run redis = runRatelab(common + QStringList{"--backend", "redis"});
        if (redis.code == 2 && redis.err.contains("built without hiredis"))
            QSKIP("this ratelab was built without hiredis, so it has no Redis backend to compare");
        QCOMPARE(sim.code, 0);
        QVERIFY2(redis.code == 0, redis.err.constData());
        for (const char* a : {"fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket",
                              "leaky_bucket", "leaky_bucket_queue", "gcra"})
            for (const char* key : {"allowed", "remaining", "retry_after", "delay", "level", "node"}) {
                QCOMPARE(rawValues(sim.out, a, key).size(), 80);
                QCOMPARE(rawValues(redis.out, a, key), rawValues(sim.out, a, key));
            }
    }

    void badCombinationsExit2WithOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("sync without hybrid") << QStringList{"--nodes", "2", "--sync", "0.1"}
                                             << "ratelab: --sync: applies only to --coordination hybrid (got shared)\n";
        QTest::newRow("hybrid without sync") << QStringList{"--coordination", "hybrid"}
                                             << "ratelab: --coordination hybrid needs --sync SECONDS\n";
        QTest::newRow("negative latency") << QStringList{"--coordination", "racy", "--latency", "-0.5"}
                                          << "ratelab: --latency: must not be negative (got -0.5)\n";
        QTest::newRow("latency without racy") << QStringList{"--latency", "0.5"}
                                              << "ratelab: --latency: applies only to --coordination racy (got shared)\n";
        QTest::newRow("65 nodes") << QStringList{"--nodes", "65"} << "ratelab: --nodes: must be at most 64 (got 65)\n";
        QTest::newRow("unknown coordination")
            << QStringList{"--coordination", "magic"}
            << "ratelab: --coordination: unknown coordination 'magic' (known: local, split, shared, racy, hybrid)\n";
        QTest::newRow("redis without backend") << QStringList{"--redis", "unix:/x"}
                                               << "ratelab: --redis: applies only to --backend redis\n";
        QTest::newRow("redis not shared") << QStringList{"--backend", "redis", "--coordination", "split"}
                                          << "ratelab: --backend redis: Redis runs coordination shared (one atomic script a decision); this "
                                             "scenario is split\n";
        QTest::newRow("unreachable redis")
            << QStringList{"--backend", "redis", "--redis", "unix:/nonexistent/redis.sock"}
            << "ratelab: redis at unix:/nonexistent/redis.sock: cannot connect: No such file or directory\n";
        QTest::newRow("outside the domain")
            << QStringList{"--backend", "redis", "--algorithms", "fixed_window", "--n", "1", "--start", "9007199.254740992"}
            << "ratelab: redis backend: fixed_window would form the time in ns = 9007199254740992, at or above 2^53 = "
               "9007199254740992, where its Lua script (doubles) is no longer exact\n";
    }

    void badCombinationsExit2WithOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const Run r = runRatelab(QStringList{"compare"} + args);
        QCOMPARE(r.code, 2);
        QCOMPARE(QString::fromUtf8(r.err), error);
        QVERIFY(r.out.isEmpty());
    }

    void luaPrintsEachScript()
    {
        for (const char* a : {"fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket",
                              "leaky_bucket", "leaky_bucket_queue", "gcra"}) {
            const Run r = runRatelab({"lua", a});
            QCOMPARE(r.code, 0);
            QVERIFY(r.out.startsWith(QByteArray("-- RateLab ") + a + ":"));
            QVERIFY(r.out.contains("2^53"));
            QVERIFY(r.out.contains("return {allowed"));
        }
        const Run bad = runRatelab({"lua", "nope"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.startsWith("ratelab: lua: unknown algorithm 'nope'"));
        QCOMPARE(runRatelab({"lua"}).code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliCluster)
#include "tst_cli_cluster.moc"
