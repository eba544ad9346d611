// The server behind the limiter on the command line: --server, --concurrency and
// --layered-gate, declared beside the client options (addRunOptions) and read into the scenario.
#pragma once

#include "scenario/scenario.h"

#include <QCommandLineParser>

namespace ratelab::app {

// addServerOptions declares --server SPEC, --concurrency SPEC (repeatable) and --layered-gate SPEC.
void addServerOptions(QCommandLineParser& parser);

// applyServerOptions overrides the scenario's server and concurrency limiters with the options
// given (a scenario file's are kept otherwise). It throws InputError naming the option.
void applyServerOptions(const QCommandLineParser& parser, Scenario& s);

} // namespace ratelab::app
