// RowChart's captions over the plot, placed in one pass so that none overprints another: the
// ceiling's name, the attempt bars' peak and caption, the key of the node or client lines, the
// caption of a server behind a rate limiter, the bound's label and a block's caption. Each goes
// to the first of its candidate places that keeps clear of the captions placed before it (and,
// where it can, of the lines); a caption placed alone would land on another's box whenever their
// places met (the server's caption across the top of the plot, under "limit 10").
#include "chart/rowchart.h"

#include <QFontMetricsF>
#include <QLocale>
#include <QValueAxis>

#include <algorithm>

namespace ratelab::ui {

QFont RowChart::smallFont() const
{
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    return small;
}

std::vector<RowChart::PlotLabel> RowChart::plotLabels() const
{
    std::vector<PlotLabel> labels;
    if (!m_frame->trace || m_frame->rows.empty() || !m_range.isValid())
        return labels;
    std::vector<QRectF> taken;
    const auto add = [&](LabelKind kind, const QString& text, const QRectF& box) {
        if (box.isEmpty())
            return;
        labels.push_back({kind, text, box});
        taken.push_back(box);
    };
    add(LabelKind::Ceiling, ceilingTagText(), ceilingTagBox());
    if (m_veiled) // only the axis and the ceiling are drawn: nothing else may tell the decisions
        return labels;
    if (!m_gateRow) { // a concurrency limiter's own lanes caption themselves
        if (m_attemptRates) {
            add(LabelKind::AttemptsPeak, attemptsPeakText(), attemptsPeakBox(taken));
            add(LabelKind::AttemptsCaption, tr("bars: attempts a second (retries on top)"), attemptsCaptionBox(taken));
        }
        if (!m_keyLines.empty())
            add(LabelKind::Key, keyNames().join(", "), keyBoxClearOf(taken));
        add(LabelKind::ServerCaption, serverCaptionText(), serverCaptionBox(taken));
    }
    add(LabelKind::Bound, boundLabel(), boundLabelBoxClearOf(taken));
    add(LabelKind::Block, blockCaption(), blockCaptionBoxClearOf(taken));
    return labels;
}

QRectF RowChart::paintedLabel(LabelKind kind) const
{
    for (const PlotLabel& l : m_labels)
        if (l.kind == kind)
            return l.box;
    return {};
}

QRectF RowChart::keyBox() const
{
    for (const PlotLabel& l : plotLabels())
        if (l.kind == LabelKind::Key)
            return l.box;
    return {};
}

QRectF RowChart::boundLabelBox() const
{
    for (const PlotLabel& l : plotLabels())
        if (l.kind == LabelKind::Bound)
            return l.box;
    return {};
}

QRectF RowChart::blockCaptionBox() const
{
    for (const PlotLabel& l : plotLabels())
        if (l.kind == LabelKind::Block)
            return l.box;
    return {};
}

QString RowChart::attemptsPeakText() const
{
    if (!m_attemptRates)
        return {};
    const AttemptBuckets& b = *m_attemptRates;
    std::int64_t peak = 1;
    for (std::size_t k = 0; k < b.first.size(); ++k)
        peak = std::max(peak, b.first[k] + b.retries[k]);
    return tr("%1/s").arg(QLocale().toString(double(peak) / (double(b.widthNanos) / 1e9), 'g', 4));
}

QRectF RowChart::attemptsPeakBox(const std::vector<QRectF>& taken) const
{
    // Over the tallest bar (the bars have their own scale: it says the rate), once the playhead
    // has reached it; beside its top when that is taken.
    if (!m_attemptRates || m_attemptRates->first.empty())
        return {};
    const AttemptBuckets& b = *m_attemptRates;
    const QRectF p0 = plot();
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double sx = p0.width() / (to - from), width = double(b.widthNanos) / 1e9;
    std::size_t tallest = 0;
    std::int64_t peak = 1;
    for (std::size_t k = 0; k < b.first.size(); ++k) {
        if (b.first[k] + b.retries[k] > b.first[tallest] + b.retries[tallest])
            tallest = k;
        peak = std::max(peak, b.first[k] + b.retries[k]);
    }
    const double t0 = double(b.from) / 1e9 + double(tallest) * width;
    if (m_playhead && t0 > secondsAsDouble(m_playhead->t))
        return {};
    const QFontMetricsF fm(smallFont());
    const double w = fm.horizontalAdvance(attemptsPeakText()) + 4, h = fm.height();
    const double centre = p0.left() + (t0 + width / 2 - from) * sx;
    const auto inside = [&](double left) { return std::clamp(left, p0.left(), std::max(p0.left(), p0.right() - w)); };
    const double barTop = p0.bottom() - double(b.first[tallest] + b.retries[tallest]) / double(peak) * p0.height() / 3 - h - 1;
    const std::vector<QRectF> candidates{QRectF(inside(centre - w / 2), barTop, w, h), QRectF(inside(centre - w * 1.5 - 4), barTop, w, h),
                                         QRectF(inside(centre + w / 2 + 4), barTop, w, h), QRectF(inside(centre - w / 2), barTop - h - 2, w, h)};
    return firstClearOf(candidates, taken, [](const QRectF&) { return true; });
}

QRectF RowChart::attemptsCaptionBox(const std::vector<QRectF>& taken) const
{
    // Above the bars' third of the plot, at its right; at its left, or a line higher, when that
    // is taken.
    if (!m_attemptRates)
        return {};
    const QRectF p0 = plot();
    const QFontMetricsF fm(smallFont());
    const double w = fm.horizontalAdvance(tr("bars: attempts a second (retries on top)")) + 4, h = fm.height();
    const double y = p0.bottom() - p0.height() / 3 - h - 2;
    const double right = std::max(p0.left(), p0.right() - 6 - w), left = p0.left() + 4;
    const std::vector<QRectF> candidates{QRectF(right, y, w, h), QRectF(left, y, w, h), QRectF(right, y - h - 2, w, h),
                                         QRectF(left, y - h - 2, w, h)};
    return firstClearOf(candidates, taken, [](const QRectF&) { return true; });
}

} // namespace ratelab::ui
