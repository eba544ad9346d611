#include "limiters/products/aws_api_gateway.h"

#include "limiters/products/kong.h"

#include <algorithm>

namespace ratelab {

namespace {

constexpr std::string_view kQuotaPeriods[] = {"DAY", "WEEK", "MONTH"};
constexpr std::string_view kLevels[] = {"account", "stage", "method", "plan"};


} // namespace

AwsApiGateway::AwsApiGateway(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::AwsApiGateway, config);
    const auto addLevel = [&](std::string_view level, std::optional<Rate> rate, std::optional<std::int64_t> burst) {
        const std::string name(level);
        if (const auto text = p.text(name + "_rate")) {
            try {
                rate = parseRate(*text);
            } catch (const InputError& e) {
                p.fail(name + "_rate " + e.what());
            }
        }
        if (p.text(name + "_burst"))
            burst = p.integer(name + "_burst", 0, 1, LimiterConfig::kMaxLimit);
        if (rate.has_value() != burst.has_value())
            p.fail(name + "_rate and " + name + "_burst go together (a token bucket needs both)");
        if (!rate)
            return;
        m_buckets.emplace_back(LimiterConfig::make(*burst, kNanosPerSecond, *burst, *rate), DecidePath::General);
        m_rates.push_back(*rate);
    };
    // The account's documented default in a Region: 10,000 requests per second, burst 5,000.
    addLevel(kLevels[0], Rate{kAccountRate, kNanosPerSecond}, kAccountBurst);
    if (p.given()) {
        for (std::size_t i = 1; i < std::size(kLevels); ++i)
            addLevel(kLevels[i], std::nullopt, std::nullopt);
        if (p.text("quota_limit") || p.text("quota_period")) {
            m_quotaLimit = p.requiredInteger("quota_limit", 0, LimiterConfig::kMaxLimit);
            const std::string period = p.choice("quota_period", "DAY", kQuotaPeriods);
            m_period = period == "DAY" ? QuotaPeriod::Day : period == "WEEK" ? QuotaPeriod::Week : QuotaPeriod::Month;
            m_quotaOffset = p.integer("quota_offset", 0, 0, m_quotaLimit);
        } else if (p.text("quota_offset")) {
            p.fail("quota_offset needs quota_limit");
        }
    } else {
        addLevel(kLevels[3], config.rate(), config.capacity()); // a usage plan's rate and burst
    }
}

Nanos AwsApiGateway::periodStart(QuotaPeriod p, Nanos t)
{
    const std::int64_t day = floorDiv64(t, kNanosPerDay);
    switch (p) {
    case QuotaPeriod::Day: return day * kNanosPerDay;
    case QuotaPeriod::Week: return (floorDiv64(day + 4, 7) * 7 - 4) * kNanosPerDay; // 1970-01-01 was a Thursday
    case QuotaPeriod::Month: return Kong::periodStart(4, day * 86400) * kNanosPerSecond;
    case QuotaPeriod::None: break;
    }
    return 0;
}

std::int64_t AwsApiGateway::quotaRoom(Nanos t) const
{
    if (m_period == QuotaPeriod::None)
        return LimiterConfig::kMaxLimit;
    const Nanos start = periodStart(m_period, t);
    const bool initial = m_firstStart == kNoPeriod || start == m_firstStart; // the plan's first period
    const std::int64_t limit = m_quotaLimit - (initial ? m_quotaOffset : 0);
    return limit - (start == m_quotaStart ? m_used : 0);
}

bool AwsApiGateway::admits(Nanos t, std::int64_t cost) const
{
    if (quotaRoom(t) < cost)
        return false;
    return std::all_of(m_buckets.begin(), m_buckets.end(), [&](const TokenBucket& b) { return b.waitFor(t, cost) == 0; });
}

Decision AwsApiGateway::step(Nanos t, std::int64_t cost)
{
    Decision d;
    if (m_period != QuotaPeriod::None && m_firstStart == kNoPeriod)
        m_firstStart = periodStart(m_period, t);
    if (!admits(t, cost))
        return d; // throttled: no level gives a token, the quota counts nothing (assumed)
    for (TokenBucket& b : m_buckets)
        (void)b.decide(t, cost);
    if (m_period != QuotaPeriod::None) {
        const Nanos start = periodStart(m_period, t);
        if (start != m_quotaStart) {
            m_quotaStart = start;
            m_used = 0;
        }
        m_used += cost;
    }
    d.allowed = true;
    return d;
}

std::int32_t AwsApiGateway::remainingAt(Nanos t) const
{
    std::int64_t least = std::max<std::int64_t>(0, quotaRoom(t));
    for (const TokenBucket& b : m_buckets)
        least = std::min<std::int64_t>(least, b.remainingAt(t));
    return clampRemaining(least);
}

std::int64_t AwsApiGateway::quota() const
{
    std::int64_t least = m_period == QuotaPeriod::None ? LimiterConfig::kMaxLimit : m_quotaLimit;
    for (const TokenBucket& b : m_buckets)
        least = std::min(least, b.quota());
    return least;
}

double AwsApiGateway::levelAt(Nanos t) const
{
    double least = 0;
    for (std::size_t i = 0; i < m_buckets.size(); ++i)
        least = i == 0 ? m_buckets[i].levelAt(t) : std::min(least, m_buckets[i].levelAt(t));
    return least;
}

Memory AwsApiGateway::memory() const
{
    const std::int64_t n = std::int64_t(m_buckets.size()) + (m_period == QuotaPeriod::None ? 0 : 1);
    return {16 * n, n};
}

Rate AwsApiGateway::slowest() const
{
    Rate least = m_rates.front();
    for (const Rate& r : m_rates)
        if (Int128(r.tokens) * least.perNanos < Int128(least.tokens) * r.perNanos)
            least = r;
    return least;
}

} // namespace ratelab
