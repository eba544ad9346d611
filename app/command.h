// What every `ratelab` command shares: one line on stderr and exit status 2 for bad input, and
// one way to parse its options.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include <string>

namespace ratelab::app {

inline constexpr int kBadInput = 2;

// Command is one `ratelab NAME ...` command.
struct Command {
    const char* name;
    const char* summary;
    int (*run)(QCommandLineParser&, const QStringList&);
};

// parseOptions parses args as QCommandLineParser::parse does, and also refuses an option given
// twice that takes one value (`--limit 2:4:2 --limit 7`: which one was meant?). Only --layer,
// --product-option, --concurrency, --change and the settings tables' lists (--cohort, --join,
// --leave) add up. error is the one line to print.
bool parseOptions(QCommandLineParser& parser, const QStringList& args, QString& error);

// argvHasOption reports whether argv (from argv[2], after the command) holds `flag` ("--html"),
// alone or as "--html=FILE": the front end decides from it which executable runs the command.
bool argvHasOption(int argc, char** argv, const char* flag);

// fail prints "ratelab: MESSAGE" on stderr and returns kBadInput.
int fail(const std::string& message);

// parseOrAnswer parses args (the parser holds --help); on a bad option or --help it answers, with
// the one-line refusal or the help text, sets status (2 or 0) and returns false.
bool parseOrAnswer(QCommandLineParser& parser, const QStringList& args, int& status);

// parseOrFail adds --help, parses args and reports unknown options or stray arguments. It returns
// true when the caller may go on; otherwise status holds the exit status (0 after --help).
bool parseOrFail(QCommandLineParser& parser, const QStringList& args, int& status);

// helpText is the parser's --help text with the usage line as the user types the command
// ("Usage: ratelab deck [options] deck"), not the path of the executable that runs it (the
// commands that draw run in ratelab-gui).
std::string helpText(const QCommandLineParser& parser);

// runNamedCommand runs argv[1] from `commands` on a `ratelab NAME` parser, turning InputError
// into one line and exit status 2. A QCoreApplication (or QApplication) must exist.
int runNamedCommand(const Command& command, const QStringList& arguments);

// quietQtMessages keeps Qt's own notes (platform plugin hints, runtime-directory warnings) off
// stderr: a command's stderr is one line per problem.
void quietQtMessages();

} // namespace ratelab::app
