#include "advise_command.h"
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

namespace ratelab::app {

namespace {

// What advise holds per key beyond the read log's share: its place in the grouped requests (8 B),
// kept (1), denials at the recommendation (8), and the dry run's per key: its denials and first
// denial (16) and the zone's excess, last and whether it exists (17). 64 B rounds that up.
constexpr std::int64_t kAdviseKeyBytes = 64;

// Proof is the dry run of the written config on the log, whether it denies what the advice says,
// and what it leaves for the origin.
struct Proof {
    DryRunResult result;
    bool equal = false;
    OriginLoad origin;
    std::optional<AgainstCurrent> current; // beside the config the gateway runs now (--config)
};

// Written is one gateway's advice made config: the advice, the config's text and each log key's
// denials at the recommendation, which the dry run of that text must report.
struct Written {
    BurstGatewayAdvice gateway;
    std::string config;
    std::vector<std::int64_t> deniedPerLogKey;
    const BurstFamily& family() const { return gateway.family(); }
    const KeyedTraces& traces() const { return gateway.traces(); }
    const Advice& advice() const { return gateway.advice(); }
};

Written adviseFor(const AdviseArgs& a, const Traffic& traffic)
{
    BurstGatewayAdvice gateway({a.product, a.key, a.options, a.fill, a.pass, a.letBy, a.keptBy}, traffic);
    std::string config = gateway.config(gateway.advice().recommended);
    std::vector<std::int64_t> denied = gateway.deniedPerLogKey(traffic);
    return {std::move(gateway), std::move(config), std::move(denied)};
}

// tracesFor groups the traffic by key for a window product's advice, with the keys kept as the
// options say (--pass, --keep current).
KeyedTraces tracesFor(const AdviseArgs& a, const Traffic& traffic)
{
    KeyedTraces traces = keyedTraces(traffic, a.pass, letByOf(traffic, a.letBy));
    traces.keptBy = a.keptBy;
    return traces;
}

// adviseOnWhatIsMet is adviseFor, its refusal of a pattern saying which requests it looked at
// when they are only those the current config's rules meet.
Written adviseOnWhatIsMet(const AdviseArgs& a, const Traffic& traffic)
{
    try {
        return adviseFor(a, traffic);
    } catch (const InputError& e) {
        if (a.metRequests == 0 || !a.letBy.any() || !std::string_view(e.what()).starts_with(a.letBy.option()))
            throw;
        throw InputError(std::string(e.what()) + ", of the " + grouping(a.metRequests)
                         + " requests the current config's rules meet");
    }
}

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

// prove runs the dry run on the written config: it must deny each key what the advice says, and
// count the limited requests.
Proof prove(const std::string& config, const std::vector<std::int64_t>& deniedPerKey, const KeptKeys& keys,
            const AdviseArgs& a, const Traffic& traffic)
{
    DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), a.key);
    Proof p{dryRunOnTraffic(parsed, traffic, "the written config"), false, {}, {}};
    p.equal = p.result.rules.size() == 1 && p.result.rules[0].deniedPerKey == deniedPerKey
              && p.result.rules[0].requests == keys.limitedRequests;
    std::vector<std::int32_t> reached = p.result.deniedBy; // negative: reaches the origin
    if (a.product == "kong" && a.limitBy.consumer) // basic-auth answers a request without a user 401
        for (std::size_t i = 0; i < reached.size(); ++i)
            if (keylessName(traffic.keyNames[traffic.keys[i]]))
                reached[i] = std::max(reached[i], 0);
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

// mostInText is the most a point lets one key through in the cap's window, "no limit" when it is off.
std::string mostInText(const BurstFamily& family, const AdvicePoint& p, const WindowCap& cap)
{
    const std::int64_t most = *family.mostIn(p.step, p.burst, cap.window);
    return most == std::numeric_limits<std::int64_t>::max() ? "no limit" : grouping(most);
}

void writeFront(std::ostream& out, const BurstFamily& family, const Advice& a, const AdviseArgs& args)
{
    const std::optional<WindowCap>& cap = args.options.cap;
    const std::string mostIn = cap ? "most in " + formatSeconds(cap->window) + " s" : "";
    const std::optional<OriginGoal>& origin = args.options.origin;
    const std::string atOrigin = origin ? "origin in " + formatSeconds(origin->most.window) + " s" : "";
    out << "the front: for each burst, the lowest round rate at which every request of "
        << (args.product == "envoy" ? "the log" : "the kept keys") << " passes\n"
        << "  " << padded("rate", 10, true) << padded("burst", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << (cap ? padded(mostIn, mostIn.size() + 2) : "")
        << (origin ? padded(atOrigin, atOrigin.size() + 2) : "") << "\n";
    for (const AdvicePoint& p : a.front)
        out << "  " << padded(family.rateText(p.step), 10, true) << padded(grouping(p.burst), 10)
            << padded(grouping(p.denied.kept), 13) << padded(grouping(p.denied.other), 15)
            << padded(grouping(p.denied.keys), 13) << (cap ? padded(mostInText(family, p, *cap), mostIn.size() + 2) : "")
            << (origin ? padded(grouping(*p.origin), atOrigin.size() + 2) : "")
            << (p.step == a.recommended.step ? "  <- recommended" : "") << "\n";
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
    if (args.product == "aws-api-gateway")
        return "it caps every API key at " + counted(r.burst, "request") + " at once, then " + rate + " (its own token "
               "bucket; the account's, 10,000 a second and burst 5,000, which AWS shares among all keys, is weighed here for each key alone)";
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
    if (args.product == "traefik" && args.letBy.any())
        return "Traefik has no dry-run mode: a rateLimit denies from the moment a router lists it. The closest: load "
               "the middleware alone first (it limits nothing), run `ratelab replay LOG --config FILE` on each new day's "
               "log, and when the denials are as expected give your routers the two routers' rules: ratelab-let-by's "
               "requests without the middleware, tried first, every other with ratelab-limit. Their service is a "
               "placeholder the dry run needs";
    if (args.product == "traefik")
        return "Traefik has no dry-run mode: a rateLimit denies from the moment a router lists it. The closest: load "
               "this middleware with no router listing it (it limits nothing), run `ratelab replay LOG --config FILE` "
               "on each new day's log, and add ratelab-limit to the router's middlewares when the denials are as expected";
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

// writeCost is what a limit costs the keys: the kept keys' denials, the others', and the keys it
// denies most, named.
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

std::string capReasonText(const BurstFamily& family, const Advice& a, const AdviseArgs& args);

// originText is the origin goal as the recommendation meets it: "at most 30 reach the origin in any 1 s of the log".
std::string originText(const OriginGoal& o)
{
    return "at most " + grouping(o.most.requests) + " reach the origin in any " + formatSeconds(o.most.window)
           + " s of the log";
}

// reasonText says why the recommendation is the rate it is: the drain rule, the cap's, and the
// origin's when it moved it.
std::string reasonText(const BurstFamily& family, const Advice& a, const AdviseArgs& args)
{
    const std::optional<OriginGoal>& origin = args.options.origin;
    if (!origin || !a.movedByOrigin)
        return capReasonText(family, a, args) + (origin ? ", and with it " + originText(*origin) : "");
    const std::string drain = formatSeconds(args.options.drain) + " s";
    const std::string goal = originText(*origin) + (args.options.cap ? " and one key gets through at most "
                                                                         + grouping(args.options.cap->requests) + " in any "
                                                                         + formatSeconds(args.options.cap->window) + " s"
                                                                     : "");
    return a.drainMet ? "the row of lowest rate whose burst drains within " + drain + " and with which " + goal
                      : "no row with which " + goal + " drains its burst within " + drain + ", and of those rows this one "
                        "drains soonest";
}

std::string capReasonText(const BurstFamily& family, const Advice& a, const AdviseArgs& args)
{
    const std::string drain = formatSeconds(args.options.drain) + " s";
    const std::optional<WindowCap>& cap = args.options.cap;
    if (!cap)
        return a.drainMet ? "the lowest rate whose burst drains within " + drain + " at that rate"
                          : "no rate up to " + family.rateText(a.top) + " drains its burst within " + drain
                                + ": the lowest rate needing the least burst any rate needs";
    const std::string capped = "lets one " + std::string(args.product == "envoy" ? "Envoy" : "key") + " through at most "
                               + grouping(cap->requests) + " in any " + formatSeconds(cap->window) + " s";
    return a.drainMet ? "the lowest rate whose burst drains within " + drain + " at that rate and that " + capped
                      : "no rate that " + capped + " drains its burst within " + drain + ", and of those rates this one drains soonest";
}

void writeRecommendation(std::ostream& out, const BurstFamily& family, const Advice& a, const AdviseArgs& args,
                         const std::vector<KeyDenials>& worst, const Traffic& traffic)
{
    const AdvicePoint& r = a.recommended;
    out << "recommended: rate " << family.rateText(r.step) << ", burst " << grouping(r.burst) << " ("
        << reasonText(family, a, args) << "; this one drains in " << drainText(family, r) << " s)\n";
    if (args.product == "envoy")
        out << "  the log's requests: " << grouping(r.denied.kept) << " of " << counted(a.keptRequests, "request")
            << " denied\n";
    else
        writeCost(out, a, r.denied, worst, traffic);
    out << "  " << capsText(args, family, r);
    if (args.options.cap)
        out << "; at most " << mostInText(family, r, *args.options.cap) << " in any " << formatSeconds(args.options.cap->window)
            << " s, whatever it sends";
    out << "\n";
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
            << padded(grouping(r.denied.kept), 13) << padded(grouping(r.denied.other), 15)
            << padded(grouping(r.denied.keys), 13) << "\n";
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

// writeHeadline says what the advice is made on, and writes whose requests must pass.
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
    writeKept(out, a, args);
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

// writeProofText is the written config, introduced by the product's dry-run form, and its proof.
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
        << (a.letByRequests > 0 ? " it counts" : "") << " denied, " << counted(proof.result.rules[0].keysDenied, "key")
        << (a.unlimitedRequests > 0 ? ", besides " + unlimitedText(a, args) : "")
        << "; every key's denials as advised\n";
    writeOrigin(out, proof.origin);
    if (proof.current)
        writeCurrentText(out, *proof.current);
}

void writeText(std::ostream& out, const QString& log, const Traffic& traffic, const BurstFamily& family,
               const Advice& a, const AdviseArgs& args, const std::string& config, const Proof& proof,
               const std::vector<KeyDenials>& worst, const std::vector<TextbookRow>& textbook)
{
    writeHeadline(out, family.product(), log, a, args, traffic);
    writeFront(out, family, a, args);
    out << "\n";
    writeRecommendation(out, family, a, args, worst, traffic);
    if (!textbook.empty())
        writeTextbook(out, family, a, textbook);
    writeProofText(out, a, args, config, proof);
}

void writePoint(std::ostream& out, const BurstFamily& family, const AdvicePoint& p, const std::optional<WindowCap>& cap)
{
    out << "{\"rate\": " << jsonString(family.rateText(p.step)) << ", \"burst\": " << p.burst
        << ", \"kept_denied\": " << p.denied.kept << ", \"others_denied\": " << p.denied.other
        << ", \"keys_denied\": " << p.denied.keys;
    if (cap) {
        const std::int64_t most = *family.mostIn(p.step, p.burst, cap->window);
        out << ", \"most_in_window\": " << (most == std::numeric_limits<std::int64_t>::max() ? "null" : std::to_string(most));
    }
    if (p.origin)
        out << ", \"origin_most_in_window\": " << *p.origin;
}

// writeJsonHead opens the JSON: the product, the log read, its warnings and the keys kept.
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
        << ", \"unlimited_requests\": " << a.unlimitedRequests << ", \"keep_percent\": "
        << (args.keepCurrent ? "null" : jsonString(secondsText(args.options.keep)))
        << ", \"kept_by_current\": " << (args.keepCurrent ? "true" : "false")
        << ", \"key_from_current\": " << (args.keyFromCurrent.empty() ? "false" : "true") << ", \"kept\": " << a.keptKeys << ", \"kept_requests\": "
        << a.keptRequests << ", \"kept_most_requests\": " << a.keptMost << ", \"pass_pattern\": "
        << (args.pass.empty() ? "null" : jsonString(args.pass)) << ", \"kept_by_pattern\": " << a.passedKeys << "},\n";
    if (args.letBy.any())
        out << " \"let_by\": {\"" << (args.letBy.path.empty() ? "agent" : "path") << "\": " << jsonString(args.letBy.pattern())
            << ", \"requests\": " << a.letByRequests << "},\n";
}

// writeTopKeys is the "top_keys" array: the keys denied most, as the dry run ranks them.
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

// writeJsonTail closes the JSON: the config and its proof.
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

void writeJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
               const BurstFamily& family, const Advice& a, const AdviseArgs& args, const std::string& config,
               const Proof& proof, const std::vector<KeyDenials>& worst, const std::vector<TextbookRow>& textbook)
{
    writeJsonHead(out, family.product(), log, traffic, parser, a, args);
    out << " \"front\": [";
    for (std::size_t i = 0; i < a.front.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        writePoint(out, family, a.front[i], args.options.cap);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    writePoint(out, family, a.recommended, args.options.cap);
    if (args.options.cap)
        out << ", \"cap\": {\"requests\": " << args.options.cap->requests << ", \"window\": "
            << jsonString(formatSeconds(args.options.cap->window)) << "}";
    if (args.options.origin)
        out << ", \"origin_goal\": {\"requests\": " << args.options.origin->most.requests << ", \"window\": "
            << jsonString(formatSeconds(args.options.origin->most.window)) << "}";
    out << ", \"drain\": " << jsonString(formatSeconds(args.options.drain)) << ", \"drain_met\": "
        << (a.drainMet ? "true" : "false") << ", \"drains_in\": " << jsonString(drainText(family, a.recommended))
        << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
    if (!textbook.empty()) {
        out << " \"textbook\": [";
        for (std::size_t i = 0; i < textbook.size(); ++i)
            out << (i ? ", " : "") << "{\"algorithm\": " << jsonString(std::string(algorithmId(textbook[i].algorithm)))
                << ", \"capacity\": " << textbook[i].capacity << ", \"kept_denied\": " << textbook[i].denied.kept
                << ", \"others_denied\": " << textbook[i].denied.other << ", \"keys_denied\": " << textbook[i].denied.keys
                << "}";
        out << "],\n";
    }
    writeJsonTail(out, config, proof);
}

// WindowGoal is --cap and --origin met among a window product's rows (window_goals.h); none
// without either.
using WindowGoal = std::optional<WindowChoice>;

// windowGoal derives the cap and measures the origin at each row, and moves the recommendation
// when the goals ask it.
WindowGoal windowGoal(const AdviseArgs& a, const KeyedTraces& traces, const KeptKeys& keys,
                      const std::vector<WindowRowModel>& models, const std::vector<DenialCount>& denied,
                      std::size_t recommended, const std::string& product,
                      const std::function<std::string(std::size_t)>& rowText)
{
    const WindowGoals goals{a.options.cap, a.options.origin};
    if (!goals.any())
        return std::nullopt;
    return chooseWindow(traces, keys, models, denied, recommended, goals, product, rowText);
}

// goalColumns head the goals' columns of a table of windows: the cap's, the origin's ("" without).
std::string capColumn(const AdviseArgs& a)
{
    return a.options.cap ? "most in " + formatSeconds(a.options.cap->window) + " s" : "";
}

std::string originColumn(const AdviseArgs& a)
{
    return a.options.origin ? "origin in " + formatSeconds(a.options.origin->most.window) + " s" : "";
}

std::string goalColumns(const AdviseArgs& a)
{
    const std::string cap = capColumn(a), origin = originColumn(a);
    return (cap.empty() ? "" : padded(cap, cap.size() + 2)) + (origin.empty() ? "" : padded(origin, origin.size() + 2));
}

// goalCells is a row's figures in those columns.
std::string goalCells(const AdviseArgs& a, const WindowGoal& goal, std::size_t row)
{
    if (!goal)
        return "";
    return (goal->mostIn.empty() ? "" : padded(grouping(goal->mostIn[row]), capColumn(a).size() + 2))
           + (goal->origin.empty() ? "" : padded(grouping(goal->origin[row]), originColumn(a).size() + 2));
}

// goalsText is the goals as a row meets them: "one key gets through at most 60 in any 60 s and at
// most 30 reach the origin in any 1 s of the log".
std::string goalsText(const AdviseArgs& a)
{
    const std::optional<WindowCap>& cap = a.options.cap;
    const std::string capped = cap ? "one key gets through at most " + grouping(cap->requests) + " in any "
                                         + formatSeconds(cap->window) + " s"
                                   : "";
    const std::string origin = a.options.origin ? originText(*a.options.origin) : "";
    return capped + (!capped.empty() && !origin.empty() ? " and " : "") + origin;
}

// windowReason says why the recommendation is the row it is: the product's usual choice (`usual`),
// meeting the goals (with its figures), or the goals' when they moved it from `usualPoint`, which
// it names with its figures.
std::string windowReason(const AdviseArgs& a, const WindowGoal& goal, const std::string& usual,
                         const std::string& usualPoint, std::size_t usualRow)
{
    if (!goal)
        return usual;
    const std::optional<WindowCap>& cap = a.options.cap;
    const std::optional<OriginGoal>& origin = a.options.origin;
    // the usual recommendation's figures: "58 in any 60 s", "38 reach the origin in any 1 s of the log"
    const std::string most = cap ? grouping(goal->mostIn[usualRow]) + " in any " + formatSeconds(cap->window) + " s" : "";
    const std::string reached = origin ? grouping(goal->origin[usualRow]) + " reach the origin in any "
                                             + formatSeconds(origin->most.window) + " s of the log"
                                       : "";
    const std::string both = cap && origin ? " and " : "";
    if (!goal->moved)
        return usual + ", and with it " + (cap ? "one key gets through at most " + most + " (the cap " + grouping(cap->requests) + ")" : "")
               + both + (origin ? "at most " + reached + " (the goal " + grouping(origin->most.requests) + ")" : "");
    return "of the windows with which " + goalsText(a) + ", the one that denies the fewest requests; " + usualPoint
           + " would let " + (cap ? "one key through " + most : "") + both + reached;
}

// writeWindowGoalsJson adds a row's figures under the goals to its JSON object.
void writeWindowGoalsJson(std::ostream& out, const WindowGoal& goal, std::size_t row)
{
    if (goal && !goal->mostIn.empty())
        out << ", \"most_in_window\": " << goal->mostIn[row];
    if (goal && !goal->origin.empty())
        out << ", \"origin_most_in_window\": " << goal->origin[row];
}

// writeWindowRecommendedJson adds the goals to the recommendation's JSON object.
void writeWindowRecommendedJson(std::ostream& out, const AdviseArgs& a, const WindowGoal& goal)
{
    if (!goal)
        return;
    writeWindowGoalsJson(out, goal, goal->recommended);
    if (a.options.cap)
        out << ", \"cap\": {\"requests\": " << a.options.cap->requests << ", \"window\": "
            << jsonString(formatSeconds(a.options.cap->window)) << "}";
    if (a.options.origin)
        out << ", \"origin_goal\": {\"requests\": " << a.options.origin->most.requests << ", \"window\": "
            << jsonString(formatSeconds(a.options.origin->most.window)) << "}";
    out << ", \"moved_by_goals\": " << (goal->moved ? "true" : "false");
}

// writeWindowsHead heads the table of a windowed product's windows (Kong's, express-rate-limit's).
void writeWindowsHead(std::ostream& out, const std::string& window, const AdviseArgs& a)
{
    out << "the windows: for each, the least limit at which every request of the kept keys passes, and what it "
           "alone denies\n"
        << "  " << padded(window, 10, true) << padded("limit", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << goalColumns(a) << "\n";
}

void writeWindowRow(std::ostream& out, const std::string& window, std::int64_t limit, const DenialCount& denied,
                    bool recommended, const std::string& origin)
{
    out << "  " << padded(window, 10, true) << padded(grouping(limit), 10) << padded(grouping(denied.kept), 13)
        << padded(grouping(denied.other), 15) << padded(grouping(denied.keys), 13) << origin
        << (recommended ? "  <- recommended" : "") << "\n";
}

// kongCapsText is what Kong's limits cap, longest period first: "120 requests in each minute of
// the clock and 10 in each second".
std::string kongCapsText(const KongLimits& limits)
{
    std::string out;
    for (int p = Kong::kPeriods - 1; p >= 0; --p)
        if (const std::int64_t l = limits[std::size_t(p)]; l != 0) {
            const std::string period(Kong::periodName(p));
            out += out.empty() ? counted(l, "request") + " in each " + period + " of the clock"
                               : " and " + grouping(l) + " in each " + period;
        }
    return out;
}

// KongReport is Kong's advice as reported: the goal met among its rows (kongRows), and the usual
// recommendation's row and text when the goal moved it.
struct KongReport {
    const KongAdvice& k;
    WindowGoal goal;
    std::size_t usualRow = 0;
    std::string usualPoint;
};

void writeKongText(std::ostream& out, const QString& log, const Traffic& traffic, const KongReport& kr,
                   const AdviseArgs& args, const std::string& config, const Proof& proof,
                   const std::vector<KeyDenials>& worst)
{
    const KongAdvice& k = kr.k;
    writeHeadline(out, "Kong", log, k.keys, args, traffic);
    writeWindowsHead(out, "window", args);
    for (int p = 0; p < kKongShownPeriods; ++p) {
        const KongPoint& w = k.windows[std::size_t(p)];
        writeWindowRow(out, std::string(Kong::periodName(p)), w.limits[std::size_t(p)], w.denied,
                       w.limits == k.recommended.limits, goalCells(args, kr.goal, std::size_t(p)));
    }
    const KongPoint& r = k.recommended;
    const std::string usual = r.limits[0] != 0 ? "the most one kept key sent in a minute, and under it the most it sent in a second"
                                               : "the most one kept key sent in a minute; it sent as many in a second, where a "
                                                 "limit would never bind";
    out << "\nrecommended: " << kongLimitsText(r.limits) << " (" << windowReason(args, kr.goal, usual, kr.usualPoint, kr.usualRow)
        << ")\n";
    writeCost(out, k.keys, r.denied, worst, traffic);
    out << "  it caps every key at " << kongCapsText(r.limits) << ": fixed windows, so a key may spend "
        << "one window's limit at its end and the next's at its start\n";
    writeProofText(out, k.keys, args, config, proof);
}

void writeKongPoint(std::ostream& out, const KongPoint& p)
{
    out << "{\"limits\": {";
    bool first = true;
    for (int i = 0; i < Kong::kPeriods; ++i)
        if (p.limits[std::size_t(i)] != 0) {
            out << (first ? "" : ", ") << jsonString(std::string(Kong::periodName(i))) << ": " << p.limits[std::size_t(i)];
            first = false;
        }
    out << "}, \"kept_denied\": " << p.denied.kept << ", \"others_denied\": " << p.denied.other
        << ", \"keys_denied\": " << p.denied.keys;
}

void writeKongJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                   const KongReport& kr, const AdviseArgs& args, const std::string& config, const Proof& proof,
                   const std::vector<KeyDenials>& worst)
{
    const KongAdvice& k = kr.k;
    writeJsonHead(out, "Kong", log, traffic, parser, k.keys, args);
    out << " \"windows\": [";
    for (std::size_t i = 0; i < k.windows.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        writeKongPoint(out, k.windows[i]);
        writeWindowGoalsJson(out, kr.goal, i);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    writeKongPoint(out, k.recommended);
    writeWindowRecommendedJson(out, args, kr.goal);
    out << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
    writeJsonTail(out, config, proof);
}

// expressPointText is a row as the options name it: "windowMs 60000, limit 12".
std::string expressPointText(const ExpressPoint& p)
{
    return "windowMs " + std::to_string(p.windowMs) + ", limit " + grouping(p.limit);
}

void writeExpressText(std::ostream& out, const QString& log, const Traffic& traffic, const ExpressAdvice& e,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    writeHeadline(out, "express-rate-limit", log, e.keys, args, traffic);
    writeWindowsHead(out, "windowMs", args);
    for (std::size_t i = 0; i < e.windows.size(); ++i)
        writeWindowRow(out, std::to_string(e.windows[i].windowMs), e.windows[i].limit, e.windows[i].denied,
                       i == e.recommendedIndex, goalCells(args, goal, i));
    const ExpressPoint& r = e.recommended();
    out << "\nrecommended: " << expressPointText(r) << " ("
        << windowReason(args, goal, "express-rate-limit's default window, and the most one kept key sent in one",
                        expressPointText(e.windows[kExpressRecommended]), kExpressRecommended)
        << ")\n";
    writeCost(out, e.keys, r.denied, worst, traffic);
    out << "  it caps every key at " << counted(r.limit, "request") << " in a window of " << r.windowMs
        << " ms from its first request after the last window ended; a denied request counts too, so a key that keeps "
           "retrying stays denied until its window ends\n";
    writeProofText(out, e.keys, args, config, proof);
}

void writeExpressJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const ExpressAdvice& e, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    writeJsonHead(out, "express-rate-limit", log, traffic, parser, e.keys, args);
    const auto point = [&](const ExpressPoint& p) {
        out << "{\"windowMs\": " << p.windowMs << ", \"limit\": " << p.limit << ", \"kept_denied\": " << p.denied.kept
            << ", \"others_denied\": " << p.denied.other << ", \"keys_denied\": " << p.denied.keys;
    };
    out << " \"windows\": [";
    for (std::size_t i = 0; i < e.windows.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        point(e.windows[i]);
        writeWindowGoalsJson(out, goal, i);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    point(e.recommended());
    writeWindowRecommendedJson(out, args, goal);
    out << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
    writeJsonTail(out, config, proof);
}

// ManagedTerms is how the report names a managed edge's settings (Cloudflare's, AWS WAF's).
struct ManagedTerms {
    std::string product, column, window, limit;
};

ManagedTerms managedTerms(const AdviseArgs& a)
{
    return a.product == "cloudflare" ? ManagedTerms{"Cloudflare", "period", "period", "requests_per_period"}
                                     : ManagedTerms{"AWS WAF", "window", "EvaluationWindowSec", "Limit"};
}

// managedCapsText says what the recommendation does to a key, in the product's terms.
std::string managedCapsText(const AdviseArgs& a, const WindowPoint& r)
{
    const std::string window = std::to_string(r.window) + " s";
    if (a.product == "cloudflare")
        return "it blocks a key for " + window + " (mitigation_timeout) once its count passes " + grouping(r.limit)
               + ": this period's requests plus the last period's weighted by how much of it lies in the " + window
               + " before; periods on the clock, as Cloudflare counts them; blocked requests are not counted";
    const AwsWafRate rule = wafRule(r.window, r.limit);
    return "it blocks a key while the last check (every " + formatSeconds(rule.checkInterval()) + " s, in force "
           + formatSeconds(rule.detectionDelay()) + " s later) counted more than " + grouping(r.limit)
           + " of its requests in the " + window + " before it: a burst passes whole until a check sees it, and blocked "
           "requests count too";
}

// managedPointText is a row as the rule names it: "period 60, requests_per_period 40".
std::string managedPointText(const ManagedTerms& t, const WindowPoint& p)
{
    return t.window + " " + std::to_string(p.window) + ", " + t.limit + " " + grouping(p.limit);
}

void writeManagedText(std::ostream& out, const QString& log, const Traffic& traffic, const WindowAdvice& w,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    const ManagedTerms t = managedTerms(args);
    writeHeadline(out, t.product, log, w.keys, args, traffic);
    writeWindowsHead(out, t.column, args);
    for (std::size_t i = 0; i < w.windows.size(); ++i)
        writeWindowRow(out, std::to_string(w.windows[i].window) + " s", w.windows[i].limit, w.windows[i].denied,
                       i == w.recommendedIndex, goalCells(args, goal, i));
    if (std::any_of(w.windows.begin(), w.windows.end(), [](const WindowPoint& p) { return p.least < p.limit; }))
        out << "  (AWS's least Limit is " << kWafMinLimit << ": where the kept keys need less, " << kWafMinLimit
            << " is written and measured)\n";
    const WindowPoint& r = w.recommended();
    const std::size_t usualRow = args.product == "cloudflare" ? kCloudflareRecommended : kWafRecommended;
    const std::string usual = args.product == "cloudflare" ? "a minute, and the least limit at which the sliding count lets "
                                                             "every request of the kept keys through"
                                                           : "AWS's default window, and the most requests of one kept key "
                                                             "that a check in force at one of them counted";
    out << "\nrecommended: " << managedPointText(t, r) << " ("
        << windowReason(args, goal, usual, managedPointText(t, w.windows[usualRow]), usualRow) << ")\n";
    writeCost(out, w.keys, r.denied, worst, traffic);
    out << "  " << managedCapsText(args, r) << "\n";
    writeProofText(out, w.keys, args, config, proof);
}

void writeManagedJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const WindowAdvice& w, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    const ManagedTerms t = managedTerms(args);
    writeJsonHead(out, t.product, log, traffic, parser, w.keys, args);
    const auto point = [&](const WindowPoint& p) {
        out << "{" << jsonString(t.window) << ": " << p.window << ", \"least\": " << p.least << ", " << jsonString(t.limit)
            << ": " << p.limit << ", \"kept_denied\": " << p.denied.kept << ", \"others_denied\": " << p.denied.other
            << ", \"keys_denied\": " << p.denied.keys;
    };
    out << " \"windows\": [";
    for (std::size_t i = 0; i < w.windows.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        point(w.windows[i]);
        writeWindowGoalsJson(out, goal, i);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    point(w.recommended());
    writeWindowRecommendedJson(out, args, goal);
    out << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
    writeJsonTail(out, config, proof);
}

// settle checks the proof and saves the config: the exit status when either fails.
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

// worstKeys ranks the keys by the dry run's own figures, as replay ranks its keys.
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

// report settles the proof, then prints the traffic's warnings and the report in the format asked
// for; json and text each write it given the worst keys.
template <typename Json, typename Text>
int report(const Proof& proof, const AdviseArgs& a, const std::string& config, const Traffic& traffic, Json json, Text text)
{
    if (const std::optional<int> failed = settle(proof, a, config))
        return *failed;
    const std::vector<KeyDenials> worst = worstKeys(proof, a, traffic);
    printWarnings(trafficWarningList(traffic));
    if (a.format == "json")
        json(worst);
    else
        text(worst);
    return 0;
}

int runKong(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    KongAdvice k = adviseKong(traces, a.options.keep);
    if (const std::string problem = kongUnkeyedProblem(a.key, a.limitBy.consumer, k.keys.unlimitedRequests); !problem.empty())
        throw InputError("--key: " + problem + fromCurrentText(a));
    const std::vector<KongPoint> rows = kongRows(k);
    const std::size_t usualRow = kongRecommendedRow(k);
    const KongReport kr{k, windowGoal(a, traces, k.keys, kongRowModels(k, a.limitBy.consumer), denialsOf(rows), usualRow,
                                      windowGatewayName(a.product),
                                      [&](std::size_t r) { return kongLimitsText(rows[r].limits); }),
                        usualRow, kongLimitsText(k.recommended.limits)};
    if (kr.goal && kr.goal->moved) {
        k.recommended = rows[kr.goal->recommended];
        k.deniedPerKey = kr.goal->deniedPerKey;
    }
    const std::string config = kongAdviceConfig(k.recommended.limits, a.limitBy, a.letBy);
    const Proof proof = prove(config, k.deniedPerKey, k.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeKongJson(std::cout, log, traffic, parser, kr, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeKongText(std::cout, log, traffic, kr, a, config, proof, worst); });
}

int runExpress(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    ExpressAdvice e = adviseExpress(traces, a.options.keep);
    const WindowGoal goal = windowGoal(a, traces, e.keys, expressRowModels(e), denialsOf(e.windows), e.recommendedIndex,
                                       windowGatewayName(a.product),
                                       [&](std::size_t r) { return expressPointText(e.windows[r]); });
    if (goal && goal->moved) {
        e.recommendedIndex = goal->recommended;
        e.deniedPerKey = goal->deniedPerKey;
    }
    const std::string config = expressAdviceConfig(e.recommended().windowMs, e.recommended().limit);
    const Proof proof = prove(config, e.deniedPerKey, e.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeExpressJson(std::cout, log, traffic, parser, e, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeExpressText(std::cout, log, traffic, e, goal, a, config, proof, worst); });
}

void writeUpstashText(std::ostream& out, const QString& log, const Traffic& traffic, const UpstashAdvice& u,
                      const WindowGoal& goal, const AdviseArgs& args, const std::string& config, const Proof& proof,
                      const std::vector<KeyDenials>& worst)
{
    writeHeadline(out, "@upstash/ratelimit", log, u.keys, args, traffic);
    out << "the limiters: for each, the least tokens at which every request of the kept keys passes, and what it "
           "alone denies\n  "
        << padded("limiter", 22, true) << padded("tokens", 8) << padded("kept denied", 13) << padded("others denied", 15)
        << padded("keys denied", 13) << goalColumns(args) << "\n";
    for (std::size_t i = 0; i < u.limiters.size(); ++i) {
        const UpstashPoint& p = u.limiters[i];
        out << "  " << padded(std::string(p.sliding ? "slidingWindow " : "fixedWindow ") + upstashWindowText(p.windowMs), 22, true)
            << padded(grouping(p.tokens), 8) << padded(grouping(p.denied.kept), 13) << padded(grouping(p.denied.other), 15)
            << padded(grouping(p.denied.keys), 13) << goalCells(args, goal, i)
            << (i == u.recommendedIndex ? "  <- recommended" : "") << "\n";
    }
    const UpstashPoint& r = u.recommended();
    out << "\nrecommended: Ratelimit." << upstashLimiterCall(r) << " ("
        << windowReason(args, goal, "the package's own example window, and the least tokens the kept keys need in it",
                        "Ratelimit." + upstashLimiterCall(u.limiters[kUpstashRecommended]), kUpstashRecommended)
        << ")\n";
    writeCost(out, u.keys, r.denied, worst, traffic);
    out << "  it caps every identifier at " << counted(r.tokens, "request") << " in each window of "
        << upstashWindowText(r.windowMs) << " of the clock"
        << (r.sliding ? ", less the previous window's count weighted by how much of it the sliding window still covers "
                        "(rounded down)"
                      : ": fixed windows, so one may spend a window's tokens at its end and the next's at its start")
        << "; a denied identifier stays denied in the process until its window ends (the ephemeral cache)\n";
    writeProofText(out, u.keys, args, config, proof);
}

void writeUpstashJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser,
                      const UpstashAdvice& u, const WindowGoal& goal, const AdviseArgs& args, const std::string& config,
                      const Proof& proof, const std::vector<KeyDenials>& worst)
{
    writeJsonHead(out, "@upstash/ratelimit", log, traffic, parser, u.keys, args);
    const auto point = [&](const UpstashPoint& p) {
        out << "{\"limiter\": " << jsonString(p.sliding ? "slidingWindow" : "fixedWindow") << ", \"window\": "
            << jsonString(upstashWindowText(p.windowMs)) << ", \"tokens\": " << p.tokens << ", \"kept_denied\": "
            << p.denied.kept << ", \"others_denied\": " << p.denied.other << ", \"keys_denied\": " << p.denied.keys;
    };
    out << " \"limiters\": [";
    for (std::size_t i = 0; i < u.limiters.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        point(u.limiters[i]);
        writeWindowGoalsJson(out, goal, i);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    point(u.recommended());
    writeWindowRecommendedJson(out, args, goal);
    out << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
    writeJsonTail(out, config, proof);
}

// runUpstash: the identifier's windows are Date.now()'s, so the log's start since 1970 is added.
int runUpstash(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const KeyedTraces traces = tracesFor(a, traffic);
    UpstashAdvice u = adviseUpstash(traces, a.options.keep);
    const WindowGoal goal = windowGoal(a, traces, u.keys, upstashRowModels(u), denialsOf(u.limiters), u.recommendedIndex,
                                       windowGatewayName(a.product),
                                       [&](std::size_t r) { return "Ratelimit." + upstashLimiterCall(u.limiters[r]); });
    if (goal && goal->moved) {
        u.recommendedIndex = goal->recommended;
        u.deniedPerKey = goal->deniedPerKey;
    }
    const std::string config = upstashAdviceSnippet(u.recommended());
    const Proof proof = prove(config, u.deniedPerKey, u.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeUpstashJson(std::cout, log, traffic, parser, u, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeUpstashText(std::cout, log, traffic, u, goal, a, config, proof, worst); });
}

int runManaged(const QCommandLineParser& parser, const QString& log, const AdviseArgs& a, const Traffic& traffic)
{
    const bool cloudflare = a.product == "cloudflare";
    const KeyedTraces traces = tracesFor(a, traffic);
    WindowAdvice w = cloudflare ? adviseCloudflare(traces, a.options.keep) : adviseAwsWaf(traces, a.options.keep);
    const ManagedTerms t = managedTerms(a);
    const WindowGoal goal = windowGoal(a, traces, w.keys, managedRowModels(w, cloudflare), denialsOf(w.windows),
                                       w.recommendedIndex, windowGatewayName(a.product),
                                       [&](std::size_t r) { return managedPointText(t, w.windows[r]); });
    if (goal && goal->moved) {
        w.recommendedIndex = goal->recommended;
        w.deniedPerKey = goal->deniedPerKey;
    }
    const WindowPoint& r = w.recommended();
    const std::string config = cloudflare ? cloudflareAdviceConfig(r.window, r.limit) : wafAdviceConfig(r.window, r.limit);
    const Proof proof = prove(config, w.deniedPerKey, w.keys, a, traffic);
    return report(
        proof, a, config, traffic,
        [&](const std::vector<KeyDenials>& worst) { writeManagedJson(std::cout, log, traffic, parser, w, goal, a, config, proof, worst); },
        [&](const std::vector<KeyDenials>& worst) { writeManagedText(std::cout, log, traffic, w, goal, a, config, proof, worst); });
}

// keepWhatTheCurrentMeets narrows the traffic to the requests the current config's rules meet
// (its locations', its routes'), when that is not all of them: the limit advised takes their place.
void keepWhatTheCurrentMeets(AdviseArgs& a, Traffic& traffic)
{
    DryRunConfig config = a.current->config;
    const DryRunResult result = dryRunOnTraffic(config, traffic, a.current->file);
    if (a.keepCurrent)
        a.keptBy = keysLeftWhole(result.deniedBy, traffic);
    const auto met = std::int64_t(std::count(result.met.begin(), result.met.end(), std::uint8_t(1)));
    if (met == 0)
        throw InputError("--config: " + a.current->file + ": its rules meet none of the log's "
                         + counted(std::int64_t(traffic.times.size()), "request"));
    if (met == std::int64_t(traffic.times.size()))
        return;
    std::vector<std::string> rules; // the replayed rules asked about some request
    for (std::size_t r = 0; r < result.rules.size(); ++r)
        if (config.mapped[r] && result.rules[r].requests > 0)
            rules.push_back(config.rules[r].name);
    // Rules of their own count apart (their zones, their routes' copies): one limit is no advice
    // for several.
    if (rules.size() > 1)
        throw InputError("--config: " + a.current->file + ": " + std::to_string(rules.size()) + " of its rules limit parts of "
                         "the log (" + rules[0] + "; " + rules[1] + (rules.size() > 2 ? "; ..." : "")
                         + "), which count apart; advise writes one limit: keep the one to advise on in the file");
    a.logRequests = std::int64_t(traffic.times.size());
    a.metRequests = met;
    a.metComplete = dryRunComplete(config);
    a.metRules = rules.empty() ? std::string() : rules[0];
    Traffic subset = subsetOf(traffic, result.met);
    if (a.keepCurrent)
        a.keptBy = byName(a.keptBy, traffic, subset);
    a.met = result.met;
    if (a.options.origin) { // what the rules do not meet reaches the origin whatever the limit, on the subset's clock
        const Nanos shift = subset.startEpochNanos - traffic.startEpochNanos;
        for (std::size_t i = 0; i < traffic.times.size(); ++i)
            if (!result.met[i])
                a.options.origin->elsewhere.push_back(traffic.times[i] - shift);
    }
    a.logTraffic = std::make_shared<const Traffic>(std::move(traffic));
    traffic = std::move(subset);
}

// keyAsTheCurrent keys the traffic by the current config's key field (AdviseArgs::keyFromCurrent);
// a log without it is refused, since the gateway's options were read for that key.
void keyAsTheCurrent(AdviseArgs& a, Traffic& traffic)
{
    if (a.keyFromCurrent.empty())
        return;
    const auto f = std::size_t(std::find(traffic.keyFields.begin(), traffic.keyFields.end(), a.keyFromCurrent)
                               - traffic.keyFields.begin());
    if (f >= traffic.keyFields.size() || traffic.fieldSeen[f] == 0)
        throw InputError("--config: " + a.current->file + ": its rules key by the log field " + a.keyFromCurrent
                         + ", which no request of the log has (--key names the key to advise by)");
    keyByField(traffic, f);
}

// readAdviseTraffic reads the log with what the options need of it (the current config's fields,
// the User-Agent), keyed and narrowed as the current config is (its key, the requests it meets).
Traffic readAdviseTraffic(const QCommandLineParser& parser, const QString& log, AdviseArgs& a)
{
    std::int64_t bytesPerKey = kReplayKeyBytes + kAdviseKeyBytes;
    std::vector<std::string> fields; // the log fields the current config's rules key by besides --key
    if (a.current) {
        fields = keyFieldsOf(a.current->config);
        bytesPerKey += dryRunBytesPerKey(a.current->config);
    }
    if (!a.letBy.agent.empty() && std::find(fields.begin(), fields.end(), kAgentField) == fields.end())
        fields.push_back(kAgentField);
    Traffic traffic = readTrafficFromOptions(parser, log, bytesPerKey, true, fields);
    keyAsTheCurrent(a, traffic);
    if (a.current) // the routes it limits: advise on the requests its rules meet
        keepWhatTheCurrentMeets(a, traffic);
    return traffic;
}

} // namespace

int adviseCommand(QCommandLineParser& parser, const QStringList& args)
{
    addAdviseOptions(parser);
    QString log;
    int status = 0;
    if (!parseWithLog(parser, args, log, status))
        return status;
    AdviseArgs a = readAdviseArgs(parser, log);
    const Traffic traffic = readAdviseTraffic(parser, log, a);
    if (a.product == "kong")
        return runKong(parser, log, a, traffic);
    if (a.product == "express")
        return runExpress(parser, log, a, traffic);
    if (a.product == "upstash")
        return runUpstash(parser, log, a, traffic);
    if (a.product == "cloudflare" || a.product == "aws-waf")
        return runManaged(parser, log, a, traffic);
    const Written w = adviseOnWhatIsMet(a, traffic);
    const Proof proof = prove(w.config, w.deniedPerLogKey, w.advice(), a, traffic);
    if (const std::optional<int> failed = settle(proof, a, w.config))
        return *failed;
    const std::vector<KeyDenials> worst = worstKeys(proof, a, traffic);
    const std::vector<TextbookRow> textbook =
        a.compare ? textbookRows(w.traces(), w.advice().kept, w.family().rate(w.advice().recommended.step)) : std::vector<TextbookRow>{};
    printWarnings(trafficWarningList(traffic));
    if (a.format == "json")
        writeJson(std::cout, log, traffic, parser, w.family(), w.advice(), a, w.config, proof, worst, textbook);
    else
        writeText(std::cout, log, traffic, w.family(), w.advice(), a, w.config, proof, worst, textbook);
    return 0;
}

} // namespace ratelab::app
