// reduceRow against brute force: per-column counts and level extremes, the request range, and
// the exact steps it draws when zoomed in far enough that every request has its own column.
#include "limiters/any_limiter.h"
#include "engine_helpers.h"
#include "view/reduce.h"

#include <QTest>

#include <algorithm>
#include <optional>
#include <random>

using namespace ratelab;
using namespace ratelab::test;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

// randomTrace: bursts at one instant, exponential-ish gaps, and exact window/refill gaps, over
// a config whose rate (3 per 7 s by default, or as given) is not a decimal.
Trace randomTrace(std::uint64_t seed, const LimiterConfig& config, std::size_t n)
{
    std::mt19937_64 g(seed);
    const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
    std::vector<Nanos> t;
    Nanos now = in(0, 2) == 0 ? 0 : in(0, kSecond);
    while (t.size() < n) {
        switch (in(0, 5)) {
        case 0: for (auto k = in(1, 8); k > 0 && t.size() + 1 < n; --k) t.push_back(now); break;
        case 1: now += config.windowNanos(); break;
        case 2: now += config.rate().perNanos / config.rate().tokens; break;
        default: now += in(1, 2 * kSecond); break;
        }
        t.push_back(now);
    }
    return traceOf(config, kAllAlgorithms, std::move(t));
}

struct Replay {
    std::vector<double> before, after; // level just before and just after each request
};

// replay decides every request on a fresh limiter and records the levels around each one.
Replay replay(const Trace& trace, std::size_t row)
{
    AnyLimiter l = makeLimiter(trace.results[row].algorithm, trace.config);
    Replay r;
    for (Nanos t : trace.arrivals) {
        r.before.push_back(l.levelAt(t));
        r.after.push_back(l.decide(t).level);
    }
    return r;
}

// edgeLevels returns the level at each column edge k = 0..columns, after every request that
// arrived before that edge, from a second fresh limiter.
std::vector<double> edgeLevels(const Trace& trace, std::size_t row, Nanos from, Nanos to, int columns)
{
    AnyLimiter l = makeLimiter(trace.results[row].algorithm, trace.config);
    std::vector<double> out;
    std::size_t i = 0;
    for (int k = 0; k <= columns; ++k) {
        const Nanos edge = columnStart(from, to, columns, k);
        for (; i < trace.arrivals.size() && trace.arrivals[i] < edge; ++i)
            l.decide(trace.arrivals[i]);
        out.push_back(l.levelAt(edge));
    }
    return out;
}

std::size_t firstAtOrAfter(const std::vector<Nanos>& t, Nanos at)
{
    std::size_t i = 0;
    while (i < t.size() && t[i] < at)
        ++i;
    return i;
}

// checkRow compares one reduced row with a brute-force pass over every request.
void checkRow(const Trace& trace, std::size_t row, Nanos from, Nanos to, int columns)
{
    const ReducedRow reduced = reduceRow(trace, row, from, to, columns);
    const std::vector<Nanos>& t = trace.arrivals;
    const std::vector<Decision>& d = trace.results[row].decisions;
    const Replay levels = replay(trace, row);
    const std::vector<double> edges = edgeLevels(trace, row, from, to, columns);
    QCOMPARE(reduced.fromNanos, from);
    QCOMPARE(reduced.toNanos, to);
    QCOMPARE(reduced.firstRequest, firstAtOrAfter(t, from));
    QCOMPARE(reduced.endRequest, firstAtOrAfter(t, to));
    QCOMPARE(reduced.columns.size(), std::size_t(columns));
    QCOMPARE(columnStart(from, to, columns, 0), from);
    QCOMPARE(columnStart(from, to, columns, columns), to);
    std::size_t seen = 0;
    for (int k = 0; k < columns; ++k) {
        const Nanos start = columnStart(from, to, columns, k), end = columnStart(from, to, columns, k + 1);
        QVERIFY(start <= end);
        Column expected;
        expected.levelFirst = edges[k];
        expected.levelLast = edges[k + 1];
        expected.levelMin = std::min(edges[k], edges[k + 1]);
        expected.levelMax = std::max(edges[k], edges[k + 1]);
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t[i] < start || t[i] >= end)
                continue;
            ++seen;
            (d[i].allowed ? (d[i].delay > 0 ? expected.delayed : expected.admitted) : expected.denied) += 1;
            expected.levelMin = std::min({expected.levelMin, levels.before[i], levels.after[i]});
            expected.levelMax = std::max({expected.levelMax, levels.before[i], levels.after[i]});
        }
        const Column& c = reduced.columns[k];
        const QByteArray where = "column " + QByteArray::number(k) + " of " + QByteArray::number(columns);
        QVERIFY2(c.admitted == expected.admitted && c.delayed == expected.delayed && c.denied == expected.denied, where);
        QVERIFY2(c.levelFirst == expected.levelFirst && c.levelLast == expected.levelLast, where);
        QVERIFY2(c.levelMin == expected.levelMin && c.levelMax == expected.levelMax, where);
    }
    QCOMPARE(seen, reduced.endRequest - reduced.firstRequest); // the columns tile [from, to)
}

