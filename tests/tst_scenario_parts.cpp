// Every command takes the whole scenario or refuses a part by name: a table test of
// every command against every part, run as a user runs them, with the expected table written
// here by hand from what each command is (the log is replay's traffic; nginx's lines are one
// zone), and docs/commands.md checked against the code's table cell for cell.
#include "cli_run.h"
#include "scenario/scenario_parts.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace clitest;
using ratelab::ScenarioCommand;
using ratelab::ScenarioPart;
using ratelab::Taking;

namespace {

// Key 192.0.2.1 at 0, 1, 2 and 11 s and key 2001:db8::7 at 0 s.
const QByteArray kLog = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "2001:db8::7 - - [01/Jan/2000:00:00:00 +0000] \"GET /b HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "192.0.2.1 - - [01/Jan/2000:00:00:01 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "192.0.2.1 - - [01/Jan/2000:00:00:02 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "192.0.2.1 - - [01/Jan/2000:00:00:11 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n";

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(name));
    return f.fileName();
}

// A scenario of two algorithms, 3 per 10 s, 15 requests 0.1 s apart.
QJsonObject base()
{
    return {{"format", "ratelab-scenario"}, {"version", 1}, {"algorithms", QJsonArray{"fixed_window", "token_bucket"}},
            {"limit", 3}, {"window", "10"}};
}

// withPart returns the base with part p (an outage comes with the cluster it is the store of).
QJsonObject withPart(ScenarioPart p)
{
    QJsonObject s = base();
    switch (p) {
    case ScenarioPart::Traffic: break;
    case ScenarioPart::Layers: s["layers"] = QJsonArray{"fixed_window:limit=2,window=10"}; break;
    case ScenarioPart::ProductOptions:
        s["algorithms"] = QJsonArray{"traefik"};
        s["product_options"] = QJsonObject{{"average", "6"}, {"burst", "1"}, {"period", "1m"}};
        break;
    case ScenarioPart::Cluster: s["cluster"] = QJsonObject{{"nodes", 2}, {"coordination", "split"}}; break;
    case ScenarioPart::StoreOutage:
        s["cluster"] = QJsonObject{{"nodes", 2}, {"coordination", "shared"},
                                   {"outage", QJsonObject{{"from", "0.5"}, {"to", "1.5"}, {"fallback", "closed"}}}};
        break;
    case ScenarioPart::Clients:
        s["clients"] = QJsonObject{{"clients", 1}, {"retry", "immediate"}, {"max_retries", 2}};
        break;
    case ScenarioPart::Throttle: s["throttle"] = "p-queue:interval=1s,interval_cap=1"; break; // one a second
    case ScenarioPart::BucketsStartEmpty: s["buckets_start"] = "empty"; break;
    case ScenarioPart::LimitChanges: s["changes"] = QJsonArray{"0.5:limit=1"}; break;
    case ScenarioPart::Server:
        s["server"] = "workers=1,service=const:0.5s,queue=0";
        s["concurrency"] = QJsonArray{"fixed:limit=1"};
        break;
    }
    return s;
}

// withoutPart is what withPart(p) is without the part: the same scenario otherwise.
QJsonObject withoutPart(ScenarioPart p)
{
    QJsonObject s = base();
    if (p == ScenarioPart::ProductOptions)
        s["algorithms"] = QJsonArray{"traefik"};
    if (p == ScenarioPart::StoreOutage)
        s["cluster"] = QJsonObject{{"nodes", 2}, {"coordination", "shared"}};
    return s;
}

// kExpected is the table, by hand: R runs, X the log (or nginx's lines) stands in, - refused.
// Rows are the commands (compare, compare --backend redis, replay, sweep, nginx, replay
// --config), columns the parts (traffic, layers, product options, cluster, store outage,
// clients, client throttle, buckets start empty, limit changes, server).
const char* const kExpected[] = {
    "RRRRRRRRRR", // compare: the engine combines everything
    "RRRR-RR---", // Redis: one store that stays up, keys that start full, one config a run, no server
    "XRRRR--RR-", // replay: the engine per key, no retries nor throttle (the log was sent), served already
    "X-RRR--R--", // sweep: replay at each point of one algorithm's grid, which a change would replace
    "X----RR---", // nginx: one zone's lines; clients and their throttle are traffic the lines answer
    "XRR-------", // replay --config: one policy kept as the products keep it, each key full, in one place
};

Taking expected(ScenarioCommand c, ScenarioPart p)
{
    switch (kExpected[std::size_t(c)][std::size_t(p)]) {
    case 'R': return Taking::Runs;
    case 'X': return Taking::Replaced;
    default: return Taking::Refuses;
    }
}

const char* commandWord(ScenarioCommand c)
{
    switch (c) {
    case ScenarioCommand::Replay: return "replay";
    case ScenarioCommand::Sweep: return "sweep";
    case ScenarioCommand::Nginx: return "nginx";
    case ScenarioCommand::DryRun: return "replay --config";
    default: return "compare";
    }
}

} // namespace

