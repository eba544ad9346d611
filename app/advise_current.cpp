#include "advise_current.h"

#include "dry_run_command.h"

#include "arithmetic/text.h"
#include "arithmetic/decimal.h"

#include <string_view>
#include <unordered_map>

namespace ratelab::app {

namespace {

// keptDenials counts the requests of kept keys (per log key) a dry run denied.
std::int64_t keptDenials(const Traffic& traffic, const DryRunResult& result, const std::vector<std::uint8_t>& kept)
{
    std::int64_t out = 0;
    for (std::size_t i = 0; i < traffic.times.size(); ++i)
        out += kept[traffic.keys[i]] && result.deniedBy[i] >= 0;
    return out;
}

} // namespace

void compareWithCurrent(AgainstCurrent& current, const Traffic& traffic, const DryRunConfig& written,
                        const DryRunResult& writtenResult, const std::vector<std::uint8_t>& kept, std::size_t top)
{
    current.result = dryRunOnTraffic(current.config, traffic, current.file);
    current.diff = diffDryRuns(traffic, current.config, current.result, written, writtenResult);
    current.keptRequests = 0;
    for (std::uint32_t k : traffic.keys)
        current.keptRequests += kept[k];
    current.keptDenied = keptDenials(traffic, current.result, kept);
    current.adviceKeptDenied = keptDenials(traffic, writtenResult, kept);
    current.headline = dryRunHeadline(current.config, current.result, std::int64_t(traffic.times.size()));
    current.summary = diffSummary(traffic, current.diff, top);
    current.part.clear();
    const std::int64_t limited = writtenResult.rules.empty() ? 0 : writtenResult.rules[0].requests;
    for (std::size_t r = 0; r < current.config.rules.size() && r < current.result.rules.size(); ++r)
        if (const std::int64_t met = current.result.rules[r].requests; met > 0 && met < limited)
            current.part += (current.part.empty() ? "" : "; ") + current.config.rules[r].name + ", " + grouping(met)
                            + " of the " + counted(limited, "request");
}

void writeCurrentText(std::ostream& out, const AgainstCurrent& c)
{
    out << "\nagainst the current config (" << c.file << "): " << c.headline << "\n"
        << (c.part.empty() ? std::string()
                           : "  its rules meet fewer requests than the advice limits: " + c.part + "\n")
        << (c.shared ? "  it denies " + grouping(c.keptDenied) + " of the " + counted(c.keptRequests, "request")
                           + " advised on"
                     : "  it denies the kept keys " + grouping(c.keptDenied) + " of their " + counted(c.keptRequests, "request")
                           + (c.letBy ? " (those let by among them)" : ""))
        << "; the advice denies " << (c.shared ? "" : "them ") << grouping(c.adviceKeptDenied) << "\n"
        << "  " << c.summary << "\n";
}

void writeCurrentJson(std::ostream& out, const AgainstCurrent& c)
{
    const auto count = [](const DryRunCount& n) {
        return "{\"requests\": " + std::to_string(n.requests) + ", \"keys\": " + std::to_string(n.keys) + "}";
    };
    out << " \"current\": {\"file\": " << jsonString(c.file) << ", \"headline\": "
        << jsonString(c.headline)
        << ", \"complete\": " << (dryRunComplete(c.config) ? "true" : "false") << ", \"denied\": " << c.result.denied
        << ", \"kept_requests\": " << c.keptRequests << ", \"kept_denied\": " << c.keptDenied
        << ", \"advice_kept_denied\": " << c.adviceKeptDenied << ", \"part\": " << jsonString(c.part) << ", \"only_current\": " << count(c.diff.onlyCurrent)
        << ", \"only_advised\": " << count(c.diff.onlyProposed) << ", \"summary\": "
        << jsonString(c.summary) << "},\n";
}

std::vector<std::uint8_t> keysLeftWhole(const std::vector<std::int32_t>& deniedBy, const Traffic& traffic)
{
    std::vector<std::uint8_t> whole(traffic.keyNames.size(), 0), denied(traffic.keyNames.size(), 0);
    for (std::size_t i = 0; i < deniedBy.size(); ++i) {
        whole[traffic.keys[i]] = 1;
        denied[traffic.keys[i]] |= std::uint8_t(deniedBy[i] >= 0);
    }
    for (std::size_t k = 0; k < whole.size(); ++k)
        whole[k] &= std::uint8_t(!denied[k]);
    return whole;
}

std::vector<std::uint8_t> byName(const std::vector<std::uint8_t>& perKey, const Traffic& from, const Traffic& to)
{
    std::unordered_map<std::string_view, std::size_t> index;
    for (std::size_t k = 0; k < from.keyNames.size(); ++k)
        index.emplace(from.keyNames[k], k);
    std::vector<std::uint8_t> out(to.keyNames.size(), 0);
    for (std::size_t k = 0; k < to.keyNames.size(); ++k)
        if (const auto it = index.find(to.keyNames[k]); it != index.end())
            out[k] = perKey[it->second];
    return out;
}

} // namespace ratelab::app
