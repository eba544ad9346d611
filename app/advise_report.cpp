#include "advise_report.h"

#include "advise_args.h"
#include "advise_current.h"
#include "command.h"
#include "config_dry_run.h"
#include "dry_run_command.h"
#include "outputpath.h"
#include "scenario_options.h"
#include "traffic_options.h"
#include "advise/aws_api_gateway_advice.h"
#include "advise/burst_gateway.h"
#include "advise/envoy_advice.h"
#include "advise/express_advice.h"
#include "advise/kong_advice.h"
#include "advise/managed_advice.h"
#include "advise/nginx_advice.h"
#include "advise/origin_load.h"
#include "advise/spring_advice.h"
#include "advise/textbook_advice.h"
#include "advise/traefik_advice.h"
#include "advise/upstash_advice.h"
#include "advise/window_gateway.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/log_keys.h"
#include "replay/replay.h"
#include "replay/replay_memory.h"
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ratelab::app::advising {

namespace {

// onTheLog spreads the dry run of the requests the current config meets over the whole log: the
// requests it does not meet are not limited, and reach the origin.
std::vector<std::int32_t> onTheLog(const std::vector<std::uint8_t>& met, const std::vector<std::int32_t>& deniedBy)
{
    std::vector<std::int32_t> out(met.size(), -1);
    for (std::size_t i = 0, j = 0; i < met.size(); ++i)
        if (met[i])
            out[i] = deniedBy[j++];
    return out;
}

// writeKept says whose requests must pass.
void writeKept(std::ostream& out, const KeptKeys& a, const AdviseArgs& args)
{
    if (args.product == "envoy") {
        out << "kept: every request: local_ratelimit counts every request the filter sees in one token bucket, "
               "whatever its client, so the limit is on what reaches the origin through one Envoy, and the least "
               "bucket the log's busiest moments pass\n\n";
        return;
    }
    const std::int64_t byCount = a.keptKeys - a.passedKeys;
    if (args.keepCurrent)
        out << "kept: the " << counted(byCount, "key") << " the current config denies nothing (of "
            << counted(a.limitedKeys, "key") << (byCount == a.limitedKeys ? "; that is every key" : "") << ")";
    else
        out << "kept: the " << counted(byCount, "key") << " with at most " << counted(a.keptMost, "request")
            << " each (the " << secondsText(args.options.keep) << " % least active, ties kept together"
            << (byCount == a.limitedKeys ? "; that is every key" : "") << ")";
    if (!args.pass.empty())
        out << " and " << counted(a.passedKeys, args.keepCurrent ? "more key" : "busier key") << " matching "
            << ratelab::quoted(args.pass)
            << (byCount < a.limitedKeys && a.keptKeys == a.limitedKeys ? " (that is every key)" : "");
    out << ": "
        << (a.keptRequests == 1 ? "its 1 request" : "all " + grouping(a.keptRequests) + " of their requests")
        << " must pass\n\n";
}

// unlimitedText says what becomes of the requests with an empty key.
std::string unlimitedText(const KeptKeys& a, const AdviseArgs& args)
{
    return counted(a.unlimitedRequests, "request")
           + (args.limitBy.consumer ? " with no user, which basic-auth answers 401 before any limit"
                                    : " with an empty key, which no limit counts");
}

// letByText says which requests the config lets by (--pass-path, --pass-agent), and who sends
// most of them: whoever sends that path or User-Agent is not limited at all.
std::string letByText(const KeptKeys& a, const AdviseArgs& args, const Traffic& traffic)
{
    return counted(a.letByRequests, "request") + " whose " + (args.letBy.path.empty() ? "User-Agent" : "path")
           + " matches " + ratelab::quoted(args.letBy.pattern()) + ", which the config lets by uncounted (they pass at any "
           + "limit; the most, " + grouping(a.letByMostRequests) + ", from " + messageText(traffic.keyNames[a.letByMostKey])
           + ")";
}

// percentText is part of whole in percent, two decimals, rounded down ("0.00" of nothing).
std::string percentText(std::int64_t part, std::int64_t whole)
{
    return hundredthsText(Int128(part) * 100, std::max<std::int64_t>(whole, 1), Rounding::Down) + " %";
}

// writeOrigin says what the limit leaves for the origin on the log: its busiest second and the
// busiest keys' share, before the limit and under it.
void writeOrigin(std::ostream& out, const OriginLoad& o)
{
    out << "the origin's busiest second: " << counted(o.peak, "request") << " of the log, " << grouping(o.admittedPeak)
        << " under this limit";
    if (o.topKeys > 0 && o.topKeys < o.keys)
        out << "; the " << (o.topKeys == 1 ? std::string("busiest key") : grouping(std::int64_t(o.topKeys)) + " busiest keys")
            << " sent " << percentText(o.topRequests, o.requests) << " of the requests and " << percentText(o.topAdmitted, o.admitted)
            << " of those it lets through";
    out << "\n";
}

} // namespace

KeyedTraces tracesFor(const AdviseArgs& a, const Traffic& traffic)
{
    KeyedTraces traces = keyedTraces(traffic, a.pass, letByOf(traffic, a.letBy));
    traces.keptBy = a.keptBy;
    return traces;
}

Proof prove(const std::string& config, const std::vector<std::int64_t>& deniedPerKey, const KeptKeys& keys,
            const AdviseArgs& a, const Traffic& traffic)
{
    DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), a.key);
    Proof p{dryRunOnTraffic(parsed, traffic, "the written config"), false, {}, {}};
    p.equal = p.result.rules.size() == 1 && p.result.rules[0].deniedPerKey == deniedPerKey
              && p.result.rules[0].requests == keys.limitedRequests;
    std::vector<std::int32_t> reached = p.result.deniedBy; // negative: reaches the origin
    if (a.product == "kong" && a.limitBy.consumer) { // basic-auth, on the limited route, answers one without a user 401
        const std::vector<std::uint8_t> letBy = letByOf(traffic, a.letBy); // the let-by route has no basic-auth
        for (std::size_t i = 0; i < reached.size(); ++i)
            if (keylessName(traffic.keyNames[traffic.keys[i]]) && (letBy.empty() || letBy[i] == 0))
                reached[i] = std::max(reached[i], 0);
    }
    p.origin = a.logTraffic ? originLoad(*a.logTraffic, onTheLog(a.met, reached), a.top) : originLoad(traffic, reached, a.top);
    if (a.current) {
        // Envoy's advice keeps every request (its one bucket is one trace); the others keep per log key.
        const bool all = a.product == "envoy";
        if (!all && keys.kept.size() != traffic.keyNames.size())
            throw std::logic_error("advise: the kept keys are not the log's keys");
        p.current = *a.current;
        p.current->shared = all;
        p.current->letBy = a.letBy.any();
        compareWithCurrent(*p.current, traffic, parsed, p.result,
                           all ? std::vector<std::uint8_t>(traffic.keyNames.size(), 1) : keys.kept, a.top);
    }
    return p;
}

