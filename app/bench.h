// `ratelab bench`: the speed figures of the README, measured on this machine.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace ratelab::app {

// runBench measures decisions, simulation, dashboard updates and export, and prints a table or
// (with --json) one JSON object. Each figure is the median of several runs after a warm-up.
int runBench(QCommandLineParser& parser, const QStringList& args);

} // namespace ratelab::app
