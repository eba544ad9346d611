// A pass that runs on several threads and never ends the process when one cannot be had.
#pragma once

#include <functional>
#include <thread>

namespace ratelab {

// StartThread starts a thread that runs the function it is handed, or throws std::system_error
// when none can be had (the process's or the system's limit); the default is std::jthread's own.
using StartThread = std::function<std::jthread(std::function<void()>)>;

// runOnThreads calls work once on this thread and once on each of up to n - 1 more threads, and
// returns, when every call has returned, how many threads ran it (1 to n; n = 0 counts as 1). A
// thread that cannot be started is no error: the threads started so far are all there are, so
// work must share what is to be done among however many call it (a shared counter of items,
// say). work must not throw.
unsigned runOnThreads(unsigned n, const std::function<void()>& work, const StartThread& start = {});

} // namespace ratelab
