// Frame is everything the dashboard draws for one state of the controls: the trace, and each
// row reduced to the pixel columns of the visible time range. Widgets only ever draw frames.
#pragma once

#include "reduce.h"
#include "scenario.h"

#include <QMetaType>
#include <QThreadPool>
#include <QString>

#include <memory>
#include <vector>

namespace ratelab::ui {

// TimeRange is the visible span of simulated time, [from, to).
struct TimeRange {
    Nanos from = 0;
    Nanos to = 0;
    bool isValid() const { return to > from; }
    friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

// fullRange is the default view of a trace: from 0 to just past the later of the last request
// and the first window boundary, so the first reset and the refill after a burst both show.
TimeRange fullRange(const Trace& trace);

struct Frame {
    std::shared_ptr<const Scenario> scenario;
    std::shared_ptr<const Trace> trace;
    TimeRange range;
    std::vector<ReducedRow> rows; // one per trace result, over `range`
    QString error;                // set when the scenario could not be simulated
};

// simulationPool runs the per-algorithm tasks of buildFrame, and nothing else: its tasks never
// wait on other tasks, so frames built at once (two windows, an export) cannot starve each
// other, and Qt's global pool stays free for the raster engine's painting.
QThreadPool* simulationPool();

// buildFrame simulates (unless `trace` is given) and reduces every row to `columns` columns.
// An empty range means fullRange. InputError becomes Frame::error.
Frame buildFrame(std::shared_ptr<const Scenario> scenario, std::shared_ptr<const Trace> trace, TimeRange range,
                 int columns);

} // namespace ratelab::ui

Q_DECLARE_METATYPE(ratelab::ui::Frame)
