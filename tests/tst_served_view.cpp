// core/view/served: the served attempts bucketed for the chart (latency percentiles, goodput),
// the number in the server over time, and the strip's columns by outcome. Every expected value
// is worked out by hand in the comment above it.
#include "view/served.h"

#include "report/report_run.h"
#include "scenario/rows.h"
#include "server/gate.h"
#include "view/reduce.h"
#include "view/row_extras.h"

#include <QTest>

#include <algorithm>

using namespace ratelab;

namespace {

constexpr Nanos ms = 1'000'000;

// Six decided attempts:
//   a arrived 0,     left 100 ms, served in time  (latency 100 ms)
//   c arrived 0,     left 300 ms, served in time  (latency 300 ms)
//   b arrived 50 ms, left 250 ms, served late     (latency 200 ms)
//   d arrived 100 ms, left 400 ms, timed out in the queue
//   e refused at 200 ms (arrived = start = end)
//   f never admitted (every time 0)
const std::vector<ServedAttempt> kServed = {
    {0, 0, 100 * ms, Outcome::InTime},       {0, 100 * ms, 300 * ms, Outcome::InTime},
    {50 * ms, 100 * ms, 250 * ms, Outcome::Late}, {100 * ms, 400 * ms, 400 * ms, Outcome::QueueTimeout},
    {200 * ms, 200 * ms, 200 * ms, Outcome::Refused}, {0, 0, 0, Outcome::NotAdmitted},
};

// cutAsBefore is how the chart cut a whole run's steps to its view before the frame made them
// (rowchart_server.cpp's stepLine): the value in force at `start` (the last step at or before
// it, 0 before the first), then every step after it up to `to`.
Steps cutAsBefore(const Steps& steps, Nanos start, Nanos to)
{
    const auto first = std::upper_bound(steps.begin(), steps.end(), start,
                                        [](Nanos t, const std::pair<Nanos, std::int64_t>& s) { return t < s.first; });
    Steps out{{start, first == steps.begin() ? 0 : std::prev(first)->second}};
    for (auto it = first; it != steps.end() && it->first <= to; ++it)
        out.push_back(*it);
    return out;
}

// servedScenario is `seed`'s Poisson stream of 3000 requests at 300 a second through a fixed
// window of 200 a second, each client retrying twice 50 ms after a failure, on 4 workers of an
// exponential 20 ms with a queue of 10 (100 ms at most) and a client timeout of 150 ms, with a
// Gradient2 row and a fixed limit of 3: every outcome happens, and the gradient's limit moves.
Scenario servedScenario(std::uint64_t seed)
{
    Scenario s;
    s.algorithms = {Algorithm::FixedWindow};
    s.config = LimiterConfig::make(200, kNanosPerSecond);
    s.pattern.kind = PatternKind::Poisson;
    s.pattern.count = 3000;
    s.pattern.lambda = Rate{300, kNanosPerSecond};
    s.pattern.seed = seed;
    ClientOptions c;
    c.clients = 20;
    c.retry = RetryPolicy::Immediate;
    c.retryDelayNanos = 50 * ms;
    c.maxRetries = 2;
    s.clients = ClientConfig::make(c);
    s.server = ServerConfig::parse("workers=4,service=exp:20ms,queue=10,queue_timeout=100ms,timeout=150ms");
    s.concurrency = {GateSpec::parse("gradient2"), GateSpec::parse("fixed:limit=3")};
    return s;
}

// servedTrace is the scenario's rows run whole over its arrivals.
Trace servedTrace(const Scenario& s)
{
    const RowInputs inputs = resolveRowInputs(s);
    Trace trace{s.config, inputs.arrivals, {}, inputs.costs};
    for (std::size_t r = 0; r < rowCount(s); ++r)
        trace.results.push_back(simulateRow(s, inputs, r));
    return trace;
}

// thinAsBefore is how the chart's lines were thinned once they were built whole: in each of
// `columns` equal columns of [from, to) (steps past `to` in the last group), of the steps after
// the first, the first change to the column's highest value, the first to its lowest, and its
// last change, each kept unless it repeats the value kept before it.
Steps thinAsBefore(const Steps& steps, Nanos from, Nanos to, int columns)
{
    Steps out{steps.front()};
    std::size_t i = 1;
    for (int k = 0; i < steps.size(); ++k) {
        const Nanos end = k >= columns ? kMaxNanos : columnStart(from, to, columns, k + 1);
        const std::size_t first = i;
        std::size_t high = i, low = i;
        for (; i < steps.size() && (steps[i].first < end || k >= columns); ++i) {
            high = steps[i].second > steps[high].second ? i : high;
            low = steps[i].second < steps[low].second ? i : low;
        }
        if (i == first)
            continue;
        for (std::size_t kept : {std::min(high, low), std::max(high, low), i - 1})
            if (steps[kept].second != out.back().second)
                out.push_back(steps[kept]);
    }
    return out;
}

// lineAsBefore is a line cut to [from, to) as the chart drew it: exact, or thinned when it has
// more than kThinAbove changes a column.
Steps lineAsBefore(const Steps& exact, Nanos from, Nanos to, int columns)
{
    return columns > 0 && exact.size() > kThinAbove * std::size_t(columns) ? thinAsBefore(exact, from, to, columns) : exact;
}

} // namespace