std::string padded(const std::string& s, std::size_t width, bool left)
{
    const std::string fill(s.size() < width ? width - s.size() : 0, ' ');
    return left ? s + fill : fill + s;
}

std::string shadowText(const AdviseArgs& args)
{
    if (args.product == "envoy")
        return std::string("Envoy, in shadow mode first: filter_enforced 0% counts what it would deny "
                           "(ratelab.http_local_rate_limit.rate_limited) and denies nothing; set its numerator to 100 to "
                           "enforce. ")
               + (args.letBy.any() ? "These are an http_connection_manager's http_filters and route_config: give your routes "
                                     "the two routes' matches, ratelab-let-by first with its own local_ratelimit (filter_enabled "
                                     "left at 0%: the filter neither counts nor limits there); their cluster is a placeholder"
                                   : "The entry goes in the http_connection_manager's http_filters, before "
                                     "envoy.filters.http.router");
    if (args.product == "express")
        return "express-rate-limit has no dry-run flag; its handler option is the closest: handler: (req, res, next) => "
               "{ console.warn('would limit', req.ip); next() } counts as enforcing does (a denied request too) and lets "
               "every request through. Pass these options to rateLimit(...); they keep its MemoryStore, one per process";
    if (args.product == "kong")
        return std::string("Kong has no dry-run mode: its rate-limiting denies from the moment it runs (a flag to only log "
                           "was asked for, not added). The closest: merge the plugin into your kong.yml with enabled: false "
                           "(configured, run nowhere), run `ratelab replay LOG --config FILE` on each new day's log, and "
                           "enable it when the denials are as expected. The service and route are placeholders the dry run "
                           "needs: `deck gateway sync` of this file alone would delete every entity it does not list")
               + (args.limitBy.consumer ? "; basic-auth is what sets the log's user: keep your own authentication plugin "
                                          "if consumers come from another"
                                        : "");
    if (args.product == "traefik")
        return std::string("Traefik has no dry-run mode: a rateLimit denies from the moment a router lists it. The "
                           "closest: load ")
               + (args.letBy.any() ? "the middleware alone first (it limits nothing), run `ratelab replay LOG --config FILE` "
                                     "on each new day's log, and when the denials are as expected give your routers the two "
                                     "routers' rules: ratelab-let-by's requests without the middleware, tried first, every "
                                     "other with ratelab-limit. Their service is a placeholder the dry run needs"
                                   : "this middleware with no router listing it (it limits nothing), run `ratelab replay LOG "
                                     "--config FILE` on each new day's log, and add ratelab-limit to the router's "
                                     "middlewares when the denials are as expected");
    if (args.product == "aws-api-gateway")
        return "API Gateway has no dry-run or count mode: a usage plan throttles its API keys from the moment it has a "
               "stage. The closest: create it on a copy of the stage that receives the same keys (aws apigateway "
               "create-usage-plan --cli-input-json file://FILE, then its apiStages and keys) and watch that stage's 429s "
               "in CloudWatch, or run `ratelab replay LOG --config FILE` on each new day's log";
    if (args.product == "upstash")
        return "@upstash/ratelimit has no dry-run mode: limit() answers success and the caller enforces it. The closest: "
               "call limit() and ignore success (log it; analytics: true charts it in the Upstash console): a request "
               "slidingWindow denies is not counted, so the counts are what enforcing makes them";
    if (args.product == "spring")
        return "Spring Cloud Gateway has no dry-run mode: a RequestRateLimiter denies from the moment a route lists it. "
               "The closest: load this route in a gateway no client uses (or none), run `ratelab replay LOG --config FILE` "
               "on each new day's log, and add the filter to your routes when the denials are as expected; a request "
               "without a key passes (deny-empty-key: false)";
    if (args.product == "cloudflare")
        return "Cloudflare, in log mode first: the action \"log\" in place of \"block\" records what the rule would block "
               "and blocks nothing (where the plan offers it); set block to enforce. The rule goes in the zone's "
               "http_ratelimit phase entry point ruleset (rulesets API: a PUT of this body alone replaces the rules there); "
               "the periods, characteristics and actions offered depend on the plan";
    if (args.product == "aws-waf")
        return "AWS WAF, in count mode first: the action {\"Count\": {}} in place of {\"Block\": {}} counts what the rule "
               "would block (CloudWatch metric ratelab-rate-limit) and blocks nothing; set Block to enforce. The rule goes "
               "in a web ACL's Rules: give its Priority the place it needs among yours";
    return "nginx, in shadow mode first: limit_req_dry_run logs what it would reject and rejects nothing; delete it to "
           "enforce";
}

