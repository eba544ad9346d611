#include "rows.h"

#include "algorithm_facts.h"
#include "decimal.h"
#include "nginx_limit_req.h"
#include "products/product.h"

#include <algorithm>
#include <optional>
#include <string>

namespace ratelab {

std::size_t rowCount(const Scenario& s) { return s.algorithms.size() + (s.layers.empty() ? 0 : 1); }

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
    const bool costs = s.cost != 1 || (s.explicitArrivals && !s.explicitCosts.empty());
    const auto refuse = [](const char* a, const char* b) {
        throw InputError(std::string(a) + " and " + b + " cannot be simulated together yet: turn one off");
    };
    if (s.cluster) {
        if (s.clients)
            refuse("a cluster", "clients");
        if (costs)
            refuse("a cluster", "request cost");
        if (!s.layers.empty())
            refuse("a cluster", "layers");
        if (nginx)
            refuse("a cluster", "nginx_limit_req (one server only)");
    }
    if (s.clients) {
        if (costs)
            refuse("clients", "request cost");
        if (!s.layers.empty())
            refuse("clients", "layers");
        if (nginx)
            refuse("clients", "nginx_limit_req");
        for (std::int64_t c : s.explicitClients)
            if (c < 0 || c >= s.clients->clients())
                throw InputError("the arrivals name client " + std::to_string(c) + ", but there are "
                                 + std::to_string(s.clients->clients()) + " clients (0 to "
                                 + std::to_string(s.clients->clients() - 1) + ")");
    }
}

RowInputs resolveRowInputs(const Scenario& s)
{
    checkScenario(s);
    RowInputs in{resolveArrivals(s), resolveCosts(s), {}};
    in.clientOf = resolveClients(s);
    return in;
}

namespace {

// withSeed returns the cluster with the scenario's seed for its random balancer.
ClusterConfig withSeed(const ClusterConfig& c, std::uint64_t seed)
{
    return ClusterConfig::make({c.nodes(), c.balancer(), c.coordination(), c.latencyNanos(), c.syncNanos(),
                                c.skewNanos(), seed});
}

AlgorithmTrace layeredRow(const Scenario& s, const RowInputs& in)
{
    LayeredTrace l = simulateLayered(s.layers, in.arrivals, in.costs);
    AlgorithmTrace row;
    row.algorithm = s.layers.front().algorithm;
    row.decisions = std::move(l.decisions);
    row.metrics = l.metrics;
    std::string names;
    for (const Layer& layer : s.layers)
        names += (names.empty() ? "" : " + ") + std::string(facts(layer.algorithm).title);
    row.title = "Layered policy: " + names;
    // The first layer is asked about every request, so replaying it alone gives its level.
    row.levelConfig = s.layers.front().config;
    return row;
}

AlgorithmTrace clusterRow(const Scenario& s, const RowInputs& in, Algorithm a)
{
    const ClusterConfig cluster = withSeed(*s.cluster, s.pattern.seed);
    ClusterTrace c = simulateCluster(s.config, cluster, a, in.arrivals);
    AlgorithmTrace row = std::move(c.trace);
    row.nodes = std::move(c.nodes);
    row.perNodeAllowed = std::move(c.perNodeAllowed);
    // One node sharing the store at true time is the single limiter; otherwise the state lives
    // on several nodes, or the store saw the requests at other times.
    row.levelReplayable = cluster.nodes() == 1 && cluster.skewNanos() == 0
                          && (cluster.coordination() != Coordination::Racy || cluster.latencyNanos() == 0);
    return row;
}

AlgorithmTrace clientsRow(const Scenario& s, const RowInputs& in, Algorithm a)
{
    ClientOptions o = s.clients->options();
    o.seed = s.pattern.seed;
    auto c = std::make_shared<ClientTrace>(
        simulateClients(s.config, ClientConfig::make(o), a, in.arrivals, in.clientOf));
    AlgorithmTrace row;
    row.algorithm = a;
    row.metrics = c->metrics;
    row.decisions.reserve(c->attempts.size());
    row.times.reserve(c->attempts.size());
    row.previousAttempt.reserve(c->attempts.size());
    std::vector<std::int64_t> last(in.arrivals.size(), -1); // per request: its latest attempt so far
    for (const Attempt& at : c->attempts) {
        row.previousAttempt.push_back(last[std::size_t(at.request)]);
        last[std::size_t(at.request)] = std::int64_t(row.decisions.size());
        row.decisions.push_back(at.decision);
        row.times.push_back(at.t);
    }
    row.levelReplayable = s.clients->keys() == 1;
    row.clients = std::move(c);
    return row;
}

} // namespace

AlgorithmTrace simulateRow(const Scenario& s, const RowInputs& in, std::size_t r)
{
    if (r == s.algorithms.size())
        return layeredRow(s, in);
    const Algorithm a = s.algorithms.at(r);
    if (s.cluster)
        return clusterRow(s, in, a);
    if (s.clients)
        return clientsRow(s, in, a);
    return simulateOne(s.config, a, in.arrivals, in.costs);
}

bool isPlainRow(const AlgorithmTrace& row)
{
    return row.times.empty() && row.nodes.empty() && !row.levelConfig && !row.clients && row.levelReplayable;
}

std::size_t requestOf(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& r = trace.results.at(row);
    return r.clients ? std::size_t(r.clients->attempts.at(i).request) : i;
}

std::optional<std::size_t> decisionOf(const Trace& trace, std::size_t row, std::size_t request)
{
    const AlgorithmTrace& r = trace.results.at(row);
    if (!r.clients)
        return request < decisionCount(r) ? std::optional<std::size_t>(request) : std::nullopt;
    const auto& attempts = r.clients->attempts;
    for (std::size_t i = 0; i < attempts.size(); ++i)
        if (attempts[i].request == std::int64_t(request))
            return i;
    return std::nullopt;
}

std::string describeRecorded(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& r = trace.results.at(row);
    const Decision d = decisionAt(trace, row, i);
    std::string where;
    if (!r.nodes.empty())
        where = "node " + std::to_string(r.nodes.at(i) + 1) + " of " + std::to_string(r.perNodeAllowed.size());
    if (r.clients) {
        const Attempt& a = r.clients->attempts.at(i);
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
