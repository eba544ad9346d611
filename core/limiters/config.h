// LimiterConfig is the validated configuration every limiter is built from.
//
// It can only be made through `make`, which refuses a limit below 1, a window or rate of 0, and
// values so large that the exact 128-bit arithmetic could overflow. So a limiter never sees a
// config it cannot honour.
#pragma once

#include "arithmetic/rate.h"
#include "arithmetic/nanos.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// NginxOptions are the `limit_req` parameters only nginx_limit_req reads: `burst=B`
// (default capacity - 1, so B + 1 = C), `nodelay`, `delay=D` (default 0: nginx delays every
// request beyond the first of a burst).
struct NginxOptions {
    std::optional<std::int64_t> burst;
    bool nodelay = false;
    std::int64_t delay = 0;

    friend bool operator==(const NginxOptions&, const NginxOptions&) = default;
};

// ProductOption is one `--product-option name=value` (or `product.name=value`) as given: a
// product model (core/products/) reads the names its product uses, in the product's own units.
struct ProductOption {
    std::string name;
    std::string value;

    friend bool operator==(const ProductOption&, const ProductOption&) = default;
};

class LimiterConfig {
public:
    // kMaxLimit caps limit and capacity. It keeps every product in the limiters' arithmetic
    // (count * window, tokens * perNanos) inside 128 bits.
    static constexpr std::int64_t kMaxLimit = 1'000'000'000;

    // make validates and builds a config. capacity defaults to limit, rate to limit per window.
    // It throws InputError naming the first value that is out of range.
    static LimiterConfig make(std::int64_t limit, Nanos windowNanos,
                              std::optional<std::int64_t> capacity = std::nullopt,
                              std::optional<Rate> rate = std::nullopt);

    std::int64_t limit() const { return m_limit; }
    Nanos windowNanos() const { return m_windowNanos; }
    std::int64_t capacity() const { return m_capacity; }
    Rate rate() const { return m_rate; }

    // nginx returns the nginx_limit_req options as given.
    const NginxOptions& nginx() const { return m_nginx; }
    // nginxBurst returns B: the burst given, or capacity - 1.
    std::int64_t nginxBurst() const { return m_nginx.burst.value_or(m_capacity - 1); }
    // withNginx returns a copy with these nginx options. It throws InputError for a burst or delay
    // below 0 or above kMaxLimit.
    LimiterConfig withNginx(const NginxOptions& options) const;

    // productOptions returns the product models' options, in the order given.
    const std::vector<ProductOption>& productOptions() const { return m_productOptions; }
    // withProductOptions returns a copy with these product options (each product checks its own
    // when it is built).
    LimiterConfig withProductOptions(std::vector<ProductOption> options) const
    {
        LimiterConfig c = *this;
        c.m_productOptions = std::move(options);
        return c;
    }

    // withLimits returns a config of these values (make's defaults for capacity and rate) that
    // keeps this one's nginx and product options: the textbook Limits never rewrite a product's
    // own configuration. It throws InputError as make does.
    LimiterConfig withLimits(std::int64_t limit, Nanos windowNanos, std::optional<std::int64_t> capacity = std::nullopt,
                             std::optional<Rate> rate = std::nullopt) const
    {
        return make(limit, windowNanos, capacity, rate).withNginx(m_nginx).withProductOptions(m_productOptions);
    }

    friend bool operator==(const LimiterConfig&, const LimiterConfig&) = default;

    // The default config is the documented default: limit 10 per 10 s, capacity 10, 1 per s.
    LimiterConfig() = default;

private:
    std::int64_t m_limit = 10;
    Nanos m_windowNanos = 10 * kNanosPerSecond;
    std::int64_t m_capacity = 10;
    Rate m_rate{1, kNanosPerSecond};
    NginxOptions m_nginx;
    std::vector<ProductOption> m_productOptions;
};

} // namespace ratelab
