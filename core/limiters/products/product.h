// What every product model shares: reading the product's own options, and the Limiter answers
// (retry_after, remaining, level) built from the product's own decision.
//
// A product model decides as the product's code does, in the product's units and rounding, and
// keeps the state that code keeps. Three rules hold for all of them:
// - Options: a product reads the names its product spells (`windowMs`, `replenishRate`,
//   `max_burst`). When none of them is given, it is configured from RateLab's own limit L,
//   window W, capacity C and rate r (so it runs beside the textbook algorithms); once any is
//   given, the product's own defaults fill the rest and its required options must be there.
// - `name=value` applies to every chosen product that reads `name`; `product.name=value` to that
//   product only (it wins over the plain form).
// - retry_after is the least d with the product admitting one request at t + d, found by
//   asking the product's own predicate (admits) on exponentially growing then halving d: every
//   product's admission is monotone in time when nothing else arrives, so this is exact.
#pragma once

#include "arithmetic/decimal.h"
#include "limiters/limiter.h"

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// ProductParams reads one product's options out of a config, checking each value.
class ProductParams {
public:
    ProductParams(Algorithm a, const LimiterConfig& config);

    // given is true when any option of this product was given: then the product's own
    // defaults apply, not RateLab's L, W, C, r.
    bool given() const { return m_given; }
    // text returns the value given for name ("product.name" first, then "name"; the last wins).
    std::optional<std::string> text(std::string_view name) const;
    // integer reads a whole number in [min, max].
    std::int64_t integer(std::string_view name, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
    // requiredInteger reads a whole number that must be given.
    std::int64_t requiredInteger(std::string_view name, std::int64_t min, std::int64_t max) const;
    // duration reads a duration: a number with a unit ("1m", "500ms", "1.5s", "2h") or a plain
    // number in plainUnit nanoseconds (the product's own unit: 1 s, 1 ms). Exact; > 0.
    Nanos duration(std::string_view name, std::optional<Nanos> fallback, Nanos plainUnit) const;
    // real reads a positive number as the product holds it, a double (strtod: round to nearest).
    double real(std::string_view name, std::optional<double> fallback) const;
    // choice reads one of the listed words.
    std::string choice(std::string_view name, std::string_view fallback, std::span<const std::string_view> allowed) const;
    // fail throws InputError prefixed with the product's id.
    [[noreturn]] void fail(const std::string& message) const;

    const LimiterConfig& config() const { return m_config; }

private:
    Algorithm m_algorithm;
    const LimiterConfig& m_config;
    bool m_given = false;
};

// readsOwnOptions is true for a product given any option of its own: it then reads those and its
// product's defaults, none of RateLab's L, W, C, r. False for every other algorithm.
bool readsOwnOptions(Algorithm a, const LimiterConfig& config);

// productOptionNames lists the options a product reads, spelled as the product spells them.
std::span<const std::string_view> productOptionNames(Algorithm a);

// parseProductOption parses "name=value" or "product.name=value" (--product-option). It throws
// InputError for text without '=', an empty name, or an unknown product prefix.
ProductOption parseProductOption(std::string_view text);

// productOptionText returns the value product a reads for option `name` ("a.name" first, then
// a plain "name"), or nullopt when it is not given.
std::optional<std::string> productOptionText(Algorithm a, const LimiterConfig& config, std::string_view name);

// withProductOption returns config with product a's option `name` given as value (written
// "a.name", which wins over a plain "name" another product may read too), or, with no value,
// with neither a's nor a plain value for it (a then takes its default, or the Limits'). The
// other options keep their order.
LimiterConfig withProductOption(const LimiterConfig& config, Algorithm a, std::string_view name,
                                const std::optional<std::string>& value);

// checkProductOptions throws InputError for an option that none of the chosen products reads,
// and builds each chosen product once so that a bad value is refused before a run starts.
void checkProductOptions(const LimiterConfig& config, std::span<const Algorithm> algorithms);

// productQuota returns the quota of product a built from config (0 when config does not build
// it): where its chart draws the ceiling.
double productQuota(Algorithm a, const LimiterConfig& config);

// saturatingCast converts a double to int64 as Java's (long) and Rust's `as i64` do: NaN is 0,
// values beyond the range are the nearest end. (A plain C++ cast is undefined there.)
inline std::int64_t saturatingCast(double x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0)
        return std::numeric_limits<std::int64_t>::max();
    if (x <= -9223372036854775808.0)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(x);
}

// goCast converts a double to int64 as Go does on amd64 (CVTTSD2SQ): out of range or NaN gives
// the "integer indefinite" value, the most negative int64.
inline std::int64_t goCast(double x)
{
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775807.0))
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(x);
}

// wholeUnits returns n / unit when unit divides n exactly, else nullopt (RateLab's W in a
// product's whole milliseconds or seconds).
inline std::optional<std::int64_t> wholeUnits(Nanos n, Nanos unit)
{
    return n % unit == 0 ? std::optional<std::int64_t>(n / unit) : std::nullopt;
}

// ProductLimiter is the base of every product model (CRTP: `class Kong final : public
// ProductLimiter<Kong>`): the product decides (step) and says whether a request would pass
// (admits); the limiter's other answers follow from those. A product declares
//  - step(t, cost): decides one request as the product does, changing state as it does (some
//    products count denied requests too); it sets allowed and, for a product that holds requests
//    back (Traefik), delay;
//  - admits(t, cost) const: whether a request at t (not earlier than the last) would pass,
//    without changing state;
//  - and, when a cost no wait can admit is not simply one over quota(), neverAdmits(cost) const.
template <typename Product>
class ProductLimiter {
public:
    Decision decide(Nanos t) { return decide(t, 1); }

    Decision decide(Nanos t, std::int64_t cost)
    {
        Product& p = self();
        Decision d = p.step(t, cost);
        if (!d.allowed)
            d.retryAfter = p.neverAdmits(cost) ? kRetryNever : waitFor(t, cost);
        d.remaining = p.remainingAt(t);
        d.level = p.levelAt(t);
        return d;
    }

    // waitFor doubles d until the product admits at t + d, then halves the gap: exact, since
    // admission only grows with time when nothing else arrives. kRetryNever when no time helps.
    Nanos waitFor(Nanos t, std::int64_t cost) const
    {
        const Product& p = self();
        if (p.admits(t, cost))
            return 0;
        Nanos lo = 0; // denied at t + lo
        Nanos hi = 1;
        while (!p.admits(t + hi, cost)) {
            lo = hi;
            if (hi > (kMaxNanos - t) / 2)
                return kRetryNever;
            hi *= 2;
        }
        while (hi - lo > 1) {
            const Nanos mid = lo + (hi - lo) / 2;
            (p.admits(t + mid, cost) ? hi : lo) = mid;
        }
        return hi;
    }

protected:
    bool neverAdmits(std::int64_t cost) const { return cost > self().quota(); }

private:
    Product& self() { return static_cast<Product&>(*this); }
    const Product& self() const { return static_cast<const Product&>(*this); }
};

} // namespace ratelab
