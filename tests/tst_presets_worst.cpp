// tst_presets_worst: the lesson of the preset n-per-t ("N per T is not at most N in any T"),
// each number derived by hand from semantics.md (core/worst_case.cpp has the derivations).
#include "preset_rows.h"
#include "presets.h"
#include "rows.h"
#include "worst_case.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

const AlgorithmTrace& result(const Trace& t, Algorithm a) { return rowResult(t, a); }

std::int64_t reachedIn(const Trace& t, Algorithm a, Nanos T)
{
    const AlgorithmTrace& r = result(t, a);
    std::vector<bool> admitted;
    for (const Decision& d : r.decisions)
        admitted.push_back(d.allowed);
    return maxAdmittedIn(t.arrivals, admitted, T);
}

} // namespace

class TestPresetsWorst : public QObject {
    Q_OBJECT
private slots:
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

QTEST_GUILESS_MAIN(TestPresetsWorst)
#include "tst_presets_worst.moc"
