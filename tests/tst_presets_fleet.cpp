// tst_presets_fleet: the lessons of the fleet presets, "Scaling out", "Redis goes
// down: fail open or closed" and "Everyone comes back at the reset", each number derived by hand
// from semantics.md ("Fleets and storms", "Clients that react") in the comment above its check.
#include "view/row_extras.h"
#include "engine/layered.h"
#include "preset_rows.h"
#include "presets.h"
#include "scenario/rows.h"

#include <QTest>

#include <map>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

const AlgorithmTrace& result(const Trace& t, Algorithm a) { return rowResult(t, a); }

Scenario preset(const char* id)
{
    const LoadResult loaded = loadPreset(id);
    if (!loaded.scenario)
        qFatal("%s", qPrintable(loaded.error));
    return *loaded.scenario;
}

void lessonSays(const Scenario& s, std::initializer_list<const char*> phrases)
{
    const QString lesson = QString::fromStdString(s.lesson);
    for (const char* said : phrases)
        QVERIFY2(lesson.contains(QLatin1String(said)), said);
}

Scenario withFallback(Scenario s, Fallback f)
{
    ClusterConfig::Options o = s.cluster->options();
    o.fallback = f;
    s.cluster = ClusterConfig::make(o);
    return s;
}

} // namespace

class TestPresetsFleet : public QObject {
    Q_OBJECT
private slots:
    // Each row says what made it (RowKind), whatever it happens to hold: seed-compare's rows are
    // one limiter each; two-servers-local's are a cluster's; tight-retry-loop's are attempts;
    // with layers, the last row is the layered policy, and over a cluster with clients it is all
    // three at once, the other rows two.
    void rowsSayWhatMadeThem()
    {
        for (const AlgorithmTrace& r : simulateRows(preset("seed-compare")).results)
            QVERIFY(r.kind.oneLimiter());
        for (const AlgorithmTrace& r : simulateRows(preset("two-servers-local")).results)
            QVERIFY(r.kind.cluster && !r.kind.attempts && !r.kind.layered);
        for (const AlgorithmTrace& r : simulateRows(preset("tight-retry-loop")).results)
            QVERIFY(r.kind.attempts && !r.kind.cluster && !r.kind.layered);
        Scenario s = preset("two-servers-local");
        s.clients = preset("tight-retry-loop").clients;
        s.layers = {parseLayer("token_bucket:capacity=5,rate=1"), parseLayer("fixed_window:limit=100,window=60")};
        const Trace t = simulateRows(s);
        QCOMPARE(t.results.size(), s.algorithms.size() + 1);
        for (std::size_t r = 0; r < t.results.size(); ++r) {
            const RowKind k = t.results[r].kind;
            QVERIFY(k.attempts && k.cluster);
            QCOMPARE(k.layered, r + 1 == t.results.size());
            QCOMPARE(timesOf(t, r).size(), decisionCount(t.results[r])); // one time a decision: the attempts'
        }
    }

