// Runs through Redis end cleanly however they end: SIGINT or SIGTERM stops the private
// redis-server and removes its temporary directory, and a run in progress deletes its keys first.
//
// While a PrivateRedis or RedisStore lives, a handler is installed for SIGINT and SIGTERM. Inside
// RedisStore::run (a RunScope) the handler only records the signal: the run sees it between two
// calls and throws Interrupted, so its keys are deleted and every destructor runs; the command
// then ends by the same signal. Anywhere else the handler does only what is async-signal-safe:
// it kills the private servers, waits for them, unlinks their files, removes their directories
// and ends the process by the same signal. A private server also gets SIGKILL if ratelab dies
// without a chance to clean up (PR_SET_PDEATHSIG): only its temporary directory is left then.
#pragma once

#include <stdexcept>
#include <string>
#include <sys/types.h>

namespace ratelab::io {

// Interrupted is thrown by a run that saw SIGINT or SIGTERM, after its keys were deleted.
class Interrupted : public std::runtime_error {
public:
    explicit Interrupted(int signal);
    int signal() const { return m_signal; }

private:
    int m_signal;
};

// SignalCleanup installs the handler while at least one lives (reference counted).
class SignalCleanup {
public:
    SignalCleanup();
    ~SignalCleanup();
    SignalCleanup(const SignalCleanup&) = delete;
    SignalCleanup& operator=(const SignalCleanup&) = delete;
};

// registerPrivateServer records a private server's pid and directory for the handler (at most 8
// at once); unregisterPrivateServer forgets it once it is stopped.
void registerPrivateServer(pid_t pid, const std::string& directory);
void unregisterPrivateServer(pid_t pid);

// RunScope marks a run in progress: the handler then leaves the cleanup to it.
class RunScope {
public:
    RunScope();
    ~RunScope();
    RunScope(const RunScope&) = delete;
    RunScope& operator=(const RunScope&) = delete;
};

// pendingSignal returns the signal received (SIGINT or SIGTERM), or 0.
int pendingSignal();

// honourPendingSignal does what the handler does outside a run when a signal arrived during one
// and the run could not see it (it had just ended): stop the private servers and end the process.
void honourPendingSignal();

// endBySignal ends the process by the signal received, with the default disposition (so a shell
// sees 130 or 143), after everything was cleaned up.
[[noreturn]] void endBySignal(int signal);

} // namespace ratelab::io
