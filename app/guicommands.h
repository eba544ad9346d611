// The commands ratelab-gui runs instead of opening a window.
#pragma once

#include <optional>

namespace ratelab::app {

// runGuiCommand runs `export` or `bench` when argv names one (offscreen, no display needed) and
// returns its exit status; it returns nullopt for anything else.
std::optional<int> runGuiCommand(int argc, char** argv);

} // namespace ratelab::app
