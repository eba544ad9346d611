// RowChart's strip of marks above the level plot: one mark per decision where they fit, else a
// column of counts per pixel, and the queue's departures.
#include "chart/rowchart.h"

#include "engine/clients.h"
#include "report/report_run.h"
#include "scenario/rows.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ratelab::ui {

// kOutcomeColour + an Outcome is a mark's colour key for an attempt coloured by its outcome
// (past any node or client number).
constexpr int kOutcomeColour = 1000;

namespace {

// Badge counts the marks of one instant in a lane, or of several merged.
struct Badge {
    double markRight = 0; // right edge of the marks it counts
    double markLeft = 0;
    std::int64_t count = 0;
    Nanos from = 0, to = 0;   // the instants it counts
    std::int64_t atFirst = 0; // of them at `from`
    std::int64_t instants = 1;
};

QString badgeText(std::int64_t n) { return QString::fromUtf8("\u00d7") + QLocale().toString(n); }

// mergedBadges lays out one lane's badges: a badge that would run into the next instant's marks
// merges with them (it moves right of them and counts them too), so badges never stack or cover
// a mark. A lone mark carries no badge; lone marks that lead, each within a badge's reach of the
// next, into marks a badge counts are counted by it too: a run's badge says the run's whole
// count (31 denied drawn as one run read "x30" when its first mark stood alone).
std::vector<Badge> mergedBadges(const std::vector<Badge>& list, const QFontMetricsF& metrics)
{
    const auto reaches = [&](const Badge& b, const Badge& next) {
        return next.markLeft < b.markRight + 3 + metrics.horizontalAdvance(badgeText(b.count)) + 2;
    };
    const auto absorb = [](Badge& b, const Badge& next) {
        b.count += next.count;
        b.markRight = next.markRight;
        b.to = next.to;
        ++b.instants;
    };
    std::vector<Badge> out;
    for (std::size_t k = 0; k < list.size();) {
        std::size_t lead = k; // the lone marks from k lead up to `lead`
        while (lead + 1 < list.size() && list[lead].count == 1 && reaches(list[lead], list[lead + 1]))
            ++lead;
        const bool led = lead > k && list[lead].count >= 2;
        Badge b = list[k++];
        for (; led && k <= lead; ++k)
            absorb(b, list[k]);
        for (; k < list.size() && b.count >= 2 && reaches(b, list[k]); ++k)
            absorb(b, list[k]);
        if (b.count >= 2)
            out.push_back(b);
    }
    return out;
}

} // namespace

std::vector<std::int32_t> RowChart::sentPerColumn(const AlgorithmTrace& result, const ReducedRow& r) const
{
    std::vector<std::int32_t> sent(r.columns.size(), 0);
    const auto& times = timesOf(*m_frame->trace, m_row);
    const int n = int(r.columns.size());
    int k = 0;
    for (std::size_t i = r.firstRequest; i < std::min(r.endRequest, shownEnd()); ++i) {
        while (k + 1 < n && times[i] >= columnStart(r.fromNanos, r.toNanos, n, k + 1))
            ++k;
        if (result.previousAttempt[i] < 0)
            ++sent[std::size_t(k)];
    }
    return sent;
}

void RowChart::drawStrip(QPainter* p) const
{
    const QRectF clip = paintStripBand(*p, area(), palette().color(QPalette::AlternateBase), visibleRight());
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    const ReducedRow& r = m_frame->rows.at(m_row);
    m_badgeTips.clear(); // only the badges drawn now have a tooltip
    if (exactMarks()) {
        drawExactMarks(p, result, r);
        return;
    }
    // Veiled, a column counts the requests the clients sent, not their retries: a retry exists
    // only because an attempt was denied, and a bar where only retries fall would answer.
    const std::vector<std::int32_t> sent = m_veiled && !result.previousAttempt.empty() ? sentPerColumn(result, r)
                                                                                        : std::vector<std::int32_t>{};
    StripBars bars;
    bars.columns = r.columns;
    bars.sent = sent;
    bars.outcomes = m_outcomeColumns;
    bars.veiled = m_veiled;
    bars.bottom = {laneY(Lane::Admitted) + 4, laneY(Lane::Delayed) + 4, laneY(Lane::Denied) + 4};
    bars.fullHeight = laneHeight() + 1;
    bars.colour = {admittedColor(palette()), m_veiled ? veiledColor() : delayedColor(palette()), deniedColor(palette())};
    for (std::size_t o = 0; o < bars.outcomeColour.size(); ++o)
        bars.outcomeColour[o] = outcomeColor(Outcome(o), palette());
    bars.unservedAdmitted = admittedColor();
    paintStripBars(*p, area(), bars, clip, m_barCanvas);
}

