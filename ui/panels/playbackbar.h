// PlaybackBar moves a playhead through simulated time: play and pause, step to the next or the
// previous request, speed (the whole view in about 10 s by default, or 0.25x to 16x of simulated time), and a scrubber to drag. It also
// sends requests by hand at the playhead. It owns no simulation: it reports a time.
#pragma once

#include "model/frame.h"

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

    // setClassroomSeconds sets how long the first speed, the classroom pace, plays the whole
    // view: a scenario's own "playback", or 10 s.
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
    // speed is simulated seconds per real second: the one chosen, or by default the view's
    // span over 10 s (the whole view plays in about 10 seconds).
    double speed() const;
    int burstSize() const;

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
    double m_classroomSeconds = 10;
    void tick();
    void syncWidgets();
    void moveTo(Nanos t, std::size_t shown);
    std::size_t requestsUpTo(Nanos t) const;

    std::shared_ptr<const Trace> m_trace;
    TimeRange m_range;
    Nanos m_playheadNanos = 0;
    std::size_t m_shown = 0;
    QTimer m_timer;
    QElapsedTimer m_clock;
    QToolButton* m_back;
    QToolButton* m_play;
    QToolButton* m_forward;
    QComboBox* m_speed;
    QSlider* m_scrub;
    QLabel* m_time;
    QToolButton* m_send;
    QToolButton* m_burst;
    QSpinBox* m_burstSize;
};

} // namespace ratelab::ui
