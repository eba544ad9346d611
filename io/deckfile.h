// Deck files: the steps of a class, saved as NAME.ratelab-deck.json (docs/decks.md).
//
//   {
//     "format": "ratelab-deck", "version": 1,
//     "title": "Why the fixed window lets 2x through",
//     "steps": [
//       {"title": "...", "narrative": "...",
//        "preset": "edge-burst",                  (or "scenario": {a whole scenario file's object},
//                                                  or neither: the previous step's scenario)
//        "change": {"pattern": {"n": 10}},        (keys laid over that scenario; optional)
//        "focus": {"from": "9.5", "to": "10.5",   (a time span to frame, both or neither)
//                  "rows": ["fixed_window"],      (the rows to show)
//                  "pin": 10},                    (a request to pin, by its index)
//        "question": "How many pass the fixed window?",   (asked with the decisions hidden)
//        "answer": "All 20: ..."}                        (shown once they are revealed)
//     ]
//   }
//
// A step's scenario is its own ("scenario" or "preset") or the previous step's, with "change"
// laid over it: each key of "change" replaces the previous scenario's, an object is laid over the
// object it replaces key by key ("pattern": {"n": 30} keeps the pattern's other fields). The
// step's title and narrative are its scenario's title and lesson, which the Lesson panel shows
// (a step that asks and has no narrative shows none: a preset's own lesson would answer it).
// Every step is read as a scenario file is, so a deck holds nothing a scenario file would refuse;
// a refusal names the step ("step 3: ..."). Unlike a scenario file, a deck also refuses an
// unknown key (a typo in "change" would otherwise show other traffic than the narrative tells).
#pragma once

#include "scenario/scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace ratelab::io {

inline constexpr int kDeckFormatVersion = 1;
inline constexpr const char* kDeckFormat = "ratelab-deck";

// DeckStep is one step of a class: what is shown, where the view is framed, what is asked.
struct DeckStep {
    Scenario scenario; // its title and lesson are the step's title and narrative
    std::optional<Nanos> from, to;   // the span to frame (both or neither); none: the activity
    std::optional<std::size_t> pin;  // a request pinned in every row
    std::string question;            // asked with the decisions hidden; empty: none
    std::string answer;              // shown when the decisions are revealed

    bool hasFocus() const { return from.has_value(); }
    friend bool operator==(const DeckStep&, const DeckStep&) = default;
};

struct Deck {
    std::string title;
    std::vector<DeckStep> steps; // at least one
    friend bool operator==(const Deck&, const Deck&) = default;
};

struct DeckLoad {
    std::optional<Deck> deck; // set when the input was accepted
    QString error;            // why it was refused, one line
};

// parseDeck reads a deck from JSON text. It never throws.
DeckLoad parseDeck(const QByteArray& json);

// serializeDeck writes a deck as indented JSON, every step a whole scenario (a deck edited in the
// app is saved as it shows, whatever changes it was written with).
QByteArray serializeDeck(const Deck& deck);

// saveDeck writes the deck to path atomically; it returns an empty string or why it could not.
QString saveDeck(const Deck& deck, const QString& path);

// loadDeckFile reads and parses a file, or a shipped deck by id (":/decks/ID" or "ID" alone when
// no such file exists); errors name the file.
DeckLoad loadDeckFile(const QString& path);

// shippedDecks lists the decks compiled in (resources/decks/ID.ratelab-deck.json), in the order
// they are taught.
QStringList shippedDecks();

} // namespace ratelab::io
