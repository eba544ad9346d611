// RowChart's view of the server behind the limiter (rowchart.h): each admitted attempt's mark in
// its outcome's colour (the dashboard's legend names them), a latency band (p50 to p99 of the
// attempts served in each bucket) and goodput bars (served in time), and on a concurrency
// limiter's row its limit over time as a step line with the attempts in the server under it,
// each in a lane of its own (rowchart_lanes.cpp): in the plot of a concurrency limiter's row,
// under the level plot of a rate limiter's. The buckets,
// columns and lines are core's (view/served.h), made with the frame off the GUI thread
// (rowServer); this file only draws them.
#include "chart/rowchart.h"
#include "chart/theme.h"

#include "chart/ticks.h"

#include "report/report_run.h"

#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// stepLine turns steps cut to a range (ServerView's: the value in force where the line starts,
// then each change) into a step polyline in seconds, the last value held to `to`.
QList<QPointF> stepLine(const Steps& steps, Nanos to)
{
    QList<QPointF> line;
    line.reserve(qsizetype(2 * steps.size() + 1));
    std::int64_t value = steps.front().second;
    line << QPointF(secondsAsDouble(steps.front().first), double(value));
    for (std::size_t k = 1; k < steps.size(); ++k) {
        const double t = secondsAsDouble(steps[k].first);
        line << QPointF(t, double(value));
        value = steps[k].second;
        line << QPointF(t, double(value));
    }
    line << QPointF(secondsAsDouble(to), double(value));
    return line;
}

} // namespace

// The outcomes share the admitted lane's circles and its bars, so their colours alone tell
// them apart: a set per theme, each pair at a CIEDE2000 of at least 10 for a reader with
// deuteranopia, protanopia or tritanopia, in time apart from each failure in greyscale too, and
// each at 3:1 on the strip, the plot and the window (tst_palette measures them). The dark
// theme's are lighter, as its verdicts are.
QColor RowChart::outcomeColor(Outcome o, const QPalette& palette)
{
    const bool dark = isDark(palette);
    switch (o) {
    case Outcome::InTime: return admittedColor(palette);
    case Outcome::Late: // cyan: served, nobody waiting (brown read as refused's orange)
        return dark ? QColor(0x5e, 0xed, 0xff) : QColor(0x34, 0x75, 0x88);
    case Outcome::QueueTimeout: // violet
        return dark ? QColor(0x93, 0x79, 0xeb) : QColor(0x7c, 0x3a, 0xed);
    case Outcome::Refused: // orange: a full queue's 503
        return dark ? QColor(0xd9, 0x6e, 0x0e) : QColor(0xd0, 0x2c, 0x00);
    case Outcome::Rejected: // pink: the concurrency limiter's 503
        return dark ? QColor(0xda, 0x14, 0x9e) : QColor(0xc5, 0x21, 0x77);
    case Outcome::NotAdmitted: break;
    }
    return deniedColor(palette);
}

QString RowChart::outcomeName(Outcome o)
{
    switch (o) {
    case Outcome::InTime: return tr("in time");
    case Outcome::Late: return tr("late");
    case Outcome::QueueTimeout: return tr("timed out");
    case Outcome::Refused: return tr("refused");
    case Outcome::Rejected: return tr("rejected");
    case Outcome::NotAdmitted: break;
    }
    return tr("not admitted");
}

std::optional<Outcome> RowChart::outcomeOf(std::size_t i) const
{
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    if (!result.engine || !result.engine->run.server || i >= result.engine->run.served.size())
        return std::nullopt;
    return result.engine->run.served[i].outcome;
}

void RowChart::buildServer()
{
    m_served.reset();
    m_limitLine.clear();
    m_inSystemLine.clear();
    m_outcomeColumns.clear();
    m_gateRow = false;
    m_ceiling->setVisible(true);
    // A concurrency limiter's row has lanes, each with its own axis (serverLanes): no grid of
    // the level axis across them. Qt Charts relays out on every change: only a real one.
    const bool lanes = m_row < m_frame->extras.size() && m_frame->extras[m_row].server && m_frame->extras[m_row].server->gate;
    if (m_levelAxis->isGridLineVisible() == lanes)
        m_levelAxis->setGridLineVisible(!lanes);
    // Made with the frame (rowServer): here only turned into lines.
    if (m_row >= m_frame->extras.size() || !m_frame->extras[m_row].server)
        return;
    const ServerView& view = *m_frame->extras[m_row].server;
    m_served = view.buckets;
    m_outcomeColumns = view.columns;
    if (!view.gate)
        return;
    m_gateRow = true;
    m_ceiling->setVisible(false); // the Limits' L is not this row's: its own limit is drawn
    // A concurrency limiter's row: its limit (an unlimited one draws none) and the in-flight.
    if (!view.limits.empty())
        m_limitLine = stepLine(view.limits, m_frame->range.to);
    m_inSystemLine = stepLine(view.inSystem, m_frame->range.to);
    // On the level axis, fitted to them (the row has no rate level): the limit reads against
    // its numbers, not against the Limits' L it does not keep.
    std::int64_t top = 1;
    for (const Steps* steps : {&view.limits, &view.inSystem})
        for (const auto& [t, v] : *steps)
            top = std::max(top, v);
    if (m_levelAxis->max() != niceCeiling(double(top) * 1.05))
        m_levelAxis->setRange(0, niceCeiling(double(top) * 1.05));
}

void RowChart::drawServer(QPainter* p) const
{
    // A concurrency limiter alone: each measure in a lane of its plot. Behind a rate limiter,
    // whose level has the plot, the lanes are under it (drawLanesBelow).
    if (m_served && m_gateRow)
        drawServerLanes(p);
}

} // namespace ratelab::ui
