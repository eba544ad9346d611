// RowChart's row of a concurrency limiter in front of the server: each measure in a lane of its
// own, stacked in the plot, with its own named axis from 0 to a round top (rowchart.h,
// serverLanes). One scale shared by a latency, a rate and a count would read as one measure.
#include "chart/rowchart.h"
#include "chart/served_paint.h"
#include "chart/summarytable.h"

#include "chart/ticks.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// perSecondPeak is the most a bucket holds, as a rate: its count over the bucket's width.
double perSecondPeak(const std::vector<std::int64_t>& counts, Nanos width)
{
    std::int64_t peak = 0;
    for (std::int64_t n : counts)
        peak = std::max(peak, n);
    return double(peak) / (double(width) / 1e9);
}

} // namespace

std::vector<RowChart::ServerLane> RowChart::serverLanes() const
{
    std::vector<ServerLane> lanes;
    if (!m_served || !m_gateRow)
        return lanes;
    const ServedBuckets& b = *m_served;
    std::int64_t inSystem = 1;
    for (const QList<QPointF>* line : {&m_inSystemLine, &m_limitLine})
        for (const QPointF& q : *line)
            inSystem = std::max(inSystem, std::int64_t(q.y()));
    Nanos slowest = 0;
    for (Nanos v : b.p99)
        slowest = std::max(slowest, v);
    lanes.push_back({tr("in the server (requests)"), QString(), niceCeiling(double(inSystem) * 1.05), {}, {}});
    if (!m_limitLine.isEmpty()) { // an unlimited row ("none") has no limit to draw
        lanes.back().name = tr("in the server (requests), line: the limit");
        lanes.back().marked = m_limitLine.back().y();
    }
    lanes.push_back({tr("latency p50 to p99 (s)"), tr(" s"), niceCeiling(double(slowest) / 1e9 * 1.05), {}, {}});
    lanes.push_back({tr("goodput: served in time (req/s)"), tr("/s"), niceCeiling(perSecondPeak(b.inTime, b.widthNanos) * 1.05), {}, {}});
    // A lesson about clients' shares (APF, a noisy tenant) is read off the picture: each client's
    // requests served in time, of its requests, beside the goodput they make up.
    const ServerView& view = *m_frame->extras[m_row].server;
    if (const QString shares = SummaryTable::inTimeByClient(view.byClient); !shares.isEmpty())
        lanes.back().name += tr(" · in time by client: %1").arg(shares);
    if (m_attemptRates) {
        std::vector<std::int64_t> all(m_attemptRates->first.size());
        for (std::size_t k = 0; k < all.size(); ++k)
            all[k] = m_attemptRates->first[k] + m_attemptRates->retries[k];
        lanes.push_back({tr("attempts (req/s): first, retries darker on top"), tr("/s"),
                         niceCeiling(perSecondPeak(all, m_attemptRates->widthNanos) * 1.05), {}, {}});
    }
    // Equal bands with a caption's height between them: a lane's top label never meets the
    // baseline of the lane above.
    const QRectF p0 = plot();
    const double gap = QFontMetricsF(smallFont()).height() * 0.5;
    const double h = std::max(1.0, (p0.height() - gap * double(lanes.size() - 1)) / double(lanes.size()));
    for (std::size_t k = 0; k < lanes.size(); ++k)
        lanes[k].rect = QRectF(p0.left(), p0.top() + double(k) * (h + gap), p0.width(), h);
    return lanes;
}

void RowChart::drawServerLanes(QPainter* p) const
{
    const std::vector<ServerLane> lanes = serverLanes();
    const QRectF p0 = plot();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = p0.width() / (to - from);
    const double shownTo = m_playhead ? secondsAsDouble(m_playhead->t) : 1e300;
    p->save();
    p->setClipRect(QRectF(QPointF(p0.left(), p0.top()), QPointF(std::min(p0.right(), visibleRight()), p0.bottom())));
    drawInSystem(p, lanes[0].rect, lanes[0].top);
    const ServedBuckets& b = *m_served;
    const double width = double(b.widthNanos) / 1e9;
    QColor band = palette().color(QPalette::WindowText);
    band.setAlphaF(0.3);
    const QRectF& g = lanes[2].rect;
    const QRectF& l = lanes[1].rect;
    paintServedBuckets(
        p, b, {p0.left(), from, sx, shownTo, g.bottom(), true, outcomeColor(Outcome::InTime, palette()), band, palette().color(QPalette::WindowText)},
        [&](std::size_t k) { return g.bottom() - double(b.inTime[k]) / width / lanes[2].top * g.height(); },
        [&](Nanos v) { return l.bottom() - double(v) / 1e9 / lanes[1].top * l.height(); });
    if (lanes.size() > 3)
        drawAttemptBars(p, lanes[3].rect, lanes[3].top);
    p->restore();
    for (const ServerLane& lane : lanes)
        drawLaneAxis(p, lane);
}