void writeCost(std::ostream& out, const KeptKeys& a, const DenialCount& denied, const std::vector<KeyDenials>& worst,
               const Traffic& traffic)
{
    out << "  kept keys: " << grouping(denied.kept) << " of their " << counted(a.keptRequests, "request") << " denied\n"
        << "  the other keys: " << grouping(denied.other) << " of their "
        << counted(a.limitedRequests - a.keptRequests, "request") << " denied, " << counted(denied.keys, "key")
        << " capped" << (worst.empty() ? "" : "; the most denied:") << "\n";
    const std::vector<std::int64_t> requests = attemptsPerKey(traffic);
    for (const KeyDenials& k : worst)
        out << "    " << padded(messageText(traffic.keyNames[k.key]), 40, true) << " " << grouping(k.denied) << " of "
            << grouping(requests[k.key]) << " denied, the first at "
            << formatSeconds(k.firstDenial - traffic.times.front()) << " s after the log's first request\n";
}

std::string originText(const OriginGoal& o)
{
    return "at most " + grouping(o.most.requests) + " reach the origin in any " + formatSeconds(o.most.window)
           + " s of the log";
}

void writeHeadline(std::ostream& out, const std::string& product, const QString& log, const KeptKeys& a,
                   const AdviseArgs& args, const Traffic& traffic)
{
    out << "advise for " << product << ": " << log.toStdString() << ", " << counted(a.limitedRequests, "request")
        << (args.product == "envoy" ? ", one token bucket for all of them (local_ratelimit keeps none per client)"
                                    : " of " + counted(a.limitedKeys, "key") + " by " + args.key)
        << (args.keyFromCurrent.empty() || args.product == "envoy" ? "" : " (the current config's key)") << "\n";
    if (args.metRequests > 0)
        out << "  the requests the current config's rules meet (" << args.current->file << "): "
            << grouping(args.metRequests) << " of the log's " << grouping(args.logRequests)
            << (args.metComplete ? "" : " (NOT COMPLETE: the requests only its parts not replayed meet are not among them)")
            << "\n";
    if (a.unlimitedRequests > 0)
        out << "  and " << unlimitedText(a, args) << "\n";
    if (a.letByRequests > 0)
        out << "  and " << letByText(a, args, traffic) << "\n";
    if (a.unroutedRequests > 0) // no route takes them: the written routes begin with '/'
        out << "  and " << counted(a.unroutedRequests, "request") << " with no path the config's routes take (none "
            << "logged, or not starting with /), which no limit counts\n";
    writeKept(out, a, args);
}

