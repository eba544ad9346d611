// `ratelab lua`: the Redis Lua scripts, ready to paste into a service, and example callers.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace ratelab::app {

// printLua prints the injected-time script of one algorithm (what the simulation runs), the
// server-clock script of one algorithm or a layered policy (--server-clock, --layer), or a caller
// of it (--example python|node|go|shell).
int printLua(QCommandLineParser& parser, const QStringList& args);

} // namespace ratelab::app