// Compact is the trace as a frame holds it, its rows' columns, and each row's reach over the
// lookback's window (when the pass was given one).
struct Compact {
    Trace trace;
    std::vector<ReducedRow> rows;
    std::vector<std::optional<WindowReach>> reaches;
};

// compactCopy makes the Compact of a whole trace: every plain row simulated and reduced in one
// pass over [from, to), keeping verdicts and checkpoints instead of decisions. With the arrivals'
// lookback a row without costs takes the frame's own loop (reducePlain), as buildFrame gives it.
Compact compactCopy(const Trace& whole, Nanos from, Nanos to, int columns, const WindowLookback* lookback = nullptr)
{
    Compact c{Trace{whole.config, whole.arrivals, {}, whole.costs}, {}, {}};
    for (const AlgorithmTrace& r : whole.results) {
        ReducedResult one =
            simulateReduced(whole.config, r.algorithm, whole.arrivals, whole.costs, from, to, columns, nullptr, lookback);
        c.trace.results.push_back(std::move(one.trace));
        c.rows.push_back(std::move(one.row));
        c.reaches.push_back(one.reach);
    }
    return c;
}

// firstMostInWindow scans a whole row's decisions with two indices, apart from the pass's ring:
// the most admitted units (costs, empty: 1 each) in any (t - W, t] ending at an admitted
// request, and the first such t.
WindowReach firstMostInWindow(const std::vector<Nanos>& t, const std::vector<std::int64_t>& costs,
                              const AlgorithmTrace& row, Nanos windowNanos)
{
    const auto cost = [&](std::size_t i) { return costs.empty() ? std::int64_t(1) : costs[i]; };
    WindowReach best;
    std::int64_t inside = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        for (; t[first] <= t[i] - windowNanos; ++first)
            inside -= row.decisions[first].allowed ? cost(first) : 0;
        if (!row.decisions[i].allowed)
            continue;
        if ((inside += cost(i)) > best.most)
            best = {inside, t[i]};
    }
    return best;
}

bool sameColumns(const ReducedRow& a, const ReducedRow& b)
{
    if (a.fromNanos != b.fromNanos || a.toNanos != b.toNanos || a.firstRequest != b.firstRequest
        || a.endRequest != b.endRequest || a.columns.size() != b.columns.size()
        || a.levelPoints.size() != b.levelPoints.size())
        return false;
    for (std::size_t k = 0; k < a.columns.size(); ++k) {
        const Column &x = a.columns[k], &y = b.columns[k];
        if (x.admitted != y.admitted || x.delayed != y.delayed || x.denied != y.denied || x.levelFirst != y.levelFirst
            || x.levelMin != y.levelMin || x.levelMax != y.levelMax || x.levelLast != y.levelLast)
            return false;
    }
    for (std::size_t j = 0; j < a.levelPoints.size(); ++j)
        if (a.levelPoints[j].seconds != b.levelPoints[j].seconds || a.levelPoints[j].level != b.levelPoints[j].level)
            return false;
    return true;
}

bool sameDecision(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.retryAfter == b.retryAfter && a.remaining == b.remaining
           && a.level == b.level;
}

} // namespace

