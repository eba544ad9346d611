#include "advise_command.h"
#include "advise_args.h"
#include "advise_current.h"
#include "advise_report.h"
#include "advise_windows.h"

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

using namespace advising;

namespace {


// What advise holds per key beyond the read log's share: its place in the grouped requests (8 B),
// kept (1), denials at the recommendation (8), and the dry run's per key: its denials and first
// denial (16) and the zone's excess, last and whether it exists (17). 64 B rounds that up.
constexpr std::int64_t kAdviseKeyBytes = 64;

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

// drainText is how long the burst takes to drain at the step's rate, in seconds, rounded up.
std::string drainText(const BurstFamily& family, const AdvicePoint& p)
{
    const Rate r = family.rate(p.step);
    return hundredthsText(Int128(p.burst) * r.perNanos, Int128(r.tokens) * kNanosPerSecond, Rounding::Up);
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

std::string capReasonText(const BurstFamily& family, const Advice& a, const AdviseArgs& args);

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
    writeGoalsJson(out, args);
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
