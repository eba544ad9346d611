#include "cluster_options.h"

#include "decimal.h"
#include "redis_store.h"
#include "scenario_options.h"

#include <QStringList>

namespace ratelab::app {

namespace {

std::string ids(auto all, auto id)
{
    std::string out;
    for (auto v : all)
        out += (out.empty() ? "" : ", ") + std::string(id(v));
    return out;
}

} // namespace

void addClusterOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"nodes", "Cluster: number of nodes, 1 to 64 (default 1).", "N"},
        {"balancer", "Cluster: " + QString::fromStdString(ids(kAllBalancers, balancerId)) + " (default round_robin).",
         "name"},
        {"coordination",
         "Cluster: how nodes share state: " + QString::fromStdString(ids(kAllCoordinations, coordinationId))
             + " (default shared).",
         "name"},
        {"latency", "Cluster: store round trip in seconds (racy only; default 0).", "seconds"},
        {"sync", "Cluster: seconds between syncs with the store (hybrid only, required there).", "seconds"},
        {"skew", "Cluster: the last node's clock runs this many seconds ahead (default 0).", "seconds"},
        {"backend", "Cluster: simulated (default) or redis (coordination shared, through the Lua scripts).", "name"},
        {"redis", "Cluster: Redis address host:port or unix:/path (default: start a private redis-server).",
         "address"},
    });
}

bool clusterOptionsGiven(const QCommandLineParser& p)
{
    for (const char* name : {"nodes", "balancer", "coordination", "latency", "sync", "skew", "backend", "redis"})
        if (p.isSet(name))
            return true;
    return false;
}

std::optional<ClusterOptions> clusterFromOptions(const QCommandLineParser& p, std::uint64_t seed)
{
    if (!clusterOptionsGiven(p))
        return std::nullopt;

    ClusterConfig::Options o;
    o.seed = seed;
    o.nodes = int(integerOption(p, "nodes", 1, ClusterConfig::kMaxNodes).value_or(o.nodes));
    if (p.isSet("balancer")) {
        const auto b = balancerFromId(p.value("balancer").toStdString());
        if (!b)
            throw InputError("--balancer: unknown balancer " + quoted(p.value("balancer").toStdString()) + " (known: "
                             + ids(kAllBalancers, balancerId) + ")");
        o.balancer = *b;
    }
    if (p.isSet("coordination")) {
        const auto c = coordinationFromId(p.value("coordination").toStdString());
        if (!c)
            throw InputError("--coordination: unknown coordination " + quoted(p.value("coordination").toStdString())
                             + " (known: " + ids(kAllCoordinations, coordinationId) + ")");
        o.coordination = *c;
    }
    const std::string mode(coordinationId(o.coordination));
    if (p.isSet("latency")) {
        o.latencyNanos = *secondsOption(p, "latency");
        if (o.coordination != Coordination::Racy)
            throw InputError("--latency: applies only to --coordination racy (got " + mode + ")");
    }
    if (p.isSet("sync")) {
        o.syncNanos = *secondsOption(p, "sync", Sign::Positive);
        if (o.coordination != Coordination::Hybrid)
            throw InputError("--sync: applies only to --coordination hybrid (got " + mode + ")");
    } else if (o.coordination == Coordination::Hybrid) {
        throw InputError("--coordination hybrid needs --sync SECONDS");
    }
    if (p.isSet("skew"))
        o.skewNanos = *secondsOption(p, "skew");

    ClusterOptions out;
    out.cluster = ClusterConfig::make(o);
    if (p.isSet("backend")) {
        const QString b = p.value("backend");
        if (b != "simulated" && b != "redis")
            throw InputError("--backend: unknown backend " + quoted(b.toStdString()) + " (known: simulated, redis)");
        out.redis = b == "redis";
    }
    if (p.isSet("redis")) {
        if (!out.redis)
            throw InputError("--redis: applies only to --backend redis");
        out.redisAddress = p.value("redis").toStdString();
        if (out.redisAddress.empty())
            throw InputError("--redis: no address given (host:port or unix:/path)");
    }
    if (out.redis && o.coordination != Coordination::Shared)
        throw InputError("--backend redis: runs --coordination shared only (got " + mode + ")");
    return out;
}

std::pair<Trace, ClusterReport> runCluster(const Scenario& scenario, const ClusterOptions& options)
{
    if (!resolveCosts(scenario).empty())
        throw InputError("request cost is not simulated on a cluster yet: leave out --cost (and costs in the arrivals "
                         "file) with the cluster options");
    for (Algorithm a : scenario.algorithms)
        if (isProduct(a))
            throw InputError(std::string(algorithmId(a)) + " is not simulated on a cluster yet: leave it out of "
                             "--algorithms with the cluster options");
        else if (a == Algorithm::NginxLimitReq)
            throw InputError("nginx_limit_req runs on one server only: leave it out of --algorithms with the cluster "
                             "options");
    Trace trace{scenario.config, resolveArrivals(scenario), {}, {}, {}};
    ClusterReport report{options.cluster, {}, {}};
    std::unique_ptr<io::PrivateRedis> server;
    std::unique_ptr<io::RedisStore> store;
    if (options.redis) {
        // Check every algorithm's domain before starting anything.
        const Nanos last = trace.arrivals.empty() ? 0 : trace.arrivals.back();
        for (Algorithm a : scenario.algorithms)
            io::checkLuaDomain(a, scenario.config,
                               last > kMaxNanos - options.cluster.skewNanos() ? kMaxNanos
                                                                              : last + options.cluster.skewNanos());
        if (options.redisAddress.empty())
            server = std::make_unique<io::PrivateRedis>();
        store = std::make_unique<io::RedisStore>(server ? server->address() : options.redisAddress);
    }
    for (Algorithm a : scenario.algorithms) {
        ClusterTrace r = simulateCluster(scenario.config, options.cluster, a, trace.arrivals);
        if (store) {
            // Redis decides; the metrics are measured on its decisions (memory stays as simulated).
            AlgorithmTrace& t = r.trace;
            t.decisions = store->run(a, scenario.config, options.cluster, trace.arrivals);
            Metrics& m = t.metrics;
            m.allowed = m.delayed = 0;
            std::fill(r.perNodeAllowed.begin(), r.perNodeAllowed.end(), 0);
            for (std::size_t i = 0; i < t.decisions.size(); ++i) {
                m.allowed += t.decisions[i].allowed;
                m.delayed += t.decisions[i].delay > 0;
                r.perNodeAllowed[r.nodes[i]] += t.decisions[i].allowed;
            }
            m.denied = std::int64_t(t.decisions.size()) - m.allowed;
            m.maxInWindow = maxInWindow(trace.arrivals, t.decisions, scenario.config.windowNanos());
            m.overshoot = double(m.maxInWindow) / double(scenario.config.limit());
        }
        trace.results.push_back(std::move(r.trace));
        report.nodes.push_back(std::move(r.nodes));
        report.perNodeAllowed.push_back(std::move(r.perNodeAllowed));
    }
    return {std::move(trace), std::move(report)};
}

} // namespace ratelab::app
