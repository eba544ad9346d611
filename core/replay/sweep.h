// Sweeping a policy's parameters over real traffic (semantics.md, "Replaying real traffic"): the
// traffic, read once, is replayed per key at every point of a grid of one or two parameters,
// points and algorithms spread over a pool of threads. A point is exactly replayOne with that
// point's config: the same function runs it.
#pragma once

#include "replay/replay.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

enum class SweepParameter : std::uint8_t { Limit, Window, Capacity, Rate };

// sweepParameterId is the option's name: "limit", "window", "capacity", "rate".
std::string_view sweepParameterId(SweepParameter p);

// SweepAxis is one parameter's values, in order. Limit and capacity are whole numbers, window
// nanoseconds (in `values`); rates are exact (in `rates`).
struct SweepAxis {
    SweepParameter parameter = SweepParameter::Limit;
    std::vector<std::int64_t> values;
    std::vector<Rate> rates;

    std::size_t size() const { return parameter == SweepParameter::Rate ? rates.size() : values.size(); }
    // text writes value i as the option takes it ("50", "2.5", "3/7").
    std::string text(std::size_t i) const;
};

// kMaxSweepPoints caps a grid (both axes together).
inline constexpr std::size_t kMaxSweepPoints = 10'000;

// parseSweepAxis reads "A:B:S" (from A to B by S, B included when reached; S > 0) or a single
// value for a parameter. It throws InputError naming what is wrong (without the option's name).
SweepAxis parseSweepAxis(SweepParameter p, std::string_view text);

// SweepBase is the policy the grid varies: capacity and rate follow limit and window unless given
// (as `replay --limit L` would), exactly like LimiterConfig::make's defaults.
struct SweepBase {
    std::int64_t limit = 10;
    Nanos windowNanos = 10 * kNanosPerSecond;
    std::optional<std::int64_t> capacity;
    std::optional<Rate> rate;
    NginxOptions nginx;
    std::vector<ProductOption> productOptions; // the product models' own, at every point (replay's)
    std::vector<Algorithm> algorithms{kDefaultAlgorithms.begin(), kDefaultAlgorithms.end()};
    std::int64_t cost = 1;
    ReplayPlace place; // where every point's keys live (replay's; no limit changes: the grid varies the limit)
};

// pointConfig returns the config at point (i, j) of the axes (j ignored with one axis). It throws
// InputError for a point LimiterConfig refuses.
LimiterConfig pointConfig(const SweepBase& base, const std::vector<SweepAxis>& axes, std::size_t i, std::size_t j);

// SweepCell is one algorithm at one point.
struct SweepCell {
    std::int64_t attempts = 0;
    std::int64_t denied = 0;
    std::int64_t keysSeen = 0;
    std::int64_t keysDenied = 0;
    std::int64_t heaviestAttempts = 0; // the key with most requests (the first such key)
    std::int64_t heaviestAllowed = 0;
    std::int64_t maxInWindow = 0;

    double deniedShare() const { return attempts ? double(denied) / double(attempts) : 0; }
    double keysDeniedShare() const { return keysSeen ? double(keysDenied) / double(keysSeen) : 0; }
    double heaviestAdmittedShare() const { return heaviestAttempts ? double(heaviestAllowed) / double(heaviestAttempts) : 0; }
};

struct SweepResult {
    std::vector<SweepAxis> axes;
    std::vector<Algorithm> algorithms;
    std::uint32_t heaviestKey = 0;
    // cells[(i * size(axis 1) + j) * algorithms + a]: point (i, j), algorithm a.
    std::vector<SweepCell> cells;

    std::size_t columns() const { return axes.size() > 1 ? axes[1].size() : 1; }
    const SweepCell& cell(std::size_t i, std::size_t j, std::size_t a) const
    {
        return cells[(i * columns() + j) * algorithms.size() + a];
    }
};

// SweepCancelled is thrown when the cancel flag was set during a sweep.
struct SweepCancelled {};

// runSweep replays the traffic at every point on `threads` threads (at least 1). progress, when
// set, is called (from the workers, serialised) with the cells done and the cells in all.
SweepResult runSweep(const Traffic& traffic, const SweepBase& base, const std::vector<SweepAxis>& axes,
                     unsigned threads, const std::atomic<bool>* cancel = nullptr,
                     const std::function<void(std::size_t, std::size_t)>& progress = {});

// cellOf summarises one replay as a sweep cell (attempts per key from attemptsPerKey).
SweepCell cellOf(const ReplayRow& row, const std::vector<std::int64_t>& attempts, std::uint32_t heaviestKey);

} // namespace ratelab
