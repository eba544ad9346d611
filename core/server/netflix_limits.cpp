#include "server/netflix_limits.h"

#include "arithmetic/decimal.h"
#include "arithmetic/splitmix.h"

#include <cmath>
#include <limits>

// Lines cited below are of github.com/Netflix/concurrency-limits at commit
// 78a74b9878d38c4c048b0304ce12a162ab7b7222, under
// concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/.

namespace ratelab {

namespace {

constexpr std::int32_t kIntMax = std::numeric_limits<std::int32_t>::max();

// javaInt is Java's (int) of a double (JLS 5.1.3): NaN is 0, out of range saturates, else truncates.
std::int32_t javaInt(double d)
{
    if (std::isnan(d))
        return 0;
    if (d >= 2147483647.0)
        return kIntMax;
    if (d <= -2147483648.0)
        return std::numeric_limits<std::int32_t>::min();
    return static_cast<std::int32_t>(d);
}

// javaAdd and javaMul are Java's int + and *: they wrap at 32 bits.
std::int32_t javaAdd(std::int32_t a, std::int32_t b)
{
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
std::int32_t javaMul(std::int32_t a, std::int32_t b)
{
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) * static_cast<std::uint32_t>(b));
}

// javaMax and javaMin are Math.max(double, double) and Math.min: a NaN argument is the result,
// and -0.0 is less than 0.0.
double javaMax(double a, double b)
{
    if (std::isnan(a))
        return a;
    if (a == 0.0 && b == 0.0 && std::signbit(a))
        return b;
    return a >= b ? a : b;
}
double javaMin(double a, double b)
{
    if (std::isnan(a))
        return a;
    if (a == 0.0 && b == 0.0 && std::signbit(b))
        return b;
    return a <= b ? a : b;
}

// log10Root is Log10RootIntFunction.create(0) (limit/functions/Log10RootIntFunction.java:13-36):
// max(1, (int) log10(t)) from its table below 1000, (int) log10(t) above.
std::int32_t log10Root(std::int32_t t)
{
    const std::int32_t v = javaInt(std::log10(static_cast<double>(t)));
    return t < 1000 ? std::max<std::int32_t>(1, v) : v;
}

} // namespace

std::int32_t AimdLimit::update(Nanos, Nanos rtt, std::int32_t inflight, bool didDrop)
{
    // AIMDLimit.java:102-112, in its order.
    std::int32_t currentLimit = limit();
    if (didDrop || rtt > m_o.timeout)
        currentLimit = javaInt(currentLimit * m_o.backoffRatio);
    else if (javaMul(inflight, 2) >= currentLimit)
        currentLimit = javaAdd(currentLimit, 1);
    return std::min(m_o.maxLimit, std::max(m_o.minLimit, currentLimit));
}

VegasLimit::VegasLimit(const Options& o, std::uint64_t seed)
    : NetflixLimit(o.initialLimit), m_o(o), m_random(seed), m_estimatedLimit(o.initialLimit)
{
    resetProbeJitter(); // VegasLimit.java:235
}

// resetProbeJitter draws probeJitter in [0.5, 1) as ThreadLocalRandom.nextDouble(0.5, 1) does
// (VegasLimit.java:241: r * (bound - origin) + origin from a 53-bit r in [0, 1)), but from a
// splitmix64 sequence seeded with the scenario's seed instead of the thread's random source, so
// a run is the same every time.
void VegasLimit::resetProbeJitter()
{
    const double r = static_cast<double>(splitmix64(m_random) >> 11) * 0x1.0p-53;
    m_probeJitter = r * (1.0 - 0.5) + 0.5;
    if (m_probeJitter >= 1.0)
        m_probeJitter = std::nextafter(1.0, 0.0);
}

std::int32_t VegasLimit::update(Nanos, Nanos rtt, std::int32_t inflight, bool didDrop)
{
    // VegasLimit.java:250-252 throws IllegalArgumentException for rtt <= 0, before any state
    // changes, so the limit stays; a simulated attempt served in 0 ns leaves Vegas as it was.
    if (rtt <= 0)
        return limit();

    ++m_probeCount; // :254
    // shouldProbe (:244-246): probeJitter * probeMultiplier * estimatedLimit <= probeCount
    if (m_probeJitter * m_o.probeMultiplier * m_estimatedLimit <= m_probeCount) {
        resetProbeJitter();
        m_probeCount = 0;
        m_rttNoLoad = rtt;
        return javaInt(m_estimatedLimit); // :255-263
    }
    const Nanos rttNoLoad = m_rttNoLoad;
    if (rttNoLoad == 0 || rtt < rttNoLoad) { // :265-272
        m_rttNoLoad = rtt;
        return javaInt(m_estimatedLimit);
    }
    return updateEstimatedLimit(rtt, rttNoLoad, inflight, didDrop);
}

