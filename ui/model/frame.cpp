#include "model/frame.h"

#include "report/report_run.h"

#include "limiters/algorithm_facts.h"
#include "limiters/products/own_limit.h"
#include "limiters/products/product.h"
#include "arithmetic/decimal.h"
#include "arithmetic/vector_state.h"
#include "report/explain.h"
#include "scenario/rows.h"
#include "view/row_extras.h"

#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace ratelab::ui {

namespace {

// forgetNanos is how long algorithm a takes to forget a request: a window limiter its window, a
// bucket capacity / rate to refill or drain from empty or full. A product given its own options
// by its own limit (ownLimit): its own window, or its ceiling at its own rate; one that never
// forgets (flexible's duration 0) or refuses everything, by the Limits.
Int128 forgetNanos(Algorithm a, const LimiterConfig& c)
{
    const bool window = facts(a).reads == ConfigUse::LimitWindow;
    if (isProduct(a) && ProductParams(a, c).given()) {
        try {
            const LimitWindow own = ownLimit(a, c);
            if (own.limit > 0 && own.windowNanos < kMaxNanos) {
                const double refill = std::ceil(facts(a).ceiling(c) * double(own.windowNanos) / double(own.limit));
                if (window || refill < 1e18) // only drawn: a double will do
                    return window ? Int128(own.windowNanos) : Int128(std::max(refill, 1.0));
            }
        } catch (const InputError&) {
        }
    }
    return window ? Int128(c.windowNanos()) : ceilDiv(Int128(c.capacity()) * c.rate().perNanos, c.rate().tokens);
}

} // namespace

Nanos recoveryNanos(const Trace& trace)
{
    // How long each limiter takes to forget a request (forgetNanos): the longest.
    const LimiterConfig& c = trace.config;
    Int128 longest = 0;
    for (const AlgorithmTrace& r : trace.results)
        longest = std::max(longest, forgetNanos(r.algorithm, c));
    if (trace.results.empty())
        longest = c.windowNanos();
    return clampToNanos(longest);
}

std::optional<std::pair<Nanos, Nanos>> activity(const Trace& trace)
{
    std::optional<std::pair<Nanos, Nanos>> span;
    if (!trace.arrivals.empty())
        span = {trace.arrivals.front(), trace.arrivals.back()};
    for (const AlgorithmTrace& r : trace.results) // attempts reach past the arrivals
        if (r.kind.attempts && !r.times.empty())
            span = span ? std::pair{std::min(span->first, r.times.front()), std::max(span->second, r.times.back())}
                        : std::pair{r.times.front(), r.times.back()};
    return span;
}

namespace {

// refillNanos is how long the slowest bucket of the trace takes to refill from empty (or a queue
// to drain from full): capacity / rate, rounded up; 0 when no row draws a bucket's level (rows
// of many keys or nodes draw none yet: their refill would only widen an empty plot).
Nanos refillNanos(const Trace& trace)
{
    Int128 slowest = 0;
    for (const AlgorithmTrace& r : trace.results)
        if (facts(r.algorithm).reads == ConfigUse::CapacityRate && r.levelReplayable)
            slowest = std::max(slowest, forgetNanos(r.algorithm, trace.config));
    return clampToNanos(slowest);
}

} // namespace

TimeRange fullRange(const Trace& trace)
{
    const Nanos recovery = std::max<Nanos>(recoveryNanos(trace), 1);
    const auto active = activity(trace);
    if (!active)
        return {0, recovery + std::max<Nanos>(recovery / 10, 1)};
    // The requests, then as much of a window's recovery as keeps them on at least half of the
    // width (a burst at one instant gets the whole recovery); a bucket's or a queue's refill or
    // drain, so the view opens on the state the scenario leaves behind settling.
    const auto [first, last] = *active;
    const Nanos span = last - first;
    // The refill is cut at 7 times the requests' span, so a short burst stays readable (edge-burst's
    // 0.2 s across a window boundary would otherwise be 2% of the width).
    const Nanos refill = span > 0 ? Nanos(std::min<Int128>(refillNanos(trace), Int128(span) * 7)) : refillNanos(trace);
    const Nanos after = std::max(span > 0 ? std::min(recovery, span / 5 * 4) : recovery, refill);
    const Nanos margin = std::max<Nanos>(span / 20 + after / 20, 1);
    const Nanos from = first > margin ? first - margin : 0;
    const Nanos to = Nanos(std::min<Int128>(Int128(last) + after + margin, kMaxNanos));
    return {from, std::max(to, from + 1)};
}