void writeProofText(std::ostream& out, const KeptKeys& a, const AdviseArgs& args, const std::string& config,
                    const Proof& proof)
{
    out << "\n" << shadowText(args) << "\n" << config;
    if (args.metRequests > 0)
        out << "(its limit_req in place of the current config's " << args.metRules << ", on whose requests it is "
            << "advised; the other lines in http {})\n";
    out << (args.metRequests > 0 ? "\nproof: the dry run of this config on the " + grouping(args.metRequests)
                                       + " requests the current config's rules meet: "
                                 : std::string("\nproof: the dry run `ratelab replay LOG --config FILE` runs, on this config: "))
        << grouping(proof.result.denied) << " of " << counted(proof.result.rules[0].requests, "request")
        << (a.letByRequests > 0 || a.unroutedRequests > 0 ? " it counts" : "") << " denied, " << counted(proof.result.rules[0].keysDenied, "key")
        << (a.unlimitedRequests > 0 ? ", besides " + unlimitedText(a, args) : "")
        << "; every key's denials as advised\n";
    writeOrigin(out, proof.origin);
    if (proof.current)
        writeCurrentText(out, *proof.current);
}

void writeJsonHead(std::ostream& out, const std::string& product, const QString& log, const Traffic& traffic,
                   const QCommandLineParser& parser, const KeptKeys& a, const AdviseArgs& args)
{
    out << "{\"product\": " << jsonString(product) << ",\n \"input\": ";
    writeTrafficJson(out, log, args.logTraffic ? *args.logTraffic : traffic, parser);
    out << ",\n \"warnings\": [";
    const QStringList warnings = trafficWarningList(traffic);
    for (qsizetype i = 0; i < warnings.size(); ++i)
        out << (i ? ", " : "") << jsonString(warnings[i].toStdString());
    out << "]";
    if (args.metRequests > 0) // the requests the current config's rules meet, which the advice is made on
        out << ",\n \"met_by_current\": {\"log_requests\": " << args.logRequests << ", \"requests\": " << args.metRequests
            << ", \"rules\": " << jsonString(args.metRules) << ", \"start\": " << jsonString(formatEpoch(traffic.startEpochNanos))
            << "}";
    out << ",\n \"keys\": {\"limited\": " << a.limitedKeys << ", \"requests\": " << a.limitedRequests
        << ", \"unlimited_requests\": " << a.unlimitedRequests << ", \"unrouted_requests\": " << a.unroutedRequests
        << ", \"keep_percent\": "
        << (args.keepCurrent ? "null" : jsonString(secondsText(args.options.keep)))
        << ", \"kept_by_current\": " << (args.keepCurrent ? "true" : "false")
        << ", \"key_from_current\": " << (args.keyFromCurrent.empty() ? "false" : "true") << ", \"kept\": " << a.keptKeys << ", \"kept_requests\": "
        << a.keptRequests << ", \"kept_most_requests\": " << a.keptMost << ", \"pass_pattern\": "
        << (args.pass.empty() ? "null" : jsonString(args.pass)) << ", \"kept_by_pattern\": " << a.passedKeys << "},\n";
    if (args.letBy.any())
        out << " \"let_by\": {\"" << (args.letBy.path.empty() ? "agent" : "path") << "\": " << jsonString(args.letBy.pattern())
            << ", \"requests\": " << a.letByRequests << ", \"unrouted\": " << a.unroutedRequests << "},\n";
}

