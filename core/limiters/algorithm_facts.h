// AlgorithmFacts: everything RateLab says about an algorithm that is not its arithmetic, in one
// table. The CLI, JSON, scenario files, the charts, the explanations and Help all read it, so
// adding an algorithm touches this table and its class, not a switch in every front end.
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"

#include <span>
#include <string_view>

namespace ratelab {

// ConfigUse names which values of the config an algorithm reads.
enum class ConfigUse : std::uint8_t {
    LimitWindow,  // limit L per window W
    CapacityRate, // capacity C, rate r
};

struct AlgorithmFacts {
    Algorithm algorithm;
    std::string_view id;          // "token_bucket": the CLI, JSON, scenario files
    std::string_view title;       // "Token bucket": headings
    std::string_view phrase;      // "token bucket": in running text
    std::string_view levelUnit;   // what the level counts: "tokens"
    std::string_view ceilingName; // the dashed line on its level chart: "capacity"
    ConfigUse reads;
    double (*ceiling)(const LimiterConfig&); // where that line lies, in the level's unit
    std::string_view summary;     // one paragraph for Help
};

// algorithmFacts lists every algorithm, in the order they are shown.
std::span<const AlgorithmFacts> algorithmFacts();

// facts returns the row of one algorithm.
const AlgorithmFacts& facts(Algorithm a);

} // namespace ratelab
