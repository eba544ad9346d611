// `ratelab replay LOG --config FILE [--against FILE]`: a gateway's config on a log, and
// the difference two configs make on it (core/replay/dry_run.h, dry_run_diff.h).
#pragma once

#include "replay/dry_run.h"
#include "replay/dry_run_report.h"

#include <QCommandLineParser>
#include <QString>

#include <string>

namespace ratelab::app {

// addDryRunOptions declares --config, --against and --html.
void addDryRunOptions(QCommandLineParser& parser);

// DryRunPageWriter writes a report as a web page (ratelab-gui sets one); it returns an empty
// string or why nothing was written.
using DryRunPageWriter = QString (*)(const DryRunReport& report, const QString& path);

// dryRunCommand runs the dry run (and the diff with --against) on the log the parsed options
// name, writing the report on stdout, or with --html through `page` (nullptr: --html refused);
// it returns the exit status. It throws InputError for bad input, a policy option among them
// (the config's rules are the policy).
int dryRunCommand(const QCommandLineParser& parser, const QString& log, DryRunPageWriter page);

// dryRunOnTraffic is the dry run dryRunCommand runs, on traffic already read (with its paths and
// the config's key fields): the config's fields bound to the log, then every request decided. It
// throws InputError, naming `file`, when no rule of the config is replayed.
DryRunResult dryRunOnTraffic(DryRunConfig& config, const Traffic& traffic, const std::string& file);

} // namespace ratelab::app
