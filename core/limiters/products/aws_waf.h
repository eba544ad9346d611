// AwsWafRate is an AWS WAF rate-based rule (RateBasedStatement, WAFV2) with a Block or Count action, for
// one aggregation instance (an IP, or a header's value: RateLab's key). AWS runs no code here;
// the model follows the AWS WAF Developer Guide and the WAFV2 API reference, and names what is
// assumed.
//
// Documented (waf-rule-statement-type-rate-based-high-level-settings, -request-limiting and
// -caveats; API reference RateBasedStatement):
// - `EvaluationWindowSec` is 60, 120, 300 or 600 (default 300): each check counts the requests
//   of the window looking back from the time of the check;
// - `Limit` is at least 10; a request is blocked while its instance's count is over the limit;
// - the rate is checked "about every 10 seconds" (`rate_check_interval`), and "it's possible for
//   requests to be coming in at too high a rate for up to several minutes before AWS WAF detects
//   and rate limits them ... Usually, this delay is below 30 seconds" (`detection_delay`), the
//   same delay when the rate falls again;
// - the estimate "gives more importance to more recent requests" and is not exact;
// - the rule's action: Block refuses; Count "counts the request but doesn't determine whether to
//   allow it or block it" (waf-rule-action): option `action` (Block, the default, or Count),
//   Count counting as Block does and refusing nothing.
// Assumed: checks at whole multiples of rate_check_interval from t = 0; a check at T counts the
// requests in [T - window, T) exactly (every matching request, blocked ones too) and its verdict
// holds from T + detection_delay until the next verdict takes over. Without options: RateLab's L per
// W, whatever AWS offers, checked every 10 s where that divides W, else once a window.
#pragma once

#include "limiters/products/product.h"

#include <deque>
#include <utility>

namespace ratelab {

class AwsWafRate final : public ProductLimiter<AwsWafRate> {
    friend class ProductLimiter<AwsWafRate>;
public:
    explicit AwsWafRate(const LimiterConfig& config);

    // remainingAt is 0 while blocked; else every request passes until the next verdict takes
    // effect, whatever arrives: 2,000,000,000 (Decision's cap).
    std::int32_t remainingAt(Nanos t) const;
    // quota is kMaxCost: until a verdict blocks, a request of any cost passes.
    std::int64_t quota() const { return kMaxCost; }
    // levelAt is the count of the check intervals overlapping the trailing window (t - window, t].
    double levelAt(Nanos t) const;
    // memory is the most per-interval counts it keeps (a window and a delay of check intervals, and
    // the two it straddles), whatever it holds now: a key's state at scale.
    Memory memory() const
    {
        const std::int64_t n = (m_window + m_delay) / m_check + 2;
        return {16 * n, n};
    }
    Algorithm algorithm() const { return Algorithm::AwsWafRate; }

    std::int64_t limit() const { return m_limit; }
    Nanos window() const { return m_window; }
    Nanos checkInterval() const { return m_check; }
    Nanos detectionDelay() const { return m_delay; }
    // blockedAt says whether the verdict in force at t blocks.
    bool blockedAt(Nanos t) const;
    // counts is true for the Count action: every request passes, the verdicts only count.
    bool counts() const { return m_countOnly; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t /*cost*/) const { return m_countOnly || !blockedAt(t); }

private:
    // countBetween sums the requests of check intervals [from, to) (both multiples of m_check).
    std::int64_t countBetween(Nanos from, Nanos to) const;

    std::int64_t m_limit = 10;
    Nanos m_window = 0;
    Nanos m_check = 0;
    Nanos m_delay = 0;
    bool m_countOnly = false;
    std::deque<std::pair<std::int64_t, std::int64_t>> m_buckets; // (check interval index, requests)
};

} // namespace ratelab
