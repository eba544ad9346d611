// RowChart's painting: the header, the level line and its labels, the strip of marks, the
// window boundaries and the playhead, all over the chart's plot area.
#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/report_run.h"
#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"
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

// kOutcomeColour + an Outcome is a mark's colour key for an attempt coloured by its outcome
// (past any node or client number).
constexpr int kOutcomeColour = 1000;

QColor RowChart::admittedColor() { return QColor(0x1a, 0x98, 0x50); }
QColor RowChart::delayedColor() { return QColor(0xf5, 0x9e, 0x0b); }
QColor RowChart::deniedColor() { return QColor(0xd7, 0x30, 0x27); }

void RowChart::drawForeground(QPainter* p, const QRectF& rect)
{
    QChartView::drawForeground(p, rect);
    if (!m_frame->trace || m_frame->rows.empty() || !m_range.isValid())
        return;
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    drawBoundaries(p);
    drawHeader(p);
    if (m_veiled) { // a question is asked: nothing drawn may answer it
        p->save();
        p->setPen(palette().color(QPalette::PlaceholderText));
        p->drawText(plot(), Qt::AlignCenter, tr("Decisions hidden: what will happen?"));
        p->restore();
    } else {
        drawBound(p);
        drawLevel(p);
    }
    drawLevelLabels(p); // over the line: a label's box interrupts the line, never the other way
    if (!m_veiled) {
        drawBoundLabel(p);
        drawServer(p);
    }
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
    QFont bold = font();
    bold.setBold(true);
    p->setFont(bold);
    p->setPen(palette().color(QPalette::WindowText));
    const QRectF header = headerRect();
    const auto [title, counts] = headerTexts();
    p->drawText(header, Qt::AlignLeft | Qt::AlignVCenter, title);
    const double titleWidth = QFontMetricsF(bold).horizontalAdvance(title);
    p->setFont(font());
    const QFontMetricsF fm(font());
    const double countsWidth = fm.horizontalAdvance(counts);
    p->drawText(header, Qt::AlignRight | Qt::AlignVCenter, counts);
    // The legend of the line takes what room is left between the title and the counts.
    const QString legend = fm.elidedText("   " + legendText(), Qt::ElideRight, header.width() - titleWidth - countsWidth - 12);
    p->setPen(palette().color(QPalette::PlaceholderText));
    p->drawText(header.adjusted(titleWidth, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, legend);
}

QRectF RowChart::headerRect() const
{
    const QRectF p0 = plot();
    return {p0.left(), 1, p0.width(), double(headerHeight())};
}

std::pair<QString, QString> RowChart::headerTexts() const
{
    // The title and the counts share the header and never overprint each other: when both do not
    // fit, the counts keep at least half of it and each is elided (the whole of both is the
    // header's tooltip).
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF bfm(bold), fm(font());
    const double width = headerRect().width(), gap = fm.horizontalAdvance(QStringLiteral("  "));
    QString title = this->title(), counts = countsText();
    if (bfm.horizontalAdvance(title) + gap + fm.horizontalAdvance(counts) > width) {
        const double countsRoom = std::max(width / 2, width - bfm.horizontalAdvance(title) - gap);
        counts = fm.elidedText(counts, Qt::ElideRight, countsRoom);
        title = bfm.elidedText(title, Qt::ElideRight, std::max(0.0, width - fm.horizontalAdvance(counts) - gap));
    }
    return {title, counts};
}

QString RowChart::countsText() const
{
    if (m_veiled)
        return tr("decisions hidden");
    const QLocale locale;
    // With a server, what it did with the row's attempts (whole run: the figures are the run's).
    const AlgorithmTrace* row = m_frame && m_frame->trace ? &m_frame->trace->results.at(m_row) : nullptr;
    const ServerFigures* server = row && row->engine && row->engine->run.server ? &*row->engine->run.server : nullptr;
    QString served;
    if (server && !m_partialCounts) {
        const std::int64_t failed = server->late + server->queueTimeouts + server->refused + server->rejected;
        served = tr(" · %1 served in time · %2 failed").arg(locale.toString(server->inTime), locale.toString(failed));
        if (server->rejected > 0)
            served += tr(" (%1 rejected)").arg(locale.toString(server->rejected));
    }
    if (server && row->engine->setup.layers.empty()) // a concurrency limiter's row: no rate verdicts
        return (m_partialCounts ? tr("so far: %1 attempts") : tr("%1 attempts")).arg(locale.toString(m_counts.admitted))
               + served;
    QString counts = (m_partialCounts ? tr("so far: %1 admitted") : tr("%1 admitted")).arg(locale.toString(m_counts.admitted));
    if (m_counts.delayed > 0)
        counts += tr(" (%1 delayed)").arg(locale.toString(m_counts.delayed));
    return counts + tr(" · %1 denied").arg(locale.toString(m_counts.denied)) + served + boundText();
}

QString RowChart::legendText() const
{
    const QString unit = QString::fromUtf8(levelUnit(algorithm()).data());
    if (m_veiled)
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
        return tr("%1 for %2 (%3x) · hollow: a retry%4")
            .arg(k.attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(k.attempts))
            .arg(k.requests == 1 ? tr("1 request") : tr("%1 requests").arg(k.requests))
            .arg(k.amplification, 0, 'f', 1)
            .arg(clients >= 2 && clients <= 8 ? tr(" · colour: client") : QString());
    }
    if (result.kind.layered)
        return "line: the first layer's " + unit;
    if (m_gateRow)
        return tr("line: the concurrency limit · shaded: requests in the server");
    if (!m_nginxWater.empty())
        return tr("line: what nginx holds (right: in thousandths of a request) · n/1000: what a rejected one found");
    if (!m_departures.empty())
        return "line: " + unit + ", dashed: " + ceilingName() + QString::fromUtf8(" · \u25c7 leaves the queue");
    return "line: " + unit + ", dashed: " + ceilingName();
}

