// Gate: a limit on the attempts in flight at the server (semantics.md, "The server behind the
// limiter"), a row of its own or the last layer of a policy. An attempt the rate layers admit is
// offered to the gate at its admission time: admitted (it goes on to the server), queued (held
// in the gate's own queues until a release lets it through) or rejected (a 503 without
// Retry-After). When an admitted attempt leaves the server (served, or dropped by a full queue or
// a queue timeout) the gate is told, and may let queued attempts through. A gate never reads a
// clock: every call is handed the time, and times do not decrease from one call to the next.
//
// Kinds (gates.cpp's table): fixed, aimd, vegas, gradient2 (Netflix concurrency-limits),
// envoy (adaptive_concurrency's gradient controller), bulkhead (cockatiel), apf (Kubernetes API
// Priority and Fairness, one priority level), stripe (Stripe's fleet-usage load shedder), none
// (no limit: the server alone).
#pragma once

#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

class Gate {
public:
    enum class Verdict : std::uint8_t { Admit, Queue, Reject };

    virtual ~Gate() = default;

    // advance runs what is due at or before t: an adaptive limit's own timers (Envoy's update
    // interval and minRTT windows). The engine calls it before offer and release at t.
    virtual void advance(Nanos t) { (void)t; }
    // offer decides attempt `id` (the engine's decision index, increasing) of client `client`,
    // reaching the gate at t.
    virtual Verdict offer(Nanos t, std::int64_t id, std::int64_t client) = 0;
    // classify tells the gate, just before offering attempt `id`, its request's priority class
    // from the arrivals file's priority column (the engine calls it only when the file has one).
    // Only a gate that reads the column keeps it (stripe with priority=file).
    virtual void classify(std::int64_t id, bool critical) { (void)id, (void)critical; }
    // release tells the gate that attempt `id`, which it admitted, left the server at t: served
    // (dropped false: its RTT sample is t minus its admission) or dropped (refused by a full
    // queue, timed out in the queue). The queued attempts this lets through are appended to
    // `dispatched`, in the order they go.
    virtual void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) = 0;
    // cancel tells the gate that the client of attempt `id`, which it holds in its own queue, gave
    // up on it at t (its timeout, a + T). It returns true when the gate will never let the attempt
    // through: it leaves the server stage at t unserved, and is not released. False (the default)
    // keeps it queued, to be let through and served late. A cancel frees no seat: it dispatches
    // nothing.
    virtual bool cancel(Nanos t, std::int64_t id)
    {
        (void)t, (void)id;
        return false;
    }
    // limit returns the most attempts in flight it admits now (seats for APF); kUnlimited for none.
    virtual std::int64_t limit() const = 0;
    // inflight returns the attempts it admitted that have not left the server.
    virtual std::int64_t inflight() const = 0;
    // queued returns the attempts held in its own queues.
    virtual std::int64_t queued() const { return 0; }

    static constexpr std::int64_t kUnlimited = INT64_MAX;
};

// GateOptions are a gate spec's "key=value" options, read by the kind's reader: each accessor
// takes one key (with its default when absent), and done() refuses the keys nobody took.
// Durations take units ("50ms", "1s"; a plain number is seconds); every refusal is an InputError
// naming the key.
class GateOptions {
public:
    explicit GateOptions(std::string kind, std::string_view list); // "a=1,b=2s"
    const std::string& kind() const { return m_kind; }
    Nanos duration(std::string_view key, Nanos fallback, bool positive = false);
    std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max);
    double real(std::string_view key, double fallback, double min, double max); // a decimal, exact to a double
    bool flag(std::string_view key, bool fallback);                              // true/false
    std::string word(std::string_view key, std::string_view fallback, std::initializer_list<std::string_view> known);
    // done throws InputError for a key no accessor took, naming the ones that were: "unknown key
    // 'backof' for aimd (known: initial_limit, backoff_ratio, ...)".
    void done() const;

private:
    const std::string* take(std::string_view key);
    std::string m_kind;
    std::map<std::string, std::string, std::less<>> m_values;
    std::vector<std::string> m_known;
};

// GateMaker builds a gate from options already read and checked, with the scenario's seed (the
// draws of a kind that has any, e.g. Envoy's jitter, Vegas' probe).
using GateMaker = std::function<std::unique_ptr<Gate>(std::uint64_t seed)>;

// GateRecipe is what a kind's reader makes of its options (it calls o.done() after the last
// key): the maker, and whether the gate sheds by the arrivals' priority column (stripe,
// priority=file), which the scenario checks against the arrivals file before anything runs.
struct GateRecipe {
    GateMaker make;
    bool readsPriorities = false;
};
using GateReader = GateRecipe (*)(GateOptions& o);

// findKind returns the entry of a kinds table (each with an `id`) named by spec "KIND[:options]"
// and sets `options` to what follows the colon; it throws InputError "unknown WHAT 'x' (known:
// ...)". GateSpec::parse and ClientThrottleSpec::parse read their specs through it.
template <typename K, std::size_t N>
const K& findKind(const K (&kinds)[N], std::string_view spec, std::string_view what, std::string_view& options)
{
    const auto colon = spec.find(':');
    const std::string_view id = spec.substr(0, colon);
    options = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
    for (const K& k : kinds)
        if (k.id == id)
            return k;
    std::string list;
    for (const K& k : kinds)
        list += (list.empty() ? "" : ", ") + std::string(k.id);
    throw InputError("unknown " + std::string(what) + " " + quoted(id) + " (known: " + list + ")");
}

// GateSpec is a spec "KIND[:key=value,...]" ("aimd", "gradient2:initial_limit=20",
// "envoy:interval=100ms") read once, where the scenario is built (a file, an option, a field):
// its options are checked then, and every run makes its gate from the values read. The text is
// kept as written, for files, reports and fields; two specs are equal when their texts are.
class GateSpec {
public:
    GateSpec() = default; // empty: no gate at all (the kind "none" is a gate: the server alone)
    // parse throws InputError for an unknown kind (naming the known ones) or option.
    static GateSpec parse(std::string_view text);
    bool empty() const { return m_text.empty(); }
    const std::string& text() const { return m_text; }
    bool readsPriorities() const { return m_recipe.readsPriorities; }
    // make builds the gate; an empty spec has none to build (std::bad_function_call).
    std::unique_ptr<Gate> make(std::uint64_t seed) const { return m_recipe.make(seed); }
    friend bool operator==(const GateSpec& a, const GateSpec& b) { return a.m_text == b.m_text; }

private:
    std::string m_text;
    GateRecipe m_recipe;
};

// gateKinds lists the kinds GateSpec::parse knows, in the order Help lists them.
std::vector<std::string_view> gateKinds();

} // namespace ratelab
