// RowChart's painting: the header, the level line and its labels, the strip of marks, the
// window boundaries and the playhead, all over the chart's plot area.
#include "rowchart.h"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QValueAxis>

#include <algorithm>

namespace ratelab::ui {

QColor RowChart::admittedColor() { return QColor(0x1a, 0x98, 0x50); }
QColor RowChart::delayedColor() { return QColor(0xf5, 0x9e, 0x0b); }
QColor RowChart::deniedColor() { return QColor(0xd7, 0x30, 0x27); }

void RowChart::drawForeground(QPainter* p, const QRectF& rect)
{
    QChartView::drawForeground(p, rect);
    if (!m_frame.trace || m_frame.rows.empty() || !m_range.isValid())
        return;
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    drawBoundaries(p);
    drawHeader(p);
    drawLevelLabels(p);
    drawLevel(p);
    drawStrip(p);
    drawPlayhead(p);
    p->restore();
}

void RowChart::drawHeader(QPainter* p) const
{
    QFont bold = font();
    bold.setBold(true);
    p->setFont(bold);
    p->setPen(palette().color(QPalette::WindowText));
    const QRectF p0 = plot();
    const QString title = QString::fromUtf8(algorithmTitle(algorithm()).data());
    const QString unit = QString::fromUtf8(levelUnit(algorithm()).data());
    const QRectF header(p0.left(), 1, p0.width(), kHeaderHeight);
    p->drawText(header, Qt::AlignLeft | Qt::AlignVCenter, title);
    const double titleWidth = QFontMetricsF(bold).horizontalAdvance(title);
    const QLocale locale;
    QString counts = (m_partialCounts ? tr("so far: %1 admitted") : tr("%1 admitted")).arg(locale.toString(m_counts.admitted));
    if (m_counts.delayed > 0)
        counts += tr(" (%1 delayed)").arg(locale.toString(m_counts.delayed));
    counts += tr(" · %1 denied").arg(locale.toString(m_counts.denied));
    p->setFont(font());
    const QFontMetricsF fm(font());
    const double countsWidth = fm.horizontalAdvance(counts);
    p->drawText(header, Qt::AlignRight | Qt::AlignVCenter, counts);
    // The legend of the line takes what room is left between the title and the counts.
    const QString legend = fm.elidedText("   line: " + unit + ", dashed: " + ceilingName(), Qt::ElideRight,
                                         header.width() - titleWidth - countsWidth - 12);
    p->setPen(palette().color(QPalette::PlaceholderText));
    p->drawText(header.adjusted(titleWidth, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, legend);
}

void RowChart::drawLevel(QPainter* p) const
{
    // The reduced polyline (a few vertices per pixel column), mapped into the chart's plot area
    // and drawn with a one-device-pixel cosmetic pen, the raster engine's fast path: Qt Charts'
    // own line item, or any wider pen, strokes every vertex and costs more than the rest of a
    // frame together. Two offset copies give the line a weight of about two device pixels.
    const QRectF p0 = plot();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / m_levelAxis->max();
    QPolygonF line(m_levelPoints.size());
    for (qsizetype i = 0; i < m_levelPoints.size(); ++i)
        line[i] = QPointF(p0.left() + (m_levelPoints[i].x() - from) * sx, p0.bottom() - m_levelPoints[i].y() * sy);
    QPen pen(levelColor(), 1);
    pen.setCosmetic(true);
    p->save();
    p->setClipRect(QRectF(QPointF(p0.left() - 1, p0.top() - 2), QPointF(std::min(p0.right() + 1, visibleRight()), p0.bottom() + 2)));
    p->setPen(pen);
    const double devicePixel = 1.0 / std::max(1.0, p->device()->devicePixelRatioF());
    for (const QPointF offset : {QPointF(0, 0), QPointF(devicePixel, 0), QPointF(0, devicePixel)}) {
        p->translate(offset);
        p->drawPolyline(line);
        p->translate(-offset);
    }
    p->restore();
}

void RowChart::drawPlayhead(QPainter* p) const
{
    if (!m_playhead || m_playhead->t >= m_range.to || m_playhead->t < m_range.from)
        return;
    const QRectF p0 = plot();
    const double x = xOf(secondsAsDouble(m_playhead->t));
    p->setClipping(false);
    p->setPen(QPen(QColor(0xea, 0x58, 0x0c), 1.5));
    p->drawLine(QPointF(x, p0.top() - kStripHeight), QPointF(x, p0.bottom()));
}

void RowChart::drawLevelLabels(QPainter* p) const
{
    const QRectF p0 = plot();
    p->setFont(font());
    p->setPen(palette().color(QPalette::PlaceholderText));
    const double top = m_levelAxis->max();
    const auto label = [&](double v, double y) {
        p->drawText(QRectF(0, y - 8, p0.left() - 5, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(v, 'g', 3));
    };
    label(0, p0.bottom());
    label(top, p0.top());
    if (p0.height() > 40)
        label(top / 2, p0.center().y());
}

void RowChart::drawBoundaries(QPainter* p) const
{
    const Nanos w = m_frame.trace->config.windowNanos();
    const QRectF p0 = plot();
    const Nanos first = (m_range.from + w - 1) / w;
    const Nanos last = (m_range.to - 1) / w;
    if (last - first > Nanos(p0.width() / 12))
        return; // too dense to tell apart: the grid would only grey the chart
    p->setPen(QPen(QColor(0x94, 0xa3, 0xb8, 150), 1, Qt::DotLine));
    for (Nanos b = first; b <= last; ++b) {
        const double x = xOf(secondsAsDouble(b * w));
        p->drawLine(QPointF(x, p0.top() - kStripHeight), QPointF(x, p0.bottom()));
    }
}

void RowChart::drawStrip(QPainter* p) const
{
    const QRectF p0 = plot();
    const QRectF band(p0.left(), p0.top() - kStripHeight, p0.width(), kStripHeight - 2);
    p->fillRect(band, palette().color(QPalette::AlternateBase));
    p->setClipRect(QRectF(band.topLeft() - QPointF(6, 0), QPointF(visibleRight() + 5, band.bottom())));
    const AlgorithmTrace& result = m_frame.trace->results.at(m_row);
    const ReducedRow& r = m_frame.rows.at(m_row);
    if (exactMarks()) {
        for (std::size_t i = r.firstRequest; i < shownEnd(); ++i) {
            const Decision& d = result.decisions[i];
            paintMark(p, QPointF(xOf(secondsAsDouble(m_frame.trace->arrivals[i])), laneY(laneOf(d))), laneOf(d));
        }
        return;
    }
    // One bar per column and lane; the frame's columns are this view's pixels.
    const double colWidth = p0.width() / double(r.columns.size());
    p->setRenderHint(QPainter::Antialiasing, false);
    for (std::size_t k = 0; k < r.columns.size(); ++k) {
        const Column& c = r.columns[k];
        const double x = p0.left() + k * colWidth;
        const double w = std::max(colWidth, 1.0);
        if (c.admitted)
            p->fillRect(QRectF(x, laneY(Lane::Admitted) - 4, w, 8), admittedColor());
        if (c.delayed)
            p->fillRect(QRectF(x, laneY(Lane::Delayed) - 4, w, 8), delayedColor());
        if (c.denied)
            p->fillRect(QRectF(x, laneY(Lane::Denied) - 4, w, 8), deniedColor());
    }
}

void RowChart::paintMark(QPainter* p, QPointF c, Lane lane)
{
    switch (lane) {
    case Lane::Admitted:
        p->setPen(Qt::NoPen);
        p->setBrush(admittedColor());
        p->drawEllipse(c, 3.6, 3.6);
        break;
    case Lane::Delayed: {
        p->setPen(Qt::NoPen);
        p->setBrush(delayedColor());
        QPainterPath tri;
        tri.moveTo(c + QPointF(0, -4.5));
        tri.lineTo(c + QPointF(4.5, 3.5));
        tri.lineTo(c + QPointF(-4.5, 3.5));
        tri.closeSubpath();
        p->drawPath(tri);
        break;
    }
    case Lane::Denied:
        p->setPen(QPen(deniedColor(), 2.2, Qt::SolidLine, Qt::RoundCap));
        p->setBrush(Qt::NoBrush);
        p->drawLine(c + QPointF(-3, -3), c + QPointF(3, 3));
        p->drawLine(c + QPointF(-3, 3), c + QPointF(3, -3));
        break;
    }
}

} // namespace ratelab::ui
