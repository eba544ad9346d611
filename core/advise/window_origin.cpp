#include "advise/window_origin.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

namespace ratelab {

WindowOriginChoice chooseWindowForOrigin(const KeyedTraces& traces, const KeptKeys& keys,
                                         const std::vector<WindowRowModel>& rows, const std::vector<DenialCount>& denied,
                                         std::size_t recommended, const OriginGoal& goal, const std::string& product,
                                         const std::function<std::string(std::size_t)>& rowText)
{
    WindowOriginChoice out;
    out.recommended = recommended;
    for (const WindowRowModel& row : rows)
        out.origin.push_back(originMost(traces, row.passed, goal.elsewhere, goal.most.window));
    const auto meets = [&](std::size_t r) { return out.origin[r] <= goal.most.requests; };
    if (meets(recommended))
        return out;
    const auto lost = [&](std::size_t r) { return denied[r].kept + denied[r].other; };
    std::optional<std::size_t> chosen;
    std::size_t fewest = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        if (meets(r) && (!chosen || lost(r) < lost(*chosen)))
            chosen = r;
        if (out.origin[r] < out.origin[fewest])
            fewest = r;
    }
    if (!chosen)
        throw InputError("--origin: no " + product + " window lets every request that must pass through and at most "
                         + grouping(goal.most.requests) + " reach the origin in any " + formatSeconds(goal.most.window)
                         + " s of this log; the fewest any lets through is " + grouping(out.origin[fewest]) + " ("
                         + rowText(fewest) + ")");
    out.recommended = *chosen;
    out.moved = true;
    countDenials(traces, keys.kept, rows[*chosen].denied, &out.deniedPerKey);
    return out;
}

} // namespace ratelab
