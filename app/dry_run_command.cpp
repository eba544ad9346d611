#include "dry_run_command.h"

#include "command.h"
#include "config_dry_run.h"
#include "replay/dry_run_diff.h"
#include "scenario_options.h"
#include "traffic_options.h"

#include "arithmetic/decimal.h"
#include "replay/replay_memory.h"

#include <algorithm>
#include <iostream>
#include <numeric>

namespace ratelab::app {

namespace {

constexpr std::int64_t kMaxTop = 1000;

// The options a dry run reads; any other (--limit, --algorithms, --layer, --preset...) would be
// silently dropped, so it is refused.
const QStringList kDryRunOptions = {"config", "against", "format", "top", "log-format", "key", "time-field",
                                    "cost-field", "path", "path-field", "strict", "max-keys"};

bool isComplete(const DryRunConfig& config)
{
    return config.notReplayed.empty() && replayedRules(config) == config.rules.size();
}

std::string hourText(std::int64_t hour) { return hour < 0 ? "null" : jsonString(formatEpoch(hour * 3600 * kNanosPerSecond)); }

std::string secondsJson(Nanos t) { return t < 0 ? "null" : jsonString(formatSeconds(t)); }

void writeRules(std::ostream& out, const Traffic& traffic, const DryRunConfig& config, const DryRunResult& result,
                std::size_t top)
{
    out << "[";
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        const DryRunRuleReport& rep = result.rules[r];
        out << (r ? ",\n   " : "\n   ") << "{\"rule\": " << jsonString(config.rules[r].name)
            << ", \"zone\": " << jsonString(config.zones[config.rules[r].zone].name)
            << ", \"replayed\": " << (config.mapped[r] ? "true" : "false") << ", \"requests\": " << rep.requests
            << ", \"denied\": " << rep.denied << ", \"keys_denied\": " << rep.keysDenied
            << ", \"worst_hour\": " << hourText(rep.worstHour) << ", \"worst_hour_denied\": " << rep.worstHourDenied
            << ", \"top_keys\": [";
        std::vector<std::uint32_t> keys;
        for (std::size_t k = 0; k < rep.deniedPerKey.size(); ++k)
            if (rep.deniedPerKey[k] > 0)
                keys.push_back(std::uint32_t(k));
        const std::size_t m = std::min(top, keys.size());
        std::partial_sort(keys.begin(), keys.begin() + std::ptrdiff_t(m), keys.end(), [&](std::uint32_t a, std::uint32_t b) {
            if (rep.deniedPerKey[a] != rep.deniedPerKey[b])
                return rep.deniedPerKey[a] > rep.deniedPerKey[b];
            if (rep.firstDenialPerKey[a] != rep.firstDenialPerKey[b])
                return rep.firstDenialPerKey[a] < rep.firstDenialPerKey[b];
            return a < b;
        });
        for (std::size_t i = 0; i < m; ++i)
            out << (i ? ", " : "") << "{\"key\": " << jsonString(traffic.keyNames[keys[i]])
                << ", \"denied\": " << rep.deniedPerKey[keys[i]]
                << ", \"first_denial\": " << secondsJson(rep.firstDenialPerKey[keys[i]]) << "}";
        out << "]}";
    }
    out << "]";
}

void writeConfig(std::ostream& out, const QString& file, const DryRunConfig& config, const Traffic& traffic,
                 const DryRunResult& result, std::size_t top)
{
    // What was not replayed comes before any count, so that no reader takes a partial result for
    // a complete one.
    out << "{\"file\": " << jsonString(file.toStdString()) << ", \"product\": " << jsonString(config.product)
        << ", \"headline\": " << jsonString(dryRunHeadline(config, result, std::int64_t(traffic.times.size())))
        << ", \"complete\": " << (isComplete(config) ? "true" : "false")
        << ", \"rules_not_replayed\": " << config.rules.size() - replayedRules(config) << ", \"not_replayed\": [";
    for (std::size_t i = 0; i < config.notReplayed.size(); ++i)
        out << (i ? ", " : "") << jsonString(config.notReplayed[i]);
    out << "], \"assumed\": [";
    for (std::size_t i = 0; i < config.assumed.size(); ++i)
        out << (i ? ", " : "") << jsonString(config.assumed[i]);
    out << "],\n  \"requests\": " << traffic.times.size() << ", \"denied\": " << result.denied << ", \"rules\": ";
    writeRules(out, traffic, config, result, top);
    out << "}";
}

void writeCount(std::ostream& out, const char* name, const DryRunCount& c)
{
    out << jsonString(name) << ": {\"requests\": " << c.requests << ", \"keys\": " << c.keys << "}";
}

void writeRows(std::ostream& out, const std::vector<DryRunDiffRow>& rows, const char* name)
{
    out << "[";
    for (std::size_t i = 0; i < rows.size(); ++i)
        out << (i ? ", " : "") << "{\"" << name << "\": " << jsonString(rows[i].what)
            << ", \"only_current\": " << rows[i].onlyCurrent << ", \"only_proposed\": " << rows[i].onlyProposed << "}";
    out << "]";
}

void writeDiff(std::ostream& out, const Traffic& traffic, const DryRunDiff& d, std::size_t top)
{
    out << "{\"summary\": " << jsonString(diffSummary(traffic, d)) << ",\n  ";
    writeCount(out, "admitted_by_both", d.admittedByBoth);
    out << ", ";
    writeCount(out, "denied_by_both", d.deniedByBoth);
    out << ", ";
    writeCount(out, "denied_only_by_current", d.onlyCurrent);
    out << ", ";
    writeCount(out, "denied_only_by_proposed", d.onlyProposed);
    out << ",\n  \"only_current_by_rule\": ";
    writeRows(out, d.byCurrentRule, "rule");
    out << ",\n  \"only_proposed_by_rule\": ";
    writeRows(out, d.byProposedRule, "rule");
    out << ",\n  \"by_hour\": ";
    writeRows(out, d.byHour, "hour");
    out << ",\n  \"keys\": [";
    for (std::size_t i = 0; i < std::min(top, d.keys.size()); ++i)
        out << (i ? ", " : "") << "{\"key\": " << jsonString(traffic.keyNames[d.keys[i].key])
            << ", \"only_current\": " << d.keys[i].onlyCurrent << ", \"only_proposed\": " << d.keys[i].onlyProposed << "}";
    out << "]}";
}

// writeCsv writes a config's rows: first each part not replayed (its reason in the rule column,
// no counts), then each rule.
void writeCsv(std::ostream& out, const char* which, const DryRunConfig& config, const DryRunResult& result)
{
    for (const std::string& why : config.notReplayed)
        out << which << ',' << csvField(why) << ",no,,,,,\n";
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        const DryRunRuleReport& rep = result.rules[r];
        out << which << ',' << csvField(config.rules[r].name) << ',' << (config.mapped[r] ? "yes" : "no") << ','
            << rep.requests << ',' << rep.denied << ',' << rep.keysDenied << ','
            << (rep.worstHour < 0 ? "" : formatEpoch(rep.worstHour * 3600 * kNanosPerSecond)) << ','
            << rep.worstHourDenied << '\n';
    }
}

