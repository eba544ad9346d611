// `ratelab`: the command line, Qt Core only. It runs the commands that need no display
// (compare, presets, --version, --help) itself, and hands the window, `export` and `bench`, which
// draw widgets, to `ratelab-gui` beside it, so a script's `ratelab compare` never loads Qt Widgets,
// Qt Charts or a GUI platform.
#include "advise_command.h"
#include "cluster_options.h"
#include "command.h"
#include "guilauncher.h"
#include "heap.h"
#include "lua_command.h"
#include "import_command.h"
#include "memory_command.h"
#include "limiters/nginx_limit_req.h"
#include "presets.h"
#include "replay_command.h"
#include "redis_store.h"
#include "report/report.h"
#include "scenario/rows.h"
#include "scenario/scenario_parts.h"
#include "scenario_options.h"
#include "standard_output.h"
#include "version.h"

#include <clocale>
#include <QCoreApplication>

#include <cstring>
#include <iostream>

namespace ratelab::app {

namespace {

int compare(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    addRunOptions(parser);
    parser.addOption({"format", "Output format: json (default) or csv.", "json|csv"});
    parser.addOption({"headers", "Add each decision's response headers (X-RateLimit-*, Retry-After, RateLimit-*)."});
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString format = parser.isSet("format") ? parser.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");
    const ReportFormat f = format == "csv" ? ReportFormat::Csv : ReportFormat::Json;
    const bool headers = parser.isSet("headers");

    // One scenario, whatever it combines; one writer; the scenario saved once it ran.
    const Scenario scenario = scenarioFromOptions(parser);
    const BackendOptions backend = backendFromOptions(parser);
    if (backend.redis)
        writeThroughRedis(std::cout, scenario, backend, f, headers);
    else
        writeReport(std::cout, scenario, f, headers);
    if (standardOutputFailed()) // the scenario is saved only beside output that was written whole
        return kBadInput;
    saveScenarioIfAsked(parser, scenario);
    return 0;
}

int listPresets(QCommandLineParser& parser, const QStringList& args)
{
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    for (const io::PresetInfo& p : io::presets())
        std::cout << p.id.toStdString() << "  " << p.title.toStdString() << "\n";
    return 0;
}

// nginxLines prints the nginx limit_req_zone / limit_req lines for the scenario's config.
int nginxLines(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const Scenario scenario = scenarioFromOptions(parser, RunOptions::Absent);
    takeScenario(scenario, ScenarioCommand::Nginx);
    if (scenario.cost != 1) // not a part of the table: every other command weighs requests by it
        return fail("nginx: the scenario's cost (" + std::to_string(scenario.cost)
                    + " a request) cannot be written as nginx lines: limit_req counts every request once");
    std::cout << nginxDirectives(scenario.config);
    if (standardOutputFailed())
        return kBadInput;
    saveScenarioIfAsked(parser, scenario);
    return 0;
}

const Command kCommands[] = {
    {"compare", "Run every limiter over one scenario and print the decisions and metrics.", compare},
    {"presets", "List the built-in classroom scenarios, one per line: id and title.", listPresets},
    {"memory", "Print each limiter's worst-case state for K active keys (memory at scale).", memoryCommand},
    {"lua", "Print a Redis Lua script (the simulation's, or --server-clock for services) or --example callers.", printLua},
    {"nginx", "Print the nginx limit_req_zone / limit_req lines for the scenario's rate, burst and delay.", nginxLines},
    {"replay", "Replay a real access log, every key its own limiter: who would be denied.",
     [](QCommandLineParser& p, const QStringList& a) { return replayCommand(p, a, nullptr); }},
    {"sweep", "Replay a log over a grid of limits (--limit 10:200:10): denied shares per point.",
     [](QCommandLineParser& p, const QStringList& a) { return sweepCommand(p, a, nullptr); }},
    {"import", "Read a product's rate-limit configuration and show what you wrote beside what you get.", importCommand},
    {"advise", "Choose a limit from a log's own traffic, write it for the gateway (--for nginx), prove it on the log.",
     adviseCommand},
};

// kGuiCommands draw widgets: ratelab-gui runs them (offscreen, no display needed).
const Command kGuiCommands[] = {
    {"export", "Render the dashboard of one scenario to a PNG image or a web page, without a display.", nullptr},
    {"bench", "Measure decisions, simulation, dashboard updates and export on this machine.", nullptr},
    {"deck", "Outline a lesson deck, or write its handout with --pdf (a page per step) or its web page with --html, without a display.", nullptr},
};

template <std::size_t N>
const Command* find(const Command (&commands)[N], const char* name)
{
    for (const Command& c : commands)
        if (std::strcmp(c.name, name) == 0)
            return &c;
    return nullptr;
}

void printHelp()
{
    std::cout << "Usage: ratelab [--preset ID | --scenario FILE | --deck FILE|ID]  open the RateLab window\n"
                 "       ratelab COMMAND [OPTIONS]                    run a command (COMMAND --help for its options)\n\n"
                 "Commands:\n";
    const auto row = [](const Command& c) { std::cout << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n"; };
    for (const Command& c : kCommands)
        row(c);
    for (const Command& c : kGuiCommands)
        row(c);
    std::cout << "\nOptions:\n"
                 "  --preset ID       open a built-in scenario in the window (see 'ratelab presets')\n"
                 "  --scenario FILE   open a scenario file (.ratelab.json) in the window\n"
                 "  --deck FILE|ID    open a lesson deck in the window (PageDown: next step or reveal)\n"
                 "  --present         start in presentation mode (Esc leaves)\n"
                 "  -h, --help        show this help\n"
                 "  -v, --version     show the version\n";
}

} // namespace

int runCli(int argc, char** argv)
{
    const char* first = argc > 1 ? argv[1] : "";
    if (argc == 2 && (std::strcmp(first, "--help") == 0 || std::strcmp(first, "-h") == 0)) {
        printHelp();
        return 0;
    }
    if (argc == 2 && (std::strcmp(first, "--version") == 0 || std::strcmp(first, "-v") == 0)) {
        std::cout << versionText() << "\n";
        return 0;
    }
    if (argc == 1 || first[0] == '-' || find(kGuiCommands, first)
        || (std::strcmp(first, "sweep") == 0 && sweepWantsChart(argc, argv)) // a chart needs Qt Gui
        || (std::strcmp(first, "replay") == 0 && replayWantsPage(argc, argv)))
        return execGui(argc, argv); // the window, export, bench: it checks its own options
    quietQtMessages();
    QCoreApplication app(argc, argv);
    // Qt sets the C library's locale from the environment; numbers in files (a config's "0.5s")
    // are read with strtod and stod, which would stop at the '.' under a locale writing "0,5".
    std::setlocale(LC_NUMERIC, "C");
    QCoreApplication::setApplicationName("ratelab");
    const Command* command = find(kCommands, first);
    if (!command) {
        std::string names;
        for (const Command& c : kCommands)
            names += std::string(names.empty() ? "" : ", ") + c.name;
        for (const Command& c : kGuiCommands)
            names += std::string(", ") + c.name;
        return fail(std::string("unknown command '") + first + "' (commands: " + names + ")");
    }
    return runNamedCommand(*command, app.arguments());
}

} // namespace ratelab::app

int main(int argc, char** argv)
{
    ratelab::app::checkStandardOutput();
    ratelab::app::keepFreedMemory(); // replay and sweep runs reuse the memory the last one freed
    return ratelab::app::finishOutput(ratelab::app::runCli(argc, argv));
}
