// The `compare` formats: a trace written as JSON or CSV.
//
// Times are written as exact decimal seconds (up to nine decimals), never through a double, so a
// script reading the output sees the same nanoseconds the limiters saw.
#pragma once

#include "scenario.h"
#include "simulator.h"

#include <ostream>
#include <string>

namespace ratelab {

// writeJson writes {"input": {...}, "results": {...}} for a scenario and its trace.
void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace);

// writeCsv writes one row per request and algorithm:
// algorithm,t,allowed,delay,remaining,retry_after,level
void writeCsv(std::ostream& out, const Trace& trace);

// ReportOptions are the optional parts of the output (issue 14).
struct ReportOptions {
    // headers adds each decision's response headers (headers.h): a "headers" object in every
    // JSON sequence entry, one CSV column per header (empty when it is not sent).
    bool headers = false;
};

// writeJson with options; the trace's layered result, when present, is written as "layered"
// after the algorithms, with per-layer allowed, denied_here and wasted.
void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace, const ReportOptions& options);

// writeCsv with options; layered rows carry the algorithm "layered".
void writeCsv(std::ostream& out, const Trace& trace, const ReportOptions& options);

// formatNumber writes a double in its shortest round-trip form, always with a decimal point or
// exponent ("9.0", "1.1"), and null for a value that is not finite.
std::string formatNumber(double v);

} // namespace ratelab
