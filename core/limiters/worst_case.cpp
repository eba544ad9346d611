// The worst case of each algorithm, derived by hand from semantics.md.
//
// Times are whole nanoseconds, so a window (t - T, t] holds the instants a .. a + T - 1 with
// a = t - T + 1: its first and last admission are at most T - 1 ns apart. Write D = T - 1.
//
// fixed_window. Windows [kW, (k+1)W) each admit at most L. The instants a .. a + D meet
// floor((a + D) / W) - floor(a / W) + 1 windows, at most ceil(D / W) + 1 (reached with
// a = W - 1 mod W). Bound: L * (ceil((T - 1) / W) + 1). At T = W that is 2L; at T = W + 1 still
// 2L (W + 1 instants cannot meet three windows); at T = 1, L. Worst: L at W - 1, then L at each
// boundary kW, k = 1 .. ceil((T - 1) / W).
//
// sliding_window_log. Any half-open piece (u - W, u] holds at most L admissions: at the last one,
// s, the others are > u - W >= s - W, still in the log, and it was admitted with fewer than L.
// (t - T, t] splits into ceil(T / W) such pieces. Bound: L * ceil(T / W). Worst: L at 0, W, 2W,
// ..., (ceil(T / W) - 1) W, a span of less than T.
//
// token_bucket, leaky_bucket, leaky_bucket_queue, gcra. All four admit the same requests
// (semantics.md), kept exactly in units of 1/perNanos of a token: a full bucket holds C tokens and
// d ns refill exactly r*d. Between the first and the last admission in the window tokens start at
// most C, grow by at most r*D and never fall below 0, so n <= C + r*D and
// Bound: C + floor(r * (T - 1 ns)). Worst: C at 0 (the bucket starts full), then one at each
// ceil(j / r) ns, j = 1 .. floor(r * (T - 1)), when token j has refilled: the window (-1, T - 1].
// There the bucket holds 1 + (r ceil(j / r) - j) < 1 + r*1ns tokens: below C = 2 while r <= 1 per
// ns, so the cap loses nothing (r > 1 per ns: an upper bound, not claimed tight). With C = 1 the
// cap does lose: each admission finds the bucket full and leaves it empty, so admissions are at
// least g = ceil(1 / r) ns apart and, exactly, Bound: 1 + floor((T - 1) / g), reached at 0, g, 2g...
//
// sliding_window_counter. prev = c(b-1), the admissions of the previous window, and the k-th
// admission of window b at offset e needs (k - 1) W + prev (W - e) < L W, so c(b) <= L and by
// offset h window b admits at most g(P, h) = ceil((L W - P (W - h)) / W) with P = c(b-1).
// Let the window's instants start at offset s of window m and end at offset h of window m + j
// (j W + h = s + T - 1 = x). Its count is at most: the tail of m (<= L, or <= P when j = 1), L for
// each full window between, P for window m + j - 1 and g(P, h) for the head. P + g(P, h) grows with
// P (one more of prev costs the head at most one), so P = L and the total is
// j L + ceil(L h / W) = ceil(L x / W), largest at s = W - 1, x = T + W - 2.
// Bound: max(L, ceil(L (T + W - 2) / W)); at T = W, 2L whenever 2L < W ns. Worst: L at the last
// nanosecond of windows 0 .. j - 1, then ceil(L h / W) at j W + h. Tight when j <= 1 or L < W:
// a full window after a full one needs (L - 1) W + L < L W, i.e. L < W (W in ns: nearly always).
//
// nginx_limit_req. Rate R thousandths per second, burst B, times truncated to ms. A rejected
// request changes nothing; an accepted one sets excess = max(0, excess - floor(R ms / 1000) +
// 1000) <= 1000 B. Over n admissions D ms apart in all, the sum of floors is at most the floor of
// the sum and the clamp only raises excess, so 1000 (n - 1) <= 1000 B + floor(R D / 1000):
// Bound: B + 1 + floor(R D / 10^6) with D = ceil((T - 1) / 1 ms), the most whole milliseconds
// the instants a .. a + T - 1 span. Worst: B + 1 at the last ns of ms 0, then one at each ms
// (1000 / r) k. Tight when the rate is r per second with r dividing 1000: excess stays a multiple
// of r, so each admission lands exactly on 1000 B and none is clamped. Elsewhere (per-minute
// rates, r > 1000, 700 r/s with burst 0) the truncation loses and the bound is not reached.
#include "limiters/worst_case.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"

#include <algorithm>
#include <limits>

