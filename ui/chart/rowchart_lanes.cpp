// RowChart's lanes: each measure with its own named axis from 0 to a round top (rowchart.h,
// ServerLane). A concurrency limiter's row stacks its measures in the plot (serverLanes); a row
// with a level plot has its server's latency and goodput and its clients' attempts a second in
// lanes under it (lanesBelow). One scale shared by a latency, a rate and a count would read as
// one measure.
#include "chart/rowchart.h"
#include "chart/served_paint.h"
#include "chart/summarytable.h"
#include "chart/theme.h"

#include "chart/ticks.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QValueAxis>

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

RowChart::ServerLane RowChart::laneOf(ServerLane::Measure measure) const
{
    using Measure = ServerLane::Measure;
    switch (measure) {
    case Measure::InServer: {
        std::int64_t inSystem = 1;
        for (const QList<QPointF>* line : {&m_inSystemLine, &m_limitLine})
            for (const QPointF& q : *line)
                inSystem = std::max(inSystem, std::int64_t(q.y()));
        ServerLane lane{measure, tr("in the server (requests)"), QString(), niceCeiling(double(inSystem) * 1.05), {}, {}};
        lane.whole = true;
        if (!m_limitLine.isEmpty()) { // an unlimited row ("none") has no limit to draw
            lane.name = tr("in the server (requests), line: the limit");
            lane.marked = m_limitLine.back().y();
        }
        return lane;
    }
    case Measure::Latency: {
        Nanos slowest = 0;
        for (Nanos v : m_served->p99)
            slowest = std::max(slowest, v);
        return {measure, tr("latency p50 to p99 (s)"), tr(" s"), niceCeiling(double(slowest) / 1e9 * 1.05), {}, {}};
    }
    case Measure::Goodput: {
        ServerLane lane{measure, tr("goodput: served in time (req/s)"), tr("/s"),
                        niceCeiling(perSecondPeak(m_served->inTime, m_served->widthNanos) * 1.05), {}, {}};
        // A lesson about clients' shares (APF, a noisy tenant) is read off the picture: each
        // client's requests served in time, of its requests, beside the goodput they make up;
        // not while veiled, as they are the answer.
        const ServerView& view = *m_frame->extras[m_row].server;
        if (const QString shares = SummaryTable::inTimeByClient(view.byClient); !shares.isEmpty() && !m_veiled)
            lane.name += tr(" · in time by client: %1").arg(shares);
        return lane;
    }
    case Measure::Attempts: break;
    }
    std::vector<std::int64_t> all(m_attemptRates->first.size());
    for (std::size_t k = 0; k < all.size(); ++k)
        all[k] = m_attemptRates->first[k] + m_attemptRates->retries[k];
    return {measure, tr("attempts (req/s): first faint, retries strong on top"), tr("/s"),
            niceCeiling(perSecondPeak(all, m_attemptRates->widthNanos) * 1.05), {}, {}};
}

std::vector<RowChart::ServerLane> RowChart::serverLanes() const
{
    std::vector<ServerLane> lanes;
    for (ServerLane::Measure m : measuresInPlot())
        lanes.push_back(laneOf(m));
    if (lanes.empty())
        return lanes;
    // Equal bands with half a caption's height between them.
    const QRectF p0 = plot();
    const double gap = inPlotLaneGap();
    const double h = std::max(1.0, (p0.height() - gap * double(lanes.size() - 1)) / double(lanes.size()));
    for (std::size_t k = 0; k < lanes.size(); ++k)
        lanes[k].rect = QRectF(p0.left(), p0.top() + double(k) * (h + gap), p0.width(), h);
    return lanes;
}

std::vector<RowChart::ServerLane::Measure> RowChart::measuresInPlot() const
{
    using Measure = ServerLane::Measure;
    std::vector<Measure> measures;
    if (!m_served || !m_gateRow)
        return measures;
    measures = {Measure::InServer, Measure::Latency, Measure::Goodput};
    if (m_attemptRates)
        measures.push_back(Measure::Attempts);
    return measures;
}

double RowChart::inPlotLaneGap() const { return QFontMetricsF(smallFont()).height() * 0.5; }

int RowChart::leastLaneHeight() const { return int(std::ceil(QFontMetricsF(smallFont()).height() * 2.6)); }

