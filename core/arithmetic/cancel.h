// Cancelling a long pass: the caller sets a flag, the pass looks at it every kCancelCheck steps
// and throws Cancelled. A newer request (a slider moved on) makes the pass moot.
#pragma once

#include <atomic>
#include <cstddef>

namespace ratelab {

// Cancelled is thrown by a long pass whose cancel flag was set.
struct Cancelled {};

// kCancelCheck is how many requests (or attempts) a long pass decides between looks at its flag.
inline constexpr std::size_t kCancelCheck = 65536;

// throwIfCancelled throws Cancelled when `cancel` is given and set.
inline void throwIfCancelled(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw Cancelled{};
}

} // namespace ratelab