class TestServedView : public QObject {
    Q_OBJECT
private slots:
    void bucketsLatencyAndGoodputByDeparture()
    {
        // [0, 1 s) in at most 4 buckets: at least 250 ms each, rounded up to 500 ms (1, 2 or 5
        // times a power of ten), so 2 buckets. Bucket 0 holds a, b, c (ends 100, 250, 300 ms):
        // 3 served, 2 in time; latencies sorted 100, 200, 300 ms: p50 the ceil(1.5) = 2nd =
        // 200 ms, p99 the ceil(2.97) = 3rd = 300 ms. d timed out and e was refused: not served.
        const ServedBuckets b = servedBuckets(kServed, 0, 1000 * ms, 4);
        QCOMPARE(b.from, Nanos(0));
        QCOMPARE(b.widthNanos, 500 * ms);
        QCOMPARE(b.served, (std::vector<std::int64_t>{3, 0}));
        QCOMPARE(b.inTime, (std::vector<std::int64_t>{2, 0}));
        QCOMPARE(b.p50, (std::vector<Nanos>{200 * ms, 0}));
        QCOMPARE(b.p99, (std::vector<Nanos>{300 * ms, 0}));
        // A range that starts after a's departure: only b and c (250, 300 ms) in [200, 400 ms),
        // 2 buckets of 100 ms ([200, 300) holds b, [300, 400) holds c).
        const ServedBuckets late = servedBuckets(kServed, 200 * ms, 400 * ms, 2);
        QCOMPARE(late.widthNanos, 100 * ms);
        QCOMPARE(late.served, (std::vector<std::int64_t>{1, 1}));
        QCOMPARE(late.inTime, (std::vector<std::int64_t>{0, 1}));
        QCOMPARE(late.p99, (std::vector<Nanos>{200 * ms, 300 * ms}));
    }

    void percentilesOfManyInAnyOrder()
    {
        // 100 attempts served in one bucket, latencies 1..100 ms in a scrambled order (37 is
        // prime to 100, so k * 37 mod 100 visits every residue): nearest rank, p50 is the 50th,
        // 50 ms, and p99 the 99th, 99 ms. Three latencies and the sorted order of the table above
        // never showed a p50 read after the p99's partial sort had moved it.
        std::vector<ServedAttempt> served;
        for (int k = 0; k < 100; ++k) {
            const Nanos latency = (k * 37 % 100 + 1) * ms;
            served.push_back({0, 0, latency, Outcome::InTime});
        }
        const ServedBuckets b = servedBuckets(served, 0, 1000 * ms, 1);
        QCOMPARE(b.served, (std::vector<std::int64_t>{100}));
        QCOMPARE(b.p50, (std::vector<Nanos>{50 * ms}));
        QCOMPARE(b.p99, (std::vector<Nanos>{99 * ms}));
    }

    void countsTheAttemptsInTheServer()
    {
        // a [0, 100), c [0, 300), b [50, 250), d [100, 400) ms; e and f never count.
        // 0: 2; 50: 3; 100: a leaves, d comes (still 3, no step); 250: 2; 300: 1; 400: 0.
        const auto steps = inSystemSteps(kServed);
        const std::vector<std::pair<Nanos, std::int64_t>> want = {
            {0, 2}, {50 * ms, 3}, {250 * ms, 2}, {300 * ms, 1}, {400 * ms, 0}};
        QCOMPARE(steps, want);
    }

    void countsEachColumnsOutcomes()
    {
        // Decision times a 0, c 0, b 50, d 100, e 200, f 900 ms, over [0, 1 s) in 4 columns of
        // 250 ms: column 0 holds a, c (in time), b (late), d (timed out), e (refused); column 3
        // holds f (not admitted). Decisions from 1 on only: a is not counted.
        const std::vector<Nanos> times = {0, 0, 50 * ms, 100 * ms, 200 * ms, 900 * ms};
        const auto columns = outcomeColumns(kServed, times, 1, 6, 0, 1000 * ms, 4);
        QCOMPARE(columns.size(), std::size_t(4));
        const auto at = [&](std::size_t k, Outcome o) { return columns[k][std::size_t(o)]; };
        QCOMPARE(at(0, Outcome::InTime), 1);
        QCOMPARE(at(0, Outcome::Late), 1);
        QCOMPARE(at(0, Outcome::QueueTimeout), 1);
        QCOMPARE(at(0, Outcome::Refused), 1);
        QCOMPARE(at(0, Outcome::Rejected), 0);
        QCOMPARE(at(3, Outcome::NotAdmitted), 1);
        for (std::size_t k : {1, 2})
            for (std::int32_t n : columns[k])
                QCOMPARE(n, 0);
    }

