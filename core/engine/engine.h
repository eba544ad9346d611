// The engine: one event loop where every production feature combines (semantics.md,
// "Everything together: one attempt's path"). One attempt (a first attempt or a retry) of client
// c at true time t of cost k goes: balancer -> node -> node clock -> key -> each layer of the
// policy, decided where the coordination keeps that (key, layer)'s state (store.h) -> response
// (decision and headers) -> the client's retry policy. Attempts are decided in time order; at
// one instant first attempts (in arrival order) before retries (in the order of the denials
// that made them).
//
// A row of the app or of `compare` is one policy: an algorithm is a policy of one layer, and
// `layered` the scenario's layers. The plain rows (one layer, one node, one client, no retries,
// no headers) keep their one-pass fast path (decide.h); this loop is for the rows that need it,
// and reduces to them decision for decision when every feature is switched off.
#pragma once

#include "arithmetic/cancel.h"
#include "engine/clients.h"
#include "engine/cluster.h"
#include "engine/layered.h"
#include "engine/attempt_log.h"
#include "engine/level_lines.h"
#include "engine/simulator.h"
#include "server/client_throttle.h"
#include "server/gate.h"
#include "server/server.h"
#include "server/server_stage.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <vector>

namespace ratelab {

// StoreAsk is one layer's decision as a real store is asked it (EngineSetup::external): the
// key's state of that layer, on the deciding node, at its clock.
struct StoreAsk {
    std::size_t attempt = 0; // in decision order
    std::int64_t key = -1;   // the client whose key it is, or -1 for the one global key
    std::size_t layer = 0;
    Algorithm algorithm = Algorithm::FixedWindow;
    const LimiterConfig* config = nullptr; // the layer's
    int node = 0;
    Nanos clock = 0; // the deciding node's clock
    std::int64_t cost = 1;
};

// StoreDisagrees is thrown at the first answer of an external store that differs from the
// model's (allowed, delay, remaining or retry_after): what was asked, at true time t.
class StoreDisagrees : public std::runtime_error {
public:
    StoreDisagrees(const StoreAsk& ask, Nanos t, const Decision& store, const Decision& model);
    StoreAsk ask;
    Nanos t;
    Decision store, model;
};

// EngineSetup is what a row runs: the policy and where and for whom it decides.
struct EngineSetup {
    std::vector<Layer> layers;            // the policy, asked in order (none: a row of the server alone)
    std::optional<ClusterConfig> cluster; // none: one node, one store
    std::optional<ClientConfig> clients;  // none: one client, one key, no retries
    std::uint64_t seed = 1;               // the random balancer's draws and the backoff jitter
    bool startEmpty = false;              // buckets start empty, not full (store, joining nodes, fallbacks)
    // Limit changes of the first layer (an algorithm row): from each time on, that config (the
    // state kept). In time order.
    std::vector<std::pair<Nanos, LimiterConfig>> changes;
    bool headers = false;                 // keep what the response headers need (reset, per layer)
    bool handedTimes = false;             // keep the time the first layer's limiter was handed
    bool keepLog = true;                  // false: only the figures (a first pass that checks a row runs)
    // levelLines, when set, asks for the level lines of the states the row keeps (RowRun::levels).
    std::optional<LevelLineSetup> levelLines;
    // external, when set, is a real store (the Redis backend) asked every layer's decision beside
    // the model's store; they must agree (else StoreDisagrees). It models `shared`: the caller
    // refuses what it cannot run (refusedThroughRedis).
    std::function<Decision(const StoreAsk&)> external;
    // server, when set, serves every attempt the layers admit (server_stage.h); gate, when not
    // empty, is the concurrency limiter in front of it. Without layers a row is the gate, or the
    // server alone.
    std::optional<ServerConfig> server;
    GateSpec gate;
    // throttle, when not empty, is each client's own throttle (one Bottleneck or p-queue per
    // client, as every client process holds its own): it holds a request's first attempt back
    // until it starts it; retries bypass it (throttled_arrivals.h).
    ClientThrottleSpec throttle;
};

// EngineRequests are the first attempts: times (non-decreasing), costs (empty: all 1) and each
// request's client (empty: round robin, request i is client i mod K). With a server, service
// and critical are the arrivals file's columns (ServerStage::useRequests; empty: none). With a
// throttle, priorities are each request's (the priority column's numbers; empty, or NaN for one
// request: the throttle's own priority=).
struct EngineRequests {
    std::span<const Nanos> arrivals;
    std::span<const std::int64_t> costs;
    std::span<const std::int64_t> clientOf;
    std::span<const Nanos> service = {};
    std::span<const std::uint8_t> critical = {};
    std::span<const double> priorities = {};
    // firstServices, when not empty, are the server's draws for each request's first attempt
    // (firstServiceDraws of the server's service and the setup's seed), made once for many rows.
    std::span<const Nanos> firstServices = {};
};


// LayerFigure is one layer's part of a response (RateLimit lists every layer): with headers and
// more than one layer, one per attempt and layer.
struct LayerFigure {
    std::int32_t remaining = 0;
    Nanos reset = 0;
};

// RowRun is what the engine reports of one row.
struct RowRun {
    // metrics count attempts; max_in_window and overshoot are over every admitted attempt on
    // true time, against the first layer's window and limit; memory is the largest key's state,
    // summed over its layers and where they live (nodes, store).
    Metrics metrics;
    std::vector<LayerMetrics> layers;        // per layer: allowed, denied here, wasted
    std::vector<std::int64_t> perNodeAllowed; // admitted per node
    ClientStats clients;                      // requests, attempts, latency, memory per key
    ChunkedLog<LoggedAttempt> log;            // in decision order
    // With the log, each attempt's lane and (on a cluster) node, apart: what a pass over a
    // million attempts reads, in 1 byte each, not 40.
    std::vector<Verdict> verdicts;
    std::vector<std::uint8_t> nodes;
    ChunkedLog<Nanos> resets;                 // with headers: the header layer's reset after each
    std::vector<LayerFigure> figures;         // with headers and layers: log.size() * layers
    std::vector<Nanos> handed;                // with handedTimes: one per attempt
    std::vector<std::pair<Nanos, int>> scaling; // autoscaling: from each time on, how many nodes are up
    // levels: with EngineSetup::levelLines, the lines of the states the row keeps, as the store
    // changed them; none where they do not apply (hasLevelLines) or past mostAttempts attempts.
    KeyLevels levels;
    // With a server: what each attempt became there (with the log: one per attempt, in decision
    // order) and the server's figures.
    std::vector<ServedAttempt> served;
    std::optional<ServerFigures> server;
};

// EngineRow is what a row run by the engine keeps for the app: its setup and its run (with the
// headers' figures), so a hover shows the response of the state that decided.
struct EngineRow {
    EngineSetup setup;
    RowRun run;
};

// hasLevelLines is true for a row whose states have lines of their own: the nodes of a local or
// split cluster (hybrid without an outage, an empty start, limit changes, joins, leaves or
// autoscaling), the store of a shared one (not through an outage with local fallbacks) or of a
// racy one (without an outage, an empty start or limit changes), each client key of one server,
// or the one state of a row that starts empty or changes its limit. A policy of more than one
// layer, and client keys on a cluster, have none.
bool hasLevelLines(const EngineSetup& setup);

// LinesOf is how a row's level lines are kept: by node or by the store of each key, and named.
struct LinesOf {
    bool nodes = false;
    std::string prefix;
    int firstNumber = 0;
    bool numbered = true;
};

// linesOf returns how row `setup`'s level lines are kept, or none (hasLevelLines' rule,
// level_rule.cpp).
std::optional<LinesOf> linesOf(const EngineSetup& setup);

// runRow runs one row. It throws InputError for more than kMaxAttempts attempts, a client out of
// range, a retry or a node clock past the largest time, and Cancelled once *cancel (when given)
// is set (looked at every kCancelCheck attempts).
RowRun runRow(const EngineSetup& setup, const EngineRequests& requests, const std::atomic<bool>* cancel = nullptr);

namespace detail {
// runRowByCells is runRow through the general loop alone, never the typed loop of a row whose
// nodes decide alone (row_runner_nodes.cpp): the reference tst_engine checks that loop against.
RowRun runRowByCells(const EngineSetup& setup, const EngineRequests& requests);
// runsTyped is true when runRow takes the typed loop for this row: what tells tst_engine that
// its comparison with runRowByCells compares two loops, not one with itself.
bool runsTyped(const EngineSetup& setup, const EngineRequests& requests);
} // namespace detail

// quotaOfLayer returns the most one instant admits on layer l as a node sees it (split divides).
std::int64_t quotaOfLayer(const EngineSetup& setup, std::size_t l);

// layerConfig returns the config layer l decides with: split divides it among the nodes.
LimiterConfig layerConfig(const EngineSetup& setup, std::size_t l);

} // namespace ratelab
