// Costs and layers in the CLI, run as a real process: --cost and t,cost arrivals, --layer, --headers,
// nginx_limit_req with --burst / --nodelay / --nginx-delay, `ratelab nginx`, and the one-line
// refusal of bad input. Expected values derived by hand from semantics.md.
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

namespace {

QStringList words(const char* s) { return QString(s).split(' '); }

} // namespace

class TestCliCost : public QObject {
    Q_OBJECT
private slots:
    // Token bucket C = 10 at 1/s, three requests of cost 4 at 0: 10 -> 6 -> 2, then 2 < 4:
    // denied, 2 tokens missing: 2 s; 2 cost-1 requests still fit.
    void costFlag()
    {
        const Run r = runRatelab({"compare", "--n", "3", "--delay", "0", "--cost", "4", "--algorithms", "token_bucket"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(rawValues(r.out, "token_bucket", "allowed"), words("true true false"));
        QCOMPARE(rawValues(r.out, "token_bucket", "remaining"), words("6 2 2"));
        QCOMPARE(rawValues(r.out, "token_bucket", "retry_after"), words("0 0 2"));
        QCOMPARE(rawValues(r.out, "token_bucket", "cost"), words("4 4 4"));
        const QJsonObject tb = parseJson(r.out).value("results").toObject().value("token_bucket").toObject();
        QCOMPARE(tb.value("allowed_cost").toInt(), 8);
        QCOMPARE(tb.value("never").toInt(), 0);
    }

    // A cost above L = 10: never admitted: JSON null, CSV an empty retry_after field.
    void neverIsNull()
    {
        const Run json = runRatelab({"compare", "--n", "2", "--cost", "11", "--algorithms", "fixed_window"});
        QCOMPARE(json.code, 0);
        QCOMPARE(rawValues(json.out, "fixed_window", "retry_after"), words("null null"));
        const Run csv = runRatelab({"compare", "--n", "1", "--cost", "11", "--algorithms", "fixed_window", "--format", "csv"});
        QCOMPARE(csv.code, 0);
        QCOMPARE(QString(csv.out), QString("algorithm,t,allowed,delay,remaining,retry_after,level,cost\n"
                                           "fixed_window,0,false,0,10,,0.0,11\n"));
    }

    // Arrivals file "0,3", "0", "0.5,8" with --cost 2: costs 3, 2 (the flag's), 8. Fixed window
    // L = 10: 3, 5, then 5 + 8 > 10: denied until the window at 10 s: 9.5 s; 5 cost-1 still fit.
    void costColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.txt");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("0,3\n0\n0.5,8\n");
        f.close();
        const Run r = runRatelab({"compare", "--arrivals", path, "--cost", "2", "--algorithms", "fixed_window"});
        QCOMPARE(r.code, 0);
        QCOMPARE(rawValues(r.out, "fixed_window", "cost"), words("3 2 8"));
        QCOMPARE(rawValues(r.out, "fixed_window", "allowed"), words("true true false"));
        QCOMPARE(rawValues(r.out, "fixed_window", "retry_after"), words("0 0 9.5"));
        QCOMPARE(rawValues(r.out, "fixed_window", "remaining"), words("7 5 5"));
    }

    // Layers: token bucket C = 3 at 0.1/s, then fixed window L = 2 per 5 s; three at 0. The
    // third passes the bucket (its last token, wasted) and is denied by the window; the exact
    // wait is the bucket's 10 s for a new token, not the window's 5 s.
    void layered()
    {
        const Run r = runRatelab({"compare", "--n", "3", "--delay", "0", "--algorithms", "fixed_window", "--layer",
                                  "token_bucket:capacity=3,rate=0.1", "--layer", "fixed_window:limit=2,window=5"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        const QJsonObject l = parseJson(r.out).value("results").toObject().value("layered").toObject();
        QCOMPARE(l.value("allowed").toInt(), 2);
        QCOMPARE(l.value("denied").toInt(), 1);
        const QJsonArray layers = l.value("layers").toArray();
        QCOMPARE(layers.size(), 2);
        QCOMPARE(layers[0].toObject().value("algorithm").toString(), QString("token_bucket"));
        QCOMPARE(layers[0].toObject().value("allowed").toInt(), 3);
        QCOMPARE(layers[0].toObject().value("denied_here").toInt(), 0);
        QCOMPARE(layers[0].toObject().value("wasted").toInt(), 1);
        QCOMPARE(layers[1].toObject().value("allowed").toInt(), 2);
        QCOMPARE(layers[1].toObject().value("denied_here").toInt(), 1);
        QCOMPARE(layers[1].toObject().value("wasted").toInt(), 0);
        QCOMPARE(rawValues(r.out, "layered", "retry_after"), words("0 0 10"));
    }

    // Headers on the reference case's token bucket (C = 10, 1/s, 0.1 s apart): request 0 leaves
    // 9 tokens, full again after 1 s: Reset 1. Request 11 (1.1 s) is denied with 0.1 token:
    // retry 0.9 s -> Retry-After 1; full after 9.9 s: Reset ceil(11) = 11, t = ceil(9.9) = 10.
    void headers()
    {
        const Run r = runRatelab({"compare", "--algorithms", "token_bucket", "--headers"});
        QCOMPARE(r.code, 0);
        const QJsonArray seq = parseJson(r.out).value("results").toObject().value("token_bucket").toObject()
                                   .value("sequence").toArray();
        const QJsonObject first = seq[0].toObject().value("headers").toObject();
        QCOMPARE(first.value("X-RateLimit-Limit").toString(), QString("10"));
        QCOMPARE(first.value("X-RateLimit-Remaining").toString(), QString("9"));
        QCOMPARE(first.value("X-RateLimit-Reset").toString(), QString("1"));
        QVERIFY(!first.contains("Retry-After"));
        QCOMPARE(first.value("RateLimit-Policy").toString(), QString("\"token_bucket\";q=10;w=10"));
        QCOMPARE(first.value("RateLimit").toString(), QString("\"token_bucket\";r=9;t=1"));
        const QJsonObject denied = seq[11].toObject().value("headers").toObject();
        QCOMPARE(denied.value("Retry-After").toString(), QString("1"));
        QCOMPARE(denied.value("X-RateLimit-Reset").toString(), QString("11"));
        QCOMPARE(denied.value("RateLimit").toString(), QString("\"token_bucket\";r=0;t=10"));
    }

    // Headers of a layered policy (semantics.md, "Everything together", 5): a token bucket of 2 at
    // 1/s over a fixed window of 3 per 10 s, requests at 0, 0.1, 0.2 s. X-RateLimit-* tell the
    // layer with the least remaining; RateLimit-Policy and RateLimit list both layers.
    //   0 s: bucket 2 -> 1 (full again in 1 s), window 1 of 3 (resets at 10 s): X-* of the bucket.
    //   0.1 s: bucket 1.1 -> 0.1 (remaining 0, full in 1.9 s: Reset ceil(2.0) = 2), window 2 of 3.
    //   0.2 s: bucket 0.2: denied there, a token in 0.8 s: Retry-After 1; Reset ceil(0.2 + 1.8) = 2.
    void layeredHeaders()
    {
        const Run r = runRatelab({"compare", "--algorithms", "fixed_window", "--layer", "token_bucket:capacity=2,rate=1",
                                  "--layer", "fixed_window:limit=3,window=10", "--n", "3", "--delay", "0.1", "--headers"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonArray seq = parseJson(r.out).value("results").toObject().value("layered").toObject()
                                   .value("sequence").toArray();
        QCOMPARE(seq.size(), 3);
        const auto headers = [&](int i) { return seq[i].toObject().value("headers").toObject(); };
        const QString policy = "\"token_bucket\";q=2;w=2, \"fixed_window\";q=3;w=10";
        QCOMPARE(headers(0).value("X-RateLimit-Limit").toString(), QString("2"));
        QCOMPARE(headers(0).value("X-RateLimit-Remaining").toString(), QString("1"));
        QCOMPARE(headers(0).value("X-RateLimit-Reset").toString(), QString("1"));
        QCOMPARE(headers(0).value("RateLimit-Policy").toString(), policy);
        QCOMPARE(headers(0).value("RateLimit").toString(), QString("\"token_bucket\";r=1;t=1, \"fixed_window\";r=2;t=10"));
        QVERIFY(!headers(0).contains("Retry-After"));
        QCOMPARE(headers(1).value("X-RateLimit-Remaining").toString(), QString("0"));
        QCOMPARE(headers(1).value("X-RateLimit-Reset").toString(), QString("2"));
        QCOMPARE(headers(1).value("RateLimit").toString(), QString("\"token_bucket\";r=0;t=2, \"fixed_window\";r=1;t=10"));
        QCOMPARE(headers(2).value("X-RateLimit-Limit").toString(), QString("2"));
        QCOMPARE(headers(2).value("X-RateLimit-Remaining").toString(), QString("0"));
        QCOMPARE(headers(2).value("Retry-After").toString(), QString("1"));
        QCOMPARE(headers(2).value("X-RateLimit-Reset").toString(), QString("2"));
        QCOMPARE(headers(2).value("RateLimit-Policy").toString(), policy);
    }

    // nginx: burst 9 (C - 1), nodelay, 12 at one instant: B + 1 = 10 pass. Without nodelay
    // (delay 0) request k waits k s at 1r/s.
    void nginx()
    {
        const Run r = runRatelab({"compare", "--n", "12", "--delay", "0", "--algorithms", "nginx_limit_req", "--nodelay"});
        QCOMPARE(r.code, 0);
        QCOMPARE(parseJson(r.out).value("results").toObject().value("nginx_limit_req").toObject().value("allowed").toInt(), 10);
        const Run delayed = runRatelab({"compare", "--n", "3", "--delay", "0", "--algorithms", "nginx_limit_req", "--burst", "2"});
        QCOMPARE(delayed.code, 0);
        QCOMPARE(rawValues(delayed.out, "nginx_limit_req", "delay"), words("0 1 2"));
        const Run lines = runRatelab({"nginx", "--limit", "20", "--window", "2", "--burst", "5", "--nginx-delay", "2"});
        QCOMPARE(lines.code, 0);
        QCOMPARE(QString(lines.out), QString("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=10r/s;\n"
                                             "limit_req zone=ratelab burst=5 delay=2;\n"));
    }

    // Bad input: exit 2, nothing on stdout, exactly one line on stderr naming the problem.
    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("cost 0") << QStringList{"compare", "--cost", "0"} << "--cost";
        QTest::newRow("cost too big") << QStringList{"compare", "--cost", "1000000001"} << "--cost";
        QTest::newRow("unknown layer key") << QStringList{"compare", "--layer", "token_bucket:foo=1"} << "foo";
        QTest::newRow("unknown layer algorithm") << QStringList{"compare", "--layer", "bucket:limit=1"} << "bucket";
        QTest::newRow("bad layer value") << QStringList{"compare", "--layer", "fixed_window:limit=0"} << "limit";
        QTest::newRow("rate nginx cannot express")
            << QStringList{"compare", "--algorithms", "nginx_limit_req", "--limit", "3", "--window", "7"} << "25r/m or 26r/m";
        QTest::newRow("nginx command, bad rate") << QStringList{"nginx", "--rate", "0.001"} << "nearest: 1r/m";
        QTest::newRow("negative burst") << QStringList{"compare", "--burst", "-1"} << "--burst";
        QTest::newRow("nodelay and delay") << QStringList{"compare", "--nodelay", "--nginx-delay", "2"} << "--nodelay";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(QString(r.err).contains(mentions), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCost)
#include "tst_cli_cost.moc"
