#include "advise/window_goals.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "limiters/worst_case.h"

#include <algorithm>

namespace ratelab {

std::optional<std::int64_t> windowRowMostIn(const WindowRowModel& row, Nanos window)
{
    std::optional<std::int64_t> most;
    for (const auto& [length, count] : row.counts) {
        const std::int64_t bound = *worstCaseBound(Algorithm::FixedWindow, LimiterConfig::make(count, length), window);
        most = most ? std::min(*most, bound) : bound;
    }
    return most;
}

namespace {

// refuse throws the goals' refusal: the cap's when no row meets it, else the origin's among the
// rows within the cap.
[[noreturn]] void refuse(const WindowChoice& c, const WindowGoals& goals, const std::string& product,
                         const std::function<std::string(std::size_t)>& rowText)
{
    const std::size_t rows = std::max(c.mostIn.size(), c.origin.size());
    const auto withinCap = [&](std::size_t r) { return !goals.cap || c.mostIn[r] <= goals.cap->requests; };
    const std::string must = "no " + product + " window lets every request that must pass through and ";
    if (goals.cap && std::none_of(c.mostIn.begin(), c.mostIn.end(), [&](std::int64_t m) { return m <= goals.cap->requests; })) {
        const auto least = std::size_t(std::min_element(c.mostIn.begin(), c.mostIn.end()) - c.mostIn.begin());
        throw InputError("--cap: " + must + "one key through at most " + grouping(goals.cap->requests) + " in any "
                         + formatSeconds(goals.cap->window) + " s; the least any lets one key through is "
                         + grouping(c.mostIn[least]) + " (" + rowText(least) + ")");
    }
    std::optional<std::size_t> fewest;
    for (std::size_t r = 0; r < rows; ++r)
        if (withinCap(r) && (!fewest || c.origin[r] < c.origin[*fewest]))
            fewest = r;
    const std::string within = goals.cap ? " within the cap" : "";
    throw InputError("--origin: " + must + "at most " + grouping(goals.origin->most.requests) + " reach the origin in any "
                     + formatSeconds(goals.origin->most.window) + " s of this log" + within + "; the fewest any" + within
                     + " lets through is " + grouping(c.origin[*fewest]) + " (" + rowText(*fewest) + ")");
}

} // namespace

WindowChoice chooseWindow(const KeyedTraces& traces, const KeptKeys& keys, const std::vector<WindowRowModel>& rows,
                          const std::vector<DenialCount>& denied, std::size_t recommended, const WindowGoals& goals,
                          const std::string& product, const std::function<std::string(std::size_t)>& rowText)
{
    WindowChoice out;
    out.recommended = recommended;
    for (const WindowRowModel& row : rows) {
        if (goals.cap)
            out.mostIn.push_back(windowRowMostIn(row, goals.cap->window).value());
        if (goals.origin)
            out.origin.push_back(
                originMost(traces, row.passed, goals.origin->elsewhere, goals.origin->most.window, row.unlimitedReach));
    }
    const auto meets = [&](std::size_t r) {
        return (!goals.cap || out.mostIn[r] <= goals.cap->requests) && (!goals.origin || out.origin[r] <= goals.origin->most.requests);
    };
    if (meets(recommended))
        return out;
    const auto lost = [&](std::size_t r) { return denied[r].kept + denied[r].other; };
    std::optional<std::size_t> chosen;
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (meets(r) && (!chosen || lost(r) < lost(*chosen)))
            chosen = r;
    if (!chosen)
        refuse(out, goals, product, rowText);
    out.recommended = *chosen;
    out.moved = true;
    countDenials(traces, keys.kept, rows[*chosen].denied, &out.deniedPerKey);
    return out;
}

} // namespace ratelab
