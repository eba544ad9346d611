#include "limiters/products/kong.h"

#include <algorithm>
#include <chrono>

namespace ratelab {

namespace {

constexpr std::string_view kNames[Kong::kPeriods] = {"second", "minute", "hour", "day", "month", "year"};
constexpr std::int64_t kFixed[4] = {1, 60, 3600, 86400};

} // namespace

std::int64_t Kong::periodStart(int p, std::int64_t s)
{
    if (p < 4)
        return floorDiv64(s, kFixed[p]) * kFixed[p];
    using namespace std::chrono;
    const sys_days day{days{floorDiv64(s, 86400)}};
    const year_month_day ymd{day};
    const year_month_day first = p == 4 ? ymd.year() / ymd.month() / 1 : ymd.year() / January / 1;
    return std::int64_t(sys_days{first}.time_since_epoch().count()) * 86400;
}

std::string_view Kong::periodName(int p)
{
    return kNames[p];
}

Nanos Kong::periodNanos(int p)
{
    return kFixed[p] * kNanosPerSecond;
}

Kong::Kong(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::Kong, config);
    if (p.given()) {
        for (int i = 0; i < kPeriods; ++i)
            m_limits[i] = p.integer(kNames[i], 0, 1, LimiterConfig::kMaxLimit);
    } else {
        const Nanos w = config.windowNanos();
        int i = 0;
        while (i < 4 && w != kFixed[i] * kNanosPerSecond)
            ++i;
        if (i == 4)
            p.fail("the window must be 1 s, 1 min, 1 h or 1 day for Kong (or give --product-option minute=N, ...)");
        m_limits[i] = config.limit();
    }
    m_start.fill(-1);
}

Decision Kong::step(Nanos t, std::int64_t cost)
{
    Decision d;
    if (!admits(t, cost))
        return d;
    const std::int64_t s = t / kNanosPerSecond;
    for (int p = 0; p < kPeriods; ++p) {
        if (m_limits[p] == 0)
            continue;
        const std::int64_t start = periodStart(p, s);
        if (m_start[p] != start) {
            m_start[p] = start;
            m_count[p] = 0;
        }
        m_count[p] += cost;
    }
    d.allowed = true;
    return d;
}

bool Kong::admits(Nanos t, std::int64_t cost) const
{
    const std::int64_t s = t / kNanosPerSecond;
    for (int p = 0; p < kPeriods; ++p)
        if (m_limits[p] != 0 && m_limits[p] - usage(p, s) < cost)
            return false;
    return true;
}

std::int32_t Kong::remainingAt(Nanos t) const
{
    const std::int64_t s = t / kNanosPerSecond;
    Int128 least = Int128(2'000'000'000);
    for (int p = 0; p < kPeriods; ++p)
        if (m_limits[p] != 0)
            least = std::min<Int128>(least, m_limits[p] - usage(p, s));
    return clampRemaining(least);
}

std::int64_t Kong::quota() const
{
    std::int64_t least = LimiterConfig::kMaxLimit;
    for (std::int64_t l : m_limits)
        if (l != 0)
            least = std::min(least, l);
    return least;
}

// levelAt is the count in the shortest configured period's window.
double Kong::levelAt(Nanos t) const
{
    for (int p = 0; p < kPeriods; ++p)
        if (m_limits[p] != 0)
            return double(usage(p, t / kNanosPerSecond));
    return 0.0;
}

Memory Kong::memory() const
{
    const auto n = std::count_if(m_limits.begin(), m_limits.end(), [](std::int64_t l) { return l != 0; });
    return {16 * std::int64_t(n), std::int64_t(n)};
}

} // namespace ratelab
