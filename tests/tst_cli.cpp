// `ratelab compare`, run as a real process: its JSON and CSV against numbers derived by hand
// from the semantics page, and the edges it accepts (the refusals of bad input are in
// tst_cli_refusals).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

namespace {

const QStringList kAll = {"fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket",
                          "leaky_bucket", "leaky_bucket_queue", "gcra"};

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void referenceCaseJson()
    {
        const Run r = runRatelab({"compare", "--n", "15", "--delay", "0.1"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        const QJsonObject results = parseJson(r.out).value("results").toObject();
        QCOMPARE(results.size(), 7);
        // Defaults L = 10, W = 10 s, C = 10, r = 1/s; requests at 0, 0.1, ..., 1.4 s.
        // Window limiters: 10 at 0 .. 0.9 s, then nothing until 10 s. Buckets: before request k
        // there are 10 - k + 0.1k = 10 - 0.9k tokens, >= 1 for k <= 10 (at 1.0 s, exactly 1).
        // The queue delays request k by its water 0.9k / r: 10 of the 11 wait. max_in_window: all
        // admissions lie within 1 s < W. Memory: 8 bytes a field (fixed: window + count;
        // counter: window, prev, cur; token/leaky: amount + time; gcra: TAT; log: 10 times).
        struct Row { const char* id; int allowed, delayed, maxIn; double overshoot; int bytes, entries; };
        const Row rows[] = {
            {"fixed_window", 10, 0, 10, 1.0, 16, 1},  {"sliding_window_log", 10, 0, 10, 1.0, 80, 10},
            {"sliding_window_counter", 10, 0, 10, 1.0, 24, 1}, {"token_bucket", 11, 0, 11, 1.1, 16, 1},
            {"leaky_bucket", 11, 0, 11, 1.1, 16, 1}, {"leaky_bucket_queue", 11, 10, 11, 1.1, 16, 1},
            {"gcra", 11, 0, 11, 1.1, 8, 1},
        };
        for (const Row& row : rows) {
            const QJsonObject a = results.value(row.id).toObject();
            QVERIFY2(!a.isEmpty(), row.id);
            QCOMPARE(a.value("allowed").toInt(-1), row.allowed);
            QCOMPARE(a.value("denied").toInt(-1), 15 - row.allowed);
            QCOMPARE(a.value("delayed").toInt(-1), row.delayed);
            QCOMPARE(a.value("max_in_window").toInt(-1), row.maxIn);
            QCOMPARE(a.value("overshoot").toDouble(), row.overshoot);
            QCOMPARE(a.value("memory").toObject().value("bytes").toInt(-1), row.bytes);
            QCOMPARE(a.value("memory").toObject().value("entries").toInt(-1), row.entries);
            const QJsonArray seq = a.value("sequence").toArray();
            QCOMPARE(seq.size(), 15);
            for (int k = 0; k < 15; ++k)
                QCOMPARE(seq[k].toObject().value("allowed").toBool(), k < row.allowed);
            QCOMPARE(rawValues(r.out, row.id, "t")[10], QString("1")); // the 11th request: exactly 1 s
        }
        QCOMPARE(rawValues(r.out, "sliding_window_log", "t"),
                 QString("0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1 1.1 1.2 1.3 1.4").split(' '));
        // retry_after of the denied ones. Fixed: the next window opens at 10 s. Log: the entry at
        // 0 expires at exactly 10 s. Counter: at 10 s prev = 10 still weighs 10 * W/W = 10, not
        // < 10; one ns later 10 * (W - 1)/W < 10, so 10.000000001 s - t. Buckets: at 1.1 + 0.1j s
        // there are 0.1 + 0.1j tokens, the missing 0.9 - 0.1j take that many seconds at 1/s.
        const QStringList zeros = QString("0 0 0 0 0 0 0 0 0 0").split(' ');
        QCOMPARE(rawValues(r.out, "fixed_window", "retry_after"), zeros + QString("9 8.9 8.8 8.7 8.6").split(' '));
        QCOMPARE(rawValues(r.out, "sliding_window_log", "retry_after"), zeros + QString("9 8.9 8.8 8.7 8.6").split(' '));
        QCOMPARE(rawValues(r.out, "sliding_window_counter", "retry_after"),
                 zeros + QString("9.000000001 8.900000001 8.800000001 8.700000001 8.600000001").split(' '));
        for (const char* id : {"token_bucket", "leaky_bucket", "leaky_bucket_queue", "gcra"})
            QCOMPARE(rawValues(r.out, id, "retry_after"), zeros + QString("0 0.9 0.8 0.7 0.6").split(' '));
        // Token remaining: floor(9 - 0.9k) after request k; 0 once empty.
        QCOMPARE(rawValues(r.out, "token_bucket", "remaining"), QString("9 8 7 6 5 4 3 2 1 0 0 0 0 0 0").split(' '));
        QCOMPARE(rawValues(r.out, "fixed_window", "remaining"), QString("9 8 7 6 5 4 3 2 1 0 0 0 0 0 0").split(' '));
        // Queue delay of request k: 0.9k s, exactly.
        QCOMPARE(rawValues(r.out, "leaky_bucket_queue", "delay"),
                 QString("0 0.9 1.8 2.7 3.6 4.5 5.4 6.3 7.2 8.1 9 0 0 0 0").split(' '));
        // Token level after request 10 is 0 tokens, then 0.1 .. 0.4 refill while denied.
        QCOMPARE(rawValues(r.out, "token_bucket", "level").mid(10), QString("0.0 0.1 0.2 0.3 0.4").split(' '));
        // Queue level: request j leaves at j s, so after request k < 10, requests 1..k wait;
        // from 1 s on (request 1 has left) requests 2..10 wait.
        QCOMPARE(rawValues(r.out, "leaky_bucket_queue", "level"),
                 QString("0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 9.0 9.0 9.0 9.0 9.0").split(' '));
    }

    void inputEchoesTheSettings()
    {
        Run r = runRatelab({"compare"});
        QCOMPARE(r.code, 0);
        QJsonObject input = parseJson(r.out).value("input").toObject();
        QCOMPARE(input.value("algorithms").toArray().toVariantList(), QVariant(kAll).toList());
        QCOMPARE(input.value("limit").toInt(), 10);
        QCOMPARE(input.value("window").toDouble(), 10.0);
        QCOMPARE(input.value("capacity").toInt(), 10);
        QCOMPARE(input.value("rate_exact").toString(), QString("1"));
        QCOMPARE(input.value("pattern").toString(), QString("uniform"));
        QCOMPARE(input.value("n").toInt(), 15);
        QCOMPARE(input.value("delay").toDouble(), 0.1);
        QCOMPARE(input.value("requests").toInt(), 15);

        r = runRatelab({"compare", "--limit", "3", "--window", "7"});
        QCOMPARE(r.code, 0);
        input = parseJson(r.out).value("input").toObject();
        QCOMPARE(input.value("limit").toInt(), 3);
        QCOMPARE(input.value("window").toDouble(), 7.0);
        QCOMPARE(input.value("capacity").toInt(), 3); // capacity defaults to the limit
        QCOMPARE(input.value("rate_exact").toString(), QString("3/7")); // 3 per 7 s, not 0.428...
        QCOMPARE(input.value("rate").toDouble(), 3.0 / 7.0);

        r = runRatelab({"compare", "--capacity", "4", "--rate", "2.5", "--pattern", "burst", "--n", "6", "--size", "4"});
        QCOMPARE(r.code, 0);
        input = parseJson(r.out).value("input").toObject();
        QCOMPARE(input.value("capacity").toInt(), 4);
        QCOMPARE(input.value("rate_exact").toString(), QString("2.5"));
        QCOMPARE(input.value("pattern").toString(), QString("burst"));
        QCOMPARE(input.value("size").toInt(), 4);
        QCOMPARE(input.value("requests").toInt(), 6);
    }

    void csv()
    {
        const Run r = runRatelab({"compare", "--n", "15", "--delay", "0.1", "--format", "csv"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.takeLast(), QByteArray()); // ends with a newline
        QCOMPARE(lines.takeFirst(), QByteArray("algorithm,t,allowed,delay,remaining,retry_after,level"));
        QCOMPARE(lines.size(), 15 * 7);
        // Same allowed counts as the JSON, each algorithm's 15 rows together in the usual order.
        const int allowed[] = {10, 10, 10, 11, 11, 11, 11};
        for (int a = 0; a < 7; ++a) {
            int yes = 0;
            for (int k = 0; k < 15; ++k) {
                const QList<QByteArray> f = lines[a * 15 + k].split(',');
                QCOMPARE(f.size(), 7);
                QCOMPARE(QString(f[0]), kAll[a]);
                yes += f[2] == "true" ? 1 : 0;
            }
            QCOMPARE(yes, allowed[a]);
        }
        QCOMPARE(lines[2 * 15 + 10], QByteArray("sliding_window_counter,1,false,0,0,9.000000001,10.0"));
        QCOMPARE(lines[5 * 15 + 10], QByteArray("leaky_bucket_queue,1,true,9,0,0,9.0"));
    }

    void algorithmsFilterKeepsOrder()
    {
        const Run r = runRatelab({"compare", "--algorithms", "gcra,fixed_window,token_bucket,gcra"});
        QCOMPARE(r.code, 0);
        const QJsonObject root = parseJson(r.out);
        QCOMPARE(root.value("input").toObject().value("algorithms").toArray().toVariantList(),
                 QVariantList({"gcra", "fixed_window", "token_bucket"}));
        QCOMPARE(root.value("results").toObject().keys(), QStringList({"fixed_window", "gcra", "token_bucket"}));
        const auto g = r.out.indexOf("\"gcra\": {"), f = r.out.indexOf("\"fixed_window\": {"),
                   t = r.out.indexOf("\"token_bucket\": {");
        QVERIFY(g >= 0 && g < f && f < t);
        const Run c = runRatelab({"compare", "--algorithms", "leaky_bucket,sliding_window_log", "--format", "csv"});
        QCOMPARE(c.code, 0);
        const QList<QByteArray> lines = c.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 2 * 15);
        QVERIFY(lines[1].startsWith("leaky_bucket,") && lines[15].startsWith("leaky_bucket,"));
        QVERIFY(lines[16].startsWith("sliding_window_log,") && lines[30].startsWith("sliding_window_log,"));
    }

    void arrivalsFile()
    {
        // Times 0, 0, 0, 1, 1.000000001 with L = C = 2, W = 1 s, r = 2/s.
        const Run r = runRatelab({"compare", "--arrivals", data("arrivals_ok.txt"), "--limit", "2", "--window", "1",
                               "--algorithms", "fixed_window,sliding_window_log,token_bucket,leaky_bucket_queue"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        const QJsonObject root = parseJson(r.out);
        QCOMPARE(root.value("input").toObject().value("pattern").toString(), QString("file"));
        QCOMPARE(root.value("input").toObject().value("requests").toInt(), 5);
        QCOMPARE(rawValues(r.out, "fixed_window", "t"), QStringList({"0", "0", "0", "1", "1.000000001"}));
        // Window: the third at 0 waits for the window (or the entries at 0) to end at 1 s.
        // Bucket: empty after two at 0, it needs 1 token at 2/s: 0.5 s; full again at 1 s.
        for (const char* id : {"fixed_window", "sliding_window_log", "token_bucket", "leaky_bucket_queue"}) {
            QCOMPARE(root.value("results").toObject().value(id).toObject().value("allowed").toInt(), 4);
            QCOMPARE(rawValues(r.out, id, "allowed"), QStringList({"true", "true", "false", "true", "true"}));
        }
        QCOMPARE(rawValues(r.out, "fixed_window", "retry_after"), QStringList({"0", "0", "1", "0", "0"}));
        QCOMPARE(rawValues(r.out, "sliding_window_log", "retry_after"), QStringList({"0", "0", "1", "0", "0"}));
        QCOMPARE(rawValues(r.out, "token_bucket", "retry_after"), QStringList({"0", "0", "0.5", "0", "0"}));
        // Queue: the 2nd waits for 1 unit of water at 2/s; at 1 s the bucket is empty again, and
        // 1 ns later 1 - 2e-9 of water is ahead: (1 - 2e-9) / 2 s = 0.5 s - 1 ns.
        QCOMPARE(rawValues(r.out, "leaky_bucket_queue", "delay"), QStringList({"0", "0.5", "0", "0", "0.499999999"}));
        QCOMPARE(root.value("results").toObject().value("leaky_bucket_queue").toObject().value("delayed").toInt(), 2);
        QCOMPARE(root.value("results").toObject().value("fixed_window").toObject().value("max_in_window").toInt(), 2);
    }

    // checks the edges that are accepted: 0 requests, 0 s apart, the largest values, a UTF-8
    // byte-order mark, and an arrivals file that overrides a pattern.
    void edgesThatAreAccepted()
    {
        Run r = runRatelab({"compare", "--n", "0"});
        QCOMPARE(r.code, 0);
        QCOMPARE(parseJson(r.out).value("input").toObject().value("requests").toInt(-1), 0);
        QCOMPARE(parseJson(r.out).value("results").toObject().value("gcra").toObject().value("allowed").toInt(-1), 0);

        r = runRatelab({"compare", "--delay", "0", "--algorithms", "fixed_window,token_bucket"});
        QCOMPARE(r.code, 0);
        QCOMPARE(rawValues(r.out, "fixed_window", "t"), QStringList(15, "0"));
        QCOMPARE(parseJson(r.out).value("results").toObject().value("token_bucket").toObject().value("allowed").toInt(), 10);

        // The largest window, for every algorithm but the counter (whose retry_after reaches 2 W).
        r = runRatelab({"compare", "--limit", "1e9", "--capacity", "1000000000", "--window", "9223372036.854775807",
                     "--rate", "9223372036854775807e9", "--n", "3", "--delay", "4611686018.427387903", "--algorithms",
                     "fixed_window,sliding_window_log,token_bucket,leaky_bucket,leaky_bucket_queue,gcra"});
        QCOMPARE(r.code, 0);
        QCOMPARE(rawValues(r.out, "gcra", "t"), QStringList({"0", "4611686018.427387903", "9223372036.854775806"}));
        QCOMPARE(rawValues(r.out, "sliding_window_log", "allowed"), QStringList(3, "true"));

        r = runRatelab({"compare", "--arrivals", data("arrivals_bom.txt"), "--algorithms", "gcra", "--format", "csv"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.count('\n'), 4);
        QVERIFY(r.out.contains("gcra,0.1,true"));
    }

    // checks that an arrivals file of millions of lines over the cap is refused on the line that
    // passes it, and that a stream with no end (a pipe) is refused there too, not read to its end.
    void millionsOfLines()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("huge.txt");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const QByteArray block = QByteArray("1.5\n").repeated(100'000);
            for (int i = 0; i < 50; ++i)
                f.write(block);
            f.write("2\n");
        }
        Run r = runRatelab({"compare", "--arrivals", path});
        QCOMPARE(r.code, 2);
        QCOMPARE(QString::fromUtf8(r.err),
                 "ratelab: " + path + ":5000001: more than 5000000 arrivals, the most one scenario may hold\n");

        // `yes 0 | ratelab compare --arrivals /dev/stdin`: feed until it gives up; a reader that
        // took the whole input first would never finish.
        QProcess p;
        p.start(QStringLiteral(RATELAB_BIN), {"compare", "--arrivals", "/dev/stdin"});
        QVERIFY(p.waitForStarted());
        const QByteArray chunk = QByteArray("0\n").repeated(512 * 1024);
        qint64 fed = 0;
        while (p.state() == QProcess::Running && fed < (qint64(1) << 30)) {
            p.write(chunk);
            while (p.bytesToWrite() > 0 && p.state() == QProcess::Running)
                p.waitForBytesWritten(1000);
            fed += chunk.size();
        }
        QVERIFY(p.state() == QProcess::NotRunning || p.waitForFinished(60'000));
        QVERIFY2(fed < (qint64(1) << 30), "the whole endless input was read");
        QCOMPARE(p.exitCode(), 2);
        QCOMPARE(QString::fromUtf8(p.readAllStandardError()),
                 QString("ratelab: /dev/stdin:5000001: more than 5000000 arrivals, the most one scenario may hold\n"));
    }

    void help()
    {
        const Run r = runRatelab({"compare", "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("--algorithms"));
        QVERIFY(r.out.contains("--arrivals"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
