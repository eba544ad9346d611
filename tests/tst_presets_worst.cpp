// tst_presets_worst: the lesson of the preset n-per-t ("N per T is not at most N in any T"),
// each number derived by hand from semantics.md (core/limiters/worst_case.cpp has the derivations).
#include "preset_rows.h"
#include "model/frame.h"
#include "presets.h"
#include "scenario/rows.h"
#include "limiters/worst_case.h"
#include "max_admitted.h"

#include <QTest>

#include <tuple>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

const AlgorithmTrace& result(const Trace& t, Algorithm a) { return rowResult(t, a); }

std::int64_t reachedIn(const Trace& t, Algorithm a, Nanos T)
{
    const AlgorithmTrace& r = result(t, a);
    std::vector<bool> admitted;
    for (const Decision& d : decisionsOf(r))
        admitted.push_back(d.allowed);
    return maxAdmittedIn(t.arrivals, admitted, T);
}

} // namespace

class TestPresetsWorst : public QObject {
    Q_OBJECT
private slots:
    // Each row one limiter decides carries its bound and the window where its traffic came
    // closest, found with the simulation (the row header and the shaded window read it). L = 2
    // per W = 1 s, C = 2, r = 2/s, T = W; requests at 0.9, 0.95, 1.0, 1.05 s. Fixed window: at
    // most 2 (ceil((T - 1 ns) / W) + 1) = 4, and all four pass (two each side of 1 s): 4 in
    // (0.05, 1.05]. Token bucket: at most 2 + floor(2/s (1 s - 1 ns)) = 3; 0.9 and 0.95 pass
    // (1.1 tokens left after the refill, then 0.1), 1.0 and 1.05 find 0.2 and 0.3: 2, ending at
    // 0.95. Two local nodes hold two states: no bound.
    void rowsCarryTheirReach()
    {
        Scenario s;
        s.config = LimiterConfig::make(2, kSecond);
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        s.explicitArrivals = std::vector<Nanos>{kSecond * 9 / 10, kSecond * 95 / 100, kSecond, kSecond * 105 / 100};
        const Trace t = simulateRows(s);
        const BoundReach fixed = result(t, Algorithm::FixedWindow).bound.value();
        QCOMPARE(fixed.atMost, 4);
        QCOMPARE(fixed.reached, 4);
        QCOMPARE(fixed.windowNanos, kSecond);
        QCOMPARE(fixed.closestEnd, kSecond * 105 / 100);
        const BoundReach token = result(t, Algorithm::TokenBucket).bound.value();
        QCOMPARE(token.atMost, 3);
        QCOMPARE(token.reached, 2);
        QCOMPARE(token.closestEnd, kSecond * 95 / 100);
        // The app's frame simulates plain rows on its own one-pass path: the same reach.
        const ui::Frame frame = ui::buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, 400);
        QVERIFY(frame.trace && frame.error.isEmpty());
        for (const AlgorithmTrace& r : frame.trace->results) {
            const BoundReach want = result(t, r.algorithm).bound.value(), got = r.bound.value();
            QCOMPARE(std::tuple(got.atMost, got.reached, got.windowNanos, got.closestEnd),
                     std::tuple(want.atMost, want.reached, want.windowNanos, want.closestEnd));
        }
        s.cluster = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Local, 0, 0, 0, 1});
        for (const AlgorithmTrace& r : simulateRows(s).results)
            QVERIFY(!r.bound);
    }

    void nPerT()
    {
        // L = 10 per W = 10 s, C = 10, r = 1/s; T = 10 s. Bounds: fixed 10 (ceil((T - 1 ns) / W) + 1)
        // = 20; log 10 ceil(T / W) = 10; counter max(10, ceil(10 (2W - 2 ns) / W)) = 20; token
        // 10 + floor(1/s (10 s - 1 ns)) = 19. The token bucket's worst: 10 at 0, then one at each
        // whole second 1 .. 9 as its token is due.
        const LoadResult loaded = loadPreset("n-per-t");
        QVERIFY2(loaded.scenario, qPrintable(loaded.error));
        const Scenario& s = *loaded.scenario;
        const Trace t = simulateRows(s);
        const Nanos T = 10 * kSecond;
        QCOMPARE(boundWindowNanos(s.pattern, s.config), T);
        QCOMPARE(t.arrivals.size(), std::size_t(19));
        QCOMPARE(t.arrivals.front(), 0);
        QCOMPARE(t.arrivals[10], kSecond);
        QCOMPARE(t.arrivals.back(), 9 * kSecond);
        const std::pair<Algorithm, std::int64_t> bounds[] = {{Algorithm::FixedWindow, 20}, {Algorithm::SlidingWindowLog, 10},
                                                             {Algorithm::SlidingWindowCounter, 20}, {Algorithm::TokenBucket, 19}};
        for (const auto& [a, bound] : bounds)
            QCOMPARE(worstCaseBound(a, s.config, T).value(), bound);
        // The bucket admits all 19 (each second refills the token the next one takes), inside
        // [0, 9 s]; the windows admit the 10 at 0 and deny 1 .. 9 s: all inside window 0 (fixed,
        // and the counter with prev = 0) or within 10 s of the 10 entries (the log).
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.allowed, 19);
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.maxInWindow, 19);
        for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter})
            QCOMPARE(result(t, a).metrics.allowed, 10);
        const QString lesson = QString::fromStdString(s.lesson);
        for (const char* said : {"10 requests per 10 s", "at most 10 in any 10 s", "promise at most 20", "token bucket 19",
                                 "10 requests at 0 s and one at each second from 1 s to 9 s", "admits all 19 within 9 s",
                                 "the windows admit 10", "admits 20 within 1 ns"})
            QVERIFY2(lesson.contains(QLatin1String(said)), said);

        // "The fixed window's own worst case ... admits 20 within 1 ns": each reaches its own bound.
        for (const auto& [a, bound] : bounds) {
            Scenario own = s;
            own.algorithms = {a};
            own.pattern.worstOf = a;
            QCOMPARE(reachedIn(simulateRows(own), a, T), bound);
        }
        const std::vector<Nanos> fixedWorst = worstArrivals(Algorithm::FixedWindow, s.config, T);
        QCOMPARE(fixedWorst.back() - fixedWorst.front(), Nanos(1)); // 10 at 10 s - 1 ns, 10 at 10 s
    }
};

QTEST_MAIN(TestPresetsWorst)
#include "tst_presets_worst.moc"
