#include "engine/engine.h"
#include "engine/row_runner.h"

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

[[noreturn]] void tooManyAttempts()
{
    throw InputError("the retries make more than " + std::to_string(kMaxAttempts)
                     + " attempts, the most one scenario may hold; lower the max retries or the number of requests");
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
    return makeLimiter(setup.layers.at(l).algorithm, layerConfig(setup, l)).quota();
}

namespace detail {


RowRunner::RowRunner(const EngineSetup& setup, const EngineRequests& in, const std::atomic<bool>* cancel)
    : m_setup(setup)
    , m_in(in)
    , m_cancel(cancel)
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
        m_fresh.push_back(makeLimiter(setup.layers[l].algorithm, layerConfig(setup, l)));
    for (const AnyLimiter& f : m_fresh)
        m_policyQuota = std::min(m_policyQuota, f.quota());
    for (int x = 0; x < m_cluster.nodes(); ++x)
        m_offsets.push_back(m_cluster.nodeOffset(x));
    for (const auto& [at, config] : setup.changes) {
        const LimiterConfig c = m_cluster.coordination() == Coordination::Split
                                    ? splitConfig(config, m_cluster.nodes()).withNginx(config.nginx())
                                    : config;
        m_changes.push_back({at, c, makeLimiter(setup.layers[0].algorithm, c)});
    }
    m_cells.resize(std::size_t(m_clients.keys()) * m_layers);
    m_r.layers.assign(m_layers, LayerMetrics{});
    m_r.perNodeAllowed.assign(std::size_t(m_cluster.nodes()), 0);
    m_r.clients.requests = static_cast<std::int64_t>(m_n);
    if (m_cluster.hasAutoscale())
        m_r.scaling.push_back({0, m_cluster.options().autoscaleMin});
    if (setup.server) {
        m_server.emplace(*setup.server, setup.gate.empty() ? nullptr : setup.gate.make(setup.seed), setup.seed,
                         setup.keepLog);
        if ((!in.service.empty() && in.service.size() != m_n) || (!in.critical.empty() && in.critical.size() != m_n)
            || (!in.firstServices.empty() && in.firstServices.size() != m_n))
            throw InputError("one service time and one priority per request are needed");
        m_server->useRequests(in.service, in.critical, in.firstServices);
    }
    if (!in.priorities.empty() && in.priorities.size() != m_n)
        throw InputError("one priority per request is needed");
    if (!setup.throttle.empty())
        m_throttle.emplace(setup.throttle, in.arrivals, in.clientOf, m_clients.clients(), in.priorities);
    if (m_server)
        reserveServed();
    else if (setup.keepLog)
        m_served.reserve(m_n); // one latency per request at most: room never used costs no memory
    if (setup.keepLog) { // an attempt each, at least
        m_r.verdicts.reserve(m_n);
        if (setup.cluster)
            m_r.nodes.reserve(m_n);
    }
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

void RowRunner::makeCell(std::size_t key, std::size_t l)
{
    auto& c = m_cells[key * m_layers + l];
    c.emplace(m_fresh[l], m_cluster, m_setup.startEmpty,
              l == 0 ? std::span<const StoreChange>(m_changes) : std::span<const StoreChange>());
    if (l == 0 && m_levels)
        c->watch(&*m_levels, m_levelNodes, int(key));
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
    if (std::size_t(m_attempts) % kCancelCheck == 0)
        throwIfCancelled(m_cancel);
    return true;
}

void RowRunner::followChanges(Nanos t)
{
    for (; m_nextChange < m_changes.size() && m_changes[m_nextChange].at <= t; ++m_nextChange) {
        m_policyQuota = m_changes[m_nextChange].fresh.quota();
        for (std::size_t l = 1; l < m_layers; ++l)
            m_policyQuota = std::min(m_policyQuota, m_fresh[l].quota());
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
    Decision d; // every path returns d: built in the caller's slot, never copied into it
    if (m_layers == 0) { // the server alone, or its gate: every attempt goes on
        d.allowed = true;
        return d;
    }
    const LayersAsked asked = askLayers(m_layers, cost, m_r.layers, [&](std::size_t l) {
        const Decision x = cell(key, l).decide(node, t, clock, cost);
        if (m_setup.external)
            askExternal(key, l, node, t, clock, cost, x);
        if (l == 0 && m_setup.handedTimes)
            m_r.handed.push_back(cell(key, 0).seenAt());
        if (m_layers == 1)
            d = x;
        return x;
    });
    headerLayer = 0;
    if (m_layers == 1)
        return d;
    for (std::size_t l = asked.asked; l < m_layers; ++l)
        cell(key, l).look(node, t, clock); // a layer not asked shows in the response as it is now
    const auto seen = [&](std::size_t l) -> const StoreCell& { return *m_cells[key * m_layers + l]; };
    const bool closed = m_storeModes && m_cluster.storeDown(t) && m_cluster.options().fallback == Fallback::Closed;
    const std::size_t least = layeredAnswer(
        asked, m_layers, cost, m_policyQuota,
        [&](std::size_t l) { return seen(l).seen().waitFor(seen(l).seenAt(), cost); },
        [&](std::size_t l) { return seen(l).seen().remainingAt(seen(l).seenAt()); }, d,
        closed ? m_cluster.options().outageToNanos - t : 0); // closed: denied until the store is back
    if (m_figures && m_setup.keepLog)
        for (std::size_t l = 0; l < m_layers; ++l)
            m_r.figures.push_back({seen(l).seen().remainingAt(seen(l).seenAt()),
                                   seen(l).seen().reset(seen(l).seenAt(), seen(l).quota())});
    headerLayer = std::uint8_t(least);
    return d;
}

void RowRunner::record(const Retry& p, std::int64_t client, int node, std::size_t key, std::int64_t cost,
                       const Decision& d, std::uint8_t headerLayer)
{
    if (m_setup.keepLog) {
        logAttempt(p, client, node, d, headerLayer);
        if (m_setup.headers && m_layers > 0) {
            const StoreCell& c = *m_cells[key * m_layers + headerLayer];
            m_r.resets.push_back(c.seen().reset(c.seenAt(), c.quota()));
        }
    }
    count(p, node, cost, d);
}

RowRun RowRunner::runCells()
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
        if (m_nextChange < m_changes.size()) // the calls only when there is something to follow
            followChanges(p.t);
        if (m_cluster.hasAutoscale())
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
            if (d.allowed) {
                m_responses.clear();
                m_server->enter(p.t, d.delay, ClientResponse{p.t, p.request, p.attempt, client, p.prev, false},
                                m_responses);
                learn(); // refused or rejected at once
            } else {
                m_server->skip();
            }
        }
    }
    finish();
    return std::move(m_r);
}



} // namespace detail

RowRun runRow(const EngineSetup& setup, const EngineRequests& in, const std::atomic<bool>* cancel)
{
    if (setup.layers.empty() && !setup.server)
        throw InputError("a policy needs at least one layer");
    return detail::RowRunner(setup, in, cancel).run();
}

RowRun detail::runRowByCells(const EngineSetup& setup, const EngineRequests& in)
{
    if (setup.layers.empty() && !setup.server)
        throw InputError("a policy needs at least one layer");
    return detail::RowRunner(setup, in, nullptr).run(false);
}

bool detail::runsTyped(const EngineSetup& setup, const EngineRequests& in)
{
    return detail::RowRunner(setup, in, nullptr).typed();
}

} // namespace ratelab