int RowChart::clientCount() const
{
    const auto& s = m_frame->scenario;
    return s && s->clients ? int(std::min<std::int64_t>(s->clients->clients(), 1'000'000)) : 0;
}

QColor RowChart::nodeColor(int node)
{
    // Eight hues that stay apart in both themes and from the verdicts' lanes.
    static const QColor colors[] = {QColor(0x25, 0x63, 0xeb), QColor(0xd9, 0x46, 0xef), QColor(0x0d, 0x94, 0x88),
                                    QColor(0xea, 0x58, 0x0c), QColor(0x65, 0xa3, 0x0d), QColor(0xdb, 0x27, 0x77),
                                    QColor(0x7c, 0x3a, 0xed), QColor(0xca, 0x8a, 0x04)};
    return colors[node % 8];
}

void RowChart::drawLevel(QPainter* p) const
{
    // The reduced polyline (a few vertices per pixel column), mapped into the chart's plot area
    // and drawn with a one-device-pixel cosmetic pen, the raster engine's fast path: Qt Charts'
    // own line item, or any wider pen, strokes every vertex and costs more than the rest of a
    // frame together. Two offset copies give the line a weight of about two device pixels.
    const QRectF p0 = plot();
    drawAttemptRates(p);
    if (m_gateRow) // a concurrency limiter keeps no rate level: drawServer draws its limit
        return;
    if (!m_keyLines.empty()) {
        drawKeyLines(p);
        return;
    }
    if (m_frame->trace && !m_frame->trace->results.at(m_row).levelReplayable) {
        // No one limiter holds this row's state: say so where the line would be.
        const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
        p->save();
        p->setPen(palette().color(QPalette::PlaceholderText));
        p->drawText(p0, Qt::AlignCenter,
                    !result.kind.cluster ? tr("Each client's key holds its own level: the strip shows every attempt")
                                         : tr("Each node (and the store) holds its own level: the strip shows which node decided"));
        p->restore();
        return;
    }
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = p0.width() / (to - from), sy = p0.height() / m_levelAxis->max();
    // nginx: what it holds (its thousandths over 1000, on the requests' axis) rather than the
    // excess after each request, which a burst of 0 keeps at 0.
    const bool water = !m_nginxWater.empty();
    const QList<QPointF>& points = water ? m_nginxWater : m_levelPoints;
    QPolygonF line(points.size());
    for (qsizetype i = 0; i < points.size(); ++i)
        line[i] = QPointF(p0.left() + (points[i].x() - from) * sx, p0.bottom() - points[i].y() / (water ? 1000.0 : 1.0) * sy);
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
    // Each rejection's leftover, in nginx's own unit, where the line looks empty.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p->setFont(small);
    p->setPen(deniedColor());
    double lastRight = -1e9;
    for (const auto& [t, left] : m_nginxLeft) {
        if (t < m_range.from || t >= m_range.to || (m_playhead && t > m_playhead->t))
            continue;
        const double x = p0.left() + (secondsAsDouble(t) - from) * sx;
        const QString text = QString("%1/1000").arg(left);
        const QFontMetricsF fm(small);
        const double w = fm.horizontalAdvance(text);
        // Centred on its rejection, kept inside the plot (a rejection at its left edge included).
        const double textLeft = std::clamp(x - w / 2, p0.left() + 1, std::max(p0.left() + 1, p0.right() - w - 1));
        if (textLeft < lastRight + 4)
            continue;
        const double y = p0.bottom() - double(left) / 1000.0 * sy;
        p->drawLine(QPointF(x, y), QPointF(x, y - 6));
        p->drawText(QPointF(textLeft, std::max(y - 8, p0.top() + fm.ascent())), text);
        lastRight = textLeft + w;
    }
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
    const QRectF p0 = plot();
    const double x = xOf(secondsAsDouble(t));
    const QColor accent(0x7c, 0x3a, 0xed);
    p->save();
    p->setClipping(false);
    p->setPen(QPen(accent, 1, Qt::DashLine));
    p->drawLine(QPointF(x, p0.top() - stripHeight()), QPointF(x, p0.bottom()));
    p->setPen(QPen(accent, 2));
    p->setBrush(Qt::NoBrush);
    const Verdict v = verdictAt(m_frame->trace->results.at(m_row), *pinned);
    p->drawEllipse(QPointF(x, laneY(laneOf(v))), 6.5 * markScale(), 6.5 * markScale());
    p->restore();
}

