// Playback, explanations and requests sent by hand, driven through the main window (playing at
// a speed, and its pace, are in tst_playback_speed).
#include "chart/chartstack.h"
#include "panels/controlpanel.h"
#include "chart/dashboard.h"
#include "report/explain.h"
#include "panels/explainpanel.h"
#include "panels/lessonpanel.h"
#include "window/mainwindow.h"
#include "model/pipeline.h"
#include "window/documentactions.h"
#include "panels/playbackbar.h"
#include "presets.h"
#include "chart/rowchart.h"
#include "panels/slidervalue.h"
#include "model/stage.h"
#include "chart/summarytable.h"
#include "window_test.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QLineEdit>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QTest>

using namespace ratelab;
using namespace ratelab::ui;

namespace {
constexpr Nanos kMs = 1'000'000;
}

class TestPlayback : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s

    void cleanup() { m_window.reset(); }

    void startsShowingEverything()
    {
        PlaybackBar* play = m_window->playback();
        QVERIFY(play->atEnd());
        for (int r = 0; r < charts()->rowCount(); ++r)
            QCOMPARE(charts()->row(r)->shownEnd(), std::size_t(15));
    }

    void playheadShowsExactlyTheRequestsUpToIt_data()
    {
        QTest::addColumn<Nanos>("playhead");
        QTest::addColumn<int>("shown");
        // Requests at 0, 100, ..., 1400 ms: a playhead at t shows those at or before t.
        QTest::newRow("at the first request") << Nanos(0) << 1;
        QTest::newRow("between requests") << Nanos(450 * kMs) << 5;
        QTest::newRow("exactly at a request") << Nanos(1000 * kMs) << 11;
        QTest::newRow("after the last") << Nanos(2000 * kMs) << 15;
    }

    void playheadShowsExactlyTheRequestsUpToIt()
    {
        QFETCH(Nanos, playhead);
        QFETCH(int, shown);
        m_window->playback()->setPlayhead(playhead);
        for (int r = 0; r < charts()->rowCount(); ++r)
            QCOMPARE(charts()->row(r)->shownEnd(), std::size_t(shown));
        // And in pixels: the token bucket's marks up to the playhead are painted, the rest not
        // (the row itself is drawn: in a small window the rows scroll).
        RowChart* token = charts()->row(3);
        QCOMPARE(token->algorithm(), Algorithm::TokenBucket);
        const QImage image = token->grab().toImage();
        for (std::size_t i = 0; i < 15; ++i) {
            const QColor c = image.pixelColor(token->markPosition(i).toPoint());
            // A mark is saturated, the strip's background and bands grey; the playhead's line,
            // over the mark of a request at its time, halves the saturation at most.
            const bool painted = c.saturation() > 90;
            QVERIFY2(painted == (int(i) < shown), qPrintable(QString("request %1: %2").arg(i).arg(c.name())));
        }
    }

    void steppingVisitsEachRequestAndExplainsIt()
    {
        m_window->explanation()->parentWidget()->show(); // its dock starts closed on small screens
        PlaybackBar* play = m_window->playback();
        play->setPlayhead(0);
        QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(0));
        for (int k = 1; k < 15; ++k) {
            play->stepForward();
            QCOMPARE(play->playhead(), Nanos(k * 100 * kMs));
            QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(k));
        }
        play->stepBack();
        QCOMPARE(play->playhead(), Nanos(1300 * kMs));
        // The panel's words are the core's, one line per algorithm, for request 14 (index 13).
        const QString text = m_window->explanation()->text();
        for (std::size_t row = 0; row < frame().trace->results.size(); ++row)
            QVERIFY2(text.contains(readableDurations(QString::fromStdString(explain(*frame().trace, row, 13)))), qPrintable(text));
        // Request 14 at 1.3 s: the token bucket denied it (11 admitted, then 0.3 token).
        QVERIFY(!decisionAt(*frame().trace, 3, 13).allowed);
    }

    void aBurstIsSteppedRequestByRequest()
    {
        m_window->explanation()->parentWidget()->show();
        Scenario s; // limit 10 per 10 s; two bursts of 10, at 0 s and 1 s
        s.pattern.kind = PatternKind::Burst;
        s.pattern.count = 20;
        s.pattern.burstSize = 10;
        s.pattern.periodNanos = 1000 * kMs;
        m_window->openScenario(s);
        settle();
        PlaybackBar* play = m_window->playback();
        play->goToStart();
        QCOMPARE(play->shownRequests(), std::size_t(0));
        QCOMPARE(m_window->explanation()->currentRequest(), std::nullopt);
        for (std::size_t k = 1; k <= 10; ++k) {
            play->stepForward();
            QCOMPARE(play->playhead(), Nanos(0)); // all ten at one instant, one step each
            QCOMPARE(play->shownRequests(), k);
            QCOMPARE(m_window->explanation()->currentRequest(), std::optional<std::size_t>(k - 1));
            for (int r = 0; r < charts()->rowCount(); ++r)
                QCOMPARE(charts()->row(r)->shownEnd(), k);
        }
        play->stepForward();
        QCOMPARE(play->playhead(), Nanos(1000 * kMs));
        QCOMPARE(play->shownRequests(), std::size_t(11));
        play->stepBack();
        play->stepBack();
        QCOMPARE(play->playhead(), Nanos(0));
        QCOMPARE(play->shownRequests(), std::size_t(9));
        // The explanation names the request within its burst.
        QVERIFY2(m_window->explanation()->text().contains("Request 9 of 20, the 9th of 10 at 0.000 s"),
                 qPrintable(m_window->explanation()->text()));
    }

    // A number box with the focus keeps the keys it edits with: Space is typed, not
    // played; Home moves the cursor. Out of the box they are the window's again.
    void aNumberBoxKeepsItsKeys()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QLineEdit* field = m_window->controls()->limit()->field();
        field->setFocus();
        QTRY_VERIFY(field->hasFocus());
        PlaybackBar* play = m_window->playback();
        QVERIFY(!play->isPlaying());
        field->end(false);
        QTest::keyClick(field, Qt::Key_Space);
        QVERIFY(!play->isPlaying());
        QCOMPARE(field->text(), QString("10 "));
        QTest::keyClick(field, Qt::Key_Home);
        QCOMPARE(field->cursorPosition(), 0);
        field->setText("10");
        m_window->dashboard()->setFocus();
        QTRY_VERIFY(!field->hasFocus());
        QTest::keyClick(m_window.get(), Qt::Key_Space);
        QVERIFY(play->isPlaying());
        QTest::keyClick(m_window.get(), Qt::Key_Space);
        QVERIFY(!play->isPlaying());
        // Home goes to the start with no request shown yet.
        QTest::keyClick(m_window.get(), Qt::Key_Home);
        QCOMPARE(play->shownRequests(), std::size_t(0));
    }

    void countsFollowThePlayhead()
    {
        PlaybackBar* play = m_window->playback();
        RowChart* token = charts()->row(3);
        const SummaryTable* table = m_window->dashboard()->summary();
        // At 0.8 s, 9 requests have come (0, 0.1, ..., 0.8 s): the token bucket admitted all 9.
        play->setPlayhead(800 * kMs);
        QCOMPARE(token->counts().admitted, std::int64_t(9));
        QCOMPARE(token->counts().denied, std::int64_t(0));
        QCOMPARE(table->item(3, 1)->text(), QString("9"));
        QCOMPARE(table->item(3, 2)->text(), QString("0"));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("Allowed so far"));
        // Max in a window follows too: 9 admitted inside (t - 10 s, t] so far, not the total 11,
        // counted off the GUI thread the first time the playhead leaves the end ("…" until then).
        QCOMPARE(table->item(3, 4)->text(), QString("…"));
        QTRY_COMPARE(table->item(3, 4)->text(), QString("9"));
        QCOMPARE(table->horizontalHeaderItem(4)->text(), QString("Max in a window so far"));
        // The row's header follows too: what the traffic reached is the whole run's, so partway
        // it says only the token bucket's bound, C + r * T - 1 = 10 + 10 - 1 = 19 in any 10 s
        // (it said "most in 10 s: 11" while the table said 9), as what the bucket allows.
        QCOMPARE(token->countsText(), QString("so far: 9 admitted · 0 denied · it allows up to 19 in any 10 s"));
        // At 1.3 s, 14 have come: 11 admitted (the 11th on the token refilled at 1.0 s), 3 denied.
        play->setPlayhead(1300 * kMs);
        QCOMPARE(token->counts().admitted, std::int64_t(11));
        QCOMPARE(token->counts().denied, std::int64_t(3));
        QCOMPARE(table->item(3, 2)->text(), QString("3"));
        QCOMPARE(table->item(3, 4)->text(), QString("11"));
        QCOMPARE(table->item(0, 4)->text(), QString("10")); // the fixed window stopped at its limit
        // Back to 0.1 s, then the end: the totals again.
        play->setPlayhead(100 * kMs);
        QCOMPARE(token->counts().admitted, std::int64_t(2));
        play->setPlayhead(kMaxNanos);
        QCOMPARE(token->counts().admitted, std::int64_t(11));
        QCOMPARE(token->counts().denied, std::int64_t(4));
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QString("Allowed"));
        QCOMPARE(table->horizontalHeaderItem(4)->text(), QString("Max in a window"));
        QCOMPARE(table->item(3, 4)->text(), QString("11"));
        // The whole run: the 11 admitted by 1.3 s are the most in any 10 s, of the 19 the bucket
        // allows, said as what it allows (before, "11 of at most 19" left 19 unexplained).
        QCOMPARE(token->countsText(), QString("11 admitted · 4 denied · most in any 10 s: 11 (it allows up to 19)"));
    }

    // One stage holds what the window shows: the playback bar moves its playhead, the pipeline
    // sets its frame, and every view reads that one frame (a second dashboard on the same stage
    // shows the same counts without being told).
    void oneStageHoldsTheFrameAndThePlayhead()
    {
        Stage* stage = m_window->stage();
        QCOMPARE(&m_window->dashboard()->frame(), &stage->frame());
        Dashboard second(stage, nullptr);
        QCOMPARE(second.charts()->rowCount(), int(stage->frame().rows.size()));
        QSignalSpy moved(stage, &Stage::playheadChanged);
        m_window->playback()->setPlayhead(800 * kMs); // 9 requests: the token bucket admitted 9
        QCOMPARE(moved.count(), 1);
        QCOMPARE(stage->playhead()->shown, std::size_t(9));
        QCOMPARE(stage->counts().row(3).admitted, std::int64_t(9));
        QCOMPARE(second.charts()->row(3)->counts().admitted, std::int64_t(9));
        QCOMPARE(second.summary()->item(3, 1)->text(), QString("9"));
        // A frame with nothing in it (a failed or cancelled build) never replaces the one shown.
        const std::shared_ptr<const Frame> before = stage->sharedFrame();
        QSignalSpy changed(stage, &Stage::frameChanged);
        stage->setFrame(std::make_shared<const Frame>());
        QCOMPARE(changed.count(), 0);
        QCOMPARE(stage->sharedFrame(), before);
    }

    void sendingARequestAddsItAtThePlayhead()
    {
        PlaybackBar* play = m_window->playback();
        charts()->zoom(0, 2.0); // the view opens on the activity, 0 to 2.94 s: widen it past 5 s
        settle();
        QVERIFY(frame().range.to > 5000 * kMs);
        play->setPlayhead(5000 * kMs);
        QCOMPARE(play->playhead(), Nanos(5000 * kMs));
        emit play->sendRequested(play->playhead(), 1);
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(16));
        QCOMPARE(frame().trace->arrivals.back(), Nanos(5000 * kMs));
        QCOMPARE(frame().scenario->addedArrivals, std::vector<Nanos>{5000 * kMs});
        // At 5 s the token bucket has refilled 5 - 1.4 + 0.4 = 4 tokens (0.4 left at 1.4 s,
        // then 3.6 s at 1/s): the request sent by hand is admitted.
        QVERIFY(decisionAt(*frame().trace, 3, 15).allowed);
        // A burst of 5 more at the same instant: six requests at 5 s share the 4 tokens, so four
        // of them are admitted and two denied.
        emit play->sendRequested(play->playhead(), 5);
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(21));
        int admitted = 0;
        for (std::size_t i = 15; i < 21; ++i)
            admitted += decisionAt(*frame().trace, 3, i).allowed;
        QCOMPARE(admitted, 4);
        m_window->controls()->clearAddedRequests();
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(15));
    }

    // A long lesson in presentation type on a 1280x720 projector scrolls: it is laid out at its
    // full height inside the panel, never squeezed and cut off at the bottom.
    void aLongLessonScrollsInPresentationMode()
    {
        const io::LoadResult p = io::loadPreset("pick-a-limit");
        QVERIFY(p.scenario);
        openWindow(*p.scenario);
        m_window->resize(1280, 720);
        m_window->setPresenting(true);
        settle();
        QLabel* lesson = nullptr;
        for (QLabel* l : m_window->lesson()->findChildren<QLabel*>())
            if (l->text().contains("brute force"))
                lesson = l;
        QVERIFY(lesson && lesson->isVisible());
        QCOMPARE(lesson->height(), lesson->heightForWidth(lesson->width()));
        QVERIFY(m_window->lesson()->scrollArea()->verticalScrollBar()->maximum() > 0); // longer than the panel
        m_window->setPresenting(false);
    }

    void presentationModeShowsOnlyTheChartsAndEscRestores()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        const QFont normal = QApplication::font();
        const QFont lessonFont = m_window->lesson()->findChild<QLabel*>()->font();
        QVERIFY(m_window->menuBar()->isVisible());
        QTest::keyClick(m_window.get(), Qt::Key_F11);
        QVERIFY(m_window->isPresenting());
        QVERIFY(!m_window->controls()->isVisible());
        QVERIFY(!m_window->menuBar()->isVisible());
        QVERIFY(!m_window->statusBar()->isVisible());
        QVERIFY(!m_window->dashboard()->summary()->isVisible());
        for (QToolBar* bar : m_window->findChildren<QToolBar*>())
            QVERIFY(!bar->isVisible());
        QVERIFY(charts()->isVisible());
        QVERIFY(QApplication::font().pointSizeF() > normal.pointSizeF());
        // The rows grow with the type: header and strip never overlap the plot.
        RowChart* row = charts()->row(0);
        QVERIFY(row->plotRect().top() >= QFontMetrics(row->font()).height() * 2);
        QTest::keyClick(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->isPresenting());
        QVERIFY(m_window->controls()->isVisible());
        QVERIFY(m_window->menuBar()->isVisible());
        QVERIFY(m_window->statusBar()->isVisible());
        QVERIFY(m_window->dashboard()->summary()->isVisible());
        QCOMPARE(QApplication::font(), normal);
        QCOMPARE(m_window->lesson()->findChild<QLabel*>()->font().pointSizeF(), lessonFont.pointSizeF());
    }
};

QTEST_MAIN(TestPlayback)
#include "tst_playback.moc"
