#include "arithmetic/workers.h"

#include <system_error>
#include <vector>

namespace ratelab {

unsigned runOnThreads(unsigned n, const std::function<void()>& work, const StartThread& start)
{
    std::vector<std::jthread> others; // joined however this returns
    for (unsigned t = 1; t < n; ++t) {
        try {
            others.push_back(start ? start(work) : std::jthread(work));
        } catch (const std::system_error&) { // no more threads to be had: run on those there are
            break;
        }
    }
    work();
    const unsigned ran = unsigned(others.size()) + 1;
    others.clear(); // joins them
    return ran;
}

} // namespace ratelab
