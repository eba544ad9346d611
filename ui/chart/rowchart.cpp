// RowChart: one algorithm's row of the dashboard, a chart view that takes a frame, its axes, margins
// and palette; its painting, strip and pointer handling live in rowchart_*.cpp.
#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/headers.h"
#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"

#include "arithmetic/decimal.h"
#include "chart/ticks.h"
#include "chart/timeaxis.h"

#include <QGraphicsLayout>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

QColor RowChart::levelColor() const
{
    return palette().color(QPalette::Base).lightness() < 128 ? QColor(0x60, 0xa5, 0xfa) : QColor(0x25, 0x63, 0xeb);
}

void RowChart::applyPalette()
{
    const QPalette pal = palette();
    chart()->setBackgroundBrush(pal.color(QPalette::Base));
    chart()->setBackgroundPen(Qt::NoPen);
    m_timeAxis->setGridLineColor(pal.color(QPalette::Mid));
    m_levelAxis->setGridLineColor(pal.color(QPalette::Mid));
    m_timeAxis->setLinePenColor(pal.color(QPalette::Mid));
    m_levelAxis->setLinePenColor(pal.color(QPalette::Mid));
    QPen dashed(pal.color(QPalette::PlaceholderText), 1.2, Qt::DashLine);
    m_ceiling->setPen(dashed);
}

void RowChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    if (event->type() == QEvent::FontChange)
        updateMargins();
}

int RowChart::headerHeight() const { return int(std::ceil(QFontMetricsF(font()).height() * m_headerLines)) + 2; }

int RowChart::laneHeight() const { return std::max(10, int(std::lround(QFontMetrics(font()).height() * 0.72))); }

void RowChart::updateMargins()
{
    // Room on the left for the widest level label ("1,000 s"), above for the header and strip,
    // below for half a label's height (the 0 label is centred on the plot's bottom edge).
    const QFontMetrics fm(font());
    QMargins margins(fm.horizontalAdvance("00,000 s") + 8, 0, rightMargin(), fm.height() / 2 + 2);
    if (chart()->margins().left() != margins.left() || chart()->margins().right() != margins.right())
        chart()->setMargins(QMargins(margins.left(), chart()->margins().top(), margins.right(), margins.bottom())); // the header's width
    m_headerLines = 1;
    if (m_frame->trace && !m_frame->rows.empty())
        m_headerLines = std::max(header().lines, layOutHeader(title(), legendTextAs(false), countsTextAs(false, false)).lines);
    if (m_frame->trace && !m_frame->rows.empty() && m_askedFrame.lock() == m_frame)
        m_headerLines = std::max(m_headerLines, layOutHeader(title(), legendTextAs(true), countsTextAs(false, true)).lines);
    margins.setTop(headerHeight() + stripHeight());
    // The lanes under the level plot (lanesBelow) each take as much room as half the plot (a
    // third of the room for one lane, a quarter each for two, a fifth for three), and are tall
    // enough for their top, their 0 and their name; so are a concurrency limiter's lanes in its
    // plot, or a row of them squeezed by the others would read as captions over each other.
    const int leastLane = leastLaneHeight();
    const auto inPlot = double(measuresInPlot().size());
    const int leastPlot = std::max(m_minimumPlotHeight, int(std::ceil(inPlot * leastLane + std::max(0.0, inPlot - 1) * inPlotLaneGap())));
    const int lanes = int(measuresBelow().size());
    const int room = int(chart()->size().height()) - margins.top() - margins.bottom() - lanes * laneBelowGap();
    m_laneBelowHeight = lanes > 0 ? std::max(leastLane, room / (lanes + 2)) : 0;
    margins.setBottom(margins.bottom() + lanes * (laneBelowGap() + m_laneBelowHeight));
    if (chart()->margins() != margins)
        chart()->setMargins(margins);
    setMinimumHeight(headerHeight() + stripHeight() + leastPlot + fm.height() / 2 + 4
                     + lanes * (laneBelowGap() + leastLane));
}

