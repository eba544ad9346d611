#include "bench_memory.h"

#include "engine/chunk_pool.h"

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace ratelab::app {

namespace {

// procStatusKb reads one "Name:   123 kB" line of /proc/self/status, in kB (-1 if absent).
std::int64_t procStatusKb(const char* name)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string key = std::string(name) + ":";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::stoll(line.substr(key.size()));
    return -1;
}

// growthInChild is childGrowthPer's figure, run in the child.
double growthInChild(const std::function<void()>& prepare, const std::function<std::int64_t()>& measured)
{
    if (prepare)
        prepare();
    giveBackFreeMemory();
    std::ofstream refs("/proc/self/clear_refs");
    if (!(refs << "5" << std::flush))
        return -1;
    const std::int64_t beforeKb = procStatusKb("VmRSS");
    const std::int64_t count = measured();
    const std::int64_t peakKb = procStatusKb("VmHWM");
    if (beforeKb <= 0 || peakKb < beforeKb || count <= 0)
        return -1;
    return double(peakKb - beforeKb) * 1024.0 / double(count);
}

} // namespace

double childGrowthPer(const std::function<void()>& prepare, const std::function<std::int64_t()>& measured)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    const pid_t child = fork();
    if (child == 0) { // _exit without destructors: the parent's objects are the parent's
        close(fds[0]);
        double result = -1;
        try {
            result = growthInChild(prepare, measured);
        } catch (...) {
        }
        const bool sent = write(fds[1], &result, sizeof result) == sizeof result;
        _exit(sent ? 0 : 1);
    }
    close(fds[1]);
    double result = -1;
    const bool read = child > 0 && ::read(fds[0], &result, sizeof result) == sizeof result;
    close(fds[0]);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !read)
        return -1;
    return result;
}

void giveBackFreeMemory()
{
    releaseKeptChunks();
    malloc_trim(0);
}

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

} // namespace ratelab::app
