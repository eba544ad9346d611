// Replaying real traffic per key (semantics.md, "Replaying real traffic"): every key its own
// limiter of the policy, no retries (the log already holds the retries that happened).
//
// A replay runs on the engine's keyed store: the log's keys are the engine's clients, one key
// each (ClientConfig::keyed), so a cluster, buckets that start empty and limit changes replay as
// `compare` runs them. On one server, full, with one config, each algorithm takes a fast path:
// one concrete limiter per key in a vector (no virtual call, no hash lookup per request), and
// the layers a LayeredPolicy per key; tst_replay_engine proves both equal to the engine, seeded.
// max_in_window is measured over every admitted request of the row, all keys together, as
// semantics.md measures a row.
#pragma once

#include "limiters/config.h"
#include "engine/cluster.h"
#include "engine/layered.h"
#include "engine/limit_change.h"
#include "limiters/limiter.h"
#include "scenario/scenario.h"
#include "traffic/traffic_log.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// ReplayPlace is where each key's state lives and how it starts: none of it set is one server,
// full, one config (the fast path); else the engine runs it as the scenario says.
struct ReplayPlace {
    std::optional<ClusterConfig> cluster;
    bool startEmpty = false;
    std::vector<LimitChange> changes = {}; // the algorithms' (not the layers'), as in compare
    std::uint64_t seed = 1;           // the random balancer's draws

    bool onEngine() const { return cluster || startEmpty || !changes.empty(); }
};

// replayPlace returns where the scenario places each key's state: its cluster, its empty start,
// its limit changes and the seed of its draws.
ReplayPlace replayPlace(const Scenario& s);

// ReplayPolicy is what each key's limiter is: one algorithm at a time at `config`, or the layers.
struct ReplayPolicy {
    LimiterConfig config;
    std::vector<Algorithm> algorithms{kDefaultAlgorithms.begin(), kDefaultAlgorithms.end()};
    std::vector<Layer> layers; // not empty: a row "layered" is added
    std::int64_t cost = 1;     // every request's cost when the traffic has none of its own
    ReplayPlace place;
};

// ReplayRow is one algorithm's (or the layered policy's) replay.
struct ReplayRow {
    std::string id;                      // the algorithm's id, or "layered"
    std::optional<Algorithm> algorithm;  // nullopt for the layered policy
    std::int64_t attempts = 0;
    std::int64_t allowed = 0;
    std::int64_t denied = 0;
    std::int64_t delayed = 0;            // admitted after a wait (the queue, nginx)
    std::int64_t never = 0;              // denied with a cost above the quota
    std::int64_t keysDenied = 0;         // keys with at least one denial
    std::int64_t maxInWindow = 0;        // over all admitted requests, in (s - W, s] of the row's own W (ownLimit)
    std::vector<std::int64_t> deniedPerKey;   // per key id
    std::vector<Nanos> firstDenialPerKey;     // per key id: the first denial's time, -1 for none
    Memory predicted;                    // `ratelab memory`'s worst case for the keys seen
    Memory held;                         // the state every key's limiter holds at the end, summed
};

// ReplayCancelled is thrown when the cancel flag was set during a replay.
struct ReplayCancelled {};

// attemptsPerKey counts each key's requests.
std::vector<std::int64_t> attemptsPerKey(const Traffic& traffic);

// replayOne replays the traffic through one limiter of `algorithm` per key. When `admitted` is
// given it receives one byte per request (1 admitted). costs: the traffic's own, else `cost`.
ReplayRow replayOne(const Traffic& traffic, Algorithm algorithm, const LimiterConfig& config, std::int64_t cost = 1,
                    std::vector<std::uint8_t>* admitted = nullptr, const std::atomic<bool>* cancel = nullptr,
                    const ReplayPlace& place = {});

// replayLayered replays through one LayeredPolicy of the layers per key; maxInWindow uses
// windowNanos (the policy's --window).
ReplayRow replayLayered(const Traffic& traffic, const std::vector<Layer>& layers, Nanos windowNanos,
                        std::int64_t cost = 1, std::vector<std::uint8_t>* admitted = nullptr,
                        const std::atomic<bool>* cancel = nullptr, const ReplayPlace& place = {});

// replay runs every algorithm of the policy, then the layered policy when it has layers.
std::vector<ReplayRow> replay(const Traffic& traffic, const ReplayPolicy& policy,
                              const std::atomic<bool>* cancel = nullptr);

// KeyDenials is one key in a ranking: its id, denials and first denial.
struct KeyDenials {
    std::uint32_t key = 0;
    std::int64_t denied = 0;
    Nanos firstDenial = -1;
};

// topKeys returns the n keys of a row with most denials (ties: the earlier first denial, then the
// smaller id), only keys with denials.
std::vector<KeyDenials> topKeys(const ReplayRow& row, std::size_t n);

} // namespace ratelab
