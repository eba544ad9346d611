// The command line: `ratelab compare`, and the dispatch from argv to a command or the GUI.
#pragma once

#include <QStringList>

namespace ratelab::app {

// isCommand reports whether argv names a command (as opposed to starting the GUI).
bool isCommand(int argc, char** argv);

// runCommand runs the command named in argv and returns the exit status: 0 on success, 2 for
// bad input (after one line on stderr).
int runCommand(int argc, char** argv);

} // namespace ratelab::app
