// The desktop explorer, driven as a user would: sliders, checkboxes, files and presets (hovering,
// clicking and zooming the charts are in tst_mainwindow_chart).
#include "limiters/algorithm_facts.h"
#include "chart/chartstack.h"
#include "engine_helpers.h"
#include "scenario/rows.h"
#include "panels/controlpanel.h"
#include "chart/dashboard.h"
#include "window/documentactions.h"
#include "panels/explainpanel.h"
#include "panels/playbackbar.h"
#include "panels/lessonpanel.h"
#include "presets.h"
#include "window/mainwindow.h"
#include "model/pipeline.h"
#include "engine/attempt_log.h"
#include "engine/chunk_pool.h"
#include "scenario/scenario.h"
#include "chart/rowchart.h"
#include "model/scenariodocument.h"
#include <QUndoStack>
#include "panels/slidervalue.h"
#include "chart/summarytable.h"
#include "chart/timeaxis.h"
#include "window_test.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QGroupBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineSeries>
#include <QSlider>
#include <QTemporaryDir>
#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QTest>
#include <QTimer>
#include <QValueAxis>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

// mnemonicOf returns the letter a single & marks in text, upper case ("&&" is a literal &), or
// a null QChar when none is marked.
QChar mnemonicOf(const QString& text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '&')
            continue;
        if (text[i + 1] == '&') {
            ++i;
            continue;
        }
        return text[i + 1].toUpper();
    }
    return {};
}

// mnemonicText is the text whose marked letter w answers to with Alt, or empty: a button's, a
// group box's, and a label's that has a buddy (without one, Alt and its letter do nothing).
QString mnemonicText(const QWidget* w)
{
    if (auto* b = qobject_cast<const QAbstractButton*>(w))
        return b->text();
    if (auto* g = qobject_cast<const QGroupBox*>(w))
        return g->title();
    if (auto* l = qobject_cast<const QLabel*>(w); l && l->buddy())
        return l->text();
    return {};
}

} // namespace

