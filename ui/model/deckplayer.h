// DeckPlayer is the open lesson deck (io/deckfile.h) and where the class is in it: the step shown
// and whether its question's decisions are revealed. Views observe it; the window applies a step
// (its scenario, span, pin and veil) when stepChanged says so. Editing a deck (a step added,
// moved, removed or its text changed) goes through it too, so the deck panel only draws.
#pragma once

#include "deckfile.h"

#include <QObject>
#include <QString>

#include <optional>

namespace ratelab::ui {

class DeckPlayer : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // open shows a deck from its first step; path is where it is saved (empty: not yet).
    void open(io::Deck deck, const QString& path);
    // close leaves the deck: the keys step through the playback again.
    void close();
    bool isOpen() const { return m_deck.has_value(); }
    const io::Deck& deck() const { return *m_deck; }
    const QString& path() const { return m_path; }
    bool isModified() const { return m_modified; }
    int index() const { return m_index; }
    int count() const { return m_deck ? int(m_deck->steps.size()) : 0; }
    const io::DeckStep& step() const { return m_deck->steps.at(std::size_t(m_index)); }
    // revealed says whether the step's decisions show: always for a step without a question.
    bool revealed() const { return m_revealed; }

    // goTo shows step i, its decisions hidden when it asks a question.
    void goTo(int i);
    // next reveals the step's decisions if they are hidden, else shows the next step; it
    // returns false at the end of the deck (nothing changed).
    bool next();
    // previous shows the previous step; false at the first.
    bool previous();

    // Editing: each marks the deck modified and emits deckChanged.
    void insertStep(int at, io::DeckStep step); // then shows it
    void removeStep(int i);                      // a deck keeps at least one step
    void moveStep(int i, int by);                // by -1 (up) or +1 (down)
    void setText(int i, const QString& title, const QString& narrative, const QString& question, const QString& answer);
    void setTitle(const QString& title);
    // setScenario gives step i the settings and traffic of s; its title and narrative stay.
    void setScenario(int i, const Scenario& s);
    // save writes the deck to path (atomically); it returns an empty string or why not.
    QString save(const QString& path);

signals:
    void stepChanged();     // another step is shown (apply its scenario, span and pin)
    void revealedChanged(); // the decisions were revealed
    void deckChanged();     // opened, closed, edited or saved
    void opened();          // a deck was opened (its first step follows)

private:
    void edited();

    std::optional<io::Deck> m_deck;
    QString m_path;
    int m_index = 0;
    bool m_revealed = true;
    bool m_modified = false;
};

} // namespace ratelab::ui
