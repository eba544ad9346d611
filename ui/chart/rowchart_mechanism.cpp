// RowChart's managed services drawn by their mechanism (rowchart.h): a Cloudflare or AWS WAF
// rule's block as a shaded span, where its line sits at 0 while every request is refused, and an
// API Gateway usage plan's quota as a counter against its quota_limit, where the tokens' line
// stays full while the quota runs out.
#include "chart/rowchart.h"

#include "limiters/products/aws_api_gateway.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace ratelab::ui {

namespace {

// QuotaLine steps the quota counter's line: at each admission in view and back to 0 at each
// period's start, one step a pixel column (`column` seconds) at most, the last value in it winning.
struct QuotaLine {
    QList<QPointF>& points;
    double from = 0, to = 0, column = 0;
    double atFrom = 0; // the count where the view begins

    void step(double t, double before, double after)
    {
        if (t < from)
            atFrom = after;
        if (t < from || t > to)
            return;
        if (points.isEmpty())
            points << QPointF(from, before);
        if (points.size() >= 2 && t - points[points.size() - 2].x() < column)
            points.back().setY(after);
        else
            points << QPointF(t, before) << QPointF(t, after);
    }
};
QString secondsText(Nanos t) { return QString::fromStdString(formatSeconds(t)) + QStringLiteral(" s"); }
} // namespace

void RowChart::buildBlockSpans()
{
    m_blockSpans.clear();
    const AlgorithmTrace& result = m_frame->trace->results.at(m_row);
    if ((result.algorithm != Algorithm::CloudflareRate && result.algorithm != Algorithm::AwsWafRate)
        || !result.kind.oneLimiter())
        return;
    // Every denial waits out the block it met: the union of their [t, t + retry_after).
    const std::vector<Nanos>& times = m_frame->trace->arrivals;
    for (std::size_t i = 0; i < decisionCount(result) && i < times.size(); ++i) {
        if (verdictAt(result, i) != Verdict::Denied)
            continue;
        const Decision d = ratelab::decisionAt(*m_frame->trace, m_row, i);
        if (d.retryNever() || d.retryAfter <= 0)
            continue;
        const Nanos from = times[i], to = times[i] + d.retryAfter;
        if (!m_blockSpans.empty() && from <= m_blockSpans.back().second)
            m_blockSpans.back().second = std::max(m_blockSpans.back().second, to);
        else
            m_blockSpans.emplace_back(from, to);
    }
}

QString RowChart::blockCaption() const
{
    if (m_blockSpans.empty())
        return {};
    const auto& [from, to] = m_blockSpans.front();
    // A block that outlasts the span shown says so: its end is not drawn, and a caption naming a
    // time the axis does not reach would read as a contradiction.
    const QString first = to > m_range.to ? tr("blocked %1 to %2, past the end of this view").arg(secondsText(from), secondsText(to))
                                          : tr("blocked %1 to %2").arg(secondsText(from), secondsText(to));
    return m_blockSpans.size() == 1 ? first : tr("%1 (and %2 more blocks)").arg(first).arg(m_blockSpans.size() - 1);
}

QRectF RowChart::blockCaptionBoxClearOf(const std::vector<QRectF>& taken) const
{
    if (m_blockSpans.empty() || m_veiled)
        return {};
    const QRectF p0 = plot();
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(blockCaption()) + 6, h = fm.height();
    const double left = std::clamp(xOf(secondsAsDouble(m_blockSpans.front().first)) + 4, p0.left() + 2, std::max(p0.left() + 2, p0.right() - w - 2));
    // Inside the first block, at a height the level line and the ceiling leave free.
    std::vector<QRectF> candidates;
    for (const double y : {0.15, 0.35, 0.6, 0.8})
        candidates.emplace_back(left, p0.top() + p0.height() * y - h / 2, w, h);
    candidates.emplace_back(left, p0.top() + 2, w, h);
    return firstClearOf(candidates, taken, [&](const QRectF& box) { return !crossesLevel(box) && !crossesCeiling(box); });
}

void RowChart::drawBlockSpans(QPainter* p) const
{
    if (m_blockSpans.empty() || m_veiled)
        return;
    QColor shade = deniedColor();
    shade.setAlpha(palette().color(QPalette::Base).lightness() < 128 ? 60 : 38);
    paintBlockSpans(*p, area(), m_blockSpans, shade, visibleRight());
    paintLabel(*p, paintedLabel(LabelKind::Block), blockCaption(), palette().color(QPalette::Base),
               palette().color(QPalette::WindowText), std::nullopt);
}

bool RowChart::buildQuota(const Frame& frame)
{
    m_quotaLimit.reset();
    const AlgorithmTrace& result = frame.trace->results.at(m_row);
    if (result.algorithm != Algorithm::AwsApiGateway || !result.kind.oneLimiter())
        return false;
    const AwsApiGateway model(frame.trace->config);
    using P = AwsApiGateway::QuotaPeriod;
    const P period = model.quotaPeriod();
    if (period == P::None)
        return false;
    m_quotaLimit = model.quotaLimit();
    m_quotaPeriod = period == P::Day ? tr("today (from midnight, UTC)")
                    : period == P::Week ? tr("this week (from Sunday, UTC)")
                                        : tr("this month (from the 1st, UTC)");
    // Units admitted since the period began, stepping at each admission in view and back to 0 at
    // each period's start; one step a pixel column at most (the last value in it wins).
    const std::vector<Nanos>& times = frame.trace->arrivals;
    const double from = secondsAsDouble(frame.range.from), to = secondsAsDouble(frame.range.to);
    const double column = (to - from) / std::max(1, plotColumns());
    std::int64_t used = 0;
    Nanos start = AwsApiGateway::periodStart(period, times.empty() ? 0 : times.front());
    m_levelPoints.clear();
    QuotaLine line{m_levelPoints, from, to, column};
    for (std::size_t i = 0; i < times.size() && i < decisionCount(result); ++i) {
        if (const Nanos next = AwsApiGateway::periodStart(period, times[i]); next != start) { // a new period: 0 again
            start = next;
            line.step(secondsAsDouble(start), double(used), 0);
            used = 0;
        }
        if (verdictAt(result, i) == Verdict::Denied)
            continue;
        const std::int64_t cost = frame.trace->costs.empty() ? 1 : frame.trace->costs[i];
        line.step(secondsAsDouble(times[i]), double(used), double(used + cost));
        used += cost;
    }
    // The periods that begin in view after the last request: each starts again from 0.
    const Nanos longest = period == P::Day ? 86'400 * kNanosPerSecond : period == P::Week ? 7 * 86'400 * kNanosPerSecond
                                                                                           : 32 * 86'400 * kNanosPerSecond;
    for (Nanos next = AwsApiGateway::periodStart(period, start + longest); next <= frame.range.to;
         next = AwsApiGateway::periodStart(period, next + longest)) {
        line.step(secondsAsDouble(next), double(used), 0);
        used = 0;
    }
    if (m_levelPoints.isEmpty())
        m_levelPoints << QPointF(from, line.atFrom);
    m_levelPoints << QPointF(to, m_levelPoints.back().y());
    m_ceilingSteps = {{from, double(*m_quotaLimit)}};
    return true;
}

} // namespace ratelab::ui
