// `ratelab advise LOG --for nginx`: a limit chosen from the log's own traffic (core/advise/),
// written in the gateway's syntax and proved on the log by the dry run `replay --config` runs.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace ratelab::app {

int adviseCommand(QCommandLineParser& parser, const QStringList& args);

} // namespace ratelab::app
