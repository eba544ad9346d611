#include "cli.h"

#include "bench.h"
#include "client_options.h" // clients that react (issue 13)
#include "clients.h"        // memory at scale (issue 13)
#include "decimal.h"
#include "report.h"
#include "scenario_options.h"

#include "dashboard.h"
#include "presets.h"

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
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
    addClientOptions(parser); // clients that react (issue 13)
    parser.addOption({"format", "Output format: json (default) or csv.", "json|csv"});
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString format = parser.isSet("format") ? parser.value("format") : "json";
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");

    // --- Clients that react (issue 13): any client option runs the clients simulation. ---
    if (clientOptionsGiven(parser)) {
        std::ios::sync_with_stdio(false);
        compareWithClients(parser, args, format == "csv", std::cout);
        std::cout.flush();
        return std::cout ? 0 : fail("cannot write the output");
    }
    // --- end of clients ---

    const Scenario scenario = scenarioFromOptions(parser);
    const Trace trace = simulate(scenario);
    std::ios::sync_with_stdio(false);
    if (format == "csv")
        writeCsv(std::cout, trace);
    else
        writeJson(std::cout, scenario, trace);
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

// --- Memory at scale (issue 13): `ratelab memory --keys K` ---

constexpr std::int64_t kMaxMemoryKeys = 10'000'000;

// humanBytes writes a byte count in decimal units for people: "80 MB", "1.6 GB", "16 B".
std::string humanBytes(std::int64_t bytes)
{
    const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000 && u < 6) {
        v /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 || v >= 100 ? "%.0f %s" : "%.3g %s", v, units[u]);
    return buf;
}

int memoryAtScaleCommand(QCommandLineParser& parser, const QStringList& args)
{
    parser.addOptions({
        {"keys", "Active keys (clients, users, API keys), 1 to 10000000 (required).", "K"},
        {"limit", "Requests allowed per window (default 10).", "L"},
        {"window", "Window length in seconds (default 10).", "seconds"},
        {"capacity", "Bucket capacity (default: the limit).", "C"},
        {"rate", "Refill/drain rate per second (default: limit / window, exact).", "per-second"},
        {"json", "Write JSON instead of a table."},
    });
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    if (!parser.isSet("keys"))
        return fail("memory: --keys K is required");
    const auto flag = [&](const char* name, auto parse) {
        try {
            return parse(parser.value(name).toStdString());
        } catch (const InputError& e) {
            throw InputError(std::string("--") + name + ": " + e.what());
        }
    };
    const auto integer = [](std::int64_t min, std::int64_t max) {
        return [min, max](const std::string& t) { return parseIntegerIn(t, min, max); };
    };
    const std::int64_t keys = flag("keys", integer(1, kMaxMemoryKeys));
    const std::int64_t limit = parser.isSet("limit") ? flag("limit", integer(1, LimiterConfig::kMaxLimit)) : 10;
    Nanos window = 10 * kNanosPerSecond;
    if (parser.isSet("window"))
        window = flag("window", [](const std::string& t) {
            const Nanos w = parseSeconds(t);
            if (w <= 0)
                throw InputError("must be greater than 0 s (got " + formatSeconds(w) + ")");
            return w;
        });
    std::optional<std::int64_t> capacity;
    if (parser.isSet("capacity"))
        capacity = flag("capacity", integer(1, LimiterConfig::kMaxLimit));
    std::optional<Rate> rate;
    if (parser.isSet("rate"))
        rate = flag("rate", [](const std::string& t) { return parseRate(t); });
    const LimiterConfig config = LimiterConfig::make(limit, window, capacity, rate);

    if (parser.isSet("json")) {
        std::cout << "{\"input\": {\"keys\": " << keys << ", \"limit\": " << config.limit()
                  << ", \"window\": " << formatSeconds(config.windowNanos()) << ", \"capacity\": " << config.capacity()
                  << ", \"rate\": " << formatNumber(config.rate().perSecond()) << ", \"rate_exact\": \""
                  << config.rate().exactText() << "\"},\n \"results\": {";
        for (std::size_t i = 0; i < kAllAlgorithms.size(); ++i) {
            const Algorithm a = kAllAlgorithms[i];
            const Memory one = worstCaseMemory(a, config);
            const Memory all = memoryAtScale(a, config, keys);
            std::cout << (i ? ",\n  " : "\n  ") << '"' << algorithmId(a) << "\": {\"per_key\": {\"bytes\": "
                      << one.bytes << ", \"entries\": " << one.entries << "}, \"total\": {\"bytes\": " << all.bytes
                      << ", \"entries\": " << all.entries << "}}";
        }
        std::cout << "}}\n";
    } else {
        char header[160];
        std::snprintf(header, sizeof header, "%-24s %14s %12s %20s %18s %10s\n", "algorithm", "bytes/key",
                      "entries/key", "total bytes", "total entries", "total");
        std::cout << header;
        for (Algorithm a : kAllAlgorithms) {
            const Memory one = worstCaseMemory(a, config);
            const Memory all = memoryAtScale(a, config, keys);
            char line[160];
            std::snprintf(line, sizeof line, "%-24s %14lld %12lld %20lld %18lld %10s\n",
                          std::string(algorithmId(a)).c_str(), static_cast<long long>(one.bytes),
                          static_cast<long long>(one.entries), static_cast<long long>(all.bytes),
                          static_cast<long long>(all.entries), humanBytes(all.bytes).c_str());
            std::cout << line;
        }
    }
    std::cout.flush();
    return std::cout ? 0 : fail("cannot write the output");
}

// --- end of memory at scale ---

const Command kCommands[] = {
    {"compare", "Run every limiter over one scenario and print the decisions and metrics.", compare, false},
    {"export", "Render the dashboard of one scenario to a PNG image, without a display.", exportImage, true},
    {"presets", "List the built-in classroom scenarios, one per line: id and title.", listPresets, false},
    {"bench", "Measure decisions, simulation, dashboard updates and export on this machine.", runBench, true},
    {"memory", "Print each limiter's worst-case state for K active keys (memory at scale).", memoryAtScaleCommand,
     false},
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