namespace {

QString ordinal(std::size_t n)
{
    const std::size_t tens = n % 100, units = n % 10;
    const char* suffix = (tens >= 11 && tens <= 13) ? "th" : units == 1 ? "st" : units == 2 ? "nd" : units == 3 ? "rd" : "th";
    return QString::number(n) + suffix;
}

} // namespace

QString requestName(const Trace& trace, std::size_t i)
{
    const auto& a = trace.arrivals;
    QString name = QString("request %1 of %2").arg(i + 1).arg(a.size());
    const auto same = std::equal_range(a.begin(), a.end(), a.at(i));
    const auto size = std::size_t(same.second - same.first);
    if (size > 1)
        name += QString(", the %1 of %2 at %3 s")
                    .arg(ordinal(i - std::size_t(same.first - a.begin()) + 1))
                    .arg(size)
                    .arg(QString::fromStdString(explainSeconds(a[i])));
    return name;
}

std::size_t rowShown(const Trace& trace, std::size_t row, std::size_t shown)
{
    const AlgorithmTrace& result = trace.results.at(row);
    if (!result.kind.attempts)
        return std::min(shown, decisionCount(result));
    const auto& t = result.times;
    if (shown == 0)
        return 0;
    if (shown >= trace.arrivals.size())
        return t.size();
    return std::size_t(std::upper_bound(t.begin(), t.end(), trace.arrivals[shown - 1]) - t.begin());
}

void RunningCounts::reset(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_counts.assign(m_trace ? m_trace->results.size() : 0, Counts{});
    m_rowShown.assign(m_counts.size(), 0);
    if (m_trace) // at the end: the totals, which the metrics already hold
        for (std::size_t r = 0; r < m_counts.size(); ++r) {
            const AlgorithmTrace& result = m_trace->results[r];
            m_counts[r] = {result.metrics.allowed, result.metrics.delayed, result.metrics.denied};
            m_rowShown[r] = decisionCount(result);
        }
    m_shown = m_trace ? m_trace->arrivals.size() : 0;
}

void RunningCounts::moveTo(std::size_t shown)
{
    if (!m_trace)
        return;
    shown = std::min(shown, m_trace->arrivals.size());
    for (std::size_t r = 0; r < m_counts.size(); ++r) {
        const std::size_t target = rowShown(*m_trace, r, shown);
        // Walk the shorter way: from here, or from the start.
        std::size_t& at = m_rowShown[r];
        if (target >= at)
            add(r, at, target, +1);
        else if (at - target <= target)
            add(r, target, at, -1);
        else {
            m_counts[r] = Counts{};
            add(r, 0, target, +1);
        }
        at = target;
    }
    m_shown = shown;
}

void RunningCounts::add(std::size_t r, std::size_t from, std::size_t to, int sign)
{
    const AlgorithmTrace& result = m_trace->results[r];
    Counts& c = m_counts[r];
    for (std::size_t i = from; i < to; ++i) {
        const Verdict v = verdictAt(result, i);
        c.admitted += sign * (v != Verdict::Denied);
        c.delayed += sign * (v == Verdict::Delayed);
        c.denied += sign * (v == Verdict::Denied);
    }
}

namespace {

// yieldToTheGui lowers the calling pool thread's scheduling weight once (Linux: nice 10, about a
// tenth of a normal thread's share), so the GUI thread competing for a core paints first while a
// simulation runs; an idle machine still gives the simulation every core.
void yieldToTheGui()
{
#ifdef __linux__
    static thread_local const bool once = [] {
        return setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10) == 0;
    }();
    (void)once;
#endif
}

} // namespace

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

