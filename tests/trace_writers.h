// The compare formats written from a kept trace, as the tests' reference for what the stream
// writers (report.h: streamJson, streamCsv) write as each algorithm decides: the two must agree
// byte for byte. The program itself keeps no trace to write, so these live here.
#pragma once

#include "engine/admitted_window.h"
#include "engine/simulator.h"
#include "report/report_parts.h"
#include "scenario/rows.h"

#include <algorithm>
#include <ostream>

namespace ratelab {

using namespace detail;

// writeJson writes {"input": {...}, "results": {...}} for a scenario and the trace of its plain
// rows (one limiter each over the arrivals, compact or not).
inline void writeJson(std::ostream& out, const Scenario& scenario, const Trace& trace)
{
    const bool hasCosts = !trace.costs.empty();
    Text text(out);
    text << "{\"input\": " << inputText(scenario, hasCosts, trace.arrivals.size()) << ",\n \"results\": {";
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const AlgorithmTrace& a = trace.results[r];
        text << (r ? ",\n  " : "\n  ");
        writeResultHead(text, algorithmId(a.algorithm), a.metrics, hasCosts);
        AdmittedWindow window(boundWindowNanos(scenario.pattern, scenario.config));
        std::int64_t reached = 0;
        for (std::size_t i = 0; i < decisionCount(a); ++i)
            if (decisionAt(trace, r, i).allowed)
                reached = std::max(reached, window.add(trace.arrivals[i], true, costOf(trace, i)));
        writeBound(text, a.algorithm, scenario, reached);
        text << ",\n   \"sequence\": [";
        for (std::size_t i = 0; i < decisionCount(a); ++i) {
            text << (i ? ",\n    " : "\n    ");
            writeEntry(text, trace.arrivals[i], decisionAt(trace, r, i), costAt(trace.costs, i));
            text << "}";
            text.flushSome();
        }
        text << "]}";
    }
    text << "}}\n";
}

// writeCsv writes one row per request and algorithm of a plain trace:
// algorithm,t,allowed,delay,remaining,retry_after,level, then cost (when any request costs more
// than 1).
inline void writeCsv(std::ostream& out, const Trace& trace)
{
    Text text(out);
    text << "algorithm,t,allowed,delay,remaining,retry_after,level" << (trace.costs.empty() ? "" : ",cost") << '\n';
    for (std::size_t r = 0; r < trace.results.size(); ++r) {
        const std::string id = csvField(algorithmId(trace.results[r].algorithm));
        for (std::size_t i = 0; i < decisionCount(trace.results[r]); ++i) {
            writeCsvRow(text, id, trace.arrivals[i], decisionAt(trace, r, i), costAt(trace.costs, i));
            text << '\n';
            text.flushSome();
        }
    }
}

} // namespace ratelab
