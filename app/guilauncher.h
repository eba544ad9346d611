// Handing over from the Qt Core front end `ratelab` to `ratelab-gui`, which lies beside it.
#pragma once

namespace ratelab::app {

// execGui replaces this process with ratelab-gui, passing argv on. It returns only when that
// fails, after one line on stderr, with exit status 2.
int execGui(int argc, char** argv);

} // namespace ratelab::app
