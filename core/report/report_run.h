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

// engineHeaders returns the response headers of one logged attempt of a row run with headers:
// X-RateLimit-* of the layer with the least remaining, Retry-After of the policy,
// RateLimit-Policy and RateLimit listing every layer. figures is the run's (empty: one layer).
std::vector<struct Header> engineHeaders(const EngineSetup& setup, const RowRun& run, std::size_t i);

} // namespace ratelab