// ExactMarks is what drawing the exact marks keeps from one instant to the next: how marks are
// coloured, the instant's groups, and each lane's badges.
struct RowChart::ExactMarks {
    // MarkGroup is the decisions of one instant drawn as one mark.
    struct MarkGroup {
        std::int64_t count = 0;
        std::int64_t maxCost = 1;
        bool retry = false;
    };
    const std::vector<Nanos>& times;
    std::size_t end = 0;
    bool nodes = false;
    bool clientColours = false;
    bool costs = false;
    bool retries = false;
    QFont badge{};
    // Per lane, and per node on a cluster (at most 64), first attempts and retries apart.
    std::map<std::tuple<int, int, bool>, MarkGroup> groups{};
    std::vector<Badge> laneBadges[3]{};
};

void RowChart::drawExactMarks(QPainter* p, const AlgorithmTrace& result, const ReducedRow& r) const
{
    // Decisions at one instant share a mark per lane (per node on a cluster), with a badge
    // counting them ("x10"). A retry is hollow, linked to the attempt whose denial caused it; a
    // request that costs more than 1 has a larger mark.
    const Trace& trace = *m_frame->trace;
    ExactMarks marks{timesOf(trace, m_row), shownEnd(), result.kind.cluster};
    // A few clients (2 to 8) get a colour each, as a cluster's nodes do: who was held back shows.
    marks.clientColours = result.clients && result.clients->requests > 0 && clientCount() >= 2 && clientCount() <= 8;
    marks.costs = !trace.costs.empty() && !result.kind.attempts;
    marks.badge = font();
    marks.badge.setBold(true);
    marks.badge.setPixelSize(std::max(8, laneHeight() - 1)); // fits its lane
    // Veiled, a retry is not drawn: it exists only because an attempt was denied, so its mark
    // (or its link, or a badge counting it) would answer the question. The room sees the
    // requests the clients send, as they would without a limiter.
    marks.retries = !result.previousAttempt.empty() && !m_veiled;
    if (marks.retries) // the links first, under the marks
        drawRetryLinks(p, result, r, marks.end);
    // Badges are laid out per lane after the marks (mergedBadges).
    m_badgeTips.clear();
    for (std::size_t i = r.firstRequest; i < marks.end;) {
        const std::size_t j = groupInstant(result, marks, i);
        drawInstantMarks(p, marks, marks.times[i]);
        i = j;
    }
    drawBadges(p, marks);
}

void RowChart::drawRetryLinks(QPainter* p, const AlgorithmTrace& result, const ReducedRow& r, std::size_t end) const
{
    const auto& times = timesOf(*m_frame->trace, m_row);
    std::vector<QLineF> links;
    for (std::size_t i = r.firstRequest; i < end; ++i)
        if (const std::int64_t from = result.previousAttempt[i]; from >= 0) {
            const auto j = std::size_t(from);
            links.emplace_back(QPointF(xOf(secondsAsDouble(times[j])), laneY(laneOf(verdictAt(result, j)))),
                               QPointF(xOf(secondsAsDouble(times[i])), laneY(laneOf(verdictAt(result, i)))));
        }
    paintRetryLinks(*p, links, palette().color(QPalette::PlaceholderText));
}

