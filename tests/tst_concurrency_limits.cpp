// Netflix concurrency-limits (fixed, aimd, vegas, gradient2) as gates, and every kind's option
// refusals, Envoy's (envoy) included (semantics.md, "The server behind the limiter"). Every expected
// number is derived by hand from the source's formulas (cited in core/server/netflix_limits.h and
// envoy_gradient.h), the derivation beside it; sequences from the product's own suite
// (AIMDLimitTest, VegasLimitTest) are marked as such. Envoy's controller: tst_envoy_gradient.
// Time is injected: every call is handed its t.
#include "spec_helpers.h"
#include "server/gate.h"
#include "server/netflix_limits.h"
#include "arithmetic/decimal.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kS = kNanosPerSecond;
using V = Gate::Verdict;

// exact checks two doubles are the same double (QCOMPARE on doubles is fuzzy).
#define EXACT(a, b) QVERIFY2((a) == (b), qPrintable(QString("%1 != %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)))

std::vector<std::int64_t> g_none;

void release(Gate& g, Nanos t, std::int64_t id, bool dropped = false)
{
    g.advance(t);
    g.release(t, id, dropped, g_none);
}

V offer(Gate& g, Nanos t, std::int64_t id)
{
    g.advance(t);
    return g.offer(t, id, 0);
}

