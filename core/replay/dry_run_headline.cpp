// What a dry run says of itself: whether every rule was replayed, its headline, the rules and
// parts it could not replay, and the keys each rule denied most.
#include "replay/dry_run.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

#include <algorithm>

namespace ratelab {

std::size_t replayedRules(const DryRunConfig& config)
{
    return std::size_t(std::count(config.mapped.begin(), config.mapped.end(), true));
}

namespace {

// notReplayedText says how many rules and parts were not replayed, and the first reason.
std::string notReplayedText(const DryRunConfig& config)
{
    const std::size_t rules = config.rules.size(), missing = rules - replayedRules(config);
    std::string out = grouping(std::int64_t(missing)) + " of " + counted(std::int64_t(rules), "rule") + " not replayed";
    if (!config.notReplayed.empty())
        out += ", " + counted(std::int64_t(config.notReplayed.size()), "part") + " named in not_replayed (the first: "
               + config.notReplayed.front() + ")";
    return out;
}

} // namespace

std::vector<std::uint32_t> topDeniedKeys(const DryRunRuleReport& rep, std::size_t top)
{
    std::vector<std::uint32_t> keys;
    for (std::size_t k = 0; k < rep.deniedPerKey.size(); ++k)
        if (rep.deniedPerKey[k] > 0)
            keys.push_back(std::uint32_t(k));
    const std::size_t m = std::min(top, keys.size());
    std::partial_sort(keys.begin(), keys.begin() + std::ptrdiff_t(m), keys.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (rep.deniedPerKey[a] != rep.deniedPerKey[b])
            return rep.deniedPerKey[a] > rep.deniedPerKey[b];
        if (rep.firstDenialPerKey[a] != rep.firstDenialPerKey[b])
            return rep.firstDenialPerKey[a] < rep.firstDenialPerKey[b];
        return a < b;
    });
    keys.resize(m);
    return keys;
}

bool dryRunComplete(const DryRunConfig& config)
{
    return config.notReplayed.empty() && replayedRules(config) == config.rules.size();
}

std::string dryRunHeadline(const DryRunConfig& config, const DryRunResult& result, std::int64_t requests)
{
    const std::string counts = "denied " + grouping(result.denied) + " of " + grouping(requests) + " requests";
    const std::size_t replayed = replayedRules(config);
    if (config.notReplayed.empty() && replayed == config.rules.size())
        return counts + "; every rule replayed";
    return "NOT COMPLETE: " + notReplayedText(config) + "; the " + counted(std::int64_t(replayed), "replayed rule") + " " + counts;
}

std::string dryRunRefusal(const DryRunConfig& config)
{
    if (replayedRules(config) > 0)
        return {};
    return "no rule of the config can be replayed on this log: " + notReplayedText(config);
}

namespace {

// everyPath: the place's path matcher meets every path (nginx's and Envoy's prefix "/", Kong's
// route of no path or "/", Spring's "/**").
bool everyPath(const DryRunPlace& p)
{
    const bool prefix = p.match == DryRunMatch::Prefix || p.match == DryRunMatch::PrefixStop
                        || p.match == DryRunMatch::PrefixRaw || p.match == DryRunMatch::SegmentPrefix;
    return (prefix && (p.pattern.empty() || p.pattern == "/")) || (p.match == DryRunMatch::Pattern && p.pattern == "/**");
}

// readsTheTarget: a condition tests the path, its query or the target as logged.
bool readsTheTarget(const DryRunCondition& c)
{
    using S = DryRunCondition::Subject;
    return c.subject == S::Path || c.subject == S::Query || c.subject == S::Target;
}

// keyReadsTheTarget: a map's source or one of its values is the target ($request_uri).
bool keyReadsTheTarget(const DryRunKeyMap& m)
{
    using K = DryRunKeyText::Kind;
    bool reads = m.from.kind == K::Target || m.fallback.kind == K::Target;
    for (const DryRunKeyMap::Entry& e : m.entries)
        reads = reads || e.value.kind == K::Target;
    return reads;
}

} // namespace

std::string dryRunPathProblem(const DryRunConfig& config, const Traffic& traffic)
{
    if (!traffic.noPaths)
        return {};
    const std::string none = ", and the log has none (a path or request field; --path-field names another)";
    for (const DryRunPlace& p : config.places) {
        if (!everyPath(p))
            return "its " + p.where + " selects requests by path" + none;
        for (const DryRunCondition& c : p.conditions)
            if (readsTheTarget(c))
                return "its " + p.where + " tests the request's path or query" + none;
    }
    for (const DryRunRule& r : config.rules)
        if (r.keyIs == DryRunRule::Key::Target)
            return "its " + r.name + " keys by the request's target ($request_uri)" + none;
    for (const DryRunKeyMap& m : config.keyMaps)
        if (keyReadsTheTarget(m))
            return "its " + m.name + " reads the request's target ($request_uri)" + none;
    return {};
}

} // namespace ratelab