void RowChart::drawBox(QPainter* p) const
{
    if (!m_boxFrom || !m_boxTo)
        return;
    const QRectF p0 = plot();
    const double a = mapToScene(m_boxFrom->toPoint()).x(), b = mapToScene(m_boxTo->toPoint()).x();
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(50);
    p->fillRect(QRectF(QPointF(std::min(a, b), p0.top() - stripHeight()), QPointF(std::max(a, b), p0.bottom())), fill);
}

void RowChart::drawPlayhead(QPainter* p) const
{
    if (!m_playhead || m_playhead->t >= m_range.to || m_playhead->t < m_range.from)
        return;
    const QRectF p0 = plot();
    const double x = xOf(secondsAsDouble(m_playhead->t));
    p->setClipping(false);
    p->setPen(QPen(QColor(0xea, 0x58, 0x0c), 1.5));
    p->drawLine(QPointF(x, p0.top() - stripHeight()), QPointF(x, p0.bottom()));
}

void RowChart::drawLevelLabels(QPainter* p) const
{
    const QRectF p0 = plot();
    QFont small = font();
    p->setFont(small);
    const QFontMetricsF fm(small);
    const QColor muted = palette().color(QPalette::PlaceholderText);
    const double top = m_levelAxis->max();
    const auto yOf = [&](double v) { return p0.bottom() - v / top * p0.height(); };
    const QString unitSuffix = facts(algorithm()).levelUnit.ends_with("(s)") ? " s" : "";
    const auto text = [&](double v) { return QLocale().toString(v, 'g', 4) + unitSuffix; };
    const auto label = [&](double v) {
        p->drawText(QRectF(0, yOf(v) - 8, p0.left() - 5, 16), Qt::AlignRight | Qt::AlignVCenter, text(v));
    };
    const double ceiling = levelCeiling();
    p->setPen(muted);
    for (const double v : levelTicks())
        label(v);
    if (m_gateRow) // no rate ceiling: the row's own limit is labelled on its line
        return;
    // The ceiling: its value on the axis, and its name on the dashed line.
    QFont bold = small;
    bold.setBold(true);
    p->setFont(bold);
    p->setPen(palette().color(QPalette::WindowText));
    label(ceiling);
    const QString name = QString::fromUtf8(facts(algorithm()).ceilingName.data()) + " " + text(ceiling);
    p->setFont(small);
    p->setPen(muted);
    const double y = yOf(ceiling);
    // Under the line when it runs near the top of the plot, over it otherwise.
    const double tagTop = y - fm.height() - 1 < p0.top() ? y + 2 : y - fm.height() - 1;
    const QRectF tag(p0.right() - fm.horizontalAdvance(name) - 6, tagTop, fm.horizontalAdvance(name) + 4, fm.height());
    p->fillRect(tag, palette().color(QPalette::Base));
    p->drawText(tag, Qt::AlignCenter, name);
    drawThousandths(p);
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
    if (facts(algorithm()).reads != ConfigUse::LimitWindow)
        return; // the buckets have no windows
    const Nanos w = measuredWindow(); // a product given its own options: its own period
    const QRectF p0 = plot();
    const Nanos first = m_range.from / w;
    const Nanos last = (m_range.to - 1) / w;
    if (last - first > Nanos(p0.width() / 12))
        return; // too dense to tell apart: bands would only grey the chart
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    const QColor band = dark ? QColor(255, 255, 255, 14) : QColor(0x33, 0x55, 0x99, 16);
    const QColor line = dark ? QColor(0x94, 0xa3, 0xb8, 170) : QColor(0x64, 0x74, 0x8b, 150);
    p->save();
    p->setClipRect(QRectF(p0.left(), p0.top() - stripHeight(), p0.width(), p0.height() + stripHeight()));
    for (Nanos k = first; k <= last; ++k) {
        const double x0 = xOf(secondsAsDouble(k * w)), x1 = xOf(secondsAsDouble(Nanos(std::min<Int128>(Int128(k + 1) * w, kMaxNanos))));
        if (k % 2 == 1) // alternate windows shaded: where one ends and the next begins is plain
            p->fillRect(QRectF(QPointF(x0, p0.top() - stripHeight()), QPointF(x1, p0.bottom())), band);
        if (k * w >= m_range.from) {
            p->setPen(QPen(line, 1));
            p->drawLine(QPointF(x0, p0.top() - stripHeight()), QPointF(x0, p0.bottom()));
        }
    }
    // At the playhead, the sliding limiters count the trailing window (t - W, t]: shade it.
    const Algorithm a = algorithm();
    if (m_playhead && (a == Algorithm::SlidingWindowLog || a == Algorithm::SlidingWindowCounter)) {
        const double x1 = xOf(secondsAsDouble(m_playhead->t));
        const double x0 = xOf(secondsAsDouble(m_playhead->t) - secondsAsDouble(w));
        const QColor trailing = QColor(0xea, 0x58, 0x0c, dark ? 40 : 28);
        p->fillRect(QRectF(QPointF(x0, p0.top() - stripHeight()), QPointF(x1, p0.bottom())), trailing);
    }
    p->restore();
}

