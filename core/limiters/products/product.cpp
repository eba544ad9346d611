#include "limiters/products/product.h"

#include "limiters/algorithm_facts.h"
#include "limiters/limiters.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ratelab {

namespace {

using Names = std::span<const std::string_view>;

constexpr std::string_view kExpress[] = {"windowMs", "limit", "max"};
constexpr std::string_view kFlexible[] = {"points", "duration", "blockDuration"};
constexpr std::string_view kPython[] = {"strategy", "limit"};
constexpr std::string_view kGuava[] = {"permitsPerSecond"};
constexpr std::string_view kEnvoy[] = {"max_tokens", "tokens_per_fill", "fill_interval"};
constexpr std::string_view kTraefik[] = {"average", "period", "burst"};
constexpr std::string_view kSpring[] = {"replenishRate", "burstCapacity", "requestedTokens"};
constexpr std::string_view kKong[] = {"second", "minute", "hour", "day", "month", "year"};
constexpr std::string_view kCell[] = {"max_burst", "count_per_period", "period", "quantity"};
constexpr std::string_view kNodeLimiter[] = {"tokensPerInterval", "interval"};
constexpr std::string_view kCloudflare[] = {"period", "requests_per_period", "mitigation_timeout", "counting"};
constexpr std::string_view kWaf[] = {"Limit", "EvaluationWindowSec", "rate_check_interval", "detection_delay", "action"};
constexpr std::string_view kApiGateway[] = {"account_rate", "account_burst", "stage_rate",  "stage_burst",
                                            "method_rate",  "method_burst",  "plan_rate",   "plan_burst",
                                            "quota_limit",  "quota_period",  "quota_offset"};
constexpr std::string_view kUpstash[] = {"limiter", "tokens", "window", "refillRate", "interval", "maxTokens", "ephemeralCache"};

} // namespace

std::span<const std::string_view> productOptionNames(Algorithm a)
{
    switch (a) {
    case Algorithm::ExpressRateLimit: return kExpress;
    case Algorithm::RateLimiterFlexible: return kFlexible;
    case Algorithm::PythonLimits: return kPython;
    case Algorithm::Guava: return kGuava;
    case Algorithm::EnvoyLocal: return kEnvoy;
    case Algorithm::Traefik: return kTraefik;
    case Algorithm::SpringGateway: return kSpring;
    case Algorithm::Kong: return kKong;
    case Algorithm::RedisCell: return kCell;
    case Algorithm::NodeLimiter: return kNodeLimiter;
    case Algorithm::UpstashRatelimit: return kUpstash;
    case Algorithm::CloudflareRate: return kCloudflare;
    case Algorithm::AwsWafRate: return kWaf;
    case Algorithm::AwsApiGateway: return kApiGateway;
    default: return {};
    }
}

ProductParams::ProductParams(Algorithm a, const LimiterConfig& config)
    : m_algorithm(a)
    , m_config(config)
{
    for (std::string_view name : productOptionNames(a))
        if (text(name))
            m_given = true;
}

bool readsOwnOptions(Algorithm a, const LimiterConfig& config) { return isProduct(a) && ProductParams(a, config).given(); }

std::optional<std::string> ProductParams::text(std::string_view name) const
{
    const std::string qualified = std::string(algorithmId(m_algorithm)) + "." + std::string(name);
    std::optional<std::string> plain;
    std::optional<std::string> own;
    for (const ProductOption& o : m_config.productOptions()) {
        if (o.name == qualified)
            own = o.value;
        else if (o.name == name)
            plain = o.value;
    }
    return own ? own : plain;
}

void ProductParams::fail(const std::string& message) const
{
    throw InputError(std::string(algorithmId(m_algorithm)) + ": " + message);
}

std::int64_t ProductParams::integer(std::string_view name, std::int64_t fallback, std::int64_t min, std::int64_t max) const
{
    const std::optional<std::string> t = text(name);
    if (!t)
        return fallback;
    try {
        return parseIntegerIn(*t, min, max);
    } catch (const InputError& e) {
        fail(std::string(name) + " " + e.what());
    }
}

std::int64_t ProductParams::requiredInteger(std::string_view name, std::int64_t min, std::int64_t max) const
{
    if (!text(name))
        fail(std::string(name) + " is required once any of its options is given");
    return integer(name, 0, min, max);
}