    // servedByClient counts each client's requests (first attempts) and attempts served in time,
    // and gives up (empty) once a client id reaches `most`: a row of 20 clients is listed with a
    // bound of 20, not 19 or the default 8.
    void servedByClientListsAFewClients()
    {
        const Scenario s = servedScenario(1);
        const RowInputs inputs = resolveRowInputs(s);
        const AlgorithmTrace row = simulateRow(s, inputs, 0);
        const RowRun& run = row.engine->run;
        const std::vector<ClientServed> by = servedByClient(run, 20);
        QCOMPARE(by.size(), std::size_t(20));
        std::int64_t requests = 0, inTime = 0, wantInTime = 0;
        for (const ClientServed& c : by) {
            QVERIFY(c.requests > 100); // 3000 requests over 20 clients in turn: 150 each
            requests += c.requests;
            inTime += c.inTime;
        }
        for (const ServedAttempt& a : run.served)
            wantInTime += a.outcome == Outcome::InTime;
        QCOMPARE(requests, std::int64_t(3000));
        QCOMPARE(inTime, wantInTime);
        QVERIFY(servedByClient(run, 19).empty());
        QVERIFY(servedByClient(run).empty());
    }

    void theFramesViewIsTheChartsOwn()
    {
        // serverView, made in one pass with the frame, equals what the chart made on the GUI
        // thread from the whole run (servedBuckets in 60, outcomeColumns of the reduced row, and
        // on a gate row its limit and inSystemSteps cut by cutAsBefore) on seeded runs, over the
        // whole run, a middle part, and a range that starts before the first request. The strip
        // is kWide columns: at most 3 attempts a request reach the server, 2 changes each, 18,000
        // changes at most, under kThinAbove (4) a column: no line is thinned.
        constexpr int kWide = 5000;
        for (std::uint64_t seed : {1, 2, 3}) {
            const Scenario s = servedScenario(seed);
            const Trace trace = servedTrace(s);
            QCOMPARE(trace.results.size(), std::size_t(3)); // fixed window, gradient2, fixed
            Nanos last = 0;
            for (const AlgorithmTrace& row : trace.results)
                for (const ServedAttempt& a : row.engine->run.served)
                    last = std::max(last, a.end);
            QVERIFY(last > 9 * kNanosPerSecond); // 3000 requests at 300 a second: about 10 s
            std::array<std::int64_t, 6> outcomes{};
            for (const auto& [from, to] : {std::pair{Nanos(0), last + 1}, std::pair{last / 3, 2 * last / 3},
                                           std::pair{-500 * ms, last / 2}}) {
                for (std::size_t r = 0; r < trace.results.size(); ++r) {
                    const RowRun& run = trace.results[r].engine->run;
                    const std::vector<Nanos>& times = timesOf(trace, r);
                    const ReducedRow reduced = reduceRow(trace, r, from, to, kWide);
                    const bool gate = gateRow(s, r) != nullptr;
                    QCOMPARE(gate, r > 0);
                    const ServerView v = serverView(run.served, times, reduced, run.server->limits, gate, from, to);
                    const ServedBuckets b = servedBuckets(run.served, from, to, 60);
                    QCOMPARE(v.buckets.from, b.from);
                    QCOMPARE(v.buckets.widthNanos, b.widthNanos);
                    QCOMPARE(v.buckets.served, b.served);
                    QCOMPARE(v.buckets.inTime, b.inTime);
                    QCOMPARE(v.buckets.p50, b.p50);
                    QCOMPARE(v.buckets.p99, b.p99);
                    QVERIFY(v.columns == outcomeColumns(run.served, times, reduced.firstRequest, reduced.endRequest,
                                                        reduced.fromNanos, reduced.toNanos, kWide));
                    QCOMPARE(v.gate, gate);
                    if (!gate) {
                        QVERIFY(v.limits.empty() && v.inSystem.empty());
                        continue;
                    }
                    Steps limits;
                    for (const auto& [t, value] : run.server->limits)
                        if (value != Gate::kUnlimited)
                            limits.emplace_back(t, value);
                    QVERIFY(!limits.empty());
                    QCOMPARE(v.limits, cutAsBefore(limits, std::max(from, limits.front().first), to));
                    QCOMPARE(v.inSystem, cutAsBefore(inSystemSteps(run.served), from, to));
                    for (const ServedAttempt& a : run.served)
                        ++outcomes[std::size_t(a.outcome)];
                }
            }
            // The runs are not trivial: the gradient's limit moves, and every outcome happens.
            QVERIFY(trace.results[1].engine->run.server->limits.size() > 10);
            for (Outcome o : {Outcome::InTime, Outcome::Late, Outcome::QueueTimeout, Outcome::Refused, Outcome::Rejected})
                QVERIFY2(outcomes[std::size_t(o)] > 0, outcomeId(o).data());
        }
    }

