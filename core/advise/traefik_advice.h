// Traefik's rateLimit middleware as a BurstFamily (advise.h), its decisions Traefik's
// (limiters/products/traefik.h: rate.NewLimiter(average * 1e9 / period, burst) per source, a
// request reserved and served late by up to maxDelay, denied beyond it).
//
// The ladder: average N with period 1m for N = 1..59 (N a minute, below one a second), then
// average N with period 1s (N a second). Not every N a minute: maxDelay is 500 ms below one a
// second and 1s / (2 * int(rate)) from one on, so a request may run up to rate * maxDelay tokens
// into debt: N/120 of one below a second (growing with N), about half of one at a whole rate a
// second, but 0.75 at 90 a minute (int(1.5) = 1). With that jump a higher rate can need a larger
// burst: after three requests at 0 s and one at 0.2 s the deficit is 3 - 0.3 + 1 = 3.7 at
// 1.5/s, which borrows 0.75 and needs burst 3, and 3 - 0.4 + 1 = 3.6 at 2/s, which borrows 0.5
// and needs 4. On this ladder the debt allowed grows (below a second) or stays at half a token
// (to the nanosecond maxDelay truncates), so the burst does not grow with the rate, which the
// property test checks against Traefik's own model.
//
// The least burst at a step: with d = burst - tokens (the deficit: Go's tokens may go below 0
// while a request waits), each request makes d = max(0, d - rate * elapsed) + 1 and passes iff
// d - burst <= rate * maxDelay; with every request passing d does not depend on the burst, so
// one pass gives ceil(max d - rate * maxDelay), at least 1 (Traefik's own floor). That pass is
// in exact-enough real arithmetic; Traefik's is float64, so the candidate is then checked on the
// model itself, and moved by one until the model admits every request at it and denies one at
// the burst below.
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "limiters/config.h"

#include <optional>

namespace ratelab {

class TraefikBurstFamily final : public BurstFamily {
public:
    static constexpr std::int64_t kPerMinuteSteps = 59; // steps 1..59 are N a minute

    explicit TraefikBurstFamily(std::int64_t topPerSecond = LimiterConfig::kMaxLimit)
        : m_top(kPerMinuteSteps + topPerSecond)
    {
    }

    std::string product() const override { return "Traefik"; }
    std::int64_t maxStep() const override { return m_top; }
    std::vector<std::int64_t> roundSteps() const override;
    Rate rate(std::int64_t step) const override;
    std::string rateText(std::int64_t step) const override;
    std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const override;
    std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const override;
    void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const override;

    // average and period are what the written middleware says for a step.
    static std::int64_t average(std::int64_t step) { return step <= kPerMinuteSteps ? step : step - kPerMinuteSteps; }
    static std::string periodText(std::int64_t step) { return step <= kPerMinuteSteps ? "1m" : "1s"; }
    LimiterConfig config(std::int64_t step, std::int64_t burst) const;

private:
    std::int64_t m_top;
};

// traefikSourceCriterion is the sourceCriterion lines (indented for a rateLimit) that key a
// middleware by the log's key: none for "ip" (Traefik's default, the client's address),
// requestHost for "host", requestHeaderName for a header's field http_NAME ("" when Traefik has
// no criterion for that key: refused).
std::optional<std::string> traefikSourceCriterion(const std::string& logKey);

// traefikAdviceConfig is the dynamic configuration `advise` writes: one rateLimit middleware,
// named ratelab-limit, that no router uses yet (Traefik has no dry-run mode: a router that lists
// it enforces it). With letBy, two routers before it: one for the requests let by (PathRegexp or
// HeaderRegexp on User-Agent), tried first (priority 2), without the middleware, and one for every
// other path (priority 1) with it, both to a placeholder service.
std::string traefikAdviceConfig(std::int64_t step, std::int64_t burst, const std::string& sourceCriterion,
                                const LetBy& letBy = {});

} // namespace ratelab