std::int32_t VegasLimit::updateEstimatedLimit(Nanos rtt, Nanos rttNoLoad, std::int32_t inflight, bool didDrop)
{
    // VegasLimit.java:279-321. The default functions (:53-57): alpha 3 * log10(limit), beta
    // 6 * log10(limit), threshold log10(limit), increase limit + log10((int) limit), decrease
    // limit - log10((int) limit).
    const double estimatedLimit = m_estimatedLimit;
    const std::int32_t queueSize = javaInt(std::ceil(estimatedLimit * (1 - static_cast<double>(rttNoLoad) / static_cast<double>(rtt))));
    const std::int32_t asInt = javaInt(estimatedLimit);
    double newLimit;
    if (didDrop) {
        newLimit = estimatedLimit - log10Root(javaInt(estimatedLimit));
    } else if (javaMul(inflight, 2) < estimatedLimit) {
        return asInt;
    } else {
        const std::int32_t alpha = m_o.alpha >= 0 ? m_o.alpha : javaMul(3, log10Root(asInt));
        const std::int32_t beta = m_o.beta >= 0 ? m_o.beta : javaMul(6, log10Root(asInt));
        const std::int32_t threshold = log10Root(asInt);
        if (queueSize <= threshold)
            newLimit = estimatedLimit + beta;
        else if (queueSize < alpha)
            newLimit = estimatedLimit + log10Root(javaInt(estimatedLimit));
        else if (queueSize > beta)
            newLimit = estimatedLimit - log10Root(javaInt(estimatedLimit));
        else
            return asInt;
    }
    newLimit = javaMax(1, javaMin(m_o.maxConcurrency, newLimit));
    newLimit = (1 - m_o.smoothing) * estimatedLimit + m_o.smoothing * newLimit;
    m_estimatedLimit = newLimit;
    return javaInt(newLimit);
}

Gradient2Limit::Gradient2Limit(const Options& o) : NetflixLimit(o.initialLimit), m_o(o), m_estimatedLimit(o.initialLimit) {}

std::int32_t Gradient2Limit::update(Nanos, Nanos rtt, std::int32_t inflight, bool)
{
    // Gradient2Limit.java:278-323 (it does not read didDrop).
    const double estimatedLimit = m_estimatedLimit;
    const double queueSize = m_o.queueSize; // the default queueSize function, concurrency -> 4 (:80)

    const double shortRtt = static_cast<double>(rtt);
    // ExpAvgMeasurement.add (measurement/ExpAvgMeasurement.java:35-45), warm-up window 10.
    if (m_longCount < 10) {
        ++m_longCount;
        m_longSum += static_cast<double>(rtt);
        m_longValue = m_longSum / m_longCount;
    } else {
        const double factor = 2.0 / (m_o.longWindow + 1);
        m_longValue = m_longValue * (1 - factor) + static_cast<double>(rtt) * factor;
    }
    const double longRtt = m_longValue;

    // :293-295: the measurement decays; the local longRtt used below keeps the value before it.
    if (longRtt / shortRtt > 2)
        m_longValue = m_longValue * 0.95;

    if (inflight < estimatedLimit / 2) // :298-300
        return javaInt(estimatedLimit);

    const double gradient = javaMax(0.5, javaMin(1.0, m_o.rttTolerance * longRtt / shortRtt));
    double newLimit = estimatedLimit * gradient + queueSize;
    newLimit = estimatedLimit * (1 - m_o.smoothing) + newLimit * m_o.smoothing;
    newLimit = javaMax(m_o.minLimit, javaMin(m_o.maxConcurrency, newLimit));
    m_estimatedLimit = newLimit;
    return javaInt(newLimit);
}

