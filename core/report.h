// The `compare` formats: a trace written as JSON or CSV.
//
// Times are written as exact decimal seconds (up to nine decimals), never through a double, so a
// script reading the output sees the same nanoseconds the limiters saw.
#pragma once

#include "cluster.h"
#include "scenario.h"
#include "simulator.h"

#include <ostream>
#include <string>

namespace ratelab {

// ClusterReport is what a cluster run adds to a trace (issue 12): per algorithm, in the order
// of trace.results, the node of each request and the admitted count per node.
struct ClusterReport {
    ClusterConfig config;
    std::vector<std::vector<std::uint8_t>> nodes;
    std::vector<std::vector<std::int64_t>> perNodeAllowed;
};

// ReportOptions are the optional parts of the output (issue 14).
struct ReportOptions {
    // headers adds each decision's response headers (headers.h): a "headers" object in every
    // JSON sequence entry, one CSV column per header (empty when it is not sent).
    bool headers = false;
    // cluster adds each request's node and each algorithm's per-node admissions (issue 12).
    const ClusterReport* cluster = nullptr;
};

// writeJson writes {"input": {...}, "results": {...}} for a scenario and its trace. The trace's
// layered result, when present, is written as "layered" after the algorithms, with per-layer
// allowed, denied_here and wasted. With a cluster, each algorithm gains "cluster": {"nodes",
// "coordination", "per_node_allowed"} and each sequence entry a "node".
void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace, const ReportOptions& options = {});

// writeCsv writes one row per request and algorithm:
// algorithm,t,allowed,delay,remaining,retry_after,level, then cost (when any request costs more
// than 1), node (a cluster) and the headers; layered rows carry the algorithm "layered".
void writeCsv(std::ostream& out, const Trace& trace, const ReportOptions& options = {});

// streamable reports whether compare's output for this scenario and these options can be
// streamed: no layers, cluster, clients or headers (those are written from a whole trace).
bool streamable(const Scenario& scenario, const ReportOptions& options);

// streamJson writes exactly what writeJson(out, scenario, simulate(scenario)) writes, for a
// streamable scenario, as each algorithm decides: no trace is kept, so it holds the arrivals,
// one byte a request and a 64 kB buffer. Each algorithm runs twice (its metrics come first).
// It throws InputError, before writing anything, for a scenario simulate would refuse.
void streamJson(std::ostream& out, const Scenario& scenario);

// streamCsv writes exactly what writeCsv(out, simulate(scenario)) writes, for a streamable
// scenario, in the memory streamJson takes; each algorithm runs once.
void streamCsv(std::ostream& out, const Scenario& scenario);

// streamCsv writes the same from a scenario's parts, resolved: its config, algorithms, arrivals
// (resolveArrivals) and costs (resolveCosts; empty when every request costs 1).
void streamCsv(std::ostream& out, const LimiterConfig& config, std::span<const Algorithm> algorithms,
               std::span<const Nanos> arrivals, std::span<const std::int64_t> costs);

// formatNumber writes a double in its shortest round-trip form, always with a decimal point or
// exponent ("9.0", "1.1"), and null for a value that is not finite.
std::string formatNumber(double v);

} // namespace ratelab

// --- Clients that react (issue 13): the writers of a ClientsTrace live in report_clients.h. ---
namespace ratelab {

// writeJsonInput writes the "input" object writeJson starts with, for the other writers.
void writeJsonInput(std::ostream& out, const Scenario& scenario, const Trace& trace);

} // namespace ratelab
