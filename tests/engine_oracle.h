// An O(n^2) oracle of semantics.md, "Everything together: one attempt's path", written straight
// from the text and sharing no code with the engine beyond the limiters, the balancer's hash and
// the retry delays: every layer of every attempt is decided by replaying, on a fresh limiter, the
// earlier consumptions of its key and layer that the coordination makes visible, at the times
// they were handed, never going back; then asking whether one more at this attempt's time passes.
#pragma once

#include "engine/clients.h"
#include "engine/cluster.h"
#include "engine/engine.h"
#include "limiters/limiter.h"

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace oracle {

using namespace ratelab;

struct Seen { // one attempt's visit to one layer
    std::size_t attempt;
    Nanos t;       // true time
    Nanos handed;  // the time its limiter was handed
    int node;
    std::int64_t cost;
    bool consumed;
    bool fallback = false; // decided while the store was down: it never reached the store
};

struct Result {
    std::vector<LoggedAttempt> log;
    std::vector<std::int64_t> perNodeAllowed;
};

inline LimiterConfig configOf(const EngineSetup& s, std::size_t l)
{
    const LimiterConfig& c = s.layers[l].config;
    if (s.cluster && s.cluster->coordination() == Coordination::Split)
        return splitConfig(c, s.cluster->nodes()).withNginx(c.nginx());
    return c;
}

// visible applies the coordination's column of semantics.md: is j's consumption visible to an
// attempt at true time t on node `node`?
inline bool visible(const ClusterConfig& c, const Seen& j, Nanos t, int node)
{
    if (j.fallback) // a fallback's decisions are the node's own, in the outage, never the store's
        return c.options().fallback == Fallback::Local && c.storeDown(t) && j.node == node;
    if (c.coordination() != Coordination::Local && c.coordination() != Coordination::Split && c.storeDown(t))
        return false; // the store is out of reach: a local fallback starts new
    switch (c.coordination()) {
    case Coordination::Local:
    case Coordination::Split: return j.node == node;
    case Coordination::Shared: return true;
    case Coordination::Racy: return j.t + c.latencyNanos() <= t;
    case Coordination::Hybrid: {
        if (j.node == node)
            return true;
        const Nanos tick = (t / c.syncNanos()) * c.syncNanos(); // the last tick k*sync <= t
        return tick >= c.syncNanos() && j.t < tick;
    }
    }
    return false;
}

// handedAt is the time a layer's limiter is handed for an attempt at t on node `node` whose
// clock reads `clock`: a node's own clock (local, split); a store never goes back: the latest
// of the clock and every time it was handed before (shared, racy: every read); hybrid: a node
// runs on its own copy, which at each tick becomes the store (the last time the store was handed
// by a replayed consumption), then its own attempts since.
inline Nanos handedAt(const ClusterConfig& c, const std::vector<Seen>& past, Nanos t, int node, Nanos clock)
{
    Nanos h = clock;
    switch (c.coordination()) {
    case Coordination::Local:
    case Coordination::Split: return clock;
    case Coordination::Shared:
    case Coordination::Racy:
        if (c.storeDown(t)) // a fallback runs on the node's own clock
            return clock;
        for (const Seen& j : past)
            if (!j.fallback)
                h = std::max(h, j.handed);
        return h;
    case Coordination::Hybrid: {
        if (c.storeDown(t))
            return clock;
        const std::int64_t tick = t / c.syncNanos();
        for (const Seen& j : past) {
            if (j.fallback)
                continue;
            if (tick > 0 && j.consumed && j.t < tick * c.syncNanos())
                h = std::max(h, j.handed);
            if (j.node == node && j.t / c.syncNanos() == tick)
                h = std::max(h, j.handed);
        }
        return h;
    }
    }
    return h;
}

// replay returns a fresh limiter that has taken every visible consumption, in order, at its
// handed time, never going back.
inline std::optional<AnyLimiter> replay(const EngineSetup& s, std::size_t l, const ClusterConfig& c,
                                       const std::vector<Seen>& past, Nanos t, int node)
{
    AnyLimiter limiter = makeLimiter(s.layers[l].algorithm, configOf(s, l));
    Nanos last = std::numeric_limits<Nanos>::min();
    for (const Seen& j : past)
        if (j.consumed && visible(c, j, t, node)) {
            last = std::max(last, j.handed);
            (void)limiter.decide(last, j.cost);
        }
    return limiter;
}

inline Result run(const EngineSetup& s, std::span<const Nanos> arrivals, std::span<const std::int64_t> costs,
                  std::span<const std::int64_t> clientOf)
{
    const ClusterConfig c = s.cluster.value_or(ClusterConfig{});
    const ClientConfig cl = s.clients.value_or(ClientConfig{});
    const std::size_t layers = s.layers.size();
    // past[key * layers + l]: every attempt that asked layer l of the key
    std::vector<std::vector<Seen>> past(std::size_t(cl.keys()) * layers);
    Result r;
    r.perNodeAllowed.assign(std::size_t(c.nodes()), 0);
    struct Pending { Nanos t; std::int64_t seq; std::int32_t request, attempt; Nanos prev; };
    std::vector<Pending> queue;
    for (std::size_t i = 0; i < arrivals.size(); ++i)
        queue.push_back({arrivals[i], -1 - std::int64_t(arrivals.size() - i), std::int32_t(i), 0, 0});
    std::int64_t seq = 0;
    std::mt19937_64 balance(s.seed);
    std::vector<std::uint32_t> draws(std::size_t(cl.clients()));
    std::uint64_t count = 0;
    while (!queue.empty()) {
        // time order; at one instant first attempts (negative seq, in arrival order), then retries
        const auto it = std::min_element(queue.begin(), queue.end(), [](const Pending& a, const Pending& b) {
            return a.t != b.t ? a.t < b.t : a.seq < b.seq;
        });
        const Pending p = *it;
        queue.erase(it);
        const std::int64_t client = !clientOf.empty() ? clientOf[std::size_t(p.request)]
                                    : s.clients         ? p.request % cl.clients()
                                                        : p.request;
        std::vector<int> up; // the nodes up at t, in node order
        for (int n = 0; n < c.nodes(); ++n)
            if (c.nodeUp(n, p.t))
                up.push_back(n);
        const auto N = std::uint64_t(up.size());
        int node = 0;
        if (c.balancer() == Balancer::RoundRobin)
            node = up[std::size_t(count++ % N)];
        else if (c.balancer() == Balancer::Random) {
            const std::uint64_t top = std::numeric_limits<std::uint64_t>::max(), usable = top - (top % N + 1) % N;
            std::uint64_t x = balance();
            while (x > usable)
                x = balance();
            node = up[std::size_t(x % N)];
        } else
            node = up[std::size_t(hashClient(std::uint64_t(client)) % N)];
        const Nanos clock = p.t + c.nodeOffset(node);
        const std::size_t key = s.clients && cl.key() == KeyMode::Client ? std::size_t(client) : 0;
        const std::int64_t cost = costs.empty() ? 1 : costs[std::size_t(p.request)];

        Decision out;
        bool allowed = true;
        std::size_t asked = 0;
        Nanos delay = 0;
        std::vector<std::optional<AnyLimiter>> seen(layers);
        std::vector<Nanos> seenAt(layers);
        for (std::size_t l = 0; l < layers; ++l) {
            std::vector<Seen>& ps = past[key * layers + l];
            const Nanos h = handedAt(c, ps, p.t, node, clock);
            seen[l] = replay(s, l, c, ps, p.t, node);
            seenAt[l] = h;
            if (!allowed) { // not asked: how it looks, without being handed anything
                continue;
            }
            const bool down = c.coordination() != Coordination::Local && c.coordination() != Coordination::Split
                              && c.storeDown(p.t);
            Decision d;
            if (down && c.options().fallback == Fallback::Open) {
                d.allowed = true;
                d.remaining = clampRemaining(seen[l]->quota() - cost);
            } else if (down && c.options().fallback == Fallback::Closed) {
                d.retryAfter = cost > seen[l]->quota() ? kRetryNever : c.options().outageToNanos - p.t;
            } else {
                d = seen[l]->decide(h, cost);
            }
            ps.push_back({r.log.size(), p.t, h, node, cost, d.allowed, down});
            ++asked;
            if (l == 0)
                out = d;
            allowed = d.allowed;
            delay = std::max(delay, d.allowed ? d.delay : 0);
        }
        if (layers > 1) {
            const double level = out.level;
            out = Decision{};
            out.allowed = allowed;
            out.level = level;
            out.delay = allowed ? delay : 0;
            std::int64_t quota = std::numeric_limits<std::int64_t>::max();
            for (std::size_t l = 0; l < layers; ++l)
                quota = std::min(quota, seen[l]->quota());
            if (!allowed) {
                Nanos wait = 0;
                for (std::size_t l = 0; l < layers; ++l)
                    wait = std::max(wait, seen[l]->waitFor(seenAt[l], std::min(cost, seen[l]->quota())));
                if (c.coordination() != Coordination::Local && c.coordination() != Coordination::Split
                    && c.storeDown(p.t) && c.options().fallback == Fallback::Closed)
                    wait = std::max(wait, c.options().outageToNanos - p.t);
                out.retryAfter = cost > quota ? kRetryNever : wait;
            }
            out.remaining = std::numeric_limits<std::int32_t>::max();
            for (std::size_t l = 0; l < layers; ++l)
                out.remaining = std::min(out.remaining, seen[l]->remainingAt(seenAt[l]));
        }
        LoggedAttempt a;
        a.t = p.t;
        a.wait = out.allowed ? out.delay : out.retryAfter;
        a.level = out.level;
        a.request = p.request;
        a.client = std::int32_t(client);
        a.remaining = out.remaining;
        a.attempt = std::uint8_t(p.attempt);
        a.node = std::uint8_t(node);
        a.allowed = out.allowed;
        r.log.push_back(a);
        r.perNodeAllowed[std::size_t(node)] += out.allowed;
        const Cohort& o = cl.policyOf(client); // the client's cohort's policy
        if (out.allowed || o.retry == RetryPolicy::None || p.attempt >= o.maxRetries || out.retryNever())
            continue;
        const Nanos wait = o.retry == RetryPolicy::Backoff
                               ? jitteredDelay(o.jitter, o.backoffBaseNanos, o.backoffCapNanos, p.attempt,
                                               p.attempt == 0 ? o.backoffBaseNanos : p.prev,
                                               jitterDraw(s.seed, client, draws[std::size_t(client)]++))
                               : *retryDelay(o, out);
        queue.push_back({p.t + wait, seq++, p.request, p.attempt + 1, wait});
    }
    return r;
}

} // namespace oracle