// groupInstant groups the decisions at decision i's instant into marks.groups; it returns one past
// the instant's last decision.
std::size_t RowChart::groupInstant(const AlgorithmTrace& result, ExactMarks& marks, std::size_t i) const
{
    const Trace& trace = *m_frame->trace;
    marks.groups.clear();
    std::size_t j = i;
    for (; j < marks.end && marks.times[j] == marks.times[i]; ++j) {
        const bool retry = !result.previousAttempt.empty() && result.previousAttempt[j] >= 0;
        if (retry && !marks.retries)
            continue;
        // With a server, an admitted attempt is coloured by what became of it there.
        const std::optional<Outcome> served = outcomeOf(j);
        const int colour = served && *served != Outcome::NotAdmitted ? kOutcomeColour + int(*served)
                           : marks.nodes                            ? int(result.nodes[j])
                           : marks.clientColours                    ? int((*result.log)[j].client)
                                                                    : -1;
        ExactMarks::MarkGroup& g = marks.groups[{int(laneOf(verdictAt(result, j))), colour, retry}];
        ++g.count;
        g.retry = retry;
        if (marks.costs)
            g.maxCost = std::max(g.maxCost, trace.costs[j]);
    }
    return j;
}

// drawInstantMarks draws one instant's groups, each lane's marks side by side (one per node,
// retries apart), and adds each lane's badge.
void RowChart::drawInstantMarks(QPainter* p, ExactMarks& marks, Nanos instant) const
{
    const double x = xOf(secondsAsDouble(instant));
    std::int64_t laneCount[3] = {0, 0, 0};
    double laneRight[3] = {x, x, x};
    int lastLane = -1;
    double offset = 0;
    for (const auto& [key, g] : marks.groups) {
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
                  : node >= kOutcomeColour ? outcomeColor(Outcome(node - kOutcomeColour), palette())
                  : node >= 0              ? nodeColor(node, palette())
                                           : laneColor(lane, palette()),
                  g.retry);
        laneCount[laneIndex] += g.count;
        laneRight[laneIndex] = at.x() + 4 * markScale() * grow;
    }
    for (int lane = 0; lane < 3; ++lane)
        if (laneCount[lane] > 0)
            marks.laneBadges[lane].push_back({laneRight[lane], x - 4 * markScale(), laneCount[lane], instant, instant,
                                              laneCount[lane], 1});
}

void RowChart::drawBadges(QPainter* p, const ExactMarks& marks) const
{
    const QFontMetricsF badgeMetrics(marks.badge);
    std::vector<StripBadge> badges;
    for (int lane = 0; lane < 3; ++lane) {
        for (const Badge& b : mergedBadges(marks.laneBadges[lane], badgeMetrics)) {
            const double y = laneY(Lane(lane));
            const QString text = badgeText(b.count);
            badges.push_back({QRectF(b.markRight + 2, y - badgeMetrics.height() / 2.0, badgeMetrics.horizontalAdvance(text) + 2,
                                     badgeMetrics.height()),
                              QRectF(b.markRight + 3, y - laneHeight() / 2.0, 80, laneHeight()), text});
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
    paintBadges(*p, badges, marks.badge, palette().color(QPalette::WindowText), palette().color(QPalette::AlternateBase));
}

void RowChart::drawDepartures(QPainter* p) const
{
    if (m_departures.empty())
        return;
    // Along the bottom of the level plot, where the line steps down as each one leaves: never
    // on top of the arrivals' marks in the strip.
    const std::size_t end = shownEnd();
    std::vector<Nanos> shown; // the departures of requests shown, not after the playhead
    for (const auto& [request, leaves] : m_departures)
        if (request < end && !(m_playhead && leaves > m_playhead->t))
            shown.push_back(leaves);
    paintDepartures(*p, area(), shown, 3.2 * markScale(), delayedColor(palette()));
}

void RowChart::paintMark(QPainter* p, QPointF c, Lane lane, double scale, QColor color, bool hollow)
{
    ui::paintMark(*p, c, lane, scale, color.isValid() ? color : laneColor(lane), hollow);
}

} // namespace ratelab::ui
