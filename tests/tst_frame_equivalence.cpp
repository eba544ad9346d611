// A frame built as the app builds it (plain rows simulated and reduced in one pass, their bound's
// reach measured in that pass, consecutive frames sharing a FrameCache) equals the reference
// frame: every row simulated whole by simulateRow with all its decisions, its bound scanned by
// boundReach, and reduced by reduceRow. Every row kind, zoom levels, 1 to 1,000,000 requests.
#include "engine_helpers.h"

#include "model/frame.h"
#include "limiters/algorithm_facts.h"

#include <QtTest>

#include <array>
#include <random>

using namespace ratelab;
using namespace ratelab::ui;

Q_DECLARE_METATYPE(ratelab::Scenario)

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

Scenario poisson(std::int64_t n, std::int64_t limit, std::uint64_t seed)
{
    Scenario s;
    s.config = LimiterConfig::make(limit, kSecond);
    s.pattern.kind = PatternKind::Poisson;
    s.pattern.count = n;
    s.pattern.lambda = Rate{200, kSecond};
    s.pattern.seed = seed;
    return s;
}

// referenceFrame is the frame of the scenario over `range` reduced by reduceRow from `trace`,
// its rows run whole (test::traceOf).
Frame referenceFrame(const Scenario& s, std::shared_ptr<const Trace> trace, TimeRange range, int columns)
{
    return buildFrame(std::make_shared<const Scenario>(s), std::move(trace), range, columns);
}

std::shared_ptr<const Trace> wholeTrace(const Scenario& s) { return std::make_shared<const Trace>(test::traceOf(s)); }

// differenceOf names the first field where two reduced rows differ (the doubles compared
// exactly), or is empty when they are equal.
QByteArray differenceOf(const ReducedRow& a, const ReducedRow& b)
{
    if (a.fromNanos != b.fromNanos || a.toNanos != b.toNanos)
        return "range";
    if (a.firstRequest != b.firstRequest || a.endRequest != b.endRequest)
        return "requests";
    if (a.columns.size() != b.columns.size() || a.levelPoints.size() != b.levelPoints.size())
        return "sizes";
    for (std::size_t k = 0; k < a.columns.size(); ++k) {
        const Column &x = a.columns[k], &y = b.columns[k];
        if (x.admitted != y.admitted || x.delayed != y.delayed || x.denied != y.denied)
            return "counts of column " + QByteArray::number(qulonglong(k));
        if (x.levelFirst != y.levelFirst || x.levelMin != y.levelMin || x.levelMax != y.levelMax
            || x.levelLast != y.levelLast)
            return "levels of column " + QByteArray::number(qulonglong(k));
    }
    for (std::size_t j = 0; j < a.levelPoints.size(); ++j)
        if (a.levelPoints[j].seconds != b.levelPoints[j].seconds || a.levelPoints[j].level != b.levelPoints[j].level)
            return "level point " + QByteArray::number(qulonglong(j));
    return {};
}

// compareFrames checks every row of `got` against `want`: pixels, counts, verdicts, metrics, bound.
void compareFrames(const Frame& got, const Frame& want)
{
    QVERIFY2(got.error.isEmpty() && want.error.isEmpty(), qPrintable(got.error + want.error));
    QVERIFY(got.trace && want.trace);
    QCOMPARE(got.range, want.range);
    QCOMPARE(got.rows.size(), want.rows.size());
    QCOMPARE(got.trace->arrivals, want.trace->arrivals);
    for (std::size_t r = 0; r < got.rows.size(); ++r) {
        const AlgorithmTrace &g = got.trace->results[r], &w = want.trace->results[r];
        const QByteArray id = QByteArray(algorithmId(w.algorithm).data()) + " row " + QByteArray::number(qulonglong(r));
        const QByteArray difference = differenceOf(got.rows[r], want.rows[r]);
        QVERIFY2(difference.isEmpty(), id + ": " + difference);
        QCOMPARE(g.metrics.allowed, w.metrics.allowed);
        QCOMPARE(g.metrics.delayed, w.metrics.delayed);
        QCOMPARE(g.metrics.denied, w.metrics.denied);
        QCOMPARE(g.metrics.maxInWindow, w.metrics.maxInWindow);
        QCOMPARE(decisionCount(g), decisionCount(w));
        for (std::size_t i = 0; i < decisionCount(w); ++i)
            if (verdictAt(g, i) != verdictAt(w, i))
                QFAIL(id + " verdict " + QByteArray::number(qulonglong(i)));
        QCOMPARE(g.bound.has_value(), w.bound.has_value());
        if (w.bound) {
            QCOMPARE(g.bound->atMost, w.bound->atMost);
            QCOMPARE(g.bound->reached, w.bound->reached);
            QCOMPARE(g.bound->windowNanos, w.bound->windowNanos);
            QCOMPARE(g.bound->closestEnd, w.bound->closestEnd);
        }
    }
}

