#include "limiters/nginx_limit_req.h"

#include "arithmetic/decimal.h"

#include <string>

namespace ratelab {

namespace {

// perUnit returns the rate per `unitNanos` (1 s or 1 min) as tokens * unit / perNanos, with
// whether it is a whole number. Rates are positive and reduced.
Int128 perUnit(const Rate& rate, Nanos unitNanos, bool& whole)
{
    const Int128 scaled = Int128(rate.tokens) * unitNanos;
    whole = scaled % rate.perNanos == 0;
    return scaled / rate.perNanos;
}

std::string count(Int128 n) { return std::to_string(static_cast<long long>(n)); }

// kMaxNginxPerSecond keeps rate * 1000 and rate * ms inside 64 and 128 bits.
constexpr Int128 kMaxNginxPerSecond = 1'000'000'000'000;

} // namespace

std::int64_t nginxRateThousandths(const Rate& rate)
{
    bool wholePerSecond = false, wholePerMinute = false;
    const Int128 perSecond = perUnit(rate, kNanosPerSecond, wholePerSecond);
    const Int128 perMinute = perUnit(rate, 60 * kNanosPerSecond, wholePerMinute);
    if (perSecond > kMaxNginxPerSecond)
        throw InputError("nginx_limit_req: rate " + rate.exactText() + " per s is more than nginx_limit_req models ("
                         + count(kMaxNginxPerSecond) + "r/s)");
    if (wholePerSecond && perSecond >= 1)
        return static_cast<std::int64_t>(perSecond * 1000);
    if (wholePerMinute && perMinute >= 1)
        return static_cast<std::int64_t>(perMinute * 1000 / 60); // nginx truncates to thousandths
    // The nearest rates nginx can write: per minute around it, and per second when above 1/s.
    std::string nearest;
    if (perMinute >= 1)
        nearest = count(perMinute) + "r/m or " + count(perMinute + 1) + "r/m";
    else
        nearest = "1r/m";
    if (perSecond >= 1)
        nearest += " (or " + count(perSecond) + "r/s or " + count(perSecond + 1) + "r/s)";
    throw InputError("nginx_limit_req: rate " + rate.exactText()
                     + " per s is not a whole number per second or per minute, which is all nginx can write; nearest: "
                     + nearest);
}

std::string nginxRateText(const Rate& rate)
{
    const std::int64_t thousandths = nginxRateThousandths(rate);
    bool whole = false;
    const Int128 perSecond = perUnit(rate, kNanosPerSecond, whole);
    if (whole && perSecond >= 1 && perSecond * 1000 == thousandths)
        return count(perSecond) + "r/s";
    return count(perUnit(rate, 60 * kNanosPerSecond, whole)) + "r/m";
}

std::string nginxDirectives(const LimiterConfig& config, const std::string& key, std::int64_t megabytes)
{
    // nginx refuses burst=0 ("invalid burst value"): no burst is written as none.
    std::string out = "limit_req_zone " + key + " zone=ratelab:" + std::to_string(megabytes)
                    + "m rate=" + nginxRateText(config.rate())
                    + ";\nlimit_req zone=ratelab";
    if (config.nginxBurst() > 0)
        out += " burst=" + std::to_string(config.nginxBurst());
    if (config.nginx().nodelay)
        out += " nodelay";
    else if (config.nginx().delay > 0)
        out += " delay=" + std::to_string(config.nginx().delay);
    return out + ";\n";
}

} // namespace ratelab
