// The one writer of a scenario's run: `compare` and the app's File > Export write the same bytes
// for the same scenario. Plain rows (one limiter over the arrivals, no headers) are streamed as
// they are decided (report.h); any other scenario runs each row through the engine and writes
// its log, with the columns its features add: request, client and attempt (clients), cost,
// node (a cluster), and the response headers.
#pragma once

#include "engine/engine.h"
#include "scenario/scenario.h"

#include <functional>
#include <ostream>
#include <string>

namespace ratelab {

enum class ReportFormat : std::uint8_t { Json, Csv };

// writeReport runs the scenario and writes it. headers adds each decision's response headers,
// from the state that decided. It throws InputError, before writing anything, for a scenario
// that cannot be run.
void writeReport(std::ostream& out, const Scenario& scenario, ReportFormat format, bool headers);

// RowRunner runs row r of a scenario: runRow, or (the Redis backend) another decider.
using RowRunner = std::function<RowRun(std::size_t r, const EngineSetup& setup, const EngineRequests& requests)>;

// writeReport with a runner writes every row through the engine (never streamed), each run by it.
void writeReport(std::ostream& out, const Scenario& scenario, ReportFormat format, bool headers, const RowRunner& run);

// noLuaScript returns why algorithm a has no Lua script (nginx's module, a product's own code), or
// an empty string: the one rule `lua`, `--server-clock` and the Redis backend refuse by.
std::string noLuaScript(Algorithm a);

// refusedThroughRedis returns why the Redis backend cannot run the scenario, or an empty string:
// the one list of what is still refused, worded the same on the command line and in the app.
std::string refusedThroughRedis(const Scenario& s);

// engineSetup returns what row r of the scenario runs: algorithm r as a policy of one layer, or
// (r == algorithms.size()) the scenario's layers; its cluster and clients; the scenario's seed.
EngineSetup engineSetup(const Scenario& s, std::size_t r, bool headers = false);

// boundHolds is true when row r of s is bounded by its algorithm's worst case ("at most X in any
// T"): an algorithm row whose attempts one limiter's state decides under one config.
bool boundHolds(const Scenario& s, std::size_t r);

// rowId names row r in the output: the algorithm's id, or "layered".
std::string_view rowId(const Scenario& s, std::size_t r);

// EngineRow is what a row run by the engine keeps for the app: its setup and its run (with the
// headers' figures), so a hover shows the response of the state that decided.
struct EngineRow {
    EngineSetup setup;
    RowRun run;
};

// engineHeaders returns the response headers of one logged attempt of a row run with headers:
// X-RateLimit-* of the layer with the least remaining, Retry-After of the policy,
// RateLimit-Policy and RateLimit listing every layer. figures is the run's (empty: one layer).
std::vector<struct Header> engineHeaders(const EngineSetup& setup, const RowRun& run, std::size_t i);

} // namespace ratelab
