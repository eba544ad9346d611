// The speed targets, as ratios that travel: each is a figure of one `bench --json` run against a
// bound, most of them in floors of the same run (docs/performance.md, "Targets"). Judged on the
// run's JSON, they can be read off a saved run as well as a fresh one.
#pragma once

#include <QJsonObject>

#include <optional>
#include <string>
#include <vector>

namespace ratelab::app {

struct BenchTarget {
    std::string figure; // a dotted path in the JSON ("drag.frame_floor_ratio")
    std::string what;   // what it says, for the table ("a drag frame at 1M, in floors")
    double bound = 0;
    bool atMost = true; // the figure must be <= bound (else >= bound)
};

// benchTargets is the table of targets, in the order they are shown.
const std::vector<BenchTarget>& benchTargets();

struct TargetCheck {
    BenchTarget target;
    bool measured = false;       // false: the run has no such figure (an older run)
    std::optional<double> value; // absent when measured: null in the run (a drag that showed no frame)
    bool met() const { return value && (target.atMost ? *value <= target.bound : *value >= target.bound); }
};

// checkTargets judges one run's figures against every target.
std::vector<TargetCheck> checkTargets(const QJsonObject& run);

// targetsText is the table: "met"/"MISSED" per target, then "N of M met".
std::string targetsText(const std::vector<TargetCheck>& checks);

} // namespace ratelab::app
