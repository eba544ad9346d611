#include "summarytable.h"

#include <QHeaderView>

namespace ratelab::ui {

SummaryTable::SummaryTable(QWidget* parent)
    : QTableWidget(parent)
{
    setColumnCount(7);
    setHorizontalHeaderLabels({"Algorithm", "Allowed", "Denied", "Delayed", "Max in a window", "Overshoot",
                               "Memory/key"});
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 3);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    // Numbers take what they need; the names column gets the rest.
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    setEditTriggers(NoEditTriggers);
    setSelectionMode(NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void SummaryTable::setFrame(const Frame& frame)
{
    if (!frame.trace)
        return;
    const auto& results = frame.trace->results;
    setRowCount(int(results.size()));
    const auto cell = [this](int r, int c, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
        setItem(r, c, item);
    };
    for (int r = 0; r < int(results.size()); ++r) {
        const Metrics& m = results[r].metrics;
        cell(r, 0, QString::fromUtf8(algorithmTitle(results[r].algorithm).data()));
        cell(r, 1, QString::number(m.allowed));
        cell(r, 2, QString::number(m.denied));
        cell(r, 3, QString::number(m.delayed));
        cell(r, 4, QString::number(m.maxInWindow));
        cell(r, 5, QString::number(m.overshoot, 'f', 2) + "x");
        cell(r, 6, QString("%1 B (%2 %3)").arg(m.memory.bytes).arg(m.memory.entries).arg(m.memory.entries == 1 ? "entry" : "entries"));
    }
    updateGeometry();
}

QSize SummaryTable::sizeHint() const
{
    int h = horizontalHeader()->height() + 2 * frameWidth();
    for (int r = 0; r < rowCount(); ++r)
        h += rowHeight(r);
    return {QTableWidget::sizeHint().width(), h};
}

} // namespace ratelab::ui
