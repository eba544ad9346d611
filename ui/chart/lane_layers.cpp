#include "chart/lane_layers.h"

#include "chart/ticks.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QLocale>
#include <QPainter>
#include <QPen>
#include <QVector>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

std::vector<LaneLabel> layOutLaneLabels(const ServerLane& lane, const QFont& small, bool veiled)
{
    // The limit first (the lane is read against it), then the top inside the lane (never beside
    // the lane above), 0, and round ticks between, those that keep clear of every other label
    // ("10 in the server" and a limit falling 31, 15, 7, 3 are read off the axis, not only 0 and
    // the top). Labels that only touch read as one number ("300" on "200").
    const QFontMetricsF fm(small);
    const double h = fm.height();
    const QRectF& r = lane.rect;
    const auto yOf = [&](double v) { return r.bottom() - v / lane.top * r.height(); };
    const auto at = [&](double y) { return QRectF(0, y - h / 2, std::max(0.0, r.left() - 5), h); };
    const auto text = [&](double v) { return QLocale().toString(v, 'g', 4) + lane.unit; };
    std::vector<LaneLabel> labels;
    const LaneLabel caption{LaneLabel::Caption, 0, lane.name, QRectF(r.left() + 3, r.top(), fm.horizontalAdvance(lane.name) + 6, h)};
    if (veiled)
        return {caption};
    const auto add = [&](LaneLabel::Kind kind, double v, double y) {
        const QRectF box = at(y);
        const QRectF clear = box.adjusted(0, -h / 4, 0, h / 4);
        if (std::none_of(labels.begin(), labels.end(), [&](const LaneLabel& l) { return l.box.intersects(clear); }))
            labels.push_back({kind, v, text(v), box});
    };
    if (lane.marked) {
        // Inside the lane, or at its top when the lane is shorter than the label (a row of many
        // lanes on a small screen): never a clamp whose bounds cross.
        const double highest = r.top() + h / 2;
        add(LaneLabel::Marked, *lane.marked, std::clamp(yOf(*lane.marked), highest, std::max(highest, r.bottom() - h / 2)));
    }
    add(LaneLabel::Top, lane.top, r.top() + h / 2 - 1);
    if (r.height() >= 2.2 * h)
        add(LaneLabel::Zero, 0, r.bottom() - h / 2 + 1);
    double step = niceStep(lane.top, std::max(2, int(r.height() / (h * 1.5))), false);
    if (lane.whole)
        step = std::max(step, 1.0);
    for (int k = 1; k * step < lane.top * (1 - 1e-9); ++k)
        add(LaneLabel::Tick, k * step, yOf(k * step));
    labels.push_back(caption);
    return labels;
}

void paintInSystem(QPainter& p, const ServerLane& lane, const LaneTime& time, const QList<QPointF>& inSystem,
                   const QList<QPointF>& limit, QColor fill, QColor ink)
{
    // The limit as separate segments: QPainter fills a polygon and strokes a polyline of n
    // vertices in time that grows faster than n, and antialiased rectangles narrower than a
    // pixel darken where they stack; a column's mean is what the antialiased polygon showed.
    const QRectF& r = lane.rect;
    const double sx = r.width() / (time.to - time.from);
    const auto at = [&](QPointF q) { return QPointF(r.left() + (q.x() - time.from) * sx, r.bottom() - q.y() / lane.top * r.height()); };
    const int left = int(std::floor(r.left())), columns = int(std::ceil(r.right())) - left + 1;
    std::vector<double> heights(std::size_t(std::max(columns, 0)), 0.0); // pixels x pixel-widths
    for (qsizetype k = 1; k < inSystem.size() && inSystem[k].x() <= time.shownTo; ++k) {
        const QPointF a = at(inSystem[k - 1]), b = at(inSystem[k]);
        if (a.y() != b.y() || b.x() <= a.x())
            continue;
        const double h = r.bottom() - a.y();
        for (int c = std::max(0, int(std::floor(a.x())) - left); c < columns && left + c < b.x(); ++c)
            heights[std::size_t(c)] += h * (std::min(b.x(), double(left + c + 1)) - std::max(a.x(), double(left + c)));
    }
    QVector<QRectF> area;
    for (int c = 0; c < columns; ++c)
        if (heights[std::size_t(c)] > 0)
            area << QRectF(left + c, r.bottom() - heights[std::size_t(c)], 1, heights[std::size_t(c)]);
    fill.setAlphaF(0.35);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    const bool smooth = p.testRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::Antialiasing, false); // whole pixel columns: nothing to smooth
    p.drawRects(area);
    p.setRenderHint(QPainter::Antialiasing, smooth);
    QVector<QLineF> line;
    for (qsizetype k = 1; k < limit.size() && limit[k].x() <= time.shownTo; ++k)
        line << QLineF(at(limit[k - 1]), at(limit[k]));
    QPen pen(ink, 1.8);
    pen.setCosmetic(true);
    pen.setCapStyle(Qt::SquareCap); // fills each corner a polyline's join would
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawLines(line);
}

