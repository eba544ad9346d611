#include "engine/cluster.h"

#include "arithmetic/decimal.h"
#include "limiters/limiters.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>

namespace ratelab {

std::string_view balancerId(Balancer b)
{
    switch (b) {
    case Balancer::RoundRobin: return "round_robin";
    case Balancer::Random: return "random";
    case Balancer::Hash: break;
    }
    return "hash";
}

std::string_view coordinationId(Coordination c)
{
    switch (c) {
    case Coordination::Local: return "local";
    case Coordination::Split: return "split";
    case Coordination::Shared: return "shared";
    case Coordination::Racy: return "racy";
    case Coordination::Hybrid: break;
    }
    return "hybrid";
}

std::string_view fallbackId(Fallback f)
{
    switch (f) {
    case Fallback::Open: return "open";
    case Fallback::Closed: return "closed";
    case Fallback::Local: break;
    }
    return "local";
}

std::optional<Fallback> fallbackFromId(std::string_view id)
{
    for (Fallback f : kAllFallbacks)
        if (fallbackId(f) == id)
            return f;
    return std::nullopt;
}

bool ClusterConfig::nodeUp(int node, Nanos t) const
{
    for (const NodeEvent& e : m_o.joins)
        if (e.node == node && t < e.at)
            return false;
    for (const NodeEvent& e : m_o.leaves)
        if (e.node == node && t >= e.at)
            return false;
    return true;
}

Nanos ClusterConfig::joinedAt(int node) const
{
    for (const NodeEvent& e : m_o.joins)
        if (e.node == node)
            return e.at;
    return 0;
}

std::optional<Balancer> balancerFromId(std::string_view id)
{
    for (Balancer b : kAllBalancers)
        if (balancerId(b) == id)
            return b;
    return std::nullopt;
}

std::optional<Coordination> coordinationFromId(std::string_view id)
{
    for (Coordination c : kAllCoordinations)
        if (coordinationId(c) == id)
            return c;
    return std::nullopt;
}

ClusterConfig ClusterConfig::make(const Options& o)
{
    if (o.nodes < 1)
        throw InputError("nodes must be at least 1 (got " + std::to_string(o.nodes) + ")");
    if (o.nodes > kMaxNodes)
        throw InputError("nodes must be at most " + std::to_string(kMaxNodes) + " (got " + std::to_string(o.nodes) + ")");
    if (o.latencyNanos < 0)
        throw InputError("latency must not be negative (got " + formatSeconds(o.latencyNanos) + " s)");
    if (o.latencyNanos > 0 && o.coordination != Coordination::Racy)
        throw InputError("latency applies only to coordination racy (got " + std::string(coordinationId(o.coordination))
                         + ")");
    if (o.coordination == Coordination::Hybrid && o.syncNanos <= 0)
        throw InputError("coordination hybrid needs a sync period greater than 0 s (got " + formatSeconds(o.syncNanos)
                         + " s)");
    if (o.coordination != Coordination::Hybrid && o.syncNanos != 0)
        throw InputError("sync applies only to coordination hybrid (got " + std::string(coordinationId(o.coordination))
                         + ")");
    if (o.skewNanos < 0)
        throw InputError("skew must not be negative (got " + formatSeconds(o.skewNanos) + " s)");
    if (o.outageFromNanos < 0 || o.outageToNanos < o.outageFromNanos)
        throw InputError("an outage runs from a time to a later one (got " + formatSeconds(o.outageFromNanos) + " s to "
                         + formatSeconds(o.outageToNanos) + " s)");
    for (const auto* events : {&o.joins, &o.leaves})
        for (const NodeEvent& e : *events) {
            if (e.node < 0 || e.node >= o.nodes)
                throw InputError("node " + std::to_string(e.node) + " is not one of the " + std::to_string(o.nodes)
                                 + " nodes (0 to " + std::to_string(o.nodes - 1) + ")");
            if (e.at < 0)
                throw InputError("a node event's time must not be negative (got " + formatSeconds(e.at) + " s)");
            if (std::count_if(events->begin(), events->end(), [&](const NodeEvent& x) { return x.node == e.node; }) > 1)
                throw InputError("node " + std::to_string(e.node) + " " + (events == &o.joins ? "joins" : "leaves")
                                 + " more than once");
        }
    for (const NodeEvent& j : o.joins)
        for (const NodeEvent& l : o.leaves)
            if (j.node == l.node && l.at <= j.at)
                throw InputError("node " + std::to_string(j.node) + " leaves at " + formatSeconds(l.at)
                                 + " s, not after it joins at " + formatSeconds(j.at) + " s");
    if (o.autoscaleMax > 0) {
        if (o.autoscaleMin < 1 || o.autoscaleMin > o.autoscaleMax)
            throw InputError("autoscale runs from at least 1 node to at least as many (got " + std::to_string(o.autoscaleMin)
                             + ":" + std::to_string(o.autoscaleMax) + ")");
        if (o.autoscaleMax != o.nodes)
            throw InputError("autoscale up to " + std::to_string(o.autoscaleMax) + " nodes needs nodes "
                             + std::to_string(o.autoscaleMax) + " (got " + std::to_string(o.nodes) + ")");
        if (!o.joins.empty() || !o.leaves.empty())
            throw InputError("autoscale decides which nodes are up: leave out joins and leaves");
        if (o.scaleAt.tokens <= 0 || o.scaleAt.perNanos <= 0)
            throw InputError("scale-at must be more than 0 attempts a second");
    }
    ClusterConfig c;
    c.m_o = o;
    return c;
}

int ClusterConfig::nodesFor(std::int64_t attempts) const
{
    // ceil(attempts / (tokens per perNanos ns, a second's worth)) = ceil(attempts * perNanos / (tokens * 1 s))
    const Int128 wanted = ceilDiv(Int128(attempts) * m_o.scaleAt.perNanos, Int128(m_o.scaleAt.tokens) * kNanosPerSecond);
    return int(std::clamp<Int128>(wanted, m_o.autoscaleMin, m_o.autoscaleMax));
}

Nanos ClusterConfig::nodeOffset(int node) const
{
    if (m_o.nodes <= 1)
        return 0;
    return static_cast<Nanos>(Int128(m_o.skewNanos) * node / (m_o.nodes - 1));
}

LimiterConfig splitConfig(const LimiterConfig& config, int nodes)
{
    const Rate r = config.rate();
    const std::int64_t g = std::gcd(r.tokens, std::int64_t(nodes));
    const Int128 per = Int128(r.perNanos) * (nodes / g);
    if (per > kMaxNanos)
        throw InputError("split: the rate divided by " + std::to_string(nodes) + " nodes cannot be held exactly");
    return LimiterConfig::make(std::max<std::int64_t>(1, config.limit() / nodes), config.windowNanos(),
                               std::max<std::int64_t>(1, config.capacity() / nodes),
                               Rate{r.tokens / g, static_cast<Nanos>(per)});
}

NodeBalancer::NodeBalancer(const ClusterConfig& c, std::uint64_t seed) : m_cluster(c), m_rng(seed)
{
    setUp(c.hasAutoscale() ? c.options().autoscaleMin : c.nodes());
}

void NodeBalancer::setUp(int count)
{
    m_up.clear();
    for (int n = 0; n < count; ++n)
        m_up.push_back(n);
}

int NodeBalancer::pick(std::uint64_t client, Nanos t)
{
    if (m_cluster.hasMembership()) {
        m_up.clear();
        for (int n = 0; n < m_cluster.nodes(); ++n)
            if (m_cluster.nodeUp(n, t))
                m_up.push_back(n);
        if (m_up.empty())
            throw InputError("no node is up at " + formatSeconds(t) + " s: every node has left or not yet joined");
    }
    const auto nodes = std::uint64_t(m_up.size());
    switch (m_cluster.balancer()) {
    case Balancer::RoundRobin: {
        if (nodes != m_turnOf) { // the nodes up changed (or the first pick): the turn again
            m_turnOf = nodes;
            m_turn = m_count % nodes;
        }
        const std::uint64_t turn = m_turn; // m_count % nodes
        ++m_count;
        m_turn = turn + 1 == nodes ? 0 : turn + 1;
        return m_up[std::size_t(turn)];
    }
    case Balancer::Random: {
        const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
        const std::uint64_t usable = top - (top % nodes + 1) % nodes; // a multiple of nodes, minus 1
        std::uint64_t x = m_rng();
        while (x > usable)
            x = m_rng();
        return m_up[std::size_t(x % nodes)];
    }
    case Balancer::Hash: break;
    }
    return m_up[std::size_t(hashClient(client) % nodes)];
}

std::vector<std::uint8_t> assignNodes(const ClusterConfig& cluster, std::size_t n, std::span<const std::uint64_t> clients)
{
    ClusterConfig::Options everyNodeUp = cluster.options();
    everyNodeUp.joins.clear();
    everyNodeUp.leaves.clear();
    everyNodeUp.autoscaleMin = everyNodeUp.autoscaleMax = 0;
    const ClusterConfig up = ClusterConfig::make(everyNodeUp);
    NodeBalancer balancer(up, cluster.seed());
    std::vector<std::uint8_t> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<std::uint8_t>(balancer.pick(i < clients.size() ? clients[i] : i, 0));
    return out;
}

} // namespace ratelab