namespace ratelab {

namespace {


std::int64_t saturate(Int128 v)
{
    return v > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                         : static_cast<std::int64_t>(v);
}

bool isBucket(Algorithm a)
{
    return a == Algorithm::TokenBucket || a == Algorithm::LeakyBucket || a == Algorithm::LeakyBucketQueue
        || a == Algorithm::Gcra;
}

// nginxDrainMs returns the most whole milliseconds the instants of a window of T ns span.
Int128 nginxSpanMs(Nanos windowNanos) { return ceilDiv(Int128(windowNanos) - 1, kNanosPerMs); }

void checkWindow(Nanos windowNanos)
{
    if (windowNanos < 1)
        throw InputError("the worst case needs a window of at least 1 ns (got " + std::to_string(windowNanos) + " ns)");
}

// Arrivals collects a worst pattern, refusing too many requests or a time past the range.
struct Arrivals {
    std::vector<Nanos> out;
    void add(Int128 t, Int128 count)
    {
        if (count <= 0)
            return;
        if (Int128(out.size()) + count > kMaxArrivals)
            throw InputError("the worst pattern would send more than " + std::to_string(kMaxArrivals)
                             + " requests; choose a shorter --window-of");
        if (t > kMaxNanos)
            throw InputError("the worst pattern would run past the largest time; choose a shorter --window-of");
        out.insert(out.end(), std::size_t(count), static_cast<Nanos>(t));
    }
};

} // namespace

std::optional<std::int64_t> worstCaseBound(Algorithm a, const LimiterConfig& c, Nanos T)
{
    checkWindow(T);
    const Int128 L = c.limit(), W = c.windowNanos();
    switch (a) {
    case Algorithm::FixedWindow: return saturate(L * (ceilDiv(Int128(T) - 1, W) + 1));
    case Algorithm::SlidingWindowLog: return saturate(L * ceilDiv(T, W));
    case Algorithm::SlidingWindowCounter: return saturate(std::max(L, ceilDiv(L * (Int128(T) + W - 2), W)));
    case Algorithm::NginxLimitReq: {
        const Int128 R = nginxRateThousandths(c.rate());
        return saturate(Int128(c.nginxBurst()) + 1 + R * nginxSpanMs(T) / 1'000'000);
    }
    default: break;
    }
    if (isBucket(a) && c.capacity() == 1)
        return saturate(1 + (Int128(T) - 1) / ceilDiv(c.rate().perNanos, c.rate().tokens));
    if (isBucket(a))
        return saturate(Int128(c.capacity()) + (Int128(T) - 1) * c.rate().tokens / c.rate().perNanos);
    return std::nullopt;
}

bool worstCaseTight(Algorithm a, const LimiterConfig& c, Nanos T)
{
    checkWindow(T);
    switch (a) {
    case Algorithm::FixedWindow:
    case Algorithm::SlidingWindowLog: return true;
    case Algorithm::SlidingWindowCounter: {
        const Int128 W = c.windowNanos();
        const Int128 j = (Int128(T) + W - 2) / W;
        return j <= 1 || c.limit() < W;
    }
    case Algorithm::NginxLimitReq: {
        const std::int64_t R = nginxRateThousandths(c.rate());
        return R % 1000 == 0 && 1000 % (R / 1000) == 0;
    }
    default: return isBucket(a) && (c.capacity() == 1 || c.rate().tokens <= c.rate().perNanos);
    }
}

std::vector<Nanos> worstArrivals(Algorithm a, const LimiterConfig& c, Nanos T)
{
    checkWindow(T);
    const Int128 L = c.limit(), W = c.windowNanos();
    Arrivals p;
    switch (a) {
    case Algorithm::FixedWindow: {
        p.add(W - 1, L);
        const Int128 k = ceilDiv(Int128(T) - 1, W);
        for (Int128 i = 1; i <= k; ++i)
            p.add(i * W, L);
        return std::move(p.out);
    }
    case Algorithm::SlidingWindowLog: {
        const Int128 k = ceilDiv(T, W);
        for (Int128 i = 0; i < k; ++i)
            p.add(i * W, L);
        return std::move(p.out);
    }
    case Algorithm::SlidingWindowCounter: {
        const Int128 x = Int128(T) + W - 2, j = x / W, h = x % W;
        p.add(W - 1, L);
        for (Int128 i = 2; i <= j; ++i)
            p.add(i * W - 1, L);
        if (j >= 1)
            p.add(j * W + h, ceilDiv(L * h, W));
        return std::move(p.out);
    }
    case Algorithm::NginxLimitReq: {
        const Int128 R = nginxRateThousandths(c.rate());
        const Int128 span = nginxSpanMs(T);
        p.add(kNanosPerMs - 1, Int128(c.nginxBurst()) + 1);
        // The k-th after the burst at the first ms whose exact drain reaches k requests: ceil(k 10^6 / R).
        const Int128 more = R * span / 1'000'000;
        for (Int128 k = 1; k <= more; ++k)
            p.add(ceilDiv(k * 1'000'000, R) * kNanosPerMs, 1);
        return std::move(p.out);
    }
    default: break;
    }
    // The buckets, and the products as a token bucket of the config: the full bucket at 0, then
    // each token as it is due.
    const Rate r = c.rate();
    if (isBucket(a) && c.capacity() == 1) {
        const Int128 g = ceilDiv(r.perNanos, r.tokens);
        for (Int128 t = 0; t <= Int128(T) - 1; t += g)
            p.add(t, 1);
        return std::move(p.out);
    }
    p.add(0, c.capacity());
    const Int128 more = (Int128(T) - 1) * r.tokens / r.perNanos;
    if (more > kMaxArrivals)
        p.add(0, more); // refuses
    for (Int128 j = 1; j <= more; ++j)
        p.add(ceilDiv(j * r.perNanos, r.tokens), 1);
    return std::move(p.out);
}

} // namespace ratelab
