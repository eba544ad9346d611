// `ratelab sweep`: the traffic read once, replayed at every point of a grid of one or two of
// --limit, --window, --capacity, --rate (each A:B:S), points spread over threads.
#include "command.h"
#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "outputpath.h"
#include "replay_command.h"
#include "replay/replay_memory.h"
#include "report/report.h"
#include "scenario/rows.h"
#include "scenario/scenario_parts.h"
#include "cluster_options.h"
#include "scenario_options.h"
#include "traffic_options.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <thread>

namespace ratelab::app {

namespace {

constexpr const char* kGridOptions[] = {"limit", "window", "capacity", "rate"};

void addSweepOptions(QCommandLineParser& parser)
{
    addScenarioOptions(parser);
    addClusterOptions(parser, false); // where each key's state lives: the engine's keyed store
    addTrafficOptions(parser);
    parser.addOptions({
        {"format", "Output format: json (default) or csv.", "json|csv"},
        {"png", "Also draw the chart (denied share against the parameter; a heatmap for two) to this PNG file.", "file"},
        {"svg", "Also draw the chart to this SVG file.", "file"},
        {"threads", "Threads the points run on (default: the machine's cores).", "N"},
    });
}

// GridArgs splits the arguments: the grid options (value with ':') become axes, in the order
// given; the rest is what `replay` would take.
struct GridArgs {
    std::vector<SweepAxis> axes;
    QStringList rest;
};

GridArgs splitGrid(const QStringList& args)
{
    GridArgs g;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        bool taken = false;
        for (std::size_t option = 0; option < std::size(kGridOptions); ++option) {
            const char* name = kGridOptions[option];
            const QString flag = QString("--") + name;
            QString value;
            qsizetype used = 0;
            if (a == flag && i + 1 < args.size()) {
                value = args[i + 1];
                used = 2;
            } else if (a.startsWith(flag + "=")) {
                value = a.mid(flag.size() + 1);
                used = 1;
            }
            if (!used || !value.contains(':'))
                continue;
            const auto p = SweepParameter(option);
            for (const SweepAxis& axis : g.axes)
                if (axis.parameter == p)
                    throw InputError("--" + std::string(name) + ": given twice");
            try {
                g.axes.push_back(parseSweepAxis(p, value.toStdString()));
            } catch (const InputError& e) {
                throw InputError("--" + std::string(name) + ": " + e.what());
            }
            i += used - 1;
            taken = true;
            break;
        }
        if (!taken)
            g.rest << a;
    }
    if (g.axes.empty())
        throw InputError("sweep: give a grid of one or two parameters, e.g. --limit 10:200:10 (FROM:TO:STEP)");
    if (g.axes.size() > 2)
        throw InputError("sweep: at most two parameters vary at once (got " + std::to_string(g.axes.size()) + ")");
    if (g.axes[0].size() * (g.axes.size() > 1 ? g.axes[1].size() : 1) > kMaxSweepPoints)
        throw InputError("sweep: more than " + std::to_string(kMaxSweepPoints) + " points");
    return g;
}

void writeSweepJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& p,
                    const SweepBase& base, const SweepResult& r, const QStringList& warnings)
{
    out << "{\"input\": ";
    writeTrafficJson(out, log, traffic, p);
    out << ",\n \"base\": {\"limit\": " << base.limit << ", \"window\": " << jsonString(formatSeconds(base.windowNanos))
        << ", \"capacity\": " << (base.capacity ? std::to_string(*base.capacity) : "null")
        << ", \"rate\": " << (base.rate ? jsonString(base.rate->exactText()) : "null") << ", \"cost\": " << base.cost
        << "},\n \"parameters\": [";
    for (std::size_t a = 0; a < r.axes.size(); ++a)
        out << (a ? ", " : "") << jsonString(sweepParameterId(r.axes[a].parameter));
    const std::vector<std::int64_t> attempts = attemptsPerKey(traffic);
    out << "],\n \"heaviest_key\": {\"key\": " << jsonString(traffic.keyNames[r.heaviestKey])
        << ", \"requests\": " << attempts[r.heaviestKey] << "},\n \"warnings\": [";
    for (qsizetype i = 0; i < warnings.size(); ++i)
        out << (i ? ", " : "") << jsonString(warnings[i].toStdString());
    out << "],\n \"points\": [";
    bool first = true;
    for (std::size_t i = 0; i < r.axes[0].size(); ++i)
        for (std::size_t j = 0; j < r.columns(); ++j) {
            out << (first ? "\n  {" : ",\n  {");
            first = false;
            for (std::size_t a = 0; a < r.axes.size(); ++a)
                out << jsonString(sweepParameterId(r.axes[a].parameter)) << ": "
                    << jsonString(r.axes[a].text(a == 0 ? i : j)) << ", ";
            out << "\"results\": {";
            for (std::size_t k = 0; k < r.algorithms.size(); ++k) {
                const SweepCell& c = r.cell(i, j, k);
                out << (k ? ",\n    " : "\n    ") << jsonString(algorithmId(r.algorithms[k]))
                    << ": {\"denied\": " << c.denied << ", \"denied_share\": " << formatNumber(c.deniedShare())
                    << ", \"keys_denied\": " << c.keysDenied
                    << ", \"keys_denied_share\": " << formatNumber(c.keysDeniedShare())
                    << ", \"heaviest_admitted\": " << c.heaviestAllowed
                    << ", \"heaviest_admitted_share\": " << formatNumber(c.heaviestAdmittedShare())
                    << ", \"max_in_window\": " << c.maxInWindow << "}";
            }
            out << "}}";
        }
    out << "]}\n";
}

