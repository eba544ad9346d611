// `ratelab`: the command line, Qt Core only. It runs the commands that need no display
// (compare, presets, --version, --help) itself, and hands the window, `export` and `bench`, which
// draw widgets, to `ratelab-gui` beside it, so a script's `ratelab compare` never loads Qt Widgets,
// Qt Charts or a GUI platform.
#include "client_options.h"
#include "cluster_options.h"
#include "command.h"
#include "guilauncher.h"
#include "import_command.h"
#include "memory_command.h"
#include "nginx_limit_req.h"
#include "presets.h"
#include "redis_store.h"
#include "report.h"
#include "report_clients.h"
#include "rows.h"
#include "scenario_options.h"

#include <QCoreApplication>

#include <cstring>
#include <iostream>

namespace ratelab::app {

namespace {

int compare(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    addClientOptions(parser);
    addClusterOptions(parser);
    parser.addOption({"format", "Output format: json (default) or csv.", "json|csv"});
    parser.addOption({"headers", "Add each decision's response headers (X-RateLimit-*, Retry-After, RateLimit-*)."});
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString format = parser.isSet("format") ? parser.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");

    // Any client option runs the event-driven simulation of clients that retry.
    if (clientOptionsGiven(parser)) {
        if (clusterOptionsGiven(parser))
            return fail("the client options (--clients, --retry, ...) and the cluster options (--nodes, "
                        "--coordination, ...) cannot be combined yet: choose one");
        std::ios::sync_with_stdio(false);
        compareWithClients(parser, args, format == "csv", std::cout);
        std::cout.flush();
        return std::cout ? 0 : fail("cannot write the output");
    }

    const Scenario scenario = scenarioFromOptions(parser);
    // A scenario file or preset with clients runs them as the options would.
    if (scenario.clients && !clusterOptionsGiven(parser)) {
        const RowInputs inputs = resolveRowInputs(scenario);
        ClientOptions o = scenario.clients->options();
        o.seed = scenario.pattern.seed;
        const ClientsTrace trace =
            simulateClients(scenario.config, ClientConfig::make(o), scenario.algorithms, inputs.arrivals, inputs.clientOf);
        std::ios::sync_with_stdio(false);
        if (format == "csv")
            writeClientsCsv(std::cout, trace);
        else
            writeClientsJson(std::cout, scenario, trace);
        std::cout.flush();
        return std::cout ? 0 : fail("cannot write the output");
    }
    // Any cluster option (or a file's cluster) runs the scenario on N nodes (and, with --backend
    // redis, on Redis).
    ReportOptions options;
    options.headers = parser.isSet("headers");
    std::optional<ClusterOptions> cluster = clusterFromOptions(parser, scenario.pattern.seed);
    if (!cluster && scenario.cluster) {
        (void)resolveRowInputs(scenario); // the combinations a cluster does not take yet
        ClusterConfig::Options o{scenario.cluster->nodes(), scenario.cluster->balancer(),
                                 scenario.cluster->coordination(), scenario.cluster->latencyNanos(),
                                 scenario.cluster->syncNanos(), scenario.cluster->skewNanos(), scenario.pattern.seed};
        cluster = ClusterOptions{ClusterConfig::make(o), false, {}};
    }
    if (cluster) {
        if (!scenario.layers.empty())
            return fail("--layer and the cluster options cannot be combined yet: choose one");
        const auto [clusterTrace, report] = runCluster(scenario, *cluster);
        options.cluster = &report;
        std::ios::sync_with_stdio(false);
        if (format == "csv")
            writeCsv(std::cout, clusterTrace, options);
        else
            writeJson(std::cout, scenario, clusterTrace, options);
        std::cout.flush();
        return std::cout ? 0 : fail("cannot write the output");
    }
    std::ios::sync_with_stdio(false);
    if (streamable(scenario, options)) { // written as it is decided: no trace, bounded memory
        if (format == "csv")
            streamCsv(std::cout, scenario);
        else
            streamJson(std::cout, scenario);
    } else {
        const Trace trace = simulate(scenario);
        if (format == "csv")
            writeCsv(std::cout, trace, options);
        else
            writeJson(std::cout, scenario, trace, options);
    }
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

int listPresets(QCommandLineParser& parser, const QStringList& args)
{
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    for (const io::PresetInfo& p : io::presets())
        std::cout << p.id.toStdString() << "  " << p.title.toStdString() << "\n";
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

// printLua prints the Redis Lua script of one algorithm, ready to paste into a service.
int printLua(QCommandLineParser& parser, const QStringList& args)
{
    parser.addPositionalArgument("algorithm", "The algorithm whose script to print: fixed_window, ..., gcra.");
    parser.addHelpOption();
    if (!parser.parse(args))
        return fail(parser.errorText().toStdString());
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    const QStringList names = parser.positionalArguments();
    std::string known;
    for (Algorithm a : kAllAlgorithms)
        known += (known.empty() ? "" : ", ") + std::string(algorithmId(a));
    if (names.size() != 1)
        return fail("lua: name one algorithm (" + known + ")");
    const auto a = algorithmFromId(names.first().toStdString());
    if (a == Algorithm::NginxLimitReq)
        return fail("lua: nginx_limit_req has no Lua script: it is nginx's own module");
    if (!a)
        return fail("lua: unknown algorithm " + quoted(names.first().toStdString()) + " (known: " + known + ")");
    std::cout << io::luaScript(*a);
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

// nginxLines prints the nginx limit_req_zone / limit_req lines for the scenario's config.
int nginxLines(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const Scenario scenario = scenarioFromOptions(parser);
    std::cout << nginxDirectives(scenario.config);
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

const Command kCommands[] = {
    {"compare", "Run every limiter over one scenario and print the decisions and metrics.", compare},
    {"presets", "List the built-in classroom scenarios, one per line: id and title.", listPresets},
    {"memory", "Print each limiter's worst-case state for K active keys (memory at scale).", memoryCommand},
    {"lua", "Print the Redis Lua script of one algorithm, ready to paste into a service.", printLua},
    {"nginx", "Print the nginx limit_req_zone / limit_req lines for the scenario's rate, burst and delay.", nginxLines},
    {"import", "Read a product's rate-limit configuration and show what you wrote beside what you get.", importCommand},
};

// kGuiCommands draw widgets: ratelab-gui runs them (offscreen, no display needed).
const Command kGuiCommands[] = {
    {"export", "Render the dashboard of one scenario to a PNG image, without a display.", nullptr},
    {"bench", "Measure decisions, simulation, dashboard updates and export on this machine.", nullptr},
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
    std::cout << "Usage: ratelab [--preset ID | --scenario FILE]    open the RateLab window\n"
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
        std::cout << "ratelab " << PROJECT_VERSION << "\n";
        return 0;
    }
    if (argc == 1 || first[0] == '-' || find(kGuiCommands, first))
        return execGui(argc, argv); // the window, export, bench: it checks its own options
    quietQtMessages();
    QCoreApplication app(argc, argv);
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

int main(int argc, char** argv) { return ratelab::app::runCli(argc, argv); }
