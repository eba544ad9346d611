#include "frame.h"

#include "decimal.h"

#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <numeric>

namespace ratelab::ui {

TimeRange fullRange(const Trace& trace)
{
    const Nanos w = trace.config.windowNanos();
    const Nanos last = trace.arrivals.empty() ? 0 : trace.arrivals.back();
    const Nanos end = std::max(last, w);
    return {0, end + std::max<Nanos>(end / 10, 1)};
}

QThreadPool* simulationPool()
{
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool; // lives as long as the process: jobs may still run at exit
        p->setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
        p->setObjectName("simulation");
        return p;
    }();
    return pool;
}

Frame buildFrame(std::shared_ptr<const Scenario> scenario, std::shared_ptr<const Trace> trace, TimeRange range,
                 int columns)
{
    Frame f;
    f.scenario = scenario;
    columns = std::max(columns, 1);
    // Algorithms are independent: simulate and reduce each on its own pool thread.
    const std::vector<Algorithm>& algorithms = scenario->algorithms;
    try {
        if (!trace) {
            auto fresh = std::make_shared<Trace>(Trace{scenario->config, resolveArrivals(*scenario), {}});
            fresh->results.resize(algorithms.size());
            std::vector<std::size_t> indices(algorithms.size());
            std::iota(indices.begin(), indices.end(), std::size_t(0));
            // Each result is written in place: a mapped result list would copy every decision.
            QtConcurrent::blockingMap(simulationPool(), indices, [&](std::size_t i) {
                fresh->results[i] = simulateOne(fresh->config, algorithms[i], fresh->arrivals);
            });
            trace = std::move(fresh);
        }
    } catch (const InputError& e) {
        f.error = QString::fromStdString(e.what());
        return f;
    }
    f.trace = trace;
    f.range = range.isValid() ? range : fullRange(*trace);
    std::vector<std::size_t> rows(trace->results.size());
    std::iota(rows.begin(), rows.end(), std::size_t(0));
    f.rows = QtConcurrent::blockingMapped<std::vector<ReducedRow>>(
        simulationPool(), rows, [&](std::size_t r) { return reduceRow(*trace, r, f.range.from, f.range.to, columns); });
    return f;
}

} // namespace ratelab::ui
