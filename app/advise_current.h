// The advice beside the config the gateway runs now (`advise --config CURRENT`): both configs'
// dry runs on the log, compared request for request as `replay --config CURRENT --against
// WRITTEN` compares them, and what the current one denies the keys the advice keeps whole.
#pragma once

#include "replay/dry_run.h"
#include "replay/dry_run_diff.h"
#include "traffic/traffic_log.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ratelab::app {

struct AgainstCurrent {
    std::string file;
    DryRunConfig config;
    DryRunResult result;
    DryRunDiff diff;
    std::int64_t keptRequests = 0, keptDenied = 0; // the kept keys' requests, and those the current config denies
    std::int64_t adviceKeptDenied = 0;             // and those the written config denies (0 where advised)
    std::string headline, summary;                 // dryRunHeadline of the current, diffSummary of the change
    // part: the current config's rules that meet fewer requests than the advice limits (a
    // location's, a route's), each with how many ("NAME, N of the M requests"), "" when none.
    std::string part;
    bool shared = false; // the advice is one bucket for every request (Envoy's): no keys
    bool letBy = false;  // the advice lets some requests by: the kept keys' requests count them too
};

// compareWithCurrent runs the current config (read before the log) on the traffic and compares
// it with the written config's dry run, naming the `top` keys the change affects most. kept
// holds, per log key, whether every request of it must pass; shared: the advice is one bucket
// for every request (Envoy's), which keeps them all.
void compareWithCurrent(AgainstCurrent& current, const Traffic& traffic, const DryRunConfig& written,
                        const DryRunResult& writtenResult, const std::vector<std::uint8_t>& kept, std::size_t top);

// keysLeftWhole says of each of the traffic's keys whether some request is keyed by it and the
// current config's dry run (its deniedBy) denies none of them (`advise --keep current`).
std::vector<std::uint8_t> keysLeftWhole(const std::vector<std::int32_t>& deniedBy, const Traffic& traffic);

// byName is a per-key vector of `from`'s keys for the keys of `to` (a subset of it), by name.
std::vector<std::uint8_t> byName(const std::vector<std::uint8_t>& perKey, const Traffic& from, const Traffic& to);

// writeCurrentText and writeCurrentJson say it: the current config's headline (its partial
// replay named, as every dry run's), what it denies the kept keys, and the change's summary.
void writeCurrentText(std::ostream& out, const AgainstCurrent& c);
void writeCurrentJson(std::ostream& out, const AgainstCurrent& c);

} // namespace ratelab::app
