#include "limiter.h"

#include "algorithm_facts.h"
#include "limiters.h"

#include <iterator>

namespace ratelab {

namespace {

double limitOf(const LimiterConfig& c) { return double(c.limit()); }
double capacityOf(const LimiterConfig& c) { return double(c.capacity()); }

// kFacts is in the order of the Algorithm enum.
const AlgorithmFacts kFacts[] = {
    {Algorithm::FixedWindow, "fixed_window", "Fixed window", "fixed window", "requests in window", "limit",
     ConfigUse::LimitWindow, limitOf,
     "Counts requests in fixed windows [kW, (k+1)W) and admits up to L in each. One counter per key, "
     "and the easiest to explain, but it forgets everything at a boundary: L just before it and L just "
     "after are all admitted, twice the limit within one window's length."},
    {Algorithm::SlidingWindowLog, "sliding_window_log", "Sliding window log", "sliding window log", "entries in log",
     "limit", ConfigUse::LimitWindow, limitOf,
     "Keeps the time of every admitted request still inside the trailing window (t - W, t] and admits "
     "while fewer than L are there. Exact: no window of length W ever holds more than L. The price is "
     "memory, up to L timestamps per key."},
    {Algorithm::SlidingWindowCounter, "sliding_window_counter", "Sliding window counter", "sliding window counter",
     "estimated requests", "limit", ConfigUse::LimitWindow, limitOf,
     "Estimates the trailing window from two fixed-window counters, weighting the previous window by how "
     "much of it still overlaps: E = prev * (W - e) / W + cur, admitting while E < L. Two counters per "
     "key; it errs when the previous window's requests bunched at its end."},
    {Algorithm::TokenBucket, "token_bucket", "Token bucket", "token bucket", "tokens", "capacity",
     ConfigUse::CapacityRate, capacityOf,
     "A bucket of up to C tokens, refilled at r per second; each request takes one. A quiet client saves "
     "up credit and may spend it at once: bursts of up to C, an average of r."},
    {Algorithm::LeakyBucket, "leaky_bucket", "Leaky bucket (meter)", "leaky bucket (meter)", "water", "capacity",
     ConfigUse::CapacityRate, capacityOf,
     "Each request pours one unit into a bucket of size C that drains at r per second; a request that "
     "would overflow it is denied. Its water is C minus a token bucket's tokens: it admits exactly the "
     "same requests."},
    {Algorithm::LeakyBucketQueue, "leaky_bucket_queue", "Leaky bucket (queue)", "leaky bucket (queue)",
     "requests waiting", "most that can wait (capacity - 1)", ConfigUse::CapacityRate,
     [](const LimiterConfig& c) { return double(c.capacity() - 1); },
     "Admits what the meter admits, but holds each admitted request until the water ahead of it has "
     "drained, so requests leave at most r per second: bursts are smoothed into a steady stream, at the "
     "cost of waiting."},
    {Algorithm::Gcra, "gcra", "GCRA", "GCRA", "backlog (s)", "largest backlog (capacity / rate)",
     ConfigUse::CapacityRate, [](const LimiterConfig& c) { return double(c.capacity()) / c.rate().perSecond(); },
     "The generic cell rate algorithm keeps one timestamp, the theoretical arrival time, and admits a "
     "request if it is no more than (C - 1) / r ahead of it. It admits exactly what the token bucket "
     "admits, with a single number of state."},
    {Algorithm::NginxLimitReq, "nginx_limit_req", "nginx limit_req", "nginx limit_req", "excess (requests)",
     "burst", ConfigUse::CapacityRate, [](const LimiterConfig& c) { return double(c.nginxBurst()); },
     "nginx's limit_req as nginx 1.22 computes it: a leaky bucket of burst B + 1 kept in whole "
     "milliseconds and thousandths of a request, rejecting when the excess would pass B. It admits what "
     "the textbook leaky bucket admits when every time is a whole millisecond and the rate a whole number "
     "per second; elsewhere the truncations show."},
};

static_assert(std::size(kFacts) == kEveryAlgorithm.size(), "one row of facts per algorithm");

} // namespace

std::span<const AlgorithmFacts> algorithmFacts() { return kFacts; }

const AlgorithmFacts& facts(Algorithm a) { return kFacts[static_cast<std::size_t>(a)]; }

std::string_view algorithmId(Algorithm a) { return facts(a).id; }
std::string_view algorithmTitle(Algorithm a) { return facts(a).title; }
std::string_view levelUnit(Algorithm a) { return facts(a).levelUnit; }

std::optional<Algorithm> algorithmFromId(std::string_view id)
{
    for (const AlgorithmFacts& f : kFacts)
        if (f.id == id)
            return f.algorithm;
    return std::nullopt;
}

std::unique_ptr<Limiter> makeLimiter(Algorithm a, const LimiterConfig& config)
{
    return visitLimiter(a, config, [](auto& l) -> std::unique_ptr<Limiter> { return l.clone(); });
}

} // namespace ratelab
