#include "scenario/scenario_parts.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab {

namespace {

constexpr PartTaking kRuns{};

// What replay and sweep (a log per key, on the engine's keyed store) cannot take, in the same
// words for both.
constexpr PartTaking kLogIsTheTraffic{Taking::Replaced, "the log is the traffic"};
constexpr PartTaking kLogHasRetries{Taking::Refuses, "a log already holds its retries"};
constexpr PartTaking kLogWasSent{Taking::Refuses, "a log's requests were sent already, as the clients' throttle let them"};
// What a dry run (the log through the policy as the products keep it: one place, each key full at
// its first request, one config) cannot take; replay runs them all on the engine.
constexpr PartTaking kDryRunReplayIt{Taking::Refuses, "a dry run keeps each key's policy in one place, as the product "
                                                      "does; replay the log with --scenario for it"};

// kTable is the table: kTable[command][part], in the enums' order. docs/commands.md shows it and
// tst_scenario_parts checks every cell against what the command does.
constexpr PartTaking kTable[kAllScenarioCommands.size()][kAllScenarioParts.size()] = {
    // Compare (the engine): everything combines.
    {kRuns, kRuns, kRuns, kRuns, kRuns, kRuns, kRuns, kRuns, kRuns, kRuns},
    // CompareRedis: one atomic script a decision, one config a run.
    {kRuns, kRuns, kRuns, kRuns,
     {Taking::Refuses, "a store outage is modelled, not run: the Redis backend's store stays up"},
     kRuns, kRuns,
     {Taking::Refuses, "a new Redis key starts full; buckets that start empty are not run through Redis"},
     {Taking::Refuses, "the scripts take one config a run; limit changes are not run through Redis"},
     {Taking::Refuses, "Redis decides the limits; the server behind them is modelled in compare without --backend redis"}},
    // Replay: the log is the traffic, every key its own state of the policy, placed as compare's.
    {kLogIsTheTraffic, kRuns, kRuns, kRuns, kRuns, kLogHasRetries, kLogWasSent, kRuns, kRuns,
     {Taking::Refuses, "a log's requests were served already; run the server on its arrivals with 'ratelab compare'"}},
    // Sweep: replay at every point; the grid varies one policy of one layer.
    {kLogIsTheTraffic,
     {Taking::Refuses, "the grid varies one algorithm's limit, window, capacity or rate; replay the layers with "
                       "'ratelab replay'"},
     kRuns, kRuns, kRuns, kLogHasRetries, kLogWasSent, kRuns,
     {Taking::Refuses, "a change would replace the limit the grid varies; replay the changes with 'ratelab replay'"},
     {Taking::Refuses, "a log's requests were served already; run the server on its arrivals with 'ratelab compare'"}},
    // Nginx: the lines of one limit_req zone; traffic is not configuration.
    {{Taking::Replaced, "the lines are configuration: nginx meets the traffic"},
     {Taking::Refuses, "the lines are one limit_req zone, not several layers"},
     {Taking::Refuses, "the lines are nginx's own limit_req, not another product's"},
     {Taking::Refuses, "each nginx keeps its own zone: the lines cannot say how nodes share one"},
     {Taking::Refuses, "each nginx keeps its own zone: there is no store to go down"},
     kRuns, // clients are traffic: nginx answers them as the lines say
     kRuns, // and so is what their throttle lets through
     {Taking::Refuses, "nginx's zone starts every key full"},
     {Taking::Refuses, "the lines hold one rate and burst; a change is a reload with other lines"},
     {Taking::Refuses, "nginx's limit_req is no concurrency limit; the server behind it is not configuration"}},
    // DryRun: the log through the scenario's policy, as --config runs a product's.
    {kLogIsTheTraffic, kRuns, kRuns, kDryRunReplayIt, kDryRunReplayIt, kLogHasRetries, kLogWasSent,
     {Taking::Refuses, "a dry run starts each key full at its first request, as the products do; replay the log "
                       "with --scenario for it"},
     {Taking::Refuses, "a dry run replays one config; replay the log with --scenario for the changes"},
     {Taking::Refuses, "a log's requests were served already; run the server on its arrivals with 'ratelab compare'"}},
};

std::string_view verb(ScenarioCommand c)
{
    switch (c) {
    case ScenarioCommand::Compare:
    case ScenarioCommand::CompareRedis: return "run";
    case ScenarioCommand::Replay: return "replayed";
    case ScenarioCommand::Sweep: return "swept";
    case ScenarioCommand::Nginx: return "written as nginx lines";
    case ScenarioCommand::DryRun: return "dry-run";
    }
    return "run";
}

} // namespace