void writeSweepCsv(std::ostream& out, const SweepResult& r)
{
    for (const SweepAxis& axis : r.axes)
        out << sweepParameterId(axis.parameter) << ',';
    out << "algorithm,attempts,denied,denied_share,keys_seen,keys_denied,keys_denied_share,heaviest_requests,"
           "heaviest_admitted,heaviest_admitted_share,max_in_window\n";
    for (std::size_t i = 0; i < r.axes[0].size(); ++i)
        for (std::size_t j = 0; j < r.columns(); ++j)
            for (std::size_t k = 0; k < r.algorithms.size(); ++k) {
                const SweepCell& c = r.cell(i, j, k);
                for (std::size_t a = 0; a < r.axes.size(); ++a)
                    out << csvField(r.axes[a].text(a == 0 ? i : j)) << ',';
                out << algorithmId(r.algorithms[k]) << ',' << c.attempts << ',' << c.denied << ','
                    << formatNumber(c.deniedShare()) << ',' << c.keysSeen << ',' << c.keysDenied << ','
                    << formatNumber(c.keysDeniedShare()) << ',' << c.heaviestAttempts << ',' << c.heaviestAllowed << ','
                    << formatNumber(c.heaviestAdmittedShare()) << ',' << c.maxInWindow << '\n';
            }
}

// chartProblem says why --png or --svg cannot be written, before anything is read, or nothing.
std::string chartProblem(const QCommandLineParser& rest, bool canDraw)
{
    for (const char* chart : {"png", "svg"})
        if (rest.isSet(chart)) {
            if (!canDraw)
                return std::string("sweep: --") + chart + " needs ratelab-gui beside ratelab";
            if (rest.value(chart).isEmpty())
                return std::string("--") + chart + ": no file name given";
            if (const QString problem = io::outputPathProblem(rest.value(chart)); !problem.isEmpty())
                return std::string("--") + chart + ": " + problem.toStdString();
        }
    return {};
}

