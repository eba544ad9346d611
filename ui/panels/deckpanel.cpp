#include "panels/deckpanel.h"

#include "model/deckplayer.h"
#include "model/scenariodocument.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ratelab::ui {

DeckPanel::DeckPanel(DeckPlayer* player, ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_player(player)
    , m_document(document)
    , m_empty(new QLabel(tr("No deck is open. File > Open Deck opens one (three ship with RateLab); "
                            "Add the scenario on screen starts a new one.")))
    , m_list(new QListWidget)
{
    m_empty->setWordWrap(true);
    m_list->setAccessibleName(tr("Steps of the deck"));
    const auto button = [this](const QString& text, const QString& tip, auto slot, bool needsDeck = true) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, slot);
        if (needsDeck)
            m_stepButtons << b;
        return b;
    };
    auto* grid = new QGridLayout;
    grid->addWidget(button(tr("&Add"), tr("Add the scenario on screen as a step after this one"), &DeckPanel::addCurrent, false), 0, 0);
    grid->addWidget(button(tr("Repla&ce"), tr("Make the scenario on screen this step's"), &DeckPanel::replaceCurrent), 0, 1);
    grid->addWidget(button(tr("&Text\u2026"), tr("This step's title, narrative, question and answer"), &DeckPanel::editText), 0, 2);
    grid->addWidget(button(tr("&Up"), tr("Move this step earlier"), [this] { m_player->moveStep(m_player->index(), -1); }), 1, 0);
    grid->addWidget(button(tr("Do&wn"), tr("Move this step later"), [this] { m_player->moveStep(m_player->index(), +1); }), 1, 1);
    grid->addWidget(button(tr("Re&move"), tr("Remove this step (a deck keeps one)"), [this] { m_player->removeStep(m_player->index()); }), 1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_empty);
    layout->addWidget(m_list, 1);
    layout->addLayout(grid);
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row != m_player->index())
            m_player->goTo(row);
    });
    connect(m_player, &DeckPlayer::deckChanged, this, &DeckPanel::showDeck);
    connect(m_player, &DeckPlayer::stepChanged, this, &DeckPanel::showDeck);
    showDeck();
}

void DeckPanel::showDeck()
{
    const bool open = m_player->isOpen();
    m_empty->setVisible(!open);
    m_list->setVisible(open);
    for (QPushButton* b : m_stepButtons)
        b->setEnabled(open);
    const QSignalBlocker quiet(m_list);
    m_list->clear();
    if (!open)
        return;
    for (int i = 0; i < m_player->count(); ++i) {
        const io::DeckStep& s = m_player->deck().steps[std::size_t(i)];
        auto* item = new QListWidgetItem(QString("%1. %2%3").arg(i + 1).arg(QString::fromStdString(s.scenario.title),
                                                                   s.question.empty() ? QString() : tr("  (asks)")));
        item->setToolTip(QString::fromStdString(s.question.empty() ? s.scenario.lesson : s.question));
        m_list->addItem(item);
    }
    m_list->setCurrentRow(m_player->index());
}

void DeckPanel::addCurrent()
{
    io::DeckStep step;
    step.scenario = m_document->scenario();
    if (step.scenario.title.empty())
        step.scenario.title = tr("Step %1").arg(m_player->count() + 1).toStdString();
    m_player->insertStep(m_player->isOpen() ? m_player->index() + 1 : 0, std::move(step));
}

void DeckPanel::replaceCurrent()
{
    if (m_player->isOpen())
        m_player->setScenario(m_player->index(), m_document->scenario());
}

void DeckPanel::editText()
{
    if (!m_player->isOpen())
        return;
    const io::DeckStep& s = m_player->step();
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Step %1 of %2").arg(m_player->index() + 1).arg(m_player->count()));
    auto* title = new QLineEdit(QString::fromStdString(s.scenario.title));
    auto* narrative = new QPlainTextEdit(QString::fromStdString(s.scenario.lesson));
    auto* question = new QLineEdit(QString::fromStdString(s.question));
    question->setPlaceholderText(tr("Optional: asked with the decisions hidden"));
    auto* answer = new QPlainTextEdit(QString::fromStdString(s.answer));
    answer->setPlaceholderText(tr("Shown once the decisions are revealed"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* form = new QFormLayout(&dialog);
    form->addRow(tr("&Title"), title);
    form->addRow(tr("&Narrative"), narrative);
    form->addRow(tr("&Question"), question);
    form->addRow(tr("&Answer"), answer);
    form->addRow(buttons);
    dialog.resize(560, 420);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_player->setText(m_player->index(), title->text(), narrative->toPlainText(), question->text(), answer->toPlainText());
}

} // namespace ratelab::ui
