// `ratelab bench --compare OLD.json [NEW.json]`: the ratios of one bench run to another, so a
// regression shows in one sitting. Nanoseconds do not travel between machines; the
// ratio of two runs made back to back on one machine does.
#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace ratelab::app {

// BenchDelta is one figure of two bench runs: its dotted path ("drag.frames_per_s"), both values
// (absent where one run lacks it) and which way is better.
struct BenchDelta {
    std::string path;
    std::optional<double> before, after;
    bool higherIsBetter = false; // frames and lines a second; every other figure is a cost
    // ratio returns after / before, or nothing where either is absent or before is 0.
    std::optional<double> ratio() const;
    // verdict returns "faster" or "slower" where the ratio moves past kNoise the good or the bad
    // way, or "" within it.
    std::string verdict() const;
};

// kNoise is how far a ratio moves before a figure is called faster or slower: the bench's own
// run-to-run spread on a shared 2-core VM is about 10% (docs/performance.md).
inline constexpr double kNoise = 0.10;

// BenchComparison is every figure of two runs, sorted by path, and the parameters
// (request counts, nodes, threads) that differ, which make a ratio meaningless.
struct BenchComparison {
    std::vector<BenchDelta> figures;
    std::vector<std::string> differingParameters;
};

// compareBench pairs the numeric leaves of two `bench --json` objects by their dotted paths.
BenchComparison compareBench(const QJsonObject& before, const QJsonObject& after);

// readBenchJson reads a `bench --json` file; a missing, unreadable or non-JSON-object file is an
// error message naming it, returned in `error`.
std::optional<QJsonObject> readBenchJson(const QString& path, QString& error);

// shortNumber is a figure as the bench's tables print it: four significant digits ("0.8", "2.76e+05").
std::string shortNumber(double v);

// comparisonText prints the comparison as a table; comparisonJson as one JSON object
// {"figures": {path: {"before", "after", "ratio", "verdict"}}, "differing_parameters": [...]}.
std::string comparisonText(const BenchComparison& c);
std::string comparisonJson(const BenchComparison& c);

} // namespace ratelab::app