namespace {

// Generated is a scenario with its generated arrivals written out as explicit ones, and those
// arrivals as the cache keeps them (nullptr without a cache, when it had explicit ones, or an
// edge pattern).
struct Generated {
    Scenario scenario;
    std::shared_ptr<const std::vector<Nanos>> arrivals;
};

// withArrivals returns the scenario with its generated arrivals written out as explicit ones,
// reusing the cache's last generation when its pattern is the same: a slider that changes only
// the limiter's settings generates nothing again. The edge pattern is placed by the limit and
// window, so it is generated each time; a scenario with explicit arrivals is returned as it is.
Generated withArrivals(const Scenario& s, FrameCache* cache)
{
    checkScenario(s); // its errors first, as resolveRowInputs gives them
    if (s.explicitArrivals || s.pattern.kind == PatternKind::Edge || s.pattern.kind == PatternKind::Worst)
        return {s, nullptr}; // edge and worst are placed by the config: generated each time
    if (!cache) { // nothing keeps them: generated straight into the scenario, not copied there
        Generated out{s, nullptr};
        out.scenario.explicitArrivals = generateArrivals(s.pattern, s.config, Threads::Two);
        return out;
    }
    std::shared_ptr<const std::vector<Nanos>> arrivals = cache->arrivals(s.pattern);
    if (!arrivals) {
        arrivals = std::make_shared<const std::vector<Nanos>>(generateArrivals(s.pattern, s.config, Threads::Two));
        cache->keepArrivals(s.pattern, arrivals);
    }
    Generated out{s, arrivals};
    out.scenario.explicitArrivals = *arrivals;
    return out;
}

// lookbackFor returns the lookback of a frame's arrivals over windows of windowNanos, reusing the
// cache's last one when the arrivals are the same generation (no requests added) and the window
// the same: dragging the limit makes it once.
std::shared_ptr<const WindowLookback> lookbackFor(const Generated& g, std::span<const Nanos> arrivals, Nanos windowNanos,
                                                  FrameCache* cache)
{
    if (!cache || !g.arrivals || !g.scenario.addedArrivals.empty())
        return makeWindowLookback(arrivals, windowNanos, Threads::Two);
    if (auto kept = cache->lookback(g.arrivals, windowNanos))
        return kept;
    auto made = makeWindowLookback(arrivals, windowNanos, Threads::Two);
    cache->keepLookback(g.arrivals, windowNanos, made);
    return made;
}

// plainBound is boundReach of a plain row simulated in one pass: the pass's reach when it
// measured it over the bound's window (the bound itself from boundReach over no requests), else
// boundReach's scan of the verdicts.
std::optional<BoundReach> plainBound(const Scenario& s, std::span<const Nanos> arrivals,
                                     std::span<const std::int64_t> costs, const AlgorithmTrace& row, std::size_t r,
                                     const std::optional<WindowReach>& reach)
{
    if (!reach || boundWindowNanos(s.pattern, s.config) != s.config.windowNanos())
        return boundReach(s, arrivals, costs, row, r);
    std::optional<BoundReach> bound = boundReach(s, {}, {}, row, r);
    if (bound) {
        bound->reached = reach->most;
        bound->closestEnd = reach->end;
    }
    return bound;
}

// readsTheSame is true when algorithm a decides, measures and bounds a row alike under configs x
// and y: a textbook window limiter reads its limit and window; a textbook bucket its capacity and
// rate, and the limit and window it is measured against (max_in_window, overshoot). A product or
// nginx, with options of its own, is never taken as the same.
bool readsTheSame(Algorithm a, const LimiterConfig& x, const LimiterConfig& y)
{
    if (isProduct(a) || a == Algorithm::NginxLimitReq)
        return false;
    const bool limits = x.limit() == y.limit() && x.windowNanos() == y.windowNanos();
    return facts(a).reads == ConfigUse::LimitWindow ? limits
                                                    : limits && x.capacity() == y.capacity() && x.rate() == y.rate();
}

// sameButConfig returns the cache's last frame when its rows may be taken by a frame of s: the
// same scenario but for its config, and arrivals generated by a pattern the config does not
// place (edge and worst are placed by it). A scenario of explicit arrivals (an imported log) is
// never compared: the copy compared would hold them all.
std::shared_ptr<const FrameCache::LastFrame> sameButConfig(const FrameCache* cache, const Scenario& s)
{
    if (!cache || s.explicitArrivals || s.pattern.kind == PatternKind::Edge || s.pattern.kind == PatternKind::Worst)
        return nullptr;
    auto kept = cache->lastFrame();
    if (!kept)
        return nullptr;
    Scenario same = *kept->scenario;
    same.config = s.config;
    return same == s ? kept : nullptr;
}

// unmovedBy is true when row r of s runs alike under the config `before` as under its own: a
// row of the layered policy or of a concurrency limiter reads none of it, an algorithm's row
// (with no limit changes, which are made from the config) what readsTheSame says it reads.
bool unmovedBy(const Scenario& s, std::size_t r, const LimiterConfig& before)
{
    if (r >= s.algorithms.size())
        return true;
    return s.changes.empty() && readsTheSame(s.algorithms[r], before, s.config);
}

} // namespace

