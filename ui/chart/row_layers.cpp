#include "chart/row_layers.h"

#include "arithmetic/decimal.h"

#include <QPaintDevice>
#include <QPainter>
#include <QPen>
#include <QPolygonF>

#include <algorithm>

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

} // namespace ratelab::ui
