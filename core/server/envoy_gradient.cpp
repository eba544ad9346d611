#include "server/envoy_gradient.h"

#include "arithmetic/decimal.h"
#include "arithmetic/splitmix.h"

#include <algorithm>
#include <cmath>
#include <limits>

// "gc:N" below is line N of Envoy's gradient_controller.cc at commit
// c35f67fb14e41582c2530dcdad417f2516113d0f; "ch:N" is line N of libcircllhist's src/circllhist.c
// at ea660e250875f5de8ed4cc2934c84040bfbfd86d (tag py-0.3.2).

namespace ratelab {

namespace {


// powerOfTen is circllhist.c's power_of_ten table (ch:70) for the exponents latencies reach.
double powerOfTen(std::int32_t e)
{
    return std::pow(10.0, e); // exact for 0 <= e <= 22, as the table's literals are
}

} // namespace

void CircllHist::insert(double d)
{
    // double_to_hist_bucket (ch:797-842) for a finite d >= 0, then hist_insert_raw's count (ch:918).
    std::pair<std::int32_t, std::int32_t> key{std::numeric_limits<std::int32_t>::min(), 0};
    if (d != 0) {
        std::int32_t exp = static_cast<std::int32_t>(std::floor(std::log10(d)));
        double v = d / powerOfTen(exp);
        v *= 10;
        std::int32_t val = static_cast<std::int32_t>(std::floor(v + 1e-13));
        if (val == 100) {
            val /= 10;
            ++exp;
        }
        key = {exp, val};
    }
    ++m_bins[key];
    ++m_count;
}

double CircllHist::quantile(double q) const
{
    // hist_approx_quantile (ch:664-767) for one quantile, type 1. A bin's left edge is
    // val / 10 * 10^exp (hist_bucket_to_double, ch:447), its width 10^exp / 10
    // (hist_bucket_to_double_bin_width, ch:457); the zero bin's are 0 and 0.
    const double totalCnt = static_cast<double>(m_count);
    const double qn = totalCnt * q;
    auto it = m_bins.begin();
    double lowerCnt = 0, upperCnt = static_cast<double>(it->second);
    while (std::next(it) != m_bins.end() && upperCnt < qn) {
        ++it;
        lowerCnt = upperCnt;
        upperCnt = lowerCnt + static_cast<double>(it->second);
    }
    const auto [exp, val] = it->first;
    if (val == 0)
        return 0; // the 0 bucket: its left edge
    const double bucketLeft = (static_cast<double>(val) / 10.0) * powerOfTen(exp);
    const double bucketWidth = powerOfTen(exp) / 10.0;
    const std::uint64_t n = it->second;
    if (qn == lowerCnt)
        return bucketLeft + 1.0 / static_cast<double>(n + 1) * bucketWidth;
    const double k = std::ceil(qn - lowerCnt);
    return bucketLeft + k / static_cast<double>(n + 1) * bucketWidth;
}

EnvoyGradientGate::EnvoyGradientGate(const Options& o, std::uint64_t seed)
    : m_o(o), m_random(seed), m_concurrencyLimit(o.minConcurrency)
{
    // The constructor (gc:46-76) at t = 0: into a minRTT window, the sample timer armed.
    enterMinRttWindow(0);
    enable(m_sampleTimer, 0, m_o.concurrencyUpdateInterval);
}

void EnvoyGradientGate::enable(Timer& timer, Nanos now, Nanos delay)
{
    // Event::Timer::enableTimer: (re)arms the timer to fire `delay` after now.
    timer.due = now + delay;
    timer.armed = ++m_arms;
}

void EnvoyGradientGate::advance(Nanos t)
{
    // The dispatcher runs each timer due at or before t, at its due time, earliest first; two
    // due at one instant run in the order they were armed.
    for (;;) {
        Timer* next = nullptr;
        for (Timer* timer : {&m_minRttTimer, &m_sampleTimer})
            if (timer->due >= 0 && timer->due <= t
                && (!next || timer->due < next->due || (timer->due == next->due && timer->armed < next->armed)))
                next = timer;
        if (!next)
            return;
        const Nanos now = next->due;
        next->due = -1;
        if (next == &m_minRttTimer) {
            enterMinRttWindow(now); // gc:55
        } else {
            // gc:57-71: no sample window while a minRTT window is open (the timer stays off
            // until updateMinRtt arms it again).
            if (inMinRttWindow())
                continue;
            resetSampleWindow(now);
            enable(m_sampleTimer, now, m_o.concurrencyUpdateInterval);
        }
    }
}

void EnvoyGradientGate::enterMinRttWindow(Nanos now)
{
    // enterMinRTTSamplingWindow (gc:84-108).
    if (inMinRttWindow())
        return;
    m_deferredLimit = m_concurrencyLimit;
    updateConcurrencyLimit(m_o.minConcurrency, now);
    m_hist.clear();
    m_minRttEpoch = now;
}

void EnvoyGradientGate::updateMinRtt(Nanos now)
{
    // updateMinRTT (gc:110-128).
    if (!inMinRttWindow() || m_hist.count() < m_o.requestCount)
        return;
    m_minRtt = processSamplesAndClear();
    updateConcurrencyLimit(m_deferredLimit, now);
    m_deferredLimit = 0;
    enable(m_minRttTimer, now, applyJitter(m_o.interval));
    enable(m_sampleTimer, now, m_o.concurrencyUpdateInterval);
}

Nanos EnvoyGradientGate::applyJitter(Nanos interval)
{
    // applyJitter (gc:130-138) in whole milliseconds: interval + random() % ceil(interval * jitter),
    // random() a splitmix64 draw from the scenario's seed instead of Envoy's random generator.
    const double jitterPct = m_o.jitter / 100.0;
    if (jitterPct == 0)
        return interval;
    const std::int64_t intervalMs = interval / kNanosPerMs;
    const auto rangeMs = static_cast<std::uint32_t>(std::ceil(static_cast<double>(intervalMs) * jitterPct));
    return (intervalMs + static_cast<std::int64_t>(splitmix64(m_random) % rangeMs)) * kNanosPerMs;
}

void EnvoyGradientGate::resetSampleWindow(Nanos now)
{
    // resetSampleWindow (gc:140-152).
    if (m_hist.count() == 0)
        return;
    m_sampleRtt = processSamplesAndClear();
    updateConcurrencyLimit(calculateNewLimit(), now);
}

Nanos EnvoyGradientGate::processSamplesAndClear()
{
    // processLatencySamplesAndClear (gc:154-160): the percentile (clamped to [0, 100] and
    // normalized, gradient_controller.h), truncated to whole microseconds by static_cast<int>.
    const double q = std::max(0.0, std::min(m_o.sampleAggregatePercentile, 100.0)) / 100.0;
    const double us = m_hist.quantile(q);
    m_hist.clear();
    // static_cast<int> past INT_MAX (a latency over 35 minutes) is undefined in C++: saturate.
    const double capped = std::min(us, 2147483647.0);
    return static_cast<Nanos>(static_cast<int>(capped)) * 1000;
}

std::uint32_t EnvoyGradientGate::calculateNewLimit() const
{
    // calculateNewLimit (gc:162-185). min_rtt_ and sample_rtt_ are std::chrono::nanoseconds.
    const double bufferPct = std::max(0.0, std::min(m_o.buffer, 100.0)) / 100.0;
    const auto bufferedMinRtt = static_cast<double>(m_minRtt) + static_cast<double>(m_minRtt) * bufferPct;
    const double rawGradient = static_cast<double>(bufferedMinRtt) / static_cast<double>(m_sampleRtt);
    const double gradient = std::max<double>(0.5, std::min<double>(2.0, rawGradient));
    const double limit = m_concurrencyLimit * gradient;
    const double burstHeadroom = std::sqrt(limit);
    const auto newLimit = static_cast<std::uint32_t>(limit + burstHeadroom);
    return std::max<std::uint32_t>(m_o.minConcurrency, std::min<std::uint32_t>(m_o.maxConcurrencyLimit, newLimit));
}

void EnvoyGradientGate::updateConcurrencyLimit(std::uint32_t newLimit, Nanos now)
{
    // updateConcurrencyLimit (gc:228-252). The fifth consecutive window at min_concurrency
    // (outside a minRTT window) arms the minRTT timer for 0 ms: it runs at the next advance.
    const std::uint32_t oldLimit = m_concurrencyLimit;
    m_concurrencyLimit = newLimit;
    if (!inMinRttWindow() && oldLimit == m_o.minConcurrency && newLimit == m_o.minConcurrency)
        ++m_consecutiveMin;
    else
        m_consecutiveMin = 0;
    if (m_consecutiveMin >= 5)
        enable(m_minRttTimer, now, 0);
}

Gate::Verdict EnvoyGradientGate::offer(Nanos t, std::int64_t id, std::int64_t)
{
    // forwardingDecision (gc:187-200); a Block is the filter's local 503.
    if (m_outstanding >= m_concurrencyLimit)
        return Verdict::Reject;
    ++m_outstanding;
    m_sent[id] = t;
    return Verdict::Admit;
}

void EnvoyGradientGate::release(Nanos t, std::int64_t id, bool, std::vector<std::int64_t>&)
{
    // The filter samples every request whose response it encoded, a 503 from the server's full
    // queue or its queue timeout included (adaptive_concurrency_filter.cc: encodeComplete runs
    // the deferred recordLatencySample); cancelLatencySample is only for a reset stream.
    const auto it = m_sent.find(id);
    if (it == m_sent.end())
        return;
    const Nanos sent = it->second;
    m_sent.erase(it);
    // recordLatencySample (gc:202-220): latency in whole microseconds (duration_cast truncates).
    --m_outstanding;
    if (sent < m_minRttEpoch)
        return;
    const std::int64_t latencyUs = (t - sent) / 1000;
    m_hist.insert(static_cast<double>(latencyUs));
    updateMinRtt(t);
}

GateRecipe readEnvoyGate(GateOptions& o)
{
    EnvoyGradientGate::Options e;
    constexpr std::int64_t kUint32Max = std::numeric_limits<std::uint32_t>::max();
    // Envoy reads both durations in whole milliseconds (DurationUtil::durationToMilliseconds,
    // gc:30-33): a duration with a part of a millisecond is refused rather than cut.
    const auto millis = [&](std::string_view key, Nanos fallback) {
        const Nanos d = o.duration(key, fallback, true);
        if (d % kNanosPerMs != 0)
            throw InputError("envoy: " + std::string(key) + ": must be a whole number of milliseconds (got "
                             + formatSeconds(d) + " s)");
        return d;
    };
    e.concurrencyUpdateInterval = millis("concurrency_update_interval", e.concurrencyUpdateInterval);
    e.maxConcurrencyLimit = static_cast<std::uint32_t>(o.integer("max_concurrency_limit", e.maxConcurrencyLimit, 1, kUint32Max));
    e.sampleAggregatePercentile = o.real("sample_aggregate_percentile", e.sampleAggregatePercentile, 0, 100);
    e.interval = millis("interval", e.interval);
    e.requestCount = static_cast<std::uint32_t>(o.integer("request_count", e.requestCount, 1, kUint32Max));
    e.jitter = o.real("jitter", e.jitter, 0, 100);
    e.minConcurrency = static_cast<std::uint32_t>(o.integer("min_concurrency", e.minConcurrency, 1, kUint32Max));
    e.buffer = o.real("buffer", e.buffer, 0, 100);
    o.done();
    return {[e](std::uint64_t seed) -> std::unique_ptr<Gate> { return std::make_unique<EnvoyGradientGate>(e, seed); }};
}

} // namespace ratelab