QString refusal(const char* spec)
{
    try {
        makeGate(spec, 1);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TstConcurrencyLimits : public QObject {
    Q_OBJECT

private slots:
    void aimdFromItsSuite()
    {
        // AIMDLimitTest.java: testDefault, increaseOnSuccess, decreaseOnDrops, successOverflow.
        AimdLimit::Options o;
        o.initialLimit = 10;
        QCOMPARE(AimdLimit(o).limit(), 10);
        o.initialLimit = 20; // 10 inflight * 2 = 20 >= 20: 20 + 1
        AimdLimit up(o);
        up.onSample(0, 1 * kMs, 10, false);
        QCOMPARE(up.limit(), 21);
        o.initialLimit = 30; // a drop: (int) (30 * 0.9) = 27
        AimdLimit drop(o);
        drop.onSample(0, 0, 0, true);
        QCOMPARE(drop.limit(), 27);
        o.initialLimit = 21, o.maxLimit = 21, o.minLimit = 0; // 22 clamped to max 21
        AimdLimit top(o);
        top.onSample(0, 1 * kMs, 10, false);
        QCOMPARE(top.limit(), 21);
    }

    void aimdHandTable()
    {
        // initial 10, min 1, max 12, backoff 0.5, timeout 1 s; each row: rtt, inflight, drop -> limit.
        AimdLimit::Options o;
        o.initialLimit = 10, o.minLimit = 1, o.maxLimit = 12, o.backoffRatio = 0.5, o.timeout = kS;
        AimdLimit a(o);
        const struct {
            Nanos rtt;
            int inflight;
            bool drop;
            int limit;
        } rows[] = {
            {10 * kMs, 5, false, 11}, // 5 * 2 = 10 >= 10: 11
            {10 * kMs, 5, false, 11}, // 10 >= 11 no: stays
            {10 * kMs, 6, false, 12}, // 12 >= 11: 12
            {10 * kMs, 6, false, 12}, // 12 >= 12: 13, min(12, 13) = 12
            {2 * kS, 1, false, 6},    // rtt 2 s > timeout 1 s: (int) (12 * 0.5) = 6
            {1 * kMs, 1, true, 3},    // drop: (int) (6 * 0.5) = 3
            {1 * kMs, 1, true, 1},    // (int) 1.5 = 1
            {1 * kMs, 1, true, 1},    // (int) 0.5 = 0, max(1, 0) = 1
            {kS, 1, false, 2},        // rtt = timeout is not over it; 1 * 2 >= 1: 2
        };
        for (const auto& r : rows) {
            a.onSample(0, r.rtt, r.inflight, r.drop);
            QCOMPARE(a.limit(), r.limit);
        }
    }

    void vegasFromItsSuite()
    {
        // VegasLimitTest.create(): alpha 3, beta 6, smoothing 1, initial 10, max 20.
        VegasLimit::Options o;
        o.alpha = 3, o.beta = 6, o.smoothing = 1.0, o.initialLimit = 10, o.maxConcurrency = 20;
        {   // increaseLimit: the first sample sets rtt_noload = 10 ms; then queueSize =
            // ceil(10 * (1 - 10/10)) = 0 <= threshold log10Root(10) = 1: 10 + beta 6 = 16.
            VegasLimit v(o, 1);
            v.onSample(0, 10 * kMs, 10, false);
            QCOMPARE(v.limit(), 10);
            v.onSample(0, 10 * kMs, 11, false);
            QCOMPARE(v.limit(), 16);
        }
        {   // decreaseLimit: queueSize = ceil(10 * (1 - 10/50)) = 8 > beta 6: 10 - log10Root(10) = 9.
            VegasLimit v(o, 1);
            v.onSample(0, 10 * kMs, 10, false);
            v.onSample(0, 50 * kMs, 11, false);
            QCOMPARE(v.limit(), 9);
        }
        {   // noChangeIfWithinThresholds: queueSize = ceil(10 * (1 - 10/14)) = ceil(2.857) = 3:
            // not <= 1, not < alpha 3, not > beta 6: stays 10.
            VegasLimit v(o, 1);
            v.onSample(0, 10 * kMs, 10, false);
            v.onSample(0, 14 * kMs, 14, false);
            QCOMPARE(v.limit(), 10);
        }
        {   // largeLimitIncrease (default functions): initial 10000, max 20000. queueSize 0 <=
            // threshold (int) log10(10000) = 4: 10000 + beta 6 * 4 = 10024.
            VegasLimit::Options l;
            l.initialLimit = 10000, l.maxConcurrency = 20000;
            VegasLimit v(l, 1);
            v.onSample(0, 10 * kS, 5000, false);
            QCOMPARE(v.limit(), 10000);
            v.onSample(0, 10 * kS, 6000, false);
            QCOMPARE(v.limit(), 10024);
        }
    }

    void vegasHandTable()
    {
        // Default functions, initial 100, max 200, smoothing 0.5 (VegasLimitTest.decreaseSmoothing's
        // setting, with the default decrease function limit - log10Root((int) limit)).
        VegasLimit::Options o;
        o.initialLimit = 100, o.maxConcurrency = 200, o.smoothing = 0.5;
        VegasLimit v(o, 7);
        v.onSample(0, 10 * kMs, 100, false); // rtt_noload = 10 ms
        QCOMPARE(v.limit(), 100);
        // queueSize = ceil(100 * (1 - 10/20)) = 50 > beta 6 * log10Root(100) = 12:
        // decrease 100 - 2 = 98; smoothed 0.5 * 100 + 0.5 * 98 = 99.
        v.onSample(0, 20 * kMs, 100, false);
        QCOMPARE(v.limit(), 99);
        EXACT(v.estimatedLimit(), 99.0);
        // queueSize = ceil(99 * 0.5) = 50 > beta 6 * log10Root(99) = 6: 99 - 1 = 98; smoothed 98.5.
        v.onSample(0, 20 * kMs, 100, false);
        QCOMPARE(v.limit(), 98);
        EXACT(v.estimatedLimit(), 98.5);
        // App-limited: inflight 10 * 2 = 20 < 98.5: (int) 98.5 = 98, the estimate stays.
        v.onSample(0, 20 * kMs, 10, false);
        EXACT(v.estimatedLimit(), 98.5);
        // A drop decreases whatever the queue: 98.5 - log10Root(98) = 97.5; smoothed 98.
        v.onSample(0, 20 * kMs, 10, true);
        EXACT(v.estimatedLimit(), 98.0);
        QCOMPARE(v.limit(), 98);
        // rtt 0: Java throws before any change; here the sample changes nothing.
        v.onSample(0, 0, 100, false);
        EXACT(v.estimatedLimit(), 98.0);
        QCOMPARE(v.rttNoLoad(), 10 * kMs);
    }

    void vegasProbeIsSeeded()
    {
        // The probe jitter is drawn from the seed, in [0.5, 1); the same seed draws the same.
        VegasLimit::Options o;
        o.initialLimit = 10, o.probeMultiplier = 1;
        VegasLimit a(o, 42), b(o, 42), c(o, 43);
        EXACT(a.probeJitter(), b.probeJitter());
        QVERIFY(a.probeJitter() != c.probeJitter());
        QVERIFY(a.probeJitter() >= 0.5 && a.probeJitter() < 1.0);
        // shouldProbe: jitter * 1 * 10 <= probeCount. With jitter in [0.5, 1) that is sample
        // n = ceil(10 * jitter), in 5..10: before it rtt_noload is the 10 ms minimum; at it the
        // probe takes that sample's 20 ms. App-limited samples (inflight 0) leave the limit.
        const int n = int(std::ceil(10 * a.probeJitter()));
        a.onSample(0, 10 * kMs, 0, false);
        for (int k = 2; k < n; ++k) {
            a.onSample(0, 20 * kMs, 0, false);
            QCOMPARE(a.rttNoLoad(), 10 * kMs);
        }
        a.onSample(0, 20 * kMs, 0, false);
        QCOMPARE(a.rttNoLoad(), 20 * kMs);
        QCOMPARE(a.limit(), 10);
    }

    void gradient2HandTable()
    {
        // initial 10, min 1, max 100, smoothing 0.2, queue 4, tolerance 1.5, long window 600
        // (its first 10 samples average: value = sum / count).
        Gradient2Limit::Options o;
        o.initialLimit = 10, o.minLimit = 1, o.maxConcurrency = 100;
        Gradient2Limit g(o);
        // 1: rtt 10 ms, longRtt = 1e7; gradient = max(0.5, min(1, 1.5 * 1e7 / 1e7)) = 1;
        //    new = 10 * 1 + 4 = 14; smoothed 10 * 0.8 + 14 * 0.2 = 10.8.
        g.onSample(0, 10 * kMs, 10, false);
        double est = 10.0 * (1 - 0.2) + (10.0 * 1.0 + 4) * 0.2;
        EXACT(g.estimatedLimit(), est);
        QCOMPARE(g.limit(), 10);
        // 2: rtt 30 ms, longRtt = 4e7 / 2 = 2e7; gradient = 1.5 * 2e7 / 3e7 = 1.
        g.onSample(0, 30 * kMs, 10, false);
        est = est * (1 - 0.2) + (est * 1.0 + 4) * 0.2;
        EXACT(g.estimatedLimit(), est);
        QCOMPARE(g.limit(), 11); // 11.6
        // 3: rtt 90 ms, longRtt = 1.3e8 / 3; gradient = 1.5 * (1.3e8 / 3) / 9e7 = 0.722.
        g.onSample(0, 90 * kMs, 10, false);
        const double grad = std::max(0.5, std::min(1.0, 1.5 * (1.3e8 / 3) / 9e7));
        est = est * (1 - 0.2) + (est * grad + 4) * 0.2;
        EXACT(g.estimatedLimit(), est);
        QCOMPARE(g.limit(), 11); // 11.76
        // 4: rtt 1 ms, longRtt = 1.31e8 / 4 = 3.275e7; 3.275e7 / 1e6 > 2: the measurement decays
        //    to 3.275e7 * 0.95, the gradient takes the undecayed 3.275e7: min(1, 49.1) = 1.
        g.onSample(0, 1 * kMs, 10, false);
        EXACT(g.longRtt(), 3.275e7 * 0.95);
        est = est * (1 - 0.2) + (est * 1.0 + 4) * 0.2;
        EXACT(g.estimatedLimit(), est);
        QCOMPARE(g.limit(), 12); // 12.56
        // 5: app-limited (inflight 1 < 12.56 / 2): the limit stays; still warming up, the
        //    average is recomputed from the sum, so the earlier decay is lost: 1.41e8 / 5.
        g.onSample(0, 10 * kMs, 1, false);
        EXACT(g.longRtt(), 1.41e8 / 5 * 0.95); // 2.82e7 / 1e7 > 2: decays
        EXACT(g.estimatedLimit(), est);
        // 6: a drop is not read: rtt 10 ms, inflight 12 as a success would.
        g.onSample(0, 10 * kMs, 12, true);
        const double long6 = 1.51e8 / 6;
        est = est * (1 - 0.2) + (est * std::max(0.5, std::min(1.0, 1.5 * long6 / 1e7)) + 4) * 0.2;
        EXACT(g.estimatedLimit(), est);
    }

    void gradient2LongAverage()
    {
        // long window 3: after 10 warm-up samples of 10 ms, factor 2 / (3 + 1) = 0.5.
        Gradient2Limit::Options o;
        o.longWindow = 3;
        Gradient2Limit g(o);
        for (int i = 0; i < 10; ++i)
            g.onSample(0, 10 * kMs, 0, false);
        EXACT(g.longRtt(), 1e7);
        g.onSample(0, 20 * kMs, 0, false); // 1e7 * 0.5 + 2e7 * 0.5
        EXACT(g.longRtt(), 1.5e7);
        g.onSample(0, 5 * kMs, 0, false); // 1.5e7 * 0.5 + 5e6 * 0.5 = 1e7; 1e7 / 5e6 = 2, not > 2
        EXACT(g.longRtt(), 1e7);
        g.onSample(0, 1 * kMs, 0, false); // 1e7 * 0.5 + 1e6 * 0.5 = 5.5e6 > 2 * 1e6: * 0.95
        EXACT(g.longRtt(), 5.5e6 * 0.95);
        QCOMPARE(g.limit(), 20); // app-limited throughout: the default initial limit
    }

    void simpleLimiterGate()
    {
        // fixed:limit=2: admitted iff inflight < 2; a release lets the inflight fall.
        auto f = makeGate("fixed:limit=2", 1);
        QCOMPARE(offer(*f, 0, 1), V::Admit);
        QCOMPARE(offer(*f, 0, 2), V::Admit);
        QCOMPARE(offer(*f, 0, 3), V::Reject);
        QCOMPARE(f->inflight(), 2);
        release(*f, 5 * kMs, 1);
        QCOMPARE(f->inflight(), 1);
        QCOMPARE(offer(*f, 5 * kMs, 4), V::Admit);
        QCOMPARE(f->limit(), 2);
        QCOMPARE(f->queued(), 0);

        // aimd: each sample carries the inflight at its own acquire (1, 2, 3 for ids 1, 2, 3).
        auto a = makeGate("aimd:initial_limit=4,min_limit=1,max_limit=10", 1);
        for (int id = 1; id <= 3; ++id)
            QCOMPARE(offer(*a, 0, id), V::Admit);
        release(*a, 10 * kMs, 3); // inflight 3: 6 >= 4: 5
        QCOMPARE(a->limit(), 5);
        release(*a, 10 * kMs, 1); // inflight 1: 2 >= 5 no: 5
        QCOMPARE(a->limit(), 5);
        release(*a, 20 * kMs, 2, true); // dropped: (int) (5 * 0.9) = 4
        QCOMPARE(a->limit(), 4);
        QCOMPARE(a->inflight(), 0);
        release(*a, 20 * kMs, 99); // never admitted: nothing changes
        QCOMPARE(a->inflight(), 0);
        QCOMPARE(a->limit(), 4);

        // vegas: an attempt served in 0 ns is no sample; the defaults start at 20.
        auto v = makeGate("vegas", 1);
        QCOMPARE(offer(*v, kS, 1), V::Admit);
        release(*v, kS, 1);
        QCOMPARE(v->limit(), 20);
        QCOMPARE(makeGate("gradient2", 1)->limit(), 20);
        QCOMPARE(makeGate("fixed", 1)->limit(), 20);
        QCOMPARE(makeGate("envoy", 1)->limit(), 3);
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown key") << "aimd:backof=0.5"
            << "unknown key 'backof' for aimd (known: initial_limit, min_limit, max_limit, backoff_ratio, timeout)";
        QTest::newRow("backoff 1") << "aimd:backoff_ratio=1" << "aimd: backoff_ratio: must be from 0.5 to less than 1 (got 1)";
        QTest::newRow("backoff low") << "aimd:backoff_ratio=0.4" << "aimd: backoff_ratio: must be from 0.5 to 1 (got 0.4)";
        QTest::newRow("timeout 0") << "aimd:timeout=0" << "aimd: timeout: must be more than 0 s (got '0')";
        QTest::newRow("fixed 0") << "fixed:limit=0" << "fixed: limit: must be at least 1 (got 0)";
        QTest::newRow("tolerance") << "gradient2:rtt_tolerance=0.9"
            << "gradient2: rtt_tolerance: must be from 1 to 1.7976931348623157e+308 (got 0.9)";
        QTest::newRow("smoothing") << "vegas:smoothing=2" << "vegas: smoothing: must be from 0 to 1 (got 2)";
        QTest::newRow("int range") << "vegas:max_concurrency=2147483648"
            << "vegas: max_concurrency: must be at most 2147483647 (got 2147483648)";
        QTest::newRow("envoy ms") << "envoy:interval=1500us"
            << "envoy: interval: must be a whole number of milliseconds (got 0.0015 s)";
        QTest::newRow("envoy percentile") << "envoy:sample_aggregate_percentile=101"
            << "envoy: sample_aggregate_percentile: must be from 0 to 100 (got 101)";
        QTest::newRow("envoy min") << "envoy:min_concurrency=0" << "envoy: min_concurrency: must be at least 1 (got 0)";
        QTest::newRow("envoy unknown") << "envoy:window=1s"
            << "unknown key 'window' for envoy (known: concurrency_update_interval, max_concurrency_limit, "
               "sample_aggregate_percentile, interval, request_count, jitter, min_concurrency, buffer)";
    }
    void refusals()
    {
        QFETCH(QString, spec);
        QFETCH(QString, message);
        QCOMPARE(refusal(spec.toUtf8().constData()), message);
    }

};

QTEST_GUILESS_MAIN(TstConcurrencyLimits)
#include "tst_concurrency_limits.moc"