    // 120 requests 0.25 s apart (0 .. 29.75 s), three nodes round robin on one store, fixed
    // window 10 per 10 s; the store is down over [10 s, 20 s). Windows [0,10), [10,20), [20,30)
    // hold 40 requests each. Redis up, the store admits 10 a window: 30. Fail open: the 40 of the
    // outage pass uncounted, and the store's windows 0 and 2 still admit 10 each: 60; the trailing
    // window (9.75 s, 19.75 s] holds 40 admissions. Closed: 10 + 0 + 10 = 20, the denial at t
    // told 20 s - t. Local: node n takes requests n, n+3, ...: 14, 13, 13 of the 40, each node's
    // fresh window admits 10: 30 in the outage, 50 in all.
    void redisGoesDown()
    {
        const Scenario s = preset("redis-goes-down");
        QCOMPARE(s.cluster->options().fallback, Fallback::Open);
        Scenario up = s;
        ClusterConfig::Options o = s.cluster->options();
        o.outageFromNanos = o.outageToNanos = 0;
        up.cluster = ClusterConfig::make(o);
        QCOMPARE(result(simulateRows(up), Algorithm::FixedWindow).metrics.allowed, 30);

        const Trace open = simulateRows(s);
        const AlgorithmTrace& fixedOpen = result(open, Algorithm::FixedWindow);
        QCOMPARE(fixedOpen.metrics.allowed, 60);
        QCOMPARE(fixedOpen.metrics.maxInWindow, 40);
        const std::vector<Decision> opened = decisionsOf(fixedOpen);
        for (std::size_t i = 40; i < 80; ++i) // 10 s .. 19.75 s
            QVERIFY(opened.at(i).allowed);

        const Trace closed = simulateRows(withFallback(s, Fallback::Closed));
        const AlgorithmTrace& fixedClosed = result(closed, Algorithm::FixedWindow);
        QCOMPARE(fixedClosed.metrics.allowed, 20);
        const std::vector<Decision> shut = decisionsOf(fixedClosed);
        for (std::size_t i = 40; i < 80; ++i) {
            QVERIFY(!shut.at(i).allowed);
            QCOMPARE(shut.at(i).retryAfter, 20 * kSecond - closed.arrivals[i]);
        }

        const Trace local = simulateRows(withFallback(s, Fallback::Local));
        const AlgorithmTrace& fixedLocal = result(local, Algorithm::FixedWindow);
        QCOMPARE(fixedLocal.metrics.allowed, 50);
        QCOMPARE(fixedLocal.metrics.maxInWindow, 30);

        // The token bucket's store line: C = 10 at 1/s; 4 a second drain it before 10 s, the
        // outage leaves it alone, and 10 s of refill fill it: 10 tokens at 20 s (capped).
        EngineSetup setup = engineSetup(s, 1);
        setup.levelLines = LevelLineSetup{8, 4};
        const RowInputs in = resolveRowInputs(s);
        const RowRun run = runRow(setup, {in.arrivals, in.costs, in.clientOf});
        const KeyLevels& levels = run.levels;
        QCOMPARE(levels.lines.size(), std::size_t(1));
        double at20 = -1, at10 = -1;
        for (const KeyLevelPoint& p : levels.lines.front().points) {
            if (p.t == 20 * kSecond && at20 < 0)
                at20 = p.level;
            if (p.t <= 10 * kSecond)
                at10 = p.level;
        }
        QCOMPARE(at20, 10.0);
        QVERIFY2(at10 < 1.0, qPrintable(QString::number(at10)));

        lessonSays(s, {"Three servers share one Redis", "limit of 10 per 10 s", "4 requests a second arrive",
                       "all 40 requests of the outage pass", "admits 40 in 10 s, 4x the limit",
                       "60 in all where 30 pass", "retry when Redis is back at 20 s", "20 pass in all",
                       "30 pass in those 10 s", "meets 20 s with all 10 tokens"});
    }

    // 160 requests 0.125 s apart (0 .. 19.875 s), token bucket C = 10, r = 1/s on each of 4 local
    // pods, pods 2 and 3 joining at 10 s; round robin counts attempts, so before 10 s pod 0 takes
    // 0, 0.25, ... and pod 1 0.125, 0.375, ... (4 a second each), after it each pod one request
    // every 0.5 s (attempt 80 at 10 s goes to pod 0). Full: a pod's n-th request at 0.25 (n - 1)
    // finds 10 + 0.25 (n - 1) - (n - 1) tokens, >= 1 up to n = 13 (3 s), then one a second at
    // 4 .. 9 s: 19 each, 38 before 10 s. After: the old pods' token of each second, 10 each; a
    // new pod's n-th request at 10.25 + 0.5 (n - 1) finds 10 - 0.5 (n - 1) >= 1 up to n = 19:
    // 38 for the two, 58 in all. Empty: every bucket new with no token: the old pods admit one a
    // second from 1 s (1 .. 9 s, 9 each: 18), then 10 each after 10 s; the new pods one a second
    // from 11 s, at 11.25 .. 19.25 s: 9 each, 18; 38 after the join. The fixed window: 10 per pod
    // and window, counts new either way: 20 before, 40 after.
    void scalingOut()
    {
        const Scenario s = preset("scaling-out");
        const auto count = [](const Trace& t, Algorithm a, auto keep) {
            const AlgorithmTrace& r = result(t, a);
            std::int64_t n = 0;
            const std::vector<Decision> d = decisionsOf(r);
            if (d.size() != t.arrivals.size())
                qFatal("%zu decisions for %zu arrivals", d.size(), t.arrivals.size());
            for (std::size_t i = 0; i < d.size(); ++i)
                n += d[i].allowed && keep(t.arrivals[i], r.nodes[i]);
            return n;
        };
        const auto before = [](Nanos t, int) { return t < 10 * kSecond; };
        const auto after = [](Nanos t, int) { return t >= 10 * kSecond; };
        const auto newPods = [](Nanos t, int node) { return t >= 10 * kSecond && node >= 2; };
        const Trace full = simulateRows(s);
        QCOMPARE(count(full, Algorithm::TokenBucket, before), 38);
        QCOMPARE(count(full, Algorithm::TokenBucket, after), 58);
        QCOMPARE(count(full, Algorithm::TokenBucket, newPods), 38);
        QCOMPARE(count(full, Algorithm::FixedWindow, before), 20);
        QCOMPARE(count(full, Algorithm::FixedWindow, after), 40);
        Scenario empty = s;
        empty.bucketsStartEmpty = true;
        const Trace e = simulateRows(empty);
        QCOMPARE(count(e, Algorithm::TokenBucket, before), 18);
        QCOMPARE(count(e, Algorithm::TokenBucket, after), 38);
        QCOMPARE(count(e, Algorithm::TokenBucket, newPods), 18);
        QCOMPARE(count(e, Algorithm::FixedWindow, after), 40);
        lessonSays(s, {"Two pods each enforce their own token bucket of 10 tokens refilled at 1 a second",
                       "8 requests a second", "at 10 s two more pods join", "the new pods admit 38",
                       "the old two 20", "the fleet admits 58 where it admitted 38 before", "doubles from 20 to 40",
                       "Tick Buckets start empty", "only what refills, 18", "the fleet 38 after the join"});
    }

