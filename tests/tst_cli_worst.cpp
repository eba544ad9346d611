// tst_cli_worst: `compare --pattern worst --window-of T` and the bound every row reports, through
// the real executable. Numbers by hand (L = 10, W = 10 s, C = 10, r = 1/s unless said).
#include "cli_run.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace clitest;

class TestCliWorst : public QObject {
    Q_OBJECT
private slots:
    // The sliding counter's worst in T = W: 10 at 10 s - 1 ns, then at 20 s - 2 ns
    // ceil(10 (W - 2 ns) / W) = 10 more: 20 = ceil(10 (2W - 2 ns) / W) within (10 - 2 ns, 20 - 2 ns].
    void counterReachesTwiceTheLimit()
    {
        const Run r = runRatelab({"compare", "--pattern", "worst", "--algorithms", "sliding_window_counter"});
        QCOMPARE(r.code, 0);
        const QJsonObject root = parseJson(r.out);
        QCOMPARE(root["input"]["pattern"].toString(), QString("worst"));
        QCOMPARE(root["input"]["worst_of"].toString(), QString("sliding_window_counter"));
        QCOMPARE(root["input"]["window_of"].toInt(), 10);
        const QJsonObject row = root["results"]["sliding_window_counter"].toObject();
        QCOMPARE(row["allowed"].toInt(), 20);
        QCOMPARE(row["max_in_window"].toInt(), 20);
        QCOMPARE(row["bound"]["window"].toInt(), 10);
        QCOMPARE(row["bound"]["at_most"].toInt(), 20);
        QCOMPARE(row["bound"]["reached"].toInt(), 20);
        const QJsonArray seq = row["sequence"].toArray();
        QCOMPARE(seq.first()["t"].toDouble(), 9.999999999);
        QCOMPARE(seq.last()["t"].toDouble(), 19.999999998);
    }

    // Nodes with limiters of their own multiply the bound: two local nodes of the edge burst's
    // fixed window admit 20 where one would; no bound is claimed for them, nor for clients with
    // keys of their own. A shared store keeps the one limiter's 20.
    void fleetsClaimNoBound()
    {
        const QStringList base{"compare", "--preset", "edge-burst", "--algorithms", "fixed_window"};
        const Run local = runRatelab(base + QStringList{"--nodes", "2", "--coordination", "local"});
        QCOMPARE(local.code, 0);
        const QJsonObject localRoot = parseJson(local.out);
        const QJsonObject row = localRoot["results"]["fixed_window"].toObject();
        QVERIFY(row["bound"]["at_most"].isNull());
        QCOMPARE(row["bound"]["reached"].toInt(), 20);
        const Run clients = runRatelab(base + QStringList{"--clients", "3", "--key", "client"});
        QCOMPARE(clients.code, 0);
        const QJsonObject clientsRoot = parseJson(clients.out);
        QVERIFY(clientsRoot["results"]["fixed_window"]["bound"]["at_most"].isNull());
        const Run shared = runRatelab(base + QStringList{"--nodes", "2", "--coordination", "shared"});
        const QJsonObject sharedRoot = parseJson(shared.out);
        QCOMPARE(sharedRoot["results"]["fixed_window"]["bound"]["at_most"].toInt(), 20);
        // A store that fails open passes any bound, even with one node; a limit change moves it.
        const Run down = runRatelab(base + QStringList{"--coordination", "shared", "--outage", "0:1"});
        QCOMPARE(down.code, 0);
        const QJsonObject downRoot = parseJson(down.out);
        QVERIFY(downRoot["results"]["fixed_window"]["bound"]["at_most"].isNull());
        const Run changed = runRatelab(base + QStringList{"--change", "5:limit=20"});
        QCOMPARE(changed.code, 0);
        const QJsonObject changedRoot = parseJson(changed.out);
        QVERIFY(changedRoot["results"]["fixed_window"]["bound"]["at_most"].isNull());
        // An empty start only takes credit away: the bound stands.
        const Run empty = runRatelab(base + QStringList{"--buckets-start", "empty"});
        const QJsonObject emptyRoot = parseJson(empty.out);
        QCOMPARE(emptyRoot["results"]["fixed_window"]["bound"]["at_most"].toInt(), 20);
    }

    // T = 15 s: the bucket's 10 + floor(15 - 1 ns) = 24, all reached in 15 s; max_in_window (10 s) 19.
    void windowOfOtherThanTheWindow()
    {
        const Run r = runRatelab({"compare", "--pattern", "worst", "--window-of", "15", "--algorithms", "token_bucket,sliding_window_log"});
        QCOMPARE(r.code, 0);
        const QJsonObject results = parseJson(r.out)["results"].toObject();
        const QJsonObject token = results["token_bucket"].toObject();
        QCOMPARE(token["bound"]["at_most"].toInt(), 24);
        QCOMPARE(token["bound"]["reached"].toInt(), 24);
        QCOMPARE(token["max_in_window"].toInt(), 19);
        // Every row runs the first row's worst traffic; the log keeps its own bound: 10 ceil(15/10) = 20.
        const QJsonObject log = results["sliding_window_log"].toObject();
        QCOMPARE(log["bound"]["at_most"].toInt(), 20);
        QVERIFY(log["bound"]["reached"].toInt() <= 20);
    }

    // Any pattern reports the bound in T = the window; products and layered rows have none.
    void boundOnEveryRow()
    {
        const Run r = runRatelab({"compare", "--algorithms", "fixed_window,guava", "--layer", "token_bucket:capacity=5,rate=1"});
        QCOMPARE(r.code, 0);
        const QJsonObject results = parseJson(r.out)["results"].toObject();
        QCOMPARE(results["fixed_window"]["bound"]["at_most"].toInt(), 20);
        QVERIFY(results["guava"]["bound"]["at_most"].isNull());
        QVERIFY(results["layered"]["bound"]["at_most"].isNull());
    }

    void refusesBadWindowOf_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("zero") << QStringList{"--window-of", "0"};
        QTest::newRow("negative") << QStringList{"--window-of", "-1"};
        QTest::newRow("words") << QStringList{"--window-of", "soon"};
        // 10 per 1 ns over a day: more than 5,000,000 requests.
        QTest::newRow("too many") << QStringList{"--window", "0.000000001", "--window-of", "86400"};
    }
    void refusesBadWindowOf()
    {
        QFETCH(QStringList, args);
        const Run r = runRatelab(QStringList{"compare", "--pattern", "worst"} + args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.isEmpty());
    }

    // A scenario file keeps the pattern, its T and whose worst case it is.
    void scenarioFileRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("w.ratelab.json");
        const QStringList args{"--pattern", "worst", "--window-of", "25", "--algorithms", "gcra,fixed_window"};
        const Run first = runRatelab(QStringList{"compare"} + args + QStringList{"--save-scenario", path});
        QCOMPARE(first.code, 0);
        const Run again = runRatelab({"compare", "--scenario", path});
        QCOMPARE(again.code, 0);
        QCOMPARE(again.out, first.out);
        const QJsonObject results = parseJson(again.out)["results"].toObject();
        QCOMPARE(results["gcra"]["bound"]["reached"].toInt(), 34); // 10 + floor(25 - 1 ns)
    }
};

QTEST_GUILESS_MAIN(TestCliWorst)
#include "tst_cli_worst.moc"