void RowChart::drawStrip(QPainter* p) const
{
    const QRectF p0 = plot();
    const QRectF band(p0.left(), p0.top() - stripHeight(), p0.width(), stripHeight() - 2);
    p->fillRect(band, palette().color(QPalette::AlternateBase));
    p->setClipRect(QRectF(band.topLeft() - QPointF(6, 0), QPointF(visibleRight() + 5, band.bottom())));
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    const ReducedRow& r = m_frame->rows.at(m_row);
    m_badgeTips.clear(); // only the badges drawn now have a tooltip
    if (exactMarks()) {
        drawExactMarks(p, result, r);
        return;
    }
    // One bar per column and lane, as tall as the lane's share of the column's requests: a
    // column where 0.4% were admitted shows a hairline, not a solid bar like one at 99.6%.
    const double colWidth = p0.width() / double(r.columns.size());
    const double w = std::max(colWidth, 1.0);
    p->setRenderHint(QPainter::Antialiasing, false);
    // Per lane, looked up once a paint (a font's metrics and the plot area are not free, and a
    // row has a bar per column and lane): the bar's bottom, its full height and its brush.
    const double fullHeight = laneHeight() + 1;
    const double bottom[] = {laneY(Lane::Admitted) + 4, laneY(Lane::Delayed) + 4, laneY(Lane::Denied) + 4};
    const QBrush brush[] = {admittedColor(), m_veiled ? veiledColor() : delayedColor(), deniedColor()};
    for (std::size_t k = 0; k < r.columns.size(); ++k) {
        const Column& c = r.columns[k];
        const double total = double(c.admitted) + c.delayed + c.denied;
        if (total == 0)
            continue;
        const double x = p0.left() + k * colWidth;
        // Veiled: every request in the middle lane, grey, a full bar where there are any.
        const std::int32_t counts[] = {m_veiled ? 0 : c.admitted, m_veiled ? std::int32_t(total) : c.delayed,
                                       m_veiled ? 0 : c.denied};
        for (int lane = 0; lane < 3; ++lane) {
            if (counts[lane] == 0)
                continue;
            const double h = std::max(1.0, fullHeight * counts[lane] / total);
            if (lane == 0 && !m_veiled && k < m_outcomeColumns.size()) // with a server: by outcome
                drawOutcomeBar(p, k, QRectF(x, bottom[lane] - h, w, h));
            else
                p->fillRect(QRectF(x, bottom[lane] - h, w, h), brush[lane]);
        }
    }
}