// writeDiffCsv writes the diff as a second table, after an empty line: the four counts, the
// requests only one config denies by its rule, by hour and by key (the top), and the summary.
void writeDiffCsv(std::ostream& out, const Traffic& traffic, const DryRunDiff& d, std::size_t top)
{
    out << "\ndiff,what,requests,keys,only_current,only_proposed\n";
    const auto count = [&](const char* name, const DryRunCount& c) {
        out << "count," << name << ',' << c.requests << ',' << c.keys << ",,\n";
    };
    count("admitted_by_both", d.admittedByBoth);
    count("denied_by_both", d.deniedByBoth);
    count("denied_only_by_current", d.onlyCurrent);
    count("denied_only_by_proposed", d.onlyProposed);
    const auto rows = [&](const char* kind, const std::vector<DryRunDiffRow>& list) {
        for (const DryRunDiffRow& r : list)
            out << kind << ',' << csvField(r.what) << ",,," << r.onlyCurrent << ',' << r.onlyProposed << '\n';
    };
    rows("current_rule", d.byCurrentRule);
    rows("proposed_rule", d.byProposedRule);
    rows("hour", d.byHour);
    for (std::size_t i = 0; i < std::min(top, d.keys.size()); ++i)
        out << "key," << csvField(traffic.keyNames[d.keys[i].key]) << ",,," << d.keys[i].onlyCurrent << ','
            << d.keys[i].onlyProposed << '\n';
    out << "summary," << csvField(diffSummary(traffic, d)) << ",,,,\n";
}

} // namespace

void addDryRunOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"config", "Dry run: replay the log through this gateway config's rules (nginx limit_req: each zone with its "
                   "own key, each request meeting the limits of the location its path selects), a RateLab scenario "
                   "(.ratelab.json) or a product config `import` reads (Traefik, Kong, Spring Cloud Gateway and Envoy "
                   "by their routes; the others one rule every request meets); see docs/dry-run.md.",
         "FILE"},
        {"against", "With --config: a second (proposed) config; report every request one denies and the other "
                    "admits, by rule, by hour and by key.",
         "FILE"},
    });
}

