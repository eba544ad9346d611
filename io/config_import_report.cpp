// whatYouGet: what an imported configuration does, told from its model's own decisions.
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/envoy_local.h"
#include "limiters/products/express_rate_limit.h"
#include "limiters/products/rate_limiter_flexible.h"
#include "limiters/products/product.h"

#include <cstdio>
#include <sstream>

namespace ratelab::io {

namespace {

// Belief is what the file seems to say: `count` per `per` ns, `burst` at once, a window or not.
struct Belief {
    std::int64_t count = 0;
    Nanos per = kNanosPerSecond;
    std::int64_t burst = -1; // -1: the file names none
    Nanos window = 0;        // 0: a bucket, no window
};

std::optional<std::string> wrote(const ImportedConfig& c, std::string_view name)
{
    for (const auto& [k, v] : c.wrote)
        if (k == name || (k.size() > name.size() && k.ends_with(name) && k[k.size() - name.size() - 1] == '.'))
            return v;
    return std::nullopt;
}

std::int64_t number(const std::optional<std::string>& v, std::int64_t fallback)
{
    if (!v)
        return fallback;
    try {
        return parseIntegerIn(*v, 0, LimiterConfig::kMaxLimit);
    } catch (const InputError&) {
        return fallback;
    }
}

Belief believe(const ImportedConfig& c, const Limiter& fresh)
{
    const LimiterConfig& config = c.scenario.config;
    Belief b;
    switch (c.scenario.algorithms.front()) {
    case Algorithm::NginxLimitReq:
        b.count = config.rate().tokens;
        b.per = config.rate().perNanos;
        b.burst = config.nginxBurst() + 1;
        break;
    case Algorithm::EnvoyLocal: {
        const auto& e = dynamic_cast<const EnvoyLocal&>(fresh);
        b.count = e.tokensPerFill();
        b.per = e.fillInterval();
        b.burst = e.maxTokens();
        break;
    }
    case Algorithm::Traefik:
        b.count = number(wrote(c, "average"), 0);
        b.per = kNanosPerSecond;
        if (const auto p = wrote(c, "period")) {
            const LimiterConfig probe = LimiterConfig{}.withProductOptions({{"period", *p}});
            b.per = ProductParams(Algorithm::Traefik, probe).duration("period", kNanosPerSecond, kNanosPerSecond);
        }
        b.burst = std::max<std::int64_t>(1, number(wrote(c, "burst"), 1));
        break;
    case Algorithm::SpringGateway:
        b.count = number(wrote(c, "replenishRate"), 1);
        b.burst = number(wrote(c, "burstCapacity"), 1);
        break;
    case Algorithm::Kong: {
        constexpr std::pair<const char*, std::int64_t> periods[] = {{"second", 1},   {"minute", 60},      {"hour", 3600},
                                                                    {"day", 86400}, {"month", 2592000}, {"year", 31536000}};
        for (const auto& [name, seconds] : periods)
            if (const auto v = wrote(c, std::string("config.") + name); v && b.count == 0) {
                b.count = number(v, 1);
                b.per = b.window = seconds * kNanosPerSecond;
                b.burst = b.count;
            }
        break;
    }
    case Algorithm::ExpressRateLimit:
        b.count = b.burst = fresh.quota();
        b.per = b.window = dynamic_cast<const ExpressRateLimit&>(fresh).windowMs() * 1'000'000;
        break;
    case Algorithm::RateLimiterFlexible:
        b.count = b.burst = fresh.quota();
        b.per = b.window = std::max<std::int64_t>(1, dynamic_cast<const RateLimiterFlexible&>(fresh).durationMs()) * 1'000'000;
        break;
    default:
        b.count = fresh.quota();
        break;
    }
    return b;
}

// admitted counts the requests of `times` the product admits (held back ones included).
std::int64_t admitted(const ImportedConfig& c, const std::vector<Nanos>& times)
{
    const std::unique_ptr<Limiter> l = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    std::int64_t n = 0;
    for (Nanos t : times)
        n += l->decide(t).allowed ? 1 : 0;
    return n;
}

std::string perSecond(double r)
{
    char buf[96];
    if (r <= 0)
        return "nothing after the first burst";
    if (r >= 1)
        std::snprintf(buf, sizeof buf, "%.6g per second", r);
    else
        std::snprintf(buf, sizeof buf, "%.6g per second (one every %.6g s)", r, 1 / r);
    return buf;
}

std::string seconds(Nanos n) { return formatSeconds(n) + " s"; }

} // namespace

std::string whatYouGet(const ImportedConfig& c)
{
    const Algorithm a = c.scenario.algorithms.front();
    const std::unique_ptr<Limiter> fresh = makeLimiter(a, c.scenario.config);
    const Belief b = believe(c, *fresh);
    std::ostringstream out;
    out << "What you wrote (" << c.product << "):";
    for (const auto& [k, v] : c.wrote)
        out << " " << k << (v.empty() ? "" : " " + v) << ";";
    out << "\nModelled as " << algorithmId(a) << ".\n\nWhat you get:\n";

    // Burst: requests at one instant from a fresh start.
    std::int64_t burst = 0;
    {
        const std::unique_ptr<Limiter> l = fresh->clone();
        while (burst < 100000 && l->decide(0).allowed)
            ++burst;
    }
    const bool unlimited = burst >= 100000;
    out << "  burst      " << (unlimited ? std::string("no limit (100000 at once all pass)") : std::to_string(burst) + " at once from idle") << "\n";

    // Effective rate: a stream 8 times as dense as the written rate, measured over its second half.
    const Nanos written = b.count > 0 ? std::max<Nanos>(1, b.per / b.count) : kNanosPerSecond;
    const Nanos span = 16 * std::max({b.window, b.per, written});
    const Nanos step = std::max<Nanos>(2 * span / 1'000'000, std::max<Nanos>(1, written / 8));
    std::vector<Nanos> stream;
    for (Nanos t = 0; t < 2 * span; t += step)
        stream.push_back(t);
    std::int64_t late = 0;
    {
        const std::unique_ptr<Limiter> l = fresh->clone();
        for (Nanos t : stream)
            late += l->decide(t).allowed && t >= span ? 1 : 0;
    }
    const double rate = double(late) / (double(span) / 1e9);
    out << "  rate       " << (unlimited ? std::string("no limit") : perSecond(rate)) << " under a stream 8 times as dense (you wrote "
        << (b.count > 0 ? perSecond(double(b.count) * 1e9 / double(b.per)) : std::string("no rate")) << ")\n";
    out << "  window     " << (b.window > 0 ? seconds(b.window) : std::string("none: a bucket")) << "\n\nTraffic:\n";

    std::string surprise;
    if (b.burst == 0 && burst == 0)
        surprise = "a burst of 0 does not switch limiting off: every request is refused";
    else if (unlimited && b.count > 0)
        surprise = "limiting is off: every request passes, however many arrive at once";
    else if (b.burst > 0 && burst != b.burst)
        surprise = "you wrote a burst of " + std::to_string(b.burst) + ", but " + std::to_string(burst) + " pass at once";
    else if (b.count > 0 && rate < 0.99 * double(b.count) * 1e9 / double(b.per))
        surprise = "you wrote " + perSecond(double(b.count) * 1e9 / double(b.per)) + ", but at most " + perSecond(rate)
                 + " pass";

    // A page load: 27 requests 2 ms apart.
    std::vector<Nanos> page;
    for (int i = 0; i < 27; ++i)
        page.push_back(i * 2'000'000);
    const std::int64_t pageIn = admitted(c, page);
    out << "  page load (27 requests in 52 ms):            " << pageIn << " pass, " << 27 - pageIn << " refused\n";
    const double writtenPerSecond = b.count > 0 ? double(b.count) * 1e9 / double(b.per) : 0;
    if (surprise.empty() && pageIn < 27 && (writtenPerSecond >= 27 || b.burst >= 27))
        surprise = "a page load of 27 requests gets " + std::to_string(27 - pageIn) + " refused although you wrote "
                 + perSecond(writtenPerSecond) + ": the rate is spread evenly, one every " + seconds(written);

    // A steady stream at the written rate: 20 requests, one every written interval.
    std::vector<Nanos> steady;
    for (int i = 0; i < 20; ++i)
        steady.push_back(i * written);
    const std::int64_t steadyIn = admitted(c, steady);
    out << "  steady stream (20 at the rate you wrote):    " << steadyIn << " pass, " << 20 - steadyIn << " refused\n";
    if (surprise.empty() && steadyIn < 20)
        surprise = "a steady stream at the rate you wrote gets " + std::to_string(20 - steadyIn) + " of 20 refused";

    // A boundary burst: one request opens the window, quota - 1 arrive 1 ms before its end, quota at it.
    if (b.window > 0 && b.count > 0 && b.count <= 10000) {
        std::vector<Nanos> edge{0};
        for (std::int64_t i = 1; i < b.count; ++i)
            edge.push_back(b.window - 1'000'000);
        for (std::int64_t i = 0; i < b.count; ++i)
            edge.push_back(b.window);
        const std::int64_t edgeIn = admitted(c, edge) - 1;
        out << "  boundary burst (" << 2 * b.count - 1 << " within 1 ms across a window end): " << edgeIn << " pass\n";
        if (surprise.empty() && edgeIn > b.count)
            surprise = std::to_string(edgeIn) + " requests pass within 1 ms across a window boundary, with a limit of "
                     + std::to_string(b.count);
    } else {
        out << "  boundary burst: no window (the bucket refills " << (a == Algorithm::EnvoyLocal ? "at each fill" : "continuously")
            << ")\n";
    }
    if (surprise.empty() && b.window == 0 && b.count > burst && b.count > 1)
        surprise = std::to_string(b.count) + " per " + seconds(b.per) + " is one every " + seconds(written) + ": "
                 + std::to_string(b.count) + " at once do not pass, only " + std::to_string(burst);
    out << "\nFirst surprise: " << (surprise.empty() ? std::string("none on these shapes") : surprise) << ".\n";
    return out.str();
}

} // namespace ratelab::io
