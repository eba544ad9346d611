// The pieces the writers share (report.cpp writes them, report_run.cpp reuses them), so a plain
// row is written with the same bytes whichever writer writes it. Internal to core.
#pragma once

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "report/headers.h"
#include "scenario/scenario.h"
#include "report/text_buffer.h"

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab::detail {

// writeInput writes the "input" object of a scenario.
void writeInput(std::ostream& out, const Scenario& s, bool hasCosts, std::size_t requests);
std::string inputText(const Scenario& s, bool hasCosts, std::size_t requests);
// writeResultHead writes `"ID": {"allowed": ..., "memory": {...}` and, with costs, allowed_cost and never.
void writeResultHead(Text& out, std::string_view id, const Metrics& m, bool hasCosts);
// writeBound writes `, "bound": {"window": T, "at_most": X, "reached": M}`: X the most one limiter
// of algorithm a admits in any window of length T (pattern window_of, else the config's window),
// null without an algorithm (a layered row) or without a closed form (the products); M the most
// the row admitted in any such window (max_in_window when T is the window).
void writeBound(Text& out, std::optional<Algorithm> a, const Scenario& s, std::int64_t reached);
// writeEntry writes one JSON sequence entry without its closing brace; cost is null when every
// request costs 1.
// open false leaves out the brace, for an entry whose first fields are written already.
void writeEntry(Text& out, Nanos t, const Decision& d, const std::int64_t* cost, bool open = true);
// writeCsvRow writes one CSV row without its line end; id is a CSV field already (csvField).
void writeCsvRow(Text& out, std::string_view id, Nanos t, const Decision& d, const std::int64_t* cost);
// writeCsvTail writes a row from its t on.
void writeCsvTail(Text& out, Nanos t, const Decision& d, const std::int64_t* cost);
const std::int64_t* costAt(const std::vector<std::int64_t>& costs, std::size_t i);
void writeHeadersJson(Text& out, const std::vector<Header>& headers);

} // namespace ratelab::detail