void RowChart::setMinimumPlotHeight(int pixels)
{
    m_minimumPlotHeight = pixels;
    updateMargins();
}

RowChart::RowChart(QWidget* parent)
    : QChartView(new QChart, parent) // our chart from the start: setChart would orphan a default one
    , m_frame(std::make_shared<const Frame>())
    , m_ceiling(new QLineSeries)
    , m_timeAxis(new QValueAxis)
    , m_levelAxis(new QValueAxis)
{
    QChart* c = chart();
    c->legend()->hide();
    c->setBackgroundRoundness(0);
    c->layout()->setContentsMargins(0, 0, 0, 0);
    c->addSeries(m_ceiling);
    // Axis labels are painted by this class and by TimeAxis, so every row's plot area has the
    // same left and right edge and the rows share one time axis to the pixel.
    m_timeAxis->setLabelsVisible(false);
    m_timeAxis->setTickType(QValueAxis::TicksDynamic);
    m_timeAxis->setTickAnchor(0);
    m_levelAxis->setLabelsVisible(false);
    m_levelAxis->setTickCount(3);
    c->addAxis(m_timeAxis, Qt::AlignBottom);
    c->addAxis(m_levelAxis, Qt::AlignLeft);
    m_ceiling->attachAxis(m_timeAxis);
    m_ceiling->attachAxis(m_levelAxis);
    updateMargins();

    applyPalette();
    // The chart's own items are axis-parallel lines (grid, axes, the dashed ceiling): aliased,
    // they are crisp and drawn on the raster engine's fast path (antialiased, they cost a tenth
    // of a frame's paint). drawForeground antialiases what it draws itself.
    setRenderHint(QPainter::Antialiasing, false);
    setMouseTracking(true);
    setMinimumPlotHeight(8);
}

Algorithm RowChart::algorithm() const
{
    return m_frame->trace ? m_frame->trace->results.at(m_row).algorithm : Algorithm::FixedWindow;
}

QString RowChart::ceilingName() const
{
    return m_quotaLimit ? QStringLiteral("quota_limit") : QString::fromUtf8(facts(algorithm()).ceilingName.data());
}

double RowChart::levelCeiling() const
{
    return m_ceilingSteps.empty() ? facts(algorithm()).ceiling(m_frame->trace->config) : m_ceilingSteps.back().second;
}

void RowChart::buildCeilingSteps(const Frame& frame)
{
    // The ceiling in force from the view's start, then from each limit change in view (a layered
    // row's first layer keeps its own configuration: its line stays).
    const double from = secondsAsDouble(frame.range.from), to = secondsAsDouble(frame.range.to);
    const AlgorithmTrace& result = frame.trace->results.at(m_row);
    const auto ceilingOf = [&](const LimiterConfig& c) { return facts(result.algorithm).ceiling(c); };
    m_ceilingSteps = {{from, ceilingOf(frame.trace->config)}};
    if (!frame.scenario || frame.scenario->changes.empty() || result.kind.layered)
        return;
    for (const auto& [at, config] : changedConfigs(frame.trace->config, frame.scenario->changes)) {
        const double t = secondsAsDouble(at);
        if (t <= from)
            m_ceilingSteps.front().second = ceilingOf(config);
        else if (t < to)
            m_ceilingSteps.emplace_back(t, ceilingOf(config));
    }
}

double RowChart::buildLevelPoints(const Frame& frame, const ReducedRow& r)
{
    m_levelPoints.clear();
    m_levelPoints.reserve(qsizetype(r.levelPoints.size()));
    buildCeilingSteps(frame);
    double top = 0;
    for (const auto& step : m_ceilingSteps)
        top = std::max(top, step.second);
    for (const LevelPoint& p : r.levelPoints) {
        m_levelPoints.append(QPointF(p.seconds, p.level));
        top = std::max(top, p.level);
    }
    return top;
}

