// Netflix concurrency-limits (fixed, aimd, vegas, gradient2) and Envoy's adaptive concurrency
// (envoy) as gates (semantics.md, "The server behind the limiter"; issue 33). Every expected
// number is derived by hand from the source's formulas (cited in core/server/netflix_limits.h and
// envoy_gradient.h), the derivation beside it; sequences from the products' own suites
// (AIMDLimitTest, VegasLimitTest, Envoy's gradient_controller_test.cc) are marked as such.
// Time is injected: every call is handed its t.
#include "server/envoy_gradient.h"
#include "server/gate.h"
#include "server/netflix_limits.h"
#include "arithmetic/decimal.h"

#include <QTest>

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

    void circllhistQuantile()
    {
        // hist_approx_quantile, type 1: bins of two leading digits; q * total falls in a bin of n
        // with lower count L: left + ceil(qn - L) / (n + 1) * width.
        CircllHist h;
        for (int ms = 1; ms <= 5; ++ms)
            h.insert(ms * 1000.0); // bins [1000, 1100) ... [5000, 5100), one each
        // Envoy's CancelLatencySample: qn = 2.5 lands in [3000, 3100) (L = 2): 3000 + 1/2 * 100.
        EXACT(h.quantile(0.5), 3050.0);
        // q = 1: qn = 5 in the last bin, k = 1: 5000 + 1/2 * 100.
        EXACT(h.quantile(1.0), 5050.0);
        // q = 0: qn = 0 = L of the first bin: 1000 + 1/2 * 100.
        EXACT(h.quantile(0.0), 1050.0);
        h.clear();
        h.insert(0);
        h.insert(12345); // bin [12000, 13000)
        EXACT(h.quantile(0.5), 0.0); // qn = 1 in the zero bin: its left edge
        EXACT(h.quantile(0.75), 12000.0 + 1.0 / 2 * 1000); // qn = 1.5, L = 1, k = 1
        h.insert(99); // [99, 100)
        h.insert(9); // [9, 9.1)
        QCOMPARE(h.count(), std::uint64_t(4));
        EXACT(h.quantile(0.5), 9.0 + 1.0 / 2 * 0.1); // qn = 2 in [9, 9.1) (L = 1): k = 1
    }

    void envoyHandTable();
    void envoyConsecutiveMin();
};