std::vector<RowChart::ServerLane::Measure> RowChart::measuresBelow() const
{
    std::vector<ServerLane::Measure> measures;
    if (m_gateRow) // its measures are lanes of its plot (serverLanes)
        return measures;
    if (m_served) { // a server behind the rate limiter: in the order of a concurrency limiter's lanes
        measures.push_back(ServerLane::Measure::Latency);
        measures.push_back(ServerLane::Measure::Goodput);
    }
    if (m_attemptRates)
        measures.push_back(ServerLane::Measure::Attempts);
    return measures;
}

int RowChart::laneBelowGap() const { return QFontMetrics(font()).height() / 2 + 3; }

std::vector<RowChart::ServerLane> RowChart::lanesBelow() const
{
    std::vector<ServerLane> lanes;
    if (m_laneBelowHeight <= 0)
        return lanes;
    const QRectF p0 = plot();
    double top = p0.bottom();
    for (ServerLane::Measure m : measuresBelow()) {
        lanes.push_back(laneOf(m));
        lanes.back().rect = QRectF(p0.left(), top + laneBelowGap(), p0.width(), m_laneBelowHeight);
        top = lanes.back().rect.bottom();
    }
    return lanes;
}

std::optional<RowChart::ServerLane> RowChart::attemptsLane() const
{
    for (const ServerLane& lane : lanesBelow())
        if (lane.measure == ServerLane::Measure::Attempts)
            return lane;
    return std::nullopt;
}

double RowChart::timeBottom() const
{
    const double lanes = m_laneBelowHeight > 0 ? double(measuresBelow().size()) : 0.0;
    return plot().bottom() + lanes * (laneBelowGap() + m_laneBelowHeight);
}

void RowChart::drawLanesBelow(QPainter* p) const
{
    // Under the level plot, the time axis's grid lines going on through each lane; veiled,
    // their names and baselines only (laneLabels): what they measure would answer the question.
    const std::vector<ServerLane> lanes = lanesBelow();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to), step = m_timeAxis->tickInterval();
    for (const ServerLane& lane : lanes) {
        const QRectF& r = lane.rect;
        p->save();
        p->setRenderHint(QPainter::Antialiasing, false); // the chart's own grid lines are aliased
        p->setPen(QPen(palette().color(QPalette::Mid), 1));
        if (step > 0 && (to - from) / step < 1000)
            for (double t = std::ceil(from / step) * step; t <= to; t += step)
                p->drawLine(QPointF(std::round(xOf(t)), r.top()), QPointF(std::round(xOf(t)), r.bottom()));
        drawLaneGrid(p, lane);
        if (!m_veiled) {
            p->setClipRect(QRectF(r.topLeft(), QPointF(std::min(r.right(), visibleRight()), r.bottom())));
            drawMeasure(p, lane);
        }
        p->restore();
        drawLaneAxis(p, lane);
    }
}

void RowChart::drawServerLanes(QPainter* p) const
{
    const std::vector<ServerLane> lanes = serverLanes();
    const QRectF p0 = plot();
    p->save();
    for (const ServerLane& lane : lanes)
        drawLaneGrid(p, lane);
    p->setClipRect(QRectF(QPointF(p0.left(), p0.top()), QPointF(std::min(p0.right(), visibleRight()), p0.bottom())));
    for (const ServerLane& lane : lanes)
        drawMeasure(p, lane);
    p->restore();
    for (const ServerLane& lane : lanes)
        drawLaneAxis(p, lane);
}

