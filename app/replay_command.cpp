#include "replay_command.h"

#include "command.h"
#include "dry_run_command.h"
#include "arithmetic/decimal.h"
#include "outputpath.h"
#include "replay/replay.h"
#include "replay/replay_memory.h"
#include "report/report.h"
#include "scenario/rows.h"
#include "scenario/scenario_parts.h"
#include "cluster_options.h"
#include "scenario_options.h"
#include "traffic_options.h"

#include <iostream>
#include <sstream>

namespace ratelab::app {

namespace {

constexpr std::int64_t kMaxTop = 1000;

void writeConfigJson(std::ostream& out, const ReplayPolicy& policy)
{
    const LimiterConfig& c = policy.config;
    out << "{\"limit\": " << c.limit() << ", \"window\": " << jsonString(formatSeconds(c.windowNanos()))
        << ", \"capacity\": " << c.capacity() << ", \"rate\": " << jsonString(c.rate().exactText())
        << ", \"cost\": " << policy.cost << ", \"layers\": [";
    for (std::size_t i = 0; i < policy.layers.size(); ++i)
        out << (i ? ", " : "") << jsonString(layerText(policy.layers[i]));
    out << "]}";
}

// firstDenialText is a first denial's time in seconds from the start, or null.
std::string firstDenialJson(Nanos t) { return t < 0 ? "null" : jsonString(formatSeconds(t)); }

void writeJsonReport(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& p,
                     const ReplayPolicy& policy, const std::vector<ReplayRow>& rows, std::size_t top,
                     const QStringList& warnings)
{
    const std::vector<std::int64_t> attempts = attemptsPerKey(traffic);
    out << "{\"input\": ";
    writeTrafficJson(out, log, traffic, p);
    out << ",\n \"config\": ";
    writeConfigJson(out, policy);
    out << ",\n \"warnings\": [";
    for (qsizetype i = 0; i < warnings.size(); ++i)
        out << (i ? ", " : "") << jsonString(warnings[i].toStdString());
    out << "],\n \"results\": {";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const ReplayRow& row = rows[r];
        out << (r ? ",\n  " : "\n  ") << jsonString(row.id) << ": {\"attempts\": " << row.attempts
            << ", \"allowed\": " << row.allowed << ", \"denied\": " << row.denied << ", \"delayed\": " << row.delayed
            << ", \"never\": " << row.never << ", \"keys_seen\": " << traffic.keyNames.size()
            << ", \"keys_denied\": " << row.keysDenied << ", \"max_in_window\": " << row.maxInWindow
            << ", \"memory\": {\"predicted_bytes\": " << row.predicted.bytes
            << ", \"predicted_entries\": " << row.predicted.entries << ", \"predicted\": "
            << jsonString(humanBytes(row.predicted.bytes)) << ", \"held_bytes\": " << row.held.bytes
            << ", \"held_entries\": " << row.held.entries << "},\n   \"top_keys\": [";
        const std::vector<KeyDenials> best = topKeys(row, top);
        for (std::size_t k = 0; k < best.size(); ++k)
            out << (k ? ",\n    " : "\n    ") << "{\"key\": " << jsonString(traffic.keyNames[best[k].key])
                << ", \"requests\": " << attempts[best[k].key] << ", \"denied\": " << best[k].denied
                << ", \"first_denial\": " << firstDenialJson(best[k].firstDenial) << "}";
        out << "]}";
    }
    out << "}}\n";
}

void writeCsvReport(std::ostream& out, const Traffic& traffic, const std::vector<ReplayRow>& rows)
{
    const std::vector<std::int64_t> attempts = attemptsPerKey(traffic);
    out << "algorithm,attempts,allowed,denied,delayed,keys_seen,keys_denied,max_in_window,predicted_bytes,held_bytes,"
           "top_key,top_key_requests,top_key_denied,top_key_first_denial\n";
    for (const ReplayRow& row : rows) {
        out << csvField(row.id) << ',' << row.attempts << ',' << row.allowed << ',' << row.denied << ',' << row.delayed << ','
            << traffic.keyNames.size() << ',' << row.keysDenied << ',' << row.maxInWindow << ','
            << row.predicted.bytes << ',' << row.held.bytes << ',';
        const std::vector<KeyDenials> best = topKeys(row, 1);
        if (best.empty())
            out << ",,,\n";
        else
            out << csvField(traffic.keyNames[best[0].key]) << ',' << attempts[best[0].key] << ',' << best[0].denied
                << ',' << formatSeconds(best[0].firstDenial) << '\n';
    }
}

// perKeyCsv is every key: its requests, then each row's denials and first denial.
QByteArray perKeyCsv(const Traffic& traffic, const std::vector<ReplayRow>& rows)
{
    const std::vector<std::int64_t> attempts = attemptsPerKey(traffic);
    std::ostringstream out;
    out << "key,requests";
    for (const ReplayRow& row : rows)
        out << ',' << csvField(row.id + "_denied") << ',' << csvField(row.id + "_first_denial");
    out << '\n';
    for (std::size_t k = 0; k < traffic.keyNames.size(); ++k) {
        out << csvField(traffic.keyNames[k]) << ',' << attempts[k];
        for (const ReplayRow& row : rows) {
            out << ',' << row.deniedPerKey[k] << ',';
            if (row.firstDenialPerKey[k] >= 0)
                out << formatSeconds(row.firstDenialPerKey[k]);
        }
        out << '\n';
    }
    const std::string text = out.str();
    return QByteArray(text.data(), qsizetype(text.size()));
}

} // namespace