std::string_view scenarioPartName(ScenarioPart p)
{
    switch (p) {
    case ScenarioPart::Traffic: return "traffic";
    case ScenarioPart::Layers: return "layers";
    case ScenarioPart::ProductOptions: return "product options";
    case ScenarioPart::Cluster: return "cluster";
    case ScenarioPart::StoreOutage: return "store outage";
    case ScenarioPart::Clients: return "clients";
    case ScenarioPart::Throttle: return "client throttle";
    case ScenarioPart::BucketsStartEmpty: return "buckets that start empty";
    case ScenarioPart::LimitChanges: return "limit changes";
    case ScenarioPart::Server: return "server";
    }
    return "?";
}

std::string_view scenarioCommandName(ScenarioCommand c)
{
    switch (c) {
    case ScenarioCommand::Compare: return "compare";
    case ScenarioCommand::CompareRedis: return "compare --backend redis";
    case ScenarioCommand::Replay: return "replay";
    case ScenarioCommand::Sweep: return "sweep";
    case ScenarioCommand::Nginx: return "nginx";
    case ScenarioCommand::DryRun: return "replay --config";
    }
    return "?";
}

PartTaking partTaking(ScenarioCommand c, ScenarioPart p) { return kTable[std::size_t(c)][std::size_t(p)]; }

std::vector<ScenarioPart> scenarioParts(const Scenario& s)
{
    std::vector<ScenarioPart> parts{ScenarioPart::Traffic};
    if (!s.layers.empty())
        parts.push_back(ScenarioPart::Layers);
    if (!s.config.productOptions().empty())
        parts.push_back(ScenarioPart::ProductOptions);
    if (s.cluster)
        parts.push_back(ScenarioPart::Cluster);
    // An outage is a part only where there is a store to go down (local and split keep none).
    if (s.cluster && s.cluster->hasOutage() && s.cluster->coordination() != Coordination::Local
        && s.cluster->coordination() != Coordination::Split)
        parts.push_back(ScenarioPart::StoreOutage);
    if (s.clients)
        parts.push_back(ScenarioPart::Clients);
    if (!s.throttle.empty())
        parts.push_back(ScenarioPart::Throttle);
    if (s.bucketsStartEmpty)
        parts.push_back(ScenarioPart::BucketsStartEmpty);
    if (!s.changes.empty())
        parts.push_back(ScenarioPart::LimitChanges);
    if (s.server)
        parts.push_back(ScenarioPart::Server);
    return parts;
}

std::string refusalText(ScenarioCommand c, ScenarioPart p)
{
    return std::string(scenarioCommandName(c)) + ": the scenario's " + std::string(scenarioPartName(p)) + " cannot be "
           + std::string(verb(c)) + ": " + std::string(partTaking(c, p).why);
}

void takeScenario(const Scenario& s, ScenarioCommand c)
{
    for (ScenarioPart p : scenarioParts(s))
        if (partTaking(c, p).taking == Taking::Refuses)
            throw InputError(refusalText(c, p));
}

std::string noLuaScript(Algorithm a)
{
    if (a == Algorithm::NginxLimitReq)
        return "nginx_limit_req has no Lua script: it is nginx's own module";
    if (std::find(kAllAlgorithms.begin(), kAllAlgorithms.end(), a) == kAllAlgorithms.end())
        return std::string(algorithmId(a)) + " has no Lua script: RateLab models the product's own code";
    return {};
}

std::string refusedThroughRedis(const Scenario& s)
{
    if (s.cluster && s.cluster->coordination() != Coordination::Shared)
        return "Redis runs coordination shared (one atomic script a decision); this scenario is "
               + std::string(coordinationId(s.cluster->coordination()));
    for (ScenarioPart p : scenarioParts(s)) // the parts the table refuses (scenario_parts.h)
        if (const PartTaking t = partTaking(ScenarioCommand::CompareRedis, p); t.taking == Taking::Refuses)
            return std::string(t.why);
    for (Algorithm a : s.algorithms)
        if (std::string why = noLuaScript(a); !why.empty())
            return why;
    for (const Layer& l : s.layers)
        if (std::string why = noLuaScript(l.algorithm); !why.empty())
            return "a layer: " + why;
    return {};
}

} // namespace ratelab
