// The scenario options shared by `compare` and `export`: declared once, read once.
#pragma once

#include "scenario.h"

#include <QCommandLineParser>

namespace ratelab::app {

// addScenarioOptions declares --limit, --window, ..., --arrivals on a parser.
void addScenarioOptions(QCommandLineParser& parser);

// scenarioFromOptions builds the scenario the options describe, with the documented defaults
// for what was not given. It throws InputError naming the option and what is wrong with it.
Scenario scenarioFromOptions(const QCommandLineParser& parser);

} // namespace ratelab::app
