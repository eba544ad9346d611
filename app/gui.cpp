#include "gui.h"

#include "documentactions.h"
#include "mainwindow.h"
#include "presets.h"
#include "scenariofile.h"

#include <QApplication>
#include <QCommandLineParser>

#include <iostream>
#include <optional>

namespace ratelab::app {

namespace {

void addOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription("RateLab: rate limiters side by side.\n"
                                     "Commands: ratelab compare|export|presets ... (see ratelab compare --help).");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {"preset", "Open a built-in scenario (see 'ratelab presets').", "id"},
        {"scenario", "Open a scenario file (.ratelab.json).", "file"},
    });
}

// loadNamedScenario loads the scenario --preset or --scenario names, if any. It runs before the
// QApplication exists, so that a bad one is one line on stderr (no platform-plugin chatter) and
// exit status 2, like the commands, and no window ever opens. Options it does not know (Qt's
// own, such as -platform) are left to QCommandLineParser::process.
std::optional<Scenario> loadNamedScenario(int argc, char** argv, QString& error)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    addOptions(parser);
    parser.parse(args);
    if (parser.isSet("help") || parser.isSet("version") || (!parser.isSet("preset") && !parser.isSet("scenario")))
        return std::nullopt;
    if (parser.isSet("preset") && parser.isSet("scenario")) {
        error = "--preset and --scenario cannot be combined: choose one";
        return std::nullopt;
    }
    const bool preset = parser.isSet("preset");
    const ui::LoadResult r = preset ? ui::loadPreset(parser.value("preset")) : ui::loadScenarioFile(parser.value("scenario"));
    if (!r.scenario)
        error = (preset ? "--preset: " : "--scenario: ") + r.error;
    return r.scenario;
}

} // namespace

int runGui(int argc, char** argv)
{
    QString error;
    const std::optional<Scenario> scenario = loadNamedScenario(argc, argv, error);
    if (!error.isEmpty()) {
        std::cerr << "ratelab: " << error.toStdString() << std::endl;
        return 2;
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName("RateLab");
    QApplication::setApplicationDisplayName("RateLab");
    QApplication::setApplicationVersion(PROJECT_VERSION);
    QCommandLineParser parser;
    addOptions(parser);
    parser.process(app);
    ui::MainWindow window;
    if (scenario && parser.isSet("scenario"))
        window.documents()->openFile(parser.value("scenario")); // so Ctrl+S saves back to it
    else if (scenario)
        window.openScenario(*scenario);
    window.show();
    return app.exec();
}

} // namespace ratelab::app