void writeGoalsJson(std::ostream& out, const AdviseArgs& args)
{
    if (args.options.cap)
        out << ", \"cap\": {\"requests\": " << args.options.cap->requests << ", \"window\": "
            << jsonString(formatSeconds(args.options.cap->window)) << "}";
    if (args.options.origin)
        out << ", \"origin_goal\": {\"requests\": " << args.options.origin->most.requests << ", \"window\": "
            << jsonString(formatSeconds(args.options.origin->most.window)) << "}";
}

void writeTopKeys(std::ostream& out, const std::vector<KeyDenials>& worst, const Traffic& traffic)
{
    out << "\"top_keys\": [";
    const std::vector<std::int64_t> requests = attemptsPerKey(traffic);
    for (std::size_t i = 0; i < worst.size(); ++i)
        out << (i ? ", " : "") << "{\"key\": " << jsonString(traffic.keyNames[worst[i].key])
            << ", \"requests\": " << requests[worst[i].key] << ", \"denied\": " << worst[i].denied
            << ", \"first_denial\": " << jsonString(formatSeconds(worst[i].firstDenial - traffic.times.front())) << "}";
    out << "]";
}

void writeJsonTail(std::ostream& out, const std::string& config, const Proof& proof)
{
    if (proof.current)
        writeCurrentJson(out, *proof.current);
    out << " \"config\": " << jsonString(config) << ",\n \"proof\": {\"requests\": " << proof.result.rules[0].requests
        << ", \"denied\": " << proof.result.denied << ", \"keys_denied\": "
        << proof.result.rules[0].keysDenied
        << ", \"as_advised\": " << (proof.equal ? "true" : "false") << "},\n \"origin\": {\"peak_per_second\": "
        << proof.origin.peak << ", \"admitted_peak_per_second\": " << proof.origin.admittedPeak << ", \"requests\": "
        << proof.origin.requests << ", \"admitted\": " << proof.origin.admitted << ", \"busiest_keys\": "
        << proof.origin.topKeys << ", \"busiest_keys_requests\": " << proof.origin.topRequests
        << ", \"busiest_keys_admitted\": " << proof.origin.topAdmitted << "}}\n";
}

std::optional<int> settle(const Proof& proof, const AdviseArgs& a, const std::string& config)
{
    if (!proof.equal) { // the advice and the dry run disagree: a fault of the program, not of the input
        std::cerr << "ratelab: advise: the dry run of the written config does not deny what the advice says\n";
        return 1;
    }
    if (!a.write.isEmpty())
        if (const QString error = io::writeFileAtomically(a.write, QByteArray::fromStdString(config)); !error.isEmpty())
            return fail("--write: " + error.toStdString());
    return std::nullopt;
}

std::vector<KeyDenials> worstKeys(const Proof& proof, const AdviseArgs& a, const Traffic& traffic)
{
    ReplayRow denials;
    denials.deniedPerKey = proof.result.rules[0].deniedPerKey;
    denials.firstDenialPerKey = proof.result.rules[0].firstDenialPerKey;
    std::vector<KeyDenials> out = topKeys(denials, a.top);
    // Advised on the requests the current config meets: the reports count a first denial from
    // the advised traffic's first request; moved so that they count it from the log's.
    if (a.logTraffic)
        for (KeyDenials& k : out)
            k.firstDenial += (traffic.startEpochNanos - a.logTraffic->startEpochNanos) - a.logTraffic->times.front()
                             + traffic.times.front();
    return out;
}

} // namespace ratelab::app::advising
