// A dry run's whole report, one config or two on one log (app/dry_run_command.cpp prints it as
// JSON or CSV; ui/window/webpage_report.cpp writes it as a web page): what each report says is
// computed here once.
#pragma once

#include "replay/dry_run.h"
#include "replay/dry_run_diff.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// DryRunSide is one config as run on the log.
struct DryRunSide {
    std::string file;
    DryRunConfig config;
    DryRunResult result;
};

// DryRunReport is a dry run (and, with a proposed config, the diff) on one traffic.
struct DryRunReport {
    std::string log;
    std::shared_ptr<const Traffic> traffic;
    std::vector<std::string> warnings; // what reading the log set aside or assumed
    std::size_t top = 10;              // keys listed per rule and in the diff
    DryRunSide current;
    std::optional<DryRunSide> proposed;
    std::optional<DryRunDiff> diff; // set with proposed
};

// reportHeadline is the report's first line: dryRunHeadline, or with a proposed config
// "current: ...; proposed: ...".
std::string reportHeadline(const DryRunReport& report);

// reportComplete: every config of the report is complete (dryRunComplete).
bool reportComplete(const DryRunReport& report);

} // namespace ratelab