class TestMainWindow : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s

    void cleanup() { m_window.reset(); }

    // Alt and a menu's letter open that menu: no widget of the window takes the same letter (Alt+F
    // gave the focus to "Capacity and rate &follow limit, window", Alt+E to "&Edit title and
    // lesson", instead of the File and Edit menus). Every widget counts, shown or not: a group
    // ticked on or a panel raised shows its own. Within a menu, no two items share a letter (the
    // letter would only move between them). The collisions are listed, all at once.
    void noMnemonicTakesAMenusLetter()
    {
        QMap<QChar, QString> menus;
        QStringList collisions;
        for (QAction* a : m_window->menuBar()->actions()) {
            const QChar c = mnemonicOf(a->text());
            QVERIFY2(!c.isNull(), qPrintable(a->text()));
            if (menus.contains(c))
                collisions << a->text() + " and the menu " + menus[c];
            menus[c] = a->text();
            QMap<QChar, QString> items;
            for (QAction* item : a->menu()->actions()) {
                const QChar i = mnemonicOf(item->text());
                if (i.isNull())
                    continue;
                if (items.contains(i))
                    collisions << item->text() + " and " + items[i] + " in " + a->text();
                items[i] = item->text();
            }
        }
        QCOMPARE(menus.size(), 5); // File, Edit, View, Playback, Help
        int widgets = 0;
        for (QWidget* w : m_window->findChildren<QWidget*>()) {
            if (m_window->menuBar()->isAncestorOf(w) || qobject_cast<QMenu*>(w->window()))
                continue;
            const QChar c = mnemonicOf(mnemonicText(w));
            if (c.isNull())
                continue;
            ++widgets;
            if (menus.contains(c))
                collisions << mnemonicText(w) + " and the menu " + menus[c];
        }
        QVERIFY2(widgets >= 20, qPrintable(QString::number(widgets))); // the settings' boxes and groups
        QVERIFY2(collisions.isEmpty(), qPrintable(collisions.join("; ")));
    }

    void opensWithTheDefaultComparison()
    {
        QCOMPARE(m_window->windowTitle(), QString("Untitled[*] — RateLab"));
        QVERIFY(!m_window->isWindowModified());
        QCOMPARE(charts()->rowCount(), 7);
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(15));
        // The reference case: the token bucket admits 11.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::TokenBucket)].metrics.allowed, std::int64_t(11));
        QCOMPARE(m_window->dashboard()->summary()->rowCount(), 7);
        QCOMPARE(m_window->dashboard()->summary()->item(3, 1)->text(), QString("11"));
    }

    // A request for exactly the frame being built does not restart it; a different one does.
    void aRepeatedRequestDoesNotRestartTheRunningJob()
    {
        Pipeline pipeline;
        Scenario s;
        pipeline.request(s, {}, 300);
        pipeline.request(s, {}, 300);
        pipeline.request(s, {}, 300);
        QTRY_VERIFY(pipeline.isIdle());
        QCOMPARE(pipeline.jobsStarted(), std::size_t(1));
        pipeline.request(s, {}, 300);
        pipeline.request(s, {}, 301);
        QTRY_VERIFY(pipeline.isIdle());
        QCOMPARE(pipeline.jobsStarted(), std::size_t(3));
    }

    // The engine's log chunks a replaced frame frees are kept for the next frame, and go back to
    // the system once no log has used the pool for a while; so do those of a log the engine ran
    // outside any frame (a dry run's, an advice's).
    void logChunksGoBackOnceTheDragIsOver()
    {
        releaseKeptChunks();
        Pipeline pipeline;
        Scenario s;
        s.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local}); // rows the engine logs
        pipeline.request(s, {}, 300);
        QTRY_VERIFY(pipeline.isIdle());
        s.config = LimiterConfig::make(s.config.limit() + 1, s.config.windowNanos());
        pipeline.request(s, {}, 300);
        QTRY_VERIFY(pipeline.isIdle());
        QVERIFY(keptChunkBytes() > 0); // the first frame's logs, freed as the second replaced it
        QTRY_COMPARE_WITH_TIMEOUT(keptChunkBytes(), std::size_t(0), 10000);
        {
            ChunkedLog<LoggedAttempt> log;
            log.push_back(LoggedAttempt{});
        }
        QVERIFY(keptChunkBytes() >= std::size_t(1024 * 40)); // its first chunk: 1 Ki entries of 40 bytes
        QTRY_COMPARE_WITH_TIMEOUT(keptChunkBytes(), std::size_t(0), 10000);
    }

    // A frame's metrics equal those of the scenario's rows run whole after each kind of change: the
    // limit (which reuses the arrivals and their window lookback), the window (a new lookback) and
    // the requests.
    void metricsFollowLimitWindowAndRequestChanges()
    {
        const auto check = [this] {
            settle();
            const Trace want = test::traceOf(m_window->document()->scenario());
            const auto& got = frame().trace->results;
            QCOMPARE(got.size(), want.results.size());
            for (std::size_t r = 0; r < got.size(); ++r) {
                QCOMPARE(got[r].metrics.allowed, want.results[r].metrics.allowed);
                QCOMPARE(got[r].metrics.maxInWindow, want.results[r].metrics.maxInWindow);
            }
        };
        m_window->controls()->requests()->type("300");
        check();
        m_window->controls()->limit()->type("4");
        check();
        m_window->controls()->window()->type("2");
        check();
        m_window->controls()->limit()->type("7");
        check();
        m_window->controls()->delay()->type("0.02");
        check();
    }

    void movingTheLimitSliderResimulatesAndRedraws()
    {
        RowChart* fixed = rowOf(Algorithm::FixedWindow);
        const QList<QPointF> before = fixed->levelPoints();
        QSlider* slider = m_window->controls()->limit()->slider();
        // Drag the limit slider down to its lowest position: limit 1.
        slider->setValue(slider->minimum());
        settle();
        QCOMPARE(m_window->controls()->limit()->value(), 1.0);
        QCOMPARE(frame().trace->config.limit(), std::int64_t(1));
        // Fixed window with limit 1 over 15 requests in one window admits exactly 1.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::FixedWindow)].metrics.allowed, std::int64_t(1));
        fixed = rowOf(Algorithm::FixedWindow);
        const QList<QPointF> after = fixed->levelPoints();
        QVERIFY(after != before);
        double maxLevel = 0;
        for (const QPointF& p : after)
            maxLevel = std::max(maxLevel, p.y());
        QCOMPARE(maxLevel, 1.0); // the drawn count never exceeds the new limit
    }

    void typingAValueIsTheSameAsDragging()
    {
        m_window->controls()->delay()->type("1"); // typed and confirmed
        settle();
        QCOMPARE(frame().trace->arrivals.at(1), Nanos(1'000'000'000));
        // One request a second is exactly the refill rate: the token bucket admits all 15.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::TokenBucket)].metrics.allowed, std::int64_t(15));
        QCOMPARE(m_window->controls()->delay()->slider()->value(), 200); // 1 s of 0..5 s on 1000 steps
    }

    void uncheckingAnAlgorithmRemovesItsRow()
    {
        QVERIFY(rowOf(Algorithm::Gcra));
        m_window->controls()->algorithmBox(Algorithm::Gcra)->setChecked(false);
        settle();
        QCOMPARE(charts()->rowCount(), 6);
        QVERIFY(!rowOf(Algorithm::Gcra));
        QCOMPARE(m_window->dashboard()->summary()->rowCount(), 6);
        m_window->controls()->algorithmBox(Algorithm::Gcra)->setChecked(true);
        settle();
        QCOMPARE(charts()->rowCount(), 7);
    }

    // The worst pattern is the first row's, as its box says (unticking the token bucket
    // in n-per-t left its worst case as the traffic): it follows the new first row, and the box
    // names whose it is. The fixed window's worst in any 10 s at 10 per 10 s is 2L = 20, all
    // admitted; the token bucket's was C + r T - 1 = 19. Undo brings the bucket's back.
    void theWorstPatternFollowsTheFirstRow()
    {
        QVERIFY(m_window->documents()->openPreset("n-per-t"));
        settle();
        QComboBox* pattern = m_window->controls()->pattern();
        QCOMPARE(pattern->itemText(int(PatternKind::Worst)), QString("Worst case of the token bucket"));
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(19));
        m_window->controls()->algorithmBox(Algorithm::TokenBucket)->setChecked(false);
        settle();
        QCOMPARE(m_window->document()->scenario().pattern.worstOf, Algorithm::FixedWindow);
        QCOMPARE(pattern->itemText(int(PatternKind::Worst)), QString("Worst case of the fixed window"));
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(20));
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::FixedWindow)].metrics.allowed, std::int64_t(20));
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(m_window->document()->scenario().pattern.worstOf, Algorithm::TokenBucket);
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(19));
    }

    // A badge's count says what it groups ("×19" at 9 ms stood for 10 requests at 0 s
    // and nine singles after them, with nothing to say so): its tooltip names the instants.
    void aBadgeSaysWhatItCounts()
    {
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow};
        s.config = LimiterConfig::make(100, 10 * kNanosPerSecond);
        std::vector<Nanos> t(10, 0);
        for (Nanos ms = 1; ms <= 9; ++ms)
            t.push_back(ms * 1'000'000);
        s.explicitArrivals = t;
        m_window->openScenario(s);
        settle();
        RowChart* row = charts()->row(0);
        (void)row->grab(); // paints the strip, and its badges
        QStringList tips;
        for (int y = 0; y < row->height(); y += 2)
            for (int x = 0; x < row->width(); x += 2)
                if (const QString tip = row->badgeTip(QPointF(x, y)); !tip.isEmpty() && !tips.contains(tip))
                    tips << tip;
        QCOMPARE(tips, QStringList{"19 at 10 instants from 0 s to 0.009 s (10 at 0 s)"});
    }

    void theTimeAxisSurvivesUntickingEveryAlgorithm()
    {
        for (Algorithm a : kAllAlgorithms)
            m_window->controls()->algorithmBox(a)->setChecked(false);
        settle();
        QCOMPARE(charts()->rowCount(), 0);
        m_window->controls()->algorithmBox(Algorithm::TokenBucket)->setChecked(true);
        settle();
        QCOMPARE(charts()->rowCount(), 1);
        // The axis spans the row's plot, not a point: its labels do not fall on each other.
        const QRectF plot = charts()->row(0)->plotRect();
        QTRY_COMPARE(charts()->axis()->plotRight() - charts()->axis()->plotLeft(), plot.width());
        QVERIFY(plot.width() > 200);
    }

    void patternParametersAppearOnlyForTheirPattern()
    {
        ControlPanel* panel = m_window->controls();
        QVERIFY(panel->delay()->isVisible());
        panel->pattern()->setCurrentIndex(int(PatternKind::Burst));
        settle();
        QVERIFY(!panel->delay()->isVisible());
        QCOMPARE(frame().scenario->pattern.kind, PatternKind::Burst);
        // 15 requests in bursts of 5 every second: 0, 0, 0, 0, 0, 1, ...
        QCOMPARE(frame().trace->arrivals.at(5), Nanos(1'000'000'000));
    }

    void savedScenarioReopensToIdenticalDecisions()
    {
        m_window->controls()->addRequests(3'000'000'000, 4); // sent by hand: part of the file
        settle();
        const Trace before = *frame().trace;
        const QString path = m_config.filePath("saved.ratelab.json");
        QVERIFY(m_window->documents()->saveTo(path));
        m_window->controls()->limit()->type("3");
        settle();
        QVERIFY(m_window->documents()->openFile(path));
        settle();
        QCOMPARE(frame().trace->arrivals, before.arrivals);
        for (std::size_t r = 0; r < before.results.size(); ++r)
            for (std::size_t i = 0; i < before.arrivals.size(); ++i) {
                QCOMPARE(decisionAt(*frame().trace, r, i).allowed, decisionAt(before, r, i).allowed);
                QCOMPARE(decisionAt(*frame().trace, r, i).retryAfter, decisionAt(before, r, i).retryAfter);
            }
    }

    void brokenFileIsRefusedAndTheCurrentScenarioKept()
    {
        const QString path = m_config.filePath("broken.ratelab.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"ratelab-scenario\", \"version\": 1, \"limit\": ");
        file.close();
        m_window->controls()->limit()->type("7");
        settle();
        const Scenario before = m_window->document()->scenario();
        // The refusal is a message box: note its text and close it.
        bool opened = true;
        const QString shown = messageShownBy([&] { opened = m_window->documents()->openFile(path); });
        QVERIFY(!opened);
        QVERIFY2(shown.contains("broken.ratelab.json"), qPrintable(shown));
        settle();
        QVERIFY(m_window->document()->scenario() == before);
        QCOMPARE(frame().trace->config.limit(), std::int64_t(7));
    }

    void everyPresetOpensFramedOnItsActivity()
    {
        for (const io::PresetInfo& info : io::presets()) {
            const io::LoadResult preset = io::loadPreset(info.id);
            QVERIFY(preset.scenario);
            m_window->openScenario(*preset.scenario);
            settle();
            const TimeRange view = frame().range;
            const auto span = activity(*frame().trace); // requests, and retries where clients retry
            QVERIFY(span);
            const auto [first, last] = *span;
            // The first and last decision inside the view, spanning at least half of it (a burst
            // at one instant: the recovery after it) unless a bucket's refill follows them.
            QVERIFY2(view.from <= first && last < view.to, qPrintable(info.id));
            bool bucket = false;
            for (const AlgorithmTrace& r : frame().trace->results)
                bucket = bucket || (facts(r.algorithm).reads == ConfigUse::CapacityRate && r.levelReplayable);
            QVERIFY2(bucket || first == last || 2 * (last - first) >= view.to - view.from, qPrintable(info.id));
            // The requests fill at least a ninth of the view, however long the refill after them.
            QVERIFY2(first == last || 9 * (last - first) >= view.to - view.from, qPrintable(info.id));
            // Where the refill fits that, the queue has drained inside the view: every delayed
            // request has left (seed-compare: 10 queued by 1.4 s leave one a second, to 10.9 s).
            const Trace& trace = *frame().trace;
            if (info.id == "seed-compare" || info.id == "token-vs-leaky") {
                for (std::size_t row = 0; row < trace.results.size(); ++row)
                    for (std::size_t i = 0; i < decisionCount(trace.results[row]); ++i)
                        QVERIFY2(timesOf(trace, row).at(i) + decisionAt(trace, row, i).delay < view.to, qPrintable(info.id));
                QVERIFY2(view.to > 10'900'000'000 || info.id != "seed-compare", qPrintable(info.id));
            }
            QVERIFY(!charts()->isZoomed());
        }
    }

    void aChangedPresetSaysWhatItIsBasedOn()
    {
        QVERIFY(m_window->documents()->openPreset("edge-burst"));
        settle();
        const std::string original = m_window->document()->scenario().title;
        QVERIFY(!m_window->lesson()->showsOriginalNote());
        m_window->controls()->limit()->type("5");
        settle();
        const QString based = QString::fromUtf8("Based on \u201c") + QString::fromStdString(original) + QString::fromUtf8("\u201d");
        QCOMPARE(QString::fromStdString(m_window->document()->scenario().title), based);
        QCOMPARE(m_window->lesson()->title(), based);
        QVERIFY(m_window->lesson()->showsOriginalNote());
        QVERIFY(Dashboard::describe(*frame().scenario).startsWith(based)); // the charts' title, and exports
        m_window->document()->undoStack()->undo(); // one step: the limit and the title
        settle();
        QCOMPARE(m_window->document()->scenario().title, original);
        QVERIFY(!m_window->lesson()->showsOriginalNote());
        // A scenario with a lesson of its own (an import, an advised limit) is no changed preset.
        Scenario own = m_window->document()->scenario();
        own.config = LimiterConfig::make(5, 10 * kNanosPerSecond);
        own.lesson = "Read from limit.conf.";
        m_window->document()->replace("Import limit.conf", own);
        settle();
        QVERIFY(!m_window->lesson()->showsOriginalNote());
    }

    void presetShowsItsLesson()
    {
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        m_window->openScenario(*preset.scenario);
        settle();
        QCOMPARE(m_window->lesson()->lesson(), QString::fromStdString(preset.scenario->lesson));
        // The boundary attack: the fixed window admits twice its limit, the log only its limit.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::FixedWindow)].metrics.allowed, std::int64_t(20));
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::SlidingWindowLog)].metrics.allowed, std::int64_t(10));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