std::shared_ptr<const FrameCache::LastFrame> FrameCache::lastFrame() const
{
    const std::lock_guard lock(m_mutex);
    return m_lastFrame;
}

void FrameCache::keepLastFrame(std::shared_ptr<const LastFrame> frame)
{
    const std::lock_guard lock(m_mutex);
    m_lastFrame = std::move(frame);
}

std::shared_ptr<const std::vector<Nanos>> FrameCache::arrivals(const Pattern& pattern) const
{
    const std::lock_guard lock(m_mutex);
    return m_pattern == pattern ? m_arrivals : nullptr;
}

void FrameCache::keepArrivals(const Pattern& pattern, std::shared_ptr<const std::vector<Nanos>> arrivals)
{
    const std::lock_guard lock(m_mutex);
    m_pattern = pattern;
    m_arrivals = std::move(arrivals);
}

std::shared_ptr<const WindowLookback> FrameCache::lookback(const std::shared_ptr<const std::vector<Nanos>>& arrivals,
                                                           Nanos windowNanos) const
{
    const std::lock_guard lock(m_mutex);
    return m_lookbackArrivals == arrivals && m_lookbackWindowNanos == windowNanos ? m_lookback : nullptr;
}

void FrameCache::keepLookback(std::shared_ptr<const std::vector<Nanos>> arrivals, Nanos windowNanos,
                              std::shared_ptr<const WindowLookback> lookback)
{
    const std::lock_guard lock(m_mutex);
    m_lookbackArrivals = std::move(arrivals);
    m_lookbackWindowNanos = windowNanos;
    m_lookback = std::move(lookback);
}

std::shared_ptr<const std::vector<Nanos>> FrameCache::firstServices(const ServiceTime& service, std::uint64_t seed,
                                                                    std::size_t n) const
{
    const std::lock_guard lock(m_mutex);
    return m_firstServices && m_service == service && m_serviceSeed == seed && m_firstServices->size() == n
               ? m_firstServices
               : nullptr;
}

void FrameCache::keepFirstServices(const ServiceTime& service, std::uint64_t seed,
                                   std::shared_ptr<const std::vector<Nanos>> draws)
{
    const std::lock_guard lock(m_mutex);
    m_service = service;
    m_serviceSeed = seed;
    m_firstServices = std::move(draws);
}

