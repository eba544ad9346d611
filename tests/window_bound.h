// A family's mostIn (advise.h) checked against its model: the most a run of the model admits in
// any window, on a trace built by hand to reach the bound and on random dense traces.
#pragma once

#include "arithmetic/nanos.h"
#include "max_admitted.h"
#include "property_seeds.h"

#include <QString>

#include <cstdint>
#include <random>
#include <utility>
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

// firstExcess runs Model (built from family.config(step, burst)) on dense random traces, a
// (step, burst) drawn for each seed, and returns the first seed, step, burst and window at which
// it admits more in a window than family.mostIn says, or "" when none does.
template <typename Model, typename Family, typename Draw>
QString firstExcess(const Family& family, const std::vector<ratelab::Nanos>& gaps,
                    const std::vector<ratelab::Nanos>& windows, Draw draw)
{
    for (std::uint64_t seed = 1; seed <= propertySeeds() / 4 + 1; ++seed) {
        std::mt19937_64 rng(seed);
        const auto [step, burst] = draw(rng, seed);
        const std::vector<ratelab::Nanos> times = denseTrace(rng, gaps);
        for (ratelab::Nanos w : windows)
            if (mostThrough(Model(family.config(step, burst)), times, w) > *family.mostIn(step, burst, w))
                return QString("seed %1, step %2, burst %3, window %4 ns").arg(seed).arg(step).arg(burst).arg(w);
    }
    return {};
}

} // namespace advisetest
