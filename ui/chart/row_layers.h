// A row's layers, each painted by a function of its own from the values it is handed: none
// reads the chart, so each can be painted alone into an image and checked (tst_row_layers).
// RowChart works out those values from its frame and calls them in order, back to front.
#pragma once

#include "arithmetic/nanos.h"
#include "chart/bar_canvas.h"
#include "chart/offset_line.h"
#include "view/reduce.h"
#include "view/served.h"

#include <QColor>
#include <QFont>
#include <QStringList>
#include <QLineF>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <array>
#include <optional>
#include <span>
#include <utility>

class QPainter;

namespace ratelab::ui {

// MarkLane is a lane of the strip: admitted at once, after a delay, denied.
enum class MarkLane { Admitted, Delayed, Denied };

// paintMark draws one decision's mark centred at c: a dot (admitted), a triangle (delayed) or a
// cross (denied), `scale` times its size at scale 1 (about 9 pixels), in `colour`; hollow for a
// retry (a cross, which has no inside, thinner).
void paintMark(QPainter& p, QPointF c, MarkLane lane, double scale, QColor colour, bool hollow);

// paintRetryLinks draws each line from a denied attempt's mark to its retry's, under the marks.
void paintRetryLinks(QPainter& p, std::span<const QLineF> links, QColor colour);

// StripBadge is a count written beside the marks it counts ("×10"), on a patch of the strip's
// colour, so a retry's link under it never runs through it.
struct StripBadge {
    QRectF patch;
    QRectF textBox;
    QString text;
};
void paintBadges(QPainter& p, std::span<const StripBadge> badges, const QFont& font, QColor ink, QColor background);

// RowArea is where a row's layers draw, in the chart's scene pixels: the level plot, the strip of
// marks above it (from stripTop) and the lanes below it (down to bottom), and the times at the
// plot's left and right edges.
struct RowArea {
    QRectF plot;
    double stripTop = 0; // the top of the strip of marks above the plot
    double bottom = 0;   // the bottom of the lowest lane under the plot (the plot's, without lanes)
    Nanos from = 0, to = 1;

