#include "limiters/config.h"

#include "arithmetic/decimal.h"

#include <string>

namespace ratelab {

LimiterConfig LimiterConfig::make(std::int64_t limit, Nanos windowNanos, std::optional<std::int64_t> capacity,
                                  std::optional<Rate> rate)
{
    const std::string cap = std::to_string(kMaxLimit);
    if (limit < 1)
        throw InputError("limit must be at least 1 (got " + std::to_string(limit) + ")");
    if (limit > kMaxLimit)
        throw InputError("limit must be at most " + cap + " (got " + std::to_string(limit) + ")");
    if (windowNanos <= 0)
        throw InputError("window must be greater than 0 s (got " + formatSeconds(windowNanos) + " s)");
    if (capacity && *capacity < 1)
        throw InputError("capacity must be at least 1 (got " + std::to_string(*capacity) + ")");
    if (capacity && *capacity > kMaxLimit)
        throw InputError("capacity must be at most " + cap + " (got " + std::to_string(*capacity) + ")");
    if (rate && (rate->tokens <= 0 || rate->perNanos <= 0))
        throw InputError("rate must be greater than 0");

    LimiterConfig c;
    c.m_limit = limit;
    c.m_windowNanos = windowNanos;
    c.m_capacity = capacity.value_or(limit);
    c.m_rate = rate ? Rate::reduced(rate->tokens, rate->perNanos) : Rate::reduced(limit, windowNanos);
    return c;
}

LimiterConfig LimiterConfig::withNginx(const NginxOptions& options) const
{
    const std::string cap = std::to_string(kMaxLimit);
    if (options.burst && (*options.burst < 0 || *options.burst > kMaxLimit))
        throw InputError("burst must be 0 to " + cap + " (got " + std::to_string(*options.burst) + ")");
    if (options.delay < 0 || options.delay > kMaxLimit)
        throw InputError("nginx delay must be 0 to " + cap + " (got " + std::to_string(options.delay) + ")");
    LimiterConfig c = *this;
    c.m_nginx = options;
    return c;
}

} // namespace ratelab
