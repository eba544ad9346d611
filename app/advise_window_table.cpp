#include "advise_window_table.h"

#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"

namespace ratelab::app::advising {

namespace {

// The goals' columns' heads: the cap's, the origin's ("" without).
std::string capColumn(const AdviseArgs& a)
{
    return a.options.cap ? "most in " + formatSeconds(a.options.cap->window) + " s" : "";
}

std::string originColumn(const AdviseArgs& a)
{
    return a.options.origin ? "origin in " + formatSeconds(a.options.origin->most.window) + " s" : "";
}

} // namespace

WindowGoal windowGoal(const AdviseArgs& a, const KeyedTraces& traces, const KeptKeys& keys,
                      const std::vector<WindowRowModel>& models, const std::vector<DenialCount>& denied,
                      std::size_t recommended, const std::string& product,
                      const std::function<std::string(std::size_t)>& rowText)
{
    const WindowGoals goals{a.options.cap, a.options.origin};
    if (!goals.any())
        return std::nullopt;
    return chooseWindow(traces, keys, models, denied, recommended, goals, product, rowText);
}

std::string goalColumns(const AdviseArgs& a)
{
    const std::string cap = capColumn(a), origin = originColumn(a);
    return (cap.empty() ? "" : padded(cap, cap.size() + 2)) + (origin.empty() ? "" : padded(origin, origin.size() + 2));
}

std::string goalCells(const AdviseArgs& a, const WindowGoal& goal, std::size_t row)
{
    if (!goal)
        return "";
    return (goal->mostIn.empty() ? "" : padded(grouping(goal->mostIn[row]), capColumn(a).size() + 2))
           + (goal->origin.empty() ? "" : padded(grouping(goal->origin[row]), originColumn(a).size() + 2));
}

std::string goalsText(const AdviseArgs& a)
{
    const std::optional<WindowCap>& cap = a.options.cap;
    const std::string capped = cap ? "one key gets through at most " + grouping(cap->requests) + " in any "
                                         + formatSeconds(cap->window) + " s"
                                   : "";
    const std::string origin = a.options.origin ? originText(*a.options.origin) : "";
    return capped + (!capped.empty() && !origin.empty() ? " and " : "") + origin;
}

std::string windowReason(const AdviseArgs& a, const WindowGoal& goal, const std::string& usual,
                         const std::string& usualPoint, std::size_t usualRow)
{
    if (!goal)
        return usual;
    const std::optional<WindowCap>& cap = a.options.cap;
    const std::optional<OriginGoal>& origin = a.options.origin;
    // the usual recommendation's figures: "58 in any 60 s", "38 reach the origin in any 1 s of the log"
    const std::string most = cap ? grouping(goal->mostIn[usualRow]) + " in any " + formatSeconds(cap->window) + " s" : "";
    const std::string reached = origin ? grouping(goal->origin[usualRow]) + " reach the origin in any "
                                             + formatSeconds(origin->most.window) + " s of the log"
                                       : "";
    const std::string both = cap && origin ? " and " : "";
    if (!goal->moved)
        return usual + ", and with it " + (cap ? "one key gets through at most " + most + " (the cap " + grouping(cap->requests) + ")" : "")
               + both + (origin ? "at most " + reached + " (the goal " + grouping(origin->most.requests) + ")" : "");
    return "of the windows with which " + goalsText(a) + ", the one that denies the fewest requests; " + usualPoint
           + " would let " + (cap ? "one key through " + most : "") + both + reached;
}

void writeWindowGoalsJson(std::ostream& out, const WindowGoal& goal, std::size_t row)
{
    if (goal && !goal->mostIn.empty())
        out << ", \"most_in_window\": " << goal->mostIn[row];
    if (goal && !goal->origin.empty())
        out << ", \"origin_most_in_window\": " << goal->origin[row];
}

void writeWindowRecommendedJson(std::ostream& out, const AdviseArgs& a, const WindowGoal& goal)
{
    if (!goal)
        return;
    writeWindowGoalsJson(out, goal, goal->recommended);
    writeGoalsJson(out, a);
    out << ", \"moved_by_goals\": " << (goal->moved ? "true" : "false");
}

void writeWindowsHead(std::ostream& out, const std::string& window, const AdviseArgs& a)
{
    out << "the windows: for each, the least limit at which every request of the kept keys passes, and what it "
           "alone denies\n"
        << "  " << padded(window, 10, true) << padded("limit", 10) << padded("kept denied", 13)
        << padded("others denied", 15) << padded("keys denied", 13) << goalColumns(a) << "\n";
}

void writeWindowRow(std::ostream& out, const std::string& window, std::int64_t limit, const DenialCount& denied,
                    bool recommended, const std::string& origin)
{
    out << "  " << padded(window, 10, true) << padded(grouping(limit), 10) << padded(grouping(denied.kept), 13)
        << padded(grouping(denied.other), 15) << padded(grouping(denied.keys), 13) << origin
        << (recommended ? "  <- recommended" : "") << "\n";
}

} // namespace ratelab::app::advising
