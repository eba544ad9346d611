// The one table of what each command takes of a Scenario (docs/commands.md prints it).
//
// Every command starts from the one Scenario. A part it cannot run is refused up front, naming
// the part and the command, never dropped: takeScenario is the one gate every command (the CLI's
// and the app's) passes its scenario through before it runs anything.
#pragma once

#include "scenario/scenario.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// ScenarioPart is a part of a Scenario that a command takes or refuses as a whole.
enum class ScenarioPart : std::uint8_t {
    Traffic,        // the pattern or the explicit arrivals, with requests sent by hand and their costs
    Layers,         // a layered policy
    ProductOptions, // --product-option values a product model reads
    Cluster,        // nodes, a balancer, a coordination, membership, autoscaling
    StoreOutage,    // a cluster's store going down (a part of its own: only the store modes have it)
    Clients,        // clients that retry
    Throttle,       // a client throttle (Bottleneck, p-queue) each client runs before it sends
    BucketsStartEmpty,
    LimitChanges,
    Server,         // the server behind the limiter and its concurrency limiters
};
inline constexpr std::array<ScenarioPart, 10> kAllScenarioParts = {
    ScenarioPart::Traffic,     ScenarioPart::Layers,  ScenarioPart::ProductOptions,
    ScenarioPart::Cluster,     ScenarioPart::StoreOutage, ScenarioPart::Clients, ScenarioPart::Throttle,
    ScenarioPart::BucketsStartEmpty, ScenarioPart::LimitChanges, ScenarioPart::Server};

// ScenarioCommand is a command (or app action) that runs a Scenario.
enum class ScenarioCommand : std::uint8_t {
    Compare,      // ratelab compare (the engine), ratelab export and the app's rows: everything
    CompareRedis, // ratelab compare --backend redis and File > Check against Redis
    Replay,       // ratelab replay: an access log per key
    Sweep,        // ratelab sweep: replay at every point of a grid
    Nginx,        // ratelab nginx: the limit_req lines of the policy
    DryRun,       // ratelab replay --config SCENARIO: the log through the scenario's one policy
};
inline constexpr std::array<ScenarioCommand, 6> kAllScenarioCommands = {
    ScenarioCommand::Compare, ScenarioCommand::CompareRedis, ScenarioCommand::Replay, ScenarioCommand::Sweep,
    ScenarioCommand::Nginx,   ScenarioCommand::DryRun};

// Taking is how a command treats a part: it runs it, something else stands in its place (the log
// is the traffic of replay and sweep; nginx's lines are configuration, not traffic), or it
// refuses it.
enum class Taking : std::uint8_t { Runs, Replaced, Refuses };

// PartTaking is one cell of the table: how, and in words why when it is not Runs.
struct PartTaking {
    Taking taking = Taking::Runs;
    std::string_view why; // "a log already holds its retries"
};

// scenarioPartName names a part as a refusal says it ("clients", "limit changes").
std::string_view scenarioPartName(ScenarioPart p);
// scenarioCommandName names a command as a user types it after `ratelab` ("replay").
std::string_view scenarioCommandName(ScenarioCommand c);

// partTaking returns the table's cell for a command and a part.
PartTaking partTaking(ScenarioCommand c, ScenarioPart p);

// scenarioParts lists the parts a scenario has, in kAllScenarioParts order. Traffic is always
// there (a scenario always has a pattern, or arrivals in its place).
std::vector<ScenarioPart> scenarioParts(const Scenario& s);

// takeScenario throws InputError for the first part of s that command c refuses, naming the
// command, the part and why ("replay: the scenario's clients cannot be replayed: a log already
// holds its retries").
void takeScenario(const Scenario& s, ScenarioCommand c);

// refusalText is the message takeScenario throws for a refused cell.
std::string refusalText(ScenarioCommand c, ScenarioPart p);

// noLuaScript returns why algorithm a has no Lua script (nginx's module, a product's own code), or
// an empty string: the one rule `lua`, `--server-clock` and the Redis backend refuse by.
std::string noLuaScript(Algorithm a);

// refusedThroughRedis returns why the Redis backend cannot run the scenario, or an empty string:
// the one list of what is still refused, worded the same on the command line and in the app.
std::string refusedThroughRedis(const Scenario& s);

} // namespace ratelab
