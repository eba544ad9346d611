#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/headers.h"
#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"

#include "arithmetic/decimal.h"
#include "chart/ticks.h"

#include <QGraphicsLayout>
#include <QLineSeries>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

constexpr double kHoverPixels = 6;

QString seconds(Nanos t) { return QString::fromStdString(formatSeconds(t)) + " s"; }

} // namespace

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

int RowChart::headerHeight() const { return QFontMetrics(font()).height() + 2; }

int RowChart::laneHeight() const { return std::max(10, int(std::lround(QFontMetrics(font()).height() * 0.72))); }

void RowChart::updateMargins()
{
    // Room on the left for the widest level label ("1,000 s"), above for the header and strip,
    // below for half a label's height (the 0 label is centred on the plot's bottom edge).
    const QFontMetrics fm(font());
    chart()->setMargins(QMargins(fm.horizontalAdvance("00,000 s") + 8, headerHeight() + stripHeight(), rightMargin(), fm.height() / 2 + 2));
    setMinimumHeight(headerHeight() + stripHeight() + m_minimumPlotHeight + fm.height() / 2 + 4);
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

QString RowChart::ceilingName() const { return QString::fromUtf8(facts(algorithm()).ceilingName.data()); }

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

void RowChart::setFrame(std::shared_ptr<const Frame> shared, std::size_t row)
{
    m_frame = std::move(shared);
    const Frame& frame = *m_frame;
    m_row = row;
    const bool thousandths = std::any_of(frame.trace->results.begin(), frame.trace->results.end(),
                                         [](const AlgorithmTrace& r) { return r.algorithm == Algorithm::NginxLimitReq; });
    if (thousandths != m_thousandthsRoom) {
        m_thousandthsRoom = thousandths;
        updateMargins();
    }
    const ReducedRow& r = frame.rows.at(row);
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
    const double to = secondsAsDouble(frame.range.to);
    // Qt Charts relays out a chart on every change, even to the same value: change only what
    // changed (a slider drag mostly keeps the axes where they were).
    QList<QPointF> ceiling; // a step at each limit change
    for (std::size_t k = 0; k < m_ceilingSteps.size(); ++k) {
        const auto [t, v] = m_ceilingSteps[k];
        ceiling << QPointF(t, v) << QPointF(k + 1 < m_ceilingSteps.size() ? m_ceilingSteps[k + 1].first : to, v);
    }
    if (m_ceiling->points() != ceiling)
        m_ceiling->replace(ceiling);
    const double levelTop = niceCeiling(top * 1.05);
    if (m_levelAxis->min() != 0 || m_levelAxis->max() != levelTop)
        m_levelAxis->setRange(0, levelTop);
    // A queue's departures, when every visible request has its own mark: each delayed
    // request's decision is replayed once a frame (not once a paint).
    m_departures.clear();
    if (facts(algorithm()).reads == ConfigUse::CapacityRate && r.endRequest - r.firstRequest <= std::size_t(plotColumns() / 3)
        && !frame.trace->results.at(row).kind.attempts) {
        const AlgorithmTrace& result = frame.trace->results.at(row);
        for (std::size_t i = r.firstRequest; i < r.endRequest; ++i)
            if (verdictAt(result, i) == Verdict::Delayed)
                m_departures.emplace_back(i, frame.trace->arrivals[i] + ratelab::decisionAt(*frame.trace, row, i).delay);
    }
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
    previewRange(frame.range);
}

void RowChart::previewRange(TimeRange range)
{
    m_range = range;
    const double from = secondsAsDouble(range.from), to = secondsAsDouble(range.to);
    const int ticks = std::max(2, plotColumns() / 110);
    const double step = niceStep(to - from, ticks);
    if (m_timeAxis->min() != from || m_timeAxis->max() != to || m_timeAxis->tickInterval() != step) {
        // Widen the tick interval before moving the range: the axis builds a grid line per tick
        // at once, and the old interval over a much longer new range would be millions of them.
        m_timeAxis->setTickInterval(1e300);
        m_timeAxis->setRange(from, to);
        // The step of the range the axis holds: one it refuses (reversed) leaves the old span,
        // where a step made for another would be as many grid lines (issue 35).
        m_timeAxis->setTickInterval(niceStep(m_timeAxis->max() - m_timeAxis->min(), ticks));
    }
    viewport()->update();
}

void RowChart::setCounts(const Counts& counts, bool partial)
{
    m_counts = counts;
    m_partialCounts = partial;
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

QRectF RowChart::plotRect() const { return mapFromScene(plot()).boundingRect(); }

int RowChart::plotColumns() const { return std::max(1, int(std::lround(plot().width()))); }

double RowChart::xOf(double s) const
{
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const QRectF p = plot();
    return p.left() + (s - from) / (to - from) * p.width();
}

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
    return r.endRequest - r.firstRequest <= std::size_t(plotColumns() / 3);
}

QPointF RowChart::markPosition(std::size_t i) const
{
    const Verdict v = verdictAt(m_frame->trace->results.at(m_row), i);
    return mapFromScene(QPointF(xOf(secondsAsDouble(timesOf(*m_frame->trace, m_row).at(i))), laneY(laneOf(v))));
}

std::optional<std::size_t> RowChart::requestAt(QPointF pos) const
{
    const auto i = decisionAt(pos);
    return i ? std::optional<std::size_t>(requestOf(*m_frame->trace, m_row, *i)) : std::nullopt;
}

std::optional<std::size_t> RowChart::decisionAt(QPointF pos) const
{
    if (!m_frame->trace || timesOf(*m_frame->trace, m_row).empty())
        return std::nullopt;
    const QPointF scenePos = mapToScene(pos.toPoint());
    const QRectF p = plot();
    if (scenePos.x() < p.left() - kHoverPixels || scenePos.x() > p.right() + kHoverPixels)
        return std::nullopt;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double t = from + (scenePos.x() - p.left()) / p.width() * (to - from);
    const auto& arrivals = timesOf(*m_frame->trace, m_row);
    const auto at = std::lower_bound(arrivals.begin(), arrivals.end(), Nanos(std::llround(t * 1e9)));
    std::optional<std::size_t> best;
    double bestDistance = kHoverPixels;
    for (auto it : {at, at == arrivals.begin() ? at : at - 1}) {
        if (it == arrivals.end())
            continue;
        const double d = std::abs(xOf(secondsAsDouble(*it)) - scenePos.x());
        if (d <= bestDistance) {
            bestDistance = d;
            best = std::size_t(it - arrivals.begin());
        }
    }
    return best;
}

QString RowChart::hoverText(std::size_t i) const
{
    const Trace& trace = *m_frame->trace;
    const AlgorithmTrace& result = trace.results.at(m_row);
    const Decision d = ratelab::decisionAt(trace, m_row, i);
    const Nanos t = timesOf(trace, m_row).at(i);
    const std::size_t request = requestOf(trace, m_row, i);
    QString text = QString("%1\n%2, t = %3\n").arg(title(), requestName(trace, request), seconds(t));
    if (result.clients) {
        const LoggedAttempt& a = result.log->at(i);
        text += a.attempt == 0 ? QString("client %1, first attempt\n").arg(a.client)
                               : QString("client %1, retry %2\n").arg(a.client).arg(a.attempt);
    }
    if (result.kind.cluster)
        text += QString("node %1 of %2\n").arg(result.nodes.at(i) + 1).arg(result.perNodeAllowed.size());
    if (costOf(trace, request) != 1 && !result.kind.attempts)
        text += QString("cost %1\n").arg(costOf(trace, request));
    if (!d.allowed)
        text += d.retryNever() ? QString("denied, never admitted: it costs more than the quota")
                               : "denied, retry after " + seconds(d.retryAfter);
    else if (d.delay > 0)
        text += "admitted, delayed " + seconds(d.delay);
    else
        text += "admitted";
    text += QString("\nremaining at this instant: %1").arg(d.remaining);
    if (result.levelReplayable)
        text += QString("\n%1: %2 -> %3")
                    .arg(QString::fromUtf8(levelUnit(algorithm()).data()))
                    .arg(levelBefore(trace, m_row, i), 0, 'g', 6)
                    .arg(d.level, 0, 'g', 6);
    // What the client receives, as the server would send it.
    const std::vector<Header> headers = headersAt(trace, m_row, i);
    if (!headers.empty())
        text += "\n\n" + QString::fromStdString(httpResponse(d, headers));
    return text;
}

QString RowChart::title() const
{
    if (!m_frame->trace)
        return QString::fromUtf8(algorithmTitle(algorithm()).data());
    return titleOf(m_frame->trace->results.at(m_row));
}

QString RowChart::titleOf(const AlgorithmTrace& result)
{
    return QString::fromStdString(result.title.empty() ? std::string(algorithmTitle(result.algorithm)) : result.title);
}

void RowChart::wheelEvent(QWheelEvent* event)
{
    const QRectF p0 = plot();
    const QPointF s = mapToScene(event->position().toPoint());
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double anchor = from + (std::clamp(s.x(), p0.left(), p0.right()) - p0.left()) / p0.width() * (to - from);
    emit zoomRequested(anchor, std::pow(0.85, event->angleDelta().y() / 120.0));
    event->accept();
}

void RowChart::setPinned(std::optional<std::size_t> i)
{
    if (i == m_pinned)
        return;
    m_pinned = i;
    viewport()->update();
}

double RowChart::secondsAt(double sceneX) const
{
    const QRectF p0 = plot();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    return from + (std::clamp(sceneX, p0.left(), p0.right()) - p0.left()) / p0.width() * (to - from);
}

void RowChart::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_pressAt = event->position();
        if (event->modifiers() & Qt::ShiftModifier) { // Shift+drag: a box to zoom to
            m_boxFrom = m_boxTo = event->position();
        } else {
            m_dragFrom = event->position();
            setCursor(Qt::ClosedHandCursor);
        }
    }
    QChartView::mousePressEvent(event);
}