void RowChart::drawExactMarks(QPainter* p, const AlgorithmTrace& result, const ReducedRow& r) const
{
    // Decisions at one instant share a mark per lane (per node on a cluster), with a badge
    // counting them ("x10"). A retry is hollow, linked to the attempt whose denial caused it; a
    // request that costs more than 1 has a larger mark.
    const Trace& trace = *m_frame->trace;
    const auto& times = timesOf(trace, m_row);
    const std::size_t end = shownEnd();
    const bool nodes = result.kind.cluster;
    // A few clients (2 to 8) get a colour each, as a cluster's nodes do: who was held back shows.
    const bool clientColours = result.clients && result.clients->requests > 0 && clientCount() >= 2
                               && clientCount() <= 8;
    const bool costs = !trace.costs.empty() && !result.kind.attempts;
    QFont badge = font();
    badge.setBold(true);
    badge.setPixelSize(std::max(8, laneHeight() - 1)); // fits its lane
    if (!result.previousAttempt.empty()) { // the links first, under the marks
        QColor link = palette().color(QPalette::PlaceholderText);
        p->setPen(QPen(link, 1));
        for (std::size_t i = r.firstRequest; i < end; ++i)
            if (const std::int64_t from = result.previousAttempt[i]; from >= 0) {
                const auto j = std::size_t(from);
                p->drawLine(QPointF(xOf(secondsAsDouble(times[j])), laneY(laneOf(verdictAt(result, j)))),
                            QPointF(xOf(secondsAsDouble(times[i])), laneY(laneOf(verdictAt(result, i)))));
            }
    }
    struct Group {
        std::int64_t count = 0;
        std::int64_t maxCost = 1;
        bool retry = false;
    };
    // Badges are laid out per lane after the marks: a badge that would run into the next
    // instant's marks merges with them (it moves right of them and counts them too), so badges
    // never stack or cover a mark, and each fits its own lane.
    struct Badge {
        double markRight = 0; // right edge of the marks it counts
        double markLeft = 0;
        std::int64_t count = 0;
        Nanos from = 0, to = 0;     // the instants it counts
        std::int64_t atFirst = 0;   // of them at `from`
        std::int64_t instants = 1;
    };
    m_badgeTips.clear();
    std::vector<Badge> laneBadges[3];
    const QFontMetricsF badgeMetrics(badge);
    for (std::size_t i = r.firstRequest; i < end;) {
        std::size_t j = i;
        // Per lane, and per node on a cluster (at most 64), first attempts and retries apart.
        std::map<std::tuple<int, int, bool>, Group> groups;
        for (; j < end && times[j] == times[i]; ++j) {
            const bool retry = !result.previousAttempt.empty() && result.previousAttempt[j] >= 0;
            // With a server, an admitted attempt is coloured by what became of it there.
            const std::optional<Outcome> served = outcomeOf(j);
            const int colour = served && *served != Outcome::NotAdmitted ? kOutcomeColour + int(*served)
                               : nodes                                  ? int(result.nodes[j])
                               : clientColours                          ? int((*result.log)[j].client)
                                                                        : -1;
            Group& g = groups[{int(laneOf(verdictAt(result, j))), colour, retry}];
            ++g.count;
            g.retry = retry;
            if (costs)
                g.maxCost = std::max(g.maxCost, trace.costs[j]);
        }
        const double x = xOf(secondsAsDouble(times[i]));
        // Each lane's marks side by side (one per node, retries apart).
        std::int64_t laneCount[3] = {0, 0, 0};
        double laneRight[3] = {x, x, x};
        int lastLane = -1;
        double offset = 0;
        for (const auto& [key, g] : groups) {
            const auto [laneIndex, node, retry] = key;
            offset = laneIndex == lastLane ? offset + 9 * markScale() : 0;
            lastLane = laneIndex;
            const Lane lane = Lane(laneIndex);
            const QPointF at(x + offset, laneY(lane));
            // Mark area grows with the cost's logarithm: 1, 2, 4, 8... read as steps, capped so
            // a mark stays inside its lane.
            const double grow = g.maxCost > 1 ? std::min(1.15, 1 + 0.05 * std::log2(double(g.maxCost))) : 1.0;
            // Veiled: one shape, one grey, whatever the verdict or the node.
            paintMark(p, at, m_veiled ? Lane::Admitted : lane, markScale() * grow,
                      m_veiled                   ? veiledColor()
                      : node >= kOutcomeColour ? outcomeColor(Outcome(node - kOutcomeColour))
                      : node >= 0              ? nodeColor(node)
                                               : QColor(),
                      g.retry);
            laneCount[laneIndex] += g.count;
            laneRight[laneIndex] = at.x() + 4 * markScale() * grow;
        }
        for (int lane = 0; lane < 3; ++lane)
            if (laneCount[lane] > 0)
                laneBadges[lane].push_back({laneRight[lane], x - 4 * markScale(), laneCount[lane], times[i], times[i],
                                            laneCount[lane], 1});
        i = j;
    }
    p->setFont(badge);
    p->setPen(palette().color(QPalette::WindowText));
    const auto badgeText = [](std::int64_t n) { return QString::fromUtf8("\u00d7") + QLocale().toString(n); };
    for (int lane = 0; lane < 3; ++lane) {
        const auto& list = laneBadges[lane];
        for (std::size_t k = 0; k < list.size();) {
            Badge b = list[k++];
            // Merge the instants whose marks the badge would cover.
            while (k < list.size() && b.count >= 2
                   && list[k].markLeft < b.markRight + 3 + badgeMetrics.horizontalAdvance(badgeText(b.count)) + 2) {
                b.count += list[k].count;
                b.markRight = list[k].markRight;
                b.to = list[k].to;
                ++b.instants;
                ++k;
            }
            if (b.count < 2)
                continue;
            const double y = laneY(Lane(lane));
            const QString text = badgeText(b.count);
            // On the strip's own colour: a retry's link under the badge never runs through it.
            p->fillRect(QRectF(b.markRight + 2, y - badgeMetrics.height() / 2.0, badgeMetrics.horizontalAdvance(text) + 2,
                               badgeMetrics.height()),
                        palette().color(QPalette::AlternateBase));
            p->drawText(QRectF(b.markRight + 3, y - laneHeight() / 2.0, 80, laneHeight()), Qt::AlignLeft | Qt::AlignVCenter, text);
            // What the count groups, for its tooltip: one instant, or several the badge merged.
            const QLocale locale;
            const auto at = [](Nanos t) { return QString::fromStdString(formatSeconds(t)); };
            m_badgeTips.push_back(
                {QRectF(b.markRight + 2, y - laneHeight() / 2.0, badgeMetrics.horizontalAdvance(text) + 2, laneHeight()),
                 b.instants == 1 ? tr("%1 at %2 s").arg(locale.toString(b.count), at(b.from))
                                 : tr("%1 at %2 instants from %3 s to %4 s (%5 at %3 s)")
                                       .arg(locale.toString(b.count), locale.toString(b.instants), at(b.from), at(b.to),
                                            locale.toString(b.atFirst))});
        }
    }
}

