// The app's document is the exact scenario: what a file says is what the app simulates, shows
// and saves back, whatever its controls can show. Values outside every control's range, a 3/7
// rate, a 0 seed and 2,000,000 requests survive opening, showing, editing another value, undo,
// revert, saving and the next start.
#include "cli_run.h"
#include "engine_helpers.h"
#include "panels/controlpanel.h"
#include "window/documentactions.h"
#include "model/scenariodocument.h"
#include "scenariofile.h"
#include "panels/slidervalue.h"
#include "chart/summarytable.h"
#include "chart/theme.h"
#include "window_test.h"

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QLineEdit>
#include <QLocale>
#include <QSlider>
#include <QUndoStack>

using namespace ratelab;
using namespace ratelab::ui;
using namespace clitest;

namespace {

// kFile holds a value outside the range of every control it has: limit 500 and capacity 1000
// (sliders 1..100), window 0.0025 s (0.1..60), delay 0.0005 s (shown to 3 decimals before),
// 2,000,000 requests (1..1,000,000), rate 3/7 (a fraction), seed 0 (1..1000).
QByteArray fileText(std::int64_t n)
{
    return QByteArray(R"({
  "format": "ratelab-scenario", "version": 1,
  "title": "Outside every control", "lesson": "Nothing here fits a slider.",
  "algorithms": ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket",
                 "leaky_bucket", "leaky_bucket_queue", "gcra"],
  "limit": 500, "window": "0.0025", "capacity": 1000, "rate": "3/7",
  "pattern": {"kind": "uniform", "n": )") + QByteArray::number(qint64(n)) + R"(, "delay": "0.0005", "start": "0",
              "size": 5, "period": "1", "lambda": "2", "seed": 0, "gap": "0.001"}
})";
}

// expected is the same scenario built by hand, not by the file reader.
Scenario expected(std::int64_t n)
{
    Scenario s;
    s.title = "Outside every control";
    s.lesson = "Nothing here fits a slider.";
    s.config = LimiterConfig::make(500, 2'500'000, 1000, Rate{3, 7 * kNanosPerSecond});
    s.pattern.count = n;
    s.pattern.delayNanos = 500'000;
    s.pattern.seed = 0;
    return s;
}

QStringList summaryRow(const SummaryTable* t, int r)
{
    QStringList cells;
    for (int c = 0; c < t->columnCount(); ++c)
        if (!t->isColumnHidden(c)) // the clients' and cluster's columns show only with them
            cells << t->item(r, c)->text();
    return cells;
}

} // namespace

class TestDocument : public WindowTest {
    Q_OBJECT

    QString m_path;  // 2,000,000 requests
    QString m_small; // the same values with 3,000 requests, for the tests that edit

    QString writeFile(const QString& name, std::int64_t n)
    {
        const QString path = m_config.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(fileText(n)) < 0)
            return {};
        return path;
    }

    ControlPanel* controls() const { return m_window->controls(); }
    ScenarioDocument* doc() const { return m_window->document(); }

