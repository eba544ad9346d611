// Pipeline turns control changes into frames off the GUI thread.
//
// At most one job runs at a time. A request made while one runs replaces any request still
// waiting and cancels the running job (it stops within tens of thousands of requests a row), so
// dragging a slider never waits on stale work: the last frame delivered is always the latest
// request's, and it comes one job after the drag stops. The charts follow a drag as fast as
// jobs finish between its moves.
// A request with the same scenario as the last frame reuses its trace and only re-reduces
// (zoom and pan).
#pragma once

#include "frame.h"

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

signals:
    void frameReady(const ratelab::ui::Frame& frame);

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
    std::size_t m_jobsStarted = 0;
    std::shared_ptr<const Scenario> m_lastScenario;
    std::shared_ptr<const Trace> m_lastTrace;
};

} // namespace ratelab::ui