void RowChart::showCeiling(double to)
{
    QList<QPointF> ceiling; // a step at each limit change
    for (std::size_t k = 0; k < m_ceilingSteps.size(); ++k) {
        const auto [t, v] = m_ceilingSteps[k];
        ceiling << QPointF(t, v) << QPointF(k + 1 < m_ceilingSteps.size() ? m_ceilingSteps[k + 1].first : to, v);
    }
    if (m_ceiling->points() != ceiling)
        m_ceiling->replace(ceiling);
}

void RowChart::buildDepartures(const Frame& frame, const ReducedRow& r)
{
    // A queue's departures, when every visible request has its own mark: each delayed
    // request's decision is replayed once a frame (not once a paint). Whether the marks are
    // exact is asked of the columns the frame was reduced to, not of this widget's plot: a row
    // made for this frame (the queue's, new with a deck's step) is not laid out yet, and its
    // plot's few pixels would drop the departures until the next frame, which a step reached
    // with the keys, its window unchanged, never gets.
    m_departures.clear();
    if (facts(algorithm()).reads == ConfigUse::CapacityRate && r.endRequest - r.firstRequest <= r.columns.size() / 3
        && !frame.trace->results.at(m_row).kind.attempts) {
        const AlgorithmTrace& result = frame.trace->results.at(m_row);
        for (std::size_t i = r.firstRequest; i < r.endRequest; ++i)
            if (verdictAt(result, i) == Verdict::Delayed)
                m_departures.emplace_back(i, frame.trace->arrivals[i] + ratelab::decisionAt(*frame.trace, m_row, i).delay);
    }
}

void RowChart::setFrame(std::shared_ptr<const Frame> shared, std::size_t row)
{
    m_frame = std::move(shared);
    if (m_veiled)
        m_askedFrame = m_frame;
    const Frame& frame = *m_frame;
    m_row = row;
    const bool thousandths = std::any_of(frame.trace->results.begin(), frame.trace->results.end(),
                                         [](const AlgorithmTrace& r) { return r.algorithm == Algorithm::NginxLimitReq; });
    if (thousandths != m_thousandthsRoom) {
        m_thousandthsRoom = thousandths;
        updateMargins();
    }
    const ReducedRow& r = frame.rows.at(row);
    double top = buildLevelPoints(frame, r);
    if (buildQuota(frame)) { // the quota counter and its limit replace the tokens and the burst
        top = m_ceilingSteps.front().second;
        for (const QPointF& q : m_levelPoints)
            top = std::max(top, q.y());
    }
    buildBlockSpans();
    // Qt Charts relays out a chart on every change, even to the same value: change only what
    // changed (a slider drag mostly keeps the axes where they were).
    showCeiling(secondsAsDouble(frame.range.to));
    const double levelTop = niceCeiling(top * 1.05);
    if (m_levelAxis->min() != 0 || m_levelAxis->max() != levelTop)
        m_levelAxis->setRange(0, levelTop);
    buildDepartures(frame, r);
    buildNginxWater();
    buildKeyLines();
    buildServer();
    for (const KeyLine& line : m_keyLines)
        for (const QPointF& q : line.points)
            top = std::max(top, q.y());
    if (!m_keyLines.empty() && m_levelAxis->max() < niceCeiling(top * 1.05))
        m_levelAxis->setRange(0, niceCeiling(top * 1.05));
    computeBound();
    if (!m_nginxWater.empty()) // room for a whole request of water over the burst
        for (const QPointF& w : m_nginxWater)
            top = std::max(top, w.y() / 1000.0);
    const double nginxTop = niceCeiling(top * 1.05);
    if (!m_nginxWater.empty() && m_levelAxis->max() < nginxTop)
        m_levelAxis->setRange(0, nginxTop);
    updateMargins(); // the header's texts are this frame's
    previewRange(frame.range);
}

