// Playing, driven through the main window with injected time: the default that follows the
// requests, resuming from a step, the speeds and what they are relative to, a preset's own pace,
// and the end of the view (the playhead, steps, explanations and requests sent by hand are in
// tst_playback).
#include "panels/playbackbar.h"
#include "scenario/scenario.h"
#include "window/documentactions.h"
#include "window/mainwindow.h"
#include "window_test.h"

#include <QComboBox>
#include <QLabel>
#include <QTest>

using namespace ratelab;
using namespace ratelab::ui;

namespace {
constexpr Nanos kMs = 1'000'000;
}

class TestPlaybackSpeed : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s

    void cleanup() { m_window.reset(); }

    // The default follows the requests: in edge-burst, ten requests at 9.9 s and ten
    // at 10.1 s, each request is reached 0.3 s of real time after the one before (gaps under
    // 0.3 s are slowed to it: 0 s inside a burst, the 0.2 s between the bursts) and the idle tail
    // after 10.1 s takes at most 1 s, marked in the time label. Before, the whole view played in
    // 10 s: the 20 requests in about 1.1 s, then 8 s of flat lines. Driven with injected time.
    void theDefaultFollowsTheRequests()
    {
        QVERIFY(m_window->documents()->openPreset("edge-burst"));
        settle();
        PlaybackBar* play = m_window->playback();
        QLabel* time = play->findChild<QLabel*>("time");
        QVERIFY(time);
        const std::vector<Nanos>& a = frame().trace->arrivals;
        QCOMPARE(a.size(), std::size_t(20));
        QCOMPARE(a[0], 9900 * kMs);
        QCOMPARE(a[9], 9900 * kMs);
        QCOMPARE(a[10], 10100 * kMs);
        QCOMPARE(a[19], 10100 * kMs);
        const TimeRange view = frame().range;
        QVERIFY(view.from < a[0] && a[0] - view.from < 300 * kMs); // the lead-in is slowed to 0.3 s
        QVERIFY(view.to - a[19] > 1000 * kMs);                       // the tail is compressed to 1 s
        // 0.3 (lead-in) + 9 x 0.3 + 0.3 (between the bursts) + 9 x 0.3 + 1 (the tail) = 7 s.
        QCOMPARE(play->playLength(), 7000 * kMs);
        play->goToStart();
        play->togglePlay();
        QVERIFY(play->isPlaying());
        play->advance(300 * kMs);
        QCOMPARE(play->playhead(), a[0]);
        QCOMPARE(play->shownRequests(), std::size_t(1));
        for (std::size_t k = 1; k < 10; ++k) { // one request every 0.3 s through the burst
            play->advance(150 * kMs);
            QCOMPARE(play->shownRequests(), k);
            QVERIFY(!time->text().contains("idle"));
            play->advance(150 * kMs);
            QCOMPARE(play->playhead(), a[k]);
            QCOMPARE(play->shownRequests(), k + 1);
        }
        // The 0.2 s between the bursts in 0.3 s: 2/3 of real time, slowed too.
        QCOMPARE(play->speed(), 0.2 / 0.3);
        play->advance(300 * kMs);
        QCOMPARE(play->playhead(), a[10]);
        QCOMPARE(play->shownRequests(), std::size_t(11));
        play->advance(8 * 300 * kMs);
        QCOMPARE(play->shownRequests(), std::size_t(19));
        play->advance(300 * kMs);
        QCOMPARE(play->playhead(), a[19]);
        QCOMPARE(play->shownRequests(), std::size_t(20));
        // Into the idle tail: crossed faster than real time, and the label says so.
        play->advance(500 * kMs);
        QCOMPARE(play->playhead(), a[19] + (view.to - a[19]) / 2);
        QVERIFY2(time->text().contains(QString::fromUtf8("\u00bb idle ")), qPrintable(time->text()));
        QVERIFY(time->toolTip().contains("No request for"));
        QVERIFY(play->speed() > 1);
        play->advance(500 * kMs);
        QVERIFY(play->atEnd());
        QVERIFY(!play->isPlaying());
        QVERIFY(!time->text().contains("idle"));
    }

    // Paused on a request (a step, a click on the scrubber), playing takes up from there: the
    // playhead never moves back, and a burst is still followed request by request.
    void playingResumesFromAStep()
    {
        QVERIFY(m_window->documents()->openPreset("edge-burst"));
        settle();
        PlaybackBar* play = m_window->playback();
        const std::vector<Nanos>& a = frame().trace->arrivals;
        play->goToStart();
        for (int k = 0; k < 4; ++k)
            play->stepForward();
        QCOMPARE(play->playhead(), a[3]);
        QCOMPARE(play->shownRequests(), std::size_t(4));
        play->togglePlay();
        play->advance(1);
        QCOMPARE(play->playhead(), a[3]); // the fifth of the burst 0.3 s after the fourth
        QCOMPARE(play->shownRequests(), std::size_t(4));
        play->advance(300 * kMs - 1);
        QCOMPARE(play->playhead(), a[4]);
        QCOMPARE(play->shownRequests(), std::size_t(5));
        play->togglePlay();
        QVERIFY(!play->isPlaying());
    }

    // The speed box names what each choice is relative to: the requests, the view, real time.
    void theSpeedsNameWhatTheyAreRelativeTo()
    {
        PlaybackBar* play = m_window->playback();
        auto* box = play->findChild<QComboBox*>();
        QVERIFY(box);
        QCOMPARE(box->currentText(), QString("Follow the requests"));
        QCOMPARE(box->itemText(1), QString("Whole view in 10 s"));
        QCOMPARE(box->itemText(2), QString("0.25x real time"));
        QCOMPARE(box->itemText(box->count() - 1), QString("16x real time"));
        for (int i = 0; i < box->count(); ++i)
            QVERIFY(!box->itemData(i, Qt::ToolTipRole).toString().isEmpty());
        // The whole view: its span over 10 s, whatever the span. A multiple: itself.
        const TimeRange view = frame().range;
        play->setSpeed(PlaybackBar::kWholeView);
        QCOMPARE(play->speed(), secondsAsDouble(view.to - view.from) / 10);
        QCOMPARE(play->playLength(), 10000 * kMs);
        play->setSpeed(2);
        QCOMPARE(play->speed(), 2.0);
        play->setSpeed(PlaybackBar::kFollowRequests);
        QCOMPARE(box->currentIndex(), 0);
    }

    // A preset sets its own pace: tight-retry-loop plays its view in 20 s, following its requests
    // and retries or at one speed; another scenario goes back to 10 s for the whole view, and to
    // the pace's own length following the requests.
    void aPresetSetsItsOwnPace()
    {
        QVERIFY(m_window->documents()->openPreset("tight-retry-loop"));
        settle();
        PlaybackBar* play = m_window->playback();
        QCOMPARE(play->classroomSeconds(), 20.0);
        QCOMPARE(play->playLength(), 20000 * kMs);
        QCOMPARE(play->pace().realLength(), 20000 * kMs);
        QVERIFY(play->pace().segmentCount() > 40); // the retries are knots too, not only the 20 requests
        play->setSpeed(PlaybackBar::kWholeView);
        const TimeRange view = frame().range;
        QCOMPARE(play->speed(), secondsAsDouble(view.to - view.from) / 20);
        QCOMPARE(play->playLength(), 20000 * kMs);
        m_window->openScenario(Scenario{});
        settle();
        QCOMPARE(play->classroomSeconds(), 10.0);
        QCOMPARE(play->playLength(), 10000 * kMs);
        // 15 requests 0.1 s apart from 0 s, a view from 0 s past 1.4 s by more than 1 s: the first
        // 0.3 s after the start (which shows none), 14 gaps slowed to 0.3 s and a tail of 1 s:
        // 15 x 0.3 + 1 = 5.5 s.
        play->setSpeed(PlaybackBar::kFollowRequests);
        QVERIFY(frame().range.from == 0 && frame().range.to > 2400 * kMs);
        QCOMPARE(play->playLength(), 5500 * kMs);
    }

    void playingAdvancesSimulatedTimeAndStopsAtTheEnd()
    {
        PlaybackBar* play = m_window->playback();
        play->setSpeed(16);
        play->setPlayhead(0);
        play->togglePlay();
        QVERIFY(play->isPlaying());
        play->advance(100 * kMs); // 16x: 1.6 s of simulated time
        QCOMPARE(play->playhead(), 1600 * kMs);
        QCOMPARE(play->shownRequests(), std::size_t(15));
        QVERIFY(play->isPlaying());
        play->advance(10000 * kMs);
        QVERIFY(!play->isPlaying());
        QVERIFY(play->atEnd());
        // And the frame timer drives it with the real clock: playing from the start ends.
        play->togglePlay();
        QVERIFY(play->isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!play->isPlaying(), 10000);
        QVERIFY(play->atEnd());
    }
};

QTEST_MAIN(TestPlaybackSpeed)
#include "tst_playback_speed.moc"
