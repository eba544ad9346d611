#include "interrupt.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include <sys/wait.h>
#include <unistd.h>

namespace ratelab::io {

namespace {

struct Server {
    std::atomic<pid_t> pid{0};
    char directory[512] = {};
};

constexpr int kMaxServers = 8;
Server g_servers[kMaxServers];
std::atomic<int> g_signal{0};
std::atomic<int> g_runs{0};
std::mutex g_mutex; // guards the installation count and the slots' directories (not the handler)
int g_installed = 0;
struct sigaction g_oldInt, g_oldTerm;

// unlinkIn removes one file of a directory, with only async-signal-safe calls.
void unlinkIn(const char* directory, const char* name)
{
    char path[600];
    std::size_t n = 0;
    for (const char* s = directory; *s && n + 1 < sizeof path; ++s)
        path[n++] = *s;
    if (n + 1 < sizeof path)
        path[n++] = '/';
    for (const char* s = name; *s && n + 1 < sizeof path; ++s)
        path[n++] = *s;
    path[n] = '\0';
    unlink(path);
}

void handler(int sig)
{
    g_signal.store(sig);
    if (g_runs.load() > 0)
        return; // the run sees it between two calls and cleans up itself
    for (Server& s : g_servers) {
        const pid_t pid = s.pid.exchange(0);
        if (pid <= 0)
            continue;
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        for (const char* name : {"redis.sock", "nodes.conf", "dump.rdb"})
            unlinkIn(s.directory, name);
        rmdir(s.directory);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

} // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(std::string("interrupted by ") + (signal == SIGINT ? "SIGINT" : "SIGTERM")
                         + ": the run's Redis keys were deleted")
    , m_signal(signal)
{
}

SignalCleanup::SignalCleanup()
{
    std::lock_guard lock(g_mutex);
    if (g_installed++ > 0)
        return;
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_oldInt);
    sigaction(SIGTERM, &sa, &g_oldTerm);
}

SignalCleanup::~SignalCleanup()
{
    std::lock_guard lock(g_mutex);
    if (--g_installed > 0)
        return;
    sigaction(SIGINT, &g_oldInt, nullptr);
    sigaction(SIGTERM, &g_oldTerm, nullptr);
}

void registerPrivateServer(pid_t pid, const std::string& directory)
{
    std::lock_guard lock(g_mutex);
    for (Server& s : g_servers)
        if (s.pid.load() == 0) {
            std::strncpy(s.directory, directory.c_str(), sizeof s.directory - 1);
            s.pid.store(pid); // published last: the handler reads the directory only after the pid
            return;
        }
}

void unregisterPrivateServer(pid_t pid)
{
    std::lock_guard lock(g_mutex);
    for (Server& s : g_servers) {
        pid_t expected = pid;
        s.pid.compare_exchange_strong(expected, 0);
    }
}

RunScope::RunScope() { ++g_runs; }
RunScope::~RunScope() { --g_runs; }

int pendingSignal() { return g_signal.load(); }

void honourPendingSignal()
{
    if (const int sig = g_signal.load(); sig != 0 && g_runs.load() == 0)
        handler(sig);
}

void endBySignal(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig);
}

} // namespace ratelab::io
