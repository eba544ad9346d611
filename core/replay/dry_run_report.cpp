#include "replay/dry_run_report.h"

namespace ratelab {

std::string reportHeadline(const DryRunReport& report)
{
    const auto requests = std::int64_t(report.traffic->times.size());
    const DryRunSide& a = report.current;
    std::string headline = (report.proposed ? "current: " : "") + dryRunHeadline(a.config, a.result, requests);
    if (report.proposed)
        headline += "; proposed: " + dryRunHeadline(report.proposed->config, report.proposed->result, requests);
    return headline;
}

bool reportComplete(const DryRunReport& report)
{
    return dryRunComplete(report.current.config) && (!report.proposed || dryRunComplete(report.proposed->config));
}

} // namespace ratelab
