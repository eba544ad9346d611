// RowChart under the pointer: which decision a mark is, its hover text and the badges' tips, and
// what the wheel, a click, a drag and a release do (zoom, pin, box-zoom, pan).
#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/headers.h"
#include "scenario/rows.h"

#include "arithmetic/decimal.h"

#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

QString seconds(Nanos t) { return QString::fromStdString(formatSeconds(t)) + " s"; }

} // namespace

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
    if (scenePos.x() < p.left() - kHoverReach || scenePos.x() > p.right() + kHoverReach)
        return std::nullopt;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double t = from + (scenePos.x() - p.left()) / p.width() * (to - from);
    const auto& arrivals = timesOf(*m_frame->trace, m_row);
    const auto at = std::lower_bound(arrivals.begin(), arrivals.end(), Nanos(std::llround(t * 1e9)));
    std::optional<std::size_t> best;
    double bestDistance = kHoverReach;
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
    } else if (headerRect().contains(event->position()) && headerElided()) {
        QToolTip::showText(event->globalPosition().toPoint(), title() + "\n" + legendText() + "\n" + countsText(), this); // elided: the whole
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

} // namespace ratelab::ui
