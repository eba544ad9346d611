// The web page's style and script (webpage.cpp puts them inside each page: no file beside it, no
// network). The style's @BASE@, @TEXT@, @FOCUS@ and @SCHEME@ are the exported theme's colours.
#pragma once

namespace ratelab::ui {

extern const char* const kPageStyle;
extern const char* const kPageScript;

} // namespace ratelab::ui