class TestReduce : public QObject {
    Q_OBJECT
private slots:
    void columnsMatchBruteForce()
    {
        const std::vector<LimiterConfig> configs = {
            LimiterConfig::make(3, 7 * kSecond),                       // r = 3/7 per s
            LimiterConfig::make(10, 10 * kSecond),                     // the defaults
            LimiterConfig::make(5, 1 * kSecond, 8, Rate{2, 3 * kSecond}), // C != L, r = 2/3 per s
        };
        std::uint64_t seed = 1;
        for (const LimiterConfig& config : configs)
            for (int round = 0; round < 3; ++round, ++seed) {
                const Trace trace = randomTrace(seed, config, 300);
                const Nanos last = trace.arrivals.back();
                // Ranges: everything, a middle slice, one starting before the first request and
                // ending mid-stream, one past the end, and one narrower than its column count.
                const std::vector<std::pair<Nanos, Nanos>> ranges = {
                    {0, last + 1}, {last / 3, 2 * last / 3}, {0, last / 2}, {last / 2, last + 10 * kSecond},
                    {trace.arrivals[150], trace.arrivals[150] + 37},
                };
                for (std::size_t row = 0; row < trace.results.size(); ++row)
                    for (const auto& [from, to] : ranges)
                        for (int columns : {1, 3, 17, 100, 641}) {
                            checkRow(trace, row, from, to, columns);
                            if (QTest::currentTestFailed()) {
                                qWarning("seed %llu, %s, range [%lld, %lld), %d columns", (unsigned long long)seed,
                                         algorithmId(trace.results[row].algorithm).data(), (long long)from,
                                         (long long)to, columns);
                                return;
                            }
                        }
            }
    }

