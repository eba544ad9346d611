// Light and dark themes: one palette for the whole app, which the charts read their colours
// from, so what is on screen and what is exported always match.
#pragma once

#include <QPalette>
#include <QString>

class QChart;

namespace ratelab::ui {

enum class Theme { Light, Dark };

// applyTheme sets the application's style and palette.
void applyTheme(Theme theme);
QString themeId(Theme theme);
Theme themeFromId(const QString& id);
// isDark tells the dark theme's palette from the light one's: the charts pick their colours by it.
bool isDark(const QPalette& palette);
// followPalette gives a Qt chart (the Traffic panel's sweep, the advice window's front) the
// light or dark look of the palette, as the app's own charts take theirs.
void followPalette(QChart* chart, const QPalette& palette);

// keepSlashesJoined puts a word joiner (U+2060, invisible) after each slash that a word follows,
// so that a wrapped text never breaks "/api/login" or "5/s" at a slash on a projector.
QString keepSlashesJoined(QString text);
// withoutJoiners is text as typed: the word joiners keepSlashesJoined put in, taken out.
QString withoutJoiners(QString text);

} // namespace ratelab::ui
