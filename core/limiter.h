// The interface every rate limiter in RateLab implements, and the Decision it returns.
//
// A limiter is a small value type: its whole state is a few integers (or, for the log, a ring of
// timestamps). It never reads a clock; each call is handed the request time `t` in nanoseconds,
// and times must not decrease from one call to the next. Copying a limiter copies its state,
// which is how tests ask "what if a request came at t + d instead".
#pragma once

#include "config.h"
#include "nanos.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace ratelab {

enum class Algorithm : std::uint8_t {
    FixedWindow,
    SlidingWindowLog,
    SlidingWindowCounter,
    TokenBucket,
    LeakyBucket,
    LeakyBucketQueue,
    Gcra,
};

inline constexpr std::array<Algorithm, 7> kAllAlgorithms = {
    Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::SlidingWindowCounter, Algorithm::TokenBucket,
    Algorithm::LeakyBucket, Algorithm::LeakyBucketQueue, Algorithm::Gcra,
};

// algorithmId returns the id used everywhere: CLI, JSON, scenario files, UI ("token_bucket").
std::string_view algorithmId(Algorithm a);
// algorithmTitle returns the name people read ("Token bucket").
std::string_view algorithmTitle(Algorithm a);
// levelUnit names what the algorithm's level counts ("tokens", "requests waiting").
std::string_view levelUnit(Algorithm a);
// algorithmFromId parses an id; it returns nullopt for an unknown one.
std::optional<Algorithm> algorithmFromId(std::string_view id);

// Decision is what a limiter answers for one request.
struct Decision {
    // delay is how long an admitted request waits before it leaves (the queue only), rounded up
    // to the nanosecond.
    Nanos delay = 0;
    // retryAfter is, for a denied request, the least d such that one request at t + d would be
    // admitted if nothing else arrived; 0 when admitted.
    Nanos retryAfter = 0;
    // level is the limiter's state after the request, in the unit levelUnit names.
    double level = 0;
    // remaining is how many more requests at the same instant would be admitted.
    std::int32_t remaining = 0;
    bool allowed = false;
};

// Memory is the state a limiter holds for one key: each entry is one stored record (a
// timestamp, or the handful of counters of an O(1) limiter), counted as 8 bytes a field.
struct Memory {
    std::int64_t bytes = 0;
    std::int64_t entries = 0;
};

class Limiter {
public:
    virtual ~Limiter() = default;

    // decide admits or denies one request at t, which must not be earlier than the last t.
    virtual Decision decide(Nanos t) = 0;
    // levelAt reports the level at t (not earlier than the last request) without changing state.
    virtual double levelAt(Nanos t) const = 0;
    // memory reports the state held now.
    virtual Memory memory() const = 0;
    virtual Algorithm algorithm() const = 0;
    virtual std::unique_ptr<Limiter> clone() const = 0;
};

// makeLimiter builds a fresh limiter of the given algorithm.
std::unique_ptr<Limiter> makeLimiter(Algorithm a, const LimiterConfig& config);

// clampRemaining narrows a count of further admissions to the Decision field.
constexpr std::int32_t clampRemaining(Int128 n)
{
    return n < 0 ? 0 : n > 2'000'000'000 ? 2'000'000'000 : static_cast<std::int32_t>(n);
}

} // namespace ratelab
