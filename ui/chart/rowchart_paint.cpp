// RowChart's painting: the header, the level line and its labels, the window boundaries and the
// playhead, over the chart's plot area (the strip of marks: rowchart_strip.cpp).
#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/report_run.h"
#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"
#include "chart/theme.h"
#include "chart/ticks.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ratelab::ui {

// The verdicts' colours, a set per theme: a green, an ochre and a red at lightnesses far apart,
// so that each pair stays distinct (CIEDE2000 at least 10) for a reader with deuteranopia,
// protanopia or tritanopia and in greyscale print, and each mark keeps a contrast of 3:1 with
// the strip, the plot and the window behind it (tst_palette measures both). On the light theme
// the lightnesses fall from admitted to denied (the darkest, a denial reads as text at 4.5:1);
// on the dark theme denied is the darkest and delayed the lightest. The shapes (circle,
// triangle, cross) and the lanes carry the verdict too.
QColor RowChart::admittedColor(const QPalette& palette)
{
    return isDark(palette) ? QColor(0x22, 0xc5, 0x9a) : QColor(0x13, 0x9c, 0x6a);
}
QColor RowChart::delayedColor(const QPalette& palette)
{
    return isDark(palette) ? QColor(0xfd, 0xe6, 0x8a) : QColor(0xa8, 0x4a, 0x05);
}
QColor RowChart::deniedColor(const QPalette& palette)
{
    return isDark(palette) ? QColor(0xf4, 0x3f, 0x3f) : QColor(0x7a, 0x10, 0x10);
}
QColor RowChart::laneColor(Lane lane, const QPalette& palette)
{
    switch (lane) {
    case Lane::Admitted: return admittedColor(palette);
    case Lane::Delayed: return delayedColor(palette);
    case Lane::Denied: break;
    }
    return deniedColor(palette);
}

void RowChart::drawForeground(QPainter* p, const QRectF& rect)
{
    QChartView::drawForeground(p, rect);
    if (!m_frame->trace || m_frame->rows.empty() || !m_range.isValid())
        return;
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    m_labels = plotLabels();
    drawBoundaries(p);
    drawHeader(p);
    if (m_veiled) { // a question is asked: nothing drawn may answer it
        paintNote(*p, plot(), Qt::AlignCenter, tr("Decisions hidden: what will happen?"), palette().color(QPalette::PlaceholderText));
    } else {
        drawBlockSpans(p);
        drawBound(p);
        drawLevel(p);
    }
    drawLevelLabels(p); // over the line: a label's box interrupts the line, never the other way
    if (!m_veiled) {
        drawBoundLabel(p);
        drawServer(p);
    }
    drawLanesBelow(p);
    drawStrip(p);
    p->setClipping(false);
    if (exactMarks() && !m_veiled)
        drawDepartures(p);
    drawPinned(p);
    drawPlayhead(p);
    drawBox(p);
    p->restore();
}

void RowChart::drawHeader(QPainter* p) const
{
    const HeaderLayout h = header();
    paintHeader(*p, {h.title.text, h.counts.text, h.legend.text, h.title.box, h.counts.box, h.legend.box}, font(),
                palette().color(QPalette::WindowText), palette().color(QPalette::PlaceholderText));
}

double RowChart::headerWidth() const
{
    // The chart's width less its margins, not the plot's, which the layout sets later: the
    // header's lines, and so the top margin, are counted from this width.
    const QMarginsF m = chart()->margins();
    return std::max(0.0, chart()->size().width() - m.left() - m.right());
}

QRectF RowChart::headerRect() const
{
    // Over the plot, inset as it is from the margins (the axes' lines).
    const QRectF p0 = plot();
    const double inset = p0.width() > 0 ? std::max(0.0, p0.left() - chart()->margins().left()) : 0;
    return {chart()->margins().left() + inset, 1, std::max(0.0, headerWidth() - 2 * inset), double(headerHeight())};
}

