// The lessons of the product presets, each number derived by hand from the product's
// rules (core/products/ headers cite the source): the preset's words must hold in its run.
#include "preset_rows.h"
#include "arithmetic/decimal.h"
#include "presets.h"
#include "scenario/rows.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

Trace run(const QString& id)
{
    const LoadResult r = loadPreset(id);
    if (!r.scenario)
        qFatal("preset %s: %s", qPrintable(id), qPrintable(r.error));
    return simulateRows(*r.scenario);
}

const AlgorithmTrace& result(const Trace& t, Algorithm a) { return rowResult(t, a); }

} // namespace

class TestPresetsProducts : public QObject {
    Q_OBJECT
private slots:
    void traefikSixAMinute()
    {
        // Bursts of 6 at 0, 20 and 40 s. Traefik: 0.1 token/s, burst 1: the first of each burst
        // finds a full bucket (20 s refill 2 tokens, capped at 1), the next would wait 10 s > the
        // 500 ms it may hold a request: refused. The fixed window (6 per 60 s) takes all 6 at 0
        // and nothing more before 60 s.
        const Trace t = run("traefik-six-a-minute");
        QCOMPARE(admitted(result(t, Algorithm::Traefik)), (std::vector<std::size_t>{0, 6, 12}));
        QCOMPARE(admitted(result(t, Algorithm::FixedWindow)), range(0, 6));
    }

    void springBurstZero()
    {
        // burstCapacity 0: filled = min(0, ...) = 0 < 1 for every request, and no wait helps.
        const Trace t = run("spring-burst-zero");
        const AlgorithmTrace& spring = result(t, Algorithm::SpringGateway);
        QCOMPARE(spring.metrics.allowed, 0);
        const std::vector<Decision> refused = decisionsOf(spring);
        QCOMPARE(refused.size(), t.arrivals.size());
        for (const Decision& d : refused)
            QVERIFY(d.retryNever());
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.allowed, 20); // 10 at 10/s, one each 0.1 s
    }

    void envoyFillCap()
    {
        // One request every 10 ms for 3 s. Envoy: 20 tokens at 0 (requests 0..19), none until the
        // fire at 1 s sets min(20, 0 + 100) = 20 (requests 100..119), again at 2 s (200..219).
        const Trace t = run("envoy-fill-cap");
        std::vector<std::size_t> want = range(0, 20);
        for (std::size_t i : range(100, 120))
            want.push_back(i);
        for (std::size_t i : range(200, 220))
            want.push_back(i);
        QCOMPARE(admitted(result(t, Algorithm::EnvoyLocal)), want);
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.allowed, 300); // 1 refilled per 10 ms
    }

    void redisCellSixteen()
    {
        // 20 at once: tolerance 16 intervals: 16 pass; GCRA's tolerance (C - 1) T: 15.
        const Trace t = run("redis-cell-sixteen");
        QCOMPARE(admitted(result(t, Algorithm::RedisCell)), range(0, 16));
        QCOMPARE(admitted(result(t, Algorithm::Gcra)), range(0, 15));
    }

    void nginxPageLoad()
    {
        // 27 at once, burst 8, nodelay: excess 0, 1000, ..., 8000 for the first 9, then 9000 > 8000.
        const Trace t = run("nginx-page-load");
        QCOMPARE(admitted(result(t, Algorithm::NginxLimitReq)), range(0, 9));
        QCOMPARE(result(t, Algorithm::TokenBucket).metrics.allowed, 27);
    }
};

QTEST_GUILESS_MAIN(TestPresetsProducts)
#include "tst_presets_products.moc"
