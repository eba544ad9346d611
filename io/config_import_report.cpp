// whatYouGet: what an imported configuration does, told from its model's own decisions.
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "engine/layered.h"
#include "limiters/products/aws_api_gateway.h"
#include "limiters/products/aws_waf.h"
#include "limiters/products/cloudflare.h"
#include "limiters/products/envoy_local.h"
#include "limiters/products/express_rate_limit.h"
#include "limiters/products/rate_limiter_flexible.h"
#include "limiters/products/upstash.h"
#include "limiters/products/product.h"

#include <cstdio>
#include <optional>
#include <sstream>

namespace ratelab::io {

namespace {

// Belief is what the file seems to say: `count` per `per` ns in the long run, `burst` at once, a
// window of `windowLimit` (the shortest window) or none, and the longest period any limit counts.
struct Belief {
    std::int64_t count = 0;
    Nanos per = kNanosPerSecond;
    std::int64_t burst = -1; // -1: the file names none
    Nanos window = 0;        // 0: a bucket, no window
    std::int64_t windowLimit = 0;
    Nanos longest = 0;
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

// slower is true when a per b is a slower rate than c per d (a*d < c*b), exactly.
bool slower(std::int64_t a, Nanos b, std::int64_t c, Nanos d) { return Int128(a) * d < Int128(c) * b; }

// spendingTime bounds how long a client sending as fast as every limit lets it takes to fill the
// slowest limit's burst (count per `per` ns), when faster limits pace it: before that limit is
// full at least the next slowest rate r2 passes, so its excess grows by r2 - r at least and it
// is full within (burst + 1) / (r2 - r). Twice that, so the long-run rate is measured after it
// (0 when no limit is faster).
Nanos spendingTime(const std::vector<LimiterConfig>& limits, std::int64_t count, Nanos per)
{
    const double slowest = double(count) * 1e9 / double(per);
    double next = 0, burst = 0;
    for (const LimiterConfig& l : limits) {
        const double r = double(l.rate().tokens) * 1e9 / double(l.rate().perNanos);
        if (r > slowest && (next == 0 || r < next))
            next = r;
        if (!slower(count, per, l.rate().tokens, l.rate().perNanos)) // the slowest (or as slow)
            burst = std::max(burst, double(l.nginxBurst() + 1));
    }
    if (next == 0)
        return 0;
    return Nanos(std::min(2 * burst / (next - slowest), 1e6) * 1e9);
}

// nginxBelief: every layer (or the one limit): the slowest rate binds in the long run, the
// smallest burst at once.
Belief nginxBelief(const ImportedConfig& c)
{
    const LimiterConfig& config = c.scenario.config;
    Belief b;
    std::vector<LimiterConfig> limits{config};
    for (const Layer& l : c.scenario.layers)
        limits.push_back(l.config);
    b.count = config.rate().tokens;
    b.per = config.rate().perNanos;
    b.burst = config.nginxBurst() + 1;
    for (const LimiterConfig& l : limits) {
        if (slower(l.rate().tokens, l.rate().perNanos, b.count, b.per)) {
            b.count = l.rate().tokens;
            b.per = l.rate().perNanos;
        }
        b.burst = std::min(b.burst, l.nginxBurst() + 1);
    }
    b.longest = spendingTime(limits, b.count, b.per);
    return b;
}

Belief traefikBelief(const ImportedConfig& c)
{
    Belief b;
    b.count = number(wrote(c, "average"), 0);
    b.per = kNanosPerSecond;
    if (const auto p = wrote(c, "period")) {
        const LimiterConfig probe = LimiterConfig{}.withProductOptions({{"period", *p}});
        b.per = ProductParams(Algorithm::Traefik, probe).duration("period", kNanosPerSecond, kNanosPerSecond);
    }
    b.burst = std::max<std::int64_t>(1, number(wrote(c, "burst"), 1));
    return b;
}

// kongBelief: the shortest period is the window a burst meets; the slowest limit binds in the
// long run.
Belief kongBelief(const ImportedConfig& c)
{
    Belief b;
    constexpr std::pair<const char*, std::int64_t> periods[] = {{"second", 1},   {"minute", 60},      {"hour", 3600},
                                                                {"day", 86400}, {"month", 2592000}, {"year", 31536000}};
    for (const auto& [name, seconds] : periods)
        if (const auto v = wrote(c, std::string("config.") + name)) {
            const std::int64_t n = number(v, 1);
            const Nanos period = seconds * kNanosPerSecond;
            if (b.window == 0) {
                b.window = period;
                b.windowLimit = b.burst = n;
            }
            if (b.count == 0 || slower(n, period, b.count, b.per)) {
                b.count = n;
                b.per = period;
            }
            b.longest = period;
        }
    return b;
}

Belief upstashBelief(const AnyLimiter& fresh) // the package's own numbers
{
    Belief b;
    const auto& u = std::get<UpstashRatelimit>(fresh);
    const bool bucket = u.kind() == UpstashRatelimit::Kind::TokenBucket;
    b.count = bucket ? u.refillRate() : u.tokens();
    b.per = (bucket ? u.intervalMs() : u.windowMs()) * 1'000'000;
    b.burst = fresh.quota();
    if (!bucket) {
        b.window = b.per;
        b.windowLimit = u.tokens();
    }
    return b;
}

// cloudflareBelief: a ruleset's later rules, layers: the slowest binds in the long run, the fewest
// at once and the shortest period is the window a burst meets.
Belief cloudflareBelief(const ImportedConfig& c, const AnyLimiter& fresh)
{
    Belief b;
    const auto& r = std::get<CloudflareRate>(fresh);
    b.count = b.burst = b.windowLimit = r.requestsPerPeriod();
    b.per = b.window = r.period();
    for (const Layer& l : c.scenario.layers) {
        const auto layer = makeLimiter(l.algorithm, l.config);
        const auto& rule = std::get<CloudflareRate>(layer);
        if (slower(rule.requestsPerPeriod(), rule.period(), b.count, b.per)) {
            b.count = rule.requestsPerPeriod();
            b.per = rule.period();
        }
        b.burst = std::min(b.burst, rule.requestsPerPeriod());
        if (rule.period() < b.window) {
            b.window = rule.period();
            b.windowLimit = rule.requestsPerPeriod();
        }
    }
    return b;
}

// productBelief reads each product's numbers: from what the file wrote where the model keeps no
// single figure, else from the fresh limiter.
Belief productBelief(const ImportedConfig& c, const AnyLimiter& fresh)
{
    Belief b;
    switch (c.scenario.algorithms.front()) {
    case Algorithm::NginxLimitReq:
        return nginxBelief(c);
    case Algorithm::EnvoyLocal: {
        const auto& e = std::get<EnvoyLocal>(fresh);
        b.count = e.tokensPerFill();
        b.per = e.fillInterval();
        b.burst = e.maxTokens();
        return b;
    }
    case Algorithm::Traefik:
        return traefikBelief(c);
    case Algorithm::SpringGateway:
        b.count = number(wrote(c, "replenishRate"), 1);
        b.burst = number(wrote(c, "burstCapacity"), 1);
        return b;
    case Algorithm::Kong:
        return kongBelief(c);
    case Algorithm::ExpressRateLimit:
        b.count = b.burst = b.windowLimit = fresh.quota();
        b.per = b.window = std::get<ExpressRateLimit>(fresh).windowMs() * 1'000'000;
        return b;
    case Algorithm::RateLimiterFlexible:
        b.count = b.burst = b.windowLimit = fresh.quota();
        b.per = b.window = std::max<std::int64_t>(1, std::get<RateLimiterFlexible>(fresh).durationMs()) * 1'000'000;
        return b;
    case Algorithm::UpstashRatelimit:
        return upstashBelief(fresh);
    case Algorithm::CloudflareRate:
        return cloudflareBelief(c, fresh);
    case Algorithm::AwsWafRate: {
        const auto& w = std::get<AwsWafRate>(fresh);
        b.count = b.windowLimit = w.limit();
        b.per = b.window = w.window();
        b.longest = w.window() + w.checkInterval() + w.detectionDelay();
        return b;
    }
    case Algorithm::AwsApiGateway: {
        const Rate r = std::get<AwsApiGateway>(fresh).slowest();
        b.count = r.tokens;
        b.per = r.perNanos;
        b.burst = fresh.quota();
        return b;
    }
    default:
        b.count = fresh.quota();
        return b;
    }
}

Belief believe(const ImportedConfig& c, const AnyLimiter& fresh)
{
    Belief b = productBelief(c, fresh);
    b.longest = std::max({b.longest, b.window, b.per});
    return b;
}

// Policy decides as the imported scenario does: its layers when it has them, else its algorithm,
// each request of the scenario's cost (an Upstash limit() call's rate).
class Policy {
public:
    explicit Policy(const ImportedConfig& c)
        : m_cost(c.scenario.cost)
    {
        if (!c.scenario.layers.empty())
            m_layers.emplace(c.scenario.layers);
        else
            m_limiter = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    }
    Decision decide(Nanos t) { return m_layers ? m_layers->decide(t, m_cost) : m_limiter->decide(t, m_cost); }

private:
    std::int64_t m_cost = 1;
    std::optional<AnyLimiter> m_limiter;
    std::optional<LayeredPolicy> m_layers;
};

// admitted counts the requests of `times` the policy admits (held back ones included).
std::int64_t admitted(const ImportedConfig& c, const std::vector<Nanos>& times)
{
    Policy p(c);
    std::int64_t n = 0;
    for (Nanos t : times)
        n += p.decide(t).allowed ? 1 : 0;
    return n;
}

// Measured is a long-run rate: none when nothing passes once the burst is spent; whole when the
// whole span was measured, else the `over` ns the decision budget reached.
struct Measured {
    bool any = false;
    double rate = 0;
    bool whole = true;
    Nanos over = 0;
};

// longRunRate measures the rate the policy admits once its burst is spent: from a fresh start a
// client sends the moment it may (again at once after an admission, at retry_after after a
// denial), so no stream could get more. After `warm` (the longest period: the burst is long
// spent) it counts the admissions from the first one to the first one a span later, over the
// time between those two: a whole number of the policy's cycles, so a bucket draining one every
// 10 ms reads exactly 100 per second and Kong's hour of 100 exactly one every 36 s. A decision
// budget bounds the work: when it runs out before warm, the count starts after the first
// instant instead, and a measure short of its span says so (whole is false).
Measured longRunRate(const ImportedConfig& c, Nanos warm, Nanos span)
{
    constexpr std::int64_t kBudget = 4'000'000;
    Policy p(c);
    Nanos t = 0, first = -1, last = -1;
    std::int64_t counted = 0;
    bool reached = false, exhausted = true;
    for (std::int64_t calls = 0; calls < kBudget; ++calls) {
        const Decision d = p.decide(t);
        if (d.allowed) {
            if (t >= warm && first < 0)
                first = t;
            if (first >= 0 && t >= first + span) {
                last = t;
                reached = true;
                break;
            }
            if (first >= 0) {
                ++counted;
                last = t;
            }
            continue;
        }
        if (d.retryAfter <= 0 || t > kMaxNanos - d.retryAfter) { // kRetryNever is -1: no time helps
            exhausted = false;
            break;
        }
        t += d.retryAfter;
    }
    if (first < 0 && exhausted && warm > 1)
        return longRunRate(c, 1, span); // the budget ends before warm: measure what it reaches
    // Without the span reached, the last admission counted closes the measured time.
    const std::int64_t n = reached ? counted : counted - 1;
    if (first < 0 || last <= first || n <= 0)
        return {};
    return {true, double(n) / (double(last - first) / 1e9), reached && warm > 1, last - first};
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

// QuotaText is an API Gateway usage plan's quota as the model holds it, and when the rate written
// spends it; empty without a quota.
struct QuotaText {
    std::string line;     // "5000 a month (...)"
    std::string surprise; // "" when the rate written does not spend it within the shortest period
};

QuotaText apiGatewayQuota(const AwsApiGateway& g, std::int64_t count, Nanos per)
{
    using P = AwsApiGateway::QuotaPeriod;
    if (g.quotaPeriod() == P::None)
        return {};
    // The periods as AwsApiGateway::periodStart has them, and the shortest each can be.
    const char* unit = g.quotaPeriod() == P::Day ? "day" : g.quotaPeriod() == P::Week ? "week" : "month";
    const char* next = g.quotaPeriod() == P::Day    ? "the next day starts (00:00 UTC)"
                     : g.quotaPeriod() == P::Week ? "the next week starts (Sunday, 00:00 UTC)"
                                                  : "the next month starts (the 1st, 00:00 UTC)";
    const char* calendar = g.quotaPeriod() == P::Day    ? "days from 00:00 UTC"
                         : g.quotaPeriod() == P::Week ? "weeks from Sunday 00:00 UTC"
                                                      : "months from the 1st, 00:00 UTC";
    const Nanos shortest = (g.quotaPeriod() == P::Day ? 1 : g.quotaPeriod() == P::Week ? 7 : 28) * 86400 * kNanosPerSecond;
    const std::int64_t first = g.quotaLimit() - g.quotaOffset(); // the plan's first period
    QuotaText q;
    q.line = std::to_string(g.quotaLimit()) + " a " + unit + " (periods on the UTC calendar: " + calendar + ")"
           + (g.quotaOffset() > 0 ? ", " + std::to_string(first) + " in the first (offset " + std::to_string(g.quotaOffset()) + ")"
                                  : std::string());
    // At count per `per`, `first` requests take first * per / count ns.
    if (count <= 0 || first <= 0)
        return q;
    const Int128 spent = Int128(first) * per / count;
    if (spent >= shortest)
        return q;
    q.surprise = "at the rate you wrote (" + perSecond(double(count) * 1e9 / double(per)) + ") the quota of "
               + std::to_string(first) + (g.quotaOffset() > 0 ? " in the first " + std::string(unit) : " a " + std::string(unit))
               + " is spent in " + seconds(Nanos(spent)) + "; after it every request is refused until " + next;
    return q;
}

} // namespace

namespace {

// Got is what the model does, beside what the file seems to say (b): the burst it admits at one
// instant from idle (unlimited: 100000 all pass), the rate written and its interval, the
// long-run rate measured, and the products whose limits read differently.
struct Got {
    Algorithm a = Algorithm::FixedWindow;
    Belief b;
    std::int64_t burst = 0;
    bool unlimited = false;
    double writtenPerSecond = 0;
    Nanos written = kNanosPerSecond;
    Measured measured;
    const AwsWafRate* waf = nullptr; // a WAF rule passes any burst, yet limits
    QuotaText quota;                 // an API Gateway usage plan's
    const UpstashRatelimit* upstash = nullptr;
};

Got measure(const ImportedConfig& c, const AnyLimiter& fresh)
{
    Got g;
    g.a = c.scenario.algorithms.front();
    g.b = believe(c, fresh);
    const Belief& b = g.b;
    // Burst: requests at one instant from a fresh start.
    Policy p(c);
    while (g.burst < 100000 && p.decide(0).allowed)
        ++g.burst;
    g.unlimited = g.burst >= 100000;
    // The long-run rate, once the burst is spent.
    g.writtenPerSecond = b.count > 0 ? double(b.count) * 1e9 / double(b.per) : 0;
    g.written = b.count > 0 ? std::max<Nanos>(1, b.per / b.count) : kNanosPerSecond;
    const Nanos cycle = std::max(b.longest, g.written);
    g.measured = g.unlimited ? Measured{} : longRunRate(c, cycle, std::max(4 * cycle, kNanosPerSecond));
    g.waf = std::get_if<AwsWafRate>(&fresh);
    if (const auto* gateway = std::get_if<AwsApiGateway>(&fresh))
        g.quota = apiGatewayQuota(*gateway, b.count, b.per);
    g.upstash = std::get_if<UpstashRatelimit>(&fresh);
    return g;
}

// wafRateText is a WAF rule's rate: its verdicts' (Count's: none).
std::string wafRateText(const AwsWafRate& r)
{
    if (r.counts())
        return "no limit: the action is Count, which blocks nothing";
    return "at most " + std::to_string(r.limit()) + " per " + seconds(r.window()) + " in the long run: a check (every "
         + seconds(r.checkInterval()) + ") that finds more than " + std::to_string(r.limit()) + " in the " + seconds(r.window())
         + " before it blocks " + "every request from " + seconds(r.detectionDelay()) + " later until a check finds "
         + std::to_string(r.limit()) + " or fewer; blocked requests count too, so a client that "
         + "keeps sending over the limit stays blocked";
}

std::string rateText(const Got& g)
{
    const double rate = g.measured.rate;
    return g.waf              ? wafRateText(*g.waf)
         : g.unlimited        ? std::string("no limit")
         : !g.measured.any    ? std::string("nothing once the burst is spent")
         : g.measured.whole   ? perSecond(rate) + " once the burst is spent" + (g.quota.line.empty() ? "" : ", until the quota is spent")
                              : perSecond(rate) + " over the " + seconds(g.measured.over)
                                    + " measured (4,000,000 requests; a longer period may bind later)";
}

// writeLimits writes what you wrote, how it is modelled, and the limits the model keeps.
void writeLimits(std::ostream& out, const ImportedConfig& c, const Got& g)
{
    out << "What you wrote (" << c.product << (c.modelledPlace.empty() ? "" : ", " + c.modelledPlace) << "):";
    for (const auto& [k, v] : c.wrote)
        out << " " << k << (v.empty() ? "" : " " + v) << ";";
    out << "\nModelled as " << algorithmId(g.a) << "."
        << (c.scenario.layers.empty() ? "" : " Its " + std::to_string(c.scenario.layers.size()) + " limits are layers.")
        << "\n\nWhat you get:\n";
    out << "  burst      " << (g.unlimited ? std::string("no limit (100000 at once all pass)") : std::to_string(g.burst) + " at once from idle") << "\n";
    out << "  rate       " << rateText(g) << " (you wrote "
        << (g.b.count > 0 ? perSecond(g.writtenPerSecond) : std::string("no rate")) << ")\n";
    out << "  window     " << (g.b.window > 0 ? seconds(g.b.window) : std::string("none: a bucket")) << "\n";
    for (std::size_t i = 0; i < c.binds.size(); ++i)
        out << (i == 0 ? "  binds      " : "             ") << c.binds[i] << ".\n";
    if (!g.quota.line.empty())
        out << "  quota      " << g.quota.line << "\n";
}

// limitSurprise is the first surprise the limits themselves hold, before any traffic shape.
std::string limitSurprise(const Got& g, const std::string& costNote)
{
    const Belief& b = g.b;
    if (b.burst == 0 && g.burst == 0)
        return "a burst of 0 does not switch limiting off: every request is refused";
    if (!g.quota.surprise.empty())
        return g.quota.surprise;
    if (g.waf && g.waf->counts())
        return "the action is Count: WAF counts the requests over the limit and blocks none";
    if (g.unlimited && g.a == Algorithm::AwsWafRate)
        return "nothing is refused at once: WAF counts, and blocks only once a check over the limit takes effect "
               "(rate_check_interval + detection_delay, 40 s at the earliest by default)";
    if (g.unlimited && b.count > 0)
        return "limiting is off: every request passes, however many arrive at once";
    if (b.burst > 0 && g.burst != b.burst)
        return "you wrote a burst of " + std::to_string(b.burst) + ", but " + std::to_string(g.burst) + " pass at once" + costNote;
    if (b.count > 0 && g.measured.rate < 0.99 * g.writtenPerSecond && g.measured.whole)
        return "you wrote " + perSecond(g.writtenPerSecond) + ", but at most " + perSecond(g.measured.rate) + " pass" + costNote;
    return {};
}

// writeSteadyShapes writes what a page load and a steady stream at the written rate get, and
// keeps the first surprise either holds.
void writeSteadyShapes(std::ostream& out, const ImportedConfig& c, const Got& g, std::string& surprise)
{
    // A page load: 27 requests 2 ms apart.
    std::vector<Nanos> page;
    for (int i = 0; i < 27; ++i)
        page.push_back(i * 2'000'000);
    const std::int64_t pageIn = admitted(c, page);
    out << "  page load (27 requests in 52 ms):            " << pageIn << " pass, " << 27 - pageIn << " refused\n";
    if (surprise.empty() && pageIn < 27 && (g.writtenPerSecond >= 27 || g.b.burst >= 27))
        surprise = "a page load of 27 requests gets " + std::to_string(27 - pageIn) + " refused although you wrote "
                 + perSecond(g.writtenPerSecond) + ": the rate is spread evenly, one every " + seconds(g.written);

    // A steady stream at the written rate: 20 requests, one every written interval.
    std::vector<Nanos> steady;
    for (int i = 0; i < 20; ++i)
        steady.push_back(i * g.written);
    const std::int64_t steadyIn = admitted(c, steady);
    out << "  steady stream (20 at the rate you wrote):    " << steadyIn << " pass, " << 20 - steadyIn << " refused\n";
    if (surprise.empty() && steadyIn < 20)
        surprise = "a steady stream at the rate you wrote gets " + std::to_string(20 - steadyIn) + " of 20 refused";
}

// writeBoundary writes what a burst across a window's end gets, or how a bucket refills, and
// keeps the first surprise either holds.
void writeBoundary(std::ostream& out, const ImportedConfig& c, const Got& g, std::string& surprise, const std::string& costNote)
{
    const Belief& b = g.b;
    // A boundary burst: one request opens the window, limit - 1 arrive 1 ms before its end, limit at it.
    if (b.window > 0 && b.windowLimit > 0 && b.windowLimit <= 10000) {
        std::vector<Nanos> edge{0};
        for (std::int64_t i = 1; i < b.windowLimit; ++i)
            edge.push_back(b.window - 1'000'000);
        for (std::int64_t i = 0; i < b.windowLimit; ++i)
            edge.push_back(b.window);
        const std::int64_t edgeIn = admitted(c, edge) - 1;
        out << "  boundary burst (" << 2 * b.windowLimit - 1 << " within 1 ms across a window end): " << edgeIn << " pass\n";
        if (surprise.empty() && edgeIn > b.windowLimit)
            surprise = std::to_string(edgeIn) + " requests pass within 1 ms across a window boundary, with a limit of "
                     + std::to_string(b.windowLimit);
    } else {
        // Envoy adds tokens_per_fill at each fill_interval, the Upstash script refillRate at each
        // whole interval from refilledAt (upstash.h; the package's own doc comment says "refills
        // constantly", its script does not); the other buckets refill continuously.
        const UpstashRatelimit* upstash = g.upstash;
        out << "  boundary burst: no window (the bucket refills "
            << (g.a == Algorithm::EnvoyLocal ? std::string("at each fill")
                : upstash && upstash->kind() == UpstashRatelimit::Kind::TokenBucket
                    ? std::to_string(upstash->refillRate()) + " at each whole interval of " + seconds(upstash->intervalMs() * 1'000'000)
                          + ", none in between"
                    : std::string("continuously"))
            << ")\n";
    }
    if (surprise.empty() && b.window == 0 && b.count > g.burst && b.count > 1)
        surprise = std::to_string(b.count) + " per " + seconds(b.per)
                 + (g.upstash ? " come back together at each whole interval, but the bucket holds " + std::to_string(b.burst)
                              : " is one every " + seconds(g.written))
                 + ": " + std::to_string(b.count) + " at once do not pass, only " + std::to_string(g.burst) + costNote;
}

void writeNotes(std::ostream& out, const ImportedConfig& c)
{
    if (!c.assumed.empty()) {
        out << "\nHow it is modelled:\n";
        for (const std::string& s : c.assumed)
            out << "  - " << s << ".\n";
    }
    if (!c.notModelled.empty()) {
        out << "\nNot modelled in this scenario:\n";
        for (const std::string& s : c.notModelled)
            out << "  - " << s << ".\n";
    }
}

} // namespace

std::string whatYouGet(const ImportedConfig& c)
{
    const AnyLimiter fresh = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    const Got g = measure(c, fresh);
    std::ostringstream out;
    writeLimits(out, c, g);
    out << "\nTraffic:\n";
    // A request of cost k takes k: what passes is fewer requests than the numbers written.
    const std::string costNote = c.scenario.cost > 1 ? " (each request costs " + std::to_string(c.scenario.cost) + ")" : "";
    std::string surprise = limitSurprise(g, costNote);
    writeSteadyShapes(out, c, g, surprise);
    writeBoundary(out, c, g, surprise, costNote);
    out << "\nFirst surprise: " << (surprise.empty() ? std::string("none on these shapes") : surprise) << ".\n";
    writeNotes(out, c);
    return out.str();
}

} // namespace ratelab::io
