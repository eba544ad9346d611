#include "advise_command.h"

#include "command.h"
#include "config_dry_run.h"
#include "dry_run_command.h"
#include "outputpath.h"
#include "scenario_options.h"
#include "traffic_options.h"

#include "advise/envoy_advice.h"
#include "advise/nginx_advice.h"
#include "advise/spring_advice.h"
#include "advise/textbook_advice.h"
#include "advise/traefik_advice.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/log_keys.h"
#include "replay/replay.h"
#include "replay/replay_memory.h"

#include <iostream>
#include <memory>
#include <sstream>

namespace ratelab::app {

namespace {

constexpr std::int64_t kMaxTop = 1000;
// What advise holds per key beyond the read log's share: its place in the grouped requests (8 B),
// kept (1), denials at the recommendation (8), and the dry run's per key: its denials and first
// denial (16) and the zone's excess, last and whether it exists (17). 64 B rounds that up.
constexpr std::int64_t kAdviseKeyBytes = 64;

struct AdviseArgs {
    std::string product;
    AdviceOptions options;
    std::string format = "text";
    std::size_t top = 5;
    QString write;
    std::string key = "ip";      // the log's key (--key)
    std::string variable;        // nginx's variable for it ("$binary_remote_addr")
    std::string criterion;       // Traefik's sourceCriterion lines for it
    std::string resolver;        // Spring's KeyResolver for it ("": the principal, Spring's default)
    Nanos fill = kNanosPerSecond; // Envoy's fill_interval (--fill-interval)
    bool compare = false;         // the textbook token bucket and GCRA beside it (--compare)
};

constexpr const char* kKnown = "(known: nginx, envoy, traefik, spring)";

// readProductArgs reads what depends on the gateway: whose requests a limit counts, and Envoy's
// fill_interval.
void readProductArgs(const QCommandLineParser& p, AdviseArgs& a)
{
    if (p.isSet("fill-interval") && a.product != "envoy")
        throw InputError("--fill-interval: only Envoy's token bucket has a fill_interval (--for envoy)");
    if (a.product == "envoy") {
        // The filter keeps one bucket for every request (envoy_advice.h): no key to keep; --key
        // only reads the log and names its keys.
        if (p.isSet("keep"))
            throw InputError("--keep: Envoy's local_ratelimit keeps one token bucket for every request, not one per key: "
                             "its advice is for all the log's requests");
        a.key = p.isSet("key") ? p.value("key").toStdString() : "ip";
        if (p.isSet("fill-interval")) {
            try {
                a.fill = parseDuration(p.value("fill-interval").toStdString(), true);
            } catch (const InputError& e) {
                throw InputError(std::string("--fill-interval: ") + e.what());
            }
            if (const std::string problem = envoyFillProblem(a.fill); !problem.empty())
                throw InputError("--fill-interval: " + problem);
        }
        a.options.keep = kPercentUnit;
        return;
    }
    a.key = p.isSet("key") ? p.value("key").toStdString() : "ip";
    if (a.product == "traefik") {
        const std::optional<std::string> criterion = traefikSourceCriterion(a.key);
        if (!criterion)
            throw InputError("--key: Traefik's rateLimit has no sourceCriterion for " + quoted(a.key)
                             + " (it offers: ip, host, http_NAME)");
        a.criterion = *criterion;
        return;
    }
    if (a.product == "spring") {
        const std::optional<std::string> resolver = springKeyResolver(a.key);
        if (!resolver)
            throw InputError("--key: RateLab writes no Spring KeyResolver for " + quoted(a.key)
                             + " (it writes: ip, host, user, http_NAME)");
        a.resolver = *resolver;
        return;
    }
    a.variable = nginxKeyVariable(a.key);
    if (a.variable.empty())
        throw InputError("--key: nginx has no variable named " + quoted(a.key) + " for every request to key a zone by ("
                         + "it offers: " + nginxKeysOffered() + ")");
}

AdviseArgs readArgs(const QCommandLineParser& p, const QString& log)
{
    AdviseArgs a;
    if (log.isEmpty())
        throw InputError("advise: name the LOG to choose a limit from");
    if (!p.isSet("for"))
        throw InputError(std::string("advise: name the gateway with --for ") + kKnown);
    a.product = p.value("for").toStdString();
    if (a.product != "nginx" && a.product != "envoy" && a.product != "traefik" && a.product != "spring")
        throw InputError("--for: unknown gateway " + quoted(a.product) + " " + kKnown);
    if (p.isSet("keep")) {
        const std::string text = p.value("keep").toStdString();
        Nanos keep = 0; // the percentage read as parseSeconds reads a decimal: exactly, to 9 decimals
        try {
            keep = parseSeconds(text);
        } catch (const InputError&) {
        }
        if (keep <= 0 || keep > kPercentUnit)
            throw InputError("--keep: must be a percentage above 0 and at most 100 (got " + quoted(text) + ")");
        a.options.keep = keep;
    }
    if (p.isSet("drain")) {
        try {
            a.options.drain = parseDuration(p.value("drain").toStdString(), true);
        } catch (const InputError& e) {
            throw InputError(std::string("--drain: ") + e.what());
        }
    }
    a.format = p.isSet("format") ? p.value("format").toStdString() : "text";
    if (a.format != "text" && a.format != "json")
        throw InputError("--format: unknown format " + quoted(a.format) + " (known: text, json)");
    a.top = std::size_t(integerOption(p, "top", 0, kMaxTop).value_or(5));
    a.write = p.value("write");
    if (p.isSet("write") && a.write.isEmpty())
        throw InputError("--write: no file name given");
    if (const QString problem = a.write.isEmpty() ? QString() : io::outputPathProblem(a.write); !problem.isEmpty())
        throw InputError("--write: " + problem.toStdString());
    readProductArgs(p, a);
    a.compare = p.isSet("compare");
    return a;
}

// zoneKeyBytes is the longest key the zone holds: $binary_remote_addr is an address's 4 or 16
// bytes, any other variable its value, as the log has it.
std::size_t zoneKeyBytes(const Traffic& traffic, const std::string& key)
{
    if (key == "ip")
        return 16;
    std::size_t most = 0;
    for (const std::string& name : traffic.keyNames)
        if (!keylessName(name))
            most = std::max(most, name.size());
    return most;
}

// Proof is the dry run of the written config on the log, and whether it denies what the advice says.
struct Proof {
    DryRunResult result;
    bool equal = false;
};

// Written is one gateway's advice made config: its family, the advice, the config's text and
// each log key's denials at the recommendation, which the dry run of that text must report.
struct Written {
    std::unique_ptr<BurstFamily> family;
    KeyedTraces traces; // the traces the advice was made on (Envoy's: the log as one)
    Advice advice;
    std::string config;
    std::vector<std::int64_t> deniedPerLogKey;
};

Written adviseFor(const AdviseArgs& a, const Traffic& traffic)
{
    Written w;
    if (a.product == "envoy") { // one bucket for every request: the log as one trace
        auto envoy = std::make_unique<EnvoyBurstFamily>(a.fill);
        w.traces = sharedTraces(traffic);
        w.advice = advise(w.traces, *envoy, a.options);
        const AdvicePoint& r = w.advice.recommended;
        w.config = envoyAdviceConfig(*envoy, r.step, r.burst);
        w.deniedPerLogKey = envoySharedDenials(traffic, *envoy, r.step, r.burst);
        w.family = std::move(envoy);
        return w;
    }
    if (a.product == "traefik") {
        w.family = std::make_unique<TraefikBurstFamily>();
        w.traces = keyedTraces(traffic);
        w.advice = advise(w.traces, *w.family, a.options);
        w.config = traefikAdviceConfig(w.advice.recommended.step, w.advice.recommended.burst, a.criterion);
    } else if (a.product == "spring") {
        w.family = std::make_unique<SpringBurstFamily>();
        w.traces = keyedTraces(traffic);
        w.advice = advise(w.traces, *w.family, a.options);
        w.config = springAdviceConfig(w.advice.recommended.step, w.advice.recommended.burst, a.resolver);
    } else {
        auto nginx = std::make_unique<NginxBurstFamily>();
        w.traces = keyedTraces(traffic);
        w.advice = advise(w.traces, *nginx, a.options);
        w.config = nginxAdviceConfig(*nginx, w.advice.recommended.step, w.advice.recommended.burst, a.variable,
                                     nginxZoneMegabytes(w.advice.limitedKeys, zoneKeyBytes(traffic, a.key)));
        w.family = std::move(nginx);
    }
    w.deniedPerLogKey = w.advice.deniedPerKey;
    return w;
}

Proof prove(const Written& w, const std::string& key, const Traffic& traffic)
{
    DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(w.config), key);
    Proof p{dryRunOnTraffic(parsed, traffic, "the written config")};
    p.equal = p.result.rules.size() == 1 && p.result.rules[0].deniedPerKey == w.deniedPerLogKey
              && p.result.rules[0].requests == w.advice.limitedRequests;
    return p;
}

// drainText is how long the burst takes to drain at the step's rate, in seconds, rounded up.
std::string drainText(const BurstFamily& family, const AdvicePoint& p)
{
    const Rate r = family.rate(p.step);
    return hundredthsText(Int128(p.burst) * r.perNanos, Int128(r.tokens) * kNanosPerSecond, Rounding::Up);
}

std::string padded(const std::string& s, std::size_t width, bool left = false)
{
    const std::string fill(s.size() < width ? width - s.size() : 0, ' ');
    return left ? s + fill : fill + s;
}

void writeFront(std::ostream& out, const BurstFamily& family, const Advice& a, bool shared)
{
    out << "the front: for each burst, the lowest round rate at which every request of "
        << (shared ? "the log" : "the kept keys") << " passes\n"
        << "  " << padded("rate", 10, true) << padded("burst", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << "\n";
    for (const AdvicePoint& p : a.front)
        out << "  " << padded(family.rateText(p.step), 10, true) << padded(grouping(p.burst), 10)
            << padded(grouping(p.keptDenied), 13) << padded(grouping(p.otherDenied), 15)
            << padded(grouping(p.keysDenied), 13) << (p.step == a.recommended.step ? "  <- recommended" : "") << "\n";
}

// capsText is what the recommendation lets through at once, and then, in the product's terms.
std::string capsText(const AdviseArgs& args, const BurstFamily& family, const AdvicePoint& r)
{
    const std::string rate = family.rateText(r.step);
    if (args.product == "envoy")
        return "it caps what one Envoy lets through at " + counted(r.burst, "request") + " at once, then " + rate
               + ", added whole at each fill";
    if (args.product == "traefik")
        return "it caps every key at " + counted(r.burst, "request") + " at once, then " + rate + " (Traefik holds a "
               "request up to its maxDelay rather than deny it: 500 ms below one a second, 1 s / (2 * rate) from one on)";
    if (args.product == "spring")
        return "it caps every key at " + counted(r.burst, "request") + " at once, then " + rate + " ("
               + counted(SpringBurstFamily::replenishRate(r.step), "token") + " at each whole second of the clock, "
               + grouping(SpringBurstFamily::requestedTokens(r.step)) + " a request)";
    return "it caps every key at " + counted(r.burst + 1, "request") + " at once, then " + rate;
}

// shadowText introduces the written config: the product's dry-run form, or that it has none.
std::string shadowText(const AdviseArgs& args)
{
    if (args.product == "envoy")
        return "Envoy, in shadow mode first: filter_enforced 0% counts what it would deny "
               "(ratelab.http_local_rate_limit.rate_limited) and denies nothing; set its numerator to 100 to enforce. "
               "The entry goes in the http_connection_manager's http_filters, before envoy.filters.http.router";
    if (args.product == "traefik")
        return "Traefik has no dry-run mode: a rateLimit denies from the moment a router lists it. The closest: load "
               "this middleware with no router listing it (it limits nothing), run `ratelab replay LOG --config FILE` "
               "on each new day's log, and add ratelab-limit to the router's middlewares when the denials are as expected";
    if (args.product == "spring")
        return "Spring Cloud Gateway has no dry-run mode: a RequestRateLimiter denies from the moment a route lists it. "
               "The closest: load this route in a gateway no client uses (or none), run `ratelab replay LOG --config FILE` "
               "on each new day's log, and add the filter to your routes when the denials are as expected; a request "
               "without a key passes (deny-empty-key: false)";
    return "nginx, in shadow mode first: limit_req_dry_run logs what it would reject and rejects nothing; delete it to "
           "enforce";
}

void writeRecommendation(std::ostream& out, const BurstFamily& family, const Advice& a, const AdviseArgs& args,
                         const std::vector<KeyDenials>& worst, const Traffic& traffic)
{
    const AdvicePoint& r = a.recommended;
    out << "recommended: rate " << family.rateText(r.step) << ", burst " << grouping(r.burst) << " ("
        << (a.drainMet ? "the lowest rate whose burst drains within " + formatSeconds(args.options.drain) + " s at that rate"
                       : "no rate up to " + family.rateText(a.top) + " drains its burst within "
                             + formatSeconds(args.options.drain) + " s: the lowest rate needing the least burst any rate needs")
        << "; this one drains in " << drainText(family, r) << " s)\n";
    if (args.product == "envoy") {
        out << "  the log's requests: " << grouping(r.keptDenied) << " of " << counted(a.keptRequests, "request")
            << " denied\n";
    } else {
        out << "  kept keys: " << grouping(r.keptDenied) << " of their " << counted(a.keptRequests, "request") << " denied\n"
            << "  the other keys: " << grouping(r.otherDenied) << " of their "
            << counted(a.limitedRequests - a.keptRequests, "request") << " denied, " << counted(r.keysDenied, "key")
            << " capped" << (worst.empty() ? "" : "; the most denied:") << "\n";
    }
    const std::vector<std::int64_t> requests = attemptsPerKey(traffic);
    for (const KeyDenials& k : worst)
        out << "    " << padded(traffic.keyNames[k.key], 40, true) << " " << grouping(k.denied) << " of "
            << grouping(requests[k.key]) << " denied, the first at "
            << formatSeconds(k.firstDenial - traffic.times.front()) << " s after the log's first request\n";
    out << "  " << capsText(args, family, r) << "\n";
}

// writeTextbook is --compare's rows: the textbook limiters at the recommended rate.
void writeTextbook(std::ostream& out, const BurstFamily& family, const Advice& a, const std::vector<TextbookRow>& rows)
{
    out << "\ncompared at " << family.rateText(a.recommended.step) << ", the textbook limiters: the least capacity at "
        << "which every request of the kept keys passes\n"
        << "  " << padded("algorithm", 14, true) << padded("capacity", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << "\n";
    for (const TextbookRow& r : rows)
        out << "  " << padded(std::string(algorithmId(r.algorithm)), 14, true) << padded(grouping(r.capacity), 10)
            << padded(grouping(r.keptDenied), 13) << padded(grouping(r.otherDenied), 15)
            << padded(grouping(r.keysDenied), 13) << "\n";
}

// writeKept says whose requests must pass.
void writeKept(std::ostream& out, const Advice& a, const AdviseArgs& args)
{
    if (args.product == "envoy") {
        out << "kept: every request: local_ratelimit counts every request the filter sees in one token bucket, "
               "whatever its client, so the limit is on what reaches the origin through one Envoy, and the least "
               "bucket the log's busiest moments pass\n\n";
        return;
    }
    out << "kept: the " << counted(a.keptKeys, "key") << " with at most " << counted(a.keptMost, "request")
        << " each (the " << secondsText(args.options.keep) << " % least active, ties kept together"
        << (a.keptKeys == a.limitedKeys ? "; that is every key" : "") << "): "
        << (a.keptRequests == 1 ? "its 1 request" : "all " + grouping(a.keptRequests) + " of their requests")
        << " must pass\n\n";
}

void writeText(std::ostream& out, const QString& log, const Traffic& traffic, const BurstFamily& family,
               const Advice& a, const AdviseArgs& args, const std::string& config, const Proof& proof,
               const std::vector<KeyDenials>& worst, const std::vector<TextbookRow>& textbook)
{
    out << "advise for " << family.product() << ": " << log.toStdString() << ", " << counted(a.limitedRequests, "request")
        << (args.product == "envoy" ? ", one token bucket for all of them (local_ratelimit keeps none per client)"
                                    : " of " + counted(a.limitedKeys, "key") + " by " + args.key)
        << "\n";
    if (a.unlimitedRequests > 0)
        out << "  and " << counted(a.unlimitedRequests, "request") << " with an empty key, which no limit counts\n";
    writeKept(out, a, args);
    writeFront(out, family, a, args.product == "envoy");
    out << "\n";
    writeRecommendation(out, family, a, args, worst, traffic);
    if (!textbook.empty())
        writeTextbook(out, family, a, textbook);
    out << "\n" << shadowText(args) << "\n"
        << config << "\nproof: the dry run `ratelab replay LOG --config FILE` runs, on this config: "
        << grouping(proof.result.denied) << " of " << counted(proof.result.rules[0].requests, "request") << " denied, "
        << counted(proof.result.rules[0].keysDenied, "key")
        << (a.unlimitedRequests > 0 ? ", besides " + counted(a.unlimitedRequests, "request")
                                          + " with an empty key, which no limit counts"
                                    : "")
        << "; every key's denials as advised\n";
}

void writePoint(std::ostream& out, const BurstFamily& family, const AdvicePoint& p)
{
    out << "{\"rate\": " << jsonString(family.rateText(p.step)) << ", \"burst\": " << p.burst
        << ", \"kept_denied\": " << p.keptDenied << ", \"others_denied\": " << p.otherDenied
        << ", \"keys_denied\": " << p.keysDenied;
}

void writeJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
               const BurstFamily& family, const Advice& a, const AdviseArgs& args, const std::string& config,
               const Proof& proof, const std::vector<KeyDenials>& worst, const std::vector<TextbookRow>& textbook)
{
    out << "{\"product\": " << jsonString(family.product()) << ",\n \"input\": ";
    writeTrafficJson(out, log, traffic, parser);
    out << ",\n \"warnings\": [";
    const QStringList warnings = trafficWarnings(traffic);
    for (qsizetype i = 0; i < warnings.size(); ++i)
        out << (i ? ", " : "") << jsonString(warnings[i].toStdString());
    out << "],\n \"keys\": {\"limited\": " << a.limitedKeys << ", \"requests\": " << a.limitedRequests
        << ", \"unlimited_requests\": " << a.unlimitedRequests << ", \"keep_percent\": "
        << jsonString(secondsText(args.options.keep)) << ", \"kept\": " << a.keptKeys << ", \"kept_requests\": "
        << a.keptRequests << ", \"kept_most_requests\": " << a.keptMost << "},\n \"front\": [";
    for (std::size_t i = 0; i < a.front.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        writePoint(out, family, a.front[i]);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    writePoint(out, family, a.recommended);
    out << ", \"drain\": " << jsonString(formatSeconds(args.options.drain)) << ", \"drain_met\": "
        << (a.drainMet ? "true" : "false") << ", \"drains_in\": " << jsonString(drainText(family, a.recommended))
        << ", \"top_keys\": [";
    const std::vector<std::int64_t> requests = attemptsPerKey(traffic);
    for (std::size_t i = 0; i < worst.size(); ++i)
        out << (i ? ", " : "") << "{\"key\": " << jsonString(traffic.keyNames[worst[i].key])
            << ", \"requests\": " << requests[worst[i].key] << ", \"denied\": " << worst[i].denied
            << ", \"first_denial\": " << jsonString(formatSeconds(worst[i].firstDenial - traffic.times.front())) << "}";
    out << "]},\n";
    if (!textbook.empty()) {
        out << " \"textbook\": [";
        for (std::size_t i = 0; i < textbook.size(); ++i)
            out << (i ? ", " : "") << "{\"algorithm\": " << jsonString(std::string(algorithmId(textbook[i].algorithm)))
                << ", \"capacity\": " << textbook[i].capacity << ", \"kept_denied\": " << textbook[i].keptDenied
                << ", \"others_denied\": " << textbook[i].otherDenied << ", \"keys_denied\": " << textbook[i].keysDenied
                << "}";
        out << "],\n";
    }
    out << " \"config\": " << jsonString(config) << ",\n \"proof\": {\"requests\": " << proof.result.rules[0].requests
        << ", \"denied\": " << proof.result.denied << ", \"keys_denied\": "
        << proof.result.rules[0].keysDenied
        << ", \"as_advised\": " << (proof.equal ? "true" : "false") << "}}\n";
}

} // namespace

int adviseCommand(QCommandLineParser& parser, const QStringList& args)
{
    addTrafficOptions(parser, false); // each gateway here counts every request once, and the config has no route
    parser.addOptions({
        {"for", "The gateway to write the limit for: nginx (limit_req), envoy (local_ratelimit: one bucket for every "
                "request), traefik (rateLimit), spring (Spring Cloud Gateway's RedisRateLimiter).",
         "gateway"},
        {"keep", "Every request of the least active keys must pass: the keys with at most as many requests as this "
                 "percentile of the keys' requests (default 99; not for envoy, whose bucket has no keys).",
         "P"},
        {"drain", "The recommendation is the lowest rate whose burst drains within this many seconds at that rate "
                  "(default 10).",
         "SECONDS"},
        {"fill-interval", "Envoy's fill_interval, whole milliseconds, at least 0.05 (default 1): its rates are "
                          "tokens_per_fill at this interval.",
         "SECONDS"},
        {"compare", "Also show the textbook token bucket and GCRA at the recommended rate: the least capacity at which "
                    "every request of the kept keys passes, and what they then deny."},
        {"top", "How many of the keys the limit denies most to name (default 5).", "N"},
        {"format", "Output format: text (default) or json.", "text|json"},
        {"write", "Also save the config (in the gateway's shadow mode where it has one) to this file.", "FILE"},
    });
    QString log;
    int status = 0;
    if (!parseWithLog(parser, args, log, status))
        return status;
    const AdviseArgs a = readArgs(parser, log);
    const Traffic traffic = readTrafficFromOptions(parser, log, kReplayKeyBytes + kAdviseKeyBytes, true);
    const Written w = adviseFor(a, traffic);
    const Proof proof = prove(w, a.key, traffic);
    if (!proof.equal) { // the advice and the dry run disagree: a fault of the program, not of the input
        std::cerr << "ratelab: advise: the dry run of the written config does not deny what the advice says\n";
        return 1;
    }
    if (!a.write.isEmpty())
        if (const QString error = io::writeFileAtomically(a.write, QByteArray::fromStdString(w.config)); !error.isEmpty())
            return fail("--write: " + error.toStdString());
    ReplayRow denials; // the dry run's own figures, ranked as replay ranks its keys
    denials.deniedPerKey = proof.result.rules[0].deniedPerKey;
    denials.firstDenialPerKey = proof.result.rules[0].firstDenialPerKey;
    const std::vector<KeyDenials> worst = topKeys(denials, a.top);
    const std::vector<TextbookRow> textbook =
        a.compare ? textbookRows(w.traces, w.advice.kept, w.family->rate(w.advice.recommended.step)) : std::vector<TextbookRow>{};
    printWarnings(trafficWarnings(traffic));
    if (a.format == "json")
        writeJson(std::cout, log, traffic, parser, *w.family, w.advice, a, w.config, proof, worst, textbook);
    else
        writeText(std::cout, log, traffic, *w.family, w.advice, a, w.config, proof, worst, textbook);
    return 0;
}

} // namespace ratelab::app
