#include "cli.h"

#include "decimal.h"
#include "report.h"
#include "scenario_options.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>
#include <iostream>

namespace ratelab::app {

namespace {

constexpr int kBadInput = 2;

struct Command {
    const char* name;
    const char* summary;
    int (*run)(QCommandLineParser&, const QStringList&);
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
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString format = parser.value("format").isEmpty() ? "json" : parser.value("format");
    if (format != "json" && format != "csv")
        return fail("--format: unknown format '" + format.toStdString() + "' (known: json, csv)");

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

const Command kCommands[] = {
    {"compare", "Run every limiter over one scenario and print the decisions and metrics.", compare},
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
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("ratelab");
    const Command* command = findCommand(argv[1]);
    if (!command) {
        std::string names;
        for (const Command& c : kCommands)
            names += std::string(names.empty() ? "" : ", ") + c.name;
        return fail(std::string("unknown command '") + argv[1] + "' (commands: " + names + ")");
    }
    QStringList args = app.arguments();
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
