// The scenario options shared by `compare` and `export`: declared once, read once.
#pragma once

#include "scenario/scenario.h"
#include "scenario/settings_codec.h"

#include <QCommandLineParser>

#include <cstdint>
#include <optional>

namespace ratelab::app {

// addScenarioOptions declares --limit, --window, ..., --arrivals, --preset, --scenario and
// --save-scenario on a parser.
void addScenarioOptions(QCommandLineParser& parser);

// scenarioFromOptions builds the scenario the options describe: a preset or scenario file when
// one is named, else the documented defaults, with each option given overriding one value (its
// clients and cluster too). It throws InputError naming the option and what is wrong with it.
// RunOptions says which of the client and cluster options the parser declares: both
// (addRunOptions), the cluster's alone (replay and sweep: their clients are the log's keys, and
// their --key names a log field), or neither.
enum class RunOptions { Declared, Cluster, Absent };
Scenario scenarioFromOptions(const QCommandLineParser& parser, RunOptions run = RunOptions::Declared);

// addRunOptions declares the options of where and for whom a scenario runs: the client options
// (--clients, --retry, ...) and the cluster options (--nodes, --coordination, ..., --backend).
void addRunOptions(QCommandLineParser& parser);

// saveScenarioIfAsked writes the scenario (atomically) when --save-scenario was given: call it
// after the scenario ran, so a refused run leaves the file as it was.
void saveScenarioIfAsked(const QCommandLineParser& parser, const Scenario& s);

// integerOption parses option `name`, when given, as a whole number in [min, max] with the
// number grammar every option uses; errors name the option.
std::optional<std::int64_t> integerOption(const QCommandLineParser& parser, const QString& name, std::int64_t min,
                                          std::int64_t max);

// Sign says whether a duration may be 0 s (a delay) or must be more (a window).
enum class Sign { NonNegative, Positive };

// secondsOption parses option `name`, when given, as a duration of 0 s or more (or more than 0 s).
std::optional<Nanos> secondsOption(const QCommandLineParser& parser, const QString& name, Sign sign = Sign::NonNegative);

// rateOption parses option `name`, when given, as an exact positive rate per second.
std::optional<Rate> rateOption(const QCommandLineParser& parser, const QString& name);

// readSettingFlags reads each setting of a settings-codec table whose option is given into o, a
// list's values replacing its items. A refusal names the option ("--latency: must not be
// negative (got -1)"; a list's, the value too: "--join '9': expected N@T, ...").
template <typename Options>
void readSettingFlags(const QCommandLineParser& parser, std::span<const Setting<Options>> table, Options& o);

// anySettingFlag is true when the option of some setting of the table is given.
template <typename Options>
bool anySettingFlag(const QCommandLineParser& parser, std::span<const Setting<Options>> table);

// scaleOption parses option `name`, when given, as an image scale: an exact decimal or fraction
// from 1/4 to 8.
std::optional<double> scaleOption(const QCommandLineParser& parser, const QString& name);

} // namespace ratelab::app
