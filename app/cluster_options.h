// The cluster options of `compare` (issue 12): --nodes, --balancer, --coordination, --latency,
// --sync, --skew, --backend, --redis. Kept apart from the scenario options so each can change
// without the other.
#pragma once

#include "cluster.h"
#include "report.h"
#include "scenario.h"

#include <QCommandLineParser>

#include <optional>
#include <string>

namespace ratelab::app {

struct ClusterOptions {
    ClusterConfig cluster;
    bool redis = false;       // --backend redis
    std::string redisAddress; // --redis; empty: start a private redis-server
};

// addClusterOptions declares the cluster options on a parser.
void addClusterOptions(QCommandLineParser& parser);

// clusterOptionsGiven reports whether any cluster option was given.
bool clusterOptionsGiven(const QCommandLineParser& parser);

// clusterFromOptions returns nullopt when no cluster option was given (the output stays the
// single-limiter one), else the validated options. seed is the random balancer's seed (the
// scenario's --seed). It throws InputError naming the flag: "--sync: applies only to
// --coordination hybrid".
std::optional<ClusterOptions> clusterFromOptions(const QCommandLineParser& parser, std::uint64_t seed);

// runCluster runs every algorithm of the scenario on the cluster, simulated or through Redis,
// and returns the trace and, per algorithm, its nodes. It throws InputError (domain) or
// io::RedisError.
std::pair<Trace, ClusterReport> runCluster(const Scenario& scenario, const ClusterOptions& options);

} // namespace ratelab::app
