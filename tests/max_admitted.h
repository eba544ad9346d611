// The most admitted requests in any window, counted the plain way: the tests' check of the
// bounds the program states (worst_case.h) against what a run really admitted.
#pragma once

#include "arithmetic/nanos.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ratelab {

// maxAdmittedIn returns the most admitted requests inside any (s - T, s], over non-decreasing
// times and their verdicts (a two-pointer scan).
inline std::int64_t maxAdmittedIn(const std::vector<Nanos>& times, const std::vector<bool>& admitted, Nanos windowNanos)
{
    std::int64_t best = 0, inside = 0;
    std::size_t from = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (!admitted[i])
            continue;
        ++inside;
        while (times[from] <= times[i] - windowNanos) { // the window (times[i] - T, times[i]]
            inside -= admitted[from];
            ++from;
        }
        best = std::max(best, inside);
    }
    return best;
}

} // namespace ratelab
