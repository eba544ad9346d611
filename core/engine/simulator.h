// The simulator's results and its one-pass fast path: what a row reports (AlgorithmTrace, its
// Metrics), a scenario's rows together (Trace), and one limiter deciding the arrivals
// (simulateOne, decideStream). A scenario's rows are run by simulateRow (rows.h): a plain row
// here, every other row through the engine (runRow, engine.h).
//
// Same inputs, same decisions, always: nothing here reads a clock or keeps state between calls.
// Widgets and the CLI observe the trace; they never decide anything themselves.
#pragma once

#include "engine/attempt_log.h"
#include "limiters/config.h"
#include "limiters/any_limiter.h"
#include "arithmetic/nanos.h"
#include "arithmetic/threads.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <span>
#include <vector>

namespace ratelab {

// Metrics is what a comparison reports per algorithm.
struct Metrics {
    std::int64_t allowed = 0;
    std::int64_t denied = 0;
    std::int64_t delayed = 0;     // admitted with a delay > 0 (the queue)
    std::int64_t maxInWindow = 0; // most admissions in any interval (s - W, s]
    double overshoot = 0;         // maxInWindow / limit
    Memory memory;                // state held per key at the end
    // With request costs (Trace::costs not empty):
    std::int64_t allowedCost = 0; // units admitted: the sum of the admitted requests' costs
    std::int64_t never = 0;       // denied requests that no wait would admit (cost above L or C)
};

struct ClientStats;
struct EngineRow;

// Verdict is what the strip draws of a decision: its lane.
enum class Verdict : std::uint8_t { Admitted = 0, Delayed = 1, Denied = 2 };

// verdictOf returns the lane of a decision: denied, admitted after a delay, or admitted at once.
inline Verdict verdictOf(const Decision& d)
{
    // Without a branch (the verdicts are unpredictable): Denied is 2, Delayed 1, Admitted 0.
    return static_cast<Verdict>(2 * int(!d.allowed) + int(d.allowed & (d.delay > 0)));
}

// Checkpoints are a row's limiter as it stood before every `interval`-th request: states[k] is
// the state before request k * interval. Any decision is replayed from the one before it, in at
// most `interval` steps (microseconds), so a row need not keep its decisions.
struct Checkpoints {
    std::size_t interval = 4096;
    std::vector<AnyLimiter> states;
};

// BoundReach is a row's worst case beside its traffic: at most `atMost` in any window of
// `windowNanos`, the most the traffic had admitted in one (`reached`), in (closestEnd - T, closestEnd].
struct BoundReach {
    std::int64_t atMost = 0, reached = 0;
    Nanos windowNanos = 0, closestEnd = 0;
};

// RowKind says what made a row, so no reader guesses it from which fields are empty: one limiter
// deciding the arrivals (every flag false), or the engine's general loop (rows.h), whose decisions
// may be clients' attempts, come from a cluster's nodes, or be a layered policy's.
struct RowKind {
    bool attempts = false; // one decision per attempt, at `times` (clients); else one per arrival
    bool cluster = false;  // each decision made by one of `nodes`
    bool layered = false;  // the layered policy; `levelConfig` is its first layer's
    // oneLimiter reports whether one limiter decided every arrival, with the scenario's config.
    bool oneLimiter() const { return !attempts && !cluster && !layered; }
};

struct AlgorithmTrace {
    Algorithm algorithm = Algorithm::FixedWindow;
    RowKind kind;
    // Either every decision, or (a compact row, simulated for drawing) only their verdicts and
    // the checkpoints to replay any one from: decisionAt reads both kinds.
    std::vector<Decision> decisions;        // one per arrival (per attempt when `times` is set)
    std::vector<Verdict> verdicts;          // compact: one per arrival, `decisions` empty; the engine: one per attempt
    std::shared_ptr<const Checkpoints> checkpoints; // compact: where decisions are replayed from
    Metrics metrics;

