// `advise --origin N/T` for the gateways of a count in a window (window_gateway.h): their advice
// is a row per offered window, each the least limit that keeps the kept keys whole, so the goal
// cannot move a limit as it moves a front's rate (advise.h); it chooses among the rows. What
// reaches the origin is measured on the log at each row, as for a front (originMost): a per-key
// limit promises nothing across keys.
#pragma once

#include "advise/advise.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ratelab {

// WindowRowModel is one row's limit as the advice measures it, on one key's trace: the requests
// it denies, and the arrival times of those it lets through (a fresh model per call, as deniedOn).
struct WindowRowModel {
    std::function<std::int64_t(KeyTrace)> denied;
    std::function<void(KeyTrace, std::vector<Nanos>&)> passed;
};

// windowRowModel makes a row's model from `make`, which returns a fresh limiter (a model with
// decide(t, cost)); onTheClock: the trace's clock (the log's start since 1970) is added to each
// time, for the products whose windows are the clock's.
template <typename Make>
WindowRowModel windowRowModel(Make make, bool onTheClock)
{
    return {[=](KeyTrace t) {
                auto limiter = make();
                return deniedOn(limiter, t, onTheClock ? t.clock : 0);
            },
            [=](KeyTrace t, std::vector<Nanos>& out) {
                auto limiter = make();
                passedOn(limiter, t, out, onTheClock ? t.clock : 0);
            }};
}

// WindowOriginChoice is the goal met among the rows: the most that reach the origin in any window
// of the goal at each row, the row recommended, whether the goal moved it there, and the denials
// per key at that row when it did (the recommendation's own, which the proof compares).
struct WindowOriginChoice {
    std::vector<std::int64_t> origin;
    std::size_t recommended = 0;
    bool moved = false;
    std::vector<std::int64_t> deniedPerKey;
};

// chooseWindowForOrigin measures the origin at every row and keeps the recommendation when it
// meets the goal; else it takes the row that meets it denying the fewest requests (of equal
// denials the first), the least a user loses for it. It throws InputError when no row meets it,
// naming the fewest any row lets reach the origin (rowText names a row: "minute 120").
WindowOriginChoice chooseWindowForOrigin(const KeyedTraces& traces, const KeptKeys& keys,
                                         const std::vector<WindowRowModel>& rows, const std::vector<DenialCount>& denied,
                                         std::size_t recommended, const OriginGoal& goal, const std::string& product,
                                         const std::function<std::string(std::size_t)>& rowText);

} // namespace ratelab
