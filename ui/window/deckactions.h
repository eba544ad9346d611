// DeckActions are a lesson deck's actions (File > Open Deck, Save Deck, Export Deck Handout,
// Close Deck) and what the window does when the class moves: a step's scenario becomes the
// document, its span the view, its request the pinned one, and its question hides the decisions
// until the next key press reveals them.
#pragma once

#include "model/frame.h"

#include <QObject>

#include <optional>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace ratelab::ui {

class DeckPlayer;
class LessonPanel;
class ScenarioDocument;
class Settings;
class Stage;

class DeckActions : public QObject {
    Q_OBJECT
public:
    DeckActions(QWidget* window, DeckPlayer* player, ScenarioDocument* document, Stage* stage, LessonPanel* lesson);

    // fillMenu adds the deck's actions to the File menu.
    void fillMenu(QMenu* file);
    // openDeck opens a deck file or a shipped deck's id; false when refused (a message was shown).
    bool openDeck(const QString& pathOrId);
    // saveDeckTo writes the deck to path; false when it could not (a message was shown).
    bool saveDeckTo(const QString& path);
    // exportHandout writes the deck's PDF handout to path (without answers: the questions, their
    // charts veiled); false when it could not.
    bool exportHandout(const QString& path, bool answers = true);
    // exportPage writes the deck's web page to path, as `ratelab deck --html` does (without
    // answers: as with --no-answers); false when it could not (a message was shown).
    bool exportPage(const QString& path, bool answers = true);
    // maybeKeep asks what to do with an edited deck before it is closed: true when it may go.
    bool maybeKeep();

signals:
    // rangeRequested asks for the view over a step's span (empty: the activity).
    void rangeRequested(ratelab::ui::TimeRange range);
    // pinRequested pins a step's request (nullopt: none), as a click on its mark does.
    void pinRequested(std::optional<std::size_t> request);
    void status(const QString& message);

private:
    // addExportActions adds the handout and web-page exports, with and without answers.
    std::vector<QAction*> addExportActions(QMenu* file);
    void showStep();
    void showReveal();
    void saveAs();

    QWidget* m_window;
    DeckPlayer* m_player;
    ScenarioDocument* m_document;
    Stage* m_stage;
    LessonPanel* m_lesson;
};

} // namespace ratelab::ui