void RowChart::drawMeasure(QPainter* p, const ServerLane& lane) const
{
    using Measure = ServerLane::Measure;
    const QRectF& r = lane.rect;
    switch (lane.measure) {
    case Measure::InServer: drawInSystem(p, r, lane.top); return;
    case Measure::Attempts: drawAttemptBars(p, r, lane.top); return;
    case Measure::Latency:
    case Measure::Goodput: break;
    }
    // The latency band (p50 to p99, a tick at p50) or the goodput bars, each bucket's.
    const ServedBuckets& b = *m_served;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double shownTo = m_playhead ? secondsAsDouble(m_playhead->t) : 1e300, width = double(b.widthNanos) / 1e9;
    const bool latency = lane.measure == Measure::Latency;
    QColor band = palette().color(QPalette::WindowText);
    band.setAlphaF(0.3);
    paintServedBuckets(
        p, b,
        {r.left(), from, r.width() / (to - from), shownTo, r.bottom(), !latency, latency,
         outcomeColor(Outcome::InTime, palette()), band, palette().color(QPalette::WindowText)},
        [&](std::size_t k) { return r.bottom() - double(b.inTime[k]) / width / lane.top * r.height(); },
        [&](Nanos v) { return r.bottom() - double(v) / 1e9 / lane.top * r.height(); });
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
    // First attempts faint, the retries stacked on them strong (attemptColor).
    const AttemptBuckets& b = *m_attemptRates;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = lane.width() / (to - from), width = double(b.widthNanos) / 1e9;
    const double sy = lane.height() / top / width; // pixels per attempt in a bucket
    const double shownTo = m_playhead ? secondsAsDouble(m_playhead->t) : 1e300;
    const QColor firstColor = attemptColor(false, palette()), retryColor = attemptColor(true, palette());
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

QColor RowChart::attemptColor(bool retry, const QPalette& palette)
{
    // Greys, as no outcome is meant, each at 3:1 on the plot and the retries at 3:1 on the first
    // attempts they stand on (tst_palette): "faint" and "strong" read the same in both themes,
    // the retries the further from the background.
    if (isDark(palette))
        return retry ? QColor(0xd1, 0xd5, 0xdb) : QColor(0x6b, 0x72, 0x80);
    return retry ? QColor(0x33, 0x33, 0x33) : QColor(0x87, 0x87, 0x87);
}

std::vector<RowChart::LaneLabel> RowChart::laneLabels(const ServerLane& lane) const
{
    // Each label clear of those before it by a quarter of a line: the limit first (the lane is
    // read against it), then the top inside the lane (never beside the lane above), 0, and round
    // ticks between, about a label and a half apart, those that keep clear of every other label
    // ("10 in the server" and a limit falling 31, 15, 7, 3 are read off the axis, not only 0 and
    // the top). Labels that only touch read as one number ("300" on "200").
    const QFontMetricsF fm(smallFont());
    const double h = fm.height();
    const QRectF& r = lane.rect;
    const auto yOf = [&](double v) { return r.bottom() - v / lane.top * r.height(); };
    const auto at = [&](double y) { return QRectF(0, y - h / 2, std::max(0.0, r.left() - 5), h); };
    const auto text = [&](double v) { return QLocale().toString(v, 'g', 4) + lane.unit; };
    std::vector<LaneLabel> labels;
    const LaneLabel caption{LaneLabel::Caption, 0, lane.name, QRectF(r.left() + 3, r.top(), fm.horizontalAdvance(lane.name) + 6, h)};
    if (m_veiled)
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

void RowChart::drawLaneGrid(QPainter* p, const ServerLane& lane) const
{
    // A faint line across the lane at each labelled tick, under what the lane draws.
    QColor grid = palette().color(QPalette::Mid);
    grid.setAlphaF(0.5);
    p->setPen(QPen(grid, 1));
    const QRectF& r = lane.rect;
    for (const LaneLabel& l : laneLabels(lane))
        if (l.kind == LaneLabel::Tick) {
            const double y = std::round(r.bottom() - l.value / lane.top * r.height()) + 0.5;
            p->drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
        }
}

void RowChart::drawLaneAxis(QPainter* p, const ServerLane& lane) const
{
    // The lane's baseline, its axis's labels, and its name inside it at the top left on the
    // background (what is drawn under it shows on both sides).
    const QFont small = smallFont();
    QFont bold = small;
    bold.setBold(true);
    const QRectF& r = lane.rect;
    p->save();
    p->setPen(QPen(palette().color(QPalette::Mid), 1));
    p->drawLine(QPointF(r.left(), r.bottom()), QPointF(r.right(), r.bottom()));
    QColor under = palette().color(QPalette::Base);
    under.setAlphaF(0.85);
    for (const LaneLabel& l : laneLabels(lane)) {
        p->setFont(l.kind == LaneLabel::Marked ? bold : small);
        if (l.kind == LaneLabel::Caption) {
            p->fillRect(l.box, under);
            p->setPen(palette().color(QPalette::WindowText));
            p->drawText(l.box, Qt::AlignCenter, l.text);
        } else {
            p->setPen(palette().color(l.kind == LaneLabel::Marked ? QPalette::WindowText : QPalette::PlaceholderText));
            p->drawText(l.box, Qt::AlignRight | Qt::AlignVCenter, l.text);
        }
    }
    p->restore();
}

} // namespace ratelab::ui
