// Frame is everything the dashboard draws for one state of the controls: the trace, and each
// row reduced to the pixel columns of the visible time range. Widgets only ever draw frames.
#pragma once

#include "view/row_extras.h"
#include "view/reduce.h"
#include "view/served.h"
#include "scenario/scenario.h"

#include <QMetaType>
#include <QThreadPool>
#include <QString>

#include <atomic>
#include <mutex>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ratelab::ui {

// TimeRange is the visible span of simulated time, [from, to).
struct TimeRange {
    Nanos from = 0;
    Nanos to = 0;
    bool isValid() const { return to > from; }
    friend bool operator==(const TimeRange&, const TimeRange&) = default;
};

// recoveryNanos is how long the slowest limiter of the trace takes to forget a request: the
// window, or capacity / rate for a bucket.
Nanos recoveryNanos(const Trace& trace);

// activity returns the first and last decision time of the trace, attempts included (retries
// reach past the last arrival); nullopt when nothing was decided.
std::optional<std::pair<Nanos, Nanos>> activity(const Trace& trace);

// fullRange is the default view of a trace, framed on its activity: from just before the first
// request to just after the last, plus the recovery that follows. A window's recovery is cut to
// keep the requests on at least half of the width; a bucket's refill (a queue's drain), capacity
// / rate, is shown up to 7 times the requests' span (whole after a burst at one instant), so the
// view ends once every queue has drained and every bucket refilled unless that would squeeze the
// requests below a ninth of the width. No empty lead-in from 0.
TimeRange fullRange(const Trace& trace);

// Playhead is where playback stands: the time shown, and how many requests are shown (the
// first `shown` in arrival order). Requests at one instant are stepped one by one, so `shown`
// may stop inside a burst: arrivals[shown - 1] <= t, and those at t after it are still to come.
struct Playhead {
    Nanos t = 0;
    std::size_t shown = 0;
    friend bool operator==(const Playhead&, const Playhead&) = default;
};

// RowLines are the lines a row draws besides its level, so a widget only converts them: each
// node's, the store's or each client's level, as the engine recorded them (RowRun::levels; the
// trace keeps them alive), and nginx's water in thousandths over the visible requests, made with
// the frame on the simulation's threads (nginxWater).
// kDenseKeyLine is the most points a key line may have in a frame's range for its row to be drawn
// with the wide pen (RowLines::keyDense): every preset's lines have fewer.
inline constexpr std::size_t kDenseKeyLine = 4096;

struct RowLines {
    const KeyLevels* keys = nullptr;
    // keyPoints[k] is key line k as drawn over the frame: its points in the range and one either
    // side, then its level after its last point to the frame's end, as a plain row's level goes on
    // past its last request (levelAfter, in the frame's columns); thinned (thinnedPoints) to four a
    // half column when it has more than eight a column.
    std::vector<std::vector<LevelPoint>> keyPoints;
    // keyDense: a line had more than kDenseKeyLine points in the range before it was thinned (the
    // chart strokes such a row's lines in one-pixel strokes: KeyLines::dense).
    bool keyDense = false;
    std::optional<NginxWater> water;
    std::optional<ServerView> server; // a row with a server: its view over the frame's range (rowServer)
};

// rowServer makes the server view of row r of a frame over `range` (serverView), on the
// simulation's threads so the chart only draws it: nullopt for a row without a server.
std::optional<ServerView> rowServer(const Scenario* scenario, const Trace& trace, std::size_t r, const ReducedRow& reduced,
                                    TimeRange range, const std::atomic<bool>* cancel);

// rowLines makes row r's lines of a frame over `reduced` drawn in `columns` columns: the key
// lines where the row's state is not one limiter's, the water of an nginx row whose marks are
// exact (at most a request every three columns).
RowLines rowLines(const Trace& trace, std::size_t r, const ReducedRow& reduced, int columns);

struct Frame {
    std::shared_ptr<const Scenario> scenario;
    std::shared_ptr<const Trace> trace;
    TimeRange range;
    std::vector<ReducedRow> rows; // one per trace result, over `range`
    std::vector<RowLines> extras; // one per trace result, or none (a frame with an error)
    QString error;                // set when the scenario could not be simulated
    bool cancelled = false;       // the job was cancelled: nothing to show
};

// simulationPool runs the per-algorithm tasks of buildFrame, and nothing else: its tasks never
// wait on other tasks, so frames built at once (two windows, an export) cannot starve each
// other, and Qt's global pool stays free for the raster engine's painting.
QThreadPool* simulationPool();

// requestName names request i as a person counts: "request 14 of 20", and within a burst at
// one instant "request 14 of 20, the 4th of 10 at 10.100 s".
QString requestName(const Trace& trace, std::size_t i);