DryRunResult dryRunOnTraffic(DryRunConfig& config, const Traffic& traffic, const std::string& file)
{
    bindKeyFields(config, traffic);
    // A dry run in which no rule was replayed has only zeros to show: it is refused, naming why.
    if (const std::string why = dryRunRefusal(config); !why.empty())
        throw InputError(file + ": " + why);
    return dryRun(traffic, config);
}

int dryRunCommand(const QCommandLineParser& p, const QString& log)
{
    if (!p.isSet("config"))
        return fail("--against: give the current config with --config");
    for (const QString& name : p.optionNames())
        if (!kDryRunOptions.contains(name))
            return fail("--config: --" + name.toStdString() + " does not apply: the config's rules are the policy");
    const QString format = p.isSet("format") ? p.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");
    const auto top = std::size_t(integerOption(p, "top", 0, kMaxTop).value_or(10));
    const std::string key = p.isSet("key") ? p.value("key").toStdString() : "ip";
    const QString currentFile = p.value("config"), proposedFile = p.value("against");
    if (currentFile.isEmpty() || (p.isSet("against") && proposedFile.isEmpty()))
        return fail(currentFile.isEmpty() ? "--config: no file given" : "--against: no file given");
    DryRunConfig current = io::dryRunConfigFile(currentFile, key);
    std::optional<DryRunConfig> proposed =
        p.isSet("against") ? std::optional(io::dryRunConfigFile(proposedFile, key)) : std::nullopt;
    // One log field per zone: each rule keyed by a field besides --key reads that field.
    std::vector<std::string> fields = keyFieldsOf(current);
    if (proposed)
        for (const std::string& f : keyFieldsOf(*proposed))
            if (std::find(fields.begin(), fields.end(), f) == fields.end())
                fields.push_back(f);
    // Per key: the key itself, and per rule its denials and first denial, per zone its bucket.
    std::int64_t bytesPerKey = kReplayKeyBytes;
    for (const DryRunConfig* c : {&current, proposed ? &*proposed : nullptr})
        if (c)
            bytesPerKey += dryRunBytesPerKey(*c);
    const Traffic traffic = readTrafficFromOptions(p, log, bytesPerKey, true, fields);
    const DryRunResult a = dryRunOnTraffic(current, traffic, currentFile.toStdString());
    const std::optional<DryRunResult> b =
        proposed ? std::optional(dryRunOnTraffic(*proposed, traffic, proposedFile.toStdString())) : std::nullopt;
    const QStringList warnings = trafficWarnings(traffic);
    printWarnings(warnings);
    const auto requests = std::int64_t(traffic.times.size());
    if (format == "csv") {
        std::cout << "config,rule,replayed,requests,denied,keys_denied,worst_hour,worst_hour_denied\n";
        writeCsv(std::cout, "current", current, a);
        if (proposed)
            writeCsv(std::cout, "proposed", *proposed, *b);
        if (proposed)
            writeDiffCsv(std::cout, traffic, diffDryRuns(traffic, current, a, *proposed, *b), top);
    } else {
        std::string headline = (proposed ? "current: " : "") + dryRunHeadline(current, a, requests);
        if (proposed)
            headline += "; proposed: " + dryRunHeadline(*proposed, *b, requests);
        std::cout << "{\"headline\": " << jsonString(headline) << ", \"complete\": "
                  << (isComplete(current) && (!proposed || isComplete(*proposed)) ? "true" : "false") << ",\n \"input\": ";
        writeTrafficJson(std::cout, log, traffic, p);
        std::cout << ",\n \"warnings\": [";
        for (qsizetype i = 0; i < warnings.size(); ++i)
            std::cout << (i ? ", " : "") << jsonString(warnings[i].toStdString());
        std::cout << "],\n \"current\": ";
        writeConfig(std::cout, currentFile, current, traffic, a, top);
        if (proposed) {
            std::cout << ",\n \"proposed\": ";
            writeConfig(std::cout, proposedFile, *proposed, traffic, *b, top);
            std::cout << ",\n \"diff\": ";
            writeDiff(std::cout, traffic, diffDryRuns(traffic, current, a, *proposed, *b), top);
        }
        std::cout << "}\n";
    }
    return 0;
}

} // namespace ratelab::app
