#include "advise_command.h"

#include "command.h"
#include "config_dry_run.h"
#include "dry_run_command.h"
#include "outputpath.h"
#include "scenario_options.h"
#include "traffic_options.h"

#include "advise/nginx_advice.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/log_keys.h"
#include "replay/replay.h"
#include "replay/replay_memory.h"

#include <iostream>
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
    std::string variable;        // the gateway's key for it ("$binary_remote_addr")
};

AdviseArgs readArgs(const QCommandLineParser& p, const QString& log)
{
    AdviseArgs a;
    if (log.isEmpty())
        throw InputError("advise: name the LOG to choose a limit from");
    if (!p.isSet("for"))
        throw InputError("advise: name the gateway with --for (known: nginx)");
    a.product = p.value("for").toStdString();
    if (a.product != "nginx")
        throw InputError("--for: unknown gateway " + quoted(a.product) + " (known: nginx)");
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
    a.key = p.isSet("key") ? p.value("key").toStdString() : "ip";
    a.variable = nginxKeyVariable(a.key);
    if (a.variable.empty())
        throw InputError("--key: nginx has no variable named " + quoted(a.key) + " for every request to key a zone by ("
                         + "it offers: " + nginxKeysOffered() + ")");
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

Proof prove(const std::string& config, const std::string& key, const Traffic& traffic, const Advice& advice)
{
    DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), key);
    Proof p{dryRunOnTraffic(parsed, traffic, "the written config")};
    p.equal = p.result.rules.size() == 1 && p.result.rules[0].deniedPerKey == advice.deniedPerKey
              && p.result.rules[0].requests == advice.limitedRequests;
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

void writeFront(std::ostream& out, const BurstFamily& family, const Advice& a)
{
    out << "the front: for each burst, the lowest round rate at which every request of the kept keys passes\n"
        << "  " << padded("rate", 10, true) << padded("burst", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << "\n";
    for (const AdvicePoint& p : a.front)
        out << "  " << padded(family.rateText(p.step), 10, true) << padded(grouping(p.burst), 10)
            << padded(grouping(p.keptDenied), 13) << padded(grouping(p.otherDenied), 15)
            << padded(grouping(p.keysDenied), 13) << (p.step == a.recommended.step ? "  <- recommended" : "") << "\n";
}

void writeRecommendation(std::ostream& out, const BurstFamily& family, const Advice& a, const AdviseArgs& args,
                         const std::vector<KeyDenials>& worst, const Traffic& traffic)
{
    const AdvicePoint& r = a.recommended;
    out << "recommended: rate " << family.rateText(r.step) << ", burst " << grouping(r.burst) << " ("
        << (a.drainMet ? "the lowest rate whose burst drains within " + formatSeconds(args.options.drain) + " s at that rate"
                       : "no rate up to " + family.rateText(family.maxStep()) + " drains its burst within "
                             + formatSeconds(args.options.drain) + " s: the lowest rate needing the least burst any rate needs")
        << "; this one drains in " << drainText(family, r) << " s)\n"
        << "  kept keys: " << grouping(r.keptDenied) << " of their " << counted(a.keptRequests, "request") << " denied\n"
        << "  the other keys: " << grouping(r.otherDenied) << " of their "
        << counted(a.limitedRequests - a.keptRequests, "request") << " denied, " << counted(r.keysDenied, "key")
        << " capped" << (worst.empty() ? "" : "; the most denied:") << "\n";
    const std::vector<std::int64_t> requests = attemptsPerKey(traffic);
    for (const KeyDenials& k : worst)
        out << "    " << padded(traffic.keyNames[k.key], 40, true) << " " << grouping(k.denied) << " of "
            << grouping(requests[k.key]) << " denied, the first at "
            << formatSeconds(k.firstDenial - traffic.times.front()) << " s after the log's first request\n";
    out << "  it caps every key at " << counted(r.burst + 1, "request") << " at once, then " << family.rateText(r.step)
        << "\n";
}

void writeText(std::ostream& out, const QString& log, const Traffic& traffic, const BurstFamily& family,
               const Advice& a, const AdviseArgs& args, const std::string& config, const Proof& proof,
               const std::vector<KeyDenials>& worst)
{
    out << "advise for " << family.product() << ": " << log.toStdString() << ", " << counted(a.limitedRequests, "request")
        << " of " << counted(a.limitedKeys, "key") << " by " << args.key << "\n";
    if (a.unlimitedRequests > 0)
        out << "  and " << counted(a.unlimitedRequests, "request") << " with an empty key, which no limit counts\n";
    out << "kept: the " << counted(a.keptKeys, "key") << " with at most " << counted(a.keptMost, "request")
        << " each (the " << secondsText(args.options.keep) << " % least active, ties kept together"
        << (a.keptKeys == a.limitedKeys ? "; that is every key" : "") << "): "
        << (a.keptRequests == 1 ? "its 1 request" : "all " + grouping(a.keptRequests) + " of their requests")
        << " must pass\n\n";
    writeFront(out, family, a);
    out << "\n";
    writeRecommendation(out, family, a, args, worst, traffic);
    out << "\nnginx, in shadow mode first: limit_req_dry_run logs what it would reject and rejects nothing; delete it "
           "to enforce\n"
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
               const Proof& proof, const std::vector<KeyDenials>& worst)
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
    out << "]},\n \"config\": " << jsonString(config) << ",\n \"proof\": {\"requests\": " << proof.result.rules[0].requests
        << ", \"denied\": " << proof.result.denied << ", \"keys_denied\": "
        << proof.result.rules[0].keysDenied
        << ", \"as_advised\": " << (proof.equal ? "true" : "false") << "}}\n";
}

} // namespace