    void zoomedInEveryRequestIsAStep()
    {
        // Requests at least 1 ms apart inside [5 s, 6 s), with bursts outside it. With 4000
        // columns of 0.25 ms each, every request in the range has a column to itself.
        const LimiterConfig config = LimiterConfig::make(3, 7 * kSecond);
        std::vector<Nanos> t = {0, 0, 0, 0, 4 * kSecond, 4 * kSecond};
        for (Nanos at : {5 * kSecond, 5 * kSecond + kMilli, 5'300 * kMilli + 7, 5'301 * kMilli + 7, 5'999 * kMilli})
            t.push_back(at);
        t.insert(t.end(), {6 * kSecond, 6 * kSecond, 9 * kSecond});
        const Trace trace = traceOf(config, kAllAlgorithms, t);
        const Nanos from = 5 * kSecond, to = 6 * kSecond;
        const int columns = 4000;
        for (std::size_t row = 0; row < trace.results.size(); ++row) {
            const QByteArray id(algorithmId(trace.results[row].algorithm).data());
            const ReducedRow reduced = reduceRow(trace, row, from, to, columns);
            QCOMPARE(reduced.firstRequest, std::size_t(6));
            QCOMPARE(reduced.endRequest, std::size_t(11));
            for (const Column& c : reduced.columns)
                QVERIFY(c.admitted + c.delayed + c.denied <= 1);
            const Replay levels = replay(trace, row);
            const auto& p = reduced.levelPoints;
            for (std::size_t i = reduced.firstRequest; i < reduced.endRequest; ++i) {
                // Two consecutive points at the request's own time: the level before, then after.
                const double at = secondsAsDouble(t[i]);
                bool found = false;
                for (std::size_t j = 0; j + 1 < p.size() && !found; ++j)
                    found = p[j].seconds == at && p[j + 1].seconds == at && p[j].level == levels.before[i]
                        && p[j + 1].level == levels.after[i];
                QVERIFY2(found, id + " request " + QByteArray::number(qulonglong(i)));
            }
            // The polyline goes forward in time.
            for (std::size_t j = 1; j < p.size(); ++j)
                QVERIFY2(p[j].seconds >= p[j - 1].seconds, id);
        }
    }

    // A window's level steps where it changes, at every zoom (zoomed to nanoseconds the
    // lines ramped over a nanosecond). The fixed window's worst case, 10 at W - 1 ns and 10 at W
    // (L = 10, W = 10 s), drawn over 4 ns in 1000 columns: the window's count and the log's
    // entries only step, so every segment of their lines is vertical or horizontal; the fixed
    // window goes 0 -> 10 at W - 1 ns and stays 10 until it rolls at W, then 0 -> 10 again.
    void windowLevelsStepAtEveryZoom()
    {
        const Nanos W = 10 * kSecond;
        std::vector<Nanos> t(10, W - 1);
        t.insert(t.end(), 10, W);
        const std::vector<Algorithm> windows = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog};
        const Trace trace = traceOf(LimiterConfig::make(10, W), windows, t);
        for (std::size_t row = 0; row < trace.results.size(); ++row) {
            const QByteArray id(algorithmId(trace.results[row].algorithm).data());
            const auto& p = reduceRow(trace, row, W - 2, W + 2, 1000).levelPoints;
            QVERIFY(p.size() >= 4);
            for (std::size_t j = 0; j + 1 < p.size(); ++j)
                QVERIFY2(p[j].seconds == p[j + 1].seconds || p[j].level == p[j + 1].level,
                         id + " ramps from " + QByteArray::number(p[j].seconds, 'f', 9) + " to "
                             + QByteArray::number(p[j + 1].seconds, 'f', 9));
        }
        // The fixed window: 10 held from W - 1 ns up to W, where it rolls to 0 and takes 10 more.
        const auto& fixed = reduceRow(trace, 0, W - 2, W + 2, 1000).levelPoints;
        const auto at = [&](Nanos when, double level) {
            return std::any_of(fixed.begin(), fixed.end(),
                               [&](const LevelPoint& q) { return q.seconds == secondsAsDouble(when) && q.level == level; });
        };
        QVERIFY(at(W - 1, 0) && at(W - 1, 10) && at(W, 10) && at(W, 0));
    }

    void levelBeforeMatchesReplay()
    {
        const Trace trace = randomTrace(99, LimiterConfig::make(4, 3 * kSecond, 6, Rate{5, 7 * kSecond}), 400);
        for (std::size_t row = 0; row < trace.results.size(); ++row) {
            const Replay levels = replay(trace, row);
            for (std::size_t i = 0; i < trace.arrivals.size(); ++i) {
                QCOMPARE(levelBefore(trace, row, i), levels.before[i]);
                // And the replay agrees with the trace it reduces.
                QCOMPARE(levels.after[i], trace.results[row].decisions[i].level);
            }
        }
    }

    // The one pass a frame makes keeps no decision: its columns, metrics and every decision and
    // level replayed from its checkpoints must be the whole trace's, across many checkpoints
    // (20,000 requests, one every 4096), with costs, for nginx, and for a log whose checkpoint
    // interval is longer than the requests.
    void onePassRowsEqualTheWholeTrace_data()
    {
        QTest::addColumn<int>("limit");
        QTest::addColumn<bool>("costs");
        QTest::addColumn<bool>("lookback");
        QTest::newRow("limit 5") << 5 << false << false;
        QTest::newRow("limit 5, costs") << 5 << true << false;
        QTest::newRow("limit 6000 (the log checkpoints once)") << 6000 << false << false;
        // With the arrivals' lookback, as a frame runs them: each limiter's own loop.
        QTest::newRow("limit 5, the frame's loop") << 5 << false << true;
        QTest::newRow("limit 6000, the frame's loop") << 6000 << false << true;
        QTest::newRow("limit 5, costs, lookback (the generic pass)") << 5 << true << true;
        // Capacity 40,000,002 at 7r/m is 2.4e18 units, past 2^61: the buckets decide in 128 bits.
        QTest::newRow("limit 40M, the frame's loop, 128-bit buckets") << 40'000'000 << false << true;
    }

    void onePassRowsEqualTheWholeTrace()
    {
        QFETCH(int, limit);
        QFETCH(bool, costs);
        QFETCH(bool, lookback);
        const LimiterConfig config = LimiterConfig::make(limit, 3 * kSecond, limit + 2, Rate{7, 60 * kSecond}); // nginx: 7r/m
        Trace generated = randomTrace(7, config, 20'000);
        std::vector<std::int64_t> cost;
        if (costs) {
            std::mt19937_64 g(11);
            for (std::size_t i = 0; i < generated.arrivals.size(); ++i)
                cost.push_back(1 + std::int64_t(g() % 3));
        }
        std::vector<Algorithm> algorithms(kAllAlgorithms.begin(), kAllAlgorithms.end());
        algorithms.push_back(Algorithm::NginxLimitReq);
        const Trace whole = traceOf(config, algorithms, generated.arrivals, cost);
        const Nanos from = 0, to = whole.arrivals.back() + 1;
        const auto windows = lookback ? makeWindowLookback(whole.arrivals, config.windowNanos()) : nullptr;
        QCOMPARE(bool(windows), lookback);
        const auto [compact, rows, reaches] = compactCopy(whole, from, to, 700, windows.get());
        for (std::size_t r = 0; r < whole.results.size(); ++r) {
            const AlgorithmTrace &w = whole.results[r], &c = compact.results[r];
            const QByteArray id(algorithmId(w.algorithm).data());
            QVERIFY2(c.decisions.empty() && c.checkpoints, id);
            QCOMPARE(reaches[r].has_value(), lookback);
            if (reaches[r]) {
                const WindowReach want = firstMostInWindow(whole.arrivals, whole.costs, w, config.windowNanos());
                QVERIFY2(reaches[r]->most == want.most && reaches[r]->end == want.end, id);
            }
            QCOMPARE(c.metrics.denied, w.metrics.denied);
            QCOMPARE(c.metrics.overshoot, w.metrics.overshoot);
            QCOMPARE(c.metrics.memory.bytes, w.metrics.memory.bytes);
            QCOMPARE(c.metrics.memory.entries, w.metrics.memory.entries);
            QCOMPARE(decisionCount(c), decisionCount(w));
            QVERIFY2(c.checkpoints->states.size() == (whole.arrivals.size() + c.checkpoints->interval - 1) / c.checkpoints->interval, id);
            QCOMPARE(c.metrics.allowed, w.metrics.allowed);
            QCOMPARE(c.metrics.delayed, w.metrics.delayed);
            QCOMPARE(c.metrics.maxInWindow, w.metrics.maxInWindow);
            QCOMPARE(c.metrics.allowedCost, w.metrics.allowedCost);
            QCOMPARE(c.metrics.never, w.metrics.never);
            QVERIFY2(sameColumns(rows[r], reduceRow(whole, r, from, to, 700)), id);
            for (std::size_t i = 0; i < whole.arrivals.size(); ++i) {
                QVERIFY2(verdictAt(c, i) == verdictOf(w.decisions[i]), id + " verdict " + QByteArray::number(qulonglong(i)));
                if (i % 97 == 0 || i % 4096 == 0 || i % 4096 == 4095) { // every checkpoint's edges, and a spread
                    QVERIFY2(sameDecision(decisionAt(compact, r, i), w.decisions[i]), id + " decision " + QByteArray::number(qulonglong(i)));
                    QVERIFY2(levelBefore(compact, r, i) == levelBefore(whole, r, i), id + " level " + QByteArray::number(qulonglong(i)));
                }
            }
            // Zoomed in and panned, a compact row replays from the checkpoint before the view.
            const Nanos a = whole.arrivals[9000], b = whole.arrivals[13000];
            QVERIFY2(sameColumns(reduceRow(compact, r, a, b, 300), reduceRow(whole, r, a, b, 300)), id);
            QVERIFY2(sameColumns(reduceRow(compact, r, b, to, 50), reduceRow(whole, r, b, to, 50)), id);
        }
    }

    void levelBeforeAfterABurstIsTheBurstLevel()
    {
        // Three requests at t = 0 with L = C = 3, W = 3 s: before the third, two are counted
        // (window and log: 2 entries; token bucket: 3 - 2 = 1 token; leaky water: 2).
        const Trace trace = traceOf(LimiterConfig::make(3, 3 * kSecond), kAllAlgorithms, {0, 0, 0});
        QCOMPARE(levelBefore(trace, 0, 2), 2.0); // fixed_window
        QCOMPARE(levelBefore(trace, 1, 2), 2.0); // sliding_window_log
        QCOMPARE(levelBefore(trace, 2, 2), 2.0); // sliding_window_counter: 0 * 1 + 2
        QCOMPARE(levelBefore(trace, 3, 2), 1.0); // token_bucket
        QCOMPARE(levelBefore(trace, 4, 2), 2.0); // leaky_bucket
        // Queue: water 2 means the second request waits until 1 s (r = 1/s); the first left at 0.
        QCOMPARE(levelBefore(trace, 5, 2), 1.0);
        QCOMPARE(levelBefore(trace, 6, 2), 2.0); // gcra: TAT = 2 s, backlog 2 s
        QCOMPARE(levelBefore(trace, 0, 0), 0.0);
    }
};

QTEST_APPLESS_MAIN(TestReduce)
#include "tst_reduce.moc"