Gate::Verdict SimpleLimiterGate::offer(Nanos t, std::int64_t id, std::int64_t)
{
    // SimpleLimiter.acquire (:51-64): semaphore.tryAcquire() succeeds iff limit - inflight > 0;
    // createListener (AbstractLimiter.java:159-161) keeps the start time and the inflight count
    // after this acquire.
    if (m_inflight >= m_limit->limit())
        return Verdict::Reject;
    ++m_inflight;
    m_acquired.push_back(id, Acquired{t, m_inflight, true});
    return Verdict::Admit;
}

void SimpleLimiterGate::release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>&)
{
    if (!m_acquired.holds(id) || !m_acquired[id].held)
        return;
    const Acquired a = m_acquired[id];
    m_acquired[id].held = false;
    m_acquired.dropFront([](const Acquired& x) { return !x.held; });
    // onSuccess / onDropped (AbstractLimiter.java:164-183): inflight falls, then the sample.
    --m_inflight;
    m_limit->onSample(a.start, t - a.start, a.inflight, dropped);
}

namespace {

std::int32_t intOption(GateOptions& o, std::string_view key, std::int32_t fallback, std::int32_t min)
{
    return static_cast<std::int32_t>(o.integer(key, fallback, min, kIntMax));
}

} // namespace

GateRecipe readFixedGate(GateOptions& o)
{
    // FixedLimit.of(limit) has no default; 20 is every other limit's initial_limit.
    const std::int32_t limit = intOption(o, "limit", 20, 1);
    o.done();
    return {[limit](std::uint64_t) -> std::unique_ptr<Gate> {
        return std::make_unique<SimpleLimiterGate>(std::make_unique<FixedLimit>(limit));
    }};
}

GateRecipe readAimdGate(GateOptions& o)
{
    AimdLimit::Options a;
    a.initialLimit = intOption(o, "initial_limit", a.initialLimit, 1);
    a.minLimit = intOption(o, "min_limit", a.minLimit, 0);
    a.maxLimit = intOption(o, "max_limit", a.maxLimit, 1);
    a.backoffRatio = o.real("backoff_ratio", a.backoffRatio, 0.5, 1.0);
    if (a.backoffRatio == 1.0) // AIMDLimit.java:56: [0.5, 1.0)
        throw InputError("aimd: backoff_ratio: must be from 0.5 to less than 1 (got 1)");
    a.timeout = o.duration("timeout", a.timeout, true);
    o.done();
    return {[a](std::uint64_t) -> std::unique_ptr<Gate> { return std::make_unique<SimpleLimiterGate>(std::make_unique<AimdLimit>(a)); }};
}

GateRecipe readVegasGate(GateOptions& o)
{
    VegasLimit::Options v;
    v.initialLimit = intOption(o, "initial_limit", v.initialLimit, 1);
    v.maxConcurrency = intOption(o, "max_concurrency", v.maxConcurrency, 1);
    v.smoothing = o.real("smoothing", v.smoothing, 0.0, 1.0);
    v.probeMultiplier = intOption(o, "probe_multiplier", v.probeMultiplier, 0);
    v.alpha = intOption(o, "alpha", v.alpha, 0);
    v.beta = intOption(o, "beta", v.beta, 0);
    o.done();
    return {[v](std::uint64_t seed) -> std::unique_ptr<Gate> {
        return std::make_unique<SimpleLimiterGate>(std::make_unique<VegasLimit>(v, seed));
    }};
}

GateRecipe readGradient2Gate(GateOptions& o)
{
    Gradient2Limit::Options g;
    g.initialLimit = intOption(o, "initial_limit", g.initialLimit, 1);
    g.minLimit = intOption(o, "min_limit", g.minLimit, 0);
    g.maxConcurrency = intOption(o, "max_concurrency", g.maxConcurrency, 1);
    g.smoothing = o.real("smoothing", g.smoothing, 0.0, 1.0);
    g.queueSize = intOption(o, "queue_size", g.queueSize, 0);
    g.longWindow = intOption(o, "long_window", g.longWindow, 1);
    g.rttTolerance = o.real("rtt_tolerance", g.rttTolerance, 1.0, std::numeric_limits<double>::max());
    o.done();
    return {[g](std::uint64_t) -> std::unique_ptr<Gate> {
        return std::make_unique<SimpleLimiterGate>(std::make_unique<Gradient2Limit>(g));
    }};
}

} // namespace ratelab