RowLines rowLines(const Trace& trace, std::size_t r, const ReducedRow& reduced, int columns)
{
    RowLines lines;
    const AlgorithmTrace& result = trace.results.at(r);
    if (result.algorithm == Algorithm::NginxLimitReq && !result.kind.attempts
        && reduced.endRequest - reduced.firstRequest <= std::size_t(std::max(columns, 1) / 3))
        lines.water = nginxWater(trace, r, reduced.firstRequest, reduced.endRequest);
    if (!result.levelReplayable && result.engine) { // recorded by the engine as it ran the row
        lines.keys = &result.engine->run.levels;
        // The engine records up to the last attempt; the view may run on, and each state's level
        // with it, drawn over the frame's columns from there to its end.
        const Nanos from = reduced.fromNanos, to = reduced.toNanos;
        const int buckets = 2 * int(std::max<std::size_t>(reduced.columns.size(), 1));
        for (const KeyLevel& line : lines.keys->lines) {
            // What the frame shows, and one point either side to reach its edges: the points
            // [first, end) (t is non-decreasing, from < to), then the level after the last.
            const std::vector<KeyLevelPoint>& pts = line.points;
            const std::size_t lo = std::size_t(
                std::lower_bound(pts.begin(), pts.end(), from, [](const KeyLevelPoint& q, Nanos t) { return q.t < t; })
                - pts.begin());
            const std::size_t hi = std::size_t(
                std::upper_bound(pts.begin(), pts.end(), to, [](Nanos t, const KeyLevelPoint& q) { return t < q.t; })
                - pts.begin());
            const std::size_t first = lo > 0 && lo < pts.size() ? lo - 1 : lo;
            const std::size_t end = std::max(first, hi > 0 && hi < pts.size() ? hi + 1 : hi);
            std::vector<LevelPoint> after;
            const Nanos start = std::max(line.endT, from);
            if (line.endState && start < to && to > from) {
                const int span = int(std::max<Int128>(1, Int128(columns) * (to - start) / (to - from)));
                after = levelAfter(*line.endState, start, to, span, line.endHanded - line.endT);
            }
            // Thinned as it is read, not copied whole first: a dense line has tens of points a column.
            const std::size_t shown = end - first, n = shown + after.size();
            const auto at = [&](std::size_t i) {
                return i < shown ? LevelPoint{secondsAsDouble(pts[first + i].t), pts[first + i].level} : after[i - shown];
            };
            lines.keyDense = lines.keyDense || n > kDenseKeyLine;
            std::vector<LevelPoint> points;
            if (n > 4 * std::size_t(buckets)) {
                points = thinnedPoints(n, at, secondsAsDouble(from), secondsAsDouble(to), buckets);
            } else {
                points.reserve(n);
                for (std::size_t i = 0; i < n; ++i)
                    points.push_back(at(i));
            }
            lines.keyPoints.push_back(std::move(points));
        }
    }
    return lines;
}

std::optional<ServerView> rowServer(const Scenario* scenario, const Trace& trace, std::size_t r, const ReducedRow& reduced,
                                    TimeRange range, const std::atomic<bool>* cancel)
{
    const AlgorithmTrace& result = trace.results.at(r);
    if (!result.engine || !result.engine->run.server || !range.isValid())
        return std::nullopt;
    const RowRun& run = result.engine->run;
    ServerView view = serverView(run.served, timesOf(trace, r), reduced, run.server->limits,
                                 scenario && gateRow(*scenario, r), range.from, range.to, cancel);
    view.byClient = servedByClient(run);
    return view;
}

