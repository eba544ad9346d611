#include "chart/row_layers.h"

#include "arithmetic/decimal.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QPen>
#include <QPolygonF>
#include <QTransform>

#include <algorithm>
#include <cmath>
#include <array>
#include <limits>
#include <span>
#include <vector>

namespace ratelab::ui {

double RowArea::xOf(double seconds) const
{
    const double f = secondsAsDouble(from), t = secondsAsDouble(to);
    return plot.left() + (seconds - f) / (t - f) * plot.width();
}

QRectF RowArea::column(double x0, double x1) const { return QRectF(QPointF(x0, stripTop), QPointF(x1, bottom)); }

void paintPlayhead(QPainter& p, const RowArea& area, Nanos t)
{
    if (t >= area.to || t < area.from)
        return;
    const double x = area.xOf(secondsAsDouble(t));
    p.setClipping(false);
    p.setPen(QPen(QColor(0xea, 0x58, 0x0c), 1.5));
    p.drawLine(QPointF(x, area.stripTop), QPointF(x, area.bottom));
}

void paintSelection(QPainter& p, const RowArea& area, double a, double b, QColor highlight)
{
    highlight.setAlpha(50);
    p.fillRect(area.column(std::min(a, b), std::max(a, b)), highlight);
}

void paintWindowBands(QPainter& p, const RowArea& area, const WindowBands& bands)
{
    const Nanos w = bands.window;
    const Nanos first = area.from / w;
    const Nanos last = (area.to - 1) / w;
    if (last - first > Nanos(area.plot.width() / 12))
        return; // too dense to tell apart: bands would only grey the chart
    const QColor band = bands.dark ? QColor(255, 255, 255, 14) : QColor(0x33, 0x55, 0x99, 16);
    const QColor line = bands.dark ? QColor(0x94, 0xa3, 0xb8, 170) : QColor(0x64, 0x74, 0x8b, 150);
    p.save();
    p.setClipRect(area.column(area.plot.left(), area.plot.right()));
    for (Nanos k = first; k <= last; ++k) {
        const double x0 = area.xOf(secondsAsDouble(k * w));
        const double x1 = area.xOf(secondsAsDouble(Nanos(std::min<Int128>(Int128(k + 1) * w, kMaxNanos))));
        if (k % 2 == 1) // alternate windows shaded: where one ends and the next begins is plain
            p.fillRect(area.column(x0, x1), band);
        if (k * w >= area.from) {
            p.setPen(QPen(line, 1));
            p.drawLine(QPointF(x0, area.stripTop), QPointF(x0, area.bottom));
        }
    }
    if (bands.trailingAt) {
        const double x1 = area.xOf(secondsAsDouble(*bands.trailingAt));
        const double x0 = area.xOf(secondsAsDouble(*bands.trailingAt) - secondsAsDouble(w));
        p.fillRect(area.column(x0, x1), QColor(0xea, 0x58, 0x0c, bands.dark ? 40 : 28));
    }
    p.restore();
}

void paintBlockSpans(QPainter& p, const RowArea& area, std::span<const std::pair<Nanos, Nanos>> spans, QColor shade,
                     double visibleRight)
{
    const QRectF& p0 = area.plot;
    p.save();
    p.setClipRect(QRectF(QPointF(p0.left(), p0.top()), QPointF(std::min(p0.right(), visibleRight), p0.bottom())));
    for (const auto& [from, to] : spans) {
        if (to <= area.from || from >= area.to)
            continue;
        p.fillRect(QRectF(QPointF(area.xOf(secondsAsDouble(from)), p0.top()), QPointF(area.xOf(secondsAsDouble(to)), p0.bottom())),
                   shade);
    }
    p.restore();
}

void paintPinned(QPainter& p, const RowArea& area, double x, double laneY, double radius)
{
    const QColor accent(0x7c, 0x3a, 0xed);
    p.save();
    p.setClipping(false);
    p.setPen(QPen(accent, 1, Qt::DashLine));
    p.drawLine(QPointF(x, area.stripTop), QPointF(x, area.bottom));
    p.setPen(QPen(accent, 2));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QPointF(x, laneY), radius, radius);
    p.restore();
}

