// Traffic patterns: the arrival streams a scenario can be built from.
//
// Every pattern is a pure function of its parameters (Poisson included: it draws from a
// seeded mt19937_64 and its own exponential transform, so the same seed gives the same stream
// on every platform).
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"
#include "arithmetic/rate.h"
#include "arithmetic/nanos.h"
#include "arithmetic/threads.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ratelab {

// kMaxScenarioClients caps how many clients one scenario may have (ClientConfig's clients, an arrival's
// named client): here, below the arrivals that name them and the engine that runs them.
inline constexpr std::int64_t kMaxScenarioClients = 100'000;

enum class PatternKind : std::uint8_t { Uniform, Burst, Poisson, Edge, Worst };

inline constexpr PatternKind kAllPatterns[] = {PatternKind::Uniform, PatternKind::Burst, PatternKind::Poisson,
                                               PatternKind::Edge, PatternKind::Worst};

std::string_view patternId(PatternKind k);
std::optional<PatternKind> patternFromId(std::string_view id);

// Pattern holds the parameters of every pattern; each kind reads the ones it needs.
struct Pattern {
    PatternKind kind = PatternKind::Uniform;
    std::int64_t count = 15;                    // uniform, burst, poisson: requests in all
    Nanos delayNanos = kNanosPerSecond / 10;    // uniform: gap between requests
    Nanos startNanos = 0;                       // all: time of the first request (edge: offset)
    std::int64_t burstSize = 5;                 // burst: requests at one instant
    Nanos periodNanos = kNanosPerSecond;        // burst: time between bursts
    Rate lambda{1, kNanosPerSecond / 2};        // poisson: mean requests per second (2, reduced)
    std::uint64_t seed = 1;                     // poisson
    Nanos gapNanos = kNanosPerSecond / 1000;    // edge: from the first burst to the boundary
    Nanos windowOfNanos = 0;                    // worst (and every row's bound): T; 0 = the config's window
    Algorithm worstOf = Algorithm::FixedWindow; // worst: whose worst case (the scenario's first algorithm)

    friend bool operator==(const Pattern&, const Pattern&) = default;
};

// checkPattern throws the InputError generateArrivals would throw for parameters out of range,
// too many requests, or a last request past the largest time (it states the cap), without
// generating anything. Poisson streams are random: one that runs past the range is only found by
// generateArrivals.
void checkPattern(const Pattern& p, const LimiterConfig& config);

// generateArrivals returns the non-decreasing arrival times of a pattern. The edge pattern sends
// `limit` requests at B - gap and `limit` at B, where B is the first window boundary at or after
// start + gap (and after 0). The worst pattern is worstArrivals(worstOf, config, T) (core/limiters/worst_case.h):
// the traffic that makes worstOf admit its bound in one window of length T; start is not read. It throws InputError for parameters out of range, for more than
// kMaxArrivals requests and for times beyond the range of Nanos.
// With Threads::Two a long Poisson stream makes its gaps on a second thread too (the same
// arrivals).
std::vector<Nanos> generateArrivals(const Pattern& p, const LimiterConfig& config, Threads threads = Threads::One);

// boundWindowNanos returns the T of "at most X in any T": the pattern's window_of, else the config's window.
inline Nanos boundWindowNanos(const Pattern& p, const LimiterConfig& config)
{
    return p.windowOfNanos > 0 ? p.windowOfNanos : config.windowNanos();
}

} // namespace ratelab