void paintAttemptBars(QPainter& p, const ServerLane& lane, const LaneTime& time, const AttemptBuckets& b, QColor first,
                      QColor retry)
{
    const QRectF& r = lane.rect;
    const double sx = r.width() / (time.to - time.from), width = double(b.widthNanos) / 1e9;
    const double sy = r.height() / lane.top / width; // pixels per attempt in a bucket
    for (std::size_t k = 0; k < b.first.size(); ++k) {
        const double t0 = double(b.from) / 1e9 + double(k) * width;
        if (t0 > time.shownTo)
            break;
        const double x0 = r.left() + (t0 - time.from) * sx, x1 = x0 + width * sx - 1;
        const double h1 = double(b.first[k]) * sy, h2 = double(b.retries[k]) * sy;
        p.fillRect(QRectF(QPointF(x0, r.bottom() - h1), QPointF(x1, r.bottom())), first);
        p.fillRect(QRectF(QPointF(x0, r.bottom() - h1 - h2), QPointF(x1, r.bottom() - h1)), retry);
    }
}

void paintServed(QPainter& p, const ServerLane& lane, const LaneTime& time, const ServedBuckets& b, bool latency,
                 QColor good, QColor ink)
{
    const QRectF& r = lane.rect;
    const double sx = r.width() / (time.to - time.from), width = double(b.widthNanos) / 1e9;
    QColor band = ink;
    band.setAlphaF(0.3);
    const auto yOf = [&](Nanos v) { return r.bottom() - double(v) / 1e9 / lane.top * r.height(); };
    QVector<QLineF> median; // a tick per bucket, never joined: the band is no level line
    for (std::size_t k = 0; k < b.inTime.size(); ++k) {
        const double t0 = double(b.from) / 1e9 + double(k) * width;
        if (t0 > time.shownTo)
            break;
        const double x0 = r.left() + (t0 - time.from) * sx, x1 = x0 + width * sx - 1;
        if (!latency) {
            const double top = r.bottom() - double(b.inTime[k]) / width / lane.top * r.height();
            p.fillRect(QRectF(QPointF(x0, top), QPointF(x1, r.bottom())), good);
            continue;
        }
        if (b.served[k] == 0)
            continue;
        const double y50 = yOf(b.p50[k]), y99 = yOf(b.p99[k]);
        p.fillRect(QRectF(QPointF(x0, y99), QPointF(x1 + 1, std::max(y50, y99 + 1))), band);
        median << QLineF(QPointF(x0, y50), QPointF(x1 + 1, y50));
    }
    QPen medianPen(ink, 1.4);
    medianPen.setCosmetic(true);
    p.setPen(medianPen);
    p.drawLines(median);
}

void paintTimeGrid(QPainter& p, const RowArea& area, const QRectF& lane, double step, QColor mid)
{
    const double from = secondsAsDouble(area.from), to = secondsAsDouble(area.to);
    if (step <= 0 || (to - from) / step >= 1000)
        return;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setPen(QPen(mid, 1));
    for (double t = std::ceil(from / step) * step; t <= to; t += step)
        p.drawLine(QPointF(std::round(area.xOf(t)), lane.top()), QPointF(std::round(area.xOf(t)), lane.bottom()));
    p.restore();
}

void paintLaneGrid(QPainter& p, const ServerLane& lane, std::span<const LaneLabel> labels, QColor mid)
{
    mid.setAlphaF(0.5);
    p.setPen(QPen(mid, 1));
    const QRectF& r = lane.rect;
    for (const LaneLabel& l : labels)
        if (l.kind == LaneLabel::Tick) {
            const double y = std::round(r.bottom() - l.value / lane.top * r.height()) + 0.5;
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
        }
}

void paintLaneAxis(QPainter& p, const ServerLane& lane, std::span<const LaneLabel> labels, const QFont& small,
                   const LaneInk& ink)
{
    QFont bold = small;
    bold.setBold(true);
    const QRectF& r = lane.rect;
    p.save();
    p.setPen(QPen(ink.mid, 1));
    p.drawLine(QPointF(r.left(), r.bottom()), QPointF(r.right(), r.bottom()));
    QColor under = ink.base;
    under.setAlphaF(0.85);
    for (const LaneLabel& l : labels) {
        p.setFont(l.kind == LaneLabel::Marked ? bold : small);
        if (l.kind == LaneLabel::Caption) {
            p.fillRect(l.box, under);
            p.setPen(ink.ink);
            p.drawText(l.box, Qt::AlignCenter, l.text);
        } else {
            p.setPen(l.kind == LaneLabel::Marked ? ink.ink : ink.muted);
            p.drawText(l.box, Qt::AlignRight | Qt::AlignVCenter, l.text);
        }
    }
    p.restore();
}

} // namespace ratelab::ui
