#include "cluster.h"

#include "decimal.h"
#include "limiters.h"

#include <algorithm>
#include <deque>
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
    ClusterConfig c;
    c.m_o = o;
    return c;
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

namespace {

// mix is splitmix64's finaliser: a fixed, platform-independent hash of a client id.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

} // namespace

std::vector<std::uint8_t> assignNodes(const ClusterConfig& cluster, std::size_t n, std::span<const std::uint64_t> clients)
{
    const auto nodes = static_cast<std::uint64_t>(cluster.nodes());
    std::vector<std::uint8_t> out(n);
    switch (cluster.balancer()) {
    case Balancer::RoundRobin:
        for (std::size_t i = 0; i < n; ++i)
            out[i] = static_cast<std::uint8_t>(i % nodes);
        break;
    case Balancer::Random: {
        // Uniform by rejection (no modulo bias), from mt19937_64, the same on every platform.
        std::mt19937_64 g(cluster.seed());
        const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
        const std::uint64_t usable = top - (top % nodes + 1) % nodes; // a multiple of nodes, minus 1
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t x = g();
            while (x > usable)
                x = g();
            out[i] = static_cast<std::uint8_t>(x % nodes);
        }
        break;
    }
    case Balancer::Hash:
        for (std::size_t i = 0; i < n; ++i)
            out[i] = static_cast<std::uint8_t>(mix(i < clients.size() ? clients[i] : i) % nodes);
        break;
    }
    return out;
}

namespace {

constexpr Nanos kNever = std::numeric_limits<Nanos>::min(); // "not handed anything yet"

// peek returns what decide(t) would answer, without changing the limiter.
template <typename L>
Decision peek(const L& limiter, Nanos t, const LimiterConfig&)
{
    L copy = limiter;
    return copy.decide(t);
}

// The log's copy is O(L); its decision at t only needs the entries inside and the oldest.
Decision peek(const SlidingWindowLog& log, Nanos t, const LimiterConfig& config)
{
    const auto inside = static_cast<std::int64_t>(log.levelAt(t));
    Decision d;
    if (inside < config.limit()) {
        d.allowed = true;
        d.remaining = clampRemaining(config.limit() - inside - 1);
        d.level = static_cast<double>(inside + 1);
    } else {
        d.retryAfter = config.windowNanos() - (t - *log.oldestAt(t));
        d.level = static_cast<double>(inside);
    }
    return d;
}

struct Input {
    const LimiterConfig& config;
    const ClusterConfig& cluster;
    std::span<const Nanos> arrivals;
    std::span<const std::uint8_t> nodes;
    std::span<const Nanos> clocks; // node clock of each request
};

struct Output {
    std::vector<Decision>& decisions;
    std::vector<Nanos>& handed;
    Memory& memory;
};

void addMemory(Memory& sum, const Memory& m)
{
    sum.bytes += m.bytes;
    sum.entries += m.entries;
}

// Per node, its own limiter handed its own clock (local, split).
template <typename L>
void runPerNode(const L& fresh, const Input& in, Output& out)
{
    std::vector<L> nodes(static_cast<std::size_t>(in.cluster.nodes()), fresh);
    for (std::size_t i = 0; i < in.arrivals.size(); ++i) {
        out.handed[i] = in.clocks[i];
        out.decisions[i] = nodes[in.nodes[i]].decide(in.clocks[i]);
    }
    for (const L& l : nodes)
        addMemory(out.memory, l.memory());
}

// One store, one atomic decision each, handed max(node clock, last handed).
template <typename L>
void runShared(const L& fresh, const Input& in, Output& out)
{
    L store = fresh;
    Nanos last = kNever;
    for (std::size_t i = 0; i < in.arrivals.size(); ++i) {
        last = std::max(last, in.clocks[i]);
        out.handed[i] = last;
        out.decisions[i] = store.decide(last);
    }
    out.memory = store.memory();
}

// Read-check-write: admission j reaches the store once t_j + latency <= t_i.
template <typename L>
void runRacy(const L& fresh, const Input& in, Output& out)
{
    struct Pending {
        Nanos t, handed;
    };
    L store = fresh;
    std::deque<Pending> pending;
    const Nanos latency = in.cluster.latencyNanos();
    Nanos last = kNever;
    for (std::size_t i = 0; i < in.arrivals.size(); ++i) {
        const Nanos t = in.arrivals[i];
        for (; !pending.empty() && t - pending.front().t >= latency; pending.pop_front())
            (void)store.decide(pending.front().handed);
        last = std::max(last, in.clocks[i]);
        out.handed[i] = last;
        const Decision d = peek(store, last, in.config);
        out.decisions[i] = d;
        if (d.allowed)
            pending.push_back({t, last});
    }
    for (const Pending& p : pending)
        (void)store.decide(p.handed);
    out.memory = store.memory();
}

// Local counting; at each tick k*sync a node becomes the replay of every admission before it.
template <typename L>
void runHybrid(const L& fresh, const Input& in, Output& out)
{
    struct Admission {
        Nanos t, handed;
    };
    struct Node {
        L limiter;
        Nanos last = kNever;
        std::int64_t tick = 0;
    };
    const Nanos sync = in.cluster.syncNanos();
    L store = fresh;
    Nanos storeLast = kNever;
    std::vector<Admission> admitted;
    std::size_t applied = 0; // admitted[0, applied) are in the store
    std::vector<Node> nodes(static_cast<std::size_t>(in.cluster.nodes()), Node{fresh});
    for (std::size_t i = 0; i < in.arrivals.size(); ++i) {
        const Nanos t = in.arrivals[i];
        Node& node = nodes[in.nodes[i]];
        const std::int64_t tick = t / sync;
        if (tick != node.tick) {
            const Nanos boundary = tick * sync; // <= t, no overflow
            for (; applied < admitted.size() && admitted[applied].t < boundary; ++applied) {
                storeLast = std::max(storeLast, admitted[applied].handed);
                (void)store.decide(storeLast);
            }
            node.limiter = store;
            node.last = storeLast;
            node.tick = tick;
        }
        node.last = std::max(node.last, in.clocks[i]);
        out.handed[i] = node.last;
        const Decision d = node.limiter.decide(node.last);
        out.decisions[i] = d;
        if (d.allowed)
            admitted.push_back({t, node.last});
    }
    for (; applied < admitted.size(); ++applied) {
        storeLast = std::max(storeLast, admitted[applied].handed);
        (void)store.decide(storeLast);
    }
    out.memory = store.memory();
    for (const Node& n : nodes)
        addMemory(out.memory, n.limiter.memory());
}

} // namespace

