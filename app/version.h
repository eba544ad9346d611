// What `ratelab --version` and `ratelab-gui --version` print.
#pragma once

#include <string>

namespace ratelab::app {

// versionText is "ratelab VERSION (commit HASH)": the commit the build was made from, with
// "-dirty" after it when tracked files had changes, or "unknown" outside a git checkout.
std::string versionText();

} // namespace ratelab::app