QString RowChart::badgeTip(QPointF pos) const
{
    for (const auto& [box, tip] : m_badgeTips)
        if (box.contains(pos))
            return tip;
    return {};
}

void RowChart::mouseMoveEvent(QMouseEvent* event)
{
    if (m_boxFrom) {
        m_boxTo = event->position();
        viewport()->update();
    } else if (m_dragFrom) {
        const double dx = event->position().x() - m_dragFrom->x();
        m_dragFrom = event->position();
        const double span = secondsAsDouble(m_range.to - m_range.from);
        emit panRequested(-dx / plot().width() * span);
    } else if (const auto i = decisionAt(event->position()); i && !m_veiled) {
        QToolTip::showText(event->globalPosition().toPoint(), hoverText(*i), this);
    } else if (const QString tip = badgeTip(event->position()); !tip.isEmpty()) {
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    } else if (headerRect().contains(event->position()) && headerTexts() != std::pair(title(), countsText())) {
        QToolTip::showText(event->globalPosition().toPoint(), title() + "\n" + countsText(), this); // elided: the whole
    } else {
        QToolTip::hideText();
    }
    QChartView::mouseMoveEvent(event);
}

void RowChart::mouseReleaseEvent(QMouseEvent* event)
{
    const bool click = m_pressAt && QLineF(*m_pressAt, event->position()).length() < 4;
    if (m_boxFrom && !click) {
        const double a = secondsAt(mapToScene(m_boxFrom->toPoint()).x());
        const double b = secondsAt(mapToScene(event->position().toPoint()).x());
        emit spanSelected(std::min(a, b), std::max(a, b));
    } else if (click && event->button() == Qt::LeftButton) {
        emit requestClicked(requestAt(event->position()));
    }
    m_dragFrom.reset();
    m_pressAt.reset();
    m_boxFrom.reset();
    m_boxTo.reset();
    unsetCursor();
    viewport()->update();
    QChartView::mouseReleaseEvent(event);
}

void RowChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    viewport()->update();
}

void RowChart::setVeiled(bool veiled)
{
    if (veiled == m_veiled)
        return;
    m_veiled = veiled;
    viewport()->update();
}

QColor RowChart::veiledColor() { return QColor(0x8a, 0x8f, 0x98); }

} // namespace ratelab::ui
