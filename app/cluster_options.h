// The cluster options: --nodes, --balancer, --coordination, --latency, --sync,
// --skew override the base scenario's cluster value by value; --backend and --redis say where
// `compare` decides.
#pragma once

#include "report/report_run.h"
#include "scenario/scenario.h"

#include <QCommandLineParser>

#include <ostream>
#include <string>

namespace ratelab::app {

struct BackendOptions {
    bool redis = false;       // --backend redis
    std::string redisAddress; // --redis; empty: start a private redis-server
};

// addClusterOptions declares the cluster options on a parser, and the backend options with
// `backend` (compare decides through Redis; replay and sweep do not).
void addClusterOptions(QCommandLineParser& parser, bool backend = true);

// applyClusterOptions overrides the cluster of s with the cluster options given (a scenario
// without one gains it). Changing the coordination drops the old mode's latency or sync. It
// throws InputError naming the flag: "--sync: applies only to --coordination hybrid".
void applyClusterOptions(const QCommandLineParser& parser, Scenario& s);

// backendFromOptions reads --backend and --redis.
BackendOptions backendFromOptions(const QCommandLineParser& parser);

// writeThroughRedis runs the scenario through the Lua scripts on Redis and writes it as
// writeReport does. It throws InputError (a combination Redis does not run, the 2^53 domain)
// or io::RedisError.
void writeThroughRedis(std::ostream& out, const Scenario& scenario, const BackendOptions& backend, ReportFormat format,
                       bool headers);

} // namespace ratelab::app
