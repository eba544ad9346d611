// Starting the desktop explorer.
#pragma once

namespace ratelab::app {

// runGui opens the RateLab window and returns when it closes.
int runGui(int argc, char** argv);

} // namespace ratelab::app
