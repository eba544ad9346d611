#include "scenario/rows.h"

#include "limiters/algorithm_facts.h"
#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "traffic/pattern.h"
#include "limiters/worst_case.h"
#include "limiters/products/product.h"

#include <algorithm>
#include <utility>
#include <optional>
#include <string>

namespace ratelab {

std::size_t rowCount(const Scenario& s)
{
    return s.algorithms.size() + (s.layers.empty() ? 0 : 1) + s.concurrency.size();
}

bool isLayeredRow(const Scenario& s, std::size_t r) { return !s.layers.empty() && r == s.algorithms.size(); }

const GateSpec* gateRow(const Scenario& s, std::size_t r)
{
    const std::size_t first = s.algorithms.size() + (s.layers.empty() ? 0 : 1);
    return r >= first && r - first < s.concurrency.size() ? &s.concurrency[r - first] : nullptr;
}

std::vector<std::int64_t> resolveClients(const Scenario& s)
{
    if (!s.clients)
        return {};
    const std::int64_t k = s.clients->clients();
    if (s.explicitArrivals && !s.explicitClients.empty() && s.explicitClients.size() != s.explicitArrivals->size())
        throw InputError("one client per arrival is needed");
    // Named clients follow their times through the merge with added requests, as costs do.
    std::vector<std::pair<Nanos, std::int64_t>> all;
    if (s.explicitArrivals)
        for (std::size_t i = 0; i < s.explicitArrivals->size(); ++i)
            all.emplace_back((*s.explicitArrivals)[i], s.explicitClients.empty() ? -1 : s.explicitClients[i]);
    else
        for (Nanos t : generateArrivals(s.pattern, s.config))
            all.emplace_back(t, -1);
    const auto middle = std::ptrdiff_t(all.size());
    for (Nanos t : s.addedArrivals)
        all.emplace_back(t, -1);
    const auto earlier = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(all.begin() + middle, all.end(), earlier);
    std::inplace_merge(all.begin(), all.begin() + middle, all.end(), earlier);
    std::vector<std::int64_t> clients(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::int64_t c = all[i].second;
        if (c >= k)
            throw InputError("request " + std::to_string(i + 1) + " names client " + std::to_string(c)
                             + ", but there are " + std::to_string(k) + " clients (0 to " + std::to_string(k - 1) + ")");
        clients[i] = c >= 0 ? c : std::int64_t(i % std::size_t(k));
    }
    return clients;
}

void checkScenario(const Scenario& s)
{
    checkDurations(s.config, s.algorithms);
    if (!s.explicitArrivals && s.pattern.kind != PatternKind::Poisson)
        checkPattern(s.pattern, s.config);
    const bool nginx = std::find(s.algorithms.begin(), s.algorithms.end(), Algorithm::NginxLimitReq) != s.algorithms.end();
    if (nginx)
        (void)nginxRateThousandths(s.config.rate()); // "nginx_limit_req: rate ... nearest: ..."
    checkProductOptions(s.config, s.algorithms); // each product refuses its own bad options
    if (s.clients)
        for (std::int64_t c : s.explicitClients)
            if (c >= s.clients->clients())
                throw InputError("the arrivals name client " + std::to_string(c) + ", but there are "
                                 + std::to_string(s.clients->clients()) + " clients (0 to "
                                 + std::to_string(s.clients->clients() - 1) + ")");
    for (const Layer& l : s.layers) // a layer's durations, as the algorithms' above
        checkDurations(l.config, std::span<const Algorithm>(&l.algorithm, 1));
    if (s.cluster && s.cluster->coordination() == Coordination::Split) // r / N must be exact
        (void)splitConfig(s.config, s.cluster->nodes());
    if ((!s.concurrency.empty() || !s.layeredGate.empty()) && !s.server)
        throw InputError("a concurrency limiter needs a server behind it: give the server (--server)");
    if (!s.layeredGate.empty() && s.layers.empty())
        throw InputError("a concurrency limiter after the layers needs layers (--layer)");
    if (!s.changes.empty()) { // each change's config, as the first one's
        for (Algorithm a : s.algorithms)
            if (a > Algorithm::NginxLimitReq)
                throw InputError(std::string("a limit change applies to the seven algorithms and nginx_limit_req; ")
                                 + std::string(facts(a).id) + " keeps its own configuration");
        for (const auto& [at, c] : changedConfigs(s.config, s.changes)) {
            checkDurations(c, s.algorithms);
            if (s.cluster && s.cluster->coordination() == Coordination::Split)
                (void)splitConfig(c, s.cluster->nodes());
        }
    }
}

namespace {

// columnInputs checks the scenario and resolves every request column but the arrivals.
RowInputs columnInputs(const Scenario& s)
{
    checkScenario(s);
    checkRequestColumns(s);
    RowInputs in;
    in.costs = resolveCosts(s);
    in.clientOf = resolveClients(s);
    in.services = resolveServices(s);
    in.critical = resolveCritical(s);
    in.priorities = resolvePriorities(s);
    return in;
}

} // namespace

RowInputs resolveRowInputs(const Scenario& s)
{
    RowInputs in = columnInputs(s);
    in.arrivals = resolveArrivals(s);
    return in;
}

RowInputs resolveRowInputs(Scenario&& s)
{
    // Generated arrivals have nothing to move, and too many are refused by resolveArrivals before
    // any column's error: both go the usual way, so every error comes in the same order.
    if (!s.explicitArrivals || s.explicitArrivals->size() + s.addedArrivals.size() > std::size_t(kMaxArrivals))
        return resolveRowInputs(std::as_const(s));
    RowInputs in = columnInputs(s);
    in.arrivals = resolveArrivals(std::move(s)); // last: the columns above read the arrivals
    return in;
}

namespace {

// engineRow runs row r through the engine and keeps what the charts draw: each decision, and
// its node, its attempt (times, clients) and the retry it follows where those apply.
AlgorithmTrace engineRow(const Scenario& s, const RowInputs& in, std::size_t r, const std::atomic<bool>* cancel)
{
    auto engine = std::make_shared<EngineRow>();
    engine->setup = engineSetup(s, r, true);
    // A level replayed from the decisions (one state, at true time, full, one config) is drawn
    // from the row; the others' states draw their own lines, recorded by the engine's store.
    bool replayable = true;
    if (s.cluster) {
        const ClusterConfig& c = *s.cluster;
        // One node sharing the store at true time is the single limiter; otherwise the state lives
        // on several nodes, or the store saw the requests at other times.
        replayable = c.nodes() == 1 && c.skewNanos() == 0
                     && (c.coordination() != Coordination::Racy || c.latencyNanos() == 0);
    }
    if (s.clients)
        replayable = replayable && s.clients->keys() == 1;
    replayable = replayable && !s.bucketsStartEmpty && s.changes.empty() && !engine->setup.layers.empty();
    if (!replayable) // samples between two steps of a line: fewer as requests grow
        engine->setup.levelLines = LevelLineSetup{
            8, int(std::clamp<std::size_t>(400'000 / std::max<std::size_t>(in.arrivals.size(), 1), 1, 24))};
    engine->run = runRow(engine->setup, in.requests(), cancel);
    AlgorithmTrace row;
    row.verdicts = std::move(engine->run.verdicts); // the row's, read where the lanes are drawn
    const EngineSetup& setup = engine->setup;
    const RowRun& run = engine->run;
    if (!setup.layers.empty()) // a concurrency limiter's row has no rate layer
        row.algorithm = setup.layers.front().algorithm;
    row.metrics = run.metrics;
    row.log = &run.log; // read in place: the row keeps `engine` alive
    row.kind = {.attempts = bool(s.clients), .cluster = bool(s.cluster), .layered = isLayeredRow(s, r)};
    if (const GateSpec* gate = gateRow(s, r))
        row.title = "Concurrency limit: " + gate->text();
    if (row.kind.layered) {
        std::string names;
        for (const Layer& layer : s.layers)
            names += (names.empty() ? "" : " + ") + std::string(facts(layer.algorithm).title);
        row.title = "Layered policy: " + names;
        // The first layer is asked about every attempt, so replaying it alone gives its level.
        row.levelConfig = s.layers.front().config;
    }
    if (s.cluster) {
        row.nodes = std::move(engine->run.nodes);
        row.perNodeAllowed = run.perNodeAllowed;
    }
    if (s.clients) {
        row.times.reserve(run.log.size());
        row.previousAttempt.reserve(run.log.size());
        std::vector<std::int64_t> last(in.arrivals.size(), -1); // per request: its latest attempt so far
        for (const LoggedAttempt& a : run.log) {
            row.previousAttempt.push_back(last[std::size_t(a.request)]);
            last[std::size_t(a.request)] = std::int64_t(row.times.size());
            row.times.push_back(a.t);
        }
        row.clients = std::make_shared<const ClientStats>(run.clients);
    }
    row.levelReplayable = replayable;
    row.engine = std::move(engine);
    return row;
}

} // namespace

std::optional<BoundReach> boundReach(const Scenario& s, std::span<const Nanos> t, std::span<const std::int64_t> costs,
                                     const AlgorithmTrace& row, std::size_t r)
{
    if (!row.kind.oneLimiter() || !boundHolds(s, r))
        return std::nullopt;
    const Nanos T = boundWindowNanos(s.pattern, s.config);
    std::optional<std::int64_t> bound;
    try {
        bound = worstCaseBound(row.algorithm, s.config, T);
    } catch (const InputError&) {
        return std::nullopt;
    }
    if (!bound)
        return std::nullopt;
    // The units admitted: below 2^63, 5,000,000 requests of at most kMaxCost (10^9).
    const auto cost = [&](std::size_t i) { return costs.empty() ? std::int64_t(1) : costs[i]; };
    const auto scan = [&](auto admitted) {
        std::int64_t inside = 0, most = 0;
        Nanos end = 0;
        std::size_t from = 0;
        const std::size_t n = std::min(t.size(), decisionCount(row));
        for (std::size_t i = 0; i < n; ++i) {
            if (!admitted(i))
                continue;
            inside += cost(i);
            for (; t[from] <= t[i] - T; ++from)
                inside -= admitted(from) ? cost(from) : 0;
            if (inside > most) {
                most = inside;
                end = t[i];
            }
        }
        return BoundReach{*bound, most, T, end};
    };
    if (!row.verdicts.empty()) // compact, or the engine's beside its log
        return scan([v = row.verdicts.data()](std::size_t i) { return v[i] != Verdict::Denied; });
    if (row.log)
        return scan([log = row.log](std::size_t i) { return (*log)[i].allowed != 0; });
    return scan([d = row.decisions.data()](std::size_t i) { return d[i].allowed; });
}

bool needsEngine(const Scenario& s, std::size_t r)
{
    return r >= s.algorithms.size() || s.cluster || s.clients || s.bucketsStartEmpty || !s.changes.empty() || s.server
           || !s.throttle.empty();
}

AlgorithmTrace simulateRow(const Scenario& s, const RowInputs& in, std::size_t r, const std::atomic<bool>* cancel)
{
    AlgorithmTrace row = needsEngine(s, r) ? engineRow(s, in, r, cancel) : simulateOne(s.config, s.algorithms.at(r), in.arrivals, in.costs);
    row.bound = boundReach(s, in.arrivals, in.costs, row, r);
    return row;
}

// oneState is true when one limiter's state under one config decides every attempt of the row,
// so its algorithm's worst case bounds the row: one node (or a shared store, no skew), no store
// outage, one key, no limit change. Nodes or keys of their own multiply it, a fallback or a
// skewed clock can pass it, and a change moves it: no bound then.
bool oneState(const EngineSetup& setup)
{
    if (const auto& c = setup.cluster;
        c && c->nodes() > 1 && (c->coordination() != Coordination::Shared || c->skewNanos() != 0))
        return false;
    if (const auto& c = setup.cluster; c && c->hasOutage() && c->coordination() != Coordination::Local
                                          && c->coordination() != Coordination::Split)
        return false;
    if (!setup.changes.empty())
        return false;
    return !(setup.clients && setup.clients->key() == KeyMode::Client && setup.clients->clients() > 1);
}

std::string_view rowId(const Scenario& s, std::size_t r)
{
    if (const GateSpec* gate = gateRow(s, r))
        return gate->text();
    return r < s.algorithms.size() ? algorithmId(s.algorithms[r]) : std::string_view("layered");
}

bool boundHolds(const Scenario& s, std::size_t r)
{
    return r < s.algorithms.size() && oneState(engineSetup(s, r));
}

EngineSetup engineSetup(const Scenario& s, std::size_t r, bool headers)
{
    EngineSetup setup;
    if (r < s.algorithms.size())
        setup.layers = {Layer{s.algorithms[r], s.config}};
    else if (isLayeredRow(s, r))
        setup.layers = s.layers;
    setup.server = s.server;
    setup.throttle = s.throttle;
    if (const GateSpec* gate = gateRow(s, r))
        setup.gate = *gate;
    else if (isLayeredRow(s, r))
        setup.gate = s.layeredGate;
    setup.cluster = s.cluster;
    setup.clients = s.clients;
    setup.seed = s.pattern.seed;
    setup.startEmpty = s.bucketsStartEmpty;
    if (r < s.algorithms.size())
        setup.changes = changedConfigs(s.config, s.changes);
    setup.headers = headers;
    return setup;
}

bool isPlainRow(const AlgorithmTrace& row)
{
    return !row.engine; // every other row is run by the engine, which says so
}

std::size_t requestOf(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& r = trace.results.at(row);
    return r.kind.attempts ? std::size_t(r.log->at(i).request) : i;
}

std::optional<std::size_t> decisionOf(const Trace& trace, std::size_t row, std::size_t request)
{
    const AlgorithmTrace& r = trace.results.at(row);
    if (!r.kind.attempts)
        return request < decisionCount(r) ? std::optional<std::size_t>(request) : std::nullopt;
    const ChunkedLog<LoggedAttempt>& log = *r.log;
    for (std::size_t i = 0; i < log.size(); ++i)
        if (log[i].request == std::int32_t(request))
            return i;
    return std::nullopt;
}

std::string describeRecorded(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& r = trace.results.at(row);
    const Decision d = decisionAt(trace, row, i);
    std::string where;
    if (r.kind.cluster)
        where = "node " + std::to_string(r.nodes.at(i) + 1) + " of " + std::to_string(r.perNodeAllowed.size());
    if (r.kind.attempts) {
        const LoggedAttempt& a = r.log->at(i);
        where = "client " + std::to_string(a.client) + ", "
              + (a.attempt == 0 ? std::string("first attempt") : "retry " + std::to_string(a.attempt));
    }
    std::string verdict;
    if (!d.allowed)
        verdict = d.retryNever() ? "denied, never admitted: it costs more than the quota"
                                 : "denied, retry in " + formatSeconds(d.retryAfter) + " s";
    else
        verdict = std::string("admitted") + (d.delay > 0 ? ", waits " + formatSeconds(d.delay) + " s" : "") + ", "
                + std::to_string(d.remaining) + " left";
    return (where.empty() ? "" : where + " -> ") + verdict;
}

} // namespace ratelab
