// The commands that draw, run by ratelab-gui offscreen: `export`, `bench`, `deck`, and `sweep` and
// `replay` when they write a chart or a page.
#include "guicommands.h"

#include "bench.h"
#include "cluster_options.h"
#include "command.h"
#include "chart/dashboard.h"
#include "chart/theme.h"
#include "arithmetic/decimal.h"
#include "deckfile.h"
#include "outputpath.h"
#include "window/handout.h"
#include "window/webpage.h"
#include "replay_command.h"
#include "sweep_chart.h"
#include "scenario_options.h"

#include <QApplication>

#include <clocale>
#include <cstring>
#include <iostream>

namespace ratelab::app {

namespace {

// fileOptionsProblem refuses an output option given without a file name, and two naming one file
// (one would be written over the other); empty when neither.
std::string fileOptionsProblem(const QCommandLineParser& parser, const std::string& command, const char* a, const char* b)
{
    for (const char* file : {a, b})
        if (parser.isSet(file) && parser.value(file).isEmpty())
            return command + ": --" + file + " needs a file name";
    if (!parser.value(a).isEmpty() && parser.value(a) == parser.value(b))
        return command + ": --" + a + " and --" + b + " name the same file";
    return {};
}

// writeExports writes the image and the page asked for (an empty path: not asked); it returns
// why one could not be written, or an empty string.
QString writeExports(const Scenario& scenario, QSize size, double scale, ui::TimeRange range, const QString& png,
                     const QString& html)
{
    if (!png.isEmpty())
        if (const QString error = ui::writeImage(ui::renderOffscreen(scenario, size, scale, range), png); !error.isEmpty())
            return error;
    return html.isEmpty() ? QString() : ui::writePage(ui::scenarioPage(scenario, size, range), html);
}

int exportImage(QCommandLineParser& parser, const QStringList& args)
{
    addScenarioOptions(parser);
    addRunOptions(parser);
    parser.addOptions({
        {"png", "Write the dashboard as a PNG image to this file (this, --html or both).", "file"},
        {"html", "Write the dashboard as one web page to this file: the rows' pictures as SVG, and what happened to "
                 "each request under its mark (point at it, or Tab to a row and use the arrow keys). The page needs "
                 "no network and no other file.", "file"},
        {"width", "Image width in pixels, before scaling (default 1600; 1280 for a page alone).", "W"},
        {"height", "Image height in pixels, before scaling (default 900; 720 for a page alone).", "H"},
        {"scale", "Pixel scale of the PNG, 2 for slides and high-density screens (default 1).", "S"},
        {"from", "Start of the time shown, in seconds (default: framed on the requests and their recovery).", "seconds"},
        {"to", "End of the time shown, in seconds (default: framed on the requests and their recovery).", "seconds"},
        {"theme", "Colours: light (default) or dark, as the app's View > Theme.", "name"},
    });
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    const QString png = parser.value("png"), html = parser.value("html");
    if (const std::string problem = fileOptionsProblem(parser, "export", "png", "html"); !problem.empty())
        return fail(problem);
    if (png.isEmpty() && html.isEmpty())
        return fail("export: --png FILE or --html FILE is required");
    if (parser.isSet("scale") && png.isEmpty()) // a page's pictures are vectors: nothing to scale
        return fail("export: --scale is for --png; an --html page's charts are drawn as SVG");
    const QString theme = parser.value("theme");
    if (parser.isSet("theme") && theme != "light" && theme != "dark")
        return fail("export: --theme must be light or dark (got '" + theme.toStdString() + "')");
    // The same number grammar as every other option: "1600.5" and " 800" are refused.
    // A page alone is laid out for a laptop's or a projector's screen: its rows have fewer columns
    // to explain than a 1600-pixel slide's.
    const int width = int(integerOption(parser, "width", 320, 16000).value_or(png.isEmpty() ? 1280 : 1600));
    const int height = int(integerOption(parser, "height", 240, 16000).value_or(png.isEmpty() ? 720 : 900));
    const double scale = scaleOption(parser, "scale").value_or(1.0);
    if (double(width) * height * scale * scale > 200e6)
        return fail("export: the image would have more than 200 million pixels; lower --width, --height or --scale");

    for (const QString& path : {png, html})
        if (const QString problem = path.isEmpty() ? QString() : io::outputPathProblem(path); !problem.isEmpty())
            return fail(problem.toStdString()); // before any work, and nothing is touched
    // A slide's frame: both ends, or neither (the activity).
    const std::optional<Nanos> from = secondsOption(parser, "from"), to = secondsOption(parser, "to");
    if (from.has_value() != to.has_value())
        return fail("export: --from and --to go together: give both, or neither to frame the activity");
    if (from && *to <= *from)
        return fail("export: --to must be later than --from (got " + formatSeconds(*from) + " s to " + formatSeconds(*to) + " s)");
    const ui::TimeRange range = from ? ui::TimeRange{*from, *to} : ui::TimeRange{};
    const Scenario scenario = scenarioFromOptions(parser);
    if (backendFromOptions(parser).redis) // the image is the simulation's: it was dropped silently
        return fail("export: --backend redis: the image is drawn from the simulation; 'ratelab compare --backend "
                    "redis' checks the same scenario against Redis");
    if (parser.isSet("theme")) // the app's palette, which the charts read their colours from
        ui::applyTheme(ui::themeFromId(theme));
    if (const QString error = writeExports(scenario, QSize(width, height), scale, range, png, html); !error.isEmpty())
        return fail(error.toStdString());
    saveScenarioIfAsked(parser, scenario);
    return 0;
}

int deckCommand(QCommandLineParser& parser, const QStringList& args)
{
    parser.addPositionalArgument("deck", "A lesson deck: a .ratelab-deck.json file or a shipped deck's id ("
                                             + io::shippedDecks().join(", ") + ").");
    parser.addOption({"pdf", "Write the deck's handout to this file: a page per step, its words and its chart.", "file"});
    parser.addOption({"html", "Write the deck as one web page to this file: a step at a time with presentation mode's keys "
                              "(PageDown or Space: reveal, then the next step; PageUp: back), each question's decisions "
                              "and answer kept encoded in the page until revealed. It needs no network and no other file.",
                      "file"});
    parser.addOption({"no-answers", "A handout or page for before the class: questions without their answers, every chart "
                                    "from the first question on with the decisions hidden (not in the file at all)."});
    parser.addHelpOption();
    if (QString error; !parseOptions(parser, args, error))
        return fail("deck: " + error.toStdString());
    if (parser.isSet("help")) {
        std::cout << helpText(parser);
        return 0;
    }
    if (parser.positionalArguments().size() != 1)
        return fail("deck: name one deck, a file or a shipped deck's id (" + io::shippedDecks().join(", ").toStdString() + ")");
    const QString pdf = parser.value("pdf"), html = parser.value("html");
    if (const std::string problem = fileOptionsProblem(parser, "deck", "pdf", "html"); !problem.empty())
        return fail(problem);
    if (parser.isSet("no-answers") && pdf.isEmpty() && html.isEmpty())
        return fail("deck: --no-answers is for a handout or a page: give --pdf FILE or --html FILE too");
    for (const QString& path : {pdf, html})
        if (const QString problem = path.isEmpty() ? QString() : io::outputPathProblem(path); !problem.isEmpty())
            return fail("deck: " + problem.toStdString()); // before any work, and nothing is touched
    const io::DeckLoad load = io::loadDeckFile(parser.positionalArguments().first());
    if (!load.deck)
        return fail("deck: " + load.error.toStdString());
    const io::Deck& deck = *load.deck;
    if (!pdf.isEmpty())
        if (const QString error = ui::writeHandout(deck, pdf, !parser.isSet("no-answers")); !error.isEmpty())
            return fail("deck: " + error.toStdString());
    // A step's charts are laid out for a projector's 1280x720, as presentation mode shows them.
    if (!html.isEmpty())
        if (const QString error = ui::writePage(ui::deckPage(deck, QSize(1280, 720), !parser.isSet("no-answers")), html);
            !error.isEmpty())
            return fail("deck: " + error.toStdString());
    if (!pdf.isEmpty() || !html.isEmpty())
        return 0;
    // Without --pdf: the deck's outline, a line a step (and its question), to check a deck.
    std::cout << deck.title << "\n";
    for (std::size_t i = 0; i < deck.steps.size(); ++i) {
        const io::DeckStep& s = deck.steps[i];
        std::cout << "  " << i + 1 << ". " << s.scenario.title;
        if (s.hasFocus())
            std::cout << " [" << formatSeconds(*s.from) << " s to " << formatSeconds(*s.to) << " s]";
        std::cout << "\n";
        if (!s.question.empty())
            std::cout << "     asks: " << s.question << "\n";
    }
    return 0;
}

const Command kCommands[] = {
    {"export", "Render the dashboard of one scenario to a PNG image or a web page, without a display.", exportImage},
    {"bench", "Measure decisions, simulation, dashboard updates and export on this machine.", runBench},
    {"deck", "Outline a lesson deck, or write its handout with --pdf (a page per step) or its web page with --html, without a display.", deckCommand},
    {"replay", "Replay a log through a gateway's config, its report as a web page (--html).",
     [](QCommandLineParser& p, const QStringList& a) {
         return replayCommand(p, a, [](const DryRunReport& report, const QString& path) {
             return ui::writePage(ui::dryRunPage(report), path);
         });
     }},
    {"sweep", "Replay a log over a grid of limits, with --png/--svg charts.",
     [](QCommandLineParser& p, const QStringList& a) { return sweepCommand(p, a, writeSweepChart); }},
};

} // namespace

std::optional<int> runGuiCommand(int argc, char** argv)
{
    if (argc < 2)
        return std::nullopt;
    for (const Command& c : kCommands) {
        if (std::strcmp(c.name, argv[1]) != 0)
            continue;
        quietQtMessages();
        qputenv("QT_QPA_PLATFORM", "offscreen"); // no window and no display, ever
        QApplication app(argc, argv);
        QCoreApplication::setApplicationName("ratelab");
        std::setlocale(LC_NUMERIC, "C"); // as ratelab's: a config's "0.5s" is read with strtod
        // The app's light theme, not the platform's palette: an image or a handout reads as the
        // window does, with its contrast.
        ui::applyTheme(ui::Theme::Light);
        return runNamedCommand(c, app.arguments());
    }
    return std::nullopt;
}

} // namespace ratelab::app
