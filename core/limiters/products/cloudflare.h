// CloudflareRate is a Cloudflare rate limiting rule (WAF rate limiting rules, the rulesets API's
// `ratelimit` object) for one value of its characteristics (ip.src, or a header's value: RateLab's
// key). Cloudflare runs no code here; the model follows its documentation and its published
// counting method, and names what is assumed.
//
// Documented (developers.cloudflare.com/waf/rate-limiting-rules/, parameters/ and request-rate/):
// - `period` in seconds (10, 60, 120, 300, 600 or 3600), `requests_per_period`, and
//   `mitigation_timeout` in seconds (0, 10, 60, 120, 300, 600, 3600 or 86400);
// - a request that takes the counter above requests_per_period gets the rule's action, and by
//   default the action applies for the whole mitigation timeout "regardless of the request rate
//   during this period" (the request-rate example: 1 per 10 s, the 2nd request blocks for 10 min);
// - counters are kept per characteristics value and per data center (one data center here).
// Published (blog.cloudflare.com/counting-things-a-lot-of-different-things, 2017): the rate is
//   previous period's count * (period - elapsed) / period + this period's count, periods on the
//   clock; `counting=sliding` (the default). `counting=fixed` counts this period only.
// Assumed: the estimate is exact (no rounding, nanoseconds); requests during a mitigation are not
// counted; with mitigation_timeout 0 (throttle) a request is refused only while it would take the
// rate above the limit, and a refused one is not counted. Without options: RateLab's L per W, any
// W, and no mitigation timeout.
#pragma once

#include "limiters/products/product.h"

namespace ratelab {

class CloudflareRate final : public ProductLimiter<CloudflareRate> {
    friend class ProductLimiter<CloudflareRate>;
public:
    explicit CloudflareRate(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    std::int64_t quota() const { return m_limit; }
    // levelAt is the estimated rate: prev * (period - e) / period + cur.
    double levelAt(Nanos t) const;
    Memory memory() const { return {32, 1}; } // two counters, a window, a block
    Algorithm algorithm() const { return Algorithm::CloudflareRate; }

    std::int64_t requestsPerPeriod() const { return m_limit; }
    Nanos period() const { return m_period; }
    Nanos mitigationTimeout() const { return m_timeout; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    bool blocked(Nanos t) const { return m_blockedUntil >= 0 && t < m_blockedUntil; }
    // weighted returns (prev * (period - e) + cur * period) at t, the estimate times period.
    Int128 weighted(Nanos t, std::int64_t extra) const;

    std::int64_t m_limit = 1;
    Nanos m_period = 1;
    Nanos m_timeout = 0;
    bool m_sliding = true;
    std::int64_t m_window = -1; // the period of m_current
    std::int64_t m_current = 0;
    std::int64_t m_previous = 0; // the count of period m_window - 1
    Nanos m_blockedUntil = -1;
};

} // namespace ratelab