RowChart::HeaderLayout RowChart::layOutHeader(const QString& title, const QString& legend, const QString& counts) const
{
    // The title, the legend of the line, then the counts at the right: each after the one before
    // on its line when it fits there, else at the start of the next (presentation mode's larger
    // type on a projector), so none is cut; one wider than the whole header is elided (the whole
    // of each is the header's tooltip).
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF bfm(bold), fm(font());
    const QRectF at = headerRect();
    const double width = at.width(), line = fm.height(), gap = fm.horizontalAdvance(QStringLiteral("   "));
    HeaderLayout h;
    int row = 0;
    double x = 0;
    const auto place = [&](HeaderPart& part, const QString& text, const QFontMetricsF& m, bool right) {
        if (text.isEmpty())
            return;
        const double w = m.horizontalAdvance(text);
        if (x > 0 && x + gap + w > width) {
            ++row;
            x = 0;
        }
        const double left = right ? std::max(x > 0 ? x + gap : 0, width - w) : (x > 0 ? x + gap : 0);
        const double room = std::max(0.0, width - left);
        part.text = w <= room ? text : m.elidedText(text, Qt::ElideRight, room);
        part.box = QRectF(at.left() + left, at.top() + row * line, std::min(w, room), line);
        x = left + part.box.width();
    };
    place(h.title, title, bfm, false);
    place(h.legend, legend, fm, false);
    place(h.counts, counts, fm, true);
    h.lines = row + 1;
    return h;
}

RowChart::HeaderLayout RowChart::header() const { return layOutHeader(title(), legendText(), countsText()); }

QStringList RowChart::cutHeaderParts() const
{
    QStringList cut;
    const HeaderLayout h = header();
    for (const auto& [drawn, whole] : {std::pair{h.title.text, title()}, {h.legend.text, legendText()}, {h.counts.text, countsText()}})
        if (drawn != whole)
            cut << whole;
    return cut;
}

bool RowChart::headerElided() const { return !cutHeaderParts().isEmpty(); }

QStringList RowChart::cutCaptions() const
{
    QStringList cut = cutHeaderParts();
    std::vector<ServerLane> lanes = m_veiled ? std::vector<ServerLane>{} : serverLanes(); // drawn revealed only
    for (const ServerLane& lane : lanesBelow())
        lanes.push_back(lane);
    for (const ServerLane& lane : lanes) // a lane's name runs past the plot's right edge
        for (const LaneLabel& l : laneLabels(lane))
            if (l.kind == LaneLabel::Caption && l.box.right() > plot().right())
                cut << l.text;
    return cut;
}

std::pair<QString, QString> RowChart::headerTexts() const
{
    const HeaderLayout h = header();
    return {h.title.text, h.counts.text};
}

QString RowChart::countsText() const { return countsTextAs(m_partialCounts, m_veiled); }

QString RowChart::countsTextAs(bool partial, bool veiled) const
{
    if (veiled)
        return tr("decisions hidden");
    const QLocale locale;
    // With a server, what it did with the row's attempts (whole run: the figures are the run's).
    const AlgorithmTrace* row = m_frame && m_frame->trace ? &m_frame->trace->results.at(m_row) : nullptr;
    const ServerFigures* server = row && row->engine && row->engine->run.server ? &*row->engine->run.server : nullptr;
    QString served;
    if (server && !partial) {
        const std::int64_t failed = server->late + server->queueTimeouts + server->refused + server->rejected;
        served = tr(" · %1 served in time · %2 failed").arg(locale.toString(server->inTime), locale.toString(failed));
        if (server->rejected > 0)
            served += tr(" (%1 rejected)").arg(locale.toString(server->rejected));
    }
    if (server && row->engine->setup.layers.empty()) // a concurrency limiter's row: no rate verdicts
        return (partial ? tr("so far: %1 attempts") : tr("%1 attempts")).arg(locale.toString(m_counts.admitted))
               + served;
    QString counts = (partial ? tr("so far: %1 admitted") : tr("%1 admitted")).arg(locale.toString(m_counts.admitted));
    if (m_counts.delayed > 0)
        counts += tr(" (%1 delayed)").arg(locale.toString(m_counts.delayed));
    return counts + tr(" · %1 denied").arg(locale.toString(m_counts.denied)) + served + boundText(partial);
}

QString RowChart::legendText() const { return legendTextAs(m_veiled); }