    // A row of the app that is not one limiter deciding the arrivals adds (rows.h):
    std::string title;                        // not empty: the row's name ("Layered policy")
    std::optional<LimiterConfig> levelConfig; // the config its level replays with (layered: the first layer's)
    bool levelReplayable = true;              // false: no one limiter holds its state (many nodes or keys)
    std::vector<Nanos> times;                 // one per decision when not the arrivals (clients: the attempts)
    std::vector<std::uint8_t> nodes;          // cluster: the node of each decision
    std::vector<std::int64_t> perNodeAllowed; // cluster: admitted per node
    std::shared_ptr<const ClientStats> clients; // clients: their statistics (the attempts are the log)
    std::vector<std::int64_t> previousAttempt;   // clients: the decision this retry follows (-1: a first attempt)
    std::shared_ptr<const EngineRow> engine;     // a row the engine ran: its setup and log (headers)
    const ChunkedLog<LoggedAttempt>* log = nullptr; // a row the engine ran: engine's log, read in place
    std::optional<BoundReach> bound;             // a row one limiter decides: its worst case (rows.cpp)
};

// Trace is a scenario's rows over its requests (rows.h): what the app reduces and draws.
struct Trace {
    LimiterConfig config;
    std::vector<Nanos> arrivals;
    std::vector<AlgorithmTrace> results; // one per row: the algorithms in order, then `layered`
    std::vector<std::int64_t> costs;     // one per arrival; empty when every request costs 1
};

// WindowLookback holds, for each arrival, how many earlier arrivals lie inside its window
// (t - W, t]: what max_in_window looks back on. It depends on the arrivals and W alone, so a run
// makes one and every algorithm (on any thread) shares it: each then counts its admissions in a
// window with one subtraction a request, where walking the window's first request forward costs
// a mispredicted branch whenever a varying number of requests leave it.
struct WindowLookback {
    std::vector<std::uint16_t> back; // back[i]: arrivals in (t_i - W, t_i) before arrival i
    std::size_t ring = 1;            // a power of two above every back[i]
};

// kMaxLookback is the most earlier arrivals a window may hold for a WindowLookback to be made.
inline constexpr std::size_t kMaxLookback = 65534;

// makeWindowLookback returns the arrivals' lookback over windows of windowNanos, or nullptr when
// some window holds more than kMaxLookback earlier arrivals (each algorithm then walks its own).
// With Threads::Two a long one is made in halves on two threads (the same lookback).
std::shared_ptr<const WindowLookback> makeWindowLookback(std::span<const Nanos> arrivals, Nanos windowNanos,
                                                         Threads threads = Threads::One);

// simulateOne runs one algorithm over the arrivals (non-decreasing, non-negative) from a fresh
// state and measures the result: a plain row. Algorithms are independent, so callers may run
// several at once on different threads. costs, when not empty, holds one cost per arrival
// (1..kMaxCost).
// lookback, when given, is makeWindowLookback(arrivals, config.windowNanos()).
AlgorithmTrace simulateOne(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                           std::span<const std::int64_t> costs = {}, const WindowLookback* lookback = nullptr);

// DecisionSink receives decisions in order, a chunk at a time: decisions[k] is request first + k.
using DecisionSink = std::function<void(std::size_t first, std::span<const Decision> decisions)>;

// decideStream runs one algorithm over the arrivals from a fresh state, as simulateOne does, but
// hands the decisions to sink a chunk at a time and keeps none: it holds one byte a request (the
// verdicts max_in_window looks back on) and one chunk. It returns simulateOne's metrics.
Metrics decideStream(const LimiterConfig& config, Algorithm algorithm, std::span<const Nanos> arrivals,
                     std::span<const std::int64_t> costs, const DecisionSink& sink,
                     const WindowLookback* lookback = nullptr);

// timesOf returns the time of each decision of result `row`: its own times (attempts), or the arrivals.
inline const std::vector<Nanos>& timesOf(const Trace& trace, std::size_t row)
{
    const AlgorithmTrace& r = trace.results.at(row);
    return r.kind.attempts ? r.times : trace.arrivals;
}

// decisionCount returns how many decisions a result holds, compact or not.
inline std::size_t decisionCount(const AlgorithmTrace& r)
{
    return r.checkpoints ? r.verdicts.size() : r.log ? r.log->size() : r.decisions.size();
}

// verdictAt returns the lane of decision i of a result, compact or not.
inline Verdict verdictAt(const AlgorithmTrace& r, std::size_t i)
{
    if (!r.verdicts.empty()) // compact, or the engine's beside its log
        return r.verdicts.at(i);
    return verdictOf(r.log ? r.log->at(i).decision() : r.decisions.at(i));
}

// decisionAt returns decision i of result `row`: recorded, or replayed from its checkpoint.
Decision decisionAt(const Trace& trace, std::size_t row, std::size_t i);

// costOf returns request i's cost in a trace (1 when the trace has no costs).
inline std::int64_t costOf(const Trace& trace, std::size_t i) { return trace.costs.empty() ? 1 : trace.costs[i]; }

} // namespace ratelab
