#include "cluster_options.h"

#include "arithmetic/decimal.h"
#include "redis_run.h"
#include "scenario/scenario_parts.h"
#include "scenario_options.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include <QStringList>

namespace ratelab::app {

void addClusterOptions(QCommandLineParser& parser, bool backend)
{
    parser.addOptions({
        {"nodes", "Cluster: number of nodes, 1 to 64 (default 1).", "N"},
        {"balancer", "Cluster: " + QString::fromStdString(idList(kAllBalancers, balancerId)) + " (default round_robin).",
         "name"},
        {"coordination",
         "Cluster: how nodes share state: " + QString::fromStdString(idList(kAllCoordinations, coordinationId))
             + " (default shared).",
         "name"},
        {"latency", "Cluster: store round trip in seconds (racy only; default 0).", "seconds"},
        {"sync", "Cluster: seconds between syncs with the store (hybrid only, required there).", "seconds"},
        {"skew", "Cluster: the last node's clock runs this many seconds ahead (default 0).", "seconds"},
        {"outage", "Cluster: the store is down from T1 to T2 seconds (store modes; see --fallback).", "T1:T2"},
        {"fallback", "Cluster: what nodes do while the store is down: open, closed or local (default open).", "name"},
        {"join", "Cluster: node N joins at T seconds, new (repeatable); before that it takes no requests.", "N@T"},
        {"leave", "Cluster: node N leaves at T seconds (repeatable); its requests go to the others.", "N@T"},
        {"autoscale",
         "Cluster: MIN to MAX nodes by load: at each whole second the nodes up are ceil(last second's attempts / "
         "--scale-at), kept in MIN..MAX; a node that comes up is new. Nodes is MAX.",
         "MIN:MAX"},
        {"scale-at", "Cluster: with --autoscale, the attempts a second one node takes (default 1).", "per_second"},
        {"buckets-start",
         "Buckets (token and leaky buckets, GCRA, nginx) start full (default) or empty: at 0, when a node joins, when "
         "a node falls back to its own limiter. Windows start empty either way.",
         "full|empty"},
        {"change",
         "From T seconds on, a new limit, capacity or rate (repeatable), e.g. 10:limit=20; each limiter keeps its "
         "state (tokens capped at the new capacity). Capacity and rate not named follow the limit if they did.",
         "T:limit=L,capacity=C,rate=R"},
    });
    if (backend)
        parser.addOptions({
            {"backend", "Cluster: simulated (default) or redis (coordination shared, through the Lua scripts).", "name"},
            {"redis", "Cluster: Redis address host:port or unix:/path (default: start a private redis-server).",
             "address"},
        });
}

namespace {

// applyStartAndChanges reads --buckets-start and the --change list (each checked, then all of
// them against the config).
void applyStartAndChanges(const QCommandLineParser& p, Scenario& s)
{
    if (p.isSet("buckets-start")) {
        const QString v = p.value("buckets-start");
        if (v != "full" && v != "empty")
            throw InputError("--buckets-start: expected full or empty (got " + ratelab::quoted(v.toStdString()) + ")");
        s.bucketsStartEmpty = v == "empty";
    }
    if (p.isSet("change")) {
        s.changes.clear();
        for (const QString& v : p.values("change")) {
            try {
                s.changes.push_back(parseLimitChange(v.toStdString()));
            } catch (const InputError& e) {
                throw InputError("--change " + ratelab::quoted(v.toStdString()) + ": " + e.what());
            }
        }
        try {
            (void)changedConfigs(s.config, s.changes);
        } catch (const InputError& e) {
            throw InputError(std::string("--change: ") + e.what());
        }
    }
}

// checkClusterOptions says what the options given mean together, named by option.
void checkClusterOptions(const QCommandLineParser& p, ClusterConfig::Options& o)
{
    const std::string mode(coordinationId(o.coordination));
    if (p.isSet("latency") && o.coordination != Coordination::Racy)
        throw InputError("--latency: applies only to --coordination racy (got " + mode + ")");
    if (p.isSet("sync") && o.coordination != Coordination::Hybrid)
        throw InputError("--sync: applies only to --coordination hybrid (got " + mode + ")");
    if (o.coordination == Coordination::Hybrid && o.syncNanos == 0)
        throw InputError(p.isSet("sync") ? "--sync: must be greater than 0 s for --coordination hybrid (got 0)"
                                         : "--coordination hybrid needs --sync SECONDS");
    if (p.isSet("outage") && o.outageToNanos <= o.outageFromNanos)
        throw InputError("--outage: T2 must be later than T1, both 0 s or more (got " + p.value("outage").toStdString()
                         + ")");
    // An outage is the store's: local and split keep none, so it would change nothing (the app
    // keeps it hidden there; a command line that asks for both is refused, like --latency).
    const bool storeless = o.coordination == Coordination::Local || o.coordination == Coordination::Split;
    if (storeless && o.outageToNanos > o.outageFromNanos && (p.isSet("outage") || p.isSet("coordination")))
        throw InputError("--outage: applies only to coordination shared, racy or hybrid: " + mode
                         + " keeps no store to go down");
    if (p.isSet("fallback") && o.outageToNanos <= o.outageFromNanos)
        throw InputError("--fallback: applies only with a store outage (--outage T1:T2)");
    if (p.isSet("autoscale")) {
        if (p.isSet("nodes") && o.nodes != o.autoscaleMax)
            throw InputError("--nodes " + std::to_string(o.nodes) + ": --autoscale " + p.value("autoscale").toStdString()
                             + " runs up to " + std::to_string(o.autoscaleMax) + " nodes");
        o.nodes = o.autoscaleMax;
    }
    if (p.isSet("scale-at") && o.autoscaleMax == 0)
        throw InputError("--scale-at: applies only with --autoscale");
}

} // namespace

void applyClusterOptions(const QCommandLineParser& p, Scenario& s)
{
    applyStartAndChanges(p, s);
    const auto pairs = clusterPairOptions();
    const auto flag = [](std::string_view f) { return QString::fromUtf8(f.data(), qsizetype(f.size())); };
    if (!anySettingFlag(p, clusterSettings())
        && std::none_of(pairs.begin(), pairs.end(), [&](const PairOption& pair) { return p.isSet(flag(pair.flag)); }))
        return;
    // Each value through the settings codec, as a scenario file's; then the options together.
    const ClusterConfig base = s.cluster.value_or(ClusterConfig{});
    ClusterConfig::Options o = base.options();
    o.seed = s.pattern.seed;
    readSettingFlags(p, clusterSettings(), o);
    for (const PairOption& pair : pairs) {
        if (!p.isSet(flag(pair.flag)))
            continue;
        try {
            readPair(pair, o, p.value(flag(pair.flag)).toStdString());
        } catch (const InputError& e) {
            throw InputError("--" + std::string(pair.flag) + ": " + e.what());
        }
    }
    if (o.coordination != base.coordination()) { // the old mode's own values go with it
        if (!p.isSet("latency"))
            o.latencyNanos = 0;
        if (!p.isSet("sync"))
            o.syncNanos = 0;
    }
    checkClusterOptions(p, o);
    s.cluster = ClusterConfig::make(o);
}

BackendOptions backendFromOptions(const QCommandLineParser& p)
{
    BackendOptions out;
    if (p.isSet("backend")) {
        const QString b = p.value("backend");
        if (b != "simulated" && b != "redis")
            throw InputError("--backend: unknown backend " + ratelab::quoted(b.toStdString()) + " (known: simulated, redis)");
        out.redis = b == "redis";
    }
    if (p.isSet("redis")) {
        if (!out.redis)
            throw InputError("--redis: applies only to --backend redis");
        out.redisAddress = p.value("redis").toStdString();
        if (out.redisAddress.empty())
            throw InputError("--redis: no address given (host:port or unix:/path)");
    }
    return out;
}

void writeThroughRedis(std::ostream& out, const Scenario& scenario, const BackendOptions& backend, ReportFormat format,
                       bool headers)
{
    if (!io::redisBackendBuilt()) // before any check of the scenario: no scenario could run
        throw InputError(std::string("--backend redis: ") + io::kNoRedisBackend);
    if (const std::string why = refusedThroughRedis(scenario); !why.empty())
        throw InputError("--backend redis: " + why);
    io::checkLuaDomain(scenario); // before starting anything; a retry past it is refused when asked
    std::unique_ptr<io::PrivateRedis> server;
    if (backend.redisAddress.empty())
        server = std::make_unique<io::PrivateRedis>();
    io::RedisStore store(server ? server->address() : backend.redisAddress);
    // The engine decides each row on its model of the shared store and asks Redis every layer's
    // decision too: the two agree, or the run stops naming the first attempt where they part.
    // All or nothing: the rows are written to a buffer and printed once every row has run, so a
    // store that goes away after the first row leaves stdout empty (the simulated path checks
    // every row before it writes the first, writeReport).
    std::ostringstream buffered;
    writeReport(buffered, scenario, format, headers, [&](std::size_t, const EngineSetup& setup, const EngineRequests& in) {
        EngineSetup asked = setup;
        io::RedisRun run(store);
        asked.external = run.asker();
        try {
            RowRun result = runRow(asked, in);
            run.finish();
            return result;
        } catch (const StoreDisagrees& e) {
            throw io::RedisError("--backend redis: " + io::disagreement(e));
        }
    });
    io::honourPendingSignal();
    out << buffered.str();
}

} // namespace ratelab::app
