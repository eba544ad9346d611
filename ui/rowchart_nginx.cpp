// RowChart's nginx parts: the water nginx holds, replayed in its own unit, and the right-hand
// axis that reads it in that unit (whole thousandths of a request).
#include "rowchart.h"

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
    // Room for "120,000" (a burst of 120), when any row is nginx's; 14 px otherwise.
    return m_thousandthsRoom ? QFontMetrics(font()).horizontalAdvance("000,000") + 10 : 14;
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
    const auto labels = thousandthsLabels();
    if (labels.empty())
        return;
    const QRectF p0 = plot();
    const QFontMetricsF fm(font());
    const double top = m_levelAxis->max();
    p->save();
    for (std::size_t k = 0; k < labels.size(); ++k) {
        const auto& [v, text] = labels[k];
        const bool ceiling = k + 1 == labels.size(); // the burst nginx compares with, in bold
        QFont f = font();
        f.setBold(ceiling);
        p->setFont(f);
        p->setPen(ceiling ? palette().color(QPalette::WindowText) : palette().color(QPalette::PlaceholderText));
        const double y = p0.bottom() - v / top * p0.height();
        p->drawText(QRectF(p0.right() + 5, y - 8, rightMargin() - 5, 16), Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    // The axis's unit, beside the strip, above its top label.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p->setFont(small);
    p->setPen(palette().color(QPalette::PlaceholderText));
    p->drawText(QRectF(p0.right() + 5, p0.top() - fm.height() - 10, rightMargin() - 5, fm.height()),
                Qt::AlignLeft | Qt::AlignBottom, tr("/1000"));
    p->restore();
}

void RowChart::buildNginxWater()
{
    // nginx holds `excess` in whole thousandths and drains rate*ms/1000 of them (integer
    // division) a request: after an admission it holds excess + 1000, and a request finds
    // max(0, that - drained) (core/limiters/nginx_limit_req.h). Replayed from the decisions of the visible
    // requests, so a rejection's leftover, often 1/1000, can be read where a level of 0 is drawn.
    m_nginxWater.clear();
    m_nginxLeft.clear();
    const Frame& frame = *m_frame;
    if (!frame.trace || algorithm() != Algorithm::NginxLimitReq || frame.trace->results.at(m_row).kind.attempts
        || !exactMarks())
        return;
    const ReducedRow& r = frame.rows.at(m_row);
    const Trace& trace = *frame.trace;
    const std::int64_t rate = nginxRateThousandths(trace.config.rate());
    constexpr Nanos kMs = 1'000'000;
    std::optional<std::pair<std::int64_t, std::int64_t>> held; // (thousandths after the admission, ms)
    const auto heldAt = [&](std::int64_t ms) {
        const std::int64_t drained = std::int64_t(Int128(rate) * (ms - held->second) / 1000);
        return std::max<std::int64_t>(0, held->first - drained);
    };
    for (std::size_t i = r.firstRequest; i < r.endRequest; ++i) {
        const Nanos t = trace.arrivals[i];
        const std::int64_t ms = t / kMs;
        const Decision d = ratelab::decisionAt(trace, m_row, i);
        if (held) { // the drain up to this request, a vertex a millisecond
            const std::int64_t before = heldAt(ms);
            const std::int64_t empties = held->second + (rate > 0 ? (held->first * 1000 + rate - 1) / rate : 0);
            if (before == 0 && empties < ms)
                m_nginxWater.append(QPointF(secondsAsDouble(empties * kMs), 0));
            m_nginxWater.append(QPointF(secondsAsDouble(ms * kMs), double(before)));
            if (!d.allowed)
                m_nginxLeft.emplace_back(t, before);
        }
        if (d.allowed) {
            held = {std::llround(d.level * 1000) + 1000 * costOf(trace, i), ms};
            m_nginxWater.append(QPointF(secondsAsDouble(ms * kMs), double(held->first)));
        }
    }
    if (held) { // the drain after the last, to empty
        const std::int64_t empties = held->second + (rate > 0 ? (held->first * 1000 + rate - 1) / rate : 0);
        m_nginxWater.append(QPointF(secondsAsDouble(empties * kMs), 0));
    }
}

} // namespace ratelab::ui
