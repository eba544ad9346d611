// RowChart's views of an engine row (rowchart.h): each node's, the store's or each client's
// level line (the engine's level_lines.h), and the attempts a second of clients that retry.
#include "chart/rowchart.h"

#include "view/row_extras.h"
#include "report/report_run.h"
#include "engine/simulator.h"
#include "chart/timeaxis.h"

#include <QLocale>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>

namespace ratelab::ui {

void RowChart::buildKeyLines()
{
    m_keyLines.clear();
    m_keyLinesOmitted = 0;
    m_attemptRates.reset();
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    // Clients that may retry: the attempts a second, first attempts and retries stacked. Whether
    // the row has them is the scenario's, not the run's: a row that grew them only where a retry
    // happened would tell a veiled question's answer, and move its plot at the reveal.
    const auto& scenario = m_frame->scenario;
    if (result.engine && result.clients && scenario && scenario->clients && scenario->clients->anyRetries())
        m_attemptRates = attemptBuckets(result.engine->run, m_frame->range.from, m_frame->range.to, 60);
    // Replayed with the frame, off the GUI thread (rowLines); here only what the frame shows.
    if (m_row >= m_frame->extras.size() || !m_frame->extras[m_row].keys)
        return;
    const RowLines& extras = m_frame->extras[m_row];
    const KeyLevels& levels = *extras.keys;
    for (std::size_t k = 0; k < levels.lines.size(); ++k) {
        const KeyLevel& level = levels.lines[k];
        KeyLine line{QString::fromStdString(level.name), level.index, {}};
        if (k < extras.keyPoints.size()) {
            line.points.reserve(qsizetype(extras.keyPoints[k].size()));
            for (const LevelPoint& q : extras.keyPoints[k])
                line.points.append(QPointF(q.seconds, q.level));
        }
        m_keyLines.push_back(std::move(line));
    }
    m_keyLinesOmitted = levels.others;
}

QStringList RowChart::keyNames() const
{
    QStringList names;
    for (const KeyLine& line : m_keyLines)
        names << line.name;
    if (m_keyLinesOmitted > 0)
        names << tr("%n others not drawn", "", int(std::min<std::int64_t>(m_keyLinesOmitted, 1'000'000)));
    return names;
}

QRectF RowChart::keyBoxClearOf(const std::vector<QRectF>& taken) const
{
    if (m_keyLines.empty())
        return {};
    const QRectF p0 = plot();
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    const QFontMetricsF fm(small);
    // As many entries as fit in the plot's width.
    double w = 8;
    const QStringList names = keyNames();
    for (qsizetype k = 0; k < names.size(); ++k) {
        const double entry = fm.horizontalAdvance(names[k]) + (k < qsizetype(m_keyLines.size()) ? 14 : 0) + 12;
        if (w + entry > p0.width() - 8)
            break;
        w += entry;
    }
    const double h = fm.height() + 2;
    const QRectF topLeft(p0.left() + 2, p0.top() + 1, w, h), topRight(p0.right() - w - 2, p0.top() + 1, w, h);
    std::vector<QRectF> candidates{topLeft, QRectF(p0.left() + 2, p0.bottom() - h - 1, w, h),
                                   QRectF(p0.right() - w - 2, p0.bottom() - h - 1, w, h), topRight};
    // Then along the top and the bottom edge: lines that run on to the view's end (a window
    // emptied along the bottom) may pass through every corner, and the ceiling's name takes
    // the top right.
    for (const double f : {0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125})
        for (const double y : {topLeft.top(), p0.bottom() - h - 1})
            candidates.emplace_back(p0.left() + 2 + f * std::max(0.0, p0.width() - w - 4), y, w, h);
    return firstClearOf(candidates, taken, [&](const QRectF& c) { return !crossesLevel(c); });
}

void RowChart::drawKeyLines(QPainter* p) const
{
    // One line per node, store or client, in its strip colour, and a key at the top left.
    std::vector<QList<QPointF>> points;
    std::vector<QColor> colours;
    for (const KeyLine& line : m_keyLines) {
        points.push_back(line.points);
        colours.push_back(nodeColor(line.index, palette()));
    }
    paintKeyLines(*p, area(),
                  {points, colours, m_levelAxis->max(), visibleRight(), m_playhead ? secondsAsDouble(m_playhead->t) : 1e300,
                   m_row < m_frame->extras.size() && m_frame->extras[m_row].keyDense});
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    paintKey(*p, paintedLabel(LabelKind::Key), keyNames(), colours, small, palette().color(QPalette::Base),
             palette().color(QPalette::WindowText), palette().color(QPalette::PlaceholderText));
}

} // namespace ratelab::ui
