#include "engine/engine.h"

#include "arithmetic/decimal.h"
#include "engine/admitted_window.h"
#include "engine/store.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <random>
#include <string>

namespace ratelab {

namespace {

// Retry is a scheduled attempt; seq is its creation order among retries.
struct Retry {
    Nanos t = 0;
    std::int64_t seq = 0;
    std::int32_t request = 0;
    std::int32_t attempt = 0;
    Nanos prev = 0; // the delay before this attempt (decorrelated jitter)
};

struct Later {
    bool operator()(const Retry& a, const Retry& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
};

// nearestRank returns the p-th percentile by the nearest-rank method: the ceil(p / 100 * n)-th
// smallest (1-based), so p99 of 100 values is the 99th, of 10 the 10th. It partially orders
// values (a selection, O(n), where sorting millions of latencies took a tenth of a run).
Nanos nearestRank(std::vector<Nanos>& values, std::int64_t p)
{
    const auto n = static_cast<std::int64_t>(values.size());
    const std::int64_t rank = std::max<std::int64_t>(1, static_cast<std::int64_t>(ceilDiv(Int128(p) * n, 100)));
    const auto at = values.begin() + (rank - 1);
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

Latency latencyOf(std::vector<Nanos> values)
{
    Latency l;
    if (values.empty())
        return l;
    Int128 sum = 0;
    for (Nanos v : values)
        sum += v;
    l.mean = clampToNanos(ceilDiv(sum, static_cast<Int128>(values.size())));
    l.max = *std::max_element(values.begin(), values.end());
    l.p99 = nearestRank(values, 99);
    l.p50 = nearestRank(values, 50);
    return l;
}

[[noreturn]] void tooManyAttempts()
{
    throw InputError("the retries make more than " + std::to_string(kMaxAttempts)
                     + " attempts, the most one scenario may hold; lower the max retries or the number of requests");
}

void addMemory(Memory& sum, const Memory& m)
{
    sum.bytes += m.bytes;
    sum.entries += m.entries;
}

} // namespace

StoreDisagrees::StoreDisagrees(const StoreAsk& a, Nanos at, const Decision& s, const Decision& m)
    : std::runtime_error("the store and the model disagree at attempt " + std::to_string(a.attempt + 1) + " (t = "
                         + formatSeconds(at) + " s, layer " + std::to_string(a.layer + 1) + ")")
    , ask(a), t(at), store(s), model(m)
{
}

LimiterConfig layerConfig(const EngineSetup& setup, std::size_t l)
{
    const LimiterConfig& c = setup.layers.at(l).config;
    if (setup.cluster && setup.cluster->coordination() == Coordination::Split)
        return splitConfig(c, setup.cluster->nodes()).withNginx(c.nginx());
    return c;
}

std::int64_t quotaOfLayer(const EngineSetup& setup, std::size_t l)
{
    return quotaAny(makeAnyLimiter(setup.layers.at(l).algorithm, layerConfig(setup, l)));
}

RowRun runRow(const EngineSetup& setup, const EngineRequests& in)
{
    if (setup.layers.empty())
        throw InputError("a policy needs at least one layer");
    const ClusterConfig cluster = setup.cluster.value_or(ClusterConfig{});
    const ClientConfig clients = setup.clients.value_or(ClientConfig{});
    const std::int64_t k = clients.clients();
    const std::size_t n = in.arrivals.size();
    if (static_cast<std::int64_t>(n) > kMaxAttempts)
        tooManyAttempts();
    if (!in.clientOf.empty()) {
        if (in.clientOf.size() != n)
            throw InputError("a client is needed for every request (" + std::to_string(in.clientOf.size()) + " for "
                             + std::to_string(n) + ")");
        for (std::size_t i = 0; i < n; ++i)
            if (in.clientOf[i] < 0 || in.clientOf[i] >= k)
                throw InputError("request " + std::to_string(i) + " names client " + std::to_string(in.clientOf[i])
                                 + ", but clients are numbered 0 to " + std::to_string(k - 1));
    }
    if (n > 0 && in.arrivals.back() > kMaxNanos - cluster.skewNanos())
        throw InputError("skew: a node clock would pass the largest time (" + formatSeconds(kMaxNanos) + " s)");

    const std::size_t layers = setup.layers.size();
    std::vector<AnyLimiter> fresh;
    for (std::size_t l = 0; l < layers; ++l)
        fresh.push_back(makeAnyLimiter(setup.layers[l].algorithm, layerConfig(setup, l)));
    std::int64_t policyQuota = std::numeric_limits<std::int64_t>::max();
    for (const AnyLimiter& f : fresh)
        policyQuota = std::min(policyQuota, quotaAny(f));
    std::vector<Nanos> offsets(static_cast<std::size_t>(cluster.nodes()));
    for (int x = 0; x < cluster.nodes(); ++x)
        offsets[std::size_t(x)] = cluster.nodeOffset(x);

    // Limit changes of the first layer (split: per node), as each cell takes them.
    std::vector<StoreChange> changes;
    for (const auto& [at, config] : setup.changes) {
        const LimiterConfig c = cluster.coordination() == Coordination::Split
                                    ? splitConfig(config, cluster.nodes()).withNginx(config.nginx())
                                    : config;
        changes.push_back({at, c, makeAnyLimiter(setup.layers[0].algorithm, c)});
    }
    const auto keyCount = static_cast<std::size_t>(clients.keys());
    std::vector<std::optional<StoreCell>> cells(keyCount * layers);
    const auto cellOf = [&](std::size_t key, std::size_t l) -> StoreCell& {
        auto& c = cells[key * layers + l];
        if (!c)
            c.emplace(fresh[l], cluster, setup.startEmpty, l == 0 ? std::span<const StoreChange>(changes) : std::span<const StoreChange>());
        return *c;
    };

    RowRun r;
    r.layers.assign(layers, LayerMetrics{});
    r.perNodeAllowed.assign(std::size_t(cluster.nodes()), 0);
    std::int64_t attempts = 0;
    Metrics& m = r.metrics;
    ClientStats& s = r.clients;
    s.requests = static_cast<std::int64_t>(n);
    NodeBalancer picker(cluster, setup.seed);
    std::vector<std::uint32_t> draws(setup.clients ? std::size_t(k) : 0); // per client: draws made
    std::priority_queue<Retry, std::vector<Retry>, Later> retries;
    std::int64_t retrySeq = 0;
    const Nanos windowNanos = setup.layers.front().config.windowNanos();
    AdmittedWindow inside(windowNanos); // admitted attempts inside (t - W, t]
    const bool figures = setup.headers && layers > 1;
    const bool storeModes = cluster.coordination() != Coordination::Local && cluster.coordination() != Coordination::Split;
    const bool perClientKeys = clients.key() == KeyMode::Client && setup.clients;
    std::size_t next = 0;
    std::size_t nextChange = 0;
    // The autoscaler: attempts counted per whole second; at each second's end the nodes up for the
    // next are set from that count, and a node that comes up is new.
    Nanos scaleTick = kNanosPerSecond;
    std::int64_t attemptsThisSecond = 0;
    if (cluster.hasAutoscale())
        r.scaling.push_back({0, cluster.options().autoscaleMin});

    while (next < n || !retries.empty()) {
        Retry p;
        if (next < n && (retries.empty() || in.arrivals[next] <= retries.top().t)) {
            p = Retry{in.arrivals[next], -1, static_cast<std::int32_t>(next), 0};
            ++next;
        } else {
            p = retries.top();
            retries.pop();
        }
        if (attempts++ >= kMaxAttempts)
            tooManyAttempts();
        // The policy's quota as of this attempt: a limit change may have moved it.
        for (; nextChange < changes.size() && changes[nextChange].at <= p.t; ++nextChange) {
            policyQuota = quotaAny(changes[nextChange].fresh);
            for (std::size_t l = 1; l < layers; ++l)
                policyQuota = std::min(policyQuota, quotaAny(fresh[l]));
        }
        if (cluster.hasAutoscale()) {
            const auto scaleTo = [&](int now, Nanos at) {
                const int before = picker.upCount();
                picker.setUp(now);
                for (int x = before; x < now; ++x) // up again: new, at this second
                    for (auto& cell : cells)
                        if (cell)
                            cell->renew(x, at);
                if (now != before)
                    r.scaling.push_back({at, now});
            };
            if (p.t >= scaleTick) {
                scaleTo(cluster.nodesFor(attemptsThisSecond), scaleTick); // the last second's load
                attemptsThisSecond = 0;
                scaleTick += kNanosPerSecond;
                if (p.t >= scaleTick) { // quiet seconds since: no load, the fewest nodes
                    scaleTo(cluster.nodesFor(0), scaleTick);
                    const Nanos second = p.t / kNanosPerSecond;
                    scaleTick = second >= kMaxNanos / kNanosPerSecond ? kMaxNanos : (second + 1) * kNanosPerSecond;
                }
            }
            ++attemptsThisSecond;
        }
        const auto req = std::size_t(p.request);
        const std::int64_t client = in.clientOf.empty() ? (setup.clients ? p.request % k : p.request) : in.clientOf[req];
        const std::int64_t cost = in.costs.empty() ? 1 : in.costs[req];
        const int node = picker.pick(std::uint64_t(client), p.t);
        const Nanos clock = p.t + offsets[std::size_t(node)];
        const std::size_t key = perClientKeys ? std::size_t(client) : 0;

        // The policy: each layer in order until one denies.
        Decision d;
        std::size_t asked = 0;
        bool allowed = true;
        Nanos delay = 0;
        for (; asked < layers; ++asked) {
            const Decision x = cellOf(key, asked).decide(node, p.t, clock, cost);
            if (setup.external) {
                const LimiterConfig config = layerConfig(setup, asked);
                const StoreAsk ask{std::size_t(attempts - 1), perClientKeys ? std::int64_t(key) : -1, asked,
                                   setup.layers[asked].algorithm, &config, node, clock, cost};
                const Decision y = setup.external(ask);
                if (y.allowed != x.allowed || y.delay != x.delay || y.remaining != x.remaining || y.retryAfter != x.retryAfter)
                    throw StoreDisagrees(ask, p.t, y, x);
            }
            if (asked == 0) {
                d = x;
                if (setup.handedTimes)
                    r.handed.push_back(cellOf(key, 0).seenAt());
            }
            if (!x.allowed) {
                ++r.layers[asked].deniedHere;
                for (std::size_t j = 0; j < asked; ++j)
                    r.layers[j].wasted += cost;
                allowed = false;
                ++asked;
                break;
            }
            ++r.layers[asked].allowed;
            delay = std::max(delay, x.delay);
        }
        std::uint8_t headerLayer = 0;
        if (layers > 1) {
            for (std::size_t l = asked; l < layers; ++l)
                cellOf(key, l).look(node, p.t, clock);
            const double level = d.level;
            d = Decision{};
            d.allowed = allowed;
            d.level = level;
            d.delay = allowed ? delay : 0;
            if (!allowed) {
                Nanos wait = 0;
                for (std::size_t l = 0; l < layers; ++l) {
                    const StoreCell& c = *cells[key * layers + l];
                    wait = std::max(wait, waitForAny(c.seen(), c.seenAt(), std::min(cost, c.quota())));
                }
                if (storeModes && cluster.storeDown(p.t) && cluster.options().fallback == Fallback::Closed)
                    wait = std::max(wait, cluster.options().outageToNanos - p.t); // denied until the store is back
                d.retryAfter = cost > policyQuota ? kRetryNever : wait;
            }
            std::int32_t least = std::numeric_limits<std::int32_t>::max();
            for (std::size_t l = 0; l < layers; ++l) {
                const StoreCell& c = *cells[key * layers + l];
                const std::int32_t left = remainingAny(c.seen(), c.seenAt());
                if (left < least) {
                    least = left;
                    headerLayer = std::uint8_t(l);
                }
                if (figures && setup.keepLog)
                    r.figures.push_back({left, waitForAny(c.seen(), c.seenAt(), c.quota())});
            }
            d.remaining = least;
        }

        LoggedAttempt a;
        a.t = p.t;
        a.wait = d.allowed ? d.delay : d.retryAfter;
        if (setup.headers && setup.keepLog) {
            const StoreCell& c = *cells[key * layers + headerLayer];
            r.resets.push_back(waitForAny(c.seen(), c.seenAt(), c.quota()));
        }
        a.level = d.level;
        a.request = p.request;
        a.client = static_cast<std::int32_t>(client);
        a.remaining = d.remaining;
        a.attempt = static_cast<std::uint8_t>(p.attempt);
        a.node = static_cast<std::uint8_t>(node);
        a.allowed = d.allowed;
        a.headerLayer = headerLayer;
        if (setup.keepLog)
            r.log.push_back(a);

        m.allowed += d.allowed;
        m.delayed += d.delay > 0;
        m.never += d.retryNever();
        if (d.allowed) {
            m.allowedCost += cost;
            ++r.perNodeAllowed[std::size_t(node)];
            ++s.succeeded;
            m.maxInWindow = std::max(m.maxInWindow, inside.add(p.t, true));
            continue;
        }
        const Cohort& policy = clients.policyOf(client);
        if (policy.retry == RetryPolicy::None || p.attempt >= policy.maxRetries || !retryable(d)) {
            ++s.gaveUp;
            continue;
        }
        Nanos wait = 0;
        if (policy.retry == RetryPolicy::Backoff) {
            const std::uint64_t u = jitterDraw(setup.seed, client, draws[std::size_t(client)]++);
            wait = jitteredDelay(policy.jitter, policy.backoffBaseNanos, policy.backoffCapNanos, p.attempt,
                                 p.attempt == 0 ? policy.backoffBaseNanos : p.prev, u);
        } else {
            wait = *retryDelay(policy, d);
        }
        const Int128 at = Int128(p.t) + wait;
        if (at > kMaxNanos)
            throw InputError("a retry would come at " + formatSeconds(p.t) + " s + " + formatSeconds(wait)
                             + " s, past the largest time RateLab can represent");
        retries.push(Retry{static_cast<Nanos>(at), retrySeq++, p.request, p.attempt + 1, wait});
    }

    // Memory: per key, every layer where it lives; the largest key's is the row's.
    Memory freshMemory;
    for (std::size_t l = 0; l < layers; ++l) {
        StoreCell unused(fresh[l], cluster);
        addMemory(freshMemory, unused.memory());
    }
    m.memory = freshMemory; // nothing arrived: a fresh key's state
    bool any = false;
    for (std::size_t key = 0; key < keyCount; ++key) {
        if (!cells[key * layers])
            continue;
        Memory mem;
        for (std::size_t l = 0; l < layers; ++l)
            addMemory(mem, cells[key * layers + l] ? cells[key * layers + l]->memory() : memoryAny(fresh[l]));
        ++s.keysUsed;
        addMemory(s.total, mem);
        s.perKeyMax.bytes = any ? std::max(s.perKeyMax.bytes, mem.bytes) : mem.bytes;
        s.perKeyMax.entries = any ? std::max(s.perKeyMax.entries, mem.entries) : mem.entries;
        any = true;
    }
    if (any)
        m.memory = s.perKeyMax;
    s.attempts = attempts;
    m.denied = s.attempts - m.allowed;
    m.overshoot = static_cast<double>(m.maxInWindow) / static_cast<double>(setup.layers.front().config.limit());
    s.amplification = s.requests > 0 ? static_cast<double>(s.attempts) / static_cast<double>(s.requests) : 0.0;
    if (setup.keepLog) { // from the log, into a vector of just the right size
        std::vector<Nanos> latencies;
        latencies.reserve(std::size_t(s.succeeded));
        for (const LoggedAttempt& a : r.log)
            if (a.allowed)
                latencies.push_back(a.t - in.arrivals[std::size_t(a.request)] + a.wait);
        s.latency = latencyOf(std::move(latencies));
    }
    return r;
}

} // namespace ratelab
