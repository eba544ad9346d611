// The desktop explorer's charts, driven as a user would: hovering and clicking a mark, a
// shift-drag and the zoom, and many requests reduced per pixel (the controls, files and presets
// are in tst_mainwindow).
#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "engine/simulator.h"
#include "panels/controlpanel.h"
#include "panels/explainpanel.h"
#include "panels/playbackbar.h"
#include "panels/slidervalue.h"
#include "scenario/scenario.h"
#include "window/mainwindow.h"
#include "window_test.h"

#include <QTest>
#include <QValueAxis>

using namespace ratelab;
using namespace ratelab::ui;

class TestMainWindowChart : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s

    void cleanup() { m_window.reset(); }

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

    // A bucket that takes 6e9 s to refill (capacity 6, rate 1e-9/s) after one request
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
};

QTEST_MAIN(TestMainWindowChart)
#include "tst_mainwindow_chart.moc"
