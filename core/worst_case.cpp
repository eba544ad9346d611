#include "worst_case.h"

#include "decimal.h"
#include "nginx_limit_req.h"
#include "pattern.h"

#include <algorithm>
#include <limits>
#include <string>

namespace ratelab {

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max(); // a bound past it is shown as it

// windowsTouched is the most fixed windows of length w that T consecutive instants touch.
std::int64_t windowsTouched(Nanos windowNanos, Nanos w) { return (windowNanos - 1 + w - 1) / w + 1; }

// oneTokenNanos is the first whole ns by which one token has arrived: ceil(1 / r).
Nanos oneTokenNanos(const Rate& r) { return Nanos((Int128(r.perNanos) + r.tokens - 1) / r.tokens); }

// bucketBound is C + floor(r * (T - 1)): the tokens there at the first admission and those that
// arrive before the last.
std::int64_t bucketBound(const LimiterConfig& c, Nanos windowNanos)
{
    const Rate r = c.rate();
    if (c.capacity() == 1) // each admission empties the bucket: the next waits ceil(1 / r) whole ns
        return 1 + (windowNanos - 1) / oneTokenNanos(r);
    const Int128 refilled = Int128(r.tokens) * (windowNanos - 1) / r.perNanos;
    const Int128 total = Int128(c.capacity()) + refilled;
    return std::int64_t(std::min<Int128>(total, kMaxCount));
}

void checkCount(Int128 n)
{
    if (n > Int128(kMaxArrivals))
        throw InputError("the worst case here is more than " + std::to_string(kMaxArrivals)
                         + " requests; choose a shorter --window-of or a smaller limit");
}

} // namespace

std::optional<WorstCase> worstCase(Algorithm a, const LimiterConfig& c, Nanos windowNanos)
{
    if (windowNanos <= 0)
        throw InputError("the window of a worst case must be positive");
    WorstCase w{0, windowNanos, true};
    switch (a) {
    case Algorithm::FixedWindow: w.requests = c.limit() * windowsTouched(windowNanos, c.windowNanos()); break;
    case Algorithm::SlidingWindowCounter:
        w.requests = c.limit() * windowsTouched(windowNanos, c.windowNanos());
        w.tight = windowNanos == c.windowNanos() && c.windowNanos() > 2 * c.limit();
        break;
    case Algorithm::SlidingWindowLog: w.requests = c.limit() * ((windowNanos + c.windowNanos() - 1) / c.windowNanos()); break;
    case Algorithm::TokenBucket:
    case Algorithm::LeakyBucket:
    case Algorithm::LeakyBucketQueue:
    case Algorithm::Gcra: w.requests = bucketBound(c, windowNanos); break;
    case Algorithm::NginxLimitReq: {
        const Int128 drained = Int128(nginxRateThousandths(c.rate())) * ((windowNanos - 1 + kMs - 1) / kMs) / 1'000'000;
        w.requests = std::int64_t(std::min<Int128>(Int128(c.nginxBurst()) + 1 + drained, kMaxCount));
        w.tight = false;
        break;
    }
    default: return std::nullopt; // the product models
    }
    return w;
}

std::vector<Nanos> worstTraffic(Algorithm a, const LimiterConfig& c, Nanos windowNanos)
{
    const std::optional<WorstCase> bound = worstCase(a, c, windowNanos);
    std::vector<Nanos> times;
    if (!bound)
        return times;
    const auto repeat = [&](Nanos t, std::int64_t n) { times.insert(times.end(), std::size_t(n), t); };
    switch (a) {
    case Algorithm::FixedWindow:
    case Algorithm::SlidingWindowCounter: {
        if (!bound->tight)
            return {};
        checkCount(bound->requests);
        const Nanos w = c.windowNanos();
        repeat(w - 1, c.limit()); // the last instant of window 0, then each later boundary
        if (a == Algorithm::FixedWindow) {
            for (std::int64_t k = 1; k * w <= w - 1 + windowNanos - 1; ++k)
                repeat(k * w, c.limit());
        } else { // cur < L * e / W: the k-th is admitted at the first e with k * W < L * e
            for (std::int64_t k = 0; k < c.limit(); ++k)
                times.push_back(w + Nanos(Int128(k) * w / c.limit() + 1));
        }
        return times;
    }
    case Algorithm::SlidingWindowLog:
        checkCount(bound->requests);
        for (Nanos t = 0; t <= windowNanos - 1; t += c.windowNanos())
            repeat(t, c.limit());
        return times;
    case Algorithm::TokenBucket:
    case Algorithm::LeakyBucket:
    case Algorithm::LeakyBucketQueue:
    case Algorithm::Gcra: {
        checkCount(bound->requests);
        repeat(0, c.capacity()); // the full bucket at once, then each whole token as it arrives
        const Rate r = c.rate();
        if (c.capacity() == 1) {
            for (std::int64_t k = 1; k < bound->requests; ++k)
                times.push_back(k * oneTokenNanos(r));
            return times;
        }
        for (std::int64_t k = 1; k <= bound->requests - c.capacity(); ++k)
            times.push_back(Nanos((Int128(k) * r.perNanos + r.tokens - 1) / r.tokens));
        return times;
    }
    default: return {};
    }
}

std::int64_t maxInAnyWindow(const std::vector<Nanos>& admitted, Nanos windowNanos)
{
    std::int64_t best = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < admitted.size(); ++i) {
        while (admitted[first] <= admitted[i] - windowNanos)
            ++first;
        best = std::max<std::int64_t>(best, std::int64_t(i - first + 1));
    }
    return best;
}

} // namespace ratelab
