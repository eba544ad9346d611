#include "pattern.h"

#include "decimal.h"

#include <cmath>
#include <random>
#include <string>

namespace ratelab {

namespace {

void checkCount(std::int64_t n)
{
    if (n < 0)
        throw InputError("the number of requests must not be negative (got " + std::to_string(n) + ")");
    if (n > kMaxArrivals)
        throw InputError("at most " + std::to_string(kMaxArrivals) + " requests per scenario (asked for "
                         + std::to_string(n) + ")");
}

void checkTime(Int128 t)
{
    if (t > kMaxNanos)
        throw InputError("the pattern runs past the largest time RateLab can represent (about 292 years)");
}

} // namespace

std::string_view patternId(PatternKind k)
{
    switch (k) {
    case PatternKind::Uniform: return "uniform";
    case PatternKind::Burst: return "burst";
    case PatternKind::Poisson: return "poisson";
    case PatternKind::Edge: break;
    }
    return "edge";
}

std::optional<PatternKind> patternFromId(std::string_view id)
{
    for (PatternKind k : kAllPatterns)
        if (patternId(k) == id)
            return k;
    return std::nullopt;
}

std::vector<Nanos> generateArrivals(const Pattern& p, const LimiterConfig& config)
{
    if (p.startNanos < 0)
        throw InputError("start must not be negative (got " + formatSeconds(p.startNanos) + " s)");
    std::vector<Nanos> out;
    switch (p.kind) {
    case PatternKind::Uniform: {
        checkCount(p.count);
        if (p.delayNanos < 0)
            throw InputError("delay must not be negative (got " + formatSeconds(p.delayNanos) + " s)");
        if (p.count > 0)
            checkTime(Int128(p.startNanos) + Int128(p.count - 1) * p.delayNanos);
        out.reserve(p.count);
        for (std::int64_t i = 0; i < p.count; ++i)
            out.push_back(p.startNanos + i * p.delayNanos);
        break;
    }
    case PatternKind::Burst: {
        checkCount(p.count);
        if (p.burstSize < 1)
            throw InputError("burst size must be at least 1 (got " + std::to_string(p.burstSize) + ")");
        if (p.periodNanos < 0)
            throw InputError("period must not be negative (got " + formatSeconds(p.periodNanos) + " s)");
        if (p.count > 0)
            checkTime(Int128(p.startNanos) + Int128((p.count - 1) / p.burstSize) * p.periodNanos);
        out.reserve(p.count);
        for (std::int64_t i = 0; i < p.count; ++i)
            out.push_back(p.startNanos + (i / p.burstSize) * p.periodNanos);
        break;
    }
    case PatternKind::Poisson: {
        checkCount(p.count);
        if (p.lambda.tokens <= 0 || p.lambda.perNanos <= 0)
            throw InputError("lambda must be greater than 0");
        const double meanGapNanos = static_cast<double>(p.lambda.perNanos) / static_cast<double>(p.lambda.tokens);
        std::mt19937_64 rng(p.seed);
        out.reserve(p.count);
        double t = static_cast<double>(p.startNanos);
        for (std::int64_t i = 0; i < p.count; ++i) {
            if (i > 0) {
                const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53; // [0, 1)
                t += -std::log1p(-u) * meanGapNanos;
            }
            if (t >= 9.2e18)
                checkTime(Int128(kMaxNanos) + 1);
            out.push_back(static_cast<Nanos>(std::llround(t)));
        }
        break;
    }
    case PatternKind::Edge: {
        const std::int64_t limit = config.limit();
        checkCount(2 * limit);
        if (p.gapNanos < 0)
            throw InputError("gap must not be negative (got " + formatSeconds(p.gapNanos) + " s)");
        const Nanos w = config.windowNanos();
        const Int128 earliest = Int128(p.startNanos) + p.gapNanos;
        Int128 boundary = ceilDiv(earliest, w) * w;
        if (boundary == 0)
            boundary = w;
        checkTime(boundary);
        const auto b = static_cast<Nanos>(boundary);
        out.assign(limit, b - p.gapNanos);
        out.insert(out.end(), limit, b);
        break;
    }
    }
    return out;
}

} // namespace ratelab