namespace ratelab {

std::vector<FleetEvent> fleetEvents(const ClusterConfig& cluster)
{
    const ClusterConfig::Options& o = cluster.options();
    std::vector<FleetEvent> out;
    for (const NodeEvent& e : o.joins)
        out.push_back({FleetEvent::Kind::Join, e.node, e.at});
    for (const NodeEvent& e : o.leaves)
        out.push_back({FleetEvent::Kind::Leave, e.node, e.at});
    if (cluster.hasOutage() && cluster.coordination() != Coordination::Local
        && cluster.coordination() != Coordination::Split) {
        out.push_back({FleetEvent::Kind::StoreDown, 0, o.outageFromNanos});
        out.push_back({FleetEvent::Kind::StoreBack, 0, o.outageToNanos});
    }
    std::stable_sort(out.begin(), out.end(), [](const FleetEvent& a, const FleetEvent& b) { return a.at < b.at; });
    return out;
}

ClusterConfig movedEvent(const ClusterConfig& cluster, const FleetEvent& e, Nanos to)
{
    ClusterConfig::Options o = cluster.options();
    const auto move = [&](std::vector<NodeEvent>& events) {
        for (NodeEvent& x : events)
            if (x.node == e.node && x.at == e.at)
                x.at = to;
    };
    switch (e.kind) {
    case FleetEvent::Kind::Join: move(o.joins); break;
    case FleetEvent::Kind::Leave: move(o.leaves); break;
    case FleetEvent::Kind::StoreDown: o.outageFromNanos = to; break;
    case FleetEvent::Kind::StoreBack: o.outageToNanos = to; break;
    case FleetEvent::Kind::LimitChange: break; // the scenario's, not the cluster's: withEventMoved
    }
    if ((e.kind == FleetEvent::Kind::StoreDown || e.kind == FleetEvent::Kind::StoreBack)
        && o.outageToNanos <= o.outageFromNanos)
        throw InputError("the store must come back after it goes down (down at " + formatSeconds(o.outageFromNanos)
                         + " s, back at " + formatSeconds(o.outageToNanos) + " s)");
    return ClusterConfig::make(o);
}

} // namespace ratelab