void paintBoundBand(QPainter& p, const RowArea& area, double x0, double x1, QColor edge, bool dark)
{
    const QRectF& p0 = area.plot;
    p.save();
    p.setClipRect(p0);
    QColor fill = edge;
    fill.setAlpha(dark ? 34 : 22);
    p.fillRect(QRectF(QPointF(std::max(x0, p0.left() - 1), p0.top()), QPointF(std::min(x1, p0.right() + 1), p0.bottom())), fill);
    p.setPen(QPen(edge, 1, Qt::DashLine));
    for (const double x : {x0, x1})
        if (x >= p0.left() - 1 && x <= p0.right() + 1)
            p.drawLine(QPointF(x, p0.top()), QPointF(x, p0.bottom()));
    p.restore();
}

void paintLabel(QPainter& p, const QRectF& box, const QString& text, QColor background, QColor ink,
                std::optional<QRectF> clip)
{
    p.save();
    if (clip)
        p.setClipRect(*clip);
    else
        p.setClipping(false);
    p.fillRect(box, background);
    p.setPen(ink);
    p.drawText(box, Qt::AlignCenter, text);
    p.restore();
}

void paintAxisLabels(QPainter& p, const RowArea& area, const AxisLabels& axis, const QFont& font, QColor ink,
                     QColor muted)
{
    const QRectF& p0 = area.plot;
    p.save();
    for (const AxisLabel& label : axis.labels) {
        QFont f = font;
        if (label.strong)
            f.setBold(true);
        p.setFont(f);
        p.setPen(label.strong ? ink : muted);
        const double y = p0.bottom() - label.value / axis.top * p0.height();
        if (axis.right)
            p.drawText(QRectF(p0.right() + 5, y - 8, axis.margin - 5, 16), Qt::AlignLeft | Qt::AlignVCenter, label.text);
        else
            p.drawText(QRectF(0, y - 8, p0.left() - 5, 16), Qt::AlignRight | Qt::AlignVCenter, label.text);
    }
    p.restore();
}

void paintNote(QPainter& p, const QRectF& box, int flags, const QString& text, QColor colour)
{
    p.save();
    p.setPen(colour);
    p.drawText(box, flags, text);
    p.restore();
}