int adviseCommand(QCommandLineParser& parser, const QStringList& args)
{
    addTrafficOptions(parser, false); // nginx counts every request once, and the config has no location
    parser.addOptions({
        {"for", "The gateway to write the limit for: nginx (limit_req).", "gateway"},
        {"keep", "Every request of the least active keys must pass: the keys with at most as many requests as this "
                 "percentile of the keys' requests (default 99).",
         "P"},
        {"drain", "The recommendation is the lowest rate whose burst drains within this many seconds at that rate "
                  "(default 10).",
         "SECONDS"},
        {"top", "How many of the keys the limit denies most to name (default 5).", "N"},
        {"format", "Output format: text (default) or json.", "text|json"},
        {"write", "Also save the nginx config (in shadow mode: limit_req_dry_run on) to this file.", "FILE"},
    });
    QString log;
    int status = 0;
    if (!parseWithLog(parser, args, log, status))
        return status;
    const AdviseArgs a = readArgs(parser, log);
    const NginxBurstFamily family;
    const Traffic traffic = readTrafficFromOptions(parser, log, kReplayKeyBytes + kAdviseKeyBytes, true);
    const Advice advice = advise(keyedTraces(traffic), family, a.options);
    const std::string config = nginxAdviceConfig(family, advice.recommended.step, advice.recommended.burst, a.variable,
                                                 nginxZoneMegabytes(advice.limitedKeys, zoneKeyBytes(traffic, a.key)));
    const Proof proof = prove(config, a.key, traffic, advice);
    if (!proof.equal) { // the advice and the dry run disagree: a fault of the program, not of the input
        std::cerr << "ratelab: advise: the dry run of the written config does not deny what the advice says\n";
        return 1;
    }
    if (!a.write.isEmpty())
        if (const QString error = io::writeFileAtomically(a.write, QByteArray::fromStdString(config)); !error.isEmpty())
            return fail("--write: " + error.toStdString());
    ReplayRow denials; // the dry run's own figures, ranked as replay ranks its keys
    denials.deniedPerKey = proof.result.rules[0].deniedPerKey;
    denials.firstDenialPerKey = proof.result.rules[0].firstDenialPerKey;
    const std::vector<KeyDenials> worst = topKeys(denials, a.top);
    printWarnings(trafficWarnings(traffic));
    if (a.format == "json")
        writeJson(std::cout, log, traffic, parser, family, advice, a, config, proof, worst);
    else
        writeText(std::cout, log, traffic, family, advice, a, config, proof, worst);
    return 0;
}

} // namespace ratelab::app
