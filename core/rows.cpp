#include "rows.h"

#include "algorithm_facts.h"
#include "decimal.h"

#include <algorithm>
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

RowInputs resolveRowInputs(const Scenario& s)
{
    RowInputs in{resolveArrivals(s), resolveCosts(s), {}};
    const bool nginx = std::find(s.algorithms.begin(), s.algorithms.end(), Algorithm::NginxLimitReq) != s.algorithms.end();
    const auto refuse = [](const char* a, const char* b) {
        throw InputError(std::string(a) + " and " + b + " cannot be simulated together yet: turn one off");
    };
    if (s.cluster) {
        if (s.clients)
            refuse("a cluster", "clients");
        if (!in.costs.empty())
            refuse("a cluster", "request cost");
        if (!s.layers.empty())
            refuse("a cluster", "layers");
        if (nginx)
            refuse("a cluster", "nginx_limit_req (one server only)");
    }
    if (s.clients) {
        if (!in.costs.empty())
            refuse("clients", "request cost");
        if (!s.layers.empty())
            refuse("clients", "layers");
        if (nginx)
            refuse("clients", "nginx_limit_req");
        in.clientOf = resolveClients(s);
    }
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
    for (const Attempt& at : c->attempts) {
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

} // namespace ratelab
