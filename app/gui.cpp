#include "gui.h"

#include "command.h"
#include "version.h"
#include "deckfile.h"
#include "window/deckactions.h"
#include "window/documentactions.h"
#include "window/mainwindow.h"
#include "presets.h"
#include "scenariofile.h"

#include <clocale>
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdlib>
#include <iostream>

namespace ratelab::app {

namespace {

void addOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription("RateLab: rate limiters side by side.\n"
                                     "Commands: ratelab compare|export|presets|bench ... (see ratelab --help).");
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions); // Qt's -platform NAME
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {"preset", "Open a built-in scenario (see 'ratelab presets').", "id"},
        {"scenario", "Open a scenario file (.ratelab.json).", "file"},
        {"deck", "Open a lesson deck: a .ratelab-deck.json file or a shipped deck's id (" + io::shippedDecks().join(", ") + ").",
         "file|id"},
        {"present", "Start in presentation mode (full screen, the charts and the lesson; Esc leaves)."},
    });
    // QApplication's own options: accepted and left to it, hidden from the help.
    for (const char* name : {"platform", "style", "stylesheet", "qwindowgeometry", "qwindowtitle", "qwindowicon",
                             "display", "geometry", "title", "session"}) {
        QCommandLineOption o(name, "", "value");
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(o);
    }
    for (const char* name : {"reverse", "widgetcount", "nograb", "dograb", "sync"}) {
        QCommandLineOption o(name, "");
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(o);
    }
}

int refuse(const QString& message)
{
    std::cerr << "ratelab: " << message.toStdString() << std::endl;
    return 2;
}

// hasDisplay reports whether Qt can open a window here: an X or Wayland display, or a platform
// named explicitly (QT_QPA_PLATFORM, -platform).
bool hasDisplay(const QCommandLineParser& parser)
{
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        if (const char* value = std::getenv(v); value && *value)
            return true;
    return parser.isSet("platform");
}

// someoneSees reports whether the window is on a screen a person looks at, not on Qt's offscreen
// or minimal platform (tests, scripts, a CI job): only there can a dialog stand for a refusal.
bool someoneSees(const QCommandLineParser& parser)
{
    const QString platform = parser.isSet("platform") ? parser.value("platform") : qEnvironmentVariable("QT_QPA_PLATFORM");
    return hasDisplay(parser) && !platform.startsWith(QLatin1String("offscreen"))
           && !platform.startsWith(QLatin1String("minimal"));
}

// refusedBeforeWindow checks what the command line names before QApplication exists; it returns
// a refusal's exit status, or nothing. A deck that cannot be read: on a screen someone sees, the
// window opens and a dialog says why (a class is started from a launcher, with no terminal to read
// stderr): deckRefused is set, the line goes to stderr too and the exit status is still 2;
// anywhere else it is refused as any bad input.
std::optional<int> refusedBeforeWindow(const QCommandLineParser& parser, bool& deckRefused)
{
    if (!parser.positionalArguments().isEmpty())
        return refuse("unknown command '" + parser.positionalArguments().first() + "' (see ratelab --help)");
    if (int(parser.isSet("preset")) + int(parser.isSet("scenario")) + int(parser.isSet("deck")) > 1)
        return refuse("--preset, --scenario and --deck cannot be combined: choose one");
    if (parser.isSet("deck"))
        if (const io::DeckLoad deck = io::loadDeckFile(parser.value("deck")); !deck.deck) {
            if (!someoneSees(parser))
                return refuse("--deck: " + deck.error);
            std::cerr << "ratelab: --deck: " << deck.error.toStdString() << std::endl;
            deckRefused = true;
        }
    if (parser.isSet("preset")) {
        if (const io::LoadResult named = io::loadPreset(parser.value("preset")); !named.scenario)
            return refuse("--preset: " + named.error);
    } else if (parser.isSet("scenario")) {
        if (const io::LoadResult named = io::loadScenarioFile(parser.value("scenario")); !named.scenario)
            return refuse("--scenario: " + named.error);
    }
    if (!hasDisplay(parser))
        return refuse("no display to open the window on (DISPLAY is not set); the commands need none: ratelab --help");
    return std::nullopt;
}

} // namespace

int runGui(int argc, char** argv)
{
    // Everything that can go wrong before a window opens is one line on stderr and exit status
    // 2, checked before QApplication exists: no platform-plugin dump, no window flashing up.
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    addOptions(parser);
    if (QString error; !app::parseOptions(parser, args, error))
        return refuse(error + " (see ratelab --help)");
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    if (parser.isSet("version")) {
        std::cout << versionText() << "\n";
        return 0;
    }
    bool deckRefused = false;
    if (const std::optional<int> status = refusedBeforeWindow(parser, deckRefused))
        return *status;

    QApplication app(argc, argv);
    // Qt sets the C library's locale from the environment; numbers in files (a config's "0.5s")
    // are read with strtod and stod, which would stop at the '.' under a locale writing "0,5".
    std::setlocale(LC_NUMERIC, "C");
    QApplication::setApplicationName("RateLab");
    QApplication::setApplicationDisplayName("RateLab");
    QApplication::setApplicationVersion(PROJECT_VERSION);
    ui::MainWindow window;
    if (parser.isSet("scenario"))
        window.documents()->openFile(parser.value("scenario")); // so Ctrl+S saves back to it
    else if (parser.isSet("preset"))
        window.documents()->openPreset(parser.value("preset"));
    else if (parser.isSet("deck") && !deckRefused)
        window.decks()->openDeck(parser.value("deck"));
    window.show();
    if (deckRefused) // its dialog over the window, once shown
        QTimer::singleShot(0, &window, [&window, &parser] { window.decks()->openDeck(parser.value("deck")); });
    if (parser.isSet("present"))
        window.setPresenting(true);
    const int status = app.exec();
    return deckRefused ? 2 : status;
}

} // namespace ratelab::app
