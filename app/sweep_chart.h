// Drawing a sweep: denied share against the parameter, a line per algorithm; for two parameters
// a heatmap per algorithm. Run by ratelab-gui (Qt Gui), never by the Core-only ratelab.
#pragma once

#include "replay/sweep.h"

#include <QImage>
#include <QString>

namespace ratelab::app {

// writeSweepChart draws the result to path as PNG or (svg) SVG, atomically for PNG; it returns an
// empty string or why nothing was written.
QString writeSweepChart(const SweepResult& result, const QString& path, bool svg);

// renderSweepChart draws the result on an image of the given size (tests read its pixels).
QImage renderSweepChart(const SweepResult& result, QSize size);

} // namespace ratelab::app
