// A deck's handout: one PDF page per step, its title, narrative, question and answer above the
// chart of its scenario over its span (File > Export Deck Handout, `ratelab deck --pdf`).
#pragma once

#include "deckfile.h"

#include <QString>

namespace ratelab::ui {

// writeHandout writes the handout of deck to path atomically (a PDF made in memory, then
// io::writeFileAtomically); it returns an empty string or one line saying why nothing was
// written. Without answers (a handout given before the class) a step that asks shows its
// question, and its chart with the decisions hidden, as the room sees it before the reveal.
QString writeHandout(const io::Deck& deck, const QString& path, bool answers = true);

} // namespace ratelab::ui
