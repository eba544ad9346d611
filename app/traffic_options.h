// What `replay` and `sweep` share: the log argument, the options that say how to read it, and
// the JSON writing of what was read.
#pragma once

#include "arithmetic/decimal.h"
#include "scenario/scenario.h"
#include "arithmetic/text.h"
#include "traffic/traffic_log.h"

#include <QCommandLineParser>
#include <QStringList>

#include <ostream>
#include <string>
#include <string_view>

namespace ratelab::app {

// addTrafficOptions declares --log-format, --key, --time-field, --cost-field, --path,
// --path-field, --strict and --max-keys, and the LOG argument. Without costAndPath it leaves out
// --cost-field and --path, for a command whose output counts every request of the log once.
void addTrafficOptions(QCommandLineParser& parser, bool costAndPath = true);

// parseWithLog parses args allowing one positional LOG (or none when a preset or scenario names
// its own traffic_log): like parseOrFail otherwise. log receives the argument.
bool parseWithLog(QCommandLineParser& parser, const QStringList& args, QString& log, int& status);

// refusePatternOptions throws InputError when an option that makes traffic (--n, --pattern,
// --arrivals, ...) was given: the log is the traffic.
void refusePatternOptions(const QCommandLineParser& parser, const char* command);

// availableMemoryBytes returns the memory available now (MemAvailable), else the free pages.
std::int64_t availableMemoryBytes();

// readTrafficFromOptions reads the log (a file, or a compiled-in ":/..." resource) as the options
// say, refusing more distinct keys than --max-keys (default: what half of availableMemoryBytes
// holds at bytesPerKey), keeping each request's path when keepPaths and reading keyFields besides
// the key (TrafficOptions::keyFields). It throws InputError naming the problem.
Traffic readTrafficFromOptions(const QCommandLineParser& parser, const QString& log, std::int64_t bytesPerKey,
                               bool keepPaths = false, const std::vector<std::string>& keyFields = {});

// trafficWarningList is core's trafficWarnings as the commands print them: whole seconds,
// unreadable lines, lines out of order, each one sentence.
QStringList trafficWarningList(const Traffic& traffic);

// printWarnings writes each warning as one "ratelab: warning: ..." line on stderr.
void printWarnings(const QStringList& warnings);


// writeTrafficJson writes the "input" object: the log, its format, start, duration, counts and
// the first unreadable lines.
void writeTrafficJson(std::ostream& out, const QString& log, const Traffic& traffic, const QCommandLineParser& parser);


} // namespace ratelab::app
