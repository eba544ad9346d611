// `ratelab replay LOG --config FILE [--against FILE]`: a gateway's config on a log, and
// the difference two configs make on it (core/replay/dry_run.h, dry_run_diff.h).
#pragma once

#include <QCommandLineParser>
#include <QString>

namespace ratelab::app {

// addDryRunOptions declares --config and --against.
void addDryRunOptions(QCommandLineParser& parser);

// dryRunCommand runs the dry run (and the diff with --against) on the log the parsed options
// name, writing the report on stdout; it returns the exit status. It throws InputError for bad
// input, a policy option among them (the config's rules are the policy).
int dryRunCommand(const QCommandLineParser& parser, const QString& log);

} // namespace ratelab::app
