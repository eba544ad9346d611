#include "replay/dry_run_diff.h"

#include "arithmetic/text.h"

#include "arithmetic/decimal.h"
#include "traffic/traffic_log.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace ratelab {

namespace {


// grouped writes a sorted table: largest total first, then by name.
std::vector<DryRunDiffRow> sorted(std::vector<DryRunDiffRow> rows)
{
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const DryRunDiffRow& r) { return r.onlyCurrent + r.onlyProposed == 0; }),
               rows.end());
    std::stable_sort(rows.begin(), rows.end(), [](const DryRunDiffRow& x, const DryRunDiffRow& y) {
        return x.onlyCurrent + x.onlyProposed > y.onlyCurrent + y.onlyProposed;
    });
    return rows;
}

} // namespace

DryRunDiff diffDryRuns(const Traffic& traffic, const DryRunConfig& current, const DryRunResult& a,
                       const DryRunConfig& proposed, const DryRunResult& b)
{
    DryRunDiff d;
    const std::size_t keys = traffic.keyNames.size();
    std::vector<DryRunDiffRow> byCurrent(current.rules.size()), byProposed(proposed.rules.size());
    for (std::size_t r = 0; r < current.rules.size(); ++r)
        byCurrent[r].what = current.rules[r].name;
    for (std::size_t r = 0; r < proposed.rules.size(); ++r)
        byProposed[r].what = proposed.rules[r].name;
    std::map<std::int64_t, DryRunDiffRow> hours;
    std::vector<std::int64_t> onlyA(keys, 0), onlyB(keys, 0);
    std::vector<std::uint8_t> seen[4] = {std::vector<std::uint8_t>(keys), std::vector<std::uint8_t>(keys),
                                         std::vector<std::uint8_t>(keys), std::vector<std::uint8_t>(keys)};
    DryRunCount* counts[4] = {&d.admittedByBoth, &d.deniedByBoth, &d.onlyCurrent, &d.onlyProposed};
    for (std::size_t i = 0; i < traffic.times.size(); ++i) {
        const std::int32_t x = a.deniedBy[i], y = b.deniedBy[i];
        const int kind = x < 0 && y < 0 ? 0 : x >= 0 && y >= 0 ? 1 : x >= 0 ? 2 : 3;
        const std::uint32_t key = traffic.keys[i];
        ++counts[kind]->requests;
        if (!seen[kind][key]) {
            seen[kind][key] = 1;
            ++counts[kind]->keys;
        }
        if (kind < 2)
            continue;
        const std::int64_t hour = (traffic.startEpochNanos + traffic.times[i]) / kNanosPerHour;
        DryRunDiffRow& h = hours[hour];
        if (kind == 2) {
            ++byCurrent[std::size_t(x)].onlyCurrent;
            ++h.onlyCurrent;
            ++onlyA[key];
        } else {
            ++byProposed[std::size_t(y)].onlyProposed;
            ++h.onlyProposed;
            ++onlyB[key];
        }
    }
    d.byCurrentRule = sorted(std::move(byCurrent));
    d.byProposedRule = sorted(std::move(byProposed));
    std::vector<DryRunDiffRow> hourRows;
    for (auto& [hour, row] : hours) {
        row.what = formatEpoch(hour * kNanosPerHour);
        hourRows.push_back(row);
    }
    d.byHour = sorted(std::move(hourRows));
    for (std::size_t k = 0; k < keys; ++k)
        if (onlyA[k] || onlyB[k])
            d.keys.push_back({std::uint32_t(k), onlyB[k], onlyA[k]});
    std::stable_sort(d.keys.begin(), d.keys.end(), [](const DryRunKeyChange& x, const DryRunKeyChange& y) {
        return x.onlyProposed + x.onlyCurrent > y.onlyProposed + y.onlyCurrent;
    });
    return d;
}

std::string diffSummary(const Traffic& traffic, const DryRunDiff& diff, std::size_t most)
{
    if (diff.onlyCurrent.requests == 0 && diff.onlyProposed.requests == 0)
        return "your change denies the same requests: " + grouping(diff.deniedByBoth.requests) + " denied by both";
    const DryRunCount& more = diff.onlyProposed;
    const DryRunCount& fewer = diff.onlyCurrent;
    std::string out = "your change "
                      + (more.requests == 0 ? "denies no more requests"
                                            : "denies " + grouping(more.requests) + (more.requests == 1 ? " more request" : " more requests")
                                                  + " of " + counted(more.keys, "key"))
                      + (fewer.requests == 0 ? " and admits none it denied"
                                             : " and admits " + grouping(fewer.requests) + " it denied, of " + counted(fewer.keys, "key"))
                      + "; the " + std::to_string(std::min(most, diff.keys.size())) + " most affected: ";
    for (std::size_t i = 0; i < std::min(most, diff.keys.size()); ++i) {
        const DryRunKeyChange& k = diff.keys[i];
        const std::string& name = traffic.keyNames[k.key];
        out += (i ? ", " : "") + (name.empty() ? std::string("the requests with no key") : messageText(name)) + " (";
        if (k.onlyProposed)
            out += "+" + grouping(k.onlyProposed) + (k.onlyCurrent ? " " : "");
        if (k.onlyCurrent)
            out += "-" + grouping(k.onlyCurrent);
        out += ")";
    }
    return out;
}

} // namespace ratelab
