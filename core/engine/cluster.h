// A cluster: N nodes behind a balancer, each deciding with a limiter, sharing state through a
// store according to a coordination mode (semantics.md, "Cluster: N nodes and a store").
//
// Design
// ------
// The contract defines every mode by one rule, visibility: request i is decided by replaying, in
// arrival order, the admitted requests visible to it on a fresh limiter, and asking whether one
// more request at i's time would be admitted. Replaying literally is O(n^2). Two facts make it
// linear:
//
// 1. A denied decide changes nothing that matters later: for every limiter it is only a time
//    advance (a window roll, an expiry, a refill or drain), and advancing to t and then to t' is
//    advancing to t'. So a limiter that has decided a whole stream is in the same state as one
//    that replayed only the admitted requests of it, at the same times.
// 2. In every mode the visible set only grows by appending: for one node (local, split) it is the
//    node's own prefix; for racy it is the prefix j with t_j + latency <= t_i, and t is
//    non-decreasing; for hybrid it is the prefix before the last tick plus the node's own since.
//    So a limiter can keep the replayed prefix and take each newly visible admission once.
//
// Which clock a replayed request is replayed at. A request is decided at the time its limiter is
// handed: the node clock c_i = t_i + offset(node) for local and split, and for the store modes
// h_i = max(c_i, the last time that limiter was handed) (the store clock never goes back). A
// replay must reproduce the state the store would hold, so admission j is replayed at h_j, the
// time it was handed when it was decided, never at t_j or c_j: with skew, c_j may lie ahead of
// later requests' clocks, and the store saw j at h_j. For `racy` the h's are one running
// maximum, so the pending admissions replay at non-decreasing times, all at or before the h_i of
// the request being decided. For `hybrid` each node's limiter has its own running maximum, so
// admissions from different nodes can reach the store out of time order; the store replays j at
// max(h_j, the store's last time), the same never-back rule. A node that passes a tick becomes a
// copy of the store (its last time included) and then hands its own requests
// h_i = max(c_i, that last time).
//
// A replayed admission is offered to the limiter like any request: in racy and hybrid, where a
// node decided on a stale view, the store may now refuse it, and then it changes nothing. The
// over-admission shows in the decisions (and in max_in_window), not as a store past its limit.
//
// Racy decides i on a peek at the store (a copy for the O(1) limiters; for the log, a count of
// the entries inside the window and the oldest, O(log L)), then queues i's admission to be
// applied once t_i + latency <= t_k for a later k. With latency 0 every earlier admission is
// applied before i is decided, so racy equals shared. Hybrid copies the store into a node once per
// tick the node crosses, at most once per request.
//
// One node: local, split (L/1 = L), shared and hybrid are the single limiter. Racy is too only
// with latency 0: its rule, t_j + latency <= t_i, does not ask which node decided j, so a single
// node whose read and write are a round trip apart races with itself, as a single server with
// concurrent requests does. (semantics.md says every mode reduces to the single limiter with one
// node; its own racy rule says otherwise for latency > 0, and the rule is what is implemented.)
//
// Node offsets: node n's clock runs ahead by floor(skew * n / (N - 1)) ns (0 for N = 1), the
// exact fraction floored to the nanosecond as every time is an integer.
#pragma once

