#include "traffic/pattern.h"

#include "arithmetic/threads.h"
#include "arithmetic/vector_state.h"

#include "limiters/worst_case.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

#include <cmath>
#include <random>
#include <span>
#include <string>

namespace ratelab {

namespace {

// roundedNanos is std::round(x) for x >= 0 (NaN never comes), or -1 when that is 2^63 or more;
// written out because libm's round is a call on every gap (half of log1p's time, profiled).
// x - trunc(x) is exact below 2^52, and every double from 2^52 on is a whole number.
inline Nanos roundedNanos(double x)
{
    if (x >= 0x1p52)
        return x < 0x1p63 ? static_cast<Nanos>(x) : -1;
    const auto whole = static_cast<Nanos>(x);
    return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

// poissonGaps turns each draw (a 64-bit word of the stream) into its gap: the exponential of
// mean meanGapNanos, rounded to whole nanoseconds, or -1 when it is 2^63 ns or more.
void poissonGaps(std::span<Nanos> draws, double meanGapNanos)
{
    clearVectorUpperState(); // double arithmetic, on either thread
    for (Nanos& d : draws) {
        const double u = static_cast<double>(static_cast<std::uint64_t>(d) >> 11) * 0x1.0p-53; // [0, 1)
        d = roundedNanos(-std::log1p(-u) * meanGapNanos);
    }
}

void checkCount(std::int64_t n)
{
    if (n < 0)
        throw InputError("the number of requests must not be negative (got " + std::to_string(n) + ")");
    if (n > kMaxArrivals)
        throw InputError("at most " + std::to_string(kMaxArrivals) + " requests per scenario (asked for "
                         + std::to_string(n) + ")");
}

void checkNotNegative(Nanos t, const char* what)
{
    if (t < 0)
        throw InputError(std::string(what) + " must not be negative (got " + formatSeconds(t) + " s)");
}

const std::string& largestTime()
{
    static const std::string s = "past the largest time RateLab can represent (" + formatSeconds(kMaxNanos)
                                 + " s, about 292 years)";
    return s;
}

// checkTime refuses a time past the range; `what` says how the time was reached.
void checkTime(Int128 t, const std::string& what)
{
    if (t > kMaxNanos)
        throw InputError(what + " " + secondsText(t) + " s, " + largestTime());
}

} // namespace

std::string_view patternId(PatternKind k)
{
    switch (k) {
    case PatternKind::Uniform: return "uniform";
    case PatternKind::Burst: return "burst";
    case PatternKind::Poisson: return "poisson";
    case PatternKind::Edge: return "edge";
    case PatternKind::Worst: break;
    }
    return "worst";
}

std::optional<PatternKind> patternFromId(std::string_view id)
{
    for (PatternKind k : kAllPatterns)
        if (patternId(k) == id)
            return k;
    return std::nullopt;
}

void checkPattern(const Pattern& p, const LimiterConfig& config)
{
    checkNotNegative(p.startNanos, "start");
    switch (p.kind) {
    case PatternKind::Uniform:
        checkCount(p.count);
        checkNotNegative(p.delayNanos, "delay");
        if (p.count > 0)
            checkTime(Int128(p.startNanos) + Int128(p.count - 1) * p.delayNanos,
                      "the last request would come at start + (n - 1) * delay =");
        break;
    case PatternKind::Burst:
        checkCount(p.count);
        if (p.burstSize < 1)
            throw InputError("burst size must be at least 1 (got " + std::to_string(p.burstSize) + ")");
        checkNotNegative(p.periodNanos, "period");
        if (p.count > 0)
            checkTime(Int128(p.startNanos) + Int128((p.count - 1) / p.burstSize) * p.periodNanos,
                      "the last burst would come at start + floor((n - 1) / size) * period =");
        break;
    case PatternKind::Poisson:
        checkCount(p.count);
        if (p.lambda.tokens <= 0 || p.lambda.perNanos <= 0)
            throw InputError("lambda must be greater than 0");
        break;
    case PatternKind::Edge: {
        const std::int64_t limit = config.limit();
        if (2 * limit > kMaxArrivals)
            throw InputError("the edge pattern sends 2 * limit = " + std::to_string(2 * limit) + " requests; at most "
                             + std::to_string(kMaxArrivals) + " requests per scenario");
        checkNotNegative(p.gapNanos, "gap");
        const Nanos w = config.windowNanos();
        Int128 boundary = ceilDiv(Int128(p.startNanos) + p.gapNanos, w) * w;
        if (boundary == 0)
            boundary = w;
        checkTime(boundary, "the first window boundary at or after start + gap would be at");
        break;
    }
    case PatternKind::Worst: // refuses what worstArrivals refuses: too many requests, too late a time
        checkNotNegative(p.windowOfNanos, "window-of");
        (void)worstArrivals(p.worstOf, config, boundWindowNanos(p, config));
        break;
    }
}

std::vector<Nanos> generateArrivals(const Pattern& p, const LimiterConfig& config, Threads threads)
{
    checkPattern(p, config);
    std::vector<Nanos> out;
    switch (p.kind) {
    case PatternKind::Uniform:
        out.reserve(std::size_t(p.count));
        for (std::int64_t i = 0; i < p.count; ++i)
            out.push_back(p.startNanos + i * p.delayNanos);
        break;
    case PatternKind::Burst:
        out.reserve(std::size_t(p.count));
        for (std::int64_t i = 0; i < p.count; ++i)
            out.push_back(p.startNanos + (i / p.burstSize) * p.periodNanos);
        break;
    case PatternKind::Poisson: {
        // Exponential gaps drawn as doubles and rounded to whole nanoseconds, summed exactly: the
        // start is kept to the nanosecond and gaps keep their size at any start. The draws come
        // in order; each gap depends on its draw alone, so a long stream may have its halves'
        // gaps made on two threads (log1p is most of the time); the sum is in order again.
        const double meanGapNanos = static_cast<double>(p.lambda.perNanos) / static_cast<double>(p.lambda.tokens);
        std::mt19937_64 rng(p.seed);
        out.resize(std::size_t(p.count));
        for (std::size_t i = 1; i < out.size(); ++i)
            out[i] = static_cast<Nanos>(rng()); // the draw's bits, until poissonGaps reads them
        const std::span<Nanos> gaps = out.empty() ? std::span<Nanos>() : std::span<Nanos>(out).subspan(1);
        forHalves(gaps.size(), threads,
                  [&](std::size_t begin, std::size_t end) { poissonGaps(gaps.subspan(begin, end - begin), meanGapNanos); });
        Nanos t = p.startNanos;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (i > 0) {
                const Nanos gap = out[i];
                if (gap < 0 || gap > kMaxNanos - t)
                    throw InputError("the Poisson arrivals would run " + largestTime() + " after " + std::to_string(i)
                                     + " of " + std::to_string(p.count) + " requests; raise lambda or lower n or start");
                t += gap;
            }
            out[i] = t;
        }
        break;
    }
    case PatternKind::Edge: {
        const std::int64_t limit = config.limit();
        const Nanos w = config.windowNanos();
        Int128 boundary = ceilDiv(Int128(p.startNanos) + p.gapNanos, w) * w;
        if (boundary == 0)
            boundary = w;
        const auto b = static_cast<Nanos>(boundary);
        out.assign(std::size_t(limit), b - p.gapNanos);
        out.insert(out.end(), std::size_t(limit), b);
        break;
    }
    case PatternKind::Worst: out = worstArrivals(p.worstOf, config, boundWindowNanos(p, config)); break;
    }
    return out;
}

} // namespace ratelab
