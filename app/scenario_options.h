// The scenario options shared by `compare` and `export`: declared once, read once.
#pragma once

#include "scenario.h"

#include <QCommandLineParser>

namespace ratelab::app {

// addScenarioOptions declares --limit, --window, ..., --arrivals, --preset, --scenario and
// --save-scenario on a parser.
void addScenarioOptions(QCommandLineParser& parser);

// scenarioFromOptions builds the scenario the options describe: a preset or scenario file when
// one is named, else the documented defaults, with each option given overriding one value. With
// --save-scenario it also writes that scenario (atomically). It throws InputError naming the
// option and what is wrong with it.
Scenario scenarioFromOptions(const QCommandLineParser& parser);

} // namespace ratelab::app