#include "limiters/config.h"
#include "limiters/limiter.h"
#include "arithmetic/det_math.h"
#include "arithmetic/nanos.h"

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace ratelab {

enum class Balancer : std::uint8_t { RoundRobin, Random, Hash };
// Fallback is what nodes do while the store is down (semantics.md, "Fleets and storms"): admit
// everything, deny everything until it is back, or decide on an in-memory limiter each.
enum class Fallback : std::uint8_t { Open, Closed, Local };
inline constexpr std::array<Fallback, 3> kAllFallbacks = {Fallback::Open, Fallback::Closed, Fallback::Local};
std::string_view fallbackId(Fallback f);
std::optional<Fallback> fallbackFromId(std::string_view id);

// NodeEvent is a node joining or leaving at a time (true time).
struct NodeEvent {
    int node = 0;
    Nanos at = 0;
    friend bool operator==(const NodeEvent&, const NodeEvent&) = default;
};
enum class Coordination : std::uint8_t { Local, Split, Shared, Racy, Hybrid };

inline constexpr std::array<Balancer, 3> kAllBalancers = {Balancer::RoundRobin, Balancer::Random, Balancer::Hash};
inline constexpr std::array<Coordination, 5> kAllCoordinations = {
    Coordination::Local, Coordination::Split, Coordination::Shared, Coordination::Racy, Coordination::Hybrid};

// balancerId and coordinationId return the ids used everywhere ("round_robin", "racy").
std::string_view balancerId(Balancer b);
std::string_view coordinationId(Coordination c);
// balancerFromId and coordinationFromId parse an id; nullopt for an unknown one.
std::optional<Balancer> balancerFromId(std::string_view id);
std::optional<Coordination> coordinationFromId(std::string_view id);

// ClusterConfig is a validated cluster: it can only be made through `make`.
class ClusterConfig {
public:
    static constexpr int kMaxNodes = 64;

    struct Options {
        int nodes = 1;
        Balancer balancer = Balancer::RoundRobin;
        Coordination coordination = Coordination::Shared;
        Nanos latencyNanos = 0; // racy only: the store round trip
        Nanos syncNanos = 0;    // hybrid only (required there): the sync period
        Nanos skewNanos = 0;    // the last node's clock runs this far ahead
        std::uint64_t seed = 1; // random balancer
        // Fleets and storms: a store outage [outageFrom, outageTo) and what nodes do
        // meanwhile; nodes that join (absent before) or leave (absent from then on).
        Nanos outageFromNanos = 0;
        Nanos outageToNanos = 0; // no outage when not after outageFrom
        Fallback fallback = Fallback::Open;
        std::vector<NodeEvent> joins = {};
        std::vector<NodeEvent> leaves = {};
        // Autoscaling by load: when autoscaleMax > 0, nodes 0 .. autoscaleMin - 1 are up
        // at first, and at each whole second k the nodes up until k + 1 are the first
        // clamp(ceil(attempts in [k - 1, k) / scaleAt), min, max); nodes = max.
        int autoscaleMin = 0;
        int autoscaleMax = 0;
        Rate scaleAt{1, kNanosPerSecond}; // attempts a second one node takes
    };

    // make validates: nodes in 1..64, latency >= 0 and only for racy, sync > 0 for hybrid and
    // only there, skew >= 0. It throws InputError naming the value ("nodes must be at most 64
    // (got 65)", "sync applies only to --coordination hybrid").
    static ClusterConfig make(const Options& o);

    int nodes() const { return m_o.nodes; }
    Balancer balancer() const { return m_o.balancer; }
    Coordination coordination() const { return m_o.coordination; }
    Nanos latencyNanos() const { return m_o.latencyNanos; }
    Nanos syncNanos() const { return m_o.syncNanos; }
    Nanos skewNanos() const { return m_o.skewNanos; }
    std::uint64_t seed() const { return m_o.seed; }
    const Options& options() const { return m_o; }
    // hasOutage is true when the store is down for a while: from before to after.
    bool hasOutage() const { return m_o.outageToNanos > m_o.outageFromNanos; }
    // storeDown is true when true time t falls in the outage (a store mode only: local and split
    // have no store).
    bool storeDown(Nanos t) const { return hasOutage() && t >= m_o.outageFromNanos && t < m_o.outageToNanos; }
    // nodeUp is true when node n is part of the cluster at true time t: after its join, before its leave.
    bool nodeUp(int node, Nanos t) const;
    // joinedAt is when node n joins (0 for a node there from the start).
    Nanos joinedAt(int node) const;
    // hasMembership is true when a node joins or leaves.
    bool hasMembership() const { return !m_o.joins.empty() || !m_o.leaves.empty(); }
    // hasAutoscale is true when the nodes up follow the load.
    bool hasAutoscale() const { return m_o.autoscaleMax > 0; }
    // nodesFor returns how many nodes the autoscaler keeps up for a second after one of
    // `attempts`: clamp(ceil(attempts / scaleAt), min, max).
    int nodesFor(std::int64_t attempts) const;

    // nodeOffset returns how far node n's clock runs ahead: floor(skew * n / (N - 1)).
    Nanos nodeOffset(int node) const;

    friend bool operator==(const ClusterConfig& a, const ClusterConfig& b)
    {
        const Options &x = a.m_o, &y = b.m_o;
        return x.nodes == y.nodes && x.balancer == y.balancer && x.coordination == y.coordination
            && x.latencyNanos == y.latencyNanos && x.syncNanos == y.syncNanos && x.skewNanos == y.skewNanos
            && x.seed == y.seed && x.outageFromNanos == y.outageFromNanos && x.outageToNanos == y.outageToNanos
            && x.fallback == y.fallback && x.joins == y.joins && x.leaves == y.leaves
            && x.autoscaleMin == y.autoscaleMin && x.autoscaleMax == y.autoscaleMax && x.scaleAt == y.scaleAt;
    }

    // The default is one node sharing a store: the single limiter.
    ClusterConfig() = default;

private:
    Options m_o;
};

// splitConfig returns the per-node config of `split`: L/N and C/N floored (at least 1), r/N
// exact, the same window. It throws InputError when r/N cannot be held in 64 bits.
LimiterConfig splitConfig(const LimiterConfig& config, int nodes);

// NodeBalancer picks each attempt's node, the one balancer of the engine and of assignNodes:
// round robin counts attempts in decision order, random draws per attempt from mt19937_64
// (uniform by rejection, no modulo bias, the same on every platform), hash sends a client to
// one node. With joins and leaves it picks among the nodes up at the attempt's time, in node
// order; with autoscaling, among the first setUp(count).
class NodeBalancer {
public:
    NodeBalancer(const ClusterConfig& c, std::uint64_t seed);

    // setUp keeps the first `count` nodes up (the autoscaler's choice).
    void setUp(int count);
    int upCount() const { return int(m_up.size()); }
    // pick returns the node of an attempt of `client` at true time t. It throws InputError when
    // no node is up at t.
    int pick(std::uint64_t client, Nanos t);

private:
    const ClusterConfig& m_cluster;
    std::mt19937_64 m_rng;
    std::vector<int> m_up;
    std::uint64_t m_count = 0;
    // m_count % m_turnOf, kept as m_count grows: round robin's turn without a division a pick.
    std::uint64_t m_turn = 0;
    std::uint64_t m_turnOf = 0;
};

// assignNodes returns the node of each of n requests, every node up (NodeBalancer from the
// cluster's seed). clients[i] is request i's client (hash
// balancer); when clients is empty, request i is its own client.
std::vector<std::uint8_t> assignNodes(const ClusterConfig& cluster, std::size_t n,
                                      std::span<const std::uint64_t> clients = {});

} // namespace ratelab

namespace ratelab {

// FleetEvent is one event of a cluster's timeline, as the app's timeline strip shows and moves
// it: a node joining or leaving, the store going down or coming back.
struct FleetEvent {
    enum class Kind : std::uint8_t { Join, Leave, StoreDown, StoreBack, LimitChange };
    Kind kind = Kind::Join;
    int node = 0; // joins and leaves: the node; a limit change: its index in the scenario's list
    Nanos at = 0;
    friend bool operator==(const FleetEvent&, const FleetEvent&) = default;
};

// fleetEvents lists a cluster's events in time order (the outage's two ends only in a store mode).
std::vector<FleetEvent> fleetEvents(const ClusterConfig& cluster);

// movedEvent returns the cluster with event e at time `to`. It throws InputError when the result
// is not a valid cluster (a leave before its join, an outage that ends before it starts).
ClusterConfig movedEvent(const ClusterConfig& cluster, const FleetEvent& e, Nanos to);

} // namespace ratelab
