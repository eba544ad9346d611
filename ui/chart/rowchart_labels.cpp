// RowChart's captions over the plot, placed in one pass so that none overprints another: the
// ceiling's name, the key of the node or client lines, the bound's label and a block's caption.
// Each goes to the first of its candidate places that keeps clear of the captions placed before
// it (and, where it can, of the lines); a caption placed alone would land on another's box
// whenever their places met.
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
    if (!m_gateRow && !m_keyLines.empty()) // a concurrency limiter's own lanes caption themselves
        add(LabelKind::Key, keyNames().join(", "), keyBoxClearOf(taken));
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

} // namespace ratelab::ui