QString RowChart::legendTextAs(bool veiled) const
{
    const QString unit = QString::fromUtf8(levelUnit(algorithm()).data());
    if (veiled)
        return tr("every request grey, in one lane, until revealed");
    if (!m_frame->trace)
        return "line: " + unit + ", dashed: " + ceilingName();
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    if (result.kind.cluster) // what the cluster admits, against the one limit it was meant to keep
        return tr("admitted up to %1 in %2 s: %3x the limit · colour: node")
            .arg(result.metrics.maxInWindow)
            .arg(QString::fromStdString(formatSeconds(measuredWindow())))
            .arg(result.metrics.overshoot, 0, 'f', 1);
    if (result.clients) {
        const ClientStats& k = *result.clients;
        const int clients = clientCount();
        // "hollow: a retry" only where there is one to see: the marks the caption names are there.
        return tr("%1 for %2 (%3x)%4%5")
            .arg(k.attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(k.attempts))
            .arg(k.requests == 1 ? tr("1 request") : tr("%1 requests").arg(k.requests))
            .arg(k.amplification, 0, 'f', 1)
            .arg(k.attempts > k.requests ? tr(" · hollow: a retry") : QString())
            // With a server a mark's colour is its outcome (the dashboard's legend), not its client.
            .arg(clients >= 2 && clients <= 8 && !m_served ? tr(" · colour: client") : QString());
    }
    if (result.kind.layered)
        return "line: the first layer's " + unit;
    if (m_quotaLimit)
        return tr("line: quota used %1, dashed: quota_limit").arg(m_quotaPeriod);
    if (!m_blockSpans.empty())
        return "line: " + unit + ", dashed: " + ceilingName() + tr(" · shaded red: blocked");
    if (m_gateRow) // its lanes name their own measures
        return tr("one measure a lane, each on its own axis");
    if (!m_nginxWater.empty())
        return tr("line: what nginx holds · n/1000: the excess a rejected one found");
    if (!m_departures.empty())
        return "line: " + unit + ", dashed: " + ceilingName() + QString::fromUtf8(" · \u25c7 leaves the queue");
    return "line: " + unit + ", dashed: " + ceilingName();
}

int RowChart::clientCount() const
{
    const auto& s = m_frame->scenario;
    return s && s->clients ? int(std::min<std::int64_t>(s->clients->clients(), 1'000'000)) : 0;
}

QColor RowChart::nodeColor(int node, const QPalette& palette)
{
    // Eight hues that stay apart and keep 3:1 against the strip: the dark theme's are lighter.
    static const QColor light[] = {QColor(0x25, 0x63, 0xeb), QColor(0xd9, 0x46, 0xef), QColor(0x0d, 0x94, 0x88),
                                   QColor(0xea, 0x58, 0x0c), QColor(0x4d, 0x7c, 0x0f), QColor(0xdb, 0x27, 0x77),
                                   QColor(0x7c, 0x3a, 0xed), QColor(0xa1, 0x62, 0x07)};
    static const QColor dark[] = {QColor(0x60, 0xa5, 0xfa), QColor(0xe8, 0x79, 0xf9), QColor(0x2d, 0xd4, 0xbf),
                                  QColor(0xfb, 0x92, 0x3c), QColor(0xa3, 0xe6, 0x35), QColor(0xf4, 0x72, 0xb6),
                                  QColor(0xa7, 0x8b, 0xfa), QColor(0xfa, 0xcc, 0x15)};
    return (isDark(palette) ? dark : light)[node % 8];
}

void RowChart::drawLevel(QPainter* p) const
{
    // The reduced polyline (a few vertices per pixel column), mapped into the chart's plot area
    // and drawn with a one-device-pixel cosmetic pen, the raster engine's fast path: Qt Charts'
    // own line item, or any wider pen, strokes every vertex and costs more than the rest of a
    // frame together. Two offset copies give the line a weight of about two device pixels.
    const QRectF p0 = plot();
    if (m_gateRow) // a concurrency limiter keeps no rate level: drawServer draws its lanes
        return;
    if (!m_keyLines.empty()) {
        drawKeyLines(p);
        return;
    }
    if (m_frame->trace && !m_frame->trace->results.at(m_row).levelReplayable) {
        // No one limiter holds this row's state: say so where the line would be.
        const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
        paintNote(*p, p0, Qt::AlignCenter,
                  !result.kind.cluster ? tr("Each client's key holds its own level: the strip shows every attempt")
                                       : tr("Each node (and the store) holds its own level: the strip shows which node decided"),
                  palette().color(QPalette::PlaceholderText));
        return;
    }
    // nginx: what it holds (its thousandths over 1000, on the requests' axis) rather than the
    // excess after each request, which a burst of 0 keeps at 0.
    const bool water = !m_nginxWater.empty();
    p->save();
    paintLevelLine(*p, area(),
                   {water ? &m_nginxWater : &m_levelPoints, water ? 1000.0 : 1.0, m_levelAxis->max(), levelColor(), visibleRight()},
                   m_levelLine);
    // Each rejection's leftover, in nginx's own unit, where the line looks as if it had room.
    paintLeftovers(*p, area(), {m_nginxLeft, m_levelAxis->max(), m_playhead ? std::optional(m_playhead->t) : std::nullopt},
                   smallFont(), deniedColor(palette()));
    p->restore();
}