private slots:
    void initTestCase()
    {
        useScratchSettings();
        m_path = writeFile("outside.ratelab.json", 2'000'000);
        m_small = writeFile("small.ratelab.json", 3000);
        QVERIFY(!m_path.isEmpty() && !m_small.isEmpty());
    }

    void init()
    {
        openWindow(Scenario{});
        const bool big = QByteArray(QTest::currentTestFunction()).startsWith("big");
        QVERIFY(m_window->documents()->openFile(big ? m_path : m_small));
        settle();
    }

    void cleanup() { m_window.reset(); }

    void bigOpenedExactlyAndShownAsItIs()
    {
        QVERIFY(doc()->scenario() == expected(2'000'000));
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(2'000'000));
        QCOMPARE(frame().trace->arrivals.back(), Nanos(1'999'999) * 500'000);
        // Each control shows the exact value, typed; a slider pins at the end it passes.
        QCOMPARE(controls()->limit()->field()->text(), QString("500"));
        QCOMPARE(controls()->limit()->slider()->value(), controls()->limit()->slider()->maximum());
        QCOMPARE(controls()->window()->field()->text(), QString("0.0025"));
        QCOMPARE(controls()->window()->slider()->value(), controls()->window()->slider()->minimum());
        QCOMPARE(controls()->capacity()->field()->text(), QString("1000"));
        QCOMPARE(controls()->rate()->field()->text(), QString("3/7"));
        QCOMPARE(controls()->delay()->field()->text(), QString("0.0005"));
        QCOMPARE(controls()->requests()->field()->text(), QString("2000000"));
        QCOMPARE(controls()->seed()->field()->text(), QString("0"));
        QVERIFY(!controls()->linked());
        QCOMPARE(m_window->windowTitle(), QString("outside.ratelab.json[*] — RateLab"));
        QVERIFY(!m_window->isWindowModified());
    }

    void bigSummaryIsTheSimulationOfTheExactScenario()
    {
        // The core's simulation of the scenario built by hand, cell by cell.
        const Trace trace = test::traceOf(expected(2'000'000));
        const SummaryTable* table = m_window->dashboard()->summary();
        QCOMPARE(table->rowCount(), 7);
        for (int r = 0; r < 7; ++r) {
            const Metrics& m = trace.results[std::size_t(r)].metrics;
            const QStringList row = summaryRow(table, r);
            QCOMPARE(row[1], QLocale().toString(m.allowed));
            QCOMPARE(row[2], QLocale().toString(m.denied));
            QCOMPARE(row[4], QLocale().toString(m.maxInWindow));
        }
    }

    void summaryEqualsCompareOnTheSameFile()
    {
        // The same out-of-range values with 3,000 requests, through the real `ratelab compare
        // --scenario` on the same file.
        const Run r = runRatelab({"compare", "--scenario", m_small});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        const QJsonObject results = parseJson(r.out).value("results").toObject();
        const SummaryTable* table = m_window->dashboard()->summary();
        QCOMPARE(table->rowCount(), 7);
        for (int row = 0; row < 7; ++row) {
            const Algorithm a = frame().trace->results[std::size_t(row)].algorithm;
            const QJsonObject m = results.value(QString::fromUtf8(algorithmId(a).data())).toObject();
            QVERIFY(!m.isEmpty());
            QCOMPARE(summaryRow(table, row)[1], QLocale().toString(m.value("allowed").toInteger()));
            QCOMPARE(summaryRow(table, row)[2], QLocale().toString(m.value("denied").toInteger()));
            QCOMPARE(summaryRow(table, row)[4], QLocale().toString(m.value("max_in_window").toInteger()));
        }
        // A bucket of 1000 refilling 3/7 a second denies most of 3,000 requests in 1.5 s.
        QVERIFY(summaryRow(table, 3)[2] != "0");
    }

    // checks that File > Export as web page writes the bytes `ratelab export --html` writes for
    // the same scenario file at the same size (the export size's default, 1600x900) in the same
    // theme (the command's light one; the window exports in its own), and that the menu holds it.
    void exportAsWebPageWritesWhatTheCommandWrites()
    {
        applyTheme(Theme::Light);
        const QString fromWindow = m_config.filePath("window.html"), fromCommand = m_config.filePath("command.html");
        QCOMPARE(m_window->documents()->exportPageTo(fromWindow), QString());
        const Run r = runRatelab({"export", "--scenario", m_small, "--width", "1600", "--height", "900", "--html", fromCommand});
        QCOMPARE(r.code, 0);
        QFile a(fromWindow), b(fromCommand);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray page = a.readAll();
        QVERIFY(page.startsWith("<!DOCTYPE html>"));
        QVERIFY(page == b.readAll());
        bool inMenu = false;
        for (const QAction* action : m_window->findChildren<QAction*>())
            inMenu = inMenu || action->text() == "Export as &web page…";
        QVERIFY(inMenu);
        // A directory where the page would go is refused with why, and left as it was.
        QVERIFY(!m_window->documents()->exportPageTo(m_config.path()).isEmpty());
        QVERIFY(QFileInfo(m_config.path()).isDir());
    }

    void bigSavingWritesTheSameScenario()
    {
        const QString copy = m_config.filePath("copy.ratelab.json");
        QVERIFY(m_window->documents()->saveTo(copy));
        const io::LoadResult reread = io::loadScenarioFile(copy);
        QVERIFY2(reread.scenario, qPrintable(reread.error));
        QVERIFY(*reread.scenario == expected(2'000'000));
        QCOMPARE(m_window->windowTitle(), QString("copy.ratelab.json[*] — RateLab"));
    }

    void touchingOneControlChangesOnlyItsValue()
    {
        controls()->limit()->type("7");
        settle();
        Scenario want = expected(3000);
        want.config = LimiterConfig::make(7, want.config.windowNanos(), 1000, want.config.rate());
        QVERIFY(doc()->scenario() == want);
        QCOMPARE(frame().trace->config.limit(), std::int64_t(7));
        QVERIFY(m_window->isWindowModified());
        // Undo takes it back exactly and the document is clean again; redo restores the edit.
        doc()->undoStack()->undo();
        settle();
        QVERIFY(doc()->scenario() == expected(3000));
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(controls()->limit()->field()->text(), QString("500"));
        doc()->undoStack()->redo();
        QVERIFY(doc()->scenario() == want);
        // Revert drops the edit, reading the file again.
        QVERIFY(m_window->documents()->revert());
        settle();
        QVERIFY(doc()->scenario() == expected(3000));
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(doc()->undoStack()->count(), 0);
    }

    void draggingASliderEditsOneStepOfUndo()
    {
        QSlider* slider = controls()->limit()->slider();
        slider->setValue(100);
        slider->setValue(200);
        slider->setValue(300);
        settle();
        QCOMPARE(doc()->undoStack()->count(), 1); // one drag, one undo step
        QCOMPARE(doc()->scenario().config.limit(), std::int64_t(31)); // 1 + 0.3 * 99 of 1..100, rounded
        QCOMPARE(doc()->scenario().config.windowNanos(), Nanos(2'500'000)); // untouched
        doc()->undoStack()->undo();
        QVERIFY(doc()->scenario() == expected(3000));
    }

    void refusedTextChangesNothing()
    {
        for (const char* text : {"0", "1.5", " 8", "abc", "1000000001"}) {
            controls()->limit()->type(text);
            QVERIFY2(!controls()->limit()->problem().isEmpty(), text);
            QVERIFY(doc()->scenario() == expected(3000));
        }
        controls()->limit()->type("0");
        QCOMPARE(controls()->limit()->problem(), QString("must be at least 1 (got 0)"));
        controls()->rate()->type("3/0");
        QVERIFY(controls()->rate()->problem().contains("greater than 0"));
        QCOMPARE(doc()->undoStack()->count(), 0);
        controls()->rate()->type("5/11"); // a fraction typed is taken exactly
        QCOMPARE(doc()->scenario().config.rate(), (Rate{1, 2'200'000'000}));
    }

    void theNextStartRestoresTheDocument()
    {
        controls()->seed()->type("18446744073709551615");
        const Scenario edited = doc()->scenario();
        QCOMPARE(edited.pattern.seed, std::uint64_t(18446744073709551615ULL));
        m_window->close(); // the settings keep the document, unsaved edit and all
        m_window = std::make_unique<MainWindow>();
        QVERIFY(doc()->scenario() == edited);
        QCOMPARE(doc()->filePath(), QFileInfo(m_small).absoluteFilePath());
        QVERIFY(doc()->isModified());
        QVERIFY(m_window->isWindowModified());
    }
};

QTEST_MAIN(TestDocument)
#include "tst_document.moc"