ReplayPolicy policyFromOptions(const QCommandLineParser& parser, QString& log)
{
    const Scenario s = scenarioFromOptions(parser, RunOptions::Cluster);
    takeScenario(s, ScenarioCommand::Replay);
    checkScenario(s); // a split that cannot be held exactly, a change a product cannot take
    if (log.isEmpty())
        log = QString::fromStdString(s.trafficLog);
    ReplayPolicy policy;
    policy.config = s.config;
    policy.algorithms = s.algorithms;
    policy.layers = s.layers;
    policy.cost = s.cost;
    policy.place = replayPlace(s);
    checkDurations(policy.config, policy.algorithms);
    return policy;
}

bool replayWantsPage(int argc, char** argv) { return argvHasOption(argc, argv, "--html"); }

int replayCommand(QCommandLineParser& parser, const QStringList& args, DryRunPageWriter page)
{
    addScenarioOptions(parser);
    addClusterOptions(parser, false); // where each key's state lives: the engine's keyed store
    addTrafficOptions(parser);
    parser.addOptions({
        {"format", "Output format: json (default) or csv.", "json|csv"},
        {"top", "How many keys with most denials to list per algorithm (default 10).", "N"},
        {"per-key", "Also write every key's requests, denials and first denial per algorithm to this CSV file.",
         "file"},
    });
    addDryRunOptions(parser);
    QString log;
    int status = 0;
    if (!parseWithLog(parser, args, log, status))
        return status;
    if (parser.isSet("config") || parser.isSet("against"))
        return dryRunCommand(parser, log, page);
    if (parser.isSet("html"))
        return fail("--html: a page is of a dry run: give --config FILE");
    const QString format = parser.isSet("format") ? parser.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");
    refusePatternOptions(parser, "replay");
    const auto top = std::size_t(integerOption(parser, "top", 0, kMaxTop).value_or(10));
    const QString perKey = parser.value("per-key");
    if (parser.isSet("per-key")) {
        if (perKey.isEmpty())
            return fail("--per-key: no file name given");
        if (const QString problem = io::outputPathProblem(perKey); !problem.isEmpty())
            return fail("--per-key: " + problem.toStdString());
    }
    const ReplayPolicy policy = policyFromOptions(parser, log);
    const Traffic traffic = readTrafficFromOptions(parser, log, replayBytesPerKey(policy));
    const std::vector<ReplayRow> rows = replay(traffic, policy);
    const QStringList warnings = trafficWarningList(traffic);
    if (!perKey.isEmpty())
        if (const QString error = io::writeFileAtomically(perKey, perKeyCsv(traffic, rows)); !error.isEmpty())
            return fail("--per-key: " + error.toStdString());
    printWarnings(warnings);
    if (format == "csv")
        writeCsvReport(std::cout, traffic, rows);
    else
        writeJsonReport(std::cout, log, traffic, parser, policy, rows, top, warnings);
    return 0;
}

} // namespace ratelab::app
