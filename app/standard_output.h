// Standard output, checked: every command's output goes through std::cout, whose buffer this
// replaces with one that writes with write(2) and keeps the first error it met. A command that
// could not write all of its output (a full disk, /dev/full, a closed file descriptor) says so in
// one line and exits non-zero, instead of exiting 0 over a cut-off file.
//
// A closed pipe is not such an error: SIGPIPE ends the program as it ends every filter
// (`ratelab compare | head`), and there is no file to leave cut.
#pragma once

namespace ratelab::app {

// checkStandardOutput puts the checked buffer under std::cout; main calls it first.
void checkStandardOutput();

// standardOutputFailed flushes std::cout and, when a write to it failed, prints "ratelab: cannot
// write to standard output: REASON" on stderr, once however often it is asked, and returns true.
bool standardOutputFailed();

// finishOutput returns status, or kBadInput when the output could not all be written.
int finishOutput(int status);

} // namespace ratelab::app
