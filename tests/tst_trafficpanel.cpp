// The app's Traffic panel: a log opened in the background, its busiest keys with their
// denials, a key's traffic shown in the rows, and a sweep whose point sets the limit, each one
// undo step. Headless (offscreen).
#include "model/scenariodocument.h"
#include "panels/dryrunview.h"
#include "panels/trafficpanel.h"
#include "window/documentactions.h"
#include "cli_run.h"

#include <QApplication>
#include <QFile>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <numeric>

using namespace ratelab;
using namespace ratelab::ui;

class TestTrafficPanel : public QObject {
    Q_OBJECT
private slots:
    // A gateway's config on the open log: express-rate-limit, windowMs 60000, max 2,
    // keyed by the IP, on 10.0.0.1's six requests at 0..5 s and 10.0.0.2's two at 0 and 3 s, all
    // in one window: 10.0.0.1's third to sixth are denied, 4 of 8, one key. Against max 3:
    // 10.0.0.1's fourth to sixth, 3; the proposed admits the third, which the current denies.
    void aConfigRunsOnTheOpenLog()
    {
        QTemporaryDir dir;
        QFile log(dir.filePath("a.log"));
        QVERIFY(log.open(QIODevice::WriteOnly));
        for (int s = 0; s < 6; ++s)
            log.write(QString("10.0.0.1 - - [01/Jan/2000:00:00:0%1 +0000] \"GET /api HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(s).toUtf8());
        for (int s : {0, 3})
            log.write(QString("10.0.0.2 - - [01/Jan/2000:00:00:0%1 +0000] \"GET /api HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(s).toUtf8());
        log.close();
        const auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
                qFatal("cannot write %s", qPrintable(name));
            return f.fileName();
        };
        const QString two = write("two.json", R"({"windowMs": 60000, "max": 2})");
        const QString three = write("three.json", R"({"windowMs": 60000, "max": 3})");
        ScenarioDocument document;
        TrafficPanel panel(&document);
        DryRunView* view = panel.dryRun();
        QVERIFY(!view->run(two)); // no log yet
        QVERIFY(panel.openLog(log.fileName()));
        QSignalSpy done(view, &DryRunView::finished);
        QVERIFY(view->run(two));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(view->summary().startsWith("two.json (express-rate-limit) denies 4 of 8 requests."), qPrintable(view->summary()));
        QCOMPARE(view->rules()->rowCount(), 1);
        QCOMPARE(view->rules()->item(0, 1)->text(), QString("8"));
        QCOMPARE(view->rules()->item(0, 2)->text(), QString("4"));
        QCOMPARE(view->rules()->item(0, 3)->text(), QString("1"));

        done.clear();
        QVERIFY(view->run(two, three));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(view->summary().contains("Proposed: 3 denied."), qPrintable(view->summary()));
        QCOMPARE(view->rules()->rowCount(), 2);
        QCOMPARE(view->rules()->item(1, 0)->text(), QString("proposed: express-rate-limit"));
        QCOMPARE(view->rules()->item(1, 2)->text(), QString("3"));

        // The run as a web page: the counts above, and what `ratelab replay --config --against
        // --html` writes for the same files (which it names as given: here by their full path).
        QVERIFY(view->report());
        const QString page = dir.filePath("app.html");
        QCOMPARE(DocumentActions::exportDryRunPageTo(*view->report(), page), QString());
        QFile appPage(page);
        QVERIFY(appPage.open(QIODevice::ReadOnly));
        const QByteArray app = appPage.readAll();
        QVERIFY(app.contains("denied 4 of 8 requests"));
        QVERIFY(app.contains("denied 3 of 8 requests"));
        const QString cli = dir.filePath("cli.html");
        QCOMPARE(clitest::runRatelab({"replay", log.fileName(), "--config", two, "--against", three, "--html", cli}).code, 0);
        QFile cliPage(cli);
        QVERIFY(cliPage.open(QIODevice::ReadOnly));
        QCOMPARE(app, cliPage.readAll().replace((dir.path() + "/").toUtf8(), ""));

        // A rule not replayed is said above the counts. The view keys by the log's one
        // key (ip), so zone k, keyed by $http_x_api_key, is not replayed; zone a, 1r/m by address
        // on /api (every request here): nginx admits each address's first request and denies the
        // rest (10.0.0.1 at 1 s: excess 0 - 16 + 1000 > 0; 10.0.0.2 at 3 s: 0 - 48 + 1000 > 0),
        // 5 + 1 = 6 of 8.
        const QString partial = write("partial.conf", "limit_req_zone $binary_remote_addr zone=a:10m rate=1r/m;\n"
                                                      "limit_req_zone $http_x_api_key zone=k:10m rate=1r/m;\n"
                                                      "server { location /api { limit_req zone=a; } location /b { limit_req zone=k; } }\n");
        done.clear();
        QVERIFY(view->run(partial));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(view->summary().startsWith(
                     "NOT COMPLETE: 1 of 2 rules not replayed, 1 part named in not_replayed (the first: limit_req zone=k "
                     "(line 3): its zone's key $http_x_api_key is not the log's key (ip): not replayed (--key "
                     "http_x_api_key replays it)); the 1 replayed rule denied 6 of 8 requests\n"
                     "partial.conf (nginx) denies 6 of 8 requests."),
                 qPrintable(view->summary()));
        // No rule replayed: the reason only, no count and no table.
        const QString keyed = write("keyed.conf", "limit_req_zone $http_x_api_key zone=k:10m rate=1r/m;\n"
                                                  "server { location /api { limit_req zone=k; } }\n");
        done.clear();
        QVERIFY(view->run(keyed));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(view->summary().startsWith("keyed.conf: no rule of the config can be replayed on this log: 1 of 1 rule"),
                 qPrintable(view->summary()));
        QVERIFY(!view->summary().contains("denies"));
        QVERIFY(view->rules()->isHidden());

        done.clear();
        QVERIFY(!view->report()); // no rule replayed: no report to export
        QVERIFY(!view->run(dir.filePath("none.conf"))); // refused, and said
        QVERIFY(!view->summary().isEmpty());
        QVERIFY(!view->summary().contains("denies 4"));
    }

    void openShowAndPick()
    {
        // 10.0.0.1: 6 requests at 0..5 s; 10.0.0.2: 2 at 0 and 3 s; one broken line.
        QTemporaryDir dir;
        QFile log(dir.filePath("a.log"));
        QVERIFY(log.open(QIODevice::WriteOnly));
        for (int s = 0; s < 6; ++s)
            log.write(QString("10.0.0.1 - - [01/Jan/2000:00:00:0%1 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(s).toUtf8());
        log.write("broken\n");
        log.write("10.0.0.2 - - [01/Jan/2000:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n");
        log.write("10.0.0.2 - - [01/Jan/2000:00:00:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n");
        log.close();

        ScenarioDocument document;
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        s.config = LimiterConfig::make(4, 10 * kNanosPerSecond);
        document.reset(s);
        TrafficPanel panel(&document);
        QSignalSpy swept(&panel, &TrafficPanel::sweepFinished);
        QVERIFY(!panel.openLog(dir.filePath("none.log")));
        QVERIFY(panel.status().contains("no such file"));
        QVERIFY(panel.openLog(log.fileName()));
        QVERIFY(panel.status().contains("1 unreadable lines skipped (the first: line 7)"));
        // Busiest first; fixed window 4 per 10 s denies 10.0.0.1's fifth and sixth.
        QTableWidget* keys = panel.keysTable();
        QCOMPARE(keys->rowCount(), 2);
        QCOMPARE(keys->item(0, 0)->text(), QString("10.0.0.1"));
        QCOMPARE(keys->item(0, 1)->text(), QString("6"));
        QCOMPARE(keys->item(0, 2)->text(), QString("2"));
        QCOMPARE(keys->item(1, 2)->text(), QString("0"));

        QVERIFY(panel.showKey(1));
        QCOMPARE(*document.scenario().explicitArrivals, (std::vector<Nanos>{0, 3 * kNanosPerSecond}));
        QCOMPARE(document.undoStack()->count(), 1);

        QVERIFY(swept.wait(10'000) || swept.count() > 0);
        QVERIFY(panel.sweep());
        // 20 limits, a step of max(1, 2 x 4 / 20) = 1: 1..20.
        std::vector<std::int64_t> limits(20);
        std::iota(limits.begin(), limits.end(), 1);
        QCOMPARE(panel.sweep()->axes.front().values, limits);
        // At limit 1 the fixed window denies 10.0.0.1's last five and 10.0.0.2's second: 6 of 8.
        QCOMPARE(panel.sweep()->cell(0, 0, 0).denied, std::int64_t(6));
        QVERIFY(panel.pickLimit(6.2));
        QCOMPARE(document.scenario().config, LimiterConfig::make(6, 10 * kNanosPerSecond));
        QCOMPARE(document.undoStack()->count(), 2);
        // Once the document rests, the keys are counted again: 6 per 10 s denies nobody.
        QTRY_COMPARE(keys->item(0, 2)->text(), QString("0"));
        document.undoStack()->undo();
        QCOMPARE(document.scenario().config.limit(), std::int64_t(4));
    }

    // A scenario of concurrency rows alone (the server presets open with a `none` row and no
    // rate limiter): the keys show their requests, the denied column says there is no row to
    // replay, and no sweep starts (there is no limit to sweep).
    void keysWithoutARateLimitRow()
    {
        QTemporaryDir dir;
        QFile log(dir.filePath("a.log"));
        QVERIFY(log.open(QIODevice::WriteOnly));
        for (int s = 0; s < 3; ++s)
            log.write(QString("10.0.0.1 - - [01/Jan/2000:00:00:0%1 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(s).toUtf8());
        log.close();
        ScenarioDocument document;
        Scenario s;
        s.algorithms.clear();
        s.concurrency = {"none"};
        document.reset(s);
        TrafficPanel panel(&document);
        QSignalSpy swept(&panel, &TrafficPanel::sweepFinished);
        QVERIFY(panel.openLog(log.fileName()));
        QTableWidget* keys = panel.keysTable();
        QCOMPARE(keys->rowCount(), 1);
        QCOMPARE(keys->item(0, 1)->text(), QString("3"));
        QCOMPARE(keys->item(0, 2)->text(), QString("—"));
        QCOMPARE(keys->horizontalHeaderItem(2)->text(), QString("Denied (no rate-limit row)"));
        QCoreApplication::processEvents();
        QCOMPARE(swept.count(), 0);
        QVERIFY(!panel.sweep());
    }
};

QTEST_MAIN(TestTrafficPanel)
#include "tst_trafficpanel.moc"