// sweepBase is what every point shares: the scenario's config, of which the file's (or the
// options') capacity and rate are kept only where given.
SweepBase sweepBase(const QCommandLineParser& rest, const Scenario& s)
{
    const bool fromFile = rest.isSet("preset") || rest.isSet("scenario");
    SweepBase base;
    base.limit = s.config.limit();
    base.windowNanos = s.config.windowNanos();
    if (fromFile || rest.isSet("capacity"))
        base.capacity = s.config.capacity();
    if (fromFile || rest.isSet("rate"))
        base.rate = s.config.rate();
    base.nginx = s.config.nginx();
    base.productOptions = s.config.productOptions();
    base.algorithms = s.algorithms;
    base.cost = s.cost;
    base.place = replayPlace(s);
    return base;
}

// checkPoints refuses the grid at its first point that is not a config replay would accept,
// naming the point.
void checkPoints(const SweepBase& base, const std::vector<SweepAxis>& axes)
{
    for (std::size_t i = 0; i < axes[0].size(); ++i)
        for (std::size_t j = 0; j < (axes.size() > 1 ? axes[1].size() : 1); ++j) {
            try {
                const LimiterConfig c = pointConfig(base, axes, i, j);
                checkDurations(c, base.algorithms);
                if (std::find(base.algorithms.begin(), base.algorithms.end(), Algorithm::NginxLimitReq) != base.algorithms.end())
                    (void)nginxRateThousandths(c.rate());
            } catch (const InputError& e) {
                std::string at;
                for (std::size_t a = 0; a < axes.size(); ++a)
                    at += (a ? " " : "") + std::string(sweepParameterId(axes[a].parameter)) + "=" + axes[a].text(a == 0 ? i : j);
                throw InputError("sweep: at " + at + ": " + e.what());
            }
        }
}

} // namespace

bool sweepWantsChart(int argc, char** argv)
{
    return argvHasOption(argc, argv, "--png") || argvHasOption(argc, argv, "--svg");
}

int sweepCommand(QCommandLineParser& parser, const QStringList& args, SweepChartWriter charts)
{
    addSweepOptions(parser);
    QString log;
    int status = 0;
    if (!parseWithLog(parser, args, log, status)) // --help, unknown options: before the grid is read
        return status;
    const GridArgs grid = splitGrid(args);
    QCommandLineParser rest; // the same options without the grid: what `replay` would read
    addSweepOptions(rest);
    if (!parseWithLog(rest, grid.rest, log, status))
        return status;
    const QString format = rest.isSet("format") ? rest.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");
    refusePatternOptions(rest, "sweep");
    if (const std::string problem = chartProblem(rest, bool(charts)); !problem.empty())
        return fail(problem);
    const unsigned threads = unsigned(
        integerOption(rest, "threads", 1, 256).value_or(std::max(1u, std::thread::hardware_concurrency())));

    const Scenario s = scenarioFromOptions(rest, RunOptions::Cluster);
    takeScenario(s, ScenarioCommand::Sweep);
    checkScenario(s); // a split that cannot be held exactly
    if (log.isEmpty())
        log = QString::fromStdString(s.trafficLog);
    const SweepBase base = sweepBase(rest, s);
    checkPoints(base, grid.axes);

    ReplayPolicy held; // what each thread's point holds per key
    held.algorithms = base.algorithms;
    const Traffic traffic = readTrafficFromOptions(rest, log, replayBytesPerKey(held, threads));
    const SweepResult result = runSweep(traffic, base, grid.axes, threads);
    const QStringList warnings = trafficWarningList(traffic);
    for (const char* chart : {"png", "svg"})
        if (rest.isSet(chart))
            if (const QString error = charts(result, rest.value(chart), std::strcmp(chart, "svg") == 0); !error.isEmpty())
                return fail(error.toStdString());
    printWarnings(warnings);
    if (format == "csv")
        writeSweepCsv(std::cout, result);
    else
        writeSweepJson(std::cout, log, traffic, rest, base, result, warnings);
    return 0;
}

} // namespace ratelab::app