    // The frame thins its lines as their steps come; the result is the line built whole, cut to
    // the range and thinned after (lineAsBefore), at every width: one column, a few, about as
    // many as the line has changes over kThinAbove (either side of the threshold), and wide
    // enough to keep it exact; over the whole run, a middle part and a range past the last step.
    void linesThinnedAsTheyComeAreTheLinesThinnedWhole()
    {
        for (std::uint64_t seed : {1, 2, 3}) {
            const Scenario s = servedScenario(seed);
            const Trace trace = servedTrace(s);
            for (std::size_t r = 1; r < trace.results.size(); ++r) { // the gate rows
                const RowRun& run = trace.results[r].engine->run;
                Steps limits;
                for (const auto& [t, value] : run.server->limits)
                    if (value != Gate::kUnlimited)
                        limits.emplace_back(t, value);
                const Nanos last = inSystemSteps(run.served).back().first;
                for (const auto& [from, to] : {std::pair{Nanos(0), last + 1}, std::pair{last / 3, 2 * last / 3},
                                               std::pair{last / 2, last * 2}}) {
                    const Steps inSystem = cutAsBefore(inSystemSteps(run.served), from, to);
                    const Steps limit = cutAsBefore(limits, std::max(from, limits.front().first), to);
                    const int near = int(inSystem.size() / kThinAbove);
                    for (int columns : {1, 3, 7, 97, near - 1, near, near + 1, 20'000}) {
                        const ReducedRow reduced = reduceRow(trace, r, from, to, columns);
                        const ServerView v =
                            serverView(run.served, timesOf(trace, r), reduced, run.server->limits, true, from, to);
                        QCOMPARE(v.inSystem, lineAsBefore(inSystem, from, to, columns));
                        QCOMPARE(v.limits, lineAsBefore(limit, from, to, columns));
                    }
                }
            }
        }
    }

    void thinsALineToThePixel()
    {
        // In 97 columns the attempts in the server change more than 4 times a column on average,
        // so the line is thinned: a subsequence of the exact steps from the same start, at most
        // 3 changes a column, and in every column the same highest and lowest value drawn (the
        // value in force as it starts, and its changes) and the same value in force at its end.
        const Scenario s = servedScenario(1);
        const Trace trace = servedTrace(s);
        const RowRun& run = trace.results[1].engine->run; // gradient2's row
        const Nanos from = 0, to = 12 * kNanosPerSecond;
        constexpr int kColumns = 97;
        const ReducedRow reduced = reduceRow(trace, 1, from, to, kColumns);
        const ServerView v = serverView(run.served, timesOf(trace, 1), reduced, run.server->limits, true, from, to);
        const Steps exact = cutAsBefore(inSystemSteps(run.served), from, to);
        QVERIFY(exact.size() > kThinAbove * kColumns);
        QVERIFY(v.inSystem.size() <= 1 + 3 * std::size_t(kColumns + 1));
        QCOMPARE(v.inSystem.front(), exact.front());
        QVERIFY(std::includes(exact.begin(), exact.end(), v.inSystem.begin(), v.inSystem.end()));
        const auto inForce = [](const Steps& steps, Nanos before) { // just before `before`: the start's at `from`
            const auto it = std::lower_bound(steps.begin() + 1, steps.end(), before,
                                             [](const std::pair<Nanos, std::int64_t>& s, Nanos t) { return s.first < t; });
            return std::prev(it)->second;
        };
        const auto extremes = [&](const Steps& steps, Nanos lo, Nanos hi) { // drawn in [lo, hi)
            const std::int64_t held = inForce(steps, lo);
            std::pair<std::int64_t, std::int64_t> e{held, held};
            for (std::size_t i = 1; i < steps.size(); ++i)
                if (steps[i].first >= lo && steps[i].first < hi)
                    e = {std::min(e.first, steps[i].second), std::max(e.second, steps[i].second)};
            return e;
        };
        for (int k = 0; k < kColumns; ++k) {
            const Nanos lo = columnStart(from, to, kColumns, k), hi = columnStart(from, to, kColumns, k + 1);
            QCOMPARE(inForce(v.inSystem, hi), inForce(exact, hi));
            QCOMPARE(extremes(v.inSystem, lo, hi), extremes(exact, lo, hi));
        }
    }
};

QTEST_GUILESS_MAIN(TestServedView)
#include "tst_served_view.moc"