// compareServers checks each row's server view and line count of `got` against `want`.
void compareServers(const Frame& got, const Frame& want)
{
    for (std::size_t r = 0; r < want.rows.size(); ++r) {
        QCOMPARE(got.extras[r].server.has_value(), want.extras[r].server.has_value());
        QCOMPARE(got.extras[r].keyPoints.size(), want.extras[r].keyPoints.size());
        if (!want.extras[r].server)
            continue;
        const ServerView &g = *got.extras[r].server, &w = *want.extras[r].server;
        QCOMPARE(g.buckets.served, w.buckets.served);
        QCOMPARE(g.buckets.p50, w.buckets.p50);
        QCOMPARE(g.buckets.p99, w.buckets.p99);
        QCOMPARE(g.inSystem, w.inSystem);
        QCOMPARE(g.limits, w.limits);
        QCOMPARE(g.columns, w.columns);
    }
}

// thinnedByScan keeps, of each of `buckets` equal spans of [from, to), its points' first, least,
// most and last in time order, the points outside as they are: the rule thinnedPoints follows,
// written as a scan over a copy.
std::vector<LevelPoint> thinnedByScan(const std::vector<LevelPoint>& points, double from, double to, int buckets)
{
    std::vector<LevelPoint> out;
    const double width = (to - from) / buckets;
    const auto bucketOf = [&](double x) { return std::min<std::int64_t>(std::int64_t((x - from) / width), buckets - 1); };
    for (std::size_t i = 0; i < points.size();) {
        if (!(points[i].seconds >= from) || points[i].seconds >= to) {
            out.push_back(points[i++]);
            continue;
        }
        std::size_t j = i, least = i, most = i;
        for (; j < points.size() && points[j].seconds < to && bucketOf(points[j].seconds) == bucketOf(points[i].seconds); ++j) {
            least = points[j].level < points[least].level ? j : least;
            most = points[j].level > points[most].level ? j : most;
        }
        std::vector<std::size_t> keep{i, std::min(least, most), std::max(least, most), j - 1};
        keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
        for (std::size_t k : keep)
            out.push_back(points[k]);
        i = j;
    }
    return out;
}

// keyLineOf is row 0's first key line of a trace whose one row holds `line` (a row the engine
// ran, its level not replayable), made by rowLines over [from, to) seconds (or nanoseconds, when
// given) in `columns` columns.
std::vector<LevelPoint> keyLineOf(const KeyLevel& line, double from, double to, int columns, Nanos fromNanos = -1,
                                  Nanos toNanos = -1)
{
    Trace trace;
    AlgorithmTrace row;
    row.levelReplayable = false;
    auto engine = std::make_shared<EngineRow>();
    engine->run.levels.lines = {line};
    row.engine = engine;
    trace.results = {row};
    ReducedRow reduced;
    reduced.fromNanos = fromNanos >= 0 ? fromNanos : Nanos(from * 1e9);
    reduced.toNanos = toNanos >= 0 ? toNanos : Nanos(to * 1e9);
    reduced.columns.resize(std::size_t(columns));
    return rowLines(trace, 0, reduced, columns).keyPoints.at(0);
}

