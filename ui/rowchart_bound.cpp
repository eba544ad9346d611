// RowChart's worst case (issue 25): the bound "at most X in any T" of the row's algorithm, what the
// row's traffic reached in any window of length T, and the window where it came closest, shaded
// on the level plot with its count.
#include "rowchart.h"

#include "decimal.h"

#include <algorithm>

#include <QLocale>
#include <QPainter>

namespace ratelab::ui {

void RowChart::computeBound()
{
    m_bound.reset();
    const Frame& frame = *m_frame;
    if (frame.trace)
        m_bound = frame.trace->results.at(m_row).bound; // found with the simulation (rows.cpp)
}

QString RowChart::boundText() const
{
    if (!m_bound)
        return {};
    const QLocale locale;
    return tr(" · most in %1 s: %2 of at most %3")
        .arg(QString::fromStdString(formatSeconds(m_bound->windowNanos)), locale.toString(m_bound->reached),
             locale.toString(m_bound->atMost));
}

void RowChart::drawBound(QPainter* p) const
{
    if (!m_bound || m_bound->reached == 0)
        return;
    const QRectF area = plot();
    const double x1 = xOf(secondsAsDouble(m_bound->closestEnd));
    const double x0 = xOf(secondsAsDouble(m_bound->closestEnd) - secondsAsDouble(m_bound->windowNanos));
    if (x1 < area.left() || x0 > area.right())
        return;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    const QColor edge(0x7c, 0x3a, 0xed, dark ? 220 : 200);
    p->save();
    p->setClipRect(area);
    QColor fill = edge;
    fill.setAlpha(dark ? 34 : 22);
    const QRectF band(QPointF(std::max(x0, area.left() - 1), area.top()), QPointF(std::min(x1, area.right() + 1), area.bottom()));
    p->fillRect(band, fill);
    p->setPen(QPen(edge, 1, Qt::DashLine));
    p->drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
    p->drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
    const QString label = m_bound->reached >= m_bound->atMost
                              ? tr("%1 in this %2 s: the bound").arg(m_bound->reached).arg(QString::fromStdString(formatSeconds(m_bound->windowNanos)))
                              : tr("%1 in this %2 s (at most %3)")
                                    .arg(m_bound->reached)
                                    .arg(QString::fromStdString(formatSeconds(m_bound->windowNanos)))
                                    .arg(m_bound->atMost);
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(label);
    // Centred on the band, kept inside the plot; a label wider than a narrow plot starts at its left.
    const double x = std::max(area.left() + 2, std::min(band.center().x() - w / 2, area.right() - w - 2));
    // On a box of the background, as the level labels are: the line never crosses the text.
    const QRectF box(x - 3, area.center().y() - fm.height() / 2, w + 6, fm.height());
    QColor base = palette().color(QPalette::Base);
    base.setAlpha(225);
    p->fillRect(box, base);
    p->setPen(edge);
    p->drawText(box, Qt::AlignCenter, label);
    p->restore();
}

} // namespace ratelab::ui
