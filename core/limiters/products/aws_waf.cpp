#include "limiters/products/aws_waf.h"

#include <algorithm>

namespace ratelab {

namespace {

constexpr std::int64_t kWindows[] = {60, 120, 300, 600};
constexpr std::string_view kActions[] = {"Block", "Count"};

} // namespace

AwsWafRate::AwsWafRate(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::AwsWafRate, config);
    Nanos check = 10 * kNanosPerSecond;
    if (p.given()) {
        m_limit = p.requiredInteger("Limit", 10, 2'000'000'000);
        const std::int64_t windowSec = p.integer("EvaluationWindowSec", 300, 60, 600);
        if (std::find(std::begin(kWindows), std::end(kWindows), windowSec) == std::end(kWindows))
            p.fail("EvaluationWindowSec must be 60, 120, 300 or 600 (AWS WAF's values)");
        m_window = windowSec * kNanosPerSecond;
    } else {
        // RateLab's L per W, beside the textbook rows, even where AWS offers no such rule (a limit
        // below 10, another window); checks every 10 s where that divides W, else once a window.
        m_limit = config.limit();
        m_window = config.windowNanos();
        if (m_window % check != 0)
            check = m_window;
    }
    m_check = p.duration("rate_check_interval", check, kNanosPerSecond);
    m_delay = p.text("detection_delay") == std::optional<std::string>("0")
                  ? 0
                  : p.duration("detection_delay", 30 * kNanosPerSecond, kNanosPerSecond);
    m_countOnly = p.choice("action", "Block", kActions) == "Count";
    if (m_window % m_check != 0)
        p.fail("rate_check_interval must divide the evaluation window in this model");
    if (m_delay > 86400 * kNanosPerSecond)
        p.fail("detection_delay must be at most a day in this model");
}

std::int64_t AwsWafRate::countBetween(Nanos from, Nanos to) const
{
    std::int64_t n = 0;
    for (const auto& [index, requests] : m_buckets)
        if (Int128(index) * m_check >= from && Int128(index) * m_check < to)
            n += requests;
    return n;
}

bool AwsWafRate::blockedAt(Nanos t) const
{
    if (t - m_delay < m_check)
        return false; // no check has taken effect (the one at 0 saw nothing)
    const Nanos check = (t - m_delay) / m_check * m_check;
    return countBetween(check - m_window, check) > m_limit;
}

Decision AwsWafRate::step(Nanos t, std::int64_t cost)
{
    Decision d;
    d.allowed = m_countOnly || !blockedAt(t);
    const std::int64_t index = t / m_check;
    if (m_buckets.empty() || m_buckets.back().first != index)
        m_buckets.emplace_back(index, 0);
    m_buckets.back().second += cost; // every matching request is counted, blocked or not
    // The oldest check still to take effect is the one in force now: older intervals are done.
    const Nanos oldest = std::max<Nanos>(0, t - m_delay) / m_check * m_check - m_window;
    while (!m_buckets.empty() && Int128(m_buckets.front().first) * m_check < oldest)
        m_buckets.pop_front();
    return d;
}

std::int32_t AwsWafRate::remainingAt(Nanos t) const
{
    // Until the next verdict takes effect, every request passes: no count at t refuses one.
    return !m_countOnly && blockedAt(t) ? 0 : clampRemaining(Int128(2'000'000'000));
}

double AwsWafRate::levelAt(Nanos t) const
{
    std::int64_t n = 0;
    for (const auto& [index, requests] : m_buckets)
        if (Int128(index + 1) * m_check > t - m_window)
            n += requests;
    return double(n);
}

} // namespace ratelab
