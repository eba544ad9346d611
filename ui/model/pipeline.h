// Pipeline turns control changes into frames off the GUI thread.
//
// At most one job runs at a time. A request made while one runs replaces any request still
// waiting. It cancels the running job (which stops within tens of thousands of requests a row)
// only while that job is young (under a quarter of the last finished job's time and under a
// screen's frame, kFrameNs) and only once between two frames delivered: the job started in its place runs to the end and is shown, then
// the newest request runs. So a continuous drag keeps delivering frames (never starves), and the
// last frame delivered is always the latest request's, at most two jobs after the drag stops.
// A request with the same scenario as the last frame reuses its trace and only re-reduces
// (zoom and pan).
#pragma once

#include "model/frame.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>

#include <optional>

namespace ratelab::ui {

class Pipeline : public QObject {
    Q_OBJECT
public:
    explicit Pipeline(QObject* parent = nullptr);
    ~Pipeline() override;

    // request asks for a frame of scenario over range (empty: the full range) at `columns`.
    void request(const Scenario& scenario, TimeRange range, int columns);
    // isIdle reports whether no job is running or waiting.
    bool isIdle() const;
    // jobsStarted counts the frames this pipeline has started building (cancelled ones too).
    std::size_t jobsStarted() const { return m_jobsStarted; }
    // framesDelivered counts the frames emitted by frameReady.
    std::size_t framesDelivered() const { return m_framesDelivered; }

signals:
    // frameReady hands over the frame built, shared and immutable: views keep the pointer.
    void frameReady(std::shared_ptr<const ratelab::ui::Frame> frame);

private:
    struct Job {
        std::shared_ptr<const Scenario> scenario;
        TimeRange range;
        int columns = 1;
        bool sameAs(const Job& other) const
        {
            return range == other.range && columns == other.columns && *scenario == *other.scenario;
        }
    };
    void start(Job job);
    void finished();

    QThreadPool m_pool; // this pipeline's one job at a time, never Qt's global pool
    QFutureWatcher<Frame> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running job's
    Job m_current; // the running (or last started) job
    std::optional<Job> m_pending;
    bool m_running = false;
    // shouldCancelRunning reports whether the running job is young enough to give way.
    bool shouldCancelRunning() const;
    // kFrameNs is a screen's frame (60 Hz): a job running longer is let finish.
    static constexpr qint64 kFrameNs = 1'000'000'000 / 60;
    std::size_t m_jobsStarted = 0;
    std::size_t m_framesDelivered = 0;
    QElapsedTimer m_jobClock;       // since the running job started
    bool m_cancelledSinceDelivery = false;
    qint64 m_lastJobNs = 0;         // how long the last job that finished took
    std::shared_ptr<const Scenario> m_lastScenario;
    std::shared_ptr<const Trace> m_lastTrace;
    std::shared_ptr<FrameCache> m_cache = std::make_shared<FrameCache>(); // this pipeline's frames share it
};

} // namespace ratelab::ui