// rowShown returns how many of result `row`'s decisions the playhead shows when it shows the
// first `shown` requests: `shown` itself for a row over the arrivals; for a row with its own
// times (attempts), those made up to the time of the last request shown.
std::size_t rowShown(const Trace& trace, std::size_t row, std::size_t shown);

// Counts are one row's verdicts over the first requests, as far as the playhead has come.
struct Counts {
    std::int64_t admitted = 0; // at once or delayed
    std::int64_t delayed = 0;
    std::int64_t denied = 0;
};

// RunningCounts follows the playhead: moveTo(shown) updates every row's counts of the first
// `shown` requests by the requests in between, so playing forward costs what it shows.
class RunningCounts {
public:
    void reset(std::shared_ptr<const Trace> trace);
    void moveTo(std::size_t shown);
    std::size_t shown() const { return m_shown; }
    const Counts& row(std::size_t r) const { return m_counts.at(r); }

private:
    void add(std::size_t row, std::size_t from, std::size_t to, int sign);
    std::shared_ptr<const Trace> m_trace;
    std::vector<Counts> m_counts;
    std::vector<std::size_t> m_rowShown; // per row: decisions counted (a row with attempts has its own)
    std::size_t m_shown = 0;
};

// FrameCache is what one pipeline's consecutive frames share, owned by that pipeline (never a
// process-wide static): the last pattern's generated arrivals, the last window lookback
// (max_in_window's, per generation of arrivals and window), the server's first service draws,
// and the last frame's rows (a row that reads none of the settings that changed is taken as it
// was). A frame built without one shares nothing with any other. Thread-safe.
class FrameCache {
public:
    // LastFrame is a frame whose rows later frames may take: a plain row (one limiter over the
    // arrivals) reduced as it was, over the same range and columns; a row the engine runs (a
    // cluster's, a server's) as it was simulated, reduced again when the range moved.
    struct LastFrame {
        std::shared_ptr<const Scenario> scenario;
        std::shared_ptr<const Trace> trace;
        TimeRange range;
        int columns = 0;
        std::vector<ReducedRow> rows;
        std::vector<RowLines> extras;
        std::vector<bool> plain; // per row: simulated as a plain row
    };
    std::shared_ptr<const LastFrame> lastFrame() const;
    void keepLastFrame(std::shared_ptr<const LastFrame> frame);

    std::shared_ptr<const std::vector<Nanos>> arrivals(const Pattern& pattern) const;
    void keepArrivals(const Pattern& pattern, std::shared_ptr<const std::vector<Nanos>> arrivals);
    std::shared_ptr<const WindowLookback> lookback(const std::shared_ptr<const std::vector<Nanos>>& arrivals,
                                                   Nanos windowNanos) const;
    void keepLookback(std::shared_ptr<const std::vector<Nanos>> arrivals, Nanos windowNanos,
                      std::shared_ptr<const WindowLookback> lookback);
    // firstServices are the server's first-attempt draws of n requests (firstServiceDraws): the
    // same for every frame of one service, seed and count, whatever else a drag changes.
    std::shared_ptr<const std::vector<Nanos>> firstServices(const ServiceTime& service, std::uint64_t seed,
                                                            std::size_t n) const;
    void keepFirstServices(const ServiceTime& service, std::uint64_t seed,
                           std::shared_ptr<const std::vector<Nanos>> draws);

private:
    mutable std::mutex m_mutex;
    std::optional<Pattern> m_pattern;
    std::shared_ptr<const std::vector<Nanos>> m_arrivals;
    std::shared_ptr<const std::vector<Nanos>> m_lookbackArrivals;
    Nanos m_lookbackWindowNanos = 0;
    std::shared_ptr<const WindowLookback> m_lookback;
    std::shared_ptr<const LastFrame> m_lastFrame;
    ServiceTime m_service;
    std::uint64_t m_serviceSeed = 0;
    std::shared_ptr<const std::vector<Nanos>> m_firstServices;
};

// buildFrame simulates (unless `trace` is given) and reduces every row to `columns` columns.
// An empty range means fullRange. InputError becomes Frame::error.
// Once *cancel (when given) is true the work stops within kCancelCheck requests a row and the
// frame comes back cancelled.
// `cache`, when given, is reused from and updated (a pipeline's own, see FrameCache).
Frame buildFrame(std::shared_ptr<const Scenario> scenario, std::shared_ptr<const Trace> trace, TimeRange range,
                 int columns, const std::atomic<bool>* cancel = nullptr, FrameCache* cache = nullptr);

} // namespace ratelab::ui

Q_DECLARE_METATYPE(ratelab::ui::Frame)