namespace {

// onEachRow runs a task per row, each on its own pool thread: rows are independent. An
// InputError inside a pool task would reach here as QUnhandledException: each task keeps its own
// message (of rowCount rows), and the first row's is thrown.
template <class Task>
void onEachRow(const std::vector<std::size_t>& rows, std::size_t rowCount, const Task& task)
{
    std::vector<std::string> errors(rowCount);
    std::atomic<bool> cancelled = false;
    QtConcurrent::blockingMap(simulationPool(), rows, [&](std::size_t r) {
        yieldToTheGui();
        clearVectorUpperState();
        try {
            task(r);
        } catch (const InputError& e) {
            errors[r] = e.what();
        } catch (const Cancelled&) {
            cancelled = true;
        }
    });
    if (cancelled)
        throw Cancelled{};
    for (const std::string& e : errors)
        if (!e.empty())
            throw InputError(e);
}

void fillExtras(Frame& f, const Scenario* scenario, const Trace& trace, std::size_t r, int columns,
                const std::atomic<bool>* cancel)
{
    f.extras[r] = rowLines(trace, r, f.rows[r], columns);
    f.extras[r].server = rowServer(scenario, trace, r, f.rows[r], f.range, cancel);
}

// reframe reduces a trace already simulated: the same scenario, only the reduction changes
// (zoom, pan, resize).
void reframe(Frame& f, const std::shared_ptr<const Trace>& trace, TimeRange range, int columns,
             const std::atomic<bool>* cancel)
{
    f.trace = trace;
    f.range = range.isValid() ? range : fullRange(*trace);
    std::vector<std::size_t> rows(trace->results.size());
    std::iota(rows.begin(), rows.end(), std::size_t(0));
    f.rows.resize(rows.size());
    f.extras.resize(rows.size());
    onEachRow(rows, rows.size(), [&](std::size_t r) {
        f.rows[r] = reduceRow(*trace, r, f.range.from, f.range.to, columns, cancel);
        fillExtras(f, f.scenario.get(), *trace, r, columns, cancel);
    });
}

// firstServicesFor returns the server's first-attempt draws for the n requests of a frame whose
// rows the engine runs (`engineRows`) serve: the cache's when it holds them, else drawn on two
// threads and kept. None without a server or with service=file (no draw).
std::shared_ptr<const std::vector<Nanos>> firstServicesFor(const Scenario& s, std::size_t n, bool engineRows,
                                                           FrameCache* cache)
{
    if (!engineRows || !s.server || s.server->options().service.kind == ServiceKind::File)
        return nullptr;
    const ServiceTime& service = s.server->options().service;
    const std::uint64_t seed = s.pattern.seed; // the seed engineSetup gives every row
    if (cache)
        if (auto kept = cache->firstServices(service, seed, n))
            return kept;
    auto draws = std::make_shared<const std::vector<Nanos>>(firstServiceDraws(service, seed, n, Threads::Two));
    if (cache)
        cache->keepFirstServices(service, seed, draws);
    return draws;
}

// Earlier is the cache's last frame as a frame of `scenario` may take its rows (sameButConfig):
// row r when it was made the same way (plain, or on the engine) and reads none of what changed.
struct Earlier {
    const Scenario& scenario;
    std::shared_ptr<const FrameCache::LastFrame> frame;
    bool takes(std::size_t r, bool plain) const
    {
        return frame && frame->plain.at(r) == plain && unmovedBy(scenario, r, frame->scenario->config);
    }
};

// RowPlan is how a frame makes its rows: the plain ones in one pass with their reduction, the
// engine's (`whole`) simulated first; an engine row the earlier frame gives is in neither.
struct RowPlan {
    std::vector<std::size_t> plain, whole;
    std::vector<bool> isPlain; // per row
};

// planRows sorts the rows of s, setting results[r] of each engine row taken from `earlier` and
// the algorithm of each plain row.
RowPlan planRows(const Scenario& s, const Earlier& earlier, std::vector<AlgorithmTrace>& results)
{
    RowPlan plan;
    plan.isPlain.assign(results.size(), false);
    for (std::size_t r = 0; r < results.size(); ++r) {
        if (!needsEngine(s, r)) {
            plan.plain.push_back(r);
            plan.isPlain[r] = true;
            results[r].algorithm = s.algorithms[r];
        } else if (earlier.takes(r, false)) {
            results[r] = earlier.frame->trace->results[r]; // its run shared, alike under the new config
        } else {
            plan.whole.push_back(r);
        }
    }
    return plan;
}

// simulateFrame simulates and reduces every row. A plain row (one limiter over the arrivals) is
// simulated and reduced in one pass that keeps no decision. The others (cluster, clients,
// layers) are simulated whole first: their attempts may reach past the arrivals, and the default
// range frames them too. A row that reads none of what changed since the cache's last frame is
// taken from it (unmovedBy): a cluster's window rows while its capacity is dragged, a concurrency
// limiter's row while the limit is.
void simulateFrame(Frame& f, TimeRange range, int columns, const std::atomic<bool>* cancel, FrameCache* cache)
{
    const Scenario& scenario = *f.scenario;
    Generated generated = withArrivals(scenario, cache);
    RowInputs inputs = resolveRowInputs(std::move(generated.scenario)); // its arrivals move on
    const std::size_t n = rowCount(scenario);
    const Earlier earlier{scenario, sameButConfig(cache, scenario)};
    std::vector<AlgorithmTrace> results(n);
    RowPlan plan = planRows(scenario, earlier, results);
    inputs.firstServices = firstServicesFor(scenario, inputs.arrivals.size(), !plan.whole.empty(), cache);
    onEachRow(plan.whole, n, [&](std::size_t r) { results[r] = simulateRow(scenario, inputs, r, cancel); });
    auto t = std::make_shared<Trace>(
        Trace{scenario.config, std::move(inputs.arrivals), std::move(results), std::move(inputs.costs)});
    f.range = range.isValid() ? range : fullRange(*t);
    f.rows.resize(n);
    // What max_in_window looks back on, the same for every plain row: made once, shared.
    const auto lookback =
        plan.plain.empty() ? nullptr : lookbackFor(generated, t->arrivals, t->config.windowNanos(), cache);
    std::vector<std::size_t> all(n);
    std::iota(all.begin(), all.end(), std::size_t(0));
    f.extras.resize(n);
    // A row taken whole: its reduction too when the range and the columns are the same.
    const auto& last = earlier.frame;
    const bool sameView = last && last->range == f.range && last->columns == columns;
    onEachRow(all, n, [&](std::size_t r) {
        if (sameView && earlier.takes(r, plan.isPlain[r])) {
            t->results[r] = last->trace->results[r]; // a plain row's checkpoints replay alike
            f.rows[r] = last->rows[r];
            f.extras[r] = last->extras[r];
            return;
        }
        if (!plan.isPlain[r]) {
            f.rows[r] = reduceRow(*t, r, f.range.from, f.range.to, columns, cancel);
        } else {
            ReducedResult one = simulateReduced(t->config, t->results[r].algorithm, t->arrivals, t->costs,
                                                f.range.from, f.range.to, columns, cancel, lookback.get());
            t->results[r] = std::move(one.trace);
            t->results[r].bound = plainBound(scenario, t->arrivals, t->costs, t->results[r], r, one.reach);
            f.rows[r] = std::move(one.row);
        }
        fillExtras(f, &scenario, *t, r, columns, cancel);
    });
    f.trace = std::move(t);
    if (cache)
        cache->keepLastFrame(std::make_shared<const FrameCache::LastFrame>(
            FrameCache::LastFrame{f.scenario, f.trace, f.range, columns, f.rows, f.extras, std::move(plan.isPlain)}));
}

} // namespace

Frame buildFrame(std::shared_ptr<const Scenario> scenario, std::shared_ptr<const Trace> trace, TimeRange range,
                 int columns, const std::atomic<bool>* cancel, FrameCache* cache)
{
    Frame f;
    f.scenario = scenario;
    columns = std::max(columns, 1);
    try {
        if (trace)
            reframe(f, trace, range, columns, cancel);
        else
            simulateFrame(f, range, columns, cancel, cache);
    } catch (const InputError& e) {
        f.error = QString::fromStdString(e.what());
        f.rows.clear();
        f.trace.reset();
    } catch (const Cancelled&) {
        f = Frame{};
        f.cancelled = true;
    }
    return f;
}

} // namespace ratelab::ui
