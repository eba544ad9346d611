// A family's mostIn (advise.h) checked against its model: the most a run of the model admits in
// any window, on a trace built by hand to reach the bound and on random dense traces.
#pragma once

#include "arithmetic/nanos.h"
#include "max_admitted.h"

#include <cstdint>
#include <random>
#include <vector>

namespace advisetest {

// mostThrough runs the model over the times (each request cost 1) and returns the most it
// admits in any window (t - T, t].
template <typename Model>
std::int64_t mostThrough(Model model, const std::vector<ratelab::Nanos>& times, ratelab::Nanos window)
{
    std::vector<bool> admitted;
    for (ratelab::Nanos t : times)
        admitted.push_back(model.decide(t, 1).allowed);
    return ratelab::maxAdmittedIn(times, admitted, window);
}

// burstAt appends n requests at t.
inline void burstAt(std::vector<ratelab::Nanos>& times, ratelab::Nanos t, int n) { times.insert(times.end(), std::size_t(n), t); }

// denseTrace is up to 200 requests whose gaps are drawn from `gaps` (the model's own periods
// and a nanosecond either side of them), in runs of up to 8 at one instant.
inline std::vector<ratelab::Nanos> denseTrace(std::mt19937_64& rng, const std::vector<ratelab::Nanos>& gaps)
{
    std::vector<ratelab::Nanos> out;
    ratelab::Nanos t = std::uniform_int_distribution<ratelab::Nanos>(0, 2'000'000'000)(rng);
    const auto n = std::uniform_int_distribution<int>(1, 200)(rng);
    while (int(out.size()) < n) {
        t += gaps[std::uniform_int_distribution<std::size_t>(0, gaps.size() - 1)(rng)];
        burstAt(out, t, std::uniform_int_distribution<int>(1, 8)(rng));
    }
    return out;
}

} // namespace advisetest
