// `advise --cap N/T` and `--origin N/T` for the gateways of a count in a window
// (window_gateway.h). Their advice is a row per offered window, each the least limit that keeps
// the kept keys whole, so a goal cannot move a limit as it moves a front's rate (advise.h): it
// chooses among the rows. The cap is derived from each row's windows, what reaches the origin is
// measured on the log (originMost: a per-key limit promises nothing across keys).
#pragma once

#include "advise/advise.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ratelab {

// WindowRowModel is one row's limit as the advice measures it, on one key's trace: the requests
// it denies, and the arrival times of those it lets through (a fresh model per call, as deniedOn).
// counts: each window the product counts in (its length) and the most one key gets through in
// one of them; empty when no window's count bounds it (AWS WAF lets a burst through whole until a
// check sees it). unlimitedReach: the requests no limit counts reach the origin, but for Kong's
// by consumer, whose basic-auth answers a request without a user 401.
struct WindowRowModel {
    std::function<std::int64_t(KeyTrace)> denied;
    std::function<void(KeyTrace, std::vector<Nanos>&)> passed;
    std::vector<std::pair<Nanos, std::int64_t>> counts = {};
    bool unlimitedReach = true;
};

// windowRowModel makes a row's model from `make`, which returns a fresh limiter (a model with
// decide(t, cost)); onTheClock: the trace's clock (the log's start since 1970) is added to each
// time, for the products whose windows are the clock's.
template <typename Make>
WindowRowModel windowRowModel(Make make, bool onTheClock, std::vector<std::pair<Nanos, std::int64_t>> counts)
{
    return {[=](KeyTrace t) {
                auto limiter = make();
                return deniedOn(limiter, t, onTheClock ? t.clock : 0);
            },
            [=](KeyTrace t, std::vector<Nanos>& out) {
                auto limiter = make();
                passedOn(limiter, t, out, onTheClock ? t.clock : 0);
            },
            std::move(counts)};
}

// denialsOf is what each row denies (any rows with a DenialCount `denied`), as chooseWindow takes them.
template <typename Row>
std::vector<DenialCount> denialsOf(const std::vector<Row>& rows)
{
    std::vector<DenialCount> out;
    for (const Row& r : rows)
        out.push_back(r.denied);
    return out;
}

// windowRowMostIn is the most one key gets through in any window (t - T, t] of length `window`:
// of each of the row's windows, its count times the most of them (t - T, t] meets, as a fixed
// window's worst case (worst_case.h), and the least of those. An upper bound where a product
// counts less than its window's count (Cloudflare's and Upstash's sliding estimates, Kong's
// periods together); nullopt for a row no count bounds.
std::optional<std::int64_t> windowRowMostIn(const WindowRowModel& row, Nanos window);

// WindowGoals: `--cap` (the most one key gets through in any T) and `--origin` (the most that
// reach the origin in any T of the log), each when given.
struct WindowGoals {
    std::optional<WindowCap> cap;
    std::optional<OriginGoal> origin;
    bool any() const { return cap || origin; }
};

// WindowChoice is the goals met among the rows: per row, the most one key gets through in the
// cap's window (with a cap) and the most that reach the origin in the goal's (with an origin
// goal); the row recommended, whether the goals moved it there, and the denials per key at that
// row when they did (the recommendation's own, which the proof compares).
struct WindowChoice {
    std::vector<std::int64_t> mostIn, origin;
    std::size_t recommended = 0;
    bool moved = false;
    std::vector<std::int64_t> deniedPerKey;
};

// chooseWindow keeps the recommendation when it meets the goals; else it takes the row that meets
// them denying the fewest requests (of equal denials the first), the least a user loses for them.
// It throws InputError when no row meets them: "--cap: ..." naming the least any row lets one key
// through when none meets the cap, else "--origin: ..." naming the fewest any row within the cap
// lets reach the origin (rowText names a row: "minute 120"). A cap on a row no count bounds is
// refused before (windowRowMostIn).
WindowChoice chooseWindow(const KeyedTraces& traces, const KeptKeys& keys, const std::vector<WindowRowModel>& rows,
                          const std::vector<DenialCount>& denied, std::size_t recommended, const WindowGoals& goals,
                          const std::string& product, const std::function<std::string(std::size_t)>& rowText);

} // namespace ratelab
