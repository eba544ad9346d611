// `ratelab replay LOG [policy options]`: every key of a real log its own limiter of the policy,
// and `ratelab sweep LOG --limit A:B:S ...`: the same over a grid (semantics.md, "Replaying real
// traffic").
#pragma once

#include "replay/replay.h"
#include "replay/sweep.h"
#include "dry_run_command.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

namespace ratelab::app {

// replayCommand prints, per algorithm, attempts, denials, keys ever denied, the keys with most
// denials and the memory the keys need, as JSON (default) or CSV; --per-key writes every key.
// With --config it is a dry run (dryRunCommand), its --html page written through `page`.
int replayCommand(QCommandLineParser& parser, const QStringList& args, DryRunPageWriter page);

// replayWantsPage reports whether argv asks replay for a page (--html): ratelab then hands the
// command to ratelab-gui, which can draw.
bool replayWantsPage(int argc, char** argv);

// policyFromOptions builds the policy as `compare` builds its scenario (the same options and
// grammar); log, when empty, becomes the preset's or scenario file's traffic_log.
ReplayPolicy policyFromOptions(const QCommandLineParser& parser, QString& log);

// SweepChartWriter draws a sweep to a PNG or SVG file (ratelab-gui sets one); it returns an empty
// string or why nothing was written.
using SweepChartWriter = QString (*)(const SweepResult& result, const QString& path, bool svg);

// sweepCommand runs the grid and prints each point's shares as JSON (default) or CSV; with
// --png/--svg it draws the chart through `charts` (nullptr: refused, the caller must be ratelab-gui).
int sweepCommand(QCommandLineParser& parser, const QStringList& args, SweepChartWriter charts);

// sweepWantsChart reports whether argv asks sweep for a chart (--png or --svg): ratelab then
// hands the command to ratelab-gui, which can draw.
bool sweepWantsChart(int argc, char** argv);

} // namespace ratelab::app