void RowChart::drawPinned(QPainter* p) const
{
    if (!m_pinned || *m_pinned >= m_frame->trace->arrivals.size())
        return;
    const auto pinned = decisionOf(*m_frame->trace, m_row, *m_pinned);
    if (!pinned)
        return;
    const Nanos t = timesOf(*m_frame->trace, m_row)[*pinned];
    if (t < m_range.from || t >= m_range.to)
        return;
    const Verdict v = verdictAt(m_frame->trace->results.at(m_row), *pinned);
    paintPinned(*p, area(), xOf(secondsAsDouble(t)), laneY(laneOf(v)), 6.5 * markScale());
}

void RowChart::drawBox(QPainter* p) const
{
    if (!m_boxFrom || !m_boxTo)
        return;
    paintSelection(*p, area(), mapToScene(m_boxFrom->toPoint()).x(), mapToScene(m_boxTo->toPoint()).x(),
                   palette().color(QPalette::Highlight));
}

void RowChart::drawPlayhead(QPainter* p) const
{
    if (m_playhead)
        paintPlayhead(*p, area(), m_playhead->t);
}

void RowChart::drawLevelLabels(QPainter* p) const
{
    if (m_gateRow) // no rate level: each of the server's lanes labels its own axis
        return;
    std::vector<AxisLabel> labels;
    for (const double v : levelTicks())
        labels.push_back({v, levelText(v), false});
    labels.push_back({levelCeiling(), levelText(levelCeiling()), true}); // its value on the axis, its name on the line
    const QColor ink = palette().color(QPalette::WindowText), muted = palette().color(QPalette::PlaceholderText);
    paintAxisLabels(*p, area(), {labels, m_levelAxis->max()}, font(), ink, muted);
    p->setFont(font());
    paintLabel(*p, paintedLabel(LabelKind::Ceiling), ceilingTagText(), palette().color(QPalette::Base), muted, std::nullopt);
    drawThousandths(p);
}

QString RowChart::levelText(double v) const
{
    return QLocale().toString(v, 'g', 4) + (facts(algorithm()).levelUnit.ends_with("(s)") ? " s" : "");
}

QString RowChart::ceilingTagText() const { return ceilingName() + " " + levelText(levelCeiling()); }

QRectF RowChart::ceilingTagBox() const
{
    if (m_gateRow || !m_frame->trace)
        return {};
    const QRectF p0 = plot();
    const QFontMetricsF fm(font());
    const QString name = ceilingTagText();
    const double y = p0.bottom() - levelCeiling() / m_levelAxis->max() * p0.height();
    // Under the line when it runs near the top of the plot, over it otherwise.
    const double tagTop = y - fm.height() - 1 < p0.top() ? y + 2 : y - fm.height() - 1;
    return {p0.right() - fm.horizontalAdvance(name) - 6, tagTop, fm.horizontalAdvance(name) + 4, fm.height()};
}

std::vector<double> RowChart::levelTicks() const
{
    // Nice ticks, as many as fit with a label's height between them, less any too near the
    // ceiling, which is labelled on its own.
    const QRectF p0 = plot();
    const double top = m_levelAxis->max(), ceiling = levelCeiling();
    const double labelHeight = QFontMetricsF(font()).height();
    const int room = std::max(1, int(p0.height() / (labelHeight * 1.6)));
    const double step = niceStep(top, room);
    std::vector<double> ticks;
    for (int k = 0; k <= room + 1; ++k) {
        const double v = k * step;
        if (v > top * (1 + 1e-9))
            break;
        if (std::abs(v - ceiling) / top * p0.height() >= labelHeight * 0.9)
            ticks.push_back(v);
    }
    return ticks;
}

void RowChart::drawBoundaries(QPainter* p) const
{
    if (facts(algorithm()).reads != ConfigUse::LimitWindow || m_gateRow)
        return; // the buckets, and a concurrency limiter alone, have no windows
    WindowBands bands;
    bands.window = measuredWindow(); // a product given its own options: its own period
    bands.dark = palette().color(QPalette::Base).lightness() < 128;
    // At the playhead, the sliding limiters count the trailing window (t - W, t]: it is shaded.
    const Algorithm a = algorithm();
    if (m_playhead && (a == Algorithm::SlidingWindowLog || a == Algorithm::SlidingWindowCounter))
        bands.trailingAt = m_playhead->t;
    paintWindowBands(*p, area(), bands); // through the attempts lane: retries pile up at a window's start
}

} // namespace ratelab::ui
