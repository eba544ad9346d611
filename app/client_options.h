// The `compare` options of clients that react (issue 13): --clients, --key, --retry,
// --retry-delay, --max-retries, --backoff-base, --backoff-cap, and the run they ask for.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include <ostream>

namespace ratelab::app {

// addClientOptions declares the client options on a parser.
void addClientOptions(QCommandLineParser& parser);

// clientOptionsGiven is true when any client option was given: compare then runs the clients
// simulation and its output gains request, client and attempt (and "clients" in JSON).
bool clientOptionsGiven(const QCommandLineParser& parser);

// compareWithClients runs compare with clients and writes JSON or CSV to out. args are the
// command's arguments: --arrivals is read here (it may name clients: `t,client` lines) and the
// rest goes to scenarioFromOptions. It throws InputError naming the option that is wrong.
void compareWithClients(const QCommandLineParser& parser, const QStringList& args, bool csv, std::ostream& out);

} // namespace ratelab::app