void RowChart::previewRange(TimeRange range)
{
    m_range = range;
    const double from = secondsAsDouble(range.from), to = secondsAsDouble(range.to);
    const int ticks = std::max(2, plotColumns() / 110);
    const bool calendar = m_frame->scenario && calendarTime(*m_frame->scenario); // as the time axis
    const double step = timeStep(to - from, ticks, calendar);
    if (m_timeAxis->min() != from || m_timeAxis->max() != to || m_timeAxis->tickInterval() != step) {
        // Widen the tick interval before moving the range: the axis builds a grid line per tick
        // at once, and the old interval over a much longer new range would be millions of them.
        m_timeAxis->setTickInterval(1e300);
        m_timeAxis->setRange(from, to);
        // The step of the range the axis holds: one it refuses (reversed) leaves the old span,
        // where a step made for another would be as many grid lines.
        m_timeAxis->setTickInterval(timeStep(m_timeAxis->max() - m_timeAxis->min(), ticks, calendar));
    }
    viewport()->update();
}

void RowChart::setCounts(const Counts& counts, bool partial)
{
    m_counts = counts;
    m_partialCounts = partial;
    updateMargins(); // the counts may take another line
    viewport()->update();
}

void RowChart::setPlayhead(std::optional<Playhead> playhead)
{
    if (playhead == m_playhead)
        return;
    m_playhead = playhead;
    viewport()->update();
}

std::size_t RowChart::shownEnd() const
{
    const ReducedRow& r = m_frame->rows.at(m_row);
    if (!m_playhead)
        return r.endRequest;
    return std::clamp(rowShown(*m_frame->trace, m_row, m_playhead->shown), r.firstRequest, r.endRequest);
}

double RowChart::visibleRight() const
{
    const QRectF p0 = plot();
    if (!m_playhead || m_playhead->t >= m_range.to)
        return p0.right() + 6;
    return std::clamp(xOf(secondsAsDouble(m_playhead->t)), p0.left() - 6, p0.right() + 6);
}

QRectF RowChart::plot() const { return chart()->plotArea(); }

RowArea RowChart::area() const
{
    const QRectF p0 = plot();
    return {p0, p0.top() - stripHeight(), timeBottom(), m_range.from, m_range.to};
}

QRectF RowChart::plotRect() const { return mapFromScene(plot()).boundingRect(); }

int RowChart::plotColumns() const { return std::max(1, int(std::lround(plot().width()))); }

double RowChart::xOf(double s) const { return RowArea{plot(), 0, 0, m_range.from, m_range.to}.xOf(s); }

double RowChart::laneY(Lane lane) const
{
    const double top = plot().top() - stripHeight();
    return top + (int(lane) + 0.5) * laneHeight();
}

RowChart::Lane RowChart::laneOf(Verdict v) const
{
    if (m_veiled) // one lane for all: where a mark is would tell its verdict
        return Lane::Delayed;
    return v == Verdict::Denied ? Lane::Denied : v == Verdict::Delayed ? Lane::Delayed : Lane::Admitted;
}

bool RowChart::exactMarks() const
{
    if (!m_frame->trace || m_frame->rows.empty())
        return true;
    const ReducedRow& r = m_frame->rows.at(m_row);
    const auto most = std::size_t(plotColumns() / 3);
    const std::vector<std::int64_t>& previous = m_frame->trace->results.at(m_row).previousAttempt;
    if (!m_veiled || previous.empty())
        return r.endRequest - r.firstRequest <= most;
    // Veiled, a row of clients draws only its first attempts (drawStrip): how many retries there
    // are must not decide how the strip looks either.
    std::size_t firsts = 0;
    for (std::size_t i = r.firstRequest; i < r.endRequest && firsts <= most; ++i)
        firsts += previous[i] < 0 ? 1 : 0;
    return firsts <= most;
}


void RowChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    updateMargins(); // the header's texts may take more lines, or fewer
    viewport()->update();
}

void RowChart::setVeiled(bool veiled)
{
    if (veiled == m_veiled)
        return;
    m_veiled = veiled;
    if (veiled)
        m_askedFrame = m_frame;
    updateMargins();
    viewport()->update();
}

QColor RowChart::veiledColor() { return QColor(0x8a, 0x8f, 0x98); }

} // namespace ratelab::ui
