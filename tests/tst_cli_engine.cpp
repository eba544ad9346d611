// `compare` on the one engine: the decisions of every preset and of each feature are
// those frozen before it (tests/golden, written by the build before the engine); every
// combination runs; and each defect the issue names, checked through the real executable.
#include "cli_run.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace clitest;

namespace {

QString goldenDir() { return QStringLiteral(RATELAB_TESTDATA "/../golden"); }

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList argsOf(const QString& text) { return text.split(' ', Qt::SkipEmptyParts); }

QStringList csvLines(const QByteArray& out) { return QString::fromUtf8(out).split('\n', Qt::SkipEmptyParts); }

} // namespace

class TestCliEngine : public QObject {
    Q_OBJECT

private slots:
    void goldenDecisions_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("args");
        const QStringList lines = QString::fromUtf8(readAll(goldenDir() + "/cases.txt")).split('\n');
        int cases = 0;
        for (const QString& line : lines) {
            if (line.startsWith('#') || line.trimmed().isEmpty())
                continue;
            const QString name = line.section('|', 0, 0).trimmed();
            QTest::newRow(qPrintable(name)) << name << argsOf(line.section('|', 1).trimmed());
            ++cases;
        }
        QVERIFY(cases >= 30);
    }

    // Every decision identical to the frozen output: verdict, delay, remaining, retry_after,
    // level, and where present node, request, client, attempt, cost; and max_in_window and
    // overshoot where the file has them (cost4's re-derived by hand in units).
    void goldenDecisions()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, args);
        const QJsonObject want = parseJson(readAll(goldenDir() + "/" + name + ".json"));
        const Run r = runRatelab(QStringList{"compare"} + args);
        QCOMPARE(r.code, 0);
        const QJsonObject got = parseJson(r.out);
        const QJsonObject wantResults = want.value("results").toObject();
        QVERIFY(!wantResults.isEmpty());
        for (const QString& id : wantResults.keys()) {
            const QJsonObject w = wantResults.value(id).toObject(), g = got.value("results").toObject().value(id).toObject();
            QVERIFY2(!g.isEmpty(), qPrintable(id));
            for (const char* k : {"allowed", "denied", "delayed"})
                QVERIFY2(w.value(k) == g.value(k), qPrintable(id + " " + k));
            for (const char* k : {"max_in_window", "overshoot"})
                QVERIFY2(!w.contains(k) || w.value(k) == g.value(k), qPrintable(name + " " + id + " " + k));
            const QJsonArray ws = w.value("sequence").toArray(), gs = g.value("sequence").toArray();
            QCOMPARE(gs.size(), ws.size());
            for (qsizetype i = 0; i < ws.size(); ++i) {
                const QJsonObject a = ws[i].toObject(), b = gs[i].toObject();
                for (const QString& f : a.keys())
                    QVERIFY2(a.value(f) == b.value(f), qPrintable(QString("%1 %2 #%3 %4").arg(name, id).arg(i).arg(f)));
            }
        }
    }

    // Combinations that were refused run, each with the columns of its features.
    void combinationsRun_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("header");
        QTest::newRow("clients + cluster") << argsOf("--clients 3 --nodes 2")
                                           << "algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level,node";
        QTest::newRow("cluster + cost") << argsOf("--nodes 2 --cost 2")
                                        << "algorithm,t,allowed,delay,remaining,retry_after,level,cost,node";
        QTest::newRow("clients + cost") << argsOf("--clients 3 --cost 2")
                                        << "algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level,cost";
        QTest::newRow("cluster + layers") << argsOf("--nodes 2 --layer token_bucket:capacity=5,rate=1")
                                          << "algorithm,t,allowed,delay,remaining,retry_after,level,node";
        QTest::newRow("nginx + clients") << argsOf("--algorithms nginx_limit_req --rate 1 --clients 2 --retry immediate")
                                         << "algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level";
        QTest::newRow("nginx + cluster") << argsOf("--algorithms nginx_limit_req --rate 1 --nodes 2 --coordination racy")
                                         << "algorithm,t,allowed,delay,remaining,retry_after,level,node";
    }

    void combinationsRun()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, header);
        const Run r = runRatelab(QStringList{"compare", "--format", "csv"} + args);
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(csvLines(r.out).first(), header);
    }

    // Headers describe the node that decided: a token bucket of 2 per 10 s (0.2/s) on 2 local
    // nodes, one request a second. Node 1's first request (t = 1) leaves it 1 token short, full
    // again 5 s later: Reset 6 (one limiter replayed over every request said 10). With split
    // each node holds 1 of the limit of 2: Limit 1.
    void headersOfTheDecidingNode()
    {
        const Run local = runRatelab(argsOf("compare --nodes 2 --coordination local --limit 2 --n 4 --delay 1 "
                                            "--algorithms token_bucket --headers --format csv"));
        QCOMPARE(local.code, 0);
        const QStringList rows = csvLines(local.out);
        QCOMPARE(rows.size(), 5);
        QVERIFY2(rows[2].startsWith("token_bucket,1,true,0,1,0,1.0,1,2,1,6,"), qPrintable(rows[2]));
        const Run split = runRatelab(argsOf("compare --nodes 2 --coordination split --limit 2 --n 2 --delay 1 "
                                            "--algorithms token_bucket --headers --format csv"));
        QCOMPARE(csvLines(split.out)[1].split(',')[8], QString("1")); // X-RateLimit-Limit
        // clients and a preset with clients get headers too
        QCOMPARE(runRatelab(argsOf("compare --clients 2 --headers --format csv")).code, 0);
        const Run tight = runRatelab(argsOf("compare --preset tight-retry-loop --headers"));
        QCOMPARE(tight.code, 0);
        QVERIFY(tight.out.contains("\"Retry-After\""));
    }

    // An option overrides one value of the preset, never its cluster or clients as a whole.
    void optionsOverrideOnlyWhatTheyName()
    {
        const QJsonObject two = parseJson(runRatelab(argsOf("compare --preset two-servers-local --skew 0.001")).out);
        const QJsonObject cluster = two.value("input").toObject().value("cluster").toObject();
        QCOMPARE(cluster.value("nodes").toInt(), 2);
        QCOMPARE(cluster.value("coordination").toString(), QString("local"));
        QCOMPARE(cluster.value("skew").toDouble(), 0.001);
        const QJsonObject tight = parseJson(runRatelab(argsOf("compare --preset tight-retry-loop --max-retries 5")).out);
        const QJsonObject clients = tight.value("input").toObject().value("clients").toObject();
        QCOMPARE(clients.value("retry").toString(), QString("immediate"));
        QCOMPARE(clients.value("max_retries").toInt(), 5);
        QVERIFY(tight.value("results").toObject().value("fixed_window").toObject().value("clients").toObject().value("attempts").toInt() > 20);
    }

    // A `t,cost` file stays costs when client options are given; a header names other columns.
    void arrivalsColumns()
    {
        QTemporaryDir dir;
        const QString costs = dir.filePath("costs.txt");
        QFile f(costs);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("0,4\n0,4\n0,4\n");
        f.close();
        const Run r = runRatelab({"compare", "--arrivals", costs, "--clients", "2", "--key", "global",
                                  "--algorithms", "fixed_window", "--format", "csv"});
        QCOMPARE(r.code, 0);
        const QStringList rows = csvLines(r.out);
        QCOMPARE(rows[0], QString("algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level,cost"));
        QCOMPARE(rows[1], QString("fixed_window,0,0,0,0,true,0,6,0,4.0,4")); // L = 10: 4, 8, then 12 > 10
        QCOMPARE(rows[3], QString("fixed_window,2,0,0,0,false,0,2,10,8.0,4"));
    }

    // --save-scenario writes the scenario that ran, cluster and clients included, and nothing when
    // the run is refused (a good file stays as it was).
    void saveAfterTheRun()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.ratelab.json");
        QCOMPARE(runRatelab({"compare", "--nodes", "3", "--coordination", "local", "--clients", "2", "--retry",
                             "immediate", "--save-scenario", path}).code, 0);
        const QByteArray saved = readAll(path);
        QVERIFY(saved.contains("\"cluster\"") && saved.contains("\"clients\""));
        const Run again = runRatelab({"compare", "--scenario", path, "--format", "csv"});
        QCOMPARE(again.code, 0);
        QVERIFY(csvLines(again.out).first().contains("request,client,attempt") && csvLines(again.out).first().endsWith(",node"));
        // 50,000 requests retried 100 times each pass the 5,000,000 attempts: refused, nothing saved
        const Run refused = runRatelab({"compare", "--scenario", path, "--n", "50000", "--delay", "0", "--retry",
                                        "immediate", "--max-retries", "100", "--save-scenario", path});
        QCOMPARE(refused.code, 2);
        QCOMPARE(refused.out, QByteArray());
        QCOMPARE(readAll(path), saved);
    }

    // The layered row measures max_in_window over its admissions (it said 0 with 11 admitted).
    void layeredRowMeasured()
    {
        const QJsonObject o = parseJson(runRatelab(argsOf("compare --algorithms gcra --layer token_bucket")).out);
        const QJsonObject layered = o.value("results").toObject().value("layered").toObject();
        QCOMPARE(layered.value("allowed").toInt(), 11);
        QCOMPARE(layered.value("max_in_window").toInt(), 11);
        QCOMPARE(layered.value("overshoot").toDouble(), 1.1);
    }

    // max_in_window, overshoot and the bound count units (semantics.md). The edge with
    // cost 5 and the defaults (L = 10 per 10 s, C = 10 at 1/s): 10 requests at 9.9 s, 10 at 10 s.
    // fixed_window admits two of cost 5 in [0, 10 s) and two in [10 s, 20 s): (0, 10 s] holds 20
    // units: max_in_window 20, overshoot 2.0, its bound L (ceil((10 s - 1 ns) / 10 s) + 1) = 20
    // reached. token_bucket: the two at 9.9 s take its 10 tokens, 10 s holds 0.1: 10 units,
    // overshoot 1.0, bound C + floor(r (10 s - 1 ns)) = 19. In requests these were 4 (0.4) and 2.
    // The same through the streamed report, the one with headers and the engine's (buckets that
    // start empty: the token bucket then holds 9.9 at 9.9 s, takes 5, holds exactly 5 at 10 s,
    // takes 5: 10 units again).
    void costWeighsTheWindow()
    {
        for (const char* more : {"", " --headers", " --buckets-start empty"}) {
            const Run r = runRatelab(argsOf(QStringLiteral("compare --pattern edge --cost 5 --algorithms "
                                                           "fixed_window,token_bucket") + more));
            QVERIFY2(r.code == 0, r.err.constData());
            const QJsonObject results = parseJson(r.out).value("results").toObject();
            const struct { const char* id; int most; double overshoot; int atMost; } want[] = {
                {"fixed_window", 20, 2.0, 20}, {"token_bucket", 10, 1.0, 19}};
            for (const auto& w : want) {
                const QJsonObject row = results.value(w.id).toObject();
                const QByteArray where = QByteArray(w.id) + more;
                QVERIFY2(row.value("max_in_window").toInt() == w.most, where);
                QVERIFY2(row.value("overshoot").toDouble() == w.overshoot, where);
                QVERIFY2(row.value("allowed_cost").toInt() == w.most, where);
                const QJsonObject bound = row.value("bound").toObject();
                QVERIFY2(bound.value("reached").toInt() == w.most, where);
                QVERIFY2(bound.value("at_most").toInt() == w.atMost, where);
            }
        }
    }

    // Fleets and storms on the command line and in scenario files: a store down from 1
    // to 3 s with nodes failing closed denies until 3 s, then the store is as it was at 1 s (the
    // hand table of tst_engine::storeOutage, on two nodes); the file keeps the outage and a join.
    void outageAndMembership()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("fleet.ratelab.json");
        const Run r = runRatelab({"compare", "--nodes", "2", "--outage", "1:3", "--fallback", "closed", "--join", "1@0.5",
                                  "--limit", "2", "--n", "8", "--delay", "0.5", "--algorithms", "fixed_window", "--format",
                                  "csv", "--save-scenario", path});
        QVERIFY2(r.code == 0, r.err.constData());
        const QStringList rows = csvLines(r.out);
        QCOMPARE(rows[1], QString("fixed_window,0,true,0,1,0,1.0,0"));
        QCOMPARE(rows[3], QString("fixed_window,1,false,0,0,2,0.0,0"));   // down: retry when it is back
        QCOMPARE(rows[2].section(',', -1), QString("1"));            // node 1 is up from 0.5 s
        QCOMPARE(rows[7], QString("fixed_window,3,false,0,0,7,2.0,0"));   // back, as at 1 s: full until 10 s
        const Run again = runRatelab({"compare", "--scenario", path, "--format", "csv"});
        QCOMPARE(again.out, r.out);
        const QByteArray saved = readAll(path);
        QVERIFY(saved.contains("\"outage\"") && saved.contains("\"joins\": [\"1@0.5\"]"));
        for (const QStringList& bad : {QStringList{"--outage", "3:1"}, QStringList{"--outage", "1"},
                                       QStringList{"--fallback", "maybe"}, QStringList{"--join", "9@1"},
                                       QStringList{"--join", "1"}, QStringList{"--join", "0@1", "--leave", "0@0.5"},
                                       // no store to go down (it ran as if there were no outage)
                                       QStringList{"--coordination", "local", "--outage", "1:2", "--fallback", "closed"},
                                       QStringList{"--coordination", "split", "--outage", "1:2"},
                                       QStringList{"--fallback", "closed"}}) {
            const Run b = runRatelab(QStringList{"compare", "--nodes", "2"} + bad);
            QVERIFY2(b.code == 2 && b.out.isEmpty() && b.err.count('\n') == 1, qPrintable(bad.join(' ') + ": " + b.err));
        }
    }

    // A misspelt field of a scenario file is refused on the command line, not silently dropped.
    void misspeltFieldRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("typo.ratelab.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "ratelab-scenario", "version": 1, "cluster": {"nodes": 2, "coordinaton": "local"}})");
        f.close();
        const Run r = runRatelab({"compare", "--scenario", path});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("cluster.coordinaton"), r.err.constData());
        // --cost where every arrival gives its own would change nothing: said, not ignored
        const QString costs = dir.filePath("c.txt");
        QFile c(costs);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write("0,2\n1,3\n");
        c.close();
        const Run cost = runRatelab({"compare", "--arrivals", costs, "--cost", "5"});
        QCOMPARE(cost.code, 2);
        QVERIFY2(cost.err.contains("--cost"), cost.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliEngine)
#include "tst_cli_engine.moc"
