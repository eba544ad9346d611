#include "engine/engine.h"

#include "arithmetic/decimal.h"
#include "engine/admitted_window.h"
#include "engine/layer_loop.h"
#include "engine/store.h"
#include "engine/throttled_arrivals.h"
#include "limiters/products/own_limit.h"

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

namespace {

// RowRunner is one row's run in progress: what runRow's loop carries from attempt to attempt,
// each step of an attempt's path a member (semantics.md, "Everything together").
class RowRunner {
public:
    RowRunner(const EngineSetup& setup, const EngineRequests& in);
    RowRun run();

private:
    void check() const;
    bool nextAttempt(Retry& p);     // the next attempt in decision order, if any
    bool nextThrottled(Retry& p);   // nextAttempt with throttles: their starts, or a retry
    void followChanges(Nanos t);    // the policy's quota as of t: a limit change may move it
    void autoscale(Nanos t);        // the nodes up at t, from the last second's attempts
    StoreCell& cell(std::size_t key, std::size_t l);
    // decide runs the policy on key's cells: each layer in order until one denies.
    Decision decide(std::size_t key, int node, Nanos t, Nanos clock, std::int64_t cost, std::uint8_t& headerLayer);
    void askExternal(std::size_t key, std::size_t l, int node, Nanos t, Nanos clock, std::int64_t cost,
                     const Decision& model) const;
    void record(const Retry& p, std::int64_t client, int node, std::size_t key, std::int64_t cost, const Decision& d,
                std::uint8_t headerLayer);
    void retryOrGiveUp(const Retry& p, std::int64_t client, const Decision& d);
    // retryAfterWait schedules the request's next attempt `wait` after t.
    void retryAfterWait(const Retry& p, Nanos t, Nanos wait);
    // serve runs the server's events due at or before t and answers their clients.
    void serve(Nanos t);
    Nanos nextAttemptTime() const;
    void finish();                  // memory per key and latency
    void watchLevels();             // with levelLines: the recorder the drawn states tell
    void stopLevels();              // too many attempts to draw: no lines

