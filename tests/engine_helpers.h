// The tests' adapters to the one path that decides: the rows a scenario shows (rows.h: what the
// app draws, each row one limiter's fast path or runRow) gathered into a Trace, and one
// algorithm's row on a cluster run through runRow, read as the decisions tests compare. Plain
// core, no Qt: the fuzzers use it too.
#pragma once

#include "engine/engine.h"
#include "scenario/rows.h"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ratelab::test {

// traceOf runs every row of the scenario as the app does (resolveRowInputs, then simulateRow):
// its algorithms in order, then `layered` when it has layers. It throws InputError for a
// scenario the rows refuse.
inline Trace traceOf(const Scenario& s)
{
    RowInputs in = resolveRowInputs(s);
    std::vector<AlgorithmTrace> rows;
    rows.reserve(rowCount(s));
    for (std::size_t r = 0; r < rowCount(s); ++r)
        rows.push_back(simulateRow(s, in, r));
    Trace trace;
    trace.config = s.config;
    trace.arrivals = std::move(in.arrivals);
    trace.results = std::move(rows);
    trace.costs = std::move(in.costs);
    return trace;
}

// traceOf runs the algorithms over explicit arrivals (non-decreasing) and costs (empty: all 1):
// a scenario of those requests and nothing else, so each row is one limiter over the arrivals.
inline Trace traceOf(const LimiterConfig& config, std::span<const Algorithm> algorithms, std::vector<Nanos> arrivals,
                     std::vector<std::int64_t> costs = {})
{
    Scenario s;
    s.config = config;
    s.algorithms.assign(algorithms.begin(), algorithms.end());
    s.explicitArrivals = std::move(arrivals);
    s.explicitCosts = std::move(costs);
    return traceOf(s);
}

// runCluster runs one algorithm over the arrivals (non-decreasing, true time) on the cluster
// through runRow, keeping the time each decision's limiter was handed. The random balancer
// draws from the cluster's own seed, as assignNodes does. It throws InputError when a node
// clock would pass the largest Nanos.
inline RowRun runCluster(const LimiterConfig& config, const ClusterConfig& cluster, Algorithm algorithm,
                         std::span<const Nanos> arrivals)
{
    EngineSetup setup;
    setup.layers = {Layer{algorithm, config}};
    setup.cluster = cluster;
    setup.seed = cluster.seed();
    setup.handedTimes = true;
    return runRow(setup, {arrivals, {}, {}});
}

// decisionsOf returns a run's decisions, one per attempt in decision order.
inline std::vector<Decision> decisionsOf(const RowRun& run)
{
    std::vector<Decision> out;
    out.reserve(run.log.size());
    for (const LoggedAttempt& a : run.log)
        out.push_back(a.decision());
    return out;
}

// Attempt is one decided attempt: of request `request` (index in arrival order, from 0), by
// `client`, attempt number `attempt` (0 for the first), at time t.
struct Attempt {
    std::int64_t request = 0;
    std::int64_t client = 0;
    std::int32_t attempt = 0;
    Nanos t = 0;
    Decision decision;
};

// ClientTrace is one algorithm's run with clients, attempt by attempt.
struct ClientTrace {
    Algorithm algorithm = Algorithm::FixedWindow;
    std::vector<Attempt> attempts; // in decision order
    // metrics counts attempts: allowed + denied = attempts; max_in_window and overshoot over the
    // admitted attempts; memory is the largest key's (a fresh limiter's when nothing arrived),
    // which with one key is simulateOne's.
    Metrics metrics;
    ClientStats clients;
};

// simulateClients runs one algorithm with clients through runRow (the backoff draws seeded by
// the clients' seed) and reads its log as Attempts.
inline ClientTrace simulateClients(const LimiterConfig& config, const ClientConfig& clients, Algorithm algorithm,
                                   std::span<const Nanos> arrivals, std::span<const std::int64_t> clientOf = {})
{
    EngineSetup setup;
    setup.layers = {Layer{algorithm, config}};
    setup.clients = clients;
    setup.seed = clients.options().seed;
    const RowRun run = runRow(setup, {arrivals, {}, clientOf});
    ClientTrace r;
    r.algorithm = algorithm;
    r.metrics = run.metrics;
    r.clients = run.clients;
    r.attempts.reserve(run.log.size());
    for (const LoggedAttempt& a : run.log)
        r.attempts.push_back(Attempt{a.request, a.client, a.attempt, a.t, a.decision()});
    return r;
}

} // namespace ratelab::test
