// `ratelab compare` with clients that react and `ratelab memory`, run as a real process: the
// JSON and CSV against numbers derived by hand from semantics.md, and the one-line refusals.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

namespace {

// writeFile writes text to name inside dir and returns its path.
QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        return {};
    return path;
}

// refused checks exit status 2 and one line on stderr containing `part`.
void checkRefused(const QStringList& args, const QString& part)
{
    const Run r = runRatelab(args);
    QCOMPARE(r.code, 2);
    QCOMPARE(r.out, QByteArray());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(part), r.err.constData());
}

} // namespace

class TestCliClients : public QObject {
    Q_OBJECT
private slots:
    // --cohort: "Everyone comes back at the reset" with 20 clients honouring retry_after and 10
    // that never retry (clients 20..29 send requests 20..29, all denied in window 0): the fixed
    // window's denied 20 are requests 10..29; 10..19 retry at 10 s and pass, 20..29 give up.
    void cohorts()
    {
        const Run r = runRatelab({"compare", "--preset", "comes-back-at-reset", "--algorithms", "fixed_window", "--cohort",
                                  "20:retry_after", "--cohort", "10:none"});
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        const QJsonObject c = doc["results"].toObject()["fixed_window"].toObject()["clients"].toObject();
        QCOMPARE(c["attempts"].toInt(), 40);
        QCOMPARE(c["gave_up"].toInt(), 10);
        QCOMPARE(doc["input"].toObject()["clients"].toObject()["cohorts"].toArray().size(), 2);
        checkRefused({"compare", "--clients", "3", "--cohort", "2:retry_after", "--cohort", "2:none"},
                     "--clients 3: the cohorts hold 4 clients");
        checkRefused({"compare", "--cohort", "2:retry_after", "--retry", "immediate"},
                     "--retry: the cohorts give each client its policy");
        checkRefused({"compare", "--cohort", "2:retry_after:max_retries=500"}, "max_retries: must be at most 100");
    }

    void withoutClientOptionsNothingChanges()
    {
        const Run r = runRatelab({"compare", "--n", "3"});
        QCOMPARE(r.code, 0);
        QVERIFY(!r.out.contains("\"request\""));
        QVERIFY(!r.out.contains("\"clients\""));
        const Run csv = runRatelab({"compare", "--n", "3", "--format", "csv"});
        QVERIFY(csv.out.startsWith("algorithm,t,allowed,delay,remaining,retry_after,level\n"));
    }