    const EngineSetup& m_setup;
    const EngineRequests& m_in;
    const ClusterConfig m_cluster;
    const ClientConfig m_clients;
    const std::size_t m_n;
    const std::size_t m_layers;
    std::vector<AnyLimiter> m_fresh;   // per layer: a new limiter (split: per node)
    std::vector<StoreChange> m_changes; // the first layer's limit changes, as each cell takes them
    std::vector<Nanos> m_offsets;       // per node: its clock's offset
    std::vector<std::optional<StoreCell>> m_cells; // [key * layers + layer], made when first asked
    std::int64_t m_policyQuota = std::numeric_limits<std::int64_t>::max();
    std::size_t m_nextChange = 0;
    RowRun m_r;
    std::int64_t m_attempts = 0;
    NodeBalancer m_picker;
    std::vector<std::uint32_t> m_draws; // per client: backoff draws made
    std::priority_queue<Retry, std::vector<Retry>, Later> m_retries;
    std::int64_t m_retrySeq = 0;
    std::size_t m_next = 0;             // the next first attempt
    AdmittedWindow m_inside;            // admitted attempts inside (t - W, t]
    const bool m_figures;
    const bool m_storeModes;
    const bool m_perClientKeys;
    Nanos m_scaleTick = kNanosPerSecond; // the autoscaler counts attempts per whole second
    std::int64_t m_attemptsThisSecond = 0;
    std::optional<LevelRecorder> m_levels;
    bool m_levelNodes = false; // the lines are nodes' (else each key's store)
    std::optional<ServerStage> m_server;
    std::vector<ClientResponse> m_responses;
    std::vector<Nanos> m_served; // with a server: each succeeded request's latency
    std::optional<ThrottledArrivals> m_throttle;
};

RowRunner::RowRunner(const EngineSetup& setup, const EngineRequests& in)
    : m_setup(setup)
    , m_in(in)
    , m_cluster(setup.cluster.value_or(ClusterConfig{}))
    , m_clients(setup.clients.value_or(ClientConfig{}))
    , m_n(in.arrivals.size())
    , m_layers(setup.layers.size())
    , m_picker(m_cluster, setup.seed)
    , m_draws(setup.clients ? std::size_t(m_clients.clients()) : 0)
    , m_inside(setup.layers.empty() ? 1 : ownLimit(setup.layers.front().algorithm, setup.layers.front().config).windowNanos)
    , m_figures(setup.headers && setup.layers.size() > 1)
    , m_storeModes(m_cluster.coordination() != Coordination::Local && m_cluster.coordination() != Coordination::Split)
    , m_perClientKeys(m_clients.key() == KeyMode::Client && setup.clients)
{
    check();
    for (std::size_t l = 0; l < m_layers; ++l)
        m_fresh.push_back(makeAnyLimiter(setup.layers[l].algorithm, layerConfig(setup, l)));
    for (const AnyLimiter& f : m_fresh)
        m_policyQuota = std::min(m_policyQuota, quotaAny(f));
    for (int x = 0; x < m_cluster.nodes(); ++x)
        m_offsets.push_back(m_cluster.nodeOffset(x));
    for (const auto& [at, config] : setup.changes) {
        const LimiterConfig c = m_cluster.coordination() == Coordination::Split
                                    ? splitConfig(config, m_cluster.nodes()).withNginx(config.nginx())
                                    : config;
        m_changes.push_back({at, c, makeAnyLimiter(setup.layers[0].algorithm, c)});
    }
    m_cells.resize(std::size_t(m_clients.keys()) * m_layers);
    m_r.layers.assign(m_layers, LayerMetrics{});
    m_r.perNodeAllowed.assign(std::size_t(m_cluster.nodes()), 0);
    m_r.clients.requests = static_cast<std::int64_t>(m_n);
    if (m_cluster.hasAutoscale())
        m_r.scaling.push_back({0, m_cluster.options().autoscaleMin});
    if (setup.server)
        m_server.emplace(*setup.server, setup.gate.empty() ? nullptr : makeGate(setup.gate, setup.seed), setup.seed,
                         setup.keepLog);
    if (!setup.throttle.empty())
        m_throttle.emplace(setup.throttle, in.arrivals, in.clientOf, m_clients.clients());
    watchLevels();
}

void RowRunner::watchLevels()
{
    if (!m_setup.levelLines || std::int64_t(m_n) > m_setup.levelLines->mostAttempts || m_layers == 0)
        return;
    if (const auto lines = linesOf(m_setup)) {
        m_levels.emplace(m_setup.levelLines->samples, lines->prefix, lines->firstNumber, lines->numbered);
        m_levelNodes = lines->nodes;
    }
}

void RowRunner::stopLevels()
{
    for (std::size_t key = 0; key * m_layers < m_cells.size(); ++key)
        if (auto& c = m_cells[key * m_layers])
            c->watch(nullptr, false, 0);
    m_levels.reset();
}

void RowRunner::check() const
{
    if (m_setup.layers.empty() && !m_setup.server)
        throw InputError("a policy needs at least one layer");
    if (!m_setup.gate.empty() && !m_setup.server)
        throw InputError("a concurrency limiter needs a server behind it (--server)");
    if (static_cast<std::int64_t>(m_n) > kMaxAttempts)
        tooManyAttempts();
    const std::int64_t k = m_clients.clients();
    if (!m_in.clientOf.empty()) {
        if (m_in.clientOf.size() != m_n)
            throw InputError("a client is needed for every request (" + std::to_string(m_in.clientOf.size()) + " for "
                             + std::to_string(m_n) + ")");
        for (std::size_t i = 0; i < m_n; ++i)
            if (m_in.clientOf[i] < 0 || m_in.clientOf[i] >= k)
                throw InputError("request " + std::to_string(i) + " names client " + std::to_string(m_in.clientOf[i])
                                 + ", but clients are numbered 0 to " + std::to_string(k - 1));
    }
    if (m_n > 0 && m_in.arrivals.back() > kMaxNanos - m_cluster.skewNanos())
        throw InputError("skew: a node clock would pass the largest time (" + formatSeconds(kMaxNanos) + " s)");
}

StoreCell& RowRunner::cell(std::size_t key, std::size_t l)
{
    auto& c = m_cells[key * m_layers + l];
    if (!c) {
        c.emplace(m_fresh[l], m_cluster, m_setup.startEmpty,
                  l == 0 ? std::span<const StoreChange>(m_changes) : std::span<const StoreChange>());
        if (l == 0 && m_levels)
            c->watch(&*m_levels, m_levelNodes, int(key));
    }
    return *c;
}

bool RowRunner::nextAttempt(Retry& p)
{
    if (m_throttle) {
        if (!nextThrottled(p))
            return false;
    } else if (m_next < m_n && (m_retries.empty() || m_in.arrivals[m_next] <= m_retries.top().t)) {
        p = Retry{m_in.arrivals[m_next], -1, static_cast<std::int32_t>(m_next), 0};
        ++m_next;
    } else if (!m_retries.empty()) {
        p = m_retries.top();
        m_retries.pop();
    } else {
        return false;
    }
    if (m_attempts++ >= kMaxAttempts)
        tooManyAttempts();
    return true;
}

void RowRunner::followChanges(Nanos t)
{
    for (; m_nextChange < m_changes.size() && m_changes[m_nextChange].at <= t; ++m_nextChange) {
        m_policyQuota = quotaAny(m_changes[m_nextChange].fresh);
        for (std::size_t l = 1; l < m_layers; ++l)
            m_policyQuota = std::min(m_policyQuota, quotaAny(m_fresh[l]));
    }
}

void RowRunner::autoscale(Nanos t)
{
    if (!m_cluster.hasAutoscale())
        return;
    const auto scaleTo = [&](int now, Nanos at) {
        const int before = m_picker.upCount();
        m_picker.setUp(now);
        for (int x = before; x < now; ++x) // up again: new, at this second
            for (auto& c : m_cells)
                if (c)
                    c->renew(x, at);
        if (now != before)
            m_r.scaling.push_back({at, now});
    };
    if (t >= m_scaleTick) {
        scaleTo(m_cluster.nodesFor(m_attemptsThisSecond), m_scaleTick); // the last second's load
        m_attemptsThisSecond = 0;
        m_scaleTick += kNanosPerSecond;
        if (t >= m_scaleTick) { // quiet seconds since: no load, the fewest nodes
            scaleTo(m_cluster.nodesFor(0), m_scaleTick);
            const Nanos second = t / kNanosPerSecond;
            m_scaleTick = second >= kMaxNanos / kNanosPerSecond ? kMaxNanos : (second + 1) * kNanosPerSecond;
        }
    }
    ++m_attemptsThisSecond;
}

void RowRunner::askExternal(std::size_t key, std::size_t l, int node, Nanos t, Nanos clock, std::int64_t cost,
                            const Decision& x) const
{
    const LimiterConfig config = layerConfig(m_setup, l);
    const StoreAsk ask{std::size_t(m_attempts - 1), m_perClientKeys ? std::int64_t(key) : -1, l,
                       m_setup.layers[l].algorithm, &config, node, clock, cost};
    const Decision y = m_setup.external(ask);
    if (y.allowed != x.allowed || y.delay != x.delay || y.remaining != x.remaining || y.retryAfter != x.retryAfter)
        throw StoreDisagrees(ask, t, y, x);
}

Decision RowRunner::decide(std::size_t key, int node, Nanos t, Nanos clock, std::int64_t cost, std::uint8_t& headerLayer)
{
    headerLayer = 0;
    if (m_layers == 0) { // the server alone, or its gate: every attempt goes on
        Decision d;
        d.allowed = true;
        return d;
    }
    const LayersAsked asked = askLayers(m_layers, cost, m_r.layers, [&](std::size_t l) {
        const Decision x = cell(key, l).decide(node, t, clock, cost);
        if (m_setup.external)
            askExternal(key, l, node, t, clock, cost, x);
        if (l == 0 && m_setup.handedTimes)
            m_r.handed.push_back(cell(key, 0).seenAt());
        return x;
    });
    headerLayer = 0;
    if (m_layers == 1)
        return asked.first;
    for (std::size_t l = asked.asked; l < m_layers; ++l)
        cell(key, l).look(node, t, clock); // a layer not asked shows in the response as it is now
    const auto seen = [&](std::size_t l) -> const StoreCell& { return *m_cells[key * m_layers + l]; };
    const bool closed = m_storeModes && m_cluster.storeDown(t) && m_cluster.options().fallback == Fallback::Closed;
    const LayeredAnswer a = layeredAnswer(
        asked, m_layers, cost, m_policyQuota,
        [&](std::size_t l) { return waitForAny(seen(l).seen(), seen(l).seenAt(), cost); },
        [&](std::size_t l) { return remainingAny(seen(l).seen(), seen(l).seenAt()); },
        closed ? m_cluster.options().outageToNanos - t : 0); // closed: denied until the store is back
    if (m_figures && m_setup.keepLog)
        for (std::size_t l = 0; l < m_layers; ++l)
            m_r.figures.push_back({remainingAny(seen(l).seen(), seen(l).seenAt()),
                                   waitForAny(seen(l).seen(), seen(l).seenAt(), seen(l).quota())});
    headerLayer = std::uint8_t(a.leastLayer);
    return a.decision;
}

void RowRunner::record(const Retry& p, std::int64_t client, int node, std::size_t key, std::int64_t cost,
                       const Decision& d, std::uint8_t headerLayer)
{
    if (m_setup.keepLog) {
        LoggedAttempt a;
        a.t = p.t;
        a.wait = d.allowed ? d.delay : d.retryAfter;
        a.level = d.level;
        a.request = p.request;
        a.client = static_cast<std::int32_t>(client);
        a.remaining = d.remaining;
        a.attempt = static_cast<std::uint8_t>(p.attempt);
        a.node = static_cast<std::uint8_t>(node);
        a.allowed = d.allowed;
        a.headerLayer = headerLayer;
        m_r.log.push_back(a);
        if (m_setup.headers && m_layers > 0) {
            const StoreCell& c = *m_cells[key * m_layers + headerLayer];
            m_r.resets.push_back(waitForAny(c.seen(), c.seenAt(), c.quota()));
        }
    }
    Metrics& m = m_r.metrics;
    m.allowed += d.allowed;
    m.delayed += d.delay > 0;
    m.never += d.retryNever();
    if (d.allowed) {
        m.allowedCost += cost;
        ++m_r.perNodeAllowed[std::size_t(node)];
        if (!m_server) // with a server a request succeeds when it is served in time
            ++m_r.clients.succeeded;
        m.maxInWindow = std::max(m.maxInWindow, m_inside.add(p.t, true));
    }
}

void RowRunner::retryOrGiveUp(const Retry& p, std::int64_t client, const Decision& d)
{
    const Cohort& policy = m_clients.policyOf(client);
    if (policy.retry == RetryPolicy::None || p.attempt >= policy.maxRetries || !retryable(d)) {
        ++m_r.clients.gaveUp;
        return;
    }
    Nanos wait = 0;
    if (policy.retry == RetryPolicy::Backoff) {
        const std::uint64_t u = jitterDraw(m_setup.seed, client, m_draws[std::size_t(client)]++);
        wait = jitteredDelay(policy.jitter, policy.backoffBaseNanos, policy.backoffCapNanos, p.attempt,
                             p.attempt == 0 ? policy.backoffBaseNanos : p.prev, u);
    } else {
        wait = *retryDelay(policy, d);
    }
    retryAfterWait(p, p.t, wait);
}

void RowRunner::retryAfterWait(const Retry& p, Nanos t, Nanos wait)
{
    const Int128 at = Int128(t) + wait;
    if (at > kMaxNanos)
        throw InputError("a retry would come at " + formatSeconds(t) + " s + " + formatSeconds(wait)
                         + " s, past the largest time RateLab can represent");
    m_retries.push(Retry{static_cast<Nanos>(at), m_retrySeq++, p.request, p.attempt + 1, wait});
}

// nextThrottled: the server's events first, then the throttles' at that instant, then their
// starts before the retries of the same instant.
bool RowRunner::nextThrottled(Retry& p)
{
    for (;;) {
        if (m_server)
            serve(nextAttemptTime());
        const Nanos retryAt = m_retries.empty() ? kMaxNanos : m_retries.top().t;
        if (const auto s = m_throttle->take(retryAt)) {
            p = Retry{s->t, -1, s->request, 0};
            return true;
        }
        if (const Nanos t = m_throttle->next(); t != ClientThrottle::kNever && t <= retryAt) {
            m_throttle->advance(t);
        } else if (m_retries.empty()) {
            return false;
        } else {
            p = m_retries.top();
            m_retries.pop();
            return true;
        }
    }
}

Nanos RowRunner::nextAttemptTime() const
{
    Nanos t = m_throttle ? m_throttle->next() : m_next < m_n ? m_in.arrivals[m_next] : kMaxNanos;
    if (!m_retries.empty())
        t = std::min(t, m_retries.top().t);
    return t;
}

// serve: a failure (a 503 or the client's own timeout) is a denial without Retry-After: the
// client retries after its retry_delay, or its backoff's draw (semantics.md, "The server behind
// the limiter").
void RowRunner::serve(Nanos t)
{
    while (m_server->due(t)) {
        m_responses.clear();
        m_server->step(m_responses);
        for (const ClientResponse& r : m_responses) {
            if (m_throttle && r.attempt == 0)
                m_throttle->done(r.t, std::int32_t(r.request)); // the throttled call is done
            if (r.success) {
                ++m_r.clients.succeeded;
                m_served.push_back(r.t - m_in.arrivals[std::size_t(r.request)]);
                continue;
            }
            const Retry p{r.t, 0, std::int32_t(r.request), r.attempt, r.prev};
            const Cohort& policy = m_clients.policyOf(r.client);
            if (policy.retry == RetryPolicy::None || r.attempt >= policy.maxRetries) {
                ++m_r.clients.gaveUp;
                continue;
            }
            Nanos wait = policy.retryDelayNanos;
            if (policy.retry == RetryPolicy::Backoff) {
                const std::uint64_t u = jitterDraw(m_setup.seed, r.client, m_draws[std::size_t(r.client)]++);
                wait = jitteredDelay(policy.jitter, policy.backoffBaseNanos, policy.backoffCapNanos, r.attempt,
                                     r.attempt == 0 ? policy.backoffBaseNanos : r.prev, u);
            }
            retryAfterWait(p, r.t, wait);
        }
        t = std::min(t, nextAttemptTime()); // a retry at this instant comes before later events
    }
}

RowRun RowRunner::run()
{
    const std::int64_t k = m_clients.clients();
    Retry p;
    for (;;) {
        if (m_server)
            serve(nextAttemptTime());
        if (!nextAttempt(p))
            break;
        if (m_levels) {
            if (m_attempts > m_setup.levelLines->mostAttempts)
                stopLevels();
            else
                m_levels->reach(p.t);
        }
        followChanges(p.t);
        autoscale(p.t);
        const auto req = std::size_t(p.request);
        const std::int64_t client =
            m_in.clientOf.empty() ? (m_setup.clients ? p.request % k : p.request) : m_in.clientOf[req];
        const std::int64_t cost = m_in.costs.empty() ? 1 : m_in.costs[req];
        const int node = m_picker.pick(std::uint64_t(client), p.t);
        const Nanos clock = p.t + m_offsets[std::size_t(node)];
        const std::size_t key = m_perClientKeys ? std::size_t(client) : 0;
        std::uint8_t headerLayer = 0;
        const Decision d = decide(key, node, p.t, clock, cost, headerLayer);
        record(p, client, node, key, cost, d, headerLayer);
        if (m_throttle && p.attempt == 0 && (!d.allowed || !m_server)) // done when the client knows
            m_throttle->done(d.allowed ? later(p.t, d.delay) : p.t, p.request);
        if (!d.allowed)
            retryOrGiveUp(p, client, d);
        if (m_server) {
            if (d.allowed)
                m_server->enter(p.t, d.delay, ClientResponse{p.t, p.request, p.attempt, client, p.prev, false});
            else
                m_server->skip();
        }
    }
    finish();
    return std::move(m_r);
}

void RowRunner::finish()
{
    // Memory: per key, every layer where it lives; the largest key's is the row's.
    Metrics& m = m_r.metrics;
    ClientStats& s = m_r.clients;
    Memory freshMemory;
    for (std::size_t l = 0; l < m_layers; ++l) {
        StoreCell unused(m_fresh[l], m_cluster);
        addMemory(freshMemory, unused.memory());
    }
    m.memory = freshMemory; // nothing arrived: a fresh key's state
    bool any = false;
    for (std::size_t key = 0; key * m_layers < m_cells.size(); ++key) {
        if (!m_cells[key * m_layers])
            continue;
        Memory mem;
        for (std::size_t l = 0; l < m_layers; ++l)
            addMemory(mem, m_cells[key * m_layers + l] ? m_cells[key * m_layers + l]->memory() : memoryAny(m_fresh[l]));
        ++s.keysUsed;
        addMemory(s.total, mem);
        s.perKeyMax.bytes = any ? std::max(s.perKeyMax.bytes, mem.bytes) : mem.bytes;
        s.perKeyMax.entries = any ? std::max(s.perKeyMax.entries, mem.entries) : mem.entries;
        any = true;
    }
    if (any)
        m.memory = s.perKeyMax;
    if (m_levels) { // after memory: the writes in flight have landed
        for (std::size_t key = 0; key * m_layers < m_cells.size(); ++key)
            if (auto& c = m_cells[key * m_layers])
                c->settle(m_levels->end());
        m_r.levels = m_levels->finish(m_setup.levelLines->most);
    }
    s.attempts = m_attempts;
    if (m_throttle) // dropped by a throttle, or held by one that never starts them
        s.gaveUp += m_throttle->gaveUp();
    m.denied = s.attempts - m.allowed;
    if (m_layers > 0)
        m.overshoot = ownLimit(m_setup.layers.front().algorithm, m_setup.layers.front().config).overshoot(m.maxInWindow);
    s.amplification = s.requests > 0 ? static_cast<double>(s.attempts) / static_cast<double>(s.requests) : 0.0;
    if (m_server) { // from the first attempt to the completion of the one served in time
        s.latency = latencyOf(std::move(m_served));
        m_r.served = m_server->attempts();
        m_r.server = m_server->figures();
    } else if (m_setup.keepLog) { // from the log, into a vector of just the right size
        std::vector<Nanos> latencies;
        latencies.reserve(std::size_t(s.succeeded));
        for (const LoggedAttempt& a : m_r.log)
            if (a.allowed)
                latencies.push_back(a.t - m_in.arrivals[std::size_t(a.request)] + a.wait);
        s.latency = latencyOf(std::move(latencies));
    }
}

} // namespace

RowRun runRow(const EngineSetup& setup, const EngineRequests& in)
{
    if (setup.layers.empty() && !setup.server)
        throw InputError("a policy needs at least one layer");
    return RowRunner(setup, in).run();
}

} // namespace ratelab
