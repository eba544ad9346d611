// `ratelab memory --keys K`: each limiter's worst-case state for K active keys.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace ratelab::app {

// memoryCommand prints, per algorithm, the state one key can hold at the config and K keys
// together, as a table or (--json) one object, from the memory model the simulation reports.
int memoryCommand(QCommandLineParser& parser, const QStringList& args);

} // namespace ratelab::app
