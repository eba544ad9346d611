// The desktop explorer, driven as a user would: sliders, checkboxes, hovering a mark.
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
#include "scenario/scenario.h"
#include "chart/rowchart.h"
#include "model/scenariodocument.h"
#include <QUndoStack>
#include "panels/slidervalue.h"
#include "chart/summarytable.h"
#include "chart/timeaxis.h"
#include "window_test.h"

#include <QCheckBox>
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

class TestMainWindow : public WindowTest {
    Q_OBJECT

    RowChart* rowOf(Algorithm a) const
    {
        for (int i = 0; i < charts()->rowCount(); ++i)
            if (charts()->row(i)->algorithm() == a)
                return charts()->row(i);
        return nullptr;
    }
    std::size_t resultIndex(Algorithm a) const
    {
        const auto& results = frame().trace->results;
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].algorithm == a)
                return i;
        return results.size();
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s

    void cleanup() { m_window.reset(); }

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

    // The worst pattern is the first row's, as its box says (issue 31: unticking the token bucket
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

    // A badge's count says what it groups (issue 31: "×19" at 9 ms stood for 10 requests at 0 s
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

    void hoverTextMatchesTheCoreDecision()
    {
        RowChart* token = rowOf(Algorithm::TokenBucket);
        const std::size_t r = resultIndex(Algorithm::TokenBucket);
        QVERIFY(token->exactMarks());
        for (std::size_t i : {std::size_t(9), std::size_t(10), std::size_t(11)}) {
            const QPointF at = token->markPosition(i);
            const auto found = token->requestAt(at);
            QVERIFY(found.has_value());
            QCOMPARE(*found, i);
            const Decision d = decisionAt(*frame().trace, r, i);
            const QString text = token->hoverText(i);
            QVERIFY2(text.contains(QString("request %1 of 15, t = ").arg(i + 1)), qPrintable(text));
            QCOMPARE(text.contains("denied"), !d.allowed);
            QVERIFY2(text.contains(QString("remaining at this instant: %1").arg(d.remaining)), qPrintable(text));
        }
        // Request 11 (index 10) at exactly 1.0 s finds one refilled token: admitted, 1 -> 0.
        QVERIFY(token->hoverText(10).contains("t = 1 s"));
        QVERIFY(token->hoverText(10).contains("tokens: 1 -> 0"));
        // Request 12 at 1.1 s is denied and may retry when the next token is due, 0.9 s later.
        QVERIFY(token->hoverText(11).contains("denied, retry after 0.9 s"));
    }

    void clickingAMarkPinsItsRequestEverywhere()
    {
        m_window->explanation()->parentWidget()->show();
        RowChart* token = rowOf(Algorithm::TokenBucket);
        QTest::mouseClick(token->viewport(), Qt::LeftButton, {}, token->markPosition(11).toPoint());
        QCOMPARE(m_window->explanation()->pinned(), std::optional<std::size_t>(11));
        QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(11));
        // Pinned, it stays explained while the playhead moves.
        m_window->playback()->setPlayhead(300'000'000);
        QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(11));
        QVERIFY(m_window->explanation()->text().contains("Pinned: Request 12 of 15"));
        // A click on an empty spot unpins: the playhead's request again (0.3 s: the 4th).
        QTest::mouseClick(token->viewport(), Qt::LeftButton, {}, QPoint(token->width() - 20, token->height() - 5));
        QCOMPARE(m_window->explanation()->pinned(), std::nullopt);
        QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(3));
    }

    void shiftDragZoomsToTheSpan()
    {
        RowChart* row = rowOf(Algorithm::FixedWindow);
        // The marks' positions are rounded to whole pixels of the view before the zoom.
        const TimeRange before = frame().range;
        const double pixel = 1e9 * secondsAsDouble(before.to - before.from) / row->plotColumns();
        const QPoint a = row->markPosition(2).toPoint(), b = row->markPosition(6).toPoint();
        QTest::mousePress(row->viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
        QTest::mouseMove(row->viewport(), b);
        QTest::mouseRelease(row->viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
        settle();
        // From about request 3 (0.2 s) to request 7 (0.6 s), to the pixel.
        const TimeRange r = frame().range;
        QVERIFY2(std::abs(double(r.from) - 200e6) < pixel && std::abs(double(r.to) - 600e6) < pixel,
                 qPrintable(QString("%1 .. %2").arg(r.from).arg(r.to)));
    }

    void zoomingNarrowsEveryRowAndResetRestores()
    {
        const TimeRange full = charts()->range();
        charts()->zoom(1.0, 0.1);
        settle();
        const TimeRange zoomed = frame().range;
        QVERIFY(zoomed.to - zoomed.from < (full.to - full.from) / 5);
        for (int i = 0; i < charts()->rowCount(); ++i)
            QCOMPARE(charts()->row(i)->levelPoints().first().x(), secondsAsDouble(zoomed.from));
        charts()->resetZoom();
        settle();
        QCOMPARE(frame().range, full);
        // Zooming out about the start keeps the span and stops at 0, as panning does.
        charts()->zoom(0.0, 0.5);
        charts()->zoom(secondsAsDouble(charts()->range().to), 3.0);
        settle();
        QCOMPARE(frame().range.from, Nanos(0));
        QVERIFY(frame().range.to - frame().range.from > full.to - full.from);
    }

    // Issue 35: a bucket that takes 6e9 s to refill (capacity 6, rate 1e-9/s) after one request
    // at 1 s frames 0 .. 1 s + 6e18 ns + a margin of 6e18 / 20 = 6.3e18 ns + 1 s (fullRange).
    // Zoomed out three times about its middle, the view would span 1.89e19 ns (under the 4 times
    // the full view that zooming allows) and start before 0, so it starts at 0 and would end past
    // the end of time (2^63 - 1 ns): longer than all of time, it becomes all of it. Rounded as
    // it was, its end overflowed to the most negative time, and each row's axis, refusing the
    // reversed range, took a 1 s step over the 6.3e9 s it kept: 6.3e9 grid lines at the next
    // layout, tens of gigabytes. Then, panned to the end of time and zoomed out twice about the
    // view's start, the view keeps twice its span and ends there.
    void zoomingOutPastTheEndOfTimeStopsThere()
    {
        Scenario s;
        s.config = LimiterConfig::make(1, 60 * kNanosPerSecond, 6, Rate{1, 1'000'000'000 * kNanosPerSecond});
        s.algorithms = {Algorithm::TokenBucket, Algorithm::SlidingWindowLog};
        s.pattern.count = 1;
        s.pattern.startNanos = kNanosPerSecond;
        m_window->openScenario(s);
        settle();
        const TimeRange full{0, 6'300'000'001'000'000'000};
        QCOMPARE(frame().range, full);
        // Grid lines each row's time axis would build for its range at the next layout.
        const auto gridLines = [&] {
            double most = 0;
            for (int i = 0; i < charts()->rowCount(); ++i) {
                const auto* axis = qobject_cast<const QValueAxis*>(charts()->row(i)->chart()->axes(Qt::Horizontal).value(0));
                most = std::max(most, (axis->max() - axis->min()) / axis->tickInterval());
            }
            return most;
        };
        QVERIFY(gridLines() < 100);
        charts()->zoom(secondsAsDouble(full.from + (full.to - full.from) / 2), 3.0);
        QCOMPARE(charts()->range(), (TimeRange{0, kMaxNanos}));
        QVERIFY2(gridLines() < 100, qPrintable(QString::number(gridLines())));
        settle();
        QCOMPARE(frame().range, (TimeRange{0, kMaxNanos}));

        charts()->zoom(secondsAsDouble(full.to / 2), 0.01); // 9.2e16 ns about 3.15e18
        charts()->pan(1e10);                                 // to the end of time
        const Nanos span = charts()->range().to - charts()->range().from;
        QCOMPARE(charts()->range().to, kMaxNanos);
        charts()->zoom(secondsAsDouble(charts()->range().from), 2.0);
        QCOMPARE(charts()->range().to, kMaxNanos);
        // Twice the span, to the doubles' precision there (a few ulps of 2048 ns).
        QVERIFY(std::abs(double(charts()->range().to - charts()->range().from) - 2.0 * double(span)) <= 16384);
        QVERIFY(gridLines() < 100);
        settle();
        QCOMPARE(frame().range, charts()->range());
    }

    void manyRequestsAreReducedPerPixel()
    {
        m_window->controls()->requests()->type("200000");
        m_window->controls()->delay()->type("0.001");
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(200000));
        RowChart* row = rowOf(Algorithm::TokenBucket);
        QVERIFY(!row->exactMarks());
        // A few points per pixel column, never one per request.
        QVERIFY(row->levelPoints().size() <= 4 * row->plotColumns() + 8);
        // Zoomed to 10 ms (about ten requests 1 ms apart), every request has its own mark again.
        charts()->zoom(100.0, 10e-3 / secondsAsDouble(charts()->range().to - charts()->range().from));
        settle();
        row = rowOf(Algorithm::TokenBucket);
        const ReducedRow& r = frame().rows[resultIndex(Algorithm::TokenBucket)];
        QVERIFY(r.endRequest - r.firstRequest <= 12);
        QVERIFY(r.endRequest > r.firstRequest);
        QVERIFY(row->exactMarks());
        QCOMPARE(row->shownEnd(), r.endRequest);
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