void RowChart::drawDepartures(QPainter* p) const
{
    if (m_departures.empty())
        return;
    // Along the bottom of the level plot, where the line steps down as each one leaves: never
    // on top of the arrivals' marks in the strip.
    const std::size_t end = shownEnd();
    const double h = 3.2 * markScale();
    const double y = plot().bottom() - h - 1;
    p->save();
    p->setClipping(false);
    p->setPen(QPen(delayedColor(), 1.4));
    p->setBrush(Qt::NoBrush);
    for (const auto& [request, leaves] : m_departures) {
        if (request >= end || (m_playhead && leaves > m_playhead->t))
            continue;
        if (leaves < m_range.from || leaves >= m_range.to)
            continue;
        const double x = xOf(secondsAsDouble(leaves));
        QPolygonF diamond{{x, y - h}, {x + h, y}, {x, y + h}, {x - h, y}};
        p->drawPolygon(diamond);
    }
    p->restore();
}

void RowChart::paintMark(QPainter* p, QPointF c, Lane lane, double scale, QColor color, bool hollow)
{
    p->save();
    p->translate(c);
    p->scale(scale, scale);
    c = QPointF(0, 0);
    switch (lane) {
    case Lane::Admitted: {
        const QColor fill = color.isValid() ? color : admittedColor();
        p->setPen(hollow ? QPen(fill, 1.6) : QPen(Qt::NoPen));
        p->setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(fill));
        p->drawEllipse(c, 3.6, 3.6);
        break;
    }
    case Lane::Delayed: {
        const QColor fill = color.isValid() ? color : delayedColor();
        p->setPen(hollow ? QPen(fill, 1.6) : QPen(Qt::NoPen));
        p->setBrush(hollow ? QBrush(Qt::NoBrush) : QBrush(fill));
        QPainterPath tri;
        tri.moveTo(c + QPointF(0, -4.5));
        tri.lineTo(c + QPointF(4.5, 3.5));
        tri.lineTo(c + QPointF(-4.5, 3.5));
        tri.closeSubpath();
        p->drawPath(tri);
        break;
    }
    case Lane::Denied:
        // A cross has no inside: a denied retry is drawn thinner.
        p->setPen(QPen(color.isValid() ? color : deniedColor(), hollow ? 1.2 : 2.2, Qt::SolidLine, Qt::RoundCap));
        p->setBrush(Qt::NoBrush);
        p->drawLine(c + QPointF(-3, -3), c + QPointF(3, 3));
        p->drawLine(c + QPointF(-3, 3), c + QPointF(3, -3));
        break;
    }
    p->restore();
}

} // namespace ratelab::ui
