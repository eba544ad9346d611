// Two configs on one log (semantics.md, "A gateway's config on a log: dry runs"):
// every request admitted by both, denied by both, or denied by only one of them, and by which rule.
#pragma once

#include "replay/dry_run.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ratelab {

// DryRunCount is a number of requests and of distinct keys among them.
struct DryRunCount {
    std::int64_t requests = 0;
    std::int64_t keys = 0;
};

// DryRunDiffRow is one group of the requests one config denies and the other admits: a rule of
// the config that denies them, or an hour; sorted largest first.
struct DryRunDiffRow {
    std::string what;             // the rule's name, or the hour ("2026-11-23T13:00:00Z")
    std::int64_t onlyCurrent = 0; // denied by the current config only
    std::int64_t onlyProposed = 0;
};

// DryRunKeyChange is a key's requests denied by the proposed config only, and by the current only.
struct DryRunKeyChange {
    std::uint32_t key = 0;
    std::int64_t onlyProposed = 0;
    std::int64_t onlyCurrent = 0;
};

// DryRunDiff classifies every request of a log under two configs.
struct DryRunDiff {
    DryRunCount admittedByBoth, deniedByBoth, onlyCurrent, onlyProposed;
    std::vector<DryRunDiffRow> byCurrentRule;  // the requests only the current denies, by its rule
    std::vector<DryRunDiffRow> byProposedRule; // the requests only the proposed denies, by its rule
    std::vector<DryRunDiffRow> byHour;         // both kinds, by hour, most changed first
    std::vector<DryRunKeyChange> keys;         // every key with a change, most changed first
};

// diffDryRuns compares two dry runs of the same traffic.
DryRunDiff diffDryRuns(const Traffic& traffic, const DryRunConfig& current, const DryRunResult& a,
                       const DryRunConfig& proposed, const DryRunResult& b);

// diffSummary is the one-line summary: "your change denies 3,412 more requests of 41 keys and
// admits 12 it denied, of 3 keys; the 5 most affected: k1 (+310), ..." (a key logged empty is
// "the requests with no key").
std::string diffSummary(const Traffic& traffic, const DryRunDiff& diff, std::size_t most = 5);

} // namespace ratelab
