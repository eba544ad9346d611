// Fuzz target: the simulator and every limiter at the edges of what a config may hold.
//
// The bytes pick a config (limit and capacity up to LimiterConfig::kMaxLimit, any window, any
// positive rate of two int64s) and up to 64 non-decreasing arrival times up to the largest Nanos,
// with a bias towards the values where exact arithmetic is tightest. Whatever make accepts must
// simulate without overflow (UBSan) and keep the semantics page's promises:
//   - admitted: retry_after 0; denied: retry_after >= 1, and one request at t + retry_after is
//     admitted while one at t + retry_after - 1 ns is not (when both are in range);
//   - remaining: exactly that many more requests at the same instant are admitted;
//   - token_bucket, leaky_bucket, leaky_bucket_queue and gcra admit the very same requests.
#include "limiters/config.h"
#include "arithmetic/decimal.h"
#include "fuzz_check.h"
#include "limiters/limiter.h"
#include "engine/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace ratelab;

namespace {

// Bytes hands out the input a little at a time; past its end it gives zeros.
class Bytes {
public:
    Bytes(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
    bool empty() const { return m_pos >= m_size; }
    std::uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
    std::uint64_t u64()
    {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v = (v << 8) | byte();
        return v;
    }
    // pick returns an int64 in [lo, hi]: one of the edges most of the time, else any value.
    std::int64_t pick(std::int64_t lo, std::int64_t hi)
    {
        const std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo);
        switch (byte() % 8) {
        case 0: return lo;
        case 1: return hi;
        case 2: return lo + std::int64_t(std::min<std::uint64_t>(span, 1 + byte() % 16));
        case 3: return hi - std::int64_t(std::min<std::uint64_t>(span, 1 + byte() % 16));
        case 4: return lo + std::int64_t(std::min<std::uint64_t>(span, std::uint64_t(kNanosPerSecond) * (byte() % 16)));
        case 5: return lo + std::int64_t(std::min<std::uint64_t>(span, std::uint64_t(1) << (byte() % 63)));
        default: return span == ~std::uint64_t(0) ? std::int64_t(u64()) : lo + std::int64_t(u64() % (span + 1));
        }
    }

private:
    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
};

std::string describe(const LimiterConfig& c, Algorithm a, std::size_t i, Nanos t)
{
    return std::string(algorithmId(a)) + " L=" + std::to_string(c.limit()) + " W=" + std::to_string(c.windowNanos())
        + " C=" + std::to_string(c.capacity()) + " r=" + std::to_string(c.rate().tokens) + "/"
        + std::to_string(c.rate().perNanos) + "ns request " + std::to_string(i) + " t=" + std::to_string(t);
}

void checkDecisions(const LimiterConfig& config, Algorithm a, const std::vector<Nanos>& arrivals,
                    const std::vector<Decision>& decisions)
{
    AnyLimiter limiter = makeLimiter(a, config);
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const Nanos t = arrivals[i];
        const Decision d = limiter.decide(t);
        const std::string where = describe(config, a, i, t);
        const Decision& s = decisions[i];
        FUZZ_CHECK(d.allowed == s.allowed && d.retryAfter == s.retryAfter && d.remaining == s.remaining
                       && d.delay == s.delay,
                   where); // the simulator runs the same limiter
        FUZZ_CHECK(d.delay >= 0 && d.remaining >= 0 && !std::isnan(d.level), where);
        if (d.allowed) {
            FUZZ_CHECK(d.retryAfter == 0, where);
        } else {
            FUZZ_CHECK(d.retryAfter >= 1 && d.remaining == 0, where);
            if (d.retryAfter < kMaxNanos - t) {
                FUZZ_CHECK(AnyLimiter(limiter).decide(t + d.retryAfter).allowed, where + " retry_after too short");
                FUZZ_CHECK(!AnyLimiter(limiter).decide(t + d.retryAfter - 1).allowed, where + " retry_after too long");
            }
        }
        if (d.remaining <= 20) {
            AnyLimiter probe = limiter;
            for (int k = 0; k < d.remaining; ++k)
                FUZZ_CHECK(probe.decide(t).allowed, where + " remaining too high");
            FUZZ_CHECK(!probe.decide(t).allowed, where + " remaining too low");
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    Bytes in(data, size);
    const std::int64_t maxLimit = LimiterConfig::kMaxLimit;
    const std::int64_t limit = in.pick(1, maxLimit);
    const Nanos window = in.pick(1, kMaxNanos);
    const std::uint8_t options = in.byte();
    std::optional<std::int64_t> capacity;
    if (options & 1)
        capacity = in.pick(1, maxLimit);
    std::optional<Rate> rate;
    if (options & 2)
        rate = Rate::reduced(in.pick(1, kMaxNanos), in.pick(1, kMaxNanos));
    LimiterConfig config;
    try {
        config = LimiterConfig::make(limit, window, capacity, rate);
    } catch (const InputError& e) {
        fuzz::checkMessage(e.what());
        return 0;
    }
    std::vector<Nanos> arrivals;
    Nanos t = 0;
    for (int i = 0; i < 64 && !in.empty(); ++i) {
        switch (in.byte() % 6) {
        case 0: break;                                           // same instant
        case 1: t += std::min<Nanos>(1, kMaxNanos - t); break;   // 1 ns later
        case 2: t += std::min<Nanos>(window, kMaxNanos - t); break;
        case 3: t += std::min<Nanos>(window - 1, kMaxNanos - t); break;
        case 4: t = std::max(t, kMaxNanos - in.pick(0, 3 * kNanosPerSecond)); break; // near the end of time
        default: t += in.pick(0, kMaxNanos - t); break;
        }
        arrivals.push_back(t);
    }
    // Each algorithm alone over the arrivals, as a plain row runs it (rows.h): the one-pass path.
    std::vector<AlgorithmTrace> results;
    for (Algorithm a : kAllAlgorithms)
        results.push_back(simulateOne(config, a, arrivals));
    for (const AlgorithmTrace& r : results) {
        FUZZ_CHECK(r.decisions.size() == arrivals.size(), std::string(algorithmId(r.algorithm)));
        FUZZ_CHECK(r.metrics.allowed + r.metrics.denied == std::int64_t(arrivals.size()), "metrics");
        FUZZ_CHECK(r.metrics.maxInWindow <= r.metrics.allowed, "max_in_window");
        checkDecisions(config, r.algorithm, arrivals, r.decisions);
    }
    // The four bucket-shaped limiters admit exactly the same requests.
    const auto& token = results[3].decisions;
    for (const std::size_t k : {std::size_t(4), std::size_t(5), std::size_t(6)})
        for (std::size_t i = 0; i < arrivals.size(); ++i)
            FUZZ_CHECK(results[k].decisions[i].allowed == token[i].allowed,
                       describe(config, results[k].algorithm, i, arrivals[i]) + " differs from token_bucket");
    // The sliding window log never admits more than L in a window.
    FUZZ_CHECK(results[1].metrics.maxInWindow <= config.limit(), "sliding_window_log over the limit");
    return 0;
}
