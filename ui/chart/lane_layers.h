// A server's lanes, each layer painted from the values it is handed, as row_layers.h's are: what a
// lane measures (the requests in the server under its limit, the latency band, the goodput, the
// attempts), each against its own axis from 0 to a round top, with that axis's labels, grid and
// name. None reads the chart, so each is painted alone and checked (tst_row_layers).
#pragma once

#include "chart/row_layers.h"
#include "view/row_extras.h"
#include "view/served.h"

#include <QColor>
#include <QFont>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <optional>
#include <span>
#include <vector>

class QPainter;

namespace ratelab::ui {

// ServerLane is one measure of a row, drawn in a band of its own (`rect`, scene coordinates)
// against its own axis from 0 to `top` in `unit`, named by `name`: the requests in the server
// with the limit, the latency band, the goodput and, with retries, the attempts.
struct ServerLane {
    enum class Measure { InServer, Latency, Goodput, Attempts } measure = Measure::InServer;
    QString name, unit;
    double top = 1;
    QRectF rect;
    std::optional<double> marked; // labelled in bold on the axis: the limit in force at the end
    bool whole = false;           // a count: its ticks are whole numbers
};

// LaneLabel is one text drawn for a lane (scene coordinates, as its rect): on its axis, the limit
// (bold), the top, 0 and round ticks between them (a faint grid line across the lane at each
// tick); in it, its name.
struct LaneLabel {
    enum Kind { Marked, Top, Zero, Tick, Caption } kind;
    double value = 0;
    QString text;
    QRectF box;
};

// layOutLaneLabels lists the labels drawn for a lane in `small` type, each clear of those before
// it by a quarter of a line, in this order: the limit, the top, 0 (on a lane 2.2 lines tall or
// more), round ticks about a label and a half apart, then the name. Veiled, only the name: the
// scale would tell how many attempts were made.
std::vector<LaneLabel> layOutLaneLabels(const ServerLane& lane, const QFont& small, bool veiled);

// LaneTime is a lane's time scale in seconds: [from, to) across the lane's width, and the
// playhead's time, shownTo, past which nothing is drawn (each painter says how it reads it).
struct LaneTime {
    double from = 0, to = 1;
    double shownTo = 1e300;
};

// paintInSystem draws the requests in the server (points in (seconds, count), a step line) as one
// rectangle a pixel column, as tall as the column's mean, in `fill` at a third of its strength,
// and the limit (a step line too) over it in `ink`. A step is drawn once it has ended by shownTo.
// It leaves the limit's pen on the painter.
void paintInSystem(QPainter& p, const ServerLane& lane, const LaneTime& time, const QList<QPointF>& inSystem,
                   const QList<QPointF>& limit, QColor fill, QColor ink);

// paintAttemptBars draws each bucket's attempts a second as a bar a pixel narrower than the
// bucket: first attempts in `first`, the retries stacked on them in `retry`; no bucket that
// starts after shownTo.
void paintAttemptBars(QPainter& p, const ServerLane& lane, const LaneTime& time, const AttemptBuckets& buckets,
                      QColor first, QColor retry);

// paintServed draws the server's buckets that start by shownTo: each one's goodput (served in
// time) as a bar in `good`, or (latency) its latency as a band from p50 to p99 in `ink` at a
// third of its strength, with a tick at p50, where any was served. It leaves the ticks' pen on
// the painter.
void paintServed(QPainter& p, const ServerLane& lane, const LaneTime& time, const ServedBuckets& buckets, bool latency,
                 QColor good, QColor ink);

// paintTimeGrid carries the time axis's grid lines (one every `step` seconds, aliased as the
// chart's own are, each on its nearest pixel) down through `lane`; none when the range holds
// 1,000 steps or more.
void paintTimeGrid(QPainter& p, const RowArea& area, const QRectF& lane, double step, QColor mid);

// paintLaneGrid draws a faint line across the lane at each tick among `labels` (not at its top or
// 0, which the lane's edges mark). It leaves the lines' pen on the painter.
void paintLaneGrid(QPainter& p, const ServerLane& lane, std::span<const LaneLabel> labels, QColor mid);

// LaneInk is the palette's colours a lane's axis is drawn in.
struct LaneInk {
    QColor mid;   // the baseline
    QColor base;  // under the name
    QColor ink;   // the name and the limit
    QColor muted; // the other values
};
// paintLaneAxis draws the lane's baseline, its axis's labels (the limit in bold) in `small` type,
// and its name inside it on a patch of the background, so what is drawn under it shows around it.
void paintLaneAxis(QPainter& p, const ServerLane& lane, std::span<const LaneLabel> labels, const QFont& small,
                   const LaneInk& ink);

} // namespace ratelab::ui
