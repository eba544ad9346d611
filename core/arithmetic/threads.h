// Splitting a long pass over two threads, for a caller whose process already runs threads.
#pragma once

#include <cstddef>
#include <functional>

namespace ratelab {

// Threads says how many threads a long pass may use. With Threads::Two a pass long enough splits
// its range in halves, the upper one on a thread of its own: for callers whose process already
// runs threads, as the app's frames do. A process that never started one keeps it so (the C
// library's locks and allocator are cheaper then): the commands use Threads::One.
enum class Threads { One, Two };

// kHalvesFrom is the length from which a pass with Threads::Two splits: a thread's start (tens of
// microseconds) is then a small part of the work.
inline constexpr std::size_t kHalvesFrom = 65536;

// forHalves calls work(begin, end) over [0, n): on two threads, a half each, when threads is
// Threads::Two, n is at least kHalvesFrom and a thread can be had; else once over the whole
// range. It returns when every call has. work must not throw.
void forHalves(std::size_t n, Threads threads, const std::function<void(std::size_t, std::size_t)>& work);

} // namespace ratelab
