// LimitChange: a new limit from a time on (semantics.md, "Fleets and storms", Start): the
// limiter keeps its state and applies the new config from `at` on, tokens (or water, or counts)
// capped at the new capacity. The window stays; a change names the values it changes.
#pragma once

#include "limiters/config.h"
#include "arithmetic/nanos.h"
#include "arithmetic/rate.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

struct LimitChange {
    Nanos at = 0;
    std::optional<std::int64_t> limit;
    std::optional<std::int64_t> capacity;
    std::optional<Rate> rate;
    friend bool operator==(const LimitChange&, const LimitChange&) = default;
};

// changedConfig returns the config from change c on, over `before` (the config until then): the
// values c names; capacity and rate it does not name follow a new limit when `before`'s follow
// its limit (C = L, r = L / W), and stay as they were otherwise. It throws InputError for a value
// out of range, as LimiterConfig::make does.
LimiterConfig changedConfig(const LimiterConfig& before, const LimitChange& c);

// changedConfigs returns the config in force from each change on, in time order (each over the
// one before it), starting from `base`.
std::vector<std::pair<Nanos, LimiterConfig>> changedConfigs(const LimiterConfig& base, std::span<const LimitChange> changes);

// parseLimitChange reads "T:limit=L,capacity=C,rate=R" (T in seconds, at least one key). It
// throws InputError naming what is wrong.
LimitChange parseLimitChange(std::string_view text);

// limitChangeText writes a change in that grammar: "10:limit=20,rate=2".
std::string limitChangeText(const LimitChange& c);

} // namespace ratelab
