// RowChart's lanes: each measure with its own named axis from 0 to a round top (ServerLane,
// painted by lane_layers.h). A concurrency limiter's row stacks its measures in the plot (serverLanes); a row
// with a level plot has its server's latency and goodput and its clients' attempts a second in
// lanes under it (lanesBelow). One scale shared by a latency, a rate and a count would read as
// one measure.
#include "chart/rowchart.h"
#include "chart/lane_layers.h"
#include "chart/summarytable.h"
#include "chart/theme.h"

#include "chart/ticks.h"

#include <QFontMetricsF>
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

LaneTime RowChart::laneTime() const
{
    return {secondsAsDouble(m_range.from), secondsAsDouble(m_range.to), m_playhead ? secondsAsDouble(m_playhead->t) : 1e300};
}

std::vector<LaneLabel> RowChart::laneLabels(const ServerLane& lane) const { return layOutLaneLabels(lane, smallFont(), m_veiled); }

void RowChart::drawLanesBelow(QPainter* p) const
{
    // Under the level plot, the time axis's grid lines going on through each lane; veiled,
    // their names and baselines only (laneLabels): what they measure would answer the question.
    const std::vector<ServerLane> lanes = lanesBelow();
    const QColor mid = palette().color(QPalette::Mid);
    for (const ServerLane& lane : lanes) {
        const QRectF& r = lane.rect;
        const std::vector<LaneLabel> labels = laneLabels(lane);
        p->save();
        p->setRenderHint(QPainter::Antialiasing, false); // the chart's own grid lines are aliased
        paintTimeGrid(*p, area(), r, m_timeAxis->tickInterval(), mid);
        paintLaneGrid(*p, lane, labels, mid);
        if (!m_veiled) {
            p->setClipRect(QRectF(r.topLeft(), QPointF(std::min(r.right(), visibleRight()), r.bottom())));
            drawMeasure(p, lane);
        }
        p->restore();
        paintLaneAxis(*p, lane, labels, smallFont(), laneInk());
    }
}

void RowChart::drawServerLanes(QPainter* p) const
{
    const std::vector<ServerLane> lanes = serverLanes();
    const QRectF p0 = plot();
    p->save();
    for (const ServerLane& lane : lanes)
        paintLaneGrid(*p, lane, laneLabels(lane), palette().color(QPalette::Mid));
    p->setClipRect(QRectF(QPointF(p0.left(), p0.top()), QPointF(std::min(p0.right(), visibleRight()), p0.bottom())));
    for (const ServerLane& lane : lanes)
        drawMeasure(p, lane);
    p->restore();
    for (const ServerLane& lane : lanes)
        paintLaneAxis(*p, lane, laneLabels(lane), smallFont(), laneInk());
}

LaneInk RowChart::laneInk() const
{
    return {palette().color(QPalette::Mid), palette().color(QPalette::Base), palette().color(QPalette::WindowText),
            palette().color(QPalette::PlaceholderText)};
}

void RowChart::drawMeasure(QPainter* p, const ServerLane& lane) const
{
    using Measure = ServerLane::Measure;
    const QColor ink = palette().color(QPalette::WindowText);
    switch (lane.measure) {
    case Measure::InServer: paintInSystem(*p, lane, laneTime(), m_inSystemLine, m_limitLine, levelColor(), ink); return;
    case Measure::Attempts:
        paintAttemptBars(*p, lane, laneTime(), *m_attemptRates, attemptColor(false, palette()), attemptColor(true, palette()));
        return;
    case Measure::Latency:
    case Measure::Goodput:
        paintServed(*p, lane, laneTime(), *m_served, lane.measure == Measure::Latency, outcomeColor(Outcome::InTime, palette()), ink);
        return;
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

} // namespace ratelab::ui
