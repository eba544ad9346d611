// `ratelab bench`: the speed figures of the README, measured on this machine.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include <cstdint>

namespace ratelab::app {

// runBench measures decisions, simulation, dashboard updates and export, and prints a table or
// (with --json) one JSON object. Each figure is the median of several runs after a warm-up.
int runBench(QCommandLineParser& parser, const QStringList& args);

// procStatusKb reads one "Name:   123 kB" line of /proc/self/status, in kB (0 if absent).
std::int64_t procStatusKb(const char* name);

} // namespace ratelab::app
