// Envoy's adaptive concurrency filter as a gate: its GradientController, transcribed
// from github.com/envoyproxy/envoy, source/extensions/filters/http/adaptive_concurrency/
// controller/gradient_controller.cc at commit c35f67fb14e41582c2530dcdad417f2516113d0f (the
// newest version of the file this project could read; its header gradient_controller.h read at
// 6e06b0df8f7543ff7ed6f9f8203a547086511eee), and its percentile, libcircllhist's
// hist_approx_quantile (github.com/openhistogram/libcircllhist, src/circllhist.c at tag py-0.3.2,
// commit ea660e250875f5de8ed4cc2934c84040bfbfd86d, the version Envoy's bazel registry pins).
#pragma once

#include "arithmetic/nanos.h"
#include "server/gate.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

namespace ratelab {

// CircllHist is the part of libcircllhist's log-linear histogram Envoy uses: hist_insert of a
// value, hist_sample_count, hist_approx_quantile and hist_clear. A value v > 0 falls in the bin of
// its two leading decimal digits, [d.d * 10^e, (d.d + 0.1) * 10^e) (double_to_hist_bucket,
// circllhist.c:797); 0 has a bin of width 0 of its own, below every other.
class CircllHist {
public:
    void insert(double value);
    std::uint64_t count() const { return m_count; }
    void clear()
    {
        m_bins.clear();
        m_count = 0;
    }
    // quantile returns hist_approx_quantile's type-1 estimate for q in [0, 1] (circllhist.c:664)
    // of a histogram holding at least one value.
    double quantile(double q) const;

private:
    // A bin's key: (exponent, two leading digits); the zero bin is (INT32_MIN, 0) so it sorts first
    // as hist_bucket_cmp (circllhist.c:424) puts it.
    std::map<std::pair<std::int32_t, std::int32_t>, std::uint64_t> m_bins;
    std::uint64_t m_count = 0;
};

// EnvoyGradientGate is GradientController: every concurrency_update_interval the limit becomes
// limit * gradient + sqrt(limit * gradient), gradient = clamp(minRTT * (1 + buffer) / sampleRTT,
// 0.5, 2), sampleRTT the sample_aggregate_percentile of the interval's latencies; every interval
// (plus jitter) the limit is pinned to min_concurrency until request_count latencies give a new
// minRTT. Its two timers run in advance(t); it is built at t = 0.
class EnvoyGradientGate final : public Gate {
public:
    struct Options {
        Nanos concurrencyUpdateInterval = 100'000'000; // concurrency_limit_params (required in the proto)
        std::uint32_t maxConcurrencyLimit = 1000;      // gradient_controller.cc:36-37
        double sampleAggregatePercentile = 50;         // :40-41, percent
        Nanos interval = 60 * kNanosPerSecond;         // min_rtt_calc_params.interval (no default in Envoy)
        std::uint32_t requestCount = 50;               // :38-39
        double jitter = 15;                            // :34-35, percent
        std::uint32_t minConcurrency = 3;              // :42-43
        double buffer = 25;                            // :44-45, percent
    };
    // The gate draws its minRTT jitter from `seed` (splitmix64; Envoy draws random_.random()).
    EnvoyGradientGate(const Options& o, std::uint64_t seed);

    void advance(Nanos t) override;
    Verdict offer(Nanos t, std::int64_t id, std::int64_t client) override;
    void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) override;
    std::int64_t limit() const override { return m_concurrencyLimit; }
    std::int64_t inflight() const override { return m_outstanding; }

    // What tests read: the minRTT and the last sampleRTT (ns, whole microseconds), whether a minRTT
    // window is open, and when each timer fires next (-1: disarmed).
    Nanos minRtt() const { return m_minRtt; }
    Nanos sampleRtt() const { return m_sampleRtt; }
    bool inMinRttWindow() const { return m_deferredLimit > 0; }
    Nanos minRttTimer() const { return m_minRttTimer.due; }
    Nanos sampleTimer() const { return m_sampleTimer.due; }

private:
    struct Timer {
        Nanos due = -1;
        std::uint64_t armed = 0; // the order timers due at one instant fire in
    };
    void enable(Timer& timer, Nanos now, Nanos delay);
    void enterMinRttWindow(Nanos now);
    void updateMinRtt(Nanos now);
    void resetSampleWindow(Nanos now);
    Nanos processSamplesAndClear();
    std::uint32_t calculateNewLimit() const;
    void updateConcurrencyLimit(std::uint32_t newLimit, Nanos now);
    Nanos applyJitter(Nanos interval);

    Options m_o;
    std::uint64_t m_random;
    std::uint32_t m_deferredLimit = 0;
    std::uint32_t m_outstanding = 0;
    std::uint32_t m_concurrencyLimit;
    std::uint32_t m_consecutiveMin = 0;
    Nanos m_minRtt = 0, m_sampleRtt = 0, m_minRttEpoch = 0;
    CircllHist m_hist;
    Timer m_minRttTimer, m_sampleTimer;
    std::uint64_t m_arms = 0;
    std::unordered_map<std::int64_t, Nanos> m_sent;
};

// readEnvoyGate is the reader of the kind envoy (gate.cpp's table).
GateRecipe readEnvoyGate(GateOptions& o);

} // namespace ratelab
