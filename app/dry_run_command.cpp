#include "dry_run_command.h"

#include "command.h"
#include "config_dry_run.h"
#include "replay/dry_run_diff.h"
#include "replay/dry_run_report.h"
#include "outputpath.h"
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
                                    "cost-field", "path", "path-field", "strict", "max-keys", "html"};

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
        const std::vector<std::uint32_t> keys = topDeniedKeys(rep, top);
        for (std::size_t i = 0; i < keys.size(); ++i)
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
        << ", \"complete\": " << (dryRunComplete(config) ? "true" : "false")
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
        {"html", "With --config: write the report as one web page to this file instead of the JSON on stdout: "
                 "what was not replayed first, the headline, the rules, each rule's denials per hour as a chart, the "
                 "top keys and the diff with --against, in tables sorted by a click on a column. The page needs no "
                 "network and no other file.",
         "FILE"},
    });
}

DryRunResult dryRunOnTraffic(DryRunConfig& config, const Traffic& traffic, const std::string& file)
{
    bindKeyFields(config, traffic);
    if (const std::string why = dryRunPathProblem(config, traffic); !why.empty())
        throw InputError(file + ": " + why);
    // A dry run in which no rule was replayed has only zeros to show: it is refused, naming why.
    if (const std::string why = dryRunRefusal(config); !why.empty())
        throw InputError(file + ": " + why);
    return dryRun(traffic, config);
}

namespace {

// runReport reads the configs and the log the options name and runs each config on it.
DryRunReport runReport(const QCommandLineParser& p, const QString& log, QStringList& warnings)
{
    const std::string key = p.isSet("key") ? p.value("key").toStdString() : "ip";
    DryRunReport report;
    report.top = std::size_t(integerOption(p, "top", 0, kMaxTop).value_or(10));
    report.log = log.toStdString();
    report.current = {p.value("config").toStdString(), io::dryRunConfigFile(p.value("config"), key), {}};
    if (p.isSet("against"))
        report.proposed = DryRunSide{p.value("against").toStdString(), io::dryRunConfigFile(p.value("against"), key), {}};
    // One log field per zone: each rule keyed by a field besides --key reads that field.
    std::vector<std::string> fields = keyFieldsOf(report.current.config);
    if (report.proposed)
        for (const std::string& f : keyFieldsOf(report.proposed->config))
            if (std::find(fields.begin(), fields.end(), f) == fields.end())
                fields.push_back(f);
    // Per key: the key itself, and per rule its denials and first denial, per zone its bucket.
    std::int64_t bytesPerKey = kReplayKeyBytes + dryRunBytesPerKey(report.current.config);
    if (report.proposed)
        bytesPerKey += dryRunBytesPerKey(report.proposed->config);
    report.traffic = std::make_shared<const Traffic>(readTrafficFromOptions(p, log, bytesPerKey, true, fields));
    const Traffic& traffic = *report.traffic;
    for (DryRunSide* side : {&report.current, report.proposed ? &*report.proposed : nullptr})
        if (side)
            side->result = dryRunOnTraffic(side->config, traffic, side->file);
    if (report.proposed)
        report.diff = diffDryRuns(traffic, report.current.config, report.current.result, report.proposed->config,
                                  report.proposed->result);
    warnings = trafficWarningList(traffic);
    for (const QString& w : warnings)
        report.warnings.push_back(w.toStdString());
    return report;
}

void writeJsonReport(std::ostream& out, const QCommandLineParser& p, const QString& log, const DryRunReport& report)
{
    const Traffic& traffic = *report.traffic;
    out << "{\"headline\": " << jsonString(reportHeadline(report)) << ", \"complete\": "
        << (reportComplete(report) ? "true" : "false") << ",\n \"input\": ";
    writeTrafficJson(out, log, traffic, p);
    out << ",\n \"warnings\": [";
    for (std::size_t i = 0; i < report.warnings.size(); ++i)
        out << (i ? ", " : "") << jsonString(report.warnings[i]);
    out << "],\n \"current\": ";
    const DryRunSide& a = report.current;
    writeConfig(out, QString::fromStdString(a.file), a.config, traffic, a.result, report.top);
    if (report.proposed) {
        out << ",\n \"proposed\": ";
        const DryRunSide& b = *report.proposed;
        writeConfig(out, QString::fromStdString(b.file), b.config, traffic, b.result, report.top);
        out << ",\n \"diff\": ";
        writeDiff(out, traffic, *report.diff, report.top);
    }
    out << "}\n";
}

} // namespace

int dryRunCommand(const QCommandLineParser& p, const QString& log, DryRunPageWriter page)
{
    if (!p.isSet("config"))
        return fail("--against: give the current config with --config");
    for (const QString& name : p.optionNames())
        if (!kDryRunOptions.contains(name))
            return fail("--config: --" + name.toStdString() + " does not apply: the config's rules are the policy");
    const QString format = p.isSet("format") ? p.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");
    if (p.isSet("config") && p.value("config").isEmpty())
        return fail("--config: no file given");
    if (p.isSet("against") && p.value("against").isEmpty())
        return fail("--against: no file given");
    const QString html = p.value("html");
    if (p.isSet("html")) {
        if (html.isEmpty())
            return fail("--html: no file name given");
        if (p.isSet("format"))
            return fail("--format: the report goes to the --html page; give one of them");
        if (const QString problem = io::outputPathProblem(html); !problem.isEmpty())
            return fail("--html: " + problem.toStdString());
        if (!page) // only ratelab-gui draws a page; ratelab hands it --html (replayWantsPage)
            return fail("--html: the page is written by ratelab-gui, which was not found");
    }
    QStringList warnings;
    const DryRunReport report = runReport(p, log, warnings);
    printWarnings(warnings);
    if (page) {
        if (const QString error = page(report, html); !error.isEmpty())
            return fail("--html: " + error.toStdString());
        return 0;
    }
    if (format == "csv") {
        std::cout << "config,rule,replayed,requests,denied,keys_denied,worst_hour,worst_hour_denied\n";
        writeCsv(std::cout, "current", report.current.config, report.current.result);
        if (report.proposed) {
            writeCsv(std::cout, "proposed", report.proposed->config, report.proposed->result);
            writeDiffCsv(std::cout, *report.traffic, *report.diff, report.top);
        }
    } else {
        writeJsonReport(std::cout, p, log, report);
    }
    return 0;
}

} // namespace ratelab::app
