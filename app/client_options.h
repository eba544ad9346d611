// The options of clients that react: --clients, --key, --retry, --retry-delay,
// --max-retries, --backoff-base, --backoff-cap. They override the base scenario's clients (a
// preset's or a file's) value by value, like every other option.
#pragma once

#include "scenario/scenario.h"

#include <QCommandLineParser>

namespace ratelab::app {

// addClientOptions declares the client options on a parser.
void addClientOptions(QCommandLineParser& parser);

// applyClientOptions overrides the clients of s with the client options given: a scenario
// without clients gains them when any is given, or when its arrivals name clients (K is then
// at least the highest named client + 1). It throws InputError naming the option.
void applyClientOptions(const QCommandLineParser& parser, Scenario& s);

} // namespace ratelab::app