Nanos ProductParams::duration(std::string_view name, std::optional<Nanos> fallback, Nanos plainUnit) const
{
    const std::optional<std::string> t = text(name);
    if (!t) {
        if (!fallback)
            fail(std::string(name) + " is required once any of its options is given");
        return *fallback;
    }
    Nanos n = 0;
    try {
        n = parseDurationText(*t, plainUnit);
    } catch (const InputError& e) {
        fail(std::string(name) + " " + quoted(*t) + ": " + e.what());
    }
    if (n <= 0)
        fail(std::string(name) + " must be greater than 0 (got " + quoted(*t) + ")");
    return n;
}

double ProductParams::real(std::string_view name, std::optional<double> fallback) const
{
    const std::optional<std::string> t = text(name);
    if (!t) {
        if (!fallback)
            fail(std::string(name) + " is required once any of its options is given");
        return *fallback;
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || end != t->c_str() + t->size() || errno != 0 || !std::isfinite(v) || !(v > 0))
        fail(std::string(name) + " must be a positive number (got " + quoted(*t) + ")");
    return v;
}

std::string ProductParams::choice(std::string_view name, std::string_view fallback,
                                  std::span<const std::string_view> allowed) const
{
    const std::string v = text(name).value_or(std::string(fallback));
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end())
        return v;
    std::string known;
    for (std::string_view a : allowed)
        known += (known.empty() ? "" : ", ") + std::string(a);
    fail(std::string(name) + " must be one of " + known + " (got " + quoted(v) + ")");
}

std::optional<std::string> productOptionText(Algorithm a, const LimiterConfig& config, std::string_view name)
{
    return ProductParams(a, config).text(name);
}

LimiterConfig withProductOption(const LimiterConfig& config, Algorithm a, std::string_view name,
                                const std::optional<std::string>& value)
{
    const std::string qualified = std::string(algorithmId(a)) + "." + std::string(name);
    std::vector<ProductOption> options;
    bool written = false;
    for (const ProductOption& o : config.productOptions()) {
        if (o.name == qualified || (!value && o.name == name)) {
            if (value && !written)
                options.push_back({qualified, *value}); // in the place it had
            written = written || value.has_value();
            continue;
        }
        options.push_back(o);
    }
    if (value && !written)
        options.push_back({qualified, *value});
    return config.withProductOptions(std::move(options));
}

ProductOption parseProductOption(std::string_view text)
{
    const std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw InputError("--product-option: expected name=value or product.name=value (got " + quoted(text) + ")");
    ProductOption o{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
    const std::size_t dot = o.name.find('.');
    const std::string_view bare = dot == std::string::npos ? std::string_view(o.name) : std::string_view(o.name).substr(dot + 1);
    bool known = false;
    for (Algorithm a : kEveryAlgorithm) {
        if (dot != std::string::npos && algorithmId(a) != std::string_view(o.name).substr(0, dot))
            continue;
        if (dot != std::string::npos && !isProduct(a))
            throw InputError("--product-option: " + quoted(o.name.substr(0, dot)) + " is not a product model");
        const auto names = productOptionNames(a);
        known = known || std::find(names.begin(), names.end(), bare) != names.end();
    }
    if (!known)
        throw InputError("--product-option: no product reads " + quoted(o.name));
    return o;
}

double productQuota(Algorithm a, const LimiterConfig& config)
{
    try {
        return double(visitLimiter(a, config, [](const auto& l) { return l.quota(); }));
    } catch (const InputError&) {
        return 0.0;
    }
}

void checkProductOptions(const LimiterConfig& config, std::span<const Algorithm> algorithms)
{
    for (const ProductOption& o : config.productOptions()) {
        const std::size_t dot = o.name.find('.');
        const std::string_view bare = dot == std::string::npos ? std::string_view(o.name) : std::string_view(o.name).substr(dot + 1);
        bool read = false;
        for (Algorithm a : algorithms) {
            if (dot != std::string::npos && algorithmId(a) != std::string_view(o.name).substr(0, dot))
                continue;
            const auto names = productOptionNames(a);
            read = read || std::find(names.begin(), names.end(), bare) != names.end();
        }
        if (!read)
            throw InputError("product option " + quoted(o.name) + ": none of the chosen algorithms reads it");
    }
    for (Algorithm a : algorithms)
        if (isProduct(a))
            visitLimiter(a, config, [](auto&) {}); // each product refuses its own bad values
}

} // namespace ratelab