class TestScenarioParts : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_log;

    // run runs command c on scenario s the way a user would.
    Run run(ScenarioCommand c, const QJsonObject& s, const QString& name)
    {
        QJsonObject one = s;
        if (c == ScenarioCommand::DryRun && one["algorithms"].toArray().size() > 1) // a dry run replays one policy
            one["algorithms"] = QJsonArray{one["algorithms"].toArray().first()};
        const QString file = write(m_dir, name + ".ratelab.json", QJsonDocument(one).toJson());
        switch (c) {
        case ScenarioCommand::Replay: return runRatelab({"replay", m_log, "--scenario", file, "--format", "csv"});
        case ScenarioCommand::Sweep:
            return runRatelab({"sweep", m_log, "--scenario", file, "--limit", "1:3:1", "--format", "csv"});
        case ScenarioCommand::Nginx: return runRatelab({"nginx", "--scenario", file});
        case ScenarioCommand::DryRun: return runRatelab({"replay", m_log, "--config", file, "--format", "csv"});
        default: return runRatelab({"compare", "--scenario", file, "--format", "csv"});
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_log = write(m_dir, "access.log", kLog);
    }

    // The code's table is the hand table above, cell for cell.
    void theTableIsTheHandTable()
    {
        for (ScenarioCommand c : ratelab::kAllScenarioCommands)
            for (ScenarioPart p : ratelab::kAllScenarioParts) {
                const ratelab::PartTaking t = ratelab::partTaking(c, p);
                QVERIFY2(t.taking == expected(c, p), qPrintable(QString("%1 / %2").arg(
                             ratelab::scenarioCommandName(c).data(), ratelab::scenarioPartName(p).data())));
                QCOMPARE(t.why.empty(), t.taking == Taking::Runs); // every other cell says why
            }
    }

    // docs/commands.md shows the same table: a row per part, a column per command.
    void theDocsShowTheTable()
    {
        QFile f(QStringLiteral(RATELAB_TESTDATA "/../../docs/commands.md"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
        int rowsSeen = 0;
        for (ScenarioPart p : ratelab::kAllScenarioParts) {
            const QString name = QString::fromUtf8(ratelab::scenarioPartName(p).data());
            for (const QString& line : lines) {
                if (!line.startsWith("| " + name + " |"))
                    continue;
                const QStringList cells = line.split('|', Qt::SkipEmptyParts);
                QCOMPARE(cells.size(), qsizetype(1 + ratelab::kAllScenarioCommands.size()));
                for (ScenarioCommand c : ratelab::kAllScenarioCommands) {
                    const Taking t = ratelab::partTaking(c, p).taking;
                    const QString word = t == Taking::Runs ? "runs" : t == Taking::Replaced ? "replaced" : "refused";
                    QCOMPARE(cells[1 + qsizetype(c)].trimmed(), word);
                }
                ++rowsSeen;
            }
        }
        QCOMPARE(rowsSeen, int(ratelab::kAllScenarioParts.size()));
    }

    // Each command on a scenario with each part: a part it takes runs (and changes what it
    // prints, so it was not dropped), a part it refuses stops it before it prints anything,
    // naming the command and the part.
    void everyCommandTakesOrRefusesEveryPart_data()
    {
        QTest::addColumn<int>("command");
        QTest::addColumn<int>("part");
        for (ScenarioCommand c : ratelab::kAllScenarioCommands) {
            if (c == ScenarioCommand::CompareRedis) // tst_redis_combined runs these against a real Redis
                continue;
            for (ScenarioPart p : ratelab::kAllScenarioParts)
                QTest::addRow("%s / %s", commandWord(c), ratelab::scenarioPartName(p).data()) << int(c) << int(p);
        }
    }

    void everyCommandTakesOrRefusesEveryPart()
    {
        QFETCH(int, command);
        QFETCH(int, part);
        const auto c = ScenarioCommand(command);
        const auto p = ScenarioPart(part);
        const QString name = QString("%1-%2").arg(command).arg(part);
        const Run with = run(c, withPart(p), name);
        // An outage comes with its cluster: a command that refuses clusters names the cluster.
        const ScenarioPart named = p == ScenarioPart::StoreOutage && expected(c, ScenarioPart::Cluster) == Taking::Refuses
                                       ? ScenarioPart::Cluster
                                       : p;
        if (expected(c, p) == Taking::Refuses) {
            QCOMPARE(with.code, 2);
            QVERIFY2(with.out.isEmpty(), with.out.constData());
            // A dry run's refusal comes through the config file's reader, which names the file first.
            const QString line = QString("%1%2: the scenario's %3 cannot be ")
                                     .arg(c == ScenarioCommand::DryRun ? ".ratelab.json: " : "ratelab: ", commandWord(c),
                                          ratelab::scenarioPartName(named).data());
            QVERIFY2(QString::fromUtf8(with.err).contains(line), with.err.constData());
            QCOMPARE(with.err.count('\n'), qsizetype(1));
            return;
        }
        QVERIFY2(with.code == 0, with.err.constData());
        if (p == ScenarioPart::Traffic || c == ScenarioCommand::Sweep || c == ScenarioCommand::Nginx)
            return; // traffic is every scenario's; sweep's product options are checked point by point below
        const Run without = run(c, withoutPart(p), name + "-without");
        QVERIFY2(without.code == 0, without.err.constData());
        QVERIFY2(with.out != without.out, "the part changed nothing: it was dropped");
    }

    // A scenario's cost is no part of the table, and not dropped either: replay weighs requests by
    // it, a dry run and nginx's lines cannot, and say so. Before, `replay --config` with a cost of
    // 5 replayed as if each request cost 1, and `nginx --cost 5` printed the lines without a word.
    void costIsTakenOrRefusedByName()
    {
        QJsonObject s = base();
        s["algorithms"] = QJsonArray{"fixed_window"};
        s["cost"] = 5;
        const QString file = write(m_dir, "cost.ratelab.json", QJsonDocument(s).toJson());
        const Run dry = runRatelab({"replay", m_log, "--config", file});
        QCOMPARE(dry.code, 2);
        QVERIFY(dry.out.isEmpty());
        QVERIFY2(dry.err.contains("replay --config: the scenario's cost cannot be dry-run") && dry.err.count('\n') == 1,
                 dry.err.constData());
        const Run nginx = runRatelab({"nginx", "--cost", "5"});
        QCOMPARE(nginx.code, 2);
        QVERIFY(nginx.out.isEmpty());
        QCOMPARE(nginx.err, QByteArray("ratelab: nginx: the scenario's cost (5 a request) cannot be written as nginx "
                                       "lines: limit_req counts every request once\n"));
        // replay takes it. By hand: 192.0.2.1 sends at 0, 1, 2 and 11 s, 2001:db8::7 at 0 s, each
        // key its own fixed window of 3 per 10 s. At cost 1 all five are admitted (3 in [0, 10),
        // one in [10, 20), one for the other key); at cost 5 none fits in a limit of 3.
        const Run replay = runRatelab({"replay", m_log, "--scenario", file, "--format", "csv"});
        QVERIFY2(replay.code == 0, replay.err.constData());
        QVERIFY2(replay.out.contains("\nfixed_window,5,0,5,"), replay.out.constData());
    }

    // `ratelab nginx` writes lines nginx takes: no `burst=0` (nginx: "invalid burst value"), and
    // its --save-scenario is taken, as every command takes it.
    void nginxLinesAreWhatNginxTakesAndTheScenarioIsSaved()
    {
        const QString saved = m_dir.filePath("nginx-saved.ratelab.json");
        const Run r = runRatelab({"nginx", "--limit", "1", "--window", "1", "--save-scenario", saved});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=1r/s;\n"
                                   "limit_req zone=ratelab;\n"));
        QFile f(saved);
        QVERIFY2(f.open(QIODevice::ReadOnly), "--save-scenario was dropped");
        const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(json["limit"].toInt(), 1);
        // RateLab's own import, which refuses burst=0 as nginx does, reads the lines back.
        QByteArray lines = r.out;
        lines.replace("limit_req zone", "server { location / { limit_req zone");
        const Run imported = runRatelab({"import", write(m_dir, "nginx.conf", lines + "} }\n")});
        QVERIFY2(imported.code == 0, imported.err.constData());
    }

    // An option that takes one value, given twice, is refused: which was meant? Before, `sweep
    // --limit 2:4:2 --limit 7` swept 2..4 and dropped the 7.
    void aRepeatedOptionIsRefused()
    {
        const Run r = runRatelab({"sweep", m_log, "--limit", "2:4:2", "--limit", "7"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err, QByteArray("ratelab: --limit is given 2 times ('2:4:2', '7'): give it once\n"));
        // The options that add up still do: layers, and the settings tables' lists.
        const Run layers = runRatelab({"compare", "--layer", "fixed_window:limit=2,window=10", "--layer",
                                       "token_bucket:limit=5,window=10", "--format", "csv"});
        QVERIFY2(layers.code == 0, layers.err.constData());
        const Run cohorts = runRatelab({"compare", "--clients", "10", "--cohort", "9:retry_after", "--cohort",
                                        "1:immediate", "--format", "csv"});
        QVERIFY2(cohorts.code == 0, cohorts.err.constData());
        const Run fleet = runRatelab({"compare", "--nodes", "3", "--coordination", "local", "--join", "1@5", "--join",
                                      "2@6", "--leave", "1@7", "--leave", "2@8", "--format", "csv"});
        QVERIFY2(!fleet.err.contains("is given"), fleet.err.constData());
    }

    // export draws the simulation: asked for Redis, it says so instead of drawing the simulation
    // under that name (it took --backend redis and ignored it).
    void exportRefusesTheRedisBackend()
    {
        const QString png = m_dir.filePath("redis.png");
        const Run r = runRatelab({"export", "--backend", "redis", "--png", png});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("export: --backend redis") && r.err.count('\n') == 1, r.err.constData());
        QVERIFY(!QFile::exists(png));
    }

    // Each point of a sweep is `replay` with that point's options, product options included: the
    // sweep of Traefik with its own average and burst is replay's at every limit (before, the
    // sweep dropped them and printed the textbook limit's rows), and Kong's own second is kept
    // (before, the sweep asked for the option it was given).
    void aSweepPointIsReplayWithProductOptions_data()
    {
        QTest::addColumn<QStringList>("product");
        QTest::newRow("traefik") << QStringList{"--algorithms", "traefik", "--product-option", "average=1",
                                                "--product-option", "burst=2"};
        QTest::newRow("kong") << QStringList{"--algorithms", "kong", "--product-option", "second=1"};
    }

    void aSweepPointIsReplayWithProductOptions()
    {
        QFETCH(QStringList, product);
        const Run sweep = runRatelab(QStringList{"sweep", m_log, "--limit", "1:2:1", "--format", "csv"} + product);
        QVERIFY2(sweep.code == 0, sweep.err.constData());
        const QStringList lines = QString::fromUtf8(sweep.out).trimmed().split('\n');
        QCOMPARE(lines.size(), 3); // the header, limit 1 and limit 2
        for (const char* limit : {"1", "2"}) {
            const Run replay = runRatelab(QStringList{"replay", m_log, "--limit", limit, "--format", "csv"} + product);
            QVERIFY2(replay.code == 0, replay.err.constData());
            const QStringList r = QString::fromUtf8(replay.out).trimmed().split('\n')[1].split(',');
            const QStringList s = lines[limit[0] == '1' ? 1 : 2].split(',');
            // sweep: limit,algorithm,attempts,denied,...,max_in_window; replay: algorithm,attempts,allowed,denied,...
            QCOMPARE(s[0], QString(limit));
            QCOMPARE(s[1], r[0]);
            QCOMPARE(s[2], r[1]);  // attempts
            QCOMPARE(s[3], r[3]);  // denied
            QCOMPARE(s.last(), r[7]); // max_in_window
        }
        // Derived by hand for Traefik (average 1 a second, burst 2): 192.0.2.1 at 0, 1, 2, 11 s is
        // admitted every time (a token a second); 2001:db8::7 once: no denial at any limit.
        if (QTest::currentDataTag() == QByteArray("traefik"))
            QCOMPARE(lines[1].section(',', 3, 3), QString("0"));
    }
};

QTEST_GUILESS_MAIN(TestScenarioParts)
#include "tst_scenario_parts.moc"
