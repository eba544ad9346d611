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
//     "added": ["2.5", ...],           (requests sent by hand, merged in)
//     "cost": 3, "costs": [1, 5, ...],  (every request's cost; per explicit arrival)
//     "nginx": {"burst": 20, "nodelay": true, "delay": 0},
//     "layers": ["token_bucket:limit=10,window=10,capacity=100,rate=10", ...],
//     "cluster": {"nodes": 2, "balancer": "round_robin", "coordination": "racy", "latency": "0.05",
//                 "sync": "0.1", "skew": "0", "outage": {"from": "1", "to": "2", "fallback": "open"},
//                 "autoscale": {"min": 1, "max": 4, "scale_at": "5"}, "joins": ["1@0.5"], "leaves": [...]},
//     "clients": {"clients": 20, "key": "client", "retry": "backoff", "retry_delay": "0",
//                 "max_retries": 3, "backoff_base": "0.1", "backoff_cap": "10", "jitter": "equal",
//                 "cohorts": ["19:backoff", "1:immediate"]},
//     "client_of": [0, 3, ...]         (each explicit arrival's client)
//     "traffic_log": ":/traffic/api-day.log.gz"  (the log `replay` and `sweep` read by default)
//   }
//
// The production fields (cost to client_of) are written only when they are not the default, so
// a scenario without them reads as before. Each key of "cluster" and "clients" is read and
// written through the settings codec (core/scenario/settings_codec.h), as the command line's
// options are: the same names, texts, checks and reasons. The cluster's and clients' random
// draws use the pattern's seed, the scenario's one seed.
//
// A file is refused, with a one-line message that names what is wrong, when it is not JSON, is of
// another format or a newer version, has a field of the wrong type, or a value out of range (each
// value goes through core's parsers and LimiterConfig::make, and what will be simulated through
// generateArrivals' checks). A missing field takes its default, and each default applied is
// reported in LoadResult::notes: "version", "algorithms", "limit", "window", "capacity", "rate",
// "pattern" (unless "arrivals" replaces it) and the pattern fields its kind reads. "title",
// "lesson", "arrivals", "added" and the production fields are optional. Unknown fields are ignored and reported (typos).
#pragma once

#include "scenario/scenario.h"

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
