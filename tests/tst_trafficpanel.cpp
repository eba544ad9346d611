// The app's Traffic panel: a log opened in the background, its busiest keys with their
// denials, a key's traffic shown in the rows, and a sweep whose point sets the limit, each one
// undo step. Headless (offscreen).
#include "advise_log.h"
#include "model/scenariodocument.h"
#include "panels/adviseview.h"
#include "panels/dryrunview.h"
#include "panels/trafficpanel.h"
#include "window/documentactions.h"
#include "cli_run.h"
#include "scenario/rows.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
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
    // Kong on the small log keeping 60 % (1.1.1.1 and 2.2.2.2, at most 5 each; 3.3.3.3's ten at
    // 0 ms the others'), windows on the clock (the log starts on a whole day): 1.1.1.1 sends 4 in
    // its first second (3 at 0 ms, 1 at 500 ms) and 5 in its minute, so the second's least limit
    // is 4 (3.3.3.3: 6 denied) and the minute's, hour's and day's 5 (5 denied); recommended, the
    // minute's 5 with the second's 4 under it: 3.3.3.3 gets 4 through, 6 denied.
    void aWindowGatewaysLimitAdvisedOnTheOpenLog()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("kong", 60));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QTableWidget* front = advise->front();
        QCOMPARE(front->horizontalHeaderItem(0)->text(), QString("window"));
        QCOMPARE(front->rowCount(), 5);
        const QStringList windows{"second", "minute", "hour", "day", "minute, second (recommended)"},
            limits{"4", "5", "5", "5", "5, 4"}, others{"6", "5", "5", "5", "6"};
        for (int r = 0; r < 5; ++r) {
            QCOMPARE(front->item(r, 0)->text(), windows[r]);
            QCOMPARE(front->item(r, 1)->text(), limits[r]);
            QCOMPARE(front->item(r, 2)->text(), QString("0"));
            QCOMPARE(front->item(r, 3)->text(), others[r]);
            QCOMPARE(front->item(r, 4)->text(), QString("1"));
        }
        QVERIFY(front->isColumnHidden(5));
        QCOMPARE(advise->chosen(), 4);
        QVERIFY2(advise->configText().contains("config:\n    second: 4\n    minute: 5\n"), qPrintable(advise->configText()));
        QVERIFY2(advise->summary().contains("Recommended: second 4, minute 5, 6 of the other keys' 10 requests denied, "
                                            "1 key capped."),
                 qPrintable(advise->summary()));
        QVERIFY(advise->chart()->chart() && advise->chart()->chart()->series().size() == 3);
        front->setCurrentCell(1, 0); // the minute alone
        QVERIFY2(advise->configText().contains("config:\n    minute: 5\n") && !advise->configText().contains("second:"),
                 qPrintable(advise->configText()));
        // In the rows: the minute's 5 over 3.3.3.3's ten at 0 ms, the key it denies most.
        QVERIFY(advise->showInRows());
        const Scenario& shown = document.scenario();
        QCOMPARE(QString::fromStdString(shown.title), QString("Advised for Kong (rate-limiting): minute 5"));
        QVERIFY(shown.explicitArrivals == std::vector<Nanos>(10, 0));
        const AlgorithmTrace row = simulateRow(shown, resolveRowInputs(shown), 0);
        QCOMPARE(row.metrics.allowed, 5);
        QCOMPARE(row.metrics.denied, 5);
    }

    // express-rate-limit on the small log keeping 60 %: its windows start at each key's first
    // request, so 1.1.1.1's second holds 4 (3 at 0 ms, 1 at 500 ms) and its minute 5; a minute
    // recommended. Then what the products cannot be given, in the window's words, and back to
    // nginx's columns.
    void windowGatewaysOtherThanKong()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QTableWidget* front = advise->front();
        QVERIFY(advise->advise("express", 60));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(front->horizontalHeaderItem(0)->text(), QString("windowMs"));
        QCOMPARE(front->rowCount(), 4);
        QCOMPARE(front->item(1, 0)->text(), QString("60000 (recommended)"));
        QCOMPARE(front->item(0, 1)->text(), QString("4"));
        QCOMPARE(front->item(1, 1)->text(), QString("5"));
        QCOMPARE(advise->configText(), QString("{windowMs: 60000, limit: 5}\n"));
        // What the product cannot be given is refused in the window's words.
        QVERIFY(advise->advise("aws-waf", 60, {}, "10/1m"));
        QVERIFY(done.wait(10'000) || done.count() > 1);
        QVERIFY2(advise->summary().startsWith("The cap: AWS WAF lets a key's burst through whole until a check sees it"),
                 qPrintable(advise->summary()));
        advise->setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "user");
        QVERIFY(advise->advise("cloudflare", 60));
        QVERIFY(done.wait(10'000) || done.count() > 2);
        QCOMPARE(advise->summary(), QString("The log's key: the written rule counts by the client's IP (ip.src): only ip"));
        // Back to nginx: the table's columns are a front's again.
        advise->setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "ip");
        QVERIFY(advise->advise("nginx", 60));
        QVERIFY(done.wait(10'000) || done.count() > 3);
        QCOMPARE(front->horizontalHeaderItem(0)->text(), QString("Rate"));
        QCOMPARE(front->item(1, 0)->text(), QString("24r/m (recommended)"));
    }

    // The origin's goal in the window, as `advise --origin 9/1s` (tst_cli_advise derives the
    // column: 10, 10, 9, 8 in any second): 1r/s with burst 3, the row of least rate that meets it.
    void anOriginGoalInTheWindow()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("nginx", 60, {}, {}, {}, "9/1s"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QTableWidget* front = advise->front();
        QVERIFY(!front->isColumnHidden(6) && front->isColumnHidden(5));
        QCOMPARE(front->horizontalHeaderItem(6)->text(), QString("At the origin in 1 s"));
        const QStringList origin{"10", "10", "9", "8"};
        for (int r = 0; r < 4; ++r)
            QCOMPARE(front->item(r, 6)->text(), origin[r]);
        QCOMPARE(front->item(2, 0)->text(), QString("1r/s (recommended)"));
        QVERIFY2(advise->summary().contains("Recommended: 1r/s with burst 3, chosen for the origin: 6 of the other keys' "
                                            "10 requests denied") && advise->summary().contains(
                     "At the origin, at most 9 in any 1 s of the log (the goal 9: the row of lowest rate that meets it "
                     "and drains in time)."),
                 qPrintable(advise->summary()));
        QVERIFY(advise->advise("nginx", 60, {}, {}, {}, "7/1s"));
        QVERIFY(done.wait(10'000) || done.count() > 1);
        QVERIFY2(advise->summary().startsWith("The origin: no row of the nginx front"), qPrintable(advise->summary()));
        QVERIFY(advise->advise("nginx", 60, {}, {}, {}, "9"));
        QVERIFY(done.wait(10'000) || done.count() > 2);
        QVERIFY2(advise->summary().startsWith("The origin: "), qPrintable(advise->summary()));
    }

    // The goal among windows, as `advise --for express --origin 9/1s` (tst_cli_advise derives
    // it: 9 at 1000 ms, 10 at every longer window): the window of 1000 ms, the one meeting it.
    void anOriginGoalAmongTheWindows()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("express", 60, {}, {}, {}, "9/1s"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QTableWidget* front = advise->front();
        QVERIFY(!front->isColumnHidden(6));
        QCOMPARE(front->horizontalHeaderItem(6)->text(), QString("At the origin in 1 s"));
        const QStringList origin{"9", "10", "10", "10"};
        for (int r = 0; r < 4; ++r)
            QCOMPARE(front->item(r, 6)->text(), origin[r]);
        QCOMPARE(front->item(0, 0)->text(), QString("1000 (recommended)"));
        QCOMPARE(advise->configText(), QString("{windowMs: 1000, limit: 4}\n"));
        QVERIFY2(advise->summary().contains("At the origin, at most 9 in any 1 s of the log (the goal 9). Of the windows "
                                            "that meet it, the one denying the fewest requests."),
                 qPrintable(advise->summary()));
        QVERIFY(advise->advise("kong", 60, {}, {}, {}, "8/1s"));
        QVERIFY(done.wait(10'000) || done.count() > 1);
        QVERIFY2(advise->summary().startsWith("The origin: no Kong window"), qPrintable(advise->summary()));
        QVERIFY(advise->advise("kong", 60)); // no goal: the column hides again
        QVERIFY(done.wait(10'000) || done.count() > 2);
        QVERIFY(front->isColumnHidden(6));
    }

    // Kong's windows are the clock's: a key's 2 requests at 55 s and 2 at 65 s of a log that starts
    // on a whole day fall in two minutes, 2 each, so the minute's least limit is 2 and denies none.
    // In the rows they keep their time of day (t = 0 is the day's start), so the rows deny none
    // either: at t = 0 a whole second, the minute would hold all four.
    void clockWindowsKeepTheirTimeOfDayInTheRows()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        TrafficOptions o;
        o.format = LogFormat::Csv;
        const Traffic t = parseTraffic("time,ip\n1795392055,9.9.9.9\n1795392055,9.9.9.9\n1795392065,9.9.9.9\n"
                                       "1795392065,9.9.9.9\n", o, "k.csv");
        panel.setTraffic(std::make_shared<const Traffic>(t), "k.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("kong", 100));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(advise->front()->item(1, 0)->text(), QString("minute (recommended)"));
        QCOMPARE(advise->front()->item(1, 1)->text(), QString("2"));
        QCOMPARE(advise->front()->item(1, 3)->text(), QString("0"));
        QVERIFY(advise->showInRows());
        const Scenario& shown = document.scenario();
        QVERIFY(shown.explicitArrivals == (std::vector<Nanos>{55 * kNanosPerSecond, 55 * kNanosPerSecond,
                                                              65 * kNanosPerSecond, 65 * kNanosPerSecond}));
        const AlgorithmTrace row = simulateRow(shown, resolveRowInputs(shown), 0);
        QCOMPARE(row.metrics.allowed, 4);
        QCOMPARE(row.metrics.denied, 0);
    }

    // A limit advised on the open log, for nginx, as `ratelab advise --for nginx --keep 60` does:
    // advise_log.h's small log, whose front tst_advise derives by hand (keys a and b kept, c's 10
    // the others'): 1r/m burst 4 denies c 5, 24r/m burst 4 5 (recommended: the least rate whose
    // burst 4 drains within 10 s), 1r/s burst 3 6, 2r/s burst 2 7. The zone holds 3 addresses: 1m.
    // Choosing 2r/s shows its config; its dry run denies c's 7 of the log's 16 requests.
    void aLimitAdvisedOnTheOpenLog()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        QVERIFY(!advise->advise("nginx", 60)); // no log yet
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("nginx", 60));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QTableWidget* front = advise->front();
        QCOMPARE(front->rowCount(), 4);
        const QStringList rates{"1r/m", "24r/m (recommended)", "1r/s", "2r/s"}, bursts{"4", "4", "3", "2"},
            others{"5", "5", "6", "7"};
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(front->item(r, 0)->text(), rates[r]);
            QCOMPARE(front->item(r, 1)->text(), bursts[r]);
            QCOMPARE(front->item(r, 2)->text(), QString("0"));
            QCOMPARE(front->item(r, 3)->text(), others[r]);
            QCOMPARE(front->item(r, 4)->text(), QString("1"));
        }
        QCOMPARE(advise->chosen(), 1);
        QCOMPARE(advise->configText(), QString("limit_req_zone $binary_remote_addr zone=ratelab:1m rate=24r/m;\n"
                                               "limit_req zone=ratelab burst=4 nodelay;\nlimit_req_dry_run on;\n"));
        QVERIFY2(advise->summary().contains("Recommended: 24r/m with burst 4") && advise->summary().contains("5 of the other "
                                                                                                         "keys' 10 requests denied"),
                 qPrintable(advise->summary()));
        QVERIFY(advise->chart()->chart() && advise->chart()->chart()->series().size() == 3);
        front->setCurrentCell(3, 0); // the arrows or a click move the choice
        QCOMPARE(advise->chosen(), 3);
        const QString twoPerSecond("limit_req_zone $binary_remote_addr zone=ratelab:1m rate=2r/s;\n"
                                   "limit_req zone=ratelab burst=2 nodelay;\nlimit_req_dry_run on;\n");
        QCOMPARE(advise->configText(), twoPerSecond);
        for (QPushButton* b : advise->findChildren<QPushButton*>())
            if (b->text() == "Copy config te&xt")
                b->click();
        QCOMPARE(QApplication::clipboard()->text(), twoPerSecond);
        DryRunView* view = panel.dryRun();
        QSignalSpy ran(view, &DryRunView::finished);
        for (QPushButton* b : advise->findChildren<QPushButton*>())
            if (b->text() == "&Dry run this limit")
                b->click();
        QVERIFY(ran.wait(10'000) || ran.count() > 0);
        QVERIFY2(view->summary().startsWith("advised limit, row 4 (nginx) denies 7 of 16 requests."), qPrintable(view->summary()));
        // In the rows: 2r/s with burst 2 denies 3.3.3.3 seven (its ten at 0 ms: 1 + burst 2 pass) and
        // no other key, so its ten requests are shown under nginx's model of that config.
        const Scenario before = document.scenario();
        QVERIFY(advise->showInRows());
        const Scenario& shown = document.scenario();
        QCOMPARE(QString::fromStdString(shown.title), QString("Advised for nginx: 2r/s, burst 2"));
        QVERIFY(shown.algorithms == std::vector<Algorithm>{Algorithm::NginxLimitReq});
        QVERIFY(Rate::reduced(shown.config.rate().tokens, shown.config.rate().perNanos) == Rate::reduced(2, kNanosPerSecond));
        QCOMPARE(shown.config.nginxBurst(), 2);
        QVERIFY(shown.config.nginx().nodelay);
        QVERIFY(shown.explicitArrivals == std::vector<Nanos>(10, 0));
        const AlgorithmTrace row = simulateRow(shown, resolveRowInputs(shown), 0);
        QCOMPARE(row.metrics.allowed, 3);
        QCOMPARE(row.metrics.denied, 7);
        QVERIFY2(QString::fromStdString(shown.lesson).contains("over the 10 requests of 3.3.3.3 in the log"),
                 shown.lesson.c_str());
        QCOMPARE(document.undoStack()->undoText(), QString("Advised for nginx: 2r/s, burst 2"));
        document.undoStack()->undo(); // the rows the advice replaced
        QVERIFY(document.scenario().algorithms == before.algorithms);
        QVERIFY(document.scenario().explicitArrivals == before.explicitArrivals);
        // What the import refuses changes nothing, and says why.
        QSignalSpy refused(&document, &ScenarioDocument::refused);
        QVERIFY(!panel.showLimit("Mine", "not a rate limit", 2));
        QCOMPARE(refused.count(), 1);
        QVERIFY2(refused.front().front().toString().startsWith("Mine: "), qPrintable(refused.front().front().toString()));
        QVERIFY(document.scenario().explicitArrivals == before.explicitArrivals);
        // A cap of 10 in any minute (tst_cli_advise derives it): 5r/m with burst 4, 9 in a minute,
        // which does not drain in 10 s; the column says what each row lets one key through.
        done.clear();
        QVERIFY(front->isColumnHidden(5));
        QVERIFY(advise->advise("nginx", 60, {}, "10/1m"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY(!front->isColumnHidden(5));
        QCOMPARE(front->horizontalHeaderItem(5)->text(), QString("Most in 60 s"));
        const QStringList capped{"1r/m", "5r/m (recommended)", "1r/s", "2r/s"}, most{"5", "9", "64", "123"};
        QCOMPARE(front->rowCount(), 4);
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(front->item(r, 0)->text(), capped[r]);
            QCOMPARE(front->item(r, 5)->text(), most[r]);
        }
        QVERIFY2(advise->summary().contains("Recommended: 5r/m with burst 4, of the rates that let one key through at "
                                            "most 10 in any 60 s, none drains its burst within 10 s"),
                 qPrintable(advise->summary()));
        done.clear();
        QVERIFY(advise->advise("nginx", 60, {}, "4/1m"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(advise->summary().startsWith("The cap: no nginx limit lets through every request that must pass"),
                 qPrintable(advise->summary()));
        done.clear();
        QVERIFY(advise->advise("nginx", 60, {}, "ten a minute"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(advise->summary().startsWith("The cap: must be requests/window"), qPrintable(advise->summary()));
        // Envoy's filter is one bucket for every request: no other keys, so no columns of theirs.
        done.clear();
        QVERIFY(advise->advise("envoy", 99));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(front->horizontalHeaderItem(2)->text(), QString("Requests denied"));
        QVERIFY(front->isColumnHidden(3) && front->isColumnHidden(4));
        QVERIFY2(advise->summary().startsWith("Envoy (local_ratelimit) keeps one bucket for every request"),
                 qPrintable(advise->summary()));
        // Its rows are over the whole log: 14 requests at 0 ms, one at 500 and one at 1000.
        QVERIFY(advise->showInRows());
        QVERIFY(document.scenario().algorithms == std::vector<Algorithm>{Algorithm::EnvoyLocal});
        std::vector<Nanos> all(14, 0);
        all.push_back(500 * kNanosPerSecond / 1000);
        all.push_back(kNanosPerSecond);
        QVERIFY(document.scenario().explicitArrivals == all);
    }

    // The keys that must pass, by pattern, as `advise --pass` (tst_cli_advise derives it): at 33 %
    // only 2.2.2.2 is kept by count, 3.3.3.3 by the pattern; its ten at once need burst 9, so
    // 1r/m and the recommended 54r/m, both with 9. A pattern no key matches is refused.
    void keysThatMustPassInTheWindow()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        panel.setTraffic(std::make_shared<const Traffic>(advisetest::smallLog()), "small.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("nginx", 33, "3\\.3\\.3\\.3"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(advise->front()->rowCount(), 2);
        QCOMPARE(advise->front()->item(1, 0)->text(), QString("54r/m (recommended)"));
        QCOMPARE(advise->front()->item(1, 1)->text(), QString("9"));
        // Its chart takes the palette's look, and a theme changed later.
        QCOMPARE(advise->chart()->chart()->theme(), QChart::ChartThemeLight);
        QPalette dark = advise->palette();
        dark.setColor(QPalette::Base, Qt::black);
        advise->setPalette(dark);
        QCOMPARE(advise->chart()->chart()->theme(), QChart::ChartThemeDark);
        QVERIFY2(advise->summary().startsWith("nginx, keeping every request of the 1 key with at most 1 request each "
                                              "and 1 busier key matching '3\\.3\\.3\\.3'. Recommended: 54r/m with burst 9"),
                 qPrintable(advise->summary()));
        done.clear();
        QVERIFY(advise->advise("nginx", 33, "9.*"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(advise->summary(), QString("The pattern: '9.*' matches no key of the log (a whole key must match)"));
        QVERIFY(advise->front()->isHidden());
    }

    // Requests let by their path, as `advise --pass-path` (nginx only): the small log with four of
    // 3.3.3.3's ten requests at 0 sent to /health. At 60 % 1.1.1.1 and 2.2.2.2 are kept (rank 2
    // of 1, 5, 6 counted), so the front is aLimitAdvisedOnTheOpenLog's, and 3.3.3.3's six counted
    // at once lose 6 - (burst + 1): 1 at 1r/m and 24r/m (burst 4), 2 at 1r/s (3), 3 at 2r/s (2).
    // The config's map lets /health by. Shown in the rows, the key denied most is 3.3.3.3, over
    // the six requests the config counts. The box is nginx's alone.
    void requestsLetByThePathInTheWindow()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        AdviseView* advise = panel.adviseView();
        QByteArray log = "time,ip,path\n";
        for (int i = 0; i < 3; ++i)
            log += "1795392000.000,1.1.1.1,/\n";
        log += "1795392000.000,2.2.2.2,/\n";
        for (int i = 0; i < 10; ++i)
            log += i < 4 ? "1795392000.000,3.3.3.3,/health\n" : "1795392000.000,3.3.3.3,/\n";
        log += "1795392000.500,1.1.1.1,/\n1795392001.000,1.1.1.1,/\n";
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        panel.setTraffic(std::make_shared<const Traffic>(parseTraffic(log.toStdString(), o, "let.csv")), "let.csv");
        QSignalSpy done(advise, &AdviseView::finished);
        QVERIFY(advise->advise("nginx", 60, {}, {}, "/health"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QTableWidget* front = advise->front();
        QCOMPARE(front->rowCount(), 4);
        const QStringList rates{"1r/m", "24r/m (recommended)", "1r/s", "2r/s"}, others{"1", "1", "2", "3"};
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(front->item(r, 0)->text(), rates[r]);
            QCOMPARE(front->item(r, 3)->text(), others[r]);
        }
        QVERIFY2(advise->summary().endsWith("capped. The 4 requests whose path matches '/health' are let by uncounted, "
                                            "the most (4) from 3.3.3.3: whoever sends that path passes at any limit."),
                 qPrintable(advise->summary()));
        QCOMPARE(advise->configText(), QString("map $request_uri $ratelab_key {\n    \"~^(?:/health)$\" \"\";\n"
                                               "    default $binary_remote_addr;\n}\n"
                                               "limit_req_zone $ratelab_key zone=ratelab:1m rate=24r/m;\n"
                                               "limit_req zone=ratelab burst=4 nodelay;\nlimit_req_dry_run on;\n"));
        QVERIFY(advise->showInRows());
        QCOMPARE(document.scenario().explicitArrivals->size(), std::size_t(6));
        QVERIFY2(QString::fromStdString(document.scenario().lesson)
                     .contains("over the 6 requests of 3.3.3.3 in the log that the config counts (it lets by those whose "
                               "path matches '/health')"),
                 document.scenario().lesson.c_str());
        // A path no request has is refused in the window's words; another gateway hides the box.
        done.clear();
        QVERIFY(advise->advise("nginx", 60, {}, {}, "/nothing"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QCOMPARE(advise->summary(), QString("The path: '/nothing' matches no request's path (the whole path as logged "
                                            "must match, its query string included)"));
        QLineEdit* box = nullptr;
        for (QLineEdit* e : advise->findChildren<QLineEdit*>())
            if (e->accessibleName() == "Requests let by the limit, by path")
                box = e;
        QVERIFY(box);
        QComboBox* gateway = advise->findChild<QComboBox*>();
        for (const char* product : {"nginx", "traefik", "kong", "envoy"}) {
            gateway->setCurrentIndex(gateway->findData(product));
            QVERIFY2(!box->isHidden(), product);
        }
        gateway->setCurrentIndex(gateway->findData("spring"));
        QVERIFY(box->isHidden());
        // Kong lets the path by with a route of its own, the limit on the other: its windows are
        // advised on the rest, the same 4 requests let by.
        done.clear();
        QVERIFY(advise->advise("kong", 60, {}, {}, "/health"));
        QVERIFY(done.wait(10'000) || done.count() > 0);
        QVERIFY2(advise->summary().contains("The 4 requests whose path matches '/health' are let by uncounted, the most (4) "
                                            "from 3.3.3.3"),
                 qPrintable(advise->summary()));
        QVERIFY(advise->configText().contains("  - name: ratelab-let-by\n    paths:\n    - '~/{0}(?:/health)$'\n"));
        QVERIFY(advise->showInRows());
        QCOMPARE(document.scenario().explicitArrivals->size(), std::size_t(6));
    }

    // The rows leave out what the config lets by as its product reads a path: Traefik without the
    // query string, so 3.3.3.3's 4 requests of /health?probe=1 are let by and 6 of its 10 shown;
    // nginx reads $request_uri as sent, where /health matches none of them, and refuses it.
    void theRowsLetByAsTheProductReadsThePath()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        std::string log = "time,ip,path\n";
        for (int i = 0; i < 10; ++i)
            log += i < 4 ? "1795392000.000,3.3.3.3,/health?probe=1\n" : "1795392000.000,3.3.3.3,/\n";
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        panel.setTraffic(std::make_shared<const Traffic>(parseTraffic(log, o, "q.csv")), "q.csv");
        const QByteArray config = "limit_req_zone $binary_remote_addr zone=a:1m rate=2r/s;\nlimit_req zone=a burst=2 nodelay;\n";
        QVERIFY(panel.showLimit("Traefik's", config, 0, "/health", "traefik"));
        QCOMPARE(document.scenario().explicitArrivals->size(), std::size_t(6));
        QSignalSpy refused(&document, &ScenarioDocument::refused);
        QVERIFY(!panel.showLimit("nginx's", config, 0, "/health", "nginx"));
        QCOMPARE(refused.count(), 1);
    }

    // A key's requests keep their place within the clock's second: a log starting at .500 s with
    // requests 200 and 700 ms in puts them at 700 and 1200 ms of the rows, whose t = 0 is the
    // whole second, so a product counting the clock's seconds counts them in two, as the log's
    // clock does.
    void aKeysRowsKeepTheLogsSecond()
    {
        ScenarioDocument document;
        TrafficPanel panel(&document);
        Traffic t;
        t.keyNames = {"A"};
        t.keys = {0, 0};
        t.times = {200 * kNanosPerSecond / 1000, 700 * kNanosPerSecond / 1000};
        t.startEpochNanos = 1'795'392'000 * kNanosPerSecond + kNanosPerSecond / 2;
        panel.setTraffic(std::make_shared<const Traffic>(t), "mid.csv");
        QVERIFY(panel.showKey(0));
        QVERIFY(*document.scenario().explicitArrivals
                == (std::vector<Nanos>{700 * kNanosPerSecond / 1000, 1200 * kNanosPerSecond / 1000}));
    }

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
        s.concurrency = {GateSpec::parse("none")};
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
