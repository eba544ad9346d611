// Kong is Kong's rate-limiting plugin with `policy: local` as Kong 3.10.0 computes it (commit
// 22246ef28c16842098369b494eef879222e30c7b): kong/plugins/rate-limiting/handler.lua (access),
// policies/init.lua (the "local" policy) and kong/tools/timestamp.lua (get_timestamps).
//
// Limits per second, minute, hour, day, month and year (any of them); time is ngx.time(), WHOLE
// seconds. Each period's window starts at its calendar boundary in UTC (minute :00, hour, day at
// midnight, month on the 1st, year on Jan 1st; t = 0 is 1970-01-01T00:00:00Z). access() reads
// each period's count of its current window; if limit - count <= 0 for any, 429 and nothing is
// counted; else every configured period's counter is incremented by 1 (in a timer right after
// the request: here before the next request is handled). So the boundary burst of a fixed
// window is there, per period, on the clock's boundaries. Cost k (RateLab's extension) needs k
// left in every period and counts k.
#pragma once

#include "limiters/products/product.h"

#include <array>

namespace ratelab {

class Kong final : public ProductLimiter<Kong> {
    friend class ProductLimiter<Kong>;
public:
    static constexpr int kPeriods = 6; // second, minute, hour, day, month, year

    explicit Kong(const LimiterConfig& config);

    std::int32_t remainingAt(Nanos t) const;
    std::int64_t quota() const;
    double levelAt(Nanos t) const;
    Memory memory() const;
    Algorithm algorithm() const { return Algorithm::Kong; }

    // periodStart returns the start (in whole seconds since t = 0) of period p's window holding
    // second s, as timestamp.get_timestamps does.
    static std::int64_t periodStart(int p, std::int64_t s);
    // periodName is period p's config field: "second", "minute", ... "year".
    static std::string_view periodName(int p);
    // periodNanos is the length of period p < 4, second to day (a month's and a year's vary).
    static Nanos periodNanos(int p);
    const std::array<std::int64_t, kPeriods>& limits() const { return m_limits; }

private:
    Decision step(Nanos t, std::int64_t cost);
    bool admits(Nanos t, std::int64_t cost) const;

private:
    std::int64_t usage(int p, std::int64_t s) const { return m_start[p] == periodStart(p, s) ? m_count[p] : 0; }

    std::array<std::int64_t, kPeriods> m_limits{}; // 0: not configured
    std::array<std::int64_t, kPeriods> m_start{};
    std::array<std::int64_t, kPeriods> m_count{};
};

} // namespace ratelab
