#include "arithmetic/threads.h"

#include <system_error>
#include <thread>

namespace ratelab {

void forHalves(std::size_t n, Threads threads, const std::function<void(std::size_t, std::size_t)>& work)
{
    std::size_t mine = n;
    std::jthread upper; // joined however this returns
    if (threads == Threads::Two && n >= kHalvesFrom) {
        try {
            upper = std::jthread([&work, half = n / 2, n] { work(half, n); });
            mine = n / 2;
        } catch (const std::system_error&) { // no thread to be had: all of it here
        }
    }
    work(0, mine);
}

} // namespace ratelab
