// Light and dark themes: one palette for the whole app, which the charts read their colours
// from, so what is on screen and what is exported always match.
#pragma once

#include <QString>

namespace ratelab::ui {

enum class Theme { Light, Dark };

// applyTheme sets the application's style and palette.
void applyTheme(Theme theme);
QString themeId(Theme theme);
Theme themeFromId(const QString& id);

} // namespace ratelab::ui
