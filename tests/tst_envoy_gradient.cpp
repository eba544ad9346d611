// Envoy's adaptive concurrency filter as a gate (envoy; semantics.md, "The server behind the
// limiter"): libcircllhist's percentile and the GradientController's windows, timers and
// limit, every expected number derived by hand from the sources cited in
// core/server/envoy_gradient.h, the derivation beside it; settings and checks taken from Envoy's
// gradient_controller_test.cc are marked as such. Time is injected: every call is handed its t.
#include "spec_helpers.h"
#include "server/envoy_gradient.h"
#include "server/gate.h"

#include <QTest>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kS = kNanosPerSecond;
using V = Gate::Verdict;

// exact checks two doubles are the same double (QCOMPARE on doubles is fuzzy).
#define EXACT(a, b) QVERIFY2((a) == (b), qPrintable(QString("%1 != %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)))

std::vector<std::int64_t> g_none;

void release(Gate& g, Nanos t, std::int64_t id)
{
    g.advance(t);
    g.release(t, id, false, g_none);
}

V offer(Gate& g, Nanos t, std::int64_t id)
{
    g.advance(t);
    return g.offer(t, id, 0);
}

} // namespace

class TstEnvoyGradient : public QObject {
    Q_OBJECT

private slots:
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

void TstEnvoyGradient::envoyHandTable()
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

void TstEnvoyGradient::envoyConsecutiveMin()
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

QTEST_GUILESS_MAIN(TstEnvoyGradient)
#include "tst_envoy_gradient.moc"
