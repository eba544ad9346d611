#include "cli.h"

#include "bench.h"
#include "decimal.h"
#include "nginx_limit_req.h"
#include "report.h"
#include "scenario_options.h"

#include "dashboard.h"
#include "presets.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstring>
#include <iostream>
#include <memory>

namespace ratelab::app {

namespace {

constexpr int kBadInput = 2;

struct Command {
    const char* name;
    const char* summary;
    int (*run)(QCommandLineParser&, const QStringList&);
    bool drawsWidgets; // needs a QApplication (offscreen), not only a QCoreApplication
};

// fail prints one line on stderr and returns the bad-input exit status.
int fail(const std::string& message)
{
    std::cerr << "ratelab: " << message << std::endl;
    return kBadInput;
}

// parseOrFail parses args and reports unknown options or stray arguments. It returns true when
// the caller may go on.
bool parseOrFail(QCommandLineParser& parser, const QStringList& args, int& status)
{
    parser.addHelpOption();
    if (!parser.parse(args)) {
        status = fail(parser.errorText().toStdString());
        return false;
    }
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        status = 0;
        return false;
    }
    if (!parser.positionalArguments().isEmpty()) {
        status = fail("unexpected argument '" + parser.positionalArguments().first().toStdString() + "'");
        return false;
    }
    return true;
}

int compare(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    parser.addOption({"format", "Output format: json (default) or csv.", "json|csv"});
    parser.addOption({"headers", "Add each decision's response headers (X-RateLimit-*, Retry-After, RateLimit-*)."});
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString format = parser.isSet("format") ? parser.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");

    const Scenario scenario = scenarioFromOptions(parser);
    const Trace trace = simulate(scenario);
    std::ios::sync_with_stdio(false);
    ReportOptions options;
    options.headers = parser.isSet("headers");
    if (format == "csv")
        writeCsv(std::cout, trace, options);
    else
        writeJson(std::cout, scenario, trace, options);
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

// readBounded parses option `name` as a decimal in [min, max], or returns fallback if not given.
double readBounded(const QCommandLineParser& parser, const QString& name, double fallback, double min, double max)
{
    if (!parser.isSet(name))
        return fallback;
    bool ok = false;
    const double v = parser.value(name).toDouble(&ok);
    if (!ok || !(v >= min && v <= max))
        throw InputError(QString("--%1: '%2' must be a number from %3 to %4")
                             .arg(name, parser.value(name))
                             .arg(min)
                             .arg(max)
                             .toStdString());
    return v;
}

int exportImage(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    parser.addOptions({
        {"png", "Write the dashboard as a PNG image to this file (required).", "file"},
        {"width", "Image width in pixels, before scaling (default 1600).", "W"},
        {"height", "Image height in pixels, before scaling (default 900).", "H"},
        {"scale", "Pixel scale, 2 for slides and high-density screens (default 1).", "S"},
    });
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    if (parser.value("png").isEmpty())
        return fail("export: --png FILE is required");
    const int width = int(readBounded(parser, "width", 1600, 320, 16000));
    const int height = int(readBounded(parser, "height", 900, 240, 16000));
    const double scale = readBounded(parser, "scale", 1, 0.25, 8);
    if (double(width) * height * scale * scale > 200e6)
        return fail("export: the image would have more than 200 million pixels; lower --width, --height or --scale");

    const Scenario scenario = scenarioFromOptions(parser);
    const QImage image = ui::renderOffscreen(scenario, QSize(width, height), scale);
    const QString error = ui::writeImage(image, parser.value("png"));
    if (!error.isEmpty())
        return fail(error.toStdString());
    return 0;
}

int listPresets(QCommandLineParser& parser, const QStringList& args)
{
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    for (const ui::PresetInfo& p : ui::presets())
        std::cout << p.id.toStdString() << "  " << p.title.toStdString() << "\n";
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

// nginxLines prints the nginx limit_req_zone / limit_req lines for the scenario's config (issue 14).
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
    {"compare", "Run every limiter over one scenario and print the decisions and metrics.", compare, false},
    {"export", "Render the dashboard of one scenario to a PNG image, without a display.", exportImage, true},
    {"presets", "List the built-in classroom scenarios, one per line: id and title.", listPresets, false},
    {"nginx", "Print the nginx limit_req_zone / limit_req lines for the scenario's rate, burst and delay.", nginxLines,
     false},
    {"bench", "Measure decisions, simulation, dashboard updates and export on this machine.", runBench, true},
};

const Command* findCommand(const char* name)
{
    for (const Command& c : kCommands)
        if (std::strcmp(c.name, name) == 0)
            return &c;
    return nullptr;
}

} // namespace

bool isCommand(int argc, char** argv)
{
    return argc > 1 && argv[1][0] != '-';
}

int runCommand(int argc, char** argv)
{
    // A command's stderr carries one line per problem: Qt's own chatter (offscreen plugin hints,
    // runtime-directory notes) stays out of it.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::cerr << "ratelab: " << message.toStdString() << std::endl;
    });
    const Command* command = findCommand(argv[1]);
    std::unique_ptr<QCoreApplication> app;
    if (command && command->drawsWidgets) {
        qputenv("QT_QPA_PLATFORM", "offscreen"); // no window and no display, ever
        app = std::make_unique<QApplication>(argc, argv);
    } else {
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    QCoreApplication::setApplicationName("ratelab");
    if (!command) {
        std::string names;
        for (const Command& c : kCommands)
            names += std::string(names.empty() ? "" : ", ") + c.name;
        return fail(std::string("unknown command '") + argv[1] + "' (commands: " + names + ")");
    }
    QStringList args = app->arguments();
    args.removeAt(1);
    QCommandLineParser parser;
    parser.setApplicationDescription(QString("ratelab %1: %2").arg(command->name, command->summary));
    try {
        return command->run(parser, args);
    } catch (const InputError& e) {
        return fail(e.what());
    }
}

} // namespace ratelab::app