void RowChart::drawInSystem(QPainter* p, const QRectF& lane, double top) const
{
    // The attempts in the server as one rectangle a pixel column, as tall as the column's mean,
    // and the limit as separate segments: QPainter fills a polygon and strokes a polyline of n
    // vertices in time that grows faster than n, and antialiased rectangles narrower than a
    // pixel darken where they stack; a column's mean is what the antialiased polygon showed.
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = lane.width() / (to - from);
    const double shownTo = m_playhead ? secondsAsDouble(m_playhead->t) : 1e300;
    const auto at = [&](QPointF q) { return QPointF(lane.left() + (q.x() - from) * sx, lane.bottom() - q.y() / top * lane.height()); };
    const int left = int(std::floor(lane.left())), columns = int(std::ceil(lane.right())) - left + 1;
    std::vector<double> heights(std::size_t(std::max(columns, 0)), 0.0); // pixels x pixel-widths
    for (qsizetype k = 1; k < m_inSystemLine.size() && m_inSystemLine[k].x() <= shownTo; ++k) {
        const QPointF a = at(m_inSystemLine[k - 1]), b = at(m_inSystemLine[k]);
        if (a.y() != b.y() || b.x() <= a.x())
            continue;
        const double h = lane.bottom() - a.y();
        for (int c = std::max(0, int(std::floor(a.x())) - left); c < columns && left + c < b.x(); ++c)
            heights[std::size_t(c)] += h * (std::min(b.x(), double(left + c + 1)) - std::max(a.x(), double(left + c)));
    }
    QVector<QRectF> area;
    for (int c = 0; c < columns; ++c)
        if (heights[std::size_t(c)] > 0)
            area << QRectF(left + c, lane.bottom() - heights[std::size_t(c)], 1, heights[std::size_t(c)]);
    QColor fill = levelColor();
    fill.setAlphaF(0.35);
    p->setPen(Qt::NoPen);
    p->setBrush(fill);
    const bool smooth = p->testRenderHint(QPainter::Antialiasing);
    p->setRenderHint(QPainter::Antialiasing, false); // whole pixel columns: nothing to smooth
    p->drawRects(area);
    p->setRenderHint(QPainter::Antialiasing, smooth);
    QVector<QLineF> line;
    for (qsizetype k = 1; k < m_limitLine.size() && m_limitLine[k].x() <= shownTo; ++k)
        line << QLineF(at(m_limitLine[k - 1]), at(m_limitLine[k]));
    QPen pen(palette().color(QPalette::WindowText), 1.8);
    pen.setCosmetic(true);
    pen.setCapStyle(Qt::SquareCap); // fills each corner a polyline's join would
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawLines(line);
}

void RowChart::drawAttemptBars(QPainter* p, const QRectF& lane, double top) const
{
    // First attempts, the retries stacked on them darker: both grey, as no outcome is meant.
    const AttemptBuckets& b = *m_attemptRates;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = lane.width() / (to - from), width = double(b.widthNanos) / 1e9;
    const double sy = lane.height() / top / width; // pixels per attempt in a bucket
    const double shownTo = m_playhead ? secondsAsDouble(m_playhead->t) : 1e300;
    QColor firstColor = palette().color(QPalette::WindowText), retryColor = firstColor;
    firstColor.setAlphaF(0.2);
    retryColor.setAlphaF(0.55);
    for (std::size_t k = 0; k < b.first.size(); ++k) {
        const double t0 = double(b.from) / 1e9 + double(k) * width;
        if (t0 > shownTo)
            break;
        const double x0 = lane.left() + (t0 - from) * sx, x1 = x0 + width * sx - 1;
        const double h1 = double(b.first[k]) * sy, h2 = double(b.retries[k]) * sy;
        p->fillRect(QRectF(QPointF(x0, lane.bottom() - h1), QPointF(x1, lane.bottom())), firstColor);
        p->fillRect(QRectF(QPointF(x0, lane.bottom() - h1 - h2), QPointF(x1, lane.bottom() - h1)), retryColor);
    }
}

void RowChart::drawLaneAxis(QPainter* p, const ServerLane& lane) const
{
    // The lane's baseline, its 0 and its top on the left axis, and its name inside it at the
    // top left on the background (what is drawn under it shows on both sides).
    const QFont small = smallFont();
    const QFontMetricsF fm(small);
    const QRectF& r = lane.rect;
    p->save();
    p->setFont(small);
    p->setPen(QPen(palette().color(QPalette::Mid), 1));
    p->drawLine(QPointF(r.left(), r.bottom()), QPointF(r.right(), r.bottom()));
    p->setPen(palette().color(QPalette::PlaceholderText));
    const auto label = [&](double v, double y) {
        p->drawText(QRectF(0, y - fm.height() / 2, r.left() - 5, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                    QLocale().toString(v, 'g', 4) + lane.unit);
    };
    // The top inside the lane (never beside the one above), and 0, unless the limit's own label
    // is as near: the limit is what the lane is read against.
    const double markY = lane.marked ? r.bottom() - *lane.marked / lane.top * r.height() : -1e9;
    const double topY = r.top() + fm.height() / 2 - 1, zeroY = r.bottom() - fm.height() / 2 + 1;
    if (std::abs(markY - topY) >= fm.height())
        label(lane.top, topY);
    if (r.height() >= 2.2 * fm.height() && std::abs(markY - zeroY) >= fm.height())
        label(0, zeroY);
    if (lane.marked) {
        QFont bold = small;
        bold.setBold(true);
        p->setFont(bold);
        p->setPen(palette().color(QPalette::WindowText));
        // Inside the lane, or at its top when the lane is shorter than the label (a row of many lanes
        // on a small screen): never a clamp whose bounds cross.
        const double highest = r.top() + fm.height() / 2;
        label(*lane.marked, std::clamp(markY, highest, std::max(highest, r.bottom() - fm.height() / 2)));
        p->setFont(small);
    }
    const QRectF caption(r.left() + 3, r.top(), fm.horizontalAdvance(lane.name) + 6, fm.height());
    QColor under = palette().color(QPalette::Base);
    under.setAlphaF(0.85);
    p->fillRect(caption, under);
    p->setPen(palette().color(QPalette::WindowText));
    p->drawText(caption, Qt::AlignCenter, lane.name);
    p->restore();
}

} // namespace ratelab::ui
