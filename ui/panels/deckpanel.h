// DeckPanel lists the open deck's steps and edits the deck: go to a step, add the scenario on
// screen as a step, replace a step's scenario with it, move, remove, and write a step's title,
// narrative, question and answer. It draws the DeckPlayer and asks it for every change.
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace ratelab::ui {

class DeckPlayer;
class ScenarioDocument;

class DeckPanel : public QWidget {
    Q_OBJECT
public:
    DeckPanel(DeckPlayer* player, ScenarioDocument* document, QWidget* parent = nullptr);
    QListWidget* list() const { return m_list; }

public slots:
    // addCurrent inserts the scenario on screen as a step after the one shown (a new deck when
    // none is open).
    void addCurrent();
    // replaceCurrent makes the scenario on screen the shown step's.
    void replaceCurrent();
    // editText asks for the shown step's title, narrative, question and answer.
    void editText();

private:
    void showDeck();

    DeckPlayer* m_player;
    ScenarioDocument* m_document;
    QLabel* m_empty;
    QListWidget* m_list;
    QList<QPushButton*> m_stepButtons; // those that need a deck
};

} // namespace ratelab::ui