void TstConcurrencyLimits::envoyHandTable()
{
    // Envoy's MinRTTBufferTest settings: update 100 ms, interval 30 s, request_count 5, jitter 0,
    // buffer 50 %, min_concurrency 3; the times are this table's own.
    auto g = makeGate("envoy:concurrency_update_interval=100ms,interval=30s,request_count=5,jitter=0,buffer=50", 1);
    auto& e = dynamic_cast<EnvoyGradientGate&>(*g);
    // Built at 0 inside a minRTT window: limit pinned to min_concurrency 3, sample timer at 100 ms.
    QVERIFY(e.inMinRttWindow());
    QCOMPARE(e.limit(), 3);
    QCOMPARE(e.sampleTimer(), 100 * kMs);
    for (int id = 1; id <= 3; ++id)
        QCOMPARE(offer(e, 0, id), V::Admit);
    QCOMPARE(offer(e, 0, 4), V::Reject); // 3 outstanding, not < 3
    for (int id = 1; id <= 3; ++id)
        release(e, 5 * kMs, id); // 5000 us each; 3 < request_count 5
    QCOMPARE(offer(e, 5 * kMs, 5), V::Admit);
    QCOMPARE(offer(e, 5 * kMs, 6), V::Admit);
    release(e, 10 * kMs, 5);
    QVERIFY(e.inMinRttWindow());
    release(e, 10 * kMs, 6);
    // The fifth sample: five in [5000, 5100), qn = 2.5, k = 3: 5000 + 3/6 * 100 = 5050 us. The
    // limit returns to the deferred 3; the minRTT timer at 10 ms + 30 s, the sample timer at 110 ms.
    QVERIFY(!e.inMinRttWindow());
    QCOMPARE(e.minRtt(), 5'050'000);
    QCOMPARE(e.limit(), 3);
    QCOMPARE(e.minRttTimer(), 10 * kMs + 30 * kS);
    QCOMPARE(e.sampleTimer(), 110 * kMs);
    e.advance(100 * kMs); // the timer armed at 0 for 100 ms was re-armed: nothing runs
    QCOMPARE(e.limit(), 3);

    // Window to 110 ms: three of 6000 us, qn = 1.5, k = 2: 6000 + 2/4 * 100 = 6050 us.
    // gradient = (5050000 + 5050000 * 0.5) / 6050000 = 1.2520661; 3 * 1.2520661 = 3.7562,
    // + sqrt = 1.9381: 5.694, truncated 5.
    for (int id = 7; id <= 9; ++id)
        QCOMPARE(offer(e, 20 * kMs, id), V::Admit);
    for (int id = 7; id <= 9; ++id)
        release(e, 26 * kMs, id);
    e.advance(110 * kMs);
    QCOMPARE(e.sampleRtt(), 6'050'000);
    QCOMPARE(e.limit(), 5);
    QCOMPARE(e.sampleTimer(), 210 * kMs);

    // Window to 210 ms: five of 6000 us, qn = 2.5, k = 3: 6050 us again; 5 * 1.2520661 = 6.2603,
    // + 2.5021 = 8.762: 8. A sixth offer meets the limit 5.
    for (int id = 10; id <= 14; ++id)
        QCOMPARE(offer(e, 120 * kMs, id), V::Admit);
    QCOMPARE(offer(e, 120 * kMs, 15), V::Reject);
    for (int id = 10; id <= 14; ++id)
        release(e, 126 * kMs, id);
    e.advance(210 * kMs);
    QCOMPARE(e.limit(), 8);

    // Window to 310 ms holds no sample: the limit stays (NoSamplesTest).
    e.advance(310 * kMs);
    QCOMPARE(e.limit(), 8);

    // Window to 410 ms: eight of 20000 us in [20000, 21000), qn = 4, k = 4:
    // 20000 + 4/9 * 1000 = 20444.4, (int) 20444 us. gradient 7575000 / 20444000 = 0.37, clamped
    // 0.5: 8 * 0.5 = 4, + sqrt(4) = 6.
    for (int id = 20; id < 28; ++id)
        QCOMPARE(offer(e, 320 * kMs, id), V::Admit);
    for (int id = 20; id < 28; ++id)
        release(e, 340 * kMs, id);
    e.advance(410 * kMs);
    QCOMPARE(e.sampleRtt(), 20'444'000);
    QCOMPARE(e.limit(), 6);

    // At 30.010 s both timers are due (the sample timer every 100 ms from 110 ms): the minRTT
    // timer, armed first, opens the window (limit 3, 6 deferred), then the sample timer finds the
    // window open and stays off. Attempt 30, admitted at 29.990 s, is from the old epoch.
    QCOMPARE(offer(e, 29990 * kMs, 30), V::Admit);
    e.advance(30010 * kMs);
    QVERIFY(e.inMinRttWindow());
    QCOMPARE(e.limit(), 3);
    QCOMPARE(e.sampleTimer(), Nanos(-1));
    QCOMPARE(offer(e, 30020 * kMs, 31), V::Admit);
    QCOMPARE(offer(e, 30020 * kMs, 32), V::Admit);
    QCOMPARE(offer(e, 30020 * kMs, 33), V::Reject); // 30, 31, 32 outstanding
    release(e, 30033 * kMs, 31);
    release(e, 30033 * kMs, 32);
    release(e, 30035 * kMs, 30); // not sampled (MinRTTEpoch), only the outstanding count falls
    QCOMPARE(e.inflight(), 0);
    for (int id = 34; id <= 36; ++id)
        QCOMPARE(offer(e, 30035 * kMs, id), V::Admit);
    for (int id = 34; id <= 36; ++id)
        release(e, 30048 * kMs, id);
    // Five of 13000 us in [13000, 14000): 13000 + 3/6 * 1000 = 13500 us; the limit back to 6.
    QVERIFY(!e.inMinRttWindow());
    QCOMPARE(e.minRtt(), 13'500'000);
    QCOMPARE(e.limit(), 6);
    QCOMPARE(e.minRttTimer(), 60048 * kMs);
    QCOMPARE(e.sampleTimer(), 30148 * kMs);
}

void TstConcurrencyLimits::envoyConsecutiveMin()
{
    // request_count 1, buffer 0, jitter 0, interval 10 s: one sample of 1000 us gives minRTT
    // 1000 + 1/2 * 100 = 1050 us. Then each 100 ms window one sample of 10000 us (10500 us):
    // gradient 1050/10500 = 0.1, clamped 0.5: 3 * 0.5 = 1.5 + 1.22 = 2.72, 2, raised to 3. The
    // fifth window in a row setting 3 over 3 arms the minRTT timer for 0 ms (updateConcurrencyLimit).
    auto g = makeGate("envoy:interval=10s,request_count=1,jitter=0,buffer=0", 1);
    auto& e = dynamic_cast<EnvoyGradientGate&>(*g);
    QCOMPARE(offer(e, 0, 1), V::Admit);
    release(e, 1 * kMs, 1);
    QCOMPARE(e.minRtt(), 1'050'000);
    QCOMPARE(e.sampleTimer(), 101 * kMs);
    for (int w = 0; w < 5; ++w) {
        const Nanos start = (w * 100 + 10) * kMs;
        QCOMPARE(offer(e, start, 10 + w), V::Admit);
        release(e, start + 10 * kMs, 10 + w);
        e.advance((w * 100 + 101) * kMs - 1);
        QVERIFY(!e.inMinRttWindow());
    }
    // The fifth window closes at 501 ms and opens a minRTT window at that instant.
    e.advance(501 * kMs);
    QCOMPARE(e.sampleRtt(), 10'500'000);
    QVERIFY(e.inMinRttWindow());
    QCOMPARE(e.limit(), 3);
    // The sample timer re-armed itself after its window (gc:70) before the minRTT timer ran; at
    // 601 ms it finds the window open and stays off.
    QCOMPARE(e.sampleTimer(), 601 * kMs);
    e.advance(601 * kMs);
    QCOMPARE(e.sampleTimer(), Nanos(-1));
    QVERIFY(e.inMinRttWindow());
}

QTEST_GUILESS_MAIN(TstConcurrencyLimits)
#include "tst_concurrency_limits.moc"
