// PlaybackBar moves a playhead through simulated time: play and pause, step to the next or the
// previous request, speed, and a scrubber to drag. By default playback follows the requests (a
// Pace: a burst slowed so each request can be followed, idle stretches crossed quickly and marked
// in the time label); the speed box also offers the whole view in 10 s (or a scenario's own
// "playback") and 0.25x to 16x real time. It also sends requests by hand at the playhead. It owns
// no simulation and reads no clock but its frame timer's: it reports a time.
#pragma once

#include "model/frame.h"
#include "view/pace.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;
class QToolButton;

namespace ratelab::ui {

class PlaybackBar : public QWidget {
    Q_OBJECT
public:
    explicit PlaybackBar(QWidget* parent = nullptr);

    // The speeds that are not a multiple of real time, as setSpeed takes them.
    static constexpr double kFollowRequests = 0; // the default: the Pace of the view's requests
    static constexpr double kWholeView = -1;     // the whole view at one speed in classroomSeconds()

    // setClassroomSeconds sets a scenario's own "playback" seconds (0: none): the whole view
    // plays in it, and following the requests is scaled to it. With none, the whole view plays
    // in 10 s and following the requests takes what its Pace takes.
    void setClassroomSeconds(double seconds);
    double classroomSeconds() const { return m_classroomSeconds; }
    // setTrace gives the arrivals to step through and the time range to play over.
    void setTrace(std::shared_ptr<const Trace> trace, TimeRange range);
    Nanos playhead() const { return m_playheadNanos; }
    // shownRequests is how many requests are shown: at most those at or before the playhead.
    std::size_t shownRequests() const { return m_shown; }
    Playhead position() const { return {m_playheadNanos, m_shown}; }
    // atEnd reports whether the playhead is past everything, so the charts show all of it.
    bool atEnd() const { return m_playheadNanos >= m_range.to; }
    bool isPlaying() const { return m_timer.isActive(); }
    // speed is simulated seconds per real second: the multiple chosen, the view's span over the
    // classroom seconds, or, following the requests, the pace of the gap the playhead is in.
    double speed() const;
    // playLength is the real time the whole view takes to play at the chosen speed.
    Nanos playLength() const;
    // pace is the view's Pace when following the requests (made when first needed).
    const Pace& pace() const;
    int burstSize() const;
    // setSendingShown hides Send request and Burst (presentation mode: a class is shown a step's
    // traffic, not traffic added by a stray click); shown, they still give way when narrow.
    void setSendingShown(bool shown);
    // advance moves the playhead on by realNanos of real time at the chosen speed, as a frame of
    // playing does (tests call it with a time of their own); at the end playing stops.
    void advance(Nanos realNanos);

public slots:
    void togglePlay();
    void stepForward();
    void stepBack();
    // goToStart moves to the start of the view with no request shown yet.
    void goToStart();
    // setPlayhead moves to t, showing every request at or before it.
    void setPlayhead(Nanos t);
    void setSpeed(double factor);

signals:
    void playheadChanged(ratelab::Nanos t); // position() says how many requests are shown
    // sendRequested asks for `count` requests at time t (the playhead).
    void sendRequested(ratelab::Nanos t, int count);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void setUpSpeed();
    void setUpControls();
    void layOut();
    void connectControls();
    double m_classroomSeconds = 10;
    double m_scenarioSeconds = 0;
    void tick();
    // idleNote returns the length of the idle stretch being crossed faster than real time, in
    // seconds as shown, while playing follows the requests; empty elsewhere.
    QString idleNote() const;
    // inPace and shownAt convert the playhead (a time, requests shown) to the pace's position
    // and back.
    PacePosition inPace(Nanos t, std::size_t shown) const;
    std::size_t shownAt(PacePosition at) const;
    void syncWidgets();
    void moveTo(Nanos t, std::size_t shown);
    std::size_t requestsUpTo(Nanos t) const;

    std::shared_ptr<const Trace> m_trace;
    TimeRange m_range;
    Nanos m_playheadNanos = 0;
    std::size_t m_shown = 0;
    QTimer m_timer;
    QElapsedTimer m_clock;
    mutable Pace m_pace;
    mutable bool m_paceStale = true;
    bool m_paceSynced = false; // m_paceReal is where m_paceSim (the playhead) is reached
    Nanos m_paceReal = 0;
    Nanos m_paceSim = 0;
    std::size_t m_paceShown = 0;
    QToolButton* m_back;
    QToolButton* m_play;
    QToolButton* m_forward;
    QComboBox* m_speed;
    QSlider* m_scrub;
    QLabel* m_time;
    QToolButton* m_send;
    QToolButton* m_burst;
    QSpinBox* m_burstSize;
    bool m_sendingShown = true;
    void placeSending();
};

} // namespace ratelab::ui
