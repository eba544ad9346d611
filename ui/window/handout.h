// A deck's handout: one PDF page per step, its title, narrative, question and answer above the
// chart of its scenario over its span (File > Export Deck Handout, `ratelab deck --pdf`).
#pragma once

#include "deckfile.h"

#include <QImage>
#include <QString>

namespace ratelab::ui {

// writeHandout writes the handout of deck to path atomically (a PDF made in memory, then
// io::writeFileAtomically); it returns an empty string or one line saying why nothing was
// written. Without answers (a handout given before the class) a step that asks shows its
// question, and from the first question on every chart has its decisions hidden: a later step's
// chart shows the earlier questions' traffic decided (the answer to them).
QString writeHandout(const io::Deck& deck, const QString& path, bool answers = true);

// StepWords are step i's words as HTML (escaped, paths never split at a slash): where it is in
// the deck ("Deck · step 2 of 5"), its title, narrative, question and answer (empty: none).
struct StepWords {
    QString where, title, lesson, question, answer;
};
StepWords stepWords(const io::Deck& deck, std::size_t i);

// decisionsHidden says whether step i's chart has its decisions hidden before the class (no
// answers): from the deck's first question on, since a step after a question draws the same
// traffic decided, its counts the earlier answer.
bool decisionsHidden(const io::Deck& deck, std::size_t i);

// HandoutPage is what a page of the handout shows: its words as HTML and its chart.
struct HandoutPage {
    QString html;
    QImage chart;
};

// handoutPage makes page i of the handout (the step i) with its chart drawn at chartSize, as
// writeHandout puts it on the PDF.
HandoutPage handoutPage(const io::Deck& deck, std::size_t i, bool answers, QSize chartSize);

} // namespace ratelab::ui
