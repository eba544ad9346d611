#include "summarytable.h"

#include "explain.h"

#include <QHeaderView>
#include <QLocale>

namespace ratelab::ui {

SummaryTable::SummaryTable(QWidget* parent)
    : QTableWidget(parent)
{
    setColumnCount(7);
    setHorizontalHeaderLabels({tr("Algorithm"), tr("Allowed"), tr("Denied"), tr("Delayed"), tr("Max in a window"),
                               tr("Overshoot"), tr("Memory/key")});
    horizontalHeaderItem(4)->setToolTip(tr("The most requests admitted within any window of length W, (t - W, t], over "
                                           "the whole scenario: where a limiter lets through more than its limit"));
    horizontalHeaderItem(5)->setToolTip(tr("Max in a window divided by the limit L: 1.00x keeps the limit exactly, 2.00x "
                                           "admits twice it (the fixed window at a boundary)"));
    horizontalHeaderItem(6)->setToolTip(tr("State the limiter holds for one client key at the end, 8 bytes a stored "
                                           "field: the log grows with the limit, the others stay constant"));
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
        const QLocale locale;
        cell(r, 1, locale.toString(m.allowed));
        cell(r, 2, locale.toString(m.denied));
        cell(r, 3, locale.toString(m.delayed));
        cell(r, 4, locale.toString(m.maxInWindow));
        cell(r, 5, QString::number(m.overshoot, 'f', 2) + "x");
        cell(r, 6, QString("%1 B (%2 %3)").arg(m.memory.bytes).arg(m.memory.entries).arg(m.memory.entries == 1 ? "entry" : "entries"));
    }
    updateGeometry();
}

void SummaryTable::setCounts(const RunningCounts& counts, std::optional<Nanos> upTo)
{
    const QLocale locale;
    for (int r = 0; r < rowCount(); ++r) {
        const Counts& c = counts.row(std::size_t(r));
        item(r, 1)->setText(locale.toString(c.admitted));
        item(r, 2)->setText(locale.toString(c.denied));
        item(r, 3)->setText(locale.toString(c.delayed));
    }
    const QString soFar = upTo ? tr(" so far") : QString();
    horizontalHeaderItem(1)->setText(tr("Allowed") + soFar);
    horizontalHeaderItem(2)->setText(tr("Denied") + soFar);
    horizontalHeaderItem(3)->setText(tr("Delayed") + soFar);
    const QString when = upTo ? tr("up to the playhead at %1 s").arg(QString::fromStdString(explainSeconds(*upTo)))
                              : tr("over the whole scenario");
    for (int c = 1; c <= 3; ++c)
        horizontalHeaderItem(c)->setToolTip(tr("Requests %1").arg(when));
}

QSize SummaryTable::sizeHint() const
{
    int h = horizontalHeader()->height() + 2 * frameWidth();
    for (int r = 0; r < rowCount(); ++r)
        h += rowHeight(r);
    return {QTableWidget::sizeHint().width(), h};
}

} // namespace ratelab::ui