ClusterTrace simulateCluster(const LimiterConfig& config, const ClusterConfig& cluster, Algorithm algorithm,
                             std::span<const Nanos> arrivals, std::span<const std::uint64_t> clients)
{
    ClusterTrace r;
    r.nodes = assignNodes(cluster, arrivals.size(), clients);
    r.perNodeAllowed.assign(static_cast<std::size_t>(cluster.nodes()), 0);
    if (!arrivals.empty() && arrivals.back() > kMaxNanos - cluster.skewNanos())
        throw InputError("skew: a node clock would pass the largest time (" + formatSeconds(kMaxNanos) + " s)");
    std::vector<Nanos> clocks(arrivals.size());
    std::vector<Nanos> offsets(static_cast<std::size_t>(cluster.nodes()));
    for (int n = 0; n < cluster.nodes(); ++n)
        offsets[static_cast<std::size_t>(n)] = cluster.nodeOffset(n);
    for (std::size_t i = 0; i < arrivals.size(); ++i)
        clocks[i] = arrivals[i] + offsets[r.nodes[i]];

    AlgorithmTrace& a = r.trace;
    a.algorithm = algorithm;
    a.decisions.resize(arrivals.size());
    r.handed.resize(arrivals.size());
    const Input in{config, cluster, arrivals, r.nodes, clocks};
    Output out{a.decisions, r.handed, a.metrics.memory};
    const Coordination mode = cluster.coordination();
    const LimiterConfig limiterConfig = mode == Coordination::Split ? splitConfig(config, cluster.nodes()) : config;
    visitLimiter(algorithm, limiterConfig, [&](const auto& fresh) {
        switch (mode) {
        case Coordination::Local:
        case Coordination::Split: runPerNode(fresh, in, out); break;
        case Coordination::Shared: runShared(fresh, in, out); break;
        case Coordination::Racy: runRacy(fresh, in, out); break;
        case Coordination::Hybrid: runHybrid(fresh, in, out); break;
        }
    });

    Metrics& m = a.metrics;
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const Decision& d = a.decisions[i];
        m.allowed += d.allowed;
        m.delayed += d.delay > 0;
        r.perNodeAllowed[r.nodes[i]] += d.allowed;
    }
    m.denied = static_cast<std::int64_t>(arrivals.size()) - m.allowed;
    m.maxInWindow = maxInWindow(arrivals, a.decisions, config.windowNanos());
    m.overshoot = static_cast<double>(m.maxInWindow) / static_cast<double>(config.limit());
    return r;
}

} // namespace ratelab