    // xOf is the x of a time in seconds: proportional across the plot, and beyond its edges.
    double xOf(double seconds) const;
    // column is the full height a time mark crosses, from the strip's top to the lowest lane.
    QRectF column(double x0, double x1) const;
};

// paintPlayhead draws the playhead at t: an orange line through the strip, the plot and the lanes.
// A time outside [from, to) is not drawn.
void paintPlayhead(QPainter& p, const RowArea& area, Nanos t);

// paintSelection fills the span a drag selects, between the scene x's a and b (either order), in
// the highlight colour at a fifth of its strength.
void paintSelection(QPainter& p, const RowArea& area, double a, double b, QColor highlight);

// WindowBands are a window limiter's windows: every other window of `window` shaded, a line at
// each window's start, and, at the playhead (trailingAt), the trailing window (t - W, t] the
// sliding limiters count. Too many windows to tell apart (more than one every 12 pixels) are
// not drawn.
struct WindowBands {
    Nanos window = 0;
    std::optional<Nanos> trailingAt;
    bool dark = false; // the dark theme: lighter bands and lines
};
void paintWindowBands(QPainter& p, const RowArea& area, const WindowBands& bands);

// paintBlockSpans shades the spans a product blocks every request in (an API Gateway quota
// spent, a WAF block), clipped to the plot left of visibleRight (the playhead's x).
void paintBlockSpans(QPainter& p, const RowArea& area, std::span<const std::pair<Nanos, Nanos>> spans, QColor shade,
                     double visibleRight);

// paintPinned rings the mark of a pinned decision at (x, laneY) and draws a dashed line through
// the row at x, in violet; radius is the ring's.
void paintPinned(QPainter& p, const RowArea& area, double x, double laneY, double radius);

// paintBoundBand shades the window where the traffic came closest to the row's bound, between
// the scene x's x0 and x1, in the plot, with a dashed edge at each end. An edge outside the plot
// is not drawn rather than clipped: an SVG export (QSvgGenerator before Qt 6.7 writes no clip)
// would show it left of the axis.
void paintBoundBand(QPainter& p, const RowArea& area, double x0, double x1, QColor edge, bool dark);

// paintLabel writes text centred in box on a patch of `background`, in `ink`, in the painter's
// font, clipped to `clip` (none: not clipped at all).
void paintLabel(QPainter& p, const QRectF& box, const QString& text, QColor background, QColor ink,
                std::optional<QRectF> clip);

// LevelLine is the level plot's line: points in (seconds, value / unit), over a plot whose top is
// `top`, drawn up to the scene x visibleRight (the playhead) in `color`. The line has a weight of
// about two device pixels: three one-pixel copies (OffsetLine), the raster engine's fast path.
struct LevelLine {
    const QList<QPointF>* points = nullptr;
    double unit = 1; // nginx's water is in thousandths
    double top = 1;
    QColor color;
    double visibleRight = 0;
};
// paintLevelLine draws the line, keeping its strokes in `cache` between paints. It leaves the
// painter clipped to the line's area with the line's pen, for what is drawn on the line next.
void paintLevelLine(QPainter& p, const RowArea& area, const LevelLine& line, OffsetLine& cache);

// AxisLabel is a value written on the level axis at its height: `strong` (the ceiling) in bold
// and in ink, the others muted.
struct AxisLabel {
    double value = 0;
    QString text;
    bool strong = false;
};
// AxisLabels are labels beside a plot whose top is `top`: left of it, right-aligned 5 pixels
// short of it; or (right) right of it, left-aligned in a margin `margin` pixels wide.
struct AxisLabels {
    std::span<const AxisLabel> labels;
    double top = 1;
    bool right = false;
    double margin = 0;
};
void paintAxisLabels(QPainter& p, const RowArea& area, const AxisLabels& axis, const QFont& font, QColor ink,
                     QColor muted);

// paintNote writes text in box as `flags` align it, in the painter's font and `colour`: what a
// plot says in place of what it cannot draw, or an axis's unit.
void paintNote(QPainter& p, const QRectF& box, int flags, const QString& text, QColor colour);

// Leftovers are nginx's rejections: each one's time and what it found (thousandths of a request),
// over a plot whose top is `top` requests, none after `until` (the playhead).
struct Leftovers {
    std::span<const std::pair<Nanos, std::int64_t>> at;
    double top = 1;
    std::optional<Nanos> until;
};
// paintLeftovers writes "n/1000" over each rejection in the range, with a tick down to its level,
// centred on it and kept inside the plot; one that would come within 4 pixels of the one written
// before it is left out. It draws inside the painter's clip.
void paintLeftovers(QPainter& p, const RowArea& area, const Leftovers& leftovers, const QFont& font, QColor colour);

// paintDepartures draws a hollow diamond of half-width h at each time a queued request leaves,
// along the plot's bottom: never on the arrivals' marks in the strip. Times outside the range
// are not drawn.
void paintDepartures(QPainter& p, const RowArea& area, std::span<const Nanos> leaves, double h, QColor color);

// paintStripBand fills the strip of marks above the plot in `background` and clips the painter
// to it, from a little left of the plot to a little right of visibleRight (the playhead's x): a
// mark at an edge is drawn whole. It returns the clip.
QRectF paintStripBand(QPainter& p, const RowArea& area, QColor background, double visibleRight);

// StripBars is the strip drawn as bars where marks do not fit: one bar per pixel column and lane,
// as tall as the lane's share of the column's requests (a column where 0.4% were admitted shows
// a hairline, not a solid bar like one at 99.6%).
struct StripBars {
    std::span<const Column> columns;
    std::span<const std::int32_t> sent;      // veiled, with retries: what the clients sent per column; else empty
    std::span<const OutcomeCounts> outcomes; // with a server: each column's admitted bar split by outcome
    bool veiled = false;                     // every request in the middle lane, a full bar where there are any
    std::array<double, 3> bottom{};          // each lane's bars' bottom: admitted, delayed, denied
    double fullHeight = 0;                   // a bar's height when its lane has the whole column
    std::array<QColor, 3> colour{};
    std::array<QColor, 6> outcomeColour{}; // by Outcome
    QColor unservedAdmitted;               // an admitted bar whose column has no outcome yet
};
// paintStripBars draws the bars. Opaque bars without a server's outcomes go through `canvas`
// (one image, the same pixels as fillRect); `clip` is the strip's (paintStripBand's).
void paintStripBars(QPainter& p, const RowArea& area, const StripBars& bars, const QRectF& clip, BarCanvas& canvas);

// HeaderText is a row's header: its title in bold, its counts on the right, its legend muted,
// each in the box the header's layout gave it.
struct HeaderText {
    QString title, counts, legend;
    QRectF titleBox, countsBox, legendBox;
};
void paintHeader(QPainter& p, const HeaderText& header, const QFont& font, QColor ink, QColor muted);

// KeyLines are the level lines of a row whose nodes, store or clients each hold a level: one line
// each, points in (seconds, value), in its colour, over a plot whose top is `top`, drawn to the
// scene x visibleRight and to no point after `untilSeconds` (the playhead).
struct KeyLines {
    std::span<const QList<QPointF>> points;
    std::span<const QColor> colours; // one per line
    double top = 1;
    double visibleRight = 0;
    double untilSeconds = 1e300;
    // dense: the row's lines are long (RowLines::keyDense), so a raster painter draws them as the
    // level line is, three one-pixel strokes, where a 1.6 px pen's joins would take seconds; a
    // vector painter (an SVG page) strokes each once with the pen.
    bool dense = false;
};
void paintKeyLines(QPainter& p, const RowArea& area, const KeyLines& lines);

// paintKey writes a key in `box` on `background`: each name after its colour's swatch (names
// past the colours are notes, muted, without one), left to right while they fit, in `font`.
void paintKey(QPainter& p, const QRectF& box, const QStringList& names, std::span<const QColor> colours,
              const QFont& font, QColor background, QColor ink, QColor muted);

} // namespace ratelab::ui