    // Fixed window L = 2, W = 1 s, three requests at 0, immediate retries 0.3 s apart: the third
    // is denied at 0, 0.3, 0.6, 0.9 (the window is full until 1 s) and admitted at 1.2 s.
    // 7 attempts for 3 requests; latencies 0, 0, 1.2 s: mean 0.4, p50 (2nd of 3) 0, p99 (3rd) 1.2.
    void immediateRetriesJson()
    {
        const Run r = runRatelab({"compare", "--n", "3", "--delay", "0", "--limit", "2", "--window", "1",
                                  "--algorithms", "fixed_window", "--retry", "immediate", "--retry-delay", "0.3",
                                  "--max-retries", "5"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        const QJsonObject root = parseJson(r.out);
        const QJsonObject settings = root.value("input").toObject().value("clients").toObject();
        QCOMPARE(settings.value("retry").toString(), QString("immediate"));
        QCOMPARE(settings.value("max_retries").toInt(), 5);
        const QJsonObject fixed = root.value("results").toObject().value("fixed_window").toObject();
        QCOMPARE(fixed.value("allowed").toInt(-1), 3);
        QCOMPARE(fixed.value("denied").toInt(-1), 4);
        const QJsonObject c = fixed.value("clients").toObject();
        QCOMPARE(c.value("requests").toInt(-1), 3);
        QCOMPARE(c.value("attempts").toInt(-1), 7);
        QCOMPARE(c.value("succeeded").toInt(-1), 3);
        QCOMPARE(c.value("gave_up").toInt(-1), 0);
        QCOMPARE(c.value("amplification").toDouble(), 7.0 / 3.0);
        const QJsonObject latency = c.value("latency").toObject();
        QCOMPARE(latency.value("mean").toDouble(), 0.4);
        QCOMPARE(latency.value("p50").toDouble(-1), 0.0);
        QCOMPARE(latency.value("p99").toDouble(), 1.2);
        QCOMPARE(latency.value("max").toDouble(), 1.2);
        QCOMPARE(c.value("memory").toObject().value("keys").toInt(-1), 1);
        QCOMPARE(c.value("memory").toObject().value("total").toObject().value("bytes").toInt(-1), 16);
        QCOMPARE(rawValues(r.out, "fixed_window", "request"), (QStringList{"0", "1", "2", "2", "2", "2", "2"}));
        QCOMPARE(rawValues(r.out, "fixed_window", "attempt"), (QStringList{"0", "0", "0", "1", "2", "3", "4"}));
        QCOMPARE(rawValues(r.out, "fixed_window", "t"), (QStringList{"0", "0", "0", "0.3", "0.6", "0.9", "1.2"}));
        QCOMPARE(rawValues(r.out, "fixed_window", "allowed"),
                 (QStringList{"true", "true", "false", "false", "false", "false", "true"}));
    }

    // --retry none with one client: every result but the added fields equals plain compare.
    void noneEqualsPlainCompare()
    {
        const QStringList scenario{"compare", "--pattern", "poisson", "--n", "200", "--lambda", "3", "--seed", "5"};
        const Run plain = runRatelab(scenario);
        const Run none = runRatelab(scenario + QStringList{"--retry", "none", "--clients", "1"});
        QCOMPARE(plain.code, 0);
        QCOMPARE(none.code, 0);
        const QJsonObject a = parseJson(plain.out).value("results").toObject();
        const QJsonObject b = parseJson(none.out).value("results").toObject();
        QCOMPARE(a.keys(), b.keys());
        for (const QString& id : a.keys()) {
            QJsonObject x = a.value(id).toObject(), y = b.value(id).toObject();
            QCOMPARE(y.value("clients").toObject().value("attempts").toInt(-1), 200);
            y.remove("clients");
            QJsonArray seq;
            for (const QJsonValue& v : y.value("sequence").toArray()) {
                QJsonObject e = v.toObject();
                e.remove("request");
                e.remove("client");
                e.remove("attempt");
                seq.append(e);
            }
            y.insert("sequence", seq);
            QVERIFY2(x == y, qPrintable(id));
        }
    }

    // Two clients at a fixed window L = 1: requests 0, 1, 2, 3 at 0 belong to clients 0, 1, 0, 1.
    // Per-client keys admit the first of each client; a global key only request 0.
    void keysCsv()
    {
        const QStringList base{"compare", "--n", "4", "--delay", "0", "--limit", "1", "--algorithms", "fixed_window",
                               "--clients", "2", "--format", "csv"};
        const Run per = runRatelab(base);
        QCOMPARE(per.code, 0);
        QCOMPARE(per.out, QByteArray("algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level\n"
                                     "fixed_window,0,0,0,0,true,0,0,0,1.0\n"
                                     "fixed_window,1,1,0,0,true,0,0,0,1.0\n"
                                     "fixed_window,2,0,0,0,false,0,0,10,1.0\n"
                                     "fixed_window,3,1,0,0,false,0,0,10,1.0\n"));
        const Run global = runRatelab(base + QStringList{"--key", "global"});
        QCOMPARE(global.code, 0);
        QCOMPARE(global.out, QByteArray("algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level\n"
                                        "fixed_window,0,0,0,0,true,0,0,0,1.0\n"
                                        "fixed_window,1,1,0,0,false,0,0,10,1.0\n"
                                        "fixed_window,2,0,0,0,false,0,0,10,1.0\n"
                                        "fixed_window,3,1,0,0,false,0,0,10,1.0\n"));
    }

    // An arrivals file naming clients 1, 1, 0 (K = 2 from the file) in a column its header names
    // (without one, a second column is a cost: t[,cost[,client]]): the second request of client 1
    // is denied at a fixed window L = 1, client 0's is admitted.
    void arrivalsNameClients()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "named.txt", "t,client\n0,1\n0, 1\n0.5,0\n");
        const Run r = runRatelab({"compare", "--arrivals", path, "--limit", "1", "--algorithms", "fixed_window",
                                  "--key", "client", "--format", "csv"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray("algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level\n"
                                   "fixed_window,0,1,0,0,true,0,0,0,1.0\n"
                                   "fixed_window,1,1,0,0,false,0,0,10,1.0\n"
                                   "fixed_window,2,0,0,0.5,true,0,0,0,1.0\n"));
        const QJsonObject root = parseJson(runRatelab({"compare", "--arrivals=" + path, "--key", "client"}).out);
        QCOMPARE(root.value("input").toObject().value("clients").toObject().value("clients").toInt(), 2);
        QCOMPARE(root.value("input").toObject().value("pattern").toString(), QString("file"));

        checkRefused({"compare", "--arrivals", writeFile(dir, "bad.txt", "t,client\n0,1\n1,x\n"), "--key", "client"},
                     "bad.txt:3: client");
        checkRefused({"compare", "--arrivals", path, "--clients", "1"}, "--clients");
        checkRefused({"compare", "--arrivals", writeFile(dir, "user.txt", "t,user\n0,1\n"), "--key", "client"},
                     "user.txt:1: unknown column 'user'");
    }

    void badInput()
    {
        checkRefused({"compare", "--clients", "0"}, "--clients: must be at least 1 (got 0)");
        checkRefused({"compare", "--clients", "100001"}, "--clients: must be at most 100000");
        checkRefused({"compare", "--retry", "immediate", "--retry-delay", "-0.5"}, "--retry-delay: must not be negative");
        checkRefused({"compare", "--retry", "sometimes"}, "--retry: unknown policy");
        checkRefused({"compare", "--key", "user"}, "--key: unknown key");
        checkRefused({"compare", "--max-retries", "101"}, "--max-retries: must be at most 100");
        checkRefused({"compare", "--retry", "backoff", "--backoff-base", "0"}, "--backoff-base: must be greater than 0");
        checkRefused({"compare", "--retry", "backoff", "--backoff-cap", "x"}, "--backoff-cap:");
    }

    // Defaults L = 10, W = 10 s: the log holds up to 10 timestamps a key, 80 bytes; the others
    // their fields of 8 bytes. 1000 per minute for 10,000 keys: 10 million log entries, 80 MB.
    void memoryTableAndJson()
    {
        const Run table = runRatelab({"memory", "--keys", "10000", "--limit", "1000", "--window", "60"});
        QCOMPARE(table.code, 0);
        const QList<QByteArray> lines = table.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 8);
        QVERIFY(lines[2].startsWith("sliding_window_log"));
        QVERIFY2(lines[2].contains(" 80000000 ") && lines[2].contains(" 10000000 ") && lines[2].endsWith("80 MB"),
                 lines[2].constData());

        const Run json = runRatelab({"memory", "--keys", "3", "--json"});
        QCOMPARE(json.code, 0);
        const QJsonObject results = parseJson(json.out).value("results").toObject();
        QCOMPARE(results.size(), 7);
        const auto bytes = [&](const char* id, const char* which) {
            return results.value(id).toObject().value(which).toObject().value("bytes").toInt(-1);
        };
        QCOMPARE(bytes("sliding_window_log", "per_key"), 80);
        QCOMPARE(bytes("sliding_window_log", "total"), 240);
        QCOMPARE(bytes("fixed_window", "total"), 48);
        QCOMPARE(bytes("sliding_window_counter", "total"), 72);
        QCOMPARE(bytes("gcra", "total"), 24);
        QCOMPARE(bytes("token_bucket", "per_key"), 16);

        // The same model compare reports: 15 requests fill the log of one key to L = 10.
        const QJsonObject log = parseJson(runRatelab({"compare", "--n", "15", "--clients", "1"}).out)
                                    .value("results").toObject().value("sliding_window_log").toObject();
        QCOMPARE(log.value("memory").toObject().value("bytes").toInt(-1), bytes("sliding_window_log", "per_key"));

        checkRefused({"memory"}, "--keys K is required");
        checkRefused({"memory", "--keys", "0"}, "--keys: must be at least 1");
        checkRefused({"memory", "--keys", "10000001"}, "--keys: must be at most 10000000");
        checkRefused({"memory", "--keys", "5", "--limit", "0"}, "--limit:");
    }
};

QTEST_GUILESS_MAIN(TestCliClients)
#include "tst_cli_clients.moc"
