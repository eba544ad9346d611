// Rows: what the app draws for a scenario, one row per algorithm plus one for a layered policy,
// each decided the way the scenario asks (one server, a cluster, or clients that retry).
//
// `compare` writes each feature in its own shape (report.h); the app needs one: a row of
// decisions at times, which it reduces and draws. simulateRow fills an AlgorithmTrace with what
// its feature adds: a cluster row its nodes, a clients row its own attempt times, a layered row
// its title and the config its level replays with. The decisions are the very ones `compare`
// reports for the same scenario.
#pragma once

#include "engine/engine.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ratelab {

// RowInputs are a scenario's resolved requests: times, costs (empty: all 1) and, with clients,
// each request's client; with service=file each one's service time, with a priority column
// of words each one's class (1: critical), with one of numbers each one's throttle priority
// (NaN: the throttle's own). requests() is them as the engine takes them.
struct RowInputs {
    std::vector<Nanos> arrivals;
    std::vector<std::int64_t> costs;
    std::vector<std::int64_t> clientOf;
    std::vector<Nanos> services = {};
    std::vector<std::uint8_t> critical = {};
    std::vector<double> priorities = {};
    // firstServices, when given, are the server's first-attempt draws for these requests
    // (firstServiceDraws with the scenario's service and seed), shared by a pipeline's frames.
    std::shared_ptr<const std::vector<Nanos>> firstServices = {};

    EngineRequests requests() const
    {
        return {arrivals, costs, clientOf, services, critical, priorities,
                firstServices ? std::span<const Nanos>(*firstServices) : std::span<const Nanos>()};
    }
};

// rowCount returns how many rows the scenario shows: its algorithms, `layered`, then its
// concurrency limiters.
std::size_t rowCount(const Scenario& s);

// isLayeredRow is true for the row of the scenario's layered policy.
bool isLayeredRow(const Scenario& s, std::size_t r);
// gateRow returns the concurrency limiter (a gate spec) row r is, or nullptr for another row.
const GateSpec* gateRow(const Scenario& s, std::size_t r);

// checkScenario refuses, without generating a request, a scenario the rows could not simulate:
// durations past the largest Nanos (a layer's too), a pattern too large, a rate nginx cannot
// express when nginx_limit_req is shown, a named client past the clients, a split rate that
// cannot be held exactly. Every combination of features runs (the engine). It throws InputError.
void checkScenario(const Scenario& s);

// resolveRowInputs checks the scenario (checkScenario) and resolves its requests.
RowInputs resolveRowInputs(const Scenario& s);
// resolveRowInputs of a scenario about to go takes its explicit arrivals rather than copying
// them (a frame's million requests).
RowInputs resolveRowInputs(Scenario&& s);

// resolveClients returns each request's client, in resolveArrivals' order: the named client of
// an explicit arrival, else request i's round-robin client i mod K. Empty without clients.
std::vector<std::int64_t> resolveClients(const Scenario& s);

// simulateRow simulates row r (0 <= r < rowCount(s)) over the inputs. Rows are independent:
// callers may run several at once on different threads. A row the engine runs throws Cancelled
// once *cancel (when given) is set (runRow).
AlgorithmTrace simulateRow(const Scenario& s, const RowInputs& inputs, std::size_t r,
                           const std::atomic<bool>* cancel = nullptr);

// engineSetup returns what row r of the scenario runs: algorithm r as a policy of one layer, or
// (r == algorithms.size()) the scenario's layers; its cluster and clients; the scenario's seed.
// It is the one mapping of a scenario's row to the engine: the writers, the app, replay and the
// Redis check all run a row through it.
EngineSetup engineSetup(const Scenario& s, std::size_t r, bool headers = false);

// oneState is true when one limiter's state under one config decides every attempt of a row run
// with setup (boundHolds' rule for a setup already made).
bool oneState(const EngineSetup& setup);

// boundHolds is true when row r of s is bounded by its algorithm's worst case ("at most X in any
// T"): an algorithm row whose attempts one limiter's state decides under one config.
bool boundHolds(const Scenario& s, std::size_t r);

// rowId names row r in the output: the algorithm's id, a concurrency limiter's spec, or "layered".
std::string_view rowId(const Scenario& s, std::size_t r);

// isPlainRow is true for a row that is one limiter, with the trace's config, deciding the
// arrivals: what explain and headersAt replay.
bool isPlainRow(const AlgorithmTrace& row);

// needsEngine is true for a row the engine runs (rows.cpp's simulateRow): the layered row, and
// every row of a scenario with a cluster, clients, empty-starting buckets or limit changes. The
// others are one limiter over the arrivals, on the fast path.
bool needsEngine(const Scenario& s, std::size_t r);

// boundReach returns row r's bound "at most X in any T" and the window where its traffic (times
// t, costs one per request or empty for cost 1) came closest, in admitted units as the bound
// counts them, for a row one limiter decides (else none): a two-pointer scan, made with the
// simulation so a view only reads it. simulateRow sets AlgorithmTrace::bound with it.
std::optional<BoundReach> boundReach(const Scenario& s, std::span<const Nanos> t, std::span<const std::int64_t> costs,
                                     const AlgorithmTrace& row, std::size_t r);

// requestOf returns the request (arrival index) decision i of result `row` belongs to.
std::size_t requestOf(const Trace& trace, std::size_t row, std::size_t i);

// decisionOf returns the index in result `row` of request `request`'s first decision (its first
// attempt), or nullopt when it has none.
std::optional<std::size_t> decisionOf(const Trace& trace, std::size_t row, std::size_t request);

// describeRecorded words decision i of a row that is not plain from what was recorded: its
// node, its attempt and client, its verdict ("node 2 of 3 -> denied, retry in 0.5 s").
std::string describeRecorded(const Trace& trace, std::size_t row, std::size_t i);

} // namespace ratelab
