#include "traffic/traffic_warnings.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

#include <algorithm>

namespace ratelab {

std::vector<std::string> trafficWarnings(const Traffic& t)
{
    std::vector<std::string> w;
    if (!t.firstLineCut.empty())
        w.push_back("line 1 skipped: it does not read as " + std::string(logFormatId(t.format)) + " (" + t.firstLineCut
                    + "); a line cut short, as tail -c leaves it?");
    if (t.comments > 0)
        w.push_back(counted(t.comments, "comment line") + " (#...) skipped");
    if (t.wholeSeconds)
        w.push_back("the log's times are whole seconds: every second is one instant (all its requests arrive together)");
    if (t.unreadable > 0) {
        std::string lines;
        for (const LineError& e : t.firstErrors)
            lines += (lines.empty() ? "" : "; ") + std::string("line ") + std::to_string(e.line) + ": " + e.reason;
        w.push_back(counted(t.unreadable, "unreadable line") + " skipped (" + lines
                    + (t.unreadable > std::int64_t(t.firstErrors.size()) ? "; ..." : "") + ")");
    }
    if (!t.paths.empty() && !t.noPaths) { // paths kept, some requests without one
        std::int64_t none = 0;
        for (std::size_t p = 0; p < t.pathNames.size(); ++p)
            if (t.pathNames[p].empty())
                none = std::int64_t(std::count(t.paths.begin(), t.paths.end(), std::uint32_t(p)));
        if (none > 0)
            w.push_back(counted(none, "request") + " without a path, which no location or route of a config selects");
    }
    if (t.outOfOrder > 0)
        w.push_back(counted(t.outOfOrder, "request") + " logged after later ones (at most "
                    + formatSeconds(t.largestStepBack) + " s) were put in time order");
    return w;
}

} // namespace ratelab
