// RowChart's nginx parts: the water nginx holds, replayed in its own unit, and the right-hand
// axis that reads it in that unit (whole thousandths of a request), headed with nginx's word.
#include "chart/rowchart.h"

#include "limiters/nginx_limit_req.h"
#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// thousandthsText writes a level in nginx's unit: 1.2 requests is "1,200".
QString thousandthsText(double level) { return QLocale().toString(qint64(std::llround(level * 1000))); }

} // namespace

int RowChart::rightMargin() const
{
    // Room for "120,000" (a burst of 120) and for the axis's unit, when any row is nginx's; 14 px
    // otherwise.
    if (!m_thousandthsRoom)
        return 14;
    const QFontMetricsF fm(smallFont());
    double unit = 0;
    for (const QString& line : thousandthsUnitLines())
        unit = std::max(unit, fm.horizontalAdvance(line));
    return int(std::ceil(std::max(QFontMetricsF(font()).horizontalAdvance("000,000"), unit))) + 10;
}

QStringList RowChart::thousandthsUnitLines()
{
    // nginx's own word for what it holds, in its own unit: its error log says "limiting
    // requests, excess: 9.000" where this axis says 9,000.
    return {tr("excess"), tr("(1/1000 req)")};
}

QRectF RowChart::thousandthsUnitBox() const
{
    if (!m_frame->trace || algorithm() != Algorithm::NginxLimitReq)
        return {};
    // Beside the strip, above the axis's top label.
    const QRectF p0 = plot();
    const double h = QFontMetricsF(smallFont()).height() * double(thousandthsUnitLines().size());
    const double labelHalf = QFontMetricsF(font()).height() / 2;
    return {p0.right() + 5, p0.top() - labelHalf - 2 - h, double(rightMargin() - 5), h};
}

std::vector<std::pair<double, QString>> RowChart::thousandthsLabels() const
{
    std::vector<std::pair<double, QString>> labels;
    if (!m_frame->trace || algorithm() != Algorithm::NginxLimitReq)
        return labels;
    for (const double v : levelTicks())
        labels.emplace_back(v, thousandthsText(v));
    labels.emplace_back(levelCeiling(), thousandthsText(levelCeiling()));
    return labels;
}

void RowChart::drawThousandths(QPainter* p) const
{
    const auto values = thousandthsLabels();
    if (values.empty())
        return;
    std::vector<AxisLabel> labels;
    for (std::size_t k = 0; k < values.size(); ++k) // the last is the burst nginx compares with, in bold
        labels.push_back({values[k].first, values[k].second, k + 1 == values.size()});
    const QColor muted = palette().color(QPalette::PlaceholderText);
    paintAxisLabels(*p, area(), {labels, m_levelAxis->max(), true, double(rightMargin())}, font(),
                    palette().color(QPalette::WindowText), muted);
    p->save();
    p->setFont(smallFont());
    paintNote(*p, thousandthsUnitBox(), Qt::AlignLeft | Qt::AlignBottom, thousandthsUnitLines().join('\n'), muted);
    p->restore();
}

void RowChart::buildNginxWater()
{
    // Computed with the frame (core's nginxWater), off the GUI thread: the widget only converts.
    m_nginxWater.clear();
    m_nginxLeft.clear();
    const Frame& frame = *m_frame;
    if (m_row >= frame.extras.size() || !frame.extras[m_row].water)
        return;
    const NginxWater& water = *frame.extras[m_row].water;
    for (const KeyLevelPoint& p : water.points)
        m_nginxWater.append(QPointF(secondsAsDouble(p.t), p.level));
    m_nginxLeft = water.leftovers;
}

} // namespace ratelab::ui
