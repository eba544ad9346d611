// Netflix concurrency-limits as gates: SimpleLimiter with FixedLimit, AIMDLimit,
// VegasLimit or Gradient2Limit, transcribed from github.com/Netflix/concurrency-limits at commit
// 78a74b9878d38c4c048b0304ce12a162ab7b7222 (2026-01-12), concurrency-limits-core/src/main/java/
// com/netflix/concurrency/limits/ (below: limit/X.java, limiter/X.java).
//
// Java computes in int and double; these classes keep its types and its order of operations, so
// a limit here is the limit Java reaches on the same samples. Java's (int) of a double (NaN -> 0,
// saturating) and Math.min/Math.max (NaN wins) are transcribed, not C++'s.
#pragma once

#include "arithmetic/nanos.h"
#include "server/gate.h"
#include "server/id_ring.h"

#include <cstdint>
#include <memory>

namespace ratelab {

// NetflixLimit is one of the library's Limit classes: AbstractLimit.onSample (limit/
// AbstractLimit.java:33) sets the limit _update returns.
class NetflixLimit {
public:
    virtual ~NetflixLimit() = default;
    // onSample takes one sample as AbstractLimit.onSample does: rtt in ns, the inflight count when
    // the sampled call was acquired, and whether it was dropped.
    void onSample(Nanos startTime, Nanos rtt, std::int32_t inflight, bool didDrop)
    {
        m_limit = update(startTime, rtt, inflight, didDrop);
    }
    // limit returns the limit after the last sample (AbstractLimit.getLimit).
    std::int32_t limit() const { return m_limit; }

protected:
    explicit NetflixLimit(std::int32_t initialLimit) : m_limit(initialLimit) {}
    virtual std::int32_t update(Nanos startTime, Nanos rtt, std::int32_t inflight, bool didDrop) = 0;

private:
    std::int32_t m_limit;
};

// FixedLimit never changes (limit/FixedLimit.java:32).
class FixedLimit final : public NetflixLimit {
public:
    explicit FixedLimit(std::int32_t limit) : NetflixLimit(limit) {}

private:
    std::int32_t update(Nanos, Nanos, std::int32_t, bool) override { return limit(); }
};

// AimdLimit is AIMDLimit (limit/AIMDLimit.java:102-112): a drop or an rtt over the timeout
// multiplies the limit by backoff_ratio (truncated to int); a sample with inflight * 2 >= limit
// adds 1; the result is clamped to [min_limit, max_limit].
class AimdLimit final : public NetflixLimit {
public:
    struct Options {
        std::int32_t initialLimit = 20, minLimit = 20, maxLimit = 200; // AIMDLimit.java:34-36
        double backoffRatio = 0.9;                                     // :37, [0.5, 1.0) at :56
        Nanos timeout = 5 * kNanosPerSecond;                           // :30, > 0 at :68
    };
    explicit AimdLimit(const Options& o) : NetflixLimit(o.initialLimit), m_o(o) {}

private:
    std::int32_t update(Nanos startTime, Nanos rtt, std::int32_t inflight, bool didDrop) override;
    Options m_o;
};

// VegasLimit is VegasLimit (limit/VegasLimit.java:249-321): a queue estimate
// ceil(limit * (1 - rtt_noload / rtt)) against log10-scaled alpha, beta and threshold, with a
// probe that resets rtt_noload every jitter * probe_multiplier * limit samples.
class VegasLimit final : public NetflixLimit {
public:
    struct Options {
        std::int32_t initialLimit = 20;   // VegasLimit.java:48
        std::int32_t maxConcurrency = 1000; // :49
        double smoothing = 1.0;           // :51
        std::int32_t probeMultiplier = 30; // :58
        std::int32_t alpha = -1;          // fixed alpha (Builder.alpha(int), :74); -1: 3 * log10(limit)
        std::int32_t beta = -1;           // fixed beta (:107); -1: 6 * log10(limit)
    };
    // VegasLimit draws its probe jitter from `seed` (see resetProbeJitter in the .cpp).
    VegasLimit(const Options& o, std::uint64_t seed);
    double estimatedLimit() const { return m_estimatedLimit; }
    Nanos rttNoLoad() const { return m_rttNoLoad; }
    double probeJitter() const { return m_probeJitter; }

private:
    std::int32_t update(Nanos startTime, Nanos rtt, std::int32_t inflight, bool didDrop) override;
    std::int32_t updateEstimatedLimit(Nanos rtt, Nanos rttNoLoad, std::int32_t inflight, bool didDrop);
    void resetProbeJitter();
    Options m_o;
    std::uint64_t m_random;
    double m_estimatedLimit;
    Nanos m_rttNoLoad = 0;
    std::int32_t m_probeCount = 0;
    double m_probeJitter = 0;
};

// Gradient2Limit is Gradient2Limit (limit/Gradient2Limit.java:278-323): the limit follows
// gradient = clamp(rtt_tolerance * longRtt / shortRtt, 0.5, 1) plus queue_size, smoothed; longRtt
// is an exponential average over long_window samples (measurement/ExpAvgMeasurement.java).
class Gradient2Limit final : public NetflixLimit {
public:
    struct Options {
        std::int32_t initialLimit = 20, minLimit = 20, maxConcurrency = 200; // Gradient2Limit.java:75-77
        double smoothing = 0.2;                                              // :79
        std::int32_t queueSize = 4;                                          // :80
        std::int32_t longWindow = 600;                                       // :82
        double rttTolerance = 1.5;                                           // :83, >= 1.0 at :159
    };
    explicit Gradient2Limit(const Options& o);
    double estimatedLimit() const { return m_estimatedLimit; }
    double longRtt() const { return m_longValue; }

private:
    std::int32_t update(Nanos startTime, Nanos rtt, std::int32_t inflight, bool didDrop) override;
    Options m_o;
    double m_estimatedLimit;
    // ExpAvgMeasurement(longWindow, 10) (Gradient2Limit.java:270): value, sum, count.
    double m_longValue = 0, m_longSum = 0;
    std::int32_t m_longCount = 0;
};

// SimpleLimiterGate is SimpleLimiter (limiter/SimpleLimiter.java) over one limit: an attempt is
// admitted iff inflight < limit (its semaphore holds limit - inflight permits, :47, :66-76);
// leaving, it gives the limit onSample(start, now - start, inflight at its acquire, dropped) as
// AbstractLimiter's listener does (limiter/AbstractLimiter.java:159-185): onSuccess when
// served, onDropped when dropped. It never queues.
class SimpleLimiterGate final : public Gate {
public:
    explicit SimpleLimiterGate(std::unique_ptr<NetflixLimit> limit) : m_limit(std::move(limit)) {}
    Verdict offer(Nanos t, std::int64_t id, std::int64_t client) override;
    void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) override;
    std::int64_t limit() const override { return m_limit->limit(); }
    std::int64_t inflight() const override { return m_inflight; }
    const NetflixLimit& algorithm() const { return *m_limit; }

private:
    struct Acquired {
        Nanos start = 0;
        std::int32_t inflight = 0;
        bool held = false; // admitted and not yet released
    };
    std::unique_ptr<NetflixLimit> m_limit;
    // m_acquired: by id (offered in increasing order), from the oldest still held
    IdRing<Acquired> m_acquired;
    std::int32_t m_inflight = 0;
};

// The readers of the kinds fixed, aimd, vegas and gradient2 (gate.cpp's table).
GateRecipe readFixedGate(GateOptions& o);
GateRecipe readAimdGate(GateOptions& o);
GateRecipe readVegasGate(GateOptions& o);
GateRecipe readGradient2Gate(GateOptions& o);

} // namespace ratelab
