#include "panels/atscalepanel.h"

#include "engine/clients.h"
#include "arithmetic/decimal.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ratelab::ui {

AtScalePanel::AtScalePanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_keysControl(new SliderValue(tr("&Keys"), 1, double(kMaxKeys), 0, "", SliderValue::Scale::Log))
    , m_table(new QTableWidget(0, 3))
{
    m_keysControl->setToolTip(tr("Active keys: users, API keys or IPs each with its own limiter"));
    m_keysControl->setCheck([](const QString& text) -> QString {
        try {
            (void)parseIntegerIn(text.toStdString(), 1, kMaxKeys);
            return {};
        } catch (const InputError& e) {
            return QString::fromUtf8(e.what());
        }
    });
    connect(m_keysControl, &SliderValue::edited, this, [this](const QString& text) {
        try {
            m_keys = parseIntegerIn(text.toStdString(), 1, kMaxKeys);
        } catch (const InputError&) {
        }
        refresh();
    });
    m_table->setHorizontalHeaderLabels({tr("Algorithm"), tr("Per key"), tr("All keys")});
    m_table->verticalHeader()->hide();
    // Two lines a row (bytes over entries) keep the figures whole in a narrow dock; the
    // algorithm's name wraps, or gives way (whole in its tooltip): the figures are the point.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(40);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setAccessibleName(tr("Memory per key and for all keys"));
    m_table->setTabKeyNavigation(false); // Tab leaves the table (the arrows move in it)
    auto* note = new QLabel(tr("The worst case at these settings, 8 bytes a stored field: the log keeps up to one "
                               "timestamp per admitted request in its window, the others a fixed few fields."));
    note->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addWidget(m_keysControl);
    layout->addWidget(m_table, 1);
    layout->addWidget(note);
    connect(m_document, &ScenarioDocument::changed, this, &AtScalePanel::refresh);
    refresh();
}

void AtScalePanel::refresh()
{
    const QLocale locale;
    m_keysControl->show(QString::number(m_keys), double(m_keys));
    const Scenario& s = m_document->scenario();
    m_table->setRowCount(int(s.algorithms.size()));
    for (int r = 0; r < int(s.algorithms.size()); ++r) {
        const Algorithm a = s.algorithms[std::size_t(r)];
        Memory one, all;
        bool sized = true;
        try {
            one = worstCaseMemory(a, s.config);
            all = memoryAtScale(a, s.config, m_keys);
        } catch (const InputError&) { // a product refusing these settings: the banner says why
            sized = false;
        }
        const QString cells[] = {
            QString::fromUtf8(algorithmTitle(a).data()),
            !sized ? tr("—")
                   : tr("%1 B\n%2 %3").arg(locale.toString(qlonglong(one.bytes))).arg(locale.toString(qlonglong(one.entries)))
                         .arg(one.entries == 1 ? tr("entry") : tr("entries")),
            !sized ? tr("—")
                   : tr("%1\n%2 entries").arg(QString::fromStdString(humanBytes(all.bytes))).arg(locale.toString(qlonglong(all.entries)))};
        for (int c = 0; c < 3; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
            if (c == 0)
                item->setToolTip(cells[0]);
            m_table->setItem(r, c, item);
        }
    }
}

} // namespace ratelab::ui
