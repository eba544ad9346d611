// The `compare` formats: JSON or CSV, written as each algorithm decides.
//
// Times are written as exact decimal seconds (up to nine decimals), never through a double, so a
// script reading the output sees the same nanoseconds the limiters saw.
#pragma once

#include "scenario/scenario.h"
#include "engine/simulator.h"

#include <ostream>
#include <string>

namespace ratelab {

// streamable reports whether a scenario's output can be streamed by the functions below: no
// layers, cluster, clients, empty-starting buckets or headers.
bool streamable(const Scenario& scenario, bool headers);

// streamJson writes {"input": {...}, "results": {...}} for a streamable scenario's rows
// (rows.h), as each algorithm decides: no trace is kept, so it holds the arrivals, one byte
// a request and a 64 kB buffer. Each algorithm runs twice (its metrics come first). It throws
// InputError, before writing anything, for requests that cannot be resolved (resolveCosts, then
// resolveArrivals).
void streamJson(std::ostream& out, const Scenario& scenario);

// streamCsv writes one row per request and algorithm of a streamable scenario's rows,
// algorithm,t,allowed,delay,remaining,retry_after,level, then cost (when any request costs more
// than 1), in the memory streamJson takes; each algorithm runs once.
void streamCsv(std::ostream& out, const Scenario& scenario);

// streamCsv writes the same from a scenario's parts, resolved: its config, algorithms, arrivals
// (resolveArrivals) and costs (resolveCosts; empty when every request costs 1).
void streamCsv(std::ostream& out, const LimiterConfig& config, std::span<const Algorithm> algorithms,
               std::span<const Nanos> arrivals, std::span<const std::int64_t> costs);

// formatNumber writes a double in its shortest round-trip form, always with a decimal point or
// exponent ("9.0", "1.1"), and null for a value that is not finite.
std::string formatNumber(double v);

} // namespace ratelab
