// A deck's handout: one PDF page per step, its title, narrative, question and answer above the
// chart of its scenario over its span (File > Export Deck Handout, `ratelab deck --pdf`).
#pragma once

#include "deckfile.h"

#include <QString>

namespace ratelab::ui {

// writeHandout writes the handout of deck to path atomically (QPdfWriter into a QSaveFile); it
// returns an empty string or one line saying why nothing was written.
QString writeHandout(const io::Deck& deck, const QString& path);

} // namespace ratelab::ui