QList<QPointF> pointsOf(const std::vector<LevelPoint>& line)
{
    QList<QPointF> out;
    for (const LevelPoint& q : line)
        out << QPointF(q.seconds, q.level);
    return out;
}

} // namespace

class TestFrameEquivalence : public QObject {
    Q_OBJECT

private slots:
    void frameEqualsTheReference_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("1 request") << poisson(1, 100, 3);
        QTest::newRow("2 requests, limit 1") << poisson(2, 1, 3);
        QTest::newRow("5,000 poisson, limit 20") << poisson(5'000, 20, 5);
        Scenario burst;
        burst.pattern.kind = PatternKind::Burst;
        burst.pattern.count = 20'000;
        burst.pattern.burstSize = 40;
        burst.config = LimiterConfig::make(30, 2 * kSecond);
        QTest::newRow("20,000 in bursts of 40") << burst;
        Scenario nginx = poisson(20'000, 50, 8);
        nginx.algorithms = {Algorithm::NginxLimitReq, Algorithm::SlidingWindowLog, Algorithm::LeakyBucketQueue};
        QTest::newRow("nginx, the log, the queue") << nginx;
        Scenario costs = poisson(10'000, 60, 9);
        costs.cost = 3;
        QTest::newRow("every request costs 3") << costs;
        Scenario bound = poisson(30'000, 100, 10);
        bound.pattern.windowOfNanos = 3 * kSecond; // the bound's T is not the window: scanned
        QTest::newRow("bound over 3 s, window 1 s") << bound;
        Scenario layered = poisson(10'000, 40, 11);
        layered.layers = {parseLayer("token_bucket:capacity=5,rate=1"), parseLayer("fixed_window:limit=100,window=60")};
        QTest::newRow("layered") << layered;
        Scenario cluster = poisson(10'000, 40, 12);
        cluster.cluster = ClusterConfig::make({3, Balancer::RoundRobin, Coordination::Local});
        QTest::newRow("3 local nodes") << cluster;
        Scenario clients = poisson(10'000, 40, 13);
        ClientOptions o;
        o.clients = 4;
        o.retry = RetryPolicy::RetryAfter;
        o.maxRetries = 2;
        clients.clients = ClientConfig::make(o);
        QTest::newRow("4 clients retrying") << clients;
        QTest::newRow("1,000,000 poisson, limit 100") << poisson(1'000'000, 100, 42);
    }

    // At the full range, zoomed in to a middle tenth, and to one request's neighbourhood.
    void frameEqualsTheReference()
    {
        QFETCH(Scenario, scenario);
        const int columns = 1400;
        const auto whole = wholeTrace(scenario);
        const Frame full = buildFrame(std::make_shared<const Scenario>(scenario), nullptr, {}, columns);
        compareFrames(full, referenceFrame(scenario, whole, {}, columns));
        const TimeRange r = full.range;
        const Nanos span = r.to - r.from;
        for (const TimeRange zoom : {TimeRange{r.from + span / 2, r.from + span / 2 + span / 10 + 1},
                                     TimeRange{r.from + span / 3, r.from + span / 3 + std::max<Nanos>(span / 100'000, 1)}}) {
            const Frame got = buildFrame(std::make_shared<const Scenario>(scenario), nullptr, zoom, 300);
            compareFrames(got, referenceFrame(scenario, whole, zoom, 300));
        }
    }

    // A drag: consecutive frames share one FrameCache (the arrivals and their window lookback made
    // once), and each still equals its own reference.
    void aDragsFramesEqualTheReference()
    {
        FrameCache cache;
        Scenario s = poisson(50'000, 90, 21);
        for (int k = 0; k < 4; ++k) {
            s.config = LimiterConfig::make(90 + 7 * k, kSecond);
            const Frame got = buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 800, nullptr, &cache);
            compareFrames(got, referenceFrame(s, wholeTrace(s), {}, 800));
        }
    }

    // A frame made moot stops its engine rows, not only its reduction: 100,000 requests of 2
    // clients at a limit of 1 a second, each denied one retried at once up to 100 times, would
    // make more than the 5,000,000 attempts a scenario may hold (an error, after seconds of
    // simulation). With the frame's cancel flag set, its row stops at its first look, attempt
    // 65,536: the frame comes back cancelled, with no error.
    void aCancelledFrameStopsItsEngineRows()
    {
        Scenario s = poisson(100'000, 1, 25);
        s.algorithms = {Algorithm::FixedWindow};
        ClientOptions o;
        o.clients = 2;
        o.retry = RetryPolicy::Immediate;
        o.maxRetries = 100;
        s.clients = ClientConfig::make(o);
        const std::atomic<bool> cancel = true;
        const Frame f = buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 800, &cancel);
        QVERIFY(f.cancelled);
        QVERIFY2(f.error.isEmpty(), qPrintable(f.error));
        const Frame whole = buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 800);
        QVERIFY2(whole.error.contains("5000000 attempts"), qPrintable(whole.error)); // what the run would have come to
    }

    // A drag of a server's workers: consecutive frames share the first attempts' service draws
    // the cache made with the first frame (firstServiceDraws), and each frame equals its own
    // reference, whose rows draw every service time as they serve it: the decisions, what the
    // server made of each attempt (retries, drawn as they are served, included), and the view
    // the chart draws of it.
    void aWorkersDragsFramesEqualTheReference()
    {
        FrameCache cache;
        Scenario s = poisson(20'000, 100, 23);
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        s.server = ServerConfig::parse("workers=3,service=exp:20ms,queue=20,timeout=1s");
        s.concurrency = {GateSpec::parse("gradient2")};
        ClientOptions c;
        c.clients = 3;
        c.retry = RetryPolicy::Backoff;
        c.maxRetries = 2;
        s.clients = ClientConfig::make(c);
        const ServiceTime service = s.server->options().service;
        QVERIFY(!cache.firstServices(service, 23, 20'000));
        for (const std::int64_t workers : {3, 4, 5}) {
            ServerOptions o = s.server->options();
            o.workers = workers;
            s.server = ServerConfig::make(o);
            const Frame got = buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 800, nullptr, &cache);
            const Frame want = referenceFrame(s, wholeTrace(s), {}, 800);
            compareFrames(got, want);
            std::int64_t retriesServed = 0;
            for (std::size_t r = 0; r < got.rows.size(); ++r) {
                const RowRun &g = got.trace->results[r].engine->run, &w = want.trace->results[r].engine->run;
                QCOMPARE(g.served.size(), w.served.size());
                for (std::size_t i = 0; i < w.served.size(); ++i) {
                    const ServedAttempt &x = g.served[i], &y = w.served[i];
                    QVERIFY2(x.arrived == y.arrived && x.start == y.start && x.end == y.end && x.outcome == y.outcome,
                             qPrintable(QString("row %1, attempt %2").arg(r).arg(i)));
                    retriesServed += w.log[i].attempt > 0 && y.outcome == Outcome::InTime;
                }
            }
            compareServers(got, want);
            QVERIFY(retriesServed > 0); // a retry's service is drawn as it is served, beside the kept draws
        }
        const auto kept = cache.firstServices(service, 23, 20'000);
        QVERIFY(kept);
        for (const std::int64_t i : {0, 1, 9'999, 19'999})
            QCOMPARE(kept->at(std::size_t(i)), serviceNanos(service, 23, i, 0));
    }

    // A cluster's rows are the engine's: a drag of the capacity at the full range takes the window
    // limiters' runs from the frame before (the same run, shared; reduced again, as the buckets'
    // recovery moves the view's end) and reruns the buckets, and a
    // drag of the limit reruns every algorithm's row but takes the concurrency limiter's, which
    // reads no limiter setting. Every frame equals its own reference,
    // every row simulated again.
    void aClustersDragRerunsOnlyTheRowsThatReadIt()
    {
        FrameCache cache;
        Scenario s = poisson(20'000, 90, 24);
        s.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::TokenBucket, Algorithm::Gcra};
        s.cluster = ClusterConfig::make({3, Balancer::RoundRobin, Coordination::Local});
        s.server = ServerConfig::parse("workers=8,service=exp:20ms,queue=100,timeout=1s");
        s.concurrency = {GateSpec::parse("gradient2")};
        TimeRange range;
        const auto frameOf = [&](const LimiterConfig& c) {
            s.config = c;
            Frame got = buildFrame(std::make_shared<const Scenario>(s), nullptr, range, 800, nullptr, &cache);
            const Frame want = referenceFrame(s, wholeTrace(s), range, 800);
            compareFrames(got, want);
            compareServers(got, want);
            return got;
        };
        const auto taken = [](const Frame& before, const Frame& after, std::size_t r) {
            return before.trace->results[r].engine == after.trace->results[r].engine;
        };
        const LimiterConfig first = LimiterConfig::make(90, kSecond);
        const Frame before = frameOf(first);
        const Frame capacity = frameOf(first.withLimits(90, kSecond, 150));
        QVERIFY(capacity.range.to > before.range.to); // a bucket's recovery ends the view: taken rows reduced again
        for (std::size_t r : {0, 1, 4})
            QVERIFY2(taken(before, capacity, r), qPrintable(QString("row %1").arg(r)));
        for (std::size_t r : {2, 3})
            QVERIFY2(!taken(before, capacity, r), qPrintable(QString("row %1").arg(r)));
        const Frame limit = frameOf(first.withLimits(91, kSecond, 150));
        for (std::size_t r : {0, 1, 2, 3})
            QVERIFY2(!taken(capacity, limit, r), qPrintable(QString("row %1").arg(r)));
        QVERIFY(taken(capacity, limit, 4));
        // Zoomed in, the view fixed: a row taken keeps its server's view as it was made.
        range = {20 * kSecond, 40 * kSecond};
        const Frame zoomed = frameOf(first.withLimits(91, kSecond, 150));
        const Frame zoomedLimit = frameOf(first.withLimits(92, kSecond, 150));
        QVERIFY(taken(zoomed, zoomedLimit, 4));
        QCOMPARE(zoomedLimit.extras[4].server->inSystem, zoomed.extras[4].server->inSystem);
    }

    // The same with what else an engine row reads: nodes splitting the limit among them, buckets
    // that start empty, clients retrying after the limiter's answer, and a layered policy of its
    // own. A drag of the capacity takes the window limiters' rows and the layered row (its layers
    // are its own) and reruns the buckets; each frame equals its reference.
    void aSplitClusterWithClientsDragTakesWhatReadsNoneOfIt()
    {
        FrameCache cache;
        Scenario s = poisson(20'000, 90, 26);
        s.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingWindowCounter, Algorithm::LeakyBucket};
        s.cluster = ClusterConfig::make({3, Balancer::Random, Coordination::Split});
        s.bucketsStartEmpty = true;
        ClientOptions o;
        o.clients = 4;
        o.retry = RetryPolicy::RetryAfter;
        o.maxRetries = 2;
        s.clients = ClientConfig::make(o);
        s.layers = {parseLayer("token_bucket:capacity=5,rate=1"), parseLayer("fixed_window:limit=100,window=60")};
        const auto frameOf = [&](const LimiterConfig& c) {
            s.config = c;
            Frame got = buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 800, nullptr, &cache);
            compareFrames(got, referenceFrame(s, wholeTrace(s), {}, 800));
            return got;
        };
        const LimiterConfig first = LimiterConfig::make(90, kSecond);
        const Frame before = frameOf(first);
        const Frame after = frameOf(first.withLimits(90, kSecond, 150));
        const auto taken = [&](std::size_t r) { return before.trace->results[r].engine == after.trace->results[r].engine; };
        QVERIFY(taken(0) && taken(1) && taken(3)); // the window limiters, the layered row
        QVERIFY(!taken(2));                         // the bucket
    }

    void aKeyLineTakesTheRangeAndOnePointEitherSide()
    {
        // Steps at 1, 2, 2, 3 and 5 s; no thinning (far fewer than four points a half column).
        KeyLevel line;
        for (const auto& [t, level] : std::vector<std::pair<Nanos, double>>{
                 {1 * kSecond, 10}, {2 * kSecond, 20}, {2 * kSecond, 21}, {3 * kSecond, 30}, {5 * kSecond, 50}})
            line.points.push_back({t, level});
        // [2, 3]: its three points, the one before 2 and the one after 3.
        QCOMPARE(pointsOf(keyLineOf(line, 2, 3, 100)),
                 (QList<QPointF>{{1, 10}, {2, 20}, {2, 21}, {3, 30}, {5, 50}}));
        // [2.5, 2.7] holds none: the last before it and the first after it.
        QCOMPARE(pointsOf(keyLineOf(line, 2.5, 2.7, 100)), (QList<QPointF>{{2, 21}, {3, 30}}));
        QCOMPARE(pointsOf(keyLineOf(line, 4, 4.5, 100)), (QList<QPointF>{{3, 30}, {5, 50}}));
        // Before the first step or after the last: nothing to reach.
        QCOMPARE(pointsOf(keyLineOf(line, 0, 0.5, 100)), QList<QPointF>{});
        QCOMPARE(pointsOf(keyLineOf(line, 6, 7, 100)), QList<QPointF>{});
        // From the first step exactly: no point before it.
        QCOMPARE(pointsOf(keyLineOf(line, 1, 1.5, 100)), (QList<QPointF>{{1, 10}, {2, 20}}));
    }

    void aKeyLineEqualsTheScanOfItsPoints()
    {
        // 3,000 steps over 30 s, ties among them, against the rule read point by point: a point
        // is drawn when it is in [from, to], or it is the last before from with the next at or
        // after from, or the first after to with the one before at or before to; then thinned
        // when there are more than four a half column (thinnedByScan).
        std::mt19937_64 rng(7);
        KeyLevel line;
        Nanos t = 0;
        for (int i = 0; i < 3000; ++i) {
            t += Nanos(rng() % 3) * kSecond / 200; // 0, 5 or 10 ms: a third of the steps tie
            line.points.push_back({t, double(rng() % 100)});
        }
        const auto& pts = line.points;
        for (int k = 0; k < 300; ++k) {
            const Nanos a = Nanos(rng() % std::uint64_t(t + kSecond)), b = Nanos(rng() % std::uint64_t(t + kSecond));
            if (a == b)
                continue;
            const Nanos from = std::min(a, b), to = std::max(a, b);
            const int columns = std::array{1, 10, 100, 1000}[k % 4];
            std::vector<LevelPoint> want;
            for (std::size_t i = 0; i < pts.size(); ++i)
                if ((pts[i].t >= from && pts[i].t <= to) || (i + 1 < pts.size() && pts[i + 1].t >= from && pts[i].t < from)
                    || (i > 0 && pts[i - 1].t <= to && pts[i].t > to))
                    want.push_back({secondsAsDouble(pts[i].t), pts[i].level});
            if (want.size() > 4 * std::size_t(2 * columns))
                want = thinnedByScan(want, secondsAsDouble(from), secondsAsDouble(to), 2 * columns);
            const std::vector<LevelPoint> got = keyLineOf(line, secondsAsDouble(from), secondsAsDouble(to), columns, from, to);
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < want.size(); ++i)
                QVERIFY(got[i].seconds == want[i].seconds && got[i].level == want[i].level);
        }
    }

    void aDenseKeyLineKeepsFourPointsAHalfColumn()
    {
        // 20 points 0.1 s apart over [0, 2) in one column: two half columns of 1 s. The first
        // holds levels 5 4 3 2 1 9 8 7 6 0: its first (0 s), its most (0.5 s) and its least,
        // also its last (0.9 s); the second holds 3 ten times: its first and its last.
        KeyLevel line;
        const double levels[] = {5, 4, 3, 2, 1, 9, 8, 7, 6, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
        for (int i = 0; i < 20; ++i)
            line.points.push_back({i * kSecond / 10, levels[i]});
        QCOMPARE(pointsOf(keyLineOf(line, 0, 2, 1)), (QList<QPointF>{{0, 5}, {0.5, 9}, {0.9, 0}, {1.0, 3}, {1.9, 3}}));
        // Eight points, four a half column, are drawn as they are.
        line.points.resize(8);
        QCOMPARE(keyLineOf(line, 0, 2, 1).size(), std::size_t(8));
    }

    // Zoomed in (the range fixed), a drag of the capacity, then the rate, reruns only the
    // buckets: the window limiters read neither, and their rows are taken from the frame before
    // (the same checkpoints); every frame still equals its own reference. A change of the limit
    // reruns every row (the buckets are measured against it); nginx, with options of its own, is
    // always rerun. At the full range a bucket's capacity moves the range's end (its refill), and
    // so every row's columns: nothing is taken.
    void aCapacityDragRerunsOnlyTheBuckets()
    {
        FrameCache cache;
        Scenario s = poisson(50'000, 90, 21);
        s.algorithms.push_back(Algorithm::NginxLimitReq);
        TimeRange range{10 * kSecond, 100 * kSecond};
        const auto frameOf = [&](const LimiterConfig& c) {
            s.config = c;
            Frame got = buildFrame(std::make_shared<const Scenario>(s), nullptr, range, 800, nullptr, &cache);
            compareFrames(got, referenceFrame(s, wholeTrace(s), range, 800));
            return got;
        };
        const auto taken = [](const Frame& before, const Frame& after, std::size_t r) {
            return before.trace->results[r].checkpoints == after.trace->results[r].checkpoints;
        };
        const LimiterConfig first = LimiterConfig::make(90, kSecond);
        Frame before = frameOf(first);
        for (const LimiterConfig& next :
             {first.withLimits(90, kSecond, 120), first.withLimits(90, kSecond, 150),
              first.withLimits(90, kSecond, 150, Rate{60, kSecond})}) {
            const Frame after = frameOf(next);
            for (std::size_t r = 0; r < s.algorithms.size(); ++r) {
                const bool window = facts(s.algorithms[r]).reads == ConfigUse::LimitWindow
                                    && s.algorithms[r] != Algorithm::NginxLimitReq;
                QVERIFY(after.trace->results[r].checkpoints);
                QVERIFY2(taken(before, after, r) == window, algorithmId(s.algorithms[r]).data());
            }
            before = after;
        }
        const Frame limit = frameOf(first.withLimits(91, kSecond, 150, Rate{60, kSecond}));
        for (std::size_t r = 0; r < s.algorithms.size(); ++r)
            QVERIFY2(!taken(before, limit, r), algorithmId(s.algorithms[r]).data());
        // Another seed: the arrivals differ, nothing is taken.
        s.pattern.seed = 22;
        const Frame seed = frameOf(first.withLimits(91, kSecond, 120, Rate{60, kSecond}));
        for (std::size_t r = 0; r < s.algorithms.size(); ++r)
            QVERIFY(!taken(limit, seed, r));
        // The full range: the capacity moves its end.
        range = {};
        const Frame full = frameOf(first.withLimits(91, kSecond, 120, Rate{60, kSecond}));
        const Frame wider = frameOf(first.withLimits(91, kSecond, 180, Rate{60, kSecond}));
        QVERIFY(wider.range.to > full.range.to);
        for (std::size_t r = 0; r < s.algorithms.size(); ++r)
            QVERIFY(!taken(full, wider, r));
    }
};

QTEST_GUILESS_MAIN(TestFrameEquivalence)
#include "tst_frame_equivalence.moc"
