#include "frame.h"

#include "decimal.h"

#include <algorithm>

namespace ratelab::ui {

TimeRange fullRange(const Trace& trace)
{
    const Nanos w = trace.config.windowNanos();
    const Nanos last = trace.arrivals.empty() ? 0 : trace.arrivals.back();
    const Nanos end = std::max(last, w);
    return {0, end + std::max<Nanos>(end / 10, 1)};
}

Frame buildFrame(std::shared_ptr<const Scenario> scenario, std::shared_ptr<const Trace> trace, TimeRange range,
                 int columns)
{
    Frame f;
    f.scenario = scenario;
    try {
        if (!trace)
            trace = std::make_shared<const Trace>(simulate(*scenario));
    } catch (const InputError& e) {
        f.error = QString::fromStdString(e.what());
        return f;
    }
    f.trace = trace;
    f.range = range.isValid() ? range : fullRange(*trace);
    columns = std::max(columns, 1);
    f.rows.reserve(trace->results.size());
    for (std::size_t r = 0; r < trace->results.size(); ++r)
        f.rows.push_back(reduceRow(*trace, r, f.range.from, f.range.to, columns));
    return f;
}

} // namespace ratelab::ui
