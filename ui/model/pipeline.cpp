#include "model/pipeline.h"

#include "engine/chunk_pool.h"

#include <QCoreApplication>
#include <QPointer>
#include <QTimer>

#include <QtConcurrent/QtConcurrentRun>

namespace ratelab::ui {

namespace {

// The engine keeps freed log chunks for the next log (chunk_pool.h). Once none has been taken or
// kept over kReleaseMs, whatever used them (a drag, a dry run, an advice) is over, and they go
// back to the system: one timer for the application, made with its first pipeline.
constexpr int kReleaseMs = 2000;

void releaseIdleChunks()
{
    static QPointer<QTimer> timer;
    if (timer || !QCoreApplication::instance())
        return;
    timer = new QTimer(QCoreApplication::instance());
    timer->setInterval(kReleaseMs);
    QObject::connect(timer, &QTimer::timeout, [seen = chunkPoolActivity()]() mutable {
        const std::uint64_t now = chunkPoolActivity();
        if (now == seen && keptChunkBytes() > 0)
            releaseKeptChunks();
        seen = now;
    });
    timer->start();
}

} // namespace

Pipeline::Pipeline(QObject* parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
    connect(&m_watcher, &QFutureWatcher<Frame>::finished, this, &Pipeline::finished);
    releaseIdleChunks();
}

Pipeline::~Pipeline()
{
    m_watcher.waitForFinished();
}

void Pipeline::request(const Scenario& scenario, TimeRange range, int columns)
{
    Job job{std::make_shared<const Scenario>(scenario), range, columns};
    if (m_running && !m_cancel->load(std::memory_order_relaxed) && job.sameAs(m_current)) {
        m_pending.reset(); // the running job already builds exactly this frame (a resize that settled back)
        return;
    }
    if (m_running) {
        m_pending = std::move(job);
        if (!m_cancel->load(std::memory_order_relaxed) && shouldCancelRunning()) {
            m_cancel->store(true, std::memory_order_relaxed);
            m_cancelledSinceDelivery = true;
        }
    }
    else
        start(std::move(job));
}

bool Pipeline::isIdle() const { return !m_running && !m_pending; }

bool Pipeline::shouldCancelRunning() const
{
    if (m_lastJobNs == 0)
        return true; // nothing known yet of how long a job takes: the newest wins
    // Only a young job gives way (a quarter of the last job's time, and never one older than a
    // screen's frame: little work lost), and only once between two frames shown: the job started
    // in its place runs to the end. A job in flight longer than a frame is closer to the screen
    // than any job started now, so a continuous drag shows frames at the rate they can be made.
    const qint64 age = m_jobClock.nsecsElapsed();
    return !m_cancelledSinceDelivery && age < kFrameNs && age * 4 < m_lastJobNs;
}

void Pipeline::start(Job job)
{
    m_running = true;
    m_current = job;
    ++m_jobsStarted;
    m_jobClock.start();
    std::shared_ptr<const Trace> reuse;
    if (m_lastScenario && m_lastTrace && *m_lastScenario == *job.scenario)
        reuse = m_lastTrace;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_watcher.setFuture(QtConcurrent::run(&m_pool, [job, reuse, cancel = m_cancel, cache = m_cache] {
        return buildFrame(job.scenario, reuse, job.range, job.columns, cancel.get(), cache.get());
    }));
}

void Pipeline::finished()
{
    m_running = false;
    Frame frame = m_watcher.result();
    if (frame.cancelled) { // a newer request is waiting: it replaces this one
        if (m_pending) {
            Job next = std::move(*m_pending);
            m_pending.reset();
            start(std::move(next));
        }
        return;
    }
    m_lastJobNs = std::max<qint64>(m_jobClock.nsecsElapsed(), 1);
    m_cancelledSinceDelivery = false;
    ++m_framesDelivered;
    if (frame.trace) {
        m_lastScenario = frame.scenario;
        m_lastTrace = frame.trace;
    }
    if (m_pending) {
        Job next = std::move(*m_pending);
        m_pending.reset();
        start(std::move(next));
    }
    emit frameReady(std::make_shared<const Frame>(std::move(frame)));
}

} // namespace ratelab::ui
