// The parts the reports of `ratelab advise` for a count in a window share (Kong, express-rate-limit,
// Cloudflare, AWS WAF, @upstash/ratelimit; advise_windows.cpp): --cap and --origin met among the
// rows, the table of windows with the goals' columns, why the recommendation is the row it is,
// and the rows as JSON.
#pragma once

#include "advise_args.h"
#include "advise_report.h"

#include "advise/advise.h"
#include "advise/window_goals.h"
#include "replay/replay.h"
#include "traffic/traffic_log.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ratelab::app::advising {

// WindowGoal is --cap and --origin met among a window product's rows (window_goals.h); none
// without either.
using WindowGoal = std::optional<WindowChoice>;

// windowGoal derives the cap and measures the origin at each row, and moves the recommendation
// when the goals ask it.
WindowGoal windowGoal(const AdviseArgs& a, const KeyedTraces& traces, const KeptKeys& keys,
                      const std::vector<WindowRowModel>& models, const std::vector<DenialCount>& denied,
                      std::size_t recommended, const std::string& product,
                      const std::function<std::string(std::size_t)>& rowText);

// goalColumns head the goals' columns of a table of windows: the cap's, the origin's ("" without).
std::string goalColumns(const AdviseArgs& a);

// goalCells is a row's figures in those columns.
std::string goalCells(const AdviseArgs& a, const WindowGoal& goal, std::size_t row);

// goalsText is the goals as a row meets them: "one key gets through at most 60 in any 60 s and at
// most 30 reach the origin in any 1 s of the log".
std::string goalsText(const AdviseArgs& a);

// windowReason says why the recommendation is the row it is: the product's usual choice (`usual`),
// meeting the goals (with its figures), or the goals' when they moved it from `usualPoint`, which
// it names with its figures.
std::string windowReason(const AdviseArgs& a, const WindowGoal& goal, const std::string& usual,
                         const std::string& usualPoint, std::size_t usualRow);

// writeWindowGoalsJson adds a row's figures under the goals to its JSON object.
void writeWindowGoalsJson(std::ostream& out, const WindowGoal& goal, std::size_t row);

// writeWindowRecommendedJson adds the goals to the recommendation's JSON object.
void writeWindowRecommendedJson(std::ostream& out, const AdviseArgs& a, const WindowGoal& goal);

// writeRowsJson writes a window product's rows (`name`: "windows", "limiters"), each by `point`
// (which opens its object) with its figures under the goals, then the recommendation with the
// goals and the keys denied most.
template <typename Row, typename Point>
void writeRowsJson(std::ostream& out, const char* name, const std::vector<Row>& rows, const Row& recommended, Point point,
                   const WindowGoal& goal, const AdviseArgs& args, const std::vector<KeyDenials>& worst, const Traffic& traffic)
{
    out << " \"" << name << "\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out << (i ? ",\n  " : "\n  ");
        point(rows[i]);
        writeWindowGoalsJson(out, goal, i);
        out << "}";
    }
    out << "],\n \"recommended\": ";
    point(recommended);
    writeWindowRecommendedJson(out, args, goal);
    out << ", ";
    writeTopKeys(out, worst, traffic);
    out << "},\n";
}

// writeWindowsHead heads the table of a windowed product's windows (Kong's, express-rate-limit's).
void writeWindowsHead(std::ostream& out, const std::string& window, const AdviseArgs& a);

// writeWindowRow is a row of that table: the window, its limit, what it denies, the goals' cells
// (goalCells).
void writeWindowRow(std::ostream& out, const std::string& window, std::int64_t limit, const DenialCount& denied,
                    bool recommended, const std::string& origin);

} // namespace ratelab::app::advising
