// Scenario files: a whole scenario (settings, pattern or explicit arrivals, algorithms, title,
// lesson) as readable JSON, usually saved as NAME.ratelab.json.
//
// Times and rates are written as JSON strings of exact decimals ("0.000000001") or, for a rate
// that has no finite decimal, as a fraction ("3/7"), so a file reopens to the very same
// nanoseconds and the very same decisions. Numbers are accepted too when reading.
//
//   {
//     "format": "ratelab-scenario", "version": 1,
//     "title": "...", "lesson": "...",
//     "algorithms": ["fixed_window", ...],
//     "limit": 10, "window": "10", "capacity": 10, "rate": "1",
//     "pattern": {"kind": "uniform", "n": 15, "delay": "0.1", "start": "0", "size": 5,
//                 "period": "1", "lambda": "2", "seed": 1, "gap": "0.001"},
//     "arrivals": ["0", "0.1", ...],   (explicit times: replaces the pattern's requests)
//     "added": ["2.5", ...]            (requests sent by hand, merged in)
//   }
//
// A file is refused, with a one-line message that names what is wrong, when it is not JSON, is of
// another format or a newer version, has a field of the wrong type, or a value out of range (each
// value goes through core's parsers and LimiterConfig::make, and what will be simulated through
// generateArrivals' checks). A missing field takes its default, and each default applied is
// reported in LoadResult::notes: "version", "algorithms", "limit", "window", "capacity", "rate",
// "pattern" (unless "arrivals" replaces it) and the pattern fields its kind reads. "title",
// "lesson", "arrivals" and "added" are optional. Unknown fields are ignored and reported (typos).
#pragma once

#include "scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace ratelab::io {

inline constexpr int kScenarioFormatVersion = 1;
inline constexpr const char* kScenarioFormat = "ratelab-scenario";

struct LoadResult {
    std::optional<Scenario> scenario; // set when the input was accepted
    QString error;                    // why it was refused, one line; empty when accepted
    QStringList notes;                // defaults applied for missing fields
};

// parseScenario reads a scenario from JSON text. It never throws and accepts nothing it cannot
// simulate the way it was written: every value goes through core's own validation.
LoadResult parseScenario(const QByteArray& json);

// serializeScenario writes a scenario as indented JSON, times and rates exact.
QByteArray serializeScenario(const Scenario& s);

// saveScenario writes the scenario to path atomically (the old file stays whole until the new
// one is complete). It returns an empty string, or why the file could not be written.
QString saveScenario(const Scenario& s, const QString& path);

// loadScenarioFile reads and parses a file; errors name the file.
LoadResult loadScenarioFile(const QString& path);

} // namespace ratelab::io
