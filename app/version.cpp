#include "version.h"

#include "ratelab_version.h" // generated at every build by packaging/version.cmake

namespace ratelab::app {

std::string versionText() { return "ratelab " RATELAB_VERSION " (commit " RATELAB_COMMIT ")"; }

} // namespace ratelab::app
