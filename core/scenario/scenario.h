// Scenario is everything a simulation needs: the config, the algorithms, and the arrivals
// (from a pattern, or explicit times from a file), plus the words that go with a preset.
#pragma once

#include "engine/clients.h"
#include "engine/cluster.h"
#include "limiters/config.h"
#include "engine/layered.h"
#include "engine/limit_change.h"
#include "limiters/limiter.h"
#include "traffic/pattern.h"
#include "engine/simulator.h"
#include "server/client_throttle.h"
#include "server/gate.h"
#include "server/server.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ratelab {

struct Scenario {
    LimiterConfig config;
    std::vector<Algorithm> algorithms{kDefaultAlgorithms.begin(), kDefaultAlgorithms.end()};
    Pattern pattern;
    std::optional<std::vector<Nanos>> explicitArrivals; // replaces the pattern when set
    std::vector<Nanos> addedArrivals;                   // requests sent by hand, merged in
    std::string title;
    std::string lesson;
    // Request cost. Every request costs `cost` (1..kMaxCost) unless explicitCosts,
    // when not empty, gives explicit arrival i its own (0: `cost` applies). Added arrivals cost `cost`.
    std::int64_t cost = 1;
    std::vector<std::int64_t> explicitCosts;
    // Layers of a layered policy: when not empty, the rows end with `layered` (rows.h).
    std::vector<Layer> layers;
    // A cluster: when set, every algorithm decides on these nodes. Its random
    // balancer draws from pattern.seed, the scenario's one seed.
    std::optional<ClusterConfig> cluster;
    // Clients that react: when set, requests belong to clients that retry. Its backoff
    // jitter draws from pattern.seed. explicitClients, when not empty, names explicit arrival
    // i's client (the rest are assigned round robin).
    std::optional<ClientConfig> clients;
    std::vector<std::int64_t> explicitClients;
    // Replaying real traffic: the access log `ratelab replay` and `sweep` read when no
    // LOG is named (a file, or a compiled-in ":/traffic/..." resource). The app does not read it.
    std::string trafficLog;
    // Fleets and storms: buckets start empty, not full: the store at 0, a node when it
    // joins, a node's local fallback when the store goes down (semantics.md, "Start").
    bool bucketsStartEmpty = false;
    // Limit changes: from each one's time on, the algorithm rows take its values and
    // keep their state (a layered policy keeps its layers).
    std::vector<LimitChange> changes;
    // The app's classroom pace: the framed span plays in this long; 0: the default 10 s.
    Nanos playbackNanos = 0;
    // The server behind the limiter: when set, every row's admitted attempts are served
    // by it (server.h), and each concurrency limiter (a gate spec, gate.h) is a row of its own in
    // front of it, after the algorithms and `layered`. layeredGate, when not empty, is the
    // concurrency limiter after the layered policy's layers.
    std::optional<ServerConfig> server;
    std::vector<GateSpec> concurrency;
    GateSpec layeredGate;
    // A client throttle every client runs (client_throttle.h: Bottleneck, p-queue), when not
    // empty: it holds each request's first attempt back until it starts it.
    ClientThrottleSpec throttle;
    // The arrivals file's service and priority columns: when not empty, one per
    // explicit arrival. explicitService[i] is request i's service time in ns, read with
    // `service=file` (every attempt of the request takes it); explicitCritical[i] is 1 for a
    // critical request, read by a stripe row with `priority=file`, when the priority column holds
    // words; explicitPriority[i] is request i's priority, handed to its client's throttle, when
    // it holds numbers (one of the two is empty). A column nothing reads is refused
    // (checkRequestColumns), never silently ignored.
    std::vector<Nanos> explicitService;
    std::vector<std::uint8_t> explicitCritical;
    std::vector<double> explicitPriority;

    friend bool operator==(const Scenario&, const Scenario&) = default;
};

// fleetEvents lists a scenario's timeline in time order: its cluster's events (fleetEvents of
// the cluster) and its limit changes.
std::vector<FleetEvent> fleetEvents(const Scenario& s);
// withEventMoved returns the scenario with event e at time `to`. It throws InputError when the
// result is not valid (see movedEvent).
Scenario withEventMoved(const Scenario& s, const FleetEvent& e, Nanos to);

// withEventAdded returns the scenario with a node joining (a new node, joining at `at`) or
// leaving (the highest-numbered node that has no leave yet and is up at `at`) at time `at`. It
// throws InputError when the scenario has no cluster, autoscales, or has no node left to leave.
Scenario withEventAdded(const Scenario& s, FleetEvent::Kind kind, Nanos at);
// withEventRemoved returns the scenario without event e (an outage's end removes the outage).
Scenario withEventRemoved(const Scenario& s, const FleetEvent& e);

// checkDurations refuses a config whose durations the chosen algorithms could report past the
// largest Nanos (a queue delay of capacity / rate, a counter's retry_after of up to 2 W), so no
// result is ever printed clamped. It throws InputError naming the bound.
void checkDurations(const LimiterConfig& c, std::span<const Algorithm> algorithms);

// resolveArrivals checks the durations, then returns the scenario's sorted arrival times. It throws InputError when the
// pattern's parameters are out of range or there are more than kMaxArrivals requests.
std::vector<Nanos> resolveArrivals(const Scenario& s);
// resolveArrivals of a scenario about to go takes its explicit arrivals rather than copying them.
std::vector<Nanos> resolveArrivals(Scenario&& s);

// resolveCosts returns one cost per resolveArrivals(s) time, in the same order, or an empty
// vector when every request costs 1.
std::vector<std::int64_t> resolveCosts(const Scenario& s);

// checkRequestColumns refuses a scenario whose service or priority column does not fit: a
// column nothing reads (a service column without service=file, a priority column of words
// without a stripe row of priority=file, one of numbers without a throttle), a kind its reader
// does not take (numbers for priority=file, words with a throttle, which reads the column too),
// service=file or priority=file without the column, service=file with requests added by hand
// (they have no line), a column of the wrong length. It throws InputError; resolveArrivals calls
// it, so every command and the app refuse alike.
void checkRequestColumns(const Scenario& s);

// resolveServices returns one service time per resolveArrivals(s) time with service=file, else
// an empty vector. resolveCritical returns one class per time (1: critical; a request added by
// hand is normal, 0) when the arrivals have a priority column, else an empty vector.
std::vector<Nanos> resolveServices(const Scenario& s);
std::vector<std::uint8_t> resolveCritical(const Scenario& s);
// resolvePriorities returns one throttle priority per time when the priority column holds
// numbers (NaN for a request added by hand: the throttle's own priority= applies), else an empty
// vector.
std::vector<double> resolvePriorities(const Scenario& s);

} // namespace ratelab
