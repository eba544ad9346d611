// RowChart's worst case: the bound "at most X in any T" of the row's algorithm, what the
// row's traffic reached in any window of length T, and the window where it came closest, shaded
// on the level plot with its count.
#include "chart/rowchart.h"
#include "chart/theme.h"

#include "arithmetic/decimal.h"
#include "limiters/products/own_limit.h"

#include <algorithm>

#include <QLocale>
#include <QPainter>
#include <QValueAxis>

namespace ratelab::ui {

void RowChart::computeBound()
{
    m_bound.reset();
    const Frame& frame = *m_frame;
    if (frame.trace)
        m_bound = frame.trace->results.at(m_row).bound; // found with the simulation (rows.cpp)
}

Nanos RowChart::measuredWindow() const
{
    const LimiterConfig& c = m_frame->trace->config;
    try {
        return ownLimit(m_frame->trace->results.at(m_row).algorithm, c).windowNanos;
    } catch (const InputError&) { // a config the product refuses has no rows to draw
        return c.windowNanos();
    }
}

QString RowChart::boundText(bool partial) const
{
    if (!m_bound)
        return {};
    const QLocale locale;
    const QString window = QString::fromStdString(formatSeconds(m_bound->windowNanos));
    // What the traffic reached is the whole run's: while the playhead is partway, only the bound
    // (the algorithm's, whatever the traffic) is said, so the header never runs ahead of the counts.
    // "It" is the row's algorithm, named at the header's start: the bound is the most it lets
    // through in any window of that length, whatever the traffic (a bare "(at most N)" read as
    // another count of the traffic's).
    if (partial)
        return tr(" · it allows up to %1 in any %2 s").arg(locale.toString(m_bound->atMost), window);
    return tr(" · most in any %1 s: %2 (it allows up to %3)").arg(window, locale.toString(m_bound->reached), locale.toString(m_bound->atMost));
}

bool RowChart::crosses(const QList<QPointF>& points, double unit, const QRectF& box) const
{
    const QRectF p0 = plot();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / m_levelAxis->max();
    const auto at = [&](const QPointF& v) { return QPointF(p0.left() + (v.x() - from) * sx, p0.bottom() - v.y() / unit * sy); };
    const double top = box.top() - 2, bottom = box.bottom() + 2;
    for (qsizetype i = 0; i + 1 < points.size(); ++i) {
        const QPointF a = at(points[i]), b = at(points[i + 1]);
        if (b.x() < box.left() || a.x() > box.right())
            continue;
        // The segment's part over the box's columns (x non-decreasing), interpolated at its ends.
        const auto yAt = [&](double x) { return b.x() == a.x() ? a.y() : a.y() + (b.y() - a.y()) * (x - a.x()) / (b.x() - a.x()); };
        const double y0 = b.x() == a.x() ? a.y() : yAt(std::max(a.x(), box.left()));
        const double y1 = b.x() == a.x() ? b.y() : yAt(std::min(b.x(), box.right()));
        if (std::max(y0, y1) >= top && std::min(y0, y1) <= bottom)
            return true;
    }
    return false;
}

bool RowChart::crossesLevel(const QRectF& box) const
{
    for (const KeyLine& line : m_keyLines)
        if (crosses(line.points, 1.0, box))
            return true;
    if (!m_keyLines.empty())
        return false;
    const bool water = !m_nginxWater.empty();
    return crosses(water ? m_nginxWater : m_levelPoints, water ? 1000.0 : 1.0, box);
}

bool RowChart::crossesCeiling(const QRectF& box) const
{
    if (!m_frame->trace)
        return false;
    // Each step of the ceiling whose span meets the box's columns (the vertical joins aside).
    const QRectF p0 = plot();
    for (std::size_t k = 0; k < m_ceilingSteps.size(); ++k) {
        const double x0 = xOf(m_ceilingSteps[k].first);
        const double x1 = k + 1 < m_ceilingSteps.size() ? xOf(m_ceilingSteps[k + 1].first) : p0.right();
        const double y = p0.bottom() - m_ceilingSteps[k].second / m_levelAxis->max() * p0.height();
        if (x1 >= box.left() && x0 <= box.right() && y >= box.top() - 2 && y <= box.bottom() + 2)
            return true;
    }
    return false;
}

// boundBand returns the closest window's x range on the plot, or nothing when it is off screen.
std::optional<std::pair<double, double>> RowChart::boundBand() const
{
    if (!m_bound || m_bound->reached == 0)
        return std::nullopt;
    const QRectF area = plot();
    const double x1 = xOf(secondsAsDouble(m_bound->closestEnd));
    const double x0 = xOf(secondsAsDouble(m_bound->closestEnd) - secondsAsDouble(m_bound->windowNanos));
    if (x1 < area.left() || x0 > area.right())
        return std::nullopt;
    return std::pair{x0, x1};
}

QColor RowChart::boundColor() const
{
    // Opaque, a violet per theme: its label is text, at 4.5:1 or more on the plot (a translucent
    // one fell below that on both themes).
    return isDark(palette()) ? QColor(0xa7, 0x8b, 0xfa) : QColor(0x6d, 0x28, 0xd9);
}

void RowChart::drawBound(QPainter* p) const
{
    const auto band = boundBand();
    if (!band)
        return;
    paintBoundBand(*p, area(), band->first, band->second, boundColor(), palette().color(QPalette::Base).lightness() < 128);
}

QString RowChart::boundLabel() const
{
    if (!m_bound)
        return {};
    const QString window = QString::fromStdString(formatSeconds(m_bound->windowNanos));
    return m_bound->reached >= m_bound->atMost
               ? tr("%1 in this %2 s: the most it allows").arg(m_bound->reached).arg(window)
               : tr("%1 in this %2 s (it allows up to %3)").arg(m_bound->reached).arg(window).arg(m_bound->atMost);
}

QRectF RowChart::boundLabelBoxClearOf(const std::vector<QRectF>& taken) const
{
    const auto band = boundBand();
    if (!band)
        return {};
    const auto [x0, x1] = *band;
    const QRectF area = plot();
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(boundLabel()) + 6, h = fm.height();
    const auto inside = [&](double left) { return std::max(area.left() + 2, std::min(left, area.right() - w - 2)); };
    const double centre = (std::max(x0, area.left()) + std::min(x1, area.right())) / 2;
    // Where the label covers no part of the level line nor the dashed ceiling: in the band, else
    // beside it, at a height the lines leave free there (the lines are the lesson; the label only
    // names the band).
    // Last, further right, half a label at a time: a band at the plot's left edge whose line
    // slopes through every height beside it (a burst at 0) still gets its label.
    std::vector<double> lefts{inside(centre - w / 2), inside(x1 + 6), inside(x0 - w - 6)};
    for (double left = x1 + 6 + w / 2; left + w + 2 <= area.right(); left += w / 2)
        lefts.push_back(left);
    std::vector<QRectF> candidates;
    for (const double left : lefts)
        for (const double y : {0.3, 0.72, 0.5, 0.15, 0.88})
            candidates.emplace_back(left, area.top() + area.height() * y - h / 2, w, h);
    return firstClearOf(candidates, taken, [&](const QRectF& r) { return !crossesLevel(r) && !crossesCeiling(r); });
}

void RowChart::drawBoundLabel(QPainter* p) const
{
    const QRectF box = paintedLabel(LabelKind::Bound);
    if (!box.isEmpty())
        paintLabel(*p, box, boundLabel(), palette().color(QPalette::Base), boundColor(), plot());
}

} // namespace ratelab::ui
