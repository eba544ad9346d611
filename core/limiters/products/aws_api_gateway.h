// AwsApiGateway is Amazon API Gateway's request throttling for a REST API (one key: an API key
// under key=client, the whole API under key=global). AWS runs no code here; the model follows
// the API Gateway Developer Guide ("Throttle requests to your REST APIs for better throughput")
// and the API reference (ThrottleSettings, QuotaSettings), and names what is assumed.
//
// Documented:
// - throttling is a token bucket: a rate (steady requests per second, a decimal) and a burst (the
//   bucket's size); a request takes one token, 429 when none is left;
// - the levels apply at once, each its own bucket: the account in a Region (default rate 10000,
//   burst 5000), the stage's default method throttling (throttlingRateLimit /
//   throttlingBurstLimit), a method's own, and a usage plan's per API key (rateLimit /
//   burstLimit): options account_*, stage_*, method_*, plan_* (rate, burst);
// - a usage plan's quota: `quota_limit` requests per `quota_period` (DAY, WEEK or MONTH), with
//   `quota_offset` requests subtracted from the limit in the initial period (assumed: the period
//   of the first request, when the plan starts taking traffic).
// Assumed: buckets start full, exact arithmetic; a throttled request takes no token from any level
// and does not count against the quota; quota periods on the UTC calendar from t = 0
// (1970-01-01T00:00Z): a day at midnight, a week on Sunday (the older API reference: "with a
// time period of WEEK, an offset of 0 starts on Sunday"), a month on the 1st. Where a level is
// shared by every key (account, stage) while the plan is per key, run it as a layer of its own
// with key=global.
#pragma once

#include "limiters/products/product.h"
#include "limiters/token_bucket.h"

#include <limits>
#include <vector>

namespace ratelab {

class AwsApiGateway final : public ProductLimiter<AwsApiGateway> {
    friend class ProductLimiter<AwsApiGateway>;
public:
    enum class QuotaPeriod : std::uint8_t { None, Day, Week, Month };

    // The account's level in a Region, AWS's default: its rate a second and its burst.
    static constexpr std::int64_t kAccountRate = 10'000, kAccountBurst = 5'000;

    explicit AwsApiGateway(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    std::int64_t quota() const;
    // levelAt is the tokens of the emptiest bucket.
    double levelAt(Nanos t) const;
    Memory memory() const;
    Algorithm algorithm() const { return Algorithm::AwsApiGateway; }

    // slowest returns the least rate of the levels (the long-run rate once bursts are spent).
    Rate slowest() const;
    // periodStart returns the start (ns) of the quota period holding t.
    static Nanos periodStart(QuotaPeriod p, Nanos t);
    // The usage plan's quota as given: its period (None: no quota), limit and first-period offset.
    QuotaPeriod quotaPeriod() const { return m_period; }
    std::int64_t quotaLimit() const { return m_quotaLimit; }
    std::int64_t quotaOffset() const { return m_quotaOffset; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    std::int64_t quotaRoom(Nanos t) const;

    std::vector<TokenBucket> m_buckets;
    std::vector<Rate> m_rates;
    QuotaPeriod m_period = QuotaPeriod::None;
    std::int64_t m_quotaLimit = 0;
    std::int64_t m_quotaOffset = 0;
    Nanos m_quotaStart = -1; // the period m_used counts
    // m_firstStart: the period of the first request decided, the plan's first, from which
    // quota_offset is subtracted (its period on the clock: a replayed log's first day, not 1970's).
    static constexpr Nanos kNoPeriod = std::numeric_limits<Nanos>::min();
    Nanos m_firstStart = kNoPeriod;
    std::int64_t m_used = 0;
};

} // namespace ratelab
