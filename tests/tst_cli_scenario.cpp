// `ratelab presets` and the --preset / --scenario / --save-scenario options, run as a real
// process: listings, overrides, exact round trips, and one-line refusals.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

class TestCliScenario : public QObject {
    Q_OBJECT
private slots:
    void presetsCommand()
    {
        const Run r = runRatelab({"presets"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        QVERIFY(r.out.endsWith('\n'));
        const QStringList lines = QString::fromUtf8(r.out).trimmed().split('\n');
        QStringList ids;
        for (const QString& line : lines) {
            const auto gap = line.indexOf("  ");
            QVERIFY2(gap > 0 && line.size() > gap + 2 && line[gap + 2] != ' ', qPrintable(line)); // id  title
            ids << line.left(gap);
        }
        QCOMPARE(ids, QStringList({"seed-compare", "edge-burst", "idle-then-burst", "spa-page-load",
                                   "steady-over-limit", "token-vs-leaky", "counter-error", "nginx-vs-leaky",
                                   "two-servers-local", "racing-read-write", "tight-retry-loop", "honour-retry-after",
                                   "http-rounding", "noisy-client", "pick-a-limit", "traefik-six-a-minute",
                                   "spring-burst-zero", "envoy-fill-cap", "redis-cell-sixteen", "nginx-page-load", "n-per-t", "scaling-out", "redis-goes-down", "comes-back-at-reset",
                                   "upstash-sliding-vs-log", "api-gateway-page-load", "api-gateway-monthly-quota", "waf-scraper-first-minute",
                                   "cloudflare-long-block", "retry-storm-metastable", "aimd-sawtooth", "gradient2-knee",
                                   "noisy-tenant-apf", "client-throttle-under-limit", "gradient2-standing-queue"}));
    }

    void presetOption()
    {
        // edge-burst: 10 requests at 9.9 s and 10 at 10.1 s, L = 10 per 10 s. Fixed: two windows,
        // all 20. Log: the entries of 9.9 s are still inside at 10.1 s: 10. Counter at 10.1 s:
        // 10 * 9.9/10 + cur < 10 for cur = 0 only: 11.
        Run r = runRatelab({"compare", "--preset", "edge-burst"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        QJsonObject root = parseJson(r.out);
        const QString listed = QString::fromUtf8(runRatelab({"presets"}).out).split('\n').filter("edge-burst  ").value(0);
        QCOMPARE("edge-burst  " + root.value("input").toObject().value("title").toString(), listed);
        QJsonObject results = root.value("results").toObject();
        QCOMPARE(results.value("fixed_window").toObject().value("allowed").toInt(), 20);
        QCOMPARE(results.value("fixed_window").toObject().value("max_in_window").toInt(), 20);
        QCOMPARE(results.value("sliding_window_log").toObject().value("allowed").toInt(), 10);
        QCOMPARE(results.value("sliding_window_counter").toObject().value("allowed").toInt(), 11);

        // Options override the preset one value each: the limit drops to 5, the capacity stays
        // the preset's 10. Fixed: 5 in each window, 10. Log: 5 (all still inside at 10.1 s).
        // Token: a full bucket of 10 at 9.9 s, 0.2 tokens at 10.1 s: 10.
        r = runRatelab({"compare", "--preset", "edge-burst", "--limit", "5", "--algorithms",
                     "fixed_window,sliding_window_log,token_bucket"});
        QCOMPARE(r.code, 0);
        root = parseJson(r.out);
        QCOMPARE(root.value("input").toObject().value("limit").toInt(), 5);
        QCOMPARE(root.value("input").toObject().value("capacity").toInt(), 10);
        results = root.value("results").toObject();
        QCOMPARE(results.keys(), QStringList({"fixed_window", "sliding_window_log", "token_bucket"}));
        QCOMPARE(results.value("fixed_window").toObject().value("allowed").toInt(), 10);
        QCOMPARE(results.value("sliding_window_log").toObject().value("allowed").toInt(), 5);
        QCOMPARE(results.value("token_bucket").toObject().value("allowed").toInt(), 10);
    }

    void scenarioFileRoundTrip()
    {
        QTemporaryDir dir;
        const QString times = dir.filePath("times.txt");
        {
            QFile f(times);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("0\n0\n0\n2.333333333\n2.333333334\n");
        }
        // L = C = 3 per 7 s, r = 3/7 per s: after 3 requests at 0 the next token is due at 7/3 s,
        // 2333333333 1/3 ns: the request 1 ns before that is denied, the one after admitted.
        const QString file = dir.filePath("exact.ratelab.json");
        const QStringList args = {"--arrivals", times, "--limit", "3", "--window", "7", "--algorithms",
                                  "token_bucket,gcra,fixed_window"};
        const Run saved = runRatelab(QStringList{"compare"} + args + QStringList{"--save-scenario", file});
        QCOMPARE(saved.code, 0);
        QCOMPARE(saved.err, QByteArray());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray json = f.readAll();
        QVERIFY2(json.contains("\"rate\": \"3/7\"") && json.contains("\"2.333333334\""), json);
        QCOMPARE(rawValues(saved.out, "token_bucket", "allowed"), QStringList({"true", "true", "true", "false", "true"}));

        // Reopened, the same scenario makes the same decisions: the output is the same, byte for byte.
        const Run reopened = runRatelab({"compare", "--scenario", file});
        QCOMPARE(reopened.code, 0);
        QCOMPARE(reopened.err, QByteArray());
        QCOMPARE(reopened.out, saved.out);
        // Saving what was opened writes the same file again.
        const QString again = dir.filePath("again.ratelab.json");
        QCOMPARE(runRatelab({"compare", "--scenario", file, "--save-scenario", again}).code, 0);
        QFile g(again);
        QVERIFY(g.open(QIODevice::ReadOnly));
        QCOMPARE(g.readAll(), json);

        // export takes the same options.
        const QString png = dir.filePath("t.png");
        const QString preset = dir.filePath("t.ratelab.json");
        const Run e = runRatelab({"export", "--preset", "token-vs-leaky", "--save-scenario", preset, "--png", png});
        QCOMPARE(e.code, 0);
        QVERIFY(QFile::exists(png));
        const Run c = runRatelab({"compare", "--scenario", preset});
        QCOMPARE(c.code, 0);
        QCOMPARE(parseJson(c.out).value("results").toObject().keys(),
                 QStringList({"leaky_bucket", "leaky_bucket_queue", "token_bucket"}));
    }

    void scenarioBadInput_data()
    {
        static QTemporaryDir dir; // the files outlive this function: the test reads them
        const auto write = [](const QString& path, const QByteArray& data) {
            QFile f(path);
            if (f.open(QIODevice::WriteOnly))
                f.write(data);
            return path;
        };
        const QString broken = write(dir.filePath("broken.ratelab.json"), "{\"format\": \"ratelab-scenario\", \"vers");
        const QString newer = write(dir.filePath("newer.ratelab.json"), "{\"format\": \"ratelab-scenario\", \"version\": 2}");
        const QString missing = dir.filePath("missing.ratelab.json");
        const QString nowhere = dir.filePath("no/such/folder/x.ratelab.json");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("mentions");
        const auto row = [](const char* name, const QStringList& args, const QStringList& mentions) {
            QTest::newRow(name) << args << mentions;
        };
        row("unknown preset", {"compare", "--preset", "edge-bust"}, {"--preset", "edge-bust", "edge-burst", "counter-error"});
        row("unknown preset, export", {"export", "--preset", "nope", "--png", dir.filePath("x.png")}, {"nope", "edge-burst"});
        row("missing file", {"compare", "--scenario", missing}, {"--scenario", missing});
        row("truncated file", {"compare", "--scenario", broken}, {broken, "not valid JSON"});
        row("newer file", {"compare", "--scenario", newer}, {newer, "made by a newer RateLab: version 2, this one reads 1"});
        row("preset and file", {"compare", "--preset", "edge-burst", "--scenario", broken}, {"cannot be combined"});
        row("save into no folder", {"compare", "--save-scenario", nowhere}, {"--save-scenario", nowhere});
        // Each value is fine alone, but 3 requests 5 * 10^9 s apart end past the ~292 years Nanos
        // holds: refused before anything is saved.
        row("save a bad scenario",
            {"compare", "--n", "3", "--delay", "5e9", "--save-scenario", dir.filePath("bad.ratelab.json")}, {"292 years"});
        row("GUI: unknown preset", {"--preset", "nope"}, {"--preset", "nope", "edge-burst"});
        row("GUI: missing file", {"--scenario", missing}, {"--scenario", missing});
        row("GUI: newer file", {"--scenario", newer}, {newer, "version 2"});
    }

    void scenarioBadInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, mentions);
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QVERIFY2(r.err.startsWith("ratelab: ") && r.err.endsWith('\n') && r.err.count('\n') == 1, r.err);
        for (const QString& m : mentions)
            QVERIFY2(QString::fromUtf8(r.err).contains(m), r.err);
        QVERIFY(!QFile::exists(args.value(args.indexOf("--save-scenario") + 1, "-"))); // nothing half-saved
    }
};

QTEST_GUILESS_MAIN(TestCliScenario)
#include "tst_cli_scenario.moc"
