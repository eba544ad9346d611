#include "advise_args.h"

#include "command.h"
#include "config_dry_run.h"
#include "outputpath.h"
#include "traffic_options.h"

#include "advise/burst_gateway.h"
#include "advise/envoy_advice.h"
#include "advise/window_gateway.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

namespace ratelab::app {

namespace {

constexpr std::int64_t kMaxTop = 1000;


constexpr const char* kKnown = "(known: nginx, envoy, traefik, kong, express, spring, cloudflare, aws-waf, aws-api-gateway, upstash)";

// readEnvoyArgs reads Envoy's: its fill_interval, and no key to keep.
void readEnvoyArgs(const QCommandLineParser& p, AdviseArgs& a)
{
    // The filter keeps one bucket for every request (envoy_advice.h): no key to keep; --key
    // only reads the log and names its keys.
    if (p.isSet("keep"))
        throw InputError("--keep: Envoy's local_ratelimit keeps one token bucket for every request, not one per key: "
                         "its advice is for all the log's requests");
    if (p.isSet("fill-interval")) {
        try {
            a.fill = parseDuration(p.value("fill-interval").toStdString(), true);
        } catch (const InputError& e) {
            throw InputError(std::string("--fill-interval: ") + e.what());
        }
        if (const std::string problem = envoyFillProblem(a.fill); !problem.empty())
            throw InputError("--fill-interval: " + problem);
    }
    a.options.keep = kPercentUnit; // as the advice takes it: every request
}

// readWindowedArgs reads Kong's and express-rate-limit's: what keys their limit.
void readWindowedArgs(const QCommandLineParser& p, AdviseArgs& a)
{
    // Their limits are counts in windows: no rate for a burst to drain at, none to compare at.
    const std::string product = a.product == "kong" ? "Kong's rate-limiting" : "express-rate-limit";
    for (const char* option : {"drain", "compare"})
        if (p.isSet(option))
            throw InputError(std::string("--") + option + ": " + product + " counts requests in windows; it has no "
                             "rate and burst (--for " + a.product + " advises the windows' limits)");
    if (const std::string problem = windowGatewayKeyProblem(a.product, a.key); !problem.empty())
        throw InputError("--key: " + problem);
    if (a.product == "kong")
        a.limitBy = *kongLimitBy(a.key);
}

// readAwsArgs reads API Gateway's: a usage plan throttles by the API key a request carries, which
// no log field is by default, so the log's key for it must be named.
void readAwsArgs(const QCommandLineParser& p, AdviseArgs& a)
{
    if (!p.isSet("key") && a.keyFromCurrent.empty())
        throw InputError("--key: an API Gateway usage plan throttles by the API key each request carries: name the log's "
                         "field that holds it (http_x_api_key for the x-api-key header, or the key your authorizer returns)");
}

// readUpstashArgs reads @upstash/ratelimit's: the identifier is the application's (the log's
// --key, ip unless told), and its windows have no rate for a burst to drain at.
void readUpstashArgs(const QCommandLineParser& p, AdviseArgs&)
{
    for (const char* option : {"drain", "compare"})
        if (p.isSet(option))
            throw InputError(std::string("--") + option + ": @upstash/ratelimit's slidingWindow and fixedWindow count "
                             "requests in windows; they have no rate and burst (--for upstash advises their tokens)");
}

// readManagedArgs reads Cloudflare's and AWS WAF's: counts per window, by the client's IP.
void readManagedArgs(const QCommandLineParser& p, const AdviseArgs& a)
{
    const bool cloudflare = a.product == "cloudflare";
    for (const char* option : {"drain", "compare"})
        if (p.isSet(option))
            throw InputError(std::string("--") + option + ": " + (cloudflare ? "Cloudflare's rate limiting rule" : "AWS WAF's "
                             "rate-based rule") + " counts requests in windows; it has no rate and burst (--for " + a.product
                             + " advises the windows' limits)");
    if (const std::string problem = windowGatewayKeyProblem(a.product, a.key); !problem.empty())
        throw InputError("--key: " + problem);
}

// readCap reads --cap, for the gateways whose most in a window is derived (BurstFamily::mostIn,
// windowRowMostIn).
void readCap(const QCommandLineParser& p, AdviseArgs& a)
{
    if (!p.isSet("cap"))
        return;
    if (const std::string problem = capProblem(a.product); !problem.empty())
        throw InputError("--cap: " + problem);
    try {
        a.options.cap = parseWindowCap(p.value("cap").toStdString());
    } catch (const InputError& e) {
        throw InputError(std::string("--cap: ") + e.what());
    }
}

// readOrigin reads --origin: it is measured at each row of a front (a rate and a burst) or of the
// windows (a count in a window).
void readOrigin(const QCommandLineParser& p, AdviseArgs& a)
{
    if (!p.isSet("origin"))
        return;
    try {
        a.options.origin = OriginGoal{parseWindowCap(p.value("origin").toStdString()), {}};
    } catch (const InputError& e) {
        throw InputError(std::string("--origin: ") + e.what());
    }
}

// readLetBy reads --pass-path or --pass-agent: the requests the config is to let by uncounted
// (nginx, Traefik; Kong a path).
void readLetBy(const QCommandLineParser& p, AdviseArgs& a)
{
    for (const char* name : {"pass-path", "pass-agent"})
        if (p.isSet(name) && p.value(name).isEmpty())
            throw InputError("--" + std::string(name) + ": no pattern given");
    a.letBy = {p.value("pass-path").toStdString(), p.value("pass-agent").toStdString(), a.product};
    if (!a.letBy.any())
        return;
    checkLetBy(a.letBy); // refused before the log is read, with a product that cannot let it by
}

// currentKey is the log field every rule of the current config keys by, when that is one field
// other than `key` (the log's): an API key's header, a user. nullopt when the rules key by the
// log's key, by several fields, or by what no log field holds (a map, the target, a constant).
std::optional<std::string> currentKey(const DryRunConfig& config, const std::string& key)
{
    std::optional<std::string> out;
    for (const DryRunRule& r : config.rules) {
        if (r.keyIs != DryRunRule::Key::Logged || r.keyField.empty() || r.keyField == key || (out && *out != r.keyField))
            return std::nullopt;
        out = r.keyField;
    }
    return out;
}

// readCurrent reads --config, the config the gateway runs now, before the log. Without --key the
// advice keys by what its rules key by (currentKey).
void readCurrent(const QCommandLineParser& p, AdviseArgs& a)
{
    if (!p.isSet("config"))
        return;
    const QString file = p.value("config");
    if (file.isEmpty())
        throw InputError("--config: no file given");
    auto current = std::make_shared<AgainstCurrent>();
    current->file = file.toStdString();
    const std::string key = p.isSet("key") ? p.value("key").toStdString() : "ip";
    current->config = io::dryRunConfigFile(file, key);
    // The log is read by --key's key with the rules' field beside it, then keyed by that field
    // (keyByField): an access log's key is the address, and its headers are fields.
    if (!p.isSet("key") && a.product != "envoy") // Envoy's one bucket keys nothing
        a.keyFromCurrent = currentKey(current->config, key).value_or("");
    a.current = std::move(current);
}

// readProductArgs reads what depends on the gateway: whose requests a limit counts, and Envoy's
// fill_interval.
void readProductArgs(const QCommandLineParser& p, AdviseArgs& a)
{
    if (p.isSet("fill-interval") && a.product != "envoy")
        throw InputError("--fill-interval: only Envoy's token bucket has a fill_interval (--for envoy)");
    a.key = p.isSet("key") ? p.value("key").toStdString() : a.keyFromCurrent.empty() ? "ip" : a.keyFromCurrent;
    if (a.product == "envoy")
        return readEnvoyArgs(p, a);
    if (a.product == "aws-api-gateway")
        return readAwsArgs(p, a);
    if (a.product == "upstash")
        return readUpstashArgs(p, a);
    if (a.product == "kong" || a.product == "express")
        return readWindowedArgs(p, a);
    if (a.product == "cloudflare" || a.product == "aws-waf")
        return readManagedArgs(p, a);
    if (const std::string problem = burstGatewayKeyProblem(a.product, a.key); !problem.empty())
        throw InputError("--key: " + problem);
}

// readKeep reads --keep: a percentage of the keys (exactly, to 9 decimals), or current.
void readKeep(const QCommandLineParser& p, AdviseArgs& a)
{
    a.keepCurrent = p.value("keep") == "current";
    if (p.isSet("keep") && !a.keepCurrent) {
        const std::string text = p.value("keep").toStdString();
        Nanos keep = 0; // the percentage read as parseSeconds reads a decimal: exactly, to 9 decimals
        try {
            keep = parseSeconds(text);
        } catch (const InputError&) {
        }
        if (keep <= 0 || keep > kPercentUnit)
            throw InputError("--keep: must be a percentage above 0 and at most 100, or current (got " + ratelab::quoted(text) + ")");
        a.options.keep = keep;
    }
}

// readOutput reads how the advice is written: --format, --top and --write.
void readOutput(const QCommandLineParser& p, AdviseArgs& a)
{
    a.format = p.isSet("format") ? p.value("format").toStdString() : "text";
    if (a.format != "text" && a.format != "json")
        throw InputError("--format: unknown format " + ratelab::quoted(a.format) + " (known: text, json)");
    a.top = std::size_t(integerOption(p, "top", 0, kMaxTop).value_or(5));
    a.write = p.value("write");
    if (p.isSet("write") && a.write.isEmpty())
        throw InputError("--write: no file name given");
    if (const QString problem = a.write.isEmpty() ? QString() : io::outputPathProblem(a.write); !problem.isEmpty())
        throw InputError("--write: " + problem.toStdString());
}

} // namespace

void addAdviseOptions(QCommandLineParser& parser)
{
    addTrafficOptions(parser, false); // each gateway here counts every request once, and the config has no route
    parser.addOptions({
        {"for", "The gateway to write the limit for: nginx (limit_req), envoy (local_ratelimit: one bucket for every "
                "request), traefik (rateLimit), kong (rate-limiting, policy local: its second and minute limits), express (express-rate-limit: "
                "windowMs and limit), spring (Spring Cloud Gateway's RedisRateLimiter), cloudflare (a rate limiting rule: "
                "period and requests_per_period), aws-waf (a rate-based rule: EvaluationWindowSec and Limit), aws-api-gateway (a "
                "usage plan's throttle per API key: --key names the log's field for it), upstash (@upstash/ratelimit: "
                "slidingWindow's tokens).",
         "gateway"},
        {"keep", "Every request of the least active keys must pass: the keys with at most as many requests as this "
                 "percentile of the keys' requests (default 99; not for envoy, whose bucket has no keys). 'current' "
                 "keeps instead the keys the config given with --config denies nothing.",
         "P"},
        {"drain", "The recommendation is the lowest rate whose burst drains within this many seconds at that rate "
                  "(default 10; not for kong, express, cloudflare, aws-waf and upstash, whose limits are windows' counts).",
         "SECONDS"},
        {"fill-interval", "Envoy's fill_interval, whole milliseconds, at least 0.05 (default 1): its rates are "
                          "tokens_per_fill at this interval.",
         "SECONDS"},
        {"pass", "Every request of the keys whose whole name matches this RE2 pattern must pass too, however many "
                 "they send (a partner, a health check, an office: '10\\.1\\..*'; not for envoy).",
         "REGEX"},
        {"pass-path", "Every request whose whole path matches this regex must pass too: the config lets them by "
                      "uncounted, and the limit is advised on the rest ('/health', '/api/login.*'). nginx: the path as "
                      "logged, its query string included, by PCRE as its map matches it; traefik: as it routes it, "
                      "without the query string, by RE2 (a router); kong: so, by RE2 as its router's Rust regex (a route); envoy: "
                      "the path as sent, without the query string, by RE2 (a route's safe_regex).",
         "REGEX"},
        {"pass-agent", "Every request whose whole User-Agent matches this regex must pass too, let by as --pass-path's "
                       "('okhttp/.*'; the log's $http_user_agent; nginx and traefik; not with --pass-path).",
         "REGEX"},
        {"cap", "The most requests one key may get through in any window of this length, whatever it sends, as "
                "requests/window: 600/1m, 20/1s (for envoy: the log's, through one Envoy). The recommendation is "
                "the one made without it when that meets it, else the lowest rate meeting it that drains in time, "
                "else the one meeting it that drains soonest (of a product's windows: the one meeting it that denies "
                "the fewest requests); refused when none meets it (not for traefik and aws-waf).",
         "N/T"},
        {"origin", "The most requests the origin may see in any window of this length, on this log, as "
                   "requests/window: 500/1s. Measured at each row of the front or of the windows (every request the "
                   "limit lets through, and those no limit counts): the recommendation is the one made without it when "
                   "that meets it, else the row of lowest rate meeting it that drains in time, else the one meeting it "
                   "that drains soonest (of the windows: the one meeting it that denies the fewest requests); refused "
                   "when none meets it.",
         "N/T"},
        {"config", "The config the gateway runs now (any `replay --config` reads): its dry run on the log beside "
                   "the advice's, request for request, and what it denies the kept keys. The advice is made on the "
                   "requests its rules meet, keyed as they are when they all key by one log field and --key is not given.",
         "FILE"},
        {"compare", "Also show the textbook token bucket and GCRA at the recommended rate: the least capacity at which "
                    "every request of the kept keys passes, and what they then deny."},
        {"top", "How many of the keys the limit denies most to name (default 5).", "N"},
        {"format", "Output format: text (default) or json.", "text|json"},
        {"write", "Also save the config (in the gateway's shadow mode where it has one) to this file.", "FILE"},
    });
}

std::string fromCurrentText(const AdviseArgs& a)
{
    return a.keyFromCurrent.empty() ? std::string() : " (the key is the current config's, " + a.keyFromCurrent + ": --key names another)";
}

AdviseArgs readAdviseArgs(const QCommandLineParser& p, const QString& log)
{
    AdviseArgs a;
    if (log.isEmpty())
        throw InputError("advise: name the LOG to choose a limit from");
    if (!p.isSet("for"))
        throw InputError(std::string("advise: name the gateway with --for ") + kKnown);
    a.product = p.value("for").toStdString();
    if (a.product != "nginx" && a.product != "envoy" && a.product != "traefik" && a.product != "kong"
        && a.product != "express" && a.product != "spring" && a.product != "cloudflare" && a.product != "aws-waf"
        && a.product != "aws-api-gateway" && a.product != "upstash")
        throw InputError("--for: unknown gateway " + ratelab::quoted(a.product) + " " + kKnown);
    readKeep(p, a);
    if (p.isSet("pass")) {
        a.pass = p.value("pass").toStdString();
        if (a.pass.empty())
            throw InputError("--pass: no pattern given");
        checkPassPattern(a.pass); // refused before the log is read
    }
    readLetBy(p, a);
    if (p.isSet("drain")) {
        try {
            a.options.drain = parseDuration(p.value("drain").toStdString(), true);
        } catch (const InputError& e) {
            throw InputError(std::string("--drain: ") + e.what());
        }
    }
    readOutput(p, a);
    readCurrent(p, a);
    if (a.keepCurrent && !a.current)
        throw InputError("--keep current: name the config the gateway runs now with --config");
    try {
        readProductArgs(p, a);
    } catch (const InputError& e) {
        if (a.keyFromCurrent.empty() || !std::string_view(e.what()).starts_with("--key: "))
            throw;
        throw InputError(std::string(e.what()) + fromCurrentText(a));
    }
    a.compare = p.isSet("compare");
    readCap(p, a);
    readOrigin(p, a);
    return a;
}

} // namespace ratelab::app