void paintLeftovers(QPainter& p, const RowArea& area, const Leftovers& leftovers, const QFont& font, QColor colour)
{
    const QRectF& p0 = area.plot;
    const double from = secondsAsDouble(area.from), to = secondsAsDouble(area.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / leftovers.top;
    const QFontMetricsF fm(font);
    p.save();
    p.setFont(font);
    p.setPen(colour);
    double lastRight = -1e9;
    for (const auto& [t, left] : leftovers.at) {
        if (t < area.from || t >= area.to || (leftovers.until && t > *leftovers.until))
            continue;
        const double x = p0.left() + (secondsAsDouble(t) - from) * sx;
        const QString text = QString("%1/1000").arg(left);
        const double w = fm.horizontalAdvance(text);
        // Centred on its rejection, kept inside the plot (a rejection at its left edge included).
        const double textLeft = std::clamp(x - w / 2, p0.left() + 1, std::max(p0.left() + 1, p0.right() - w - 1));
        if (textLeft < lastRight + 4)
            continue;
        const double y = p0.bottom() - double(left) / 1000.0 * sy;
        p.drawLine(QPointF(x, y), QPointF(x, y - 6));
        p.drawText(QPointF(textLeft, std::max(y - 8, p0.top() + fm.ascent())), text);
        lastRight = textLeft + w;
    }
    p.restore();
}

void paintLevelLine(QPainter& p, const RowArea& area, const LevelLine& level, OffsetLine& cache)
{
    const QRectF& p0 = area.plot;
    const double from = secondsAsDouble(area.from), to = secondsAsDouble(area.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / level.top;
    const QList<QPointF>& points = *level.points;
    QPolygonF line(points.size());
    for (qsizetype i = 0; i < points.size(); ++i)
        line[i] = QPointF(p0.left() + (points[i].x() - from) * sx, p0.bottom() - points[i].y() / level.unit * sy);
    QPen pen(level.color, 1);
    pen.setCosmetic(true);
    const QRectF clip(QPointF(p0.left() - 1, p0.top() - 2), QPointF(std::min(p0.right() + 1, level.visibleRight), p0.bottom() + 2));
    p.setClipRect(clip);
    const double devicePixel = 1.0 / std::max(1.0, p.device()->devicePixelRatioF());
    const QPointF offsets[] = {QPointF(0, 0), QPointF(devicePixel, 0), QPointF(0, devicePixel)};
    cache.draw(&p, line, pen, offsets, clip.united(QRectF(clip.topLeft(), QPointF(p0.right() + 1, clip.bottom()))));
    p.setPen(pen);
}

void paintDepartures(QPainter& p, const RowArea& area, std::span<const Nanos> leaves, double h, QColor color)
{
    const double y = area.plot.bottom() - h - 1;
    p.save();
    p.setClipping(false);
    p.setPen(QPen(color, 1.4));
    p.setBrush(Qt::NoBrush);
    for (const Nanos t : leaves) {
        if (t < area.from || t >= area.to)
            continue;
        const double x = area.xOf(secondsAsDouble(t));
        p.drawPolygon(QPolygonF{{x, y - h}, {x + h, y}, {x, y + h}, {x - h, y}});
    }
    p.restore();
}

QRectF paintStripBand(QPainter& p, const RowArea& area, QColor background, double visibleRight)
{
    const QRectF& p0 = area.plot;
    const QRectF band(p0.left(), area.stripTop, p0.width(), p0.top() - area.stripTop - 2);
    p.fillRect(band, background);
    const QRectF clip(band.topLeft() - QPointF(6, 0), QPointF(visibleRight + 5, band.bottom()));
    p.setClipRect(clip);
    return clip;
}

namespace {

// kShownOutcomes are the outcomes an admitted bar is split into, from the bottom up.
constexpr Outcome kShownOutcomes[] = {Outcome::InTime, Outcome::Late, Outcome::QueueTimeout, Outcome::Refused,
                                      Outcome::Rejected};

// paintOutcomeBar draws an admitted bar split by what became of its attempts at the server, in
// kShownOutcomes' order from the bottom up.
void paintOutcomeBar(QPainter& p, const StripBars& bars, const OutcomeCounts& c, QRectF bar)
{
    std::int64_t total = 0;
    for (Outcome o : kShownOutcomes)
        total += c[std::size_t(o)];
    if (total == 0) {
        p.fillRect(bar, bars.unservedAdmitted);
        return;
    }
    double y = bar.bottom();
    for (Outcome o : kShownOutcomes) {
        const double h = bar.height() * double(c[std::size_t(o)]) / double(total);
        if (h <= 0)
            continue;
        p.fillRect(QRectF(bar.left(), y - h, bar.width(), h), bars.outcomeColour[std::size_t(o)]);
        y -= h;
    }
}

} // namespace

void paintStripBars(QPainter& p, const RowArea& area, const StripBars& bars, const QRectF& clip, BarCanvas& canvas)
{
    const QRectF& p0 = area.plot;
    const double colWidth = p0.width() / double(bars.columns.size());
    const double w = std::max(colWidth, 1.0);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QBrush brush[] = {bars.colour[0], bars.colour[1], bars.colour[2]};
    const bool viaCanvas = bars.outcomes.empty()
                           && std::all_of(bars.colour.begin(), bars.colour.end(), [](const QColor& c) { return c.alpha() == 255; })
                           && canvas.begin(&p, clip.united(QRectF(clip.topLeft(), QPointF(p0.right() + 11, clip.bottom()))));
    for (std::size_t k = 0; k < bars.columns.size(); ++k) {
        const Column& c = bars.columns[k];
        const double total = bars.sent.empty() ? double(c.admitted) + c.delayed + c.denied : double(bars.sent[k]);
        if (total == 0)
            continue;
        const double x = p0.left() + k * colWidth;
        const std::int32_t counts[] = {bars.veiled ? 0 : c.admitted, bars.veiled ? std::int32_t(total) : c.delayed,
                                       bars.veiled ? 0 : c.denied};
        for (std::size_t lane = 0; lane < 3; ++lane) {
            if (counts[lane] == 0)
                continue;
            const double h = std::max(1.0, bars.fullHeight * counts[lane] / total);
            const QRectF bar(x, bars.bottom[lane] - h, w, h);
            if (viaCanvas)
                canvas.fill(bar, bars.colour[lane].rgba());
            else if (lane == 0 && !bars.veiled && k < bars.outcomes.size())
                paintOutcomeBar(p, bars, bars.outcomes[k], bar);
            else
                p.fillRect(bar, brush[lane]);
        }
    }
    if (viaCanvas)
        canvas.end(&p);
}

void paintHeader(QPainter& p, const HeaderText& header, const QFont& font, QColor ink, QColor muted)
{
    QFont bold = font;
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(ink);
    p.drawText(header.titleBox, Qt::AlignLeft | Qt::AlignVCenter, header.title);
    p.setFont(font);
    p.drawText(header.countsBox, Qt::AlignRight | Qt::AlignVCenter, header.counts);
    p.setPen(muted);
    p.drawText(header.legendBox, Qt::AlignLeft | Qt::AlignVCenter, header.legend);
}

namespace {

// floorInt is floor(x) for x in int's range, inline: x86-64's baseline has no rounding
// instruction, and std::floor's call was most of a dense line's time.
int floorInt(double x)
{
    const int i = int(x);
    return x < i ? i - 1 : i;
}

// SpanImage inks device pixels of an image laid over `box` (device pixels), each segment of a
// line as the runs of pixels it crosses in each column, widened one pixel right and down: what
// three one-pixel strokes at offsets (0, 0), (1, 0) and (0, 1) ink, without antialiasing. A
// line's segments in one column are consecutive and share their ends (its points go right), so
// their runs there are one run, from the least top to the most bottom: noted a line at a time
// and inked once a column, not once a segment (a dense line has tens a column).
class SpanImage {
public:
    explicit SpanImage(QRect box)
        : m_left(box.left()), m_topEdge(box.top()), m_width(box.width()), m_height(box.height()),
          m_image(box.size(), QImage::Format_ARGB32_Premultiplied), m_top(std::size_t(box.width()) + 1, kNone),
          m_bottom(std::size_t(box.width()) + 1, kNone)
    {
        m_image.fill(Qt::transparent);
    }
    const QImage& image() const { return m_image; }

    // segment notes a to b (device coordinates, a.x() <= b.x()) for the line being drawn.
    void segment(QPointF a, QPointF b)
    {
        double x0 = a.x() - m_left, x1 = b.x() - m_left, y0 = a.y() - m_topEdge, y1 = b.y() - m_topEdge;
        // Only columns -1 to the width ink: a segment from a point far outside (a frame's lines
        // keep one point either side of it) is cut to them, and its rows to just past the image.
        const double left = -1, right = m_width + 1.0;
        if (x1 < left || x0 >= right)
            return;
        if (x1 > x0 && (x0 < left || x1 > right)) {
            const double slope = (y1 - y0) / (x1 - x0), cut0 = std::max(x0, left), cut1 = std::min(x1, right);
            y1 = y0 + slope * (cut1 - x0);
            y0 = y0 + slope * (cut0 - x0);
            x0 = cut0;
            x1 = cut1;
        }
        const double bottom = m_height + 2.0;
        const auto row = [bottom](double y) { return floorInt(std::clamp(y, -2.0, bottom)); };
        const int c0 = floorInt(x0), c1 = floorInt(x1);
        if (c0 == c1) // the commonest, tens a column
            return note(c0, row(std::min(y0, y1)), row(std::max(y0, y1)) + 1);
        const double slope = (y1 - y0) / (x1 - x0);
        for (int col = c0; col <= c1; ++col) {
            const double ya = y0 + slope * (std::max<double>(x0, col) - x0);
            const double yb = y0 + slope * (std::min<double>(x1, col + 1) - x0);
            note(col, row(std::min(ya, yb)), row(std::max(ya, yb)) + 1);
        }
    }

    // ink inks the line noted since the last ink in `colour`, over the lines inked before it.
    void ink(QRgb colour)
    {
        const int w = m_image.width(), h = m_image.height();
        uchar* const bits = m_image.bits(); // detached once, not once a pixel
        const qsizetype stride = m_image.bytesPerLine();
        for (int slot = 0; slot <= w; ++slot) {
            if (m_top[std::size_t(slot)] == kNone)
                continue;
            const int col = slot - 1; // the run's column and the one right of it
            const int from = std::max(0, m_top[std::size_t(slot)]), to = std::min(h - 1, m_bottom[std::size_t(slot)]);
            for (int x = std::max(0, col); x <= std::min(w - 1, col + 1); ++x)
                for (int y = from; y <= to; ++y)
                    reinterpret_cast<QRgb*>(bits + y * stride)[x] = colour;
            m_top[std::size_t(slot)] = m_bottom[std::size_t(slot)] = kNone;
        }
    }

private:
    static constexpr int kNone = std::numeric_limits<int>::min();

    // note widens column col's run to rows top to bottom; a column left of -1 or past the image
    // inks nothing (neither it nor the one right of it is in the image).
    void note(int col, int top, int bottom)
    {
        if (col < -1 || col >= m_width)
            return;
        int& t = m_top[std::size_t(col + 1)];
        int& b = m_bottom[std::size_t(col + 1)];
        t = t == kNone ? top : std::min(t, top);
        b = b == kNone ? bottom : std::max(b, bottom);
    }

    // The box's edges and size, read per segment: QImage's are calls into Qt.
    double m_left, m_topEdge;
    int m_width, m_height;
    QImage m_image;
    std::vector<int> m_top, m_bottom; // by column + 1: the run noted, or kNone
};

// toDevice maps a point as QTransform::map maps a polygon's (not projective): inline for the
// transforms a chart's painter has (none, a translation, a scale: the same arithmetic, so the same
// pixels; "none" may still hold a translation too small to count, which the polygon's map adds)
// and through Qt's own for a rotation or a shear.
QPointF toDevice(const QTransform& t, QTransform::TransformationType type, QPointF q)
{
    switch (type) {
    case QTransform::TxNone:
    case QTransform::TxTranslate:
        return {q.x() + t.dx(), q.y() + t.dy()};
    case QTransform::TxScale:
        return {t.m11() * q.x() + t.dx(), t.m22() * q.y() + t.dy()};
    default:
        return t.map(q);
    }
}

// paintSpans draws lines as SpanImage inks them, in the painter's device pixels: a dense row's
// lines, tens of thousands of vertices each, which the raster engine strokes in time that grows
// faster than their vertices, even one pixel wide (56 lines took 77 ms a frame at 100k requests).
// Line k is points[k] up to its first point past `until`, each mapped by `place` and then to the
// device as it is read: no copy of a line is made.
template <typename Place>
void paintSpans(QPainter& p, std::span<const QList<QPointF>> points, double until, Place place,
                std::span<const QColor> colours, const QRectF& clip)
{
    const QTransform device = p.deviceTransform();
    const QTransform::TransformationType type = device.type();
    const QRect box = device.mapRect(clip).toAlignedRect();
    if (box.isEmpty())
        return;
    SpanImage spans(box);
    for (std::size_t k = 0; k < points.size(); ++k) {
        QPointF last;
        qsizetype drawn = 0;
        const auto draw = [&](QPointF d) {
            if (drawn++ > 0)
                spans.segment(last, d);
            last = d;
        };
        if (type == QTransform::TxProject) { // Qt maps a projected polygon whole, cut at the eye
            QPolygonF line;
            for (const QPointF& q : points[k]) {
                if (q.x() > until)
                    break;
                line << place(q);
            }
            for (const QPointF& d : device.map(line))
                draw(d);
        } else {
            for (const QPointF& q : points[k]) {
                if (q.x() > until)
                    break;
                draw(toDevice(device, type, place(q)));
            }
        }
        if (drawn == 1)
            spans.segment(last, last);
        spans.ink(qPremultiply(colours[k].rgba()));
    }
    // Placed through the painter's own transform, pixel for pixel: the box is whole device pixels.
    p.save();
    p.setClipping(false);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(device.inverted().mapRect(QRectF(box)), spans.image());
    p.restore();
}

} // namespace

void paintKeyLines(QPainter& p, const RowArea& area, const KeyLines& lines)
{
    const QRectF& p0 = area.plot;
    const double from = secondsAsDouble(area.from), to = secondsAsDouble(area.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / lines.top;
    const QRectF clip(QPointF(p0.left() - 1, p0.top() - 2), QPointF(std::min(p0.right() + 1, lines.visibleRight), p0.bottom() + 2));
    const auto place = [&](const QPointF& q) { return QPointF(p0.left() + (q.x() - from) * sx, p0.bottom() - q.y() * sy); };
    // A dense row's lines (the row's choice, so that they look alike and hold through playback)
    // are inked a pixel column at a time on a raster painter; the others, and any on a vector
    // painter (an SVG page), are stroked with a 1.6 px pen.
    if (lines.dense && p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster)
        return paintSpans(p, lines.points, lines.untilSeconds, place, lines.colours, clip);
    std::vector<QPolygonF> polys(lines.points.size());
    for (std::size_t k = 0; k < lines.points.size(); ++k) {
        polys[k].reserve(lines.points[k].size());
        for (const QPointF& q : lines.points[k]) {
            if (q.x() > lines.untilSeconds)
                break;
            polys[k] << place(q);
        }
    }
    p.save();
    p.setClipRect(clip);
    for (std::size_t k = 0; k < polys.size(); ++k) {
        QPen pen(lines.colours[k], 1.6);
        pen.setCosmetic(true);
        p.setPen(pen);
        p.drawPolyline(polys[k]);
    }
    p.restore();
}

void paintKey(QPainter& p, const QRectF& box, const QStringList& names, std::span<const QColor> colours,
              const QFont& font, QColor background, QColor ink, QColor muted)
{
    p.save();
    p.setClipping(false);
    p.setFont(font);
    const QFontMetricsF fm(font);
    p.fillRect(box, background); // a line under the key never strikes it
    double x = box.left() + 4;
    const double y = box.top() + fm.ascent() + 1;
    for (qsizetype k = 0; k < names.size(); ++k) {
        const bool swatch = k < qsizetype(colours.size());
        const double w = fm.horizontalAdvance(names[k]) + (swatch ? 14 : 0);
        if (x + w > box.right())
            break;
        if (swatch) {
            p.fillRect(QRectF(x, y - fm.ascent() / 2 - 1, 10, 3), colours[std::size_t(k)]);
            x += 14;
        }
        p.setPen(swatch ? ink : muted);
        p.drawText(QPointF(x, y), names[k]);
        x += fm.horizontalAdvance(names[k]) + 12;
    }
    p.restore();
}

void paintMark(QPainter& p, QPointF c, MarkLane lane, double scale, QColor colour, bool hollow)
{
    p.save();
    p.translate(c);
    p.scale(scale, scale);
    c = QPointF(0, 0);
    switch (lane) {
    case MarkLane::Admitted:
        p.setPen(hollow ? QPen(colour, 1.6) : QPen(Qt::NoPen));
        p.setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(colour));
        p.drawEllipse(c, 3.6, 3.6);
        break;
    case MarkLane::Delayed: {
        p.setPen(hollow ? QPen(colour, 1.6) : QPen(Qt::NoPen));
        p.setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(colour));
        QPainterPath tri;
        tri.moveTo(c + QPointF(0, -4.5));
        tri.lineTo(c + QPointF(4.5, 3.5));
        tri.lineTo(c + QPointF(-4.5, 3.5));
        tri.closeSubpath();
        p.drawPath(tri);
        break;
    }
    case MarkLane::Denied:
        p.setPen(QPen(colour, hollow ? 1.2 : 2.2, Qt::SolidLine, Qt::RoundCap));
        p.setBrush(Qt::NoBrush);
        p.drawLine(c + QPointF(-3, -3), c + QPointF(3, 3));
        p.drawLine(c + QPointF(-3, 3), c + QPointF(3, -3));
        break;
    }
    p.restore();
}

void paintRetryLinks(QPainter& p, std::span<const QLineF> links, QColor colour)
{
    p.setPen(QPen(colour, 1));
    for (const QLineF& link : links)
        p.drawLine(link);
}

void paintBadges(QPainter& p, std::span<const StripBadge> badges, const QFont& font, QColor ink, QColor background)
{
    p.setFont(font);
    p.setPen(ink);
    for (const StripBadge& b : badges) {
        p.fillRect(b.patch, background);
        p.drawText(b.textBox, Qt::AlignLeft | Qt::AlignVCenter, b.text);
    }
}

} // namespace ratelab::ui