    // 30 clients, one global key, 30 requests 0.1 s apart (0 .. 2.9 s), each client one; retry
    // exactly after retry_after. Fixed window: 0 .. 0.9 s pass; the 20 at 1.0 .. 2.9 s are told
    // 10 s - t, so all 20 retry at 10 s: 10 pass, 10 are told 10 s and pass at 20 s. Attempts 30 +
    // 20 + 10 = 60; (0 s, 10 s] holds 9 + 10 = 19 admissions. Sliding log: at 10 s + k/10 (k = 0
    // .. 9) the entry of k/10 s expires: 20 - k come, one passes; then the entries of 10 .. 10.9 s
    // expire at 20 .. 20.9 s: 10 - k come, one passes. 30 + (20 + ... + 11) + (10 + ... + 1) =
    // 30 + 155 + 55 = 240.
    void everyoneComesBackAtTheReset()
    {
        const Scenario s = preset("comes-back-at-reset");
        const Trace t = simulateRows(s);
        const AlgorithmTrace& fixed = result(t, Algorithm::FixedWindow);
        QCOMPARE(fixed.clients->attempts, 60);
        QCOMPARE(fixed.clients->succeeded, 30);
        QCOMPARE(fixed.metrics.maxInWindow, 19);
        std::map<Nanos, int> retriesAt;
        for (const LoggedAttempt& a : *fixed.log)
            if (a.attempt > 0)
                ++retriesAt[a.t];
        QCOMPARE(retriesAt, (std::map<Nanos, int>{{10 * kSecond, 20}, {20 * kSecond, 10}}));
        const AlgorithmTrace& log = result(t, Algorithm::SlidingWindowLog);
        QCOMPARE(log.clients->attempts, 240);
        QCOMPARE(log.clients->succeeded, 30);

        // Backoff: each client's own draws, so no two retries share an instant.
        Scenario backoff = s;
        ClientOptions o = s.clients->options();
        o.retry = RetryPolicy::Backoff;
        backoff.clients = ClientConfig::make(o);
        std::map<Nanos, int> spread;
        const Trace spreadOut = simulateRows(backoff); // kept: the loop reads into it
        for (const LoggedAttempt& a : *result(spreadOut, Algorithm::FixedWindow).log)
            if (a.attempt > 0)
                QCOMPARE(++spread[a.t], 1);
        QVERIFY(spread.size() >= 20);

        lessonSays(s, {"Thirty clients share one limit of 10 per 10 s", "one request in the first 3 s",
                       "other 20 to come back at the reset, 10 s", "all 20 return at the same instant",
                       "10 pass and 10 are sent on to 20 s", "60 attempts for 30 requests",
                       "19 admitted within 10 s", "every 0.1 s", "240 attempts"});
    }
};

QTEST_GUILESS_MAIN(TestPresetsFleet)
#include "tst_presets_fleet.moc"
