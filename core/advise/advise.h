// A limit chosen from the traffic it will limit (docs/advise.md): which (rate, burst) lets every
// request of the least active keys through, and what it then costs the others.
//
// For a limiter of rate r and burst B (a leaky bucket: nginx's limit_req, and the products built
// like it), the least B that admits every request of one key is one pass over the key's requests:
// with no burst limit every request is admitted, so the state after each is the same as under
// any B that admits them all, and the least such B is the most that state ever reaches (the
// key's arrival envelope against the rate). The burst for a set of keys is the most any of them
// needs. The search below relies on one property of every BurstFamily, which the property test
// checks against a brute-force search on the product's own model: the burst a trace needs never
// grows as the rate grows (a faster drain leaves no more behind).
#pragma once

#include "arithmetic/nanos.h"
#include "arithmetic/rate.h"
#include "traffic/traffic_log.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// KeyTrace is one key's requests in time order: their times and costs (empty: each costs 1).
struct KeyTrace {
    std::span<const Nanos> times;
    std::span<const std::int64_t> costs;
    Nanos clock = 0; // the log's start since 1970, which a model onTheClock adds to each time

    std::int64_t cost(std::size_t i) const { return costs.empty() ? 1 : costs[i]; }
};

// deniedOn is how many of the trace's requests a fresh limiter (any model with decide(t, cost))
// denies: what every family's `denied` counts, on its own model. clock is added to each time: the
// log's start since 1970 for a model onTheClock (KeyTrace::clock), else 0.
template <typename L>
std::int64_t deniedOn(L& limiter, KeyTrace trace, Nanos clock = 0)
{
    std::int64_t out = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i)
        out += !limiter.decide(clock + trace.times[i], trace.cost(i)).allowed;
    return out;
}

// passedOn appends the arrival time of each request a fresh limiter admits: what every family's
// `passed` lists, on its own model, clock as deniedOn's. A request a product holds a moment before
// letting it through (Traefik's) counts when it arrives, as the dry run's busiest second counts it.
template <typename L>
void passedOn(L& limiter, KeyTrace trace, std::vector<Nanos>& out, Nanos clock = 0)
{
    for (std::size_t i = 0; i < trace.times.size(); ++i)
        if (limiter.decide(clock + trace.times[i], trace.cost(i)).allowed)
            out.push_back(trace.times[i]);
}

// BurstFamily is one product's limits of a rate and a whole burst: its rates are an increasing
// ladder of steps 1..maxStep() (the rates the product can write), each decided in the product's
// own arithmetic. Another product plugs into `advise` by being one.
class BurstFamily {
public:
    virtual ~BurstFamily() = default;
    virtual std::string product() const = 0;
    virtual std::int64_t maxStep() const = 0;
    // roundSteps: the steps people write (1, 2, 5, 10...), increasing: the rows of the front's table.
    virtual std::vector<std::int64_t> roundSteps() const = 0;
    // rate: the step's rate as written (exact); rateText: as the product writes it ("30r/m").
    virtual Rate rate(std::int64_t step) const = 0;
    virtual std::string rateText(std::int64_t step) const = 0;
    // burstNeeded: the least burst at which the step's rate admits every request of the trace;
    // non-increasing in step. It throws InputError when the product cannot hold that burst.
    virtual std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const = 0;
    // denied: how many requests of the trace a limit of (step, burst) denies.
    virtual std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const = 0;
    // passed appends to `out` the arrival time of each request the limit lets through.
    virtual void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const = 0;
    // mostIn: the most requests of cost 1 one key gets through in any window (t - T, t] of length
    // `window` at (step, burst), whatever it sends, from the product's own arithmetic (an upper
    // bound where the override says it is not always reached); INT64_MAX when the limit is off.
    // Never less at a higher step, nor at a higher burst among the bursts a step up to
    // topStep(floorBurst) needs (Spring's limit is off, INT64_MAX, at a burst under half a
    // second's tokens, which no such step needs). nullopt: no bound is derived for the product,
    // which `advise --cap` refuses.
    virtual std::optional<std::int64_t> mostIn(std::int64_t step, std::int64_t burst, Nanos window) const
    {
        return (void)step, (void)burst, (void)window, std::nullopt;
    }
    // topStep: the highest step worth writing once the kept keys' least burst at maxStep() is
    // known, at which they need no more than it; above it, rates the product writes as another
    // limit, or as none (Spring's: spring_advice.h).
    virtual std::int64_t topStep(std::int64_t floorBurst) const { return (void)floorBurst, maxStep(); }
};

// KeyedTraces is a log's requests grouped by key: key k's are [start[k], start[k + 1]), in time
// order. A key logged empty is not limited (keylessName): no limit keyed by it counts its requests;
// nor is a name of Traffic::keyNames no request is keyed by (another key field's value).
struct KeyedTraces {
    std::vector<std::size_t> start;
    std::vector<Nanos> times;
    std::vector<std::int64_t> costs; // empty when every request costs 1
    std::vector<std::uint8_t> limited;
    // mustPass: per key, whether every request of it must pass however many it sends (its name
    // matched keyedTraces' pattern); empty when none was given.
    std::vector<std::uint8_t> mustPass;
    // keptBy: per key, whether it is kept in place of the percentile of AdviceOptions::keep (the
    // keys the current config denies nothing: `advise --keep current`); empty: by the percentile.
    std::vector<std::uint8_t> keptBy;
    std::int64_t letBy = 0; // requests in no trace: the config lets them by uncounted (let_by.h)
    std::int64_t unrouted = 0; // and those no route of the config takes (let_by.h kUnrouted)
    std::vector<Nanos> letByTimes; // the times of both
    std::size_t letByMostKey = 0;     // the log key that sends most of them,
    std::int64_t letByMostRequests = 0; // and how many
    Nanos clock = 0; // Traffic::startEpochNanos

    std::size_t keys() const { return start.empty() ? 0 : start.size() - 1; }
    std::int64_t requests(std::size_t key) const { return std::int64_t(start[key + 1] - start[key]); }
    KeyTrace trace(std::size_t key) const;
};

// keyedTraces groups the traffic's requests by key (a counting sort: each key's stay in order).
// pass, when not empty, is an RE2 pattern: the limited keys whose whole name it matches are
// mustPass (`advise --pass`). It throws InputError when RE2 refuses the pattern or it matches no
// limited key (a pattern that keeps nothing is a mistake, not a goal).
// letBy, when not empty, marks (per request) the requests the config lets by uncounted (letByOf):
// they are in no key's trace.
KeyedTraces keyedTraces(const Traffic& traffic, const std::string& pass = {}, const std::vector<std::uint8_t>& letBy = {});

// checkPassPattern throws InputError ("--pass: ...") when RE2 refuses the pattern: a command
// refuses it before it reads the log.
void checkPassPattern(const std::string& pass);

// DenialCount is what a limit denies the limited keys: the kept keys' requests (0 by construction
// where the limit is advised, counted), the others', and the keys it denies at least one: what
// every product's advice says a limit costs.
struct DenialCount {
    std::int64_t kept = 0, other = 0, keys = 0;
    // mostDenied is the key denied most (of equal denials the one of more requests, then the
    // first): whose requests show the limit at work. None when no key is denied.
    std::optional<std::size_t> mostDenied;
};

// originMost is the most requests that reach the origin in any window (t - T, t] of the log under
// (step, burst): what the family lets through of the limited keys, the requests of keys logged
// empty and let by, and `elsewhere` (OriginGoal).
std::int64_t originMost(const KeyedTraces& traces, const BurstFamily& family, std::int64_t step, std::int64_t burst,
                        std::span<const Nanos> elsewhere, Nanos window);
// The same of any limit: `passed` appends the arrival times it lets through of one key's trace;
// unlimitedReach false: the requests of keys logged empty do not reach the origin (the written
// config refuses them before any limit: Kong's basic-auth).
std::int64_t originMost(const KeyedTraces& traces, const std::function<void(KeyTrace, std::vector<Nanos>&)>& passed,
                        std::span<const Nanos> elsewhere, Nanos window, bool unlimitedReach = true);

// shownKey is the key whose requests show a limit at work: the one it denies most
// (denied.mostDenied), or, when it denies none, the busiest limited key.
std::optional<std::size_t> shownKey(const KeyedTraces& traces, const DenialCount& denied);

// countDenials runs `denied` (a KeyTrace -> its denials) on every limited key; perKey, when
// given, receives each key's denials.
template <typename F>
DenialCount countDenials(const KeyedTraces& traces, const std::vector<std::uint8_t>& kept, F denied,
                         std::vector<std::int64_t>* perKey = nullptr)
{
    DenialCount out;
    std::int64_t most = 0;
    if (perKey)
        perKey->assign(traces.keys(), 0);
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (!traces.limited[k])
            continue;
        const std::int64_t n = denied(traces.trace(k));
        (kept[k] ? out.kept : out.other) += n;
        out.keys += n > 0;
        if (n > most || (n > 0 && n == most && traces.requests(k) > traces.requests(*out.mostDenied))) {
            most = n;
            out.mostDenied = k;
        }
        if (perKey)
            (*perKey)[k] = n;
    }
    return out;
}

// kPercentUnit is 100 % in the units AdviceOptions::keep is counted in: a percentage with nine
// decimals, as exact as a decimal typed on the command line (parseSeconds reads it the same way).
inline constexpr std::int64_t kPercentUnit = 100 * kNanosPerSecond;

// WindowCap is `advise --cap N/T`: the most requests one key may get through in any window
// (t - T, t], whatever it sends (for Envoy's one bucket: the whole log's).
struct WindowCap {
    std::int64_t requests = 1; // at least 1
    Nanos window = 1;          // at least 1 ns
};

// parseWindowCap reads "N/T": a whole number of requests, at least 1, then '/' and a window as
// parseDurationText reads it, a plain number in seconds ("600/1m", "20/1s", "5/0.5"). It throws
// InputError saying what is wrong.
WindowCap parseWindowCap(std::string_view text);

// OriginGoal is `advise --origin N/T`: at most `most.requests` of the log's requests reach the
// origin in any window (t - T, t] under the limit, measured on the log (a per-key limit promises
// nothing across keys), each at its arrival: the limited keys' requests it lets through, every request of a key logged
// empty or let by, and `elsewhere`, the log's requests no limit advised here sees (those a current
// config's rules do not meet), on the traces' clock.
struct OriginGoal {
    WindowCap most;
    std::vector<Nanos> elsewhere;
};

struct AdviceOptions {
    // keep: every request of the least active keys must pass: the keys with at most as many
    // requests as the keep-th percentile (nearest rank) of the limited keys' requests, so that
    // keys with equal counts are kept or not together. In (0, kPercentUnit].
    std::int64_t keep = kPercentUnit / 100 * 99;
    // drain: the recommendation is the least rate of the product's ladder whose burst drains
    // within this time at that rate (burst <= rate * drain). More than 0.
    Nanos drain = 10 * kNanosPerSecond;
    // cap, when set, is a bound the recommendation must meet (BurstFamily::mostIn): the
    // recommendation made without it when that meets it, else the least rate that meets it and
    // drains within `drain`, else the one that meets it and drains soonest (drainMet false).
    // advise throws InputError when no rate meets it.
    std::optional<WindowCap> cap;
    // origin, when set, is a goal the recommendation must meet too, measured at each row of the
    // front: the recommendation when it meets it, else the row of least rate that meets it (and
    // the cap) and drains in time, else the one meeting them that drains soonest. advise throws
    // InputError when no row meets it.
    std::optional<OriginGoal> origin;
};

// AdvicePoint is one (rate step, burst) and what it does on the log.
struct AdvicePoint {
    std::int64_t step = 0;
    std::int64_t burst = 0;
    DenialCount denied;
    std::optional<std::int64_t> origin; // with an origin goal: the most that reach the origin in its window
};

// KeptKeys is whose requests an advice must let through (keepKeys), of the log's keys.
struct KeptKeys {
    std::int64_t limitedKeys = 0, limitedRequests = 0;
    std::int64_t unlimitedRequests = 0; // requests of keys logged empty: no limit counts them
    std::int64_t unroutedRequests = 0;  // requests no route of the config takes (KeyedTraces::unrouted)
    std::int64_t letByRequests = 0;     // requests the config lets by uncounted (KeyedTraces::letBy),
    std::size_t letByMostKey = 0;       // the most of them from this key,
    std::int64_t letByMostRequests = 0; // this many
    std::int64_t keptKeys = 0, keptRequests = 0;
    std::int64_t keptMost = 0;          // the kept keys are those with at most this many requests (with
                                        // KeyedTraces::keptBy: the most of those it keeps),
    std::int64_t passedKeys = 0;        // and these more, kept as mustPass alone
    std::vector<std::uint8_t> kept;     // per key
};

struct Advice : KeptKeys {
    // front: the lowest round step for each burst the kept keys need, from step 1 until the burst
    // cannot fall further (the product's highest rate needs no less; top when no round step
    // below it does), with the recommendation in
    // its place among them (it may share a lower row's burst).
    std::vector<AdvicePoint> front;
    std::int64_t floorBurst = 0;        // the burst even the highest rate needs
    std::int64_t top = 0;               // the family's topStep for it: the highest step advised
    AdvicePoint recommended;
    bool movedByOrigin = false;         // the origin goal chose the recommendation (AdviceOptions::origin)
    bool drainMet = true;               // false: not even the ladder's top drains its burst in time (the floor's taken),
                                        // or with a cap, none that meets it does (the soonest to drain is taken)
    std::vector<std::int64_t> deniedPerKey; // per key, at the recommendation
};

// keepKeys marks the kept keys in `out` (its key counts, keptMost and kept): those with at most as
// many requests as the nearest-rank percentile `keep` of the limited keys' counts, and the keys
// that must pass (KeyedTraces::mustPass) however many they send. It throws InputError when no key
// is limited. Every product's advice keeps its keys by it.
void keepKeys(const KeyedTraces& traces, std::int64_t keep, KeptKeys& out);

// headerOfField is the request header a log field http_NAME holds (NAME in lower-case letters,
// digits and '_', each '_' a '-': http_x_api_key is x-api-key), or nullopt for any other field.
std::optional<std::string> headerOfField(const std::string& logKey);

// advise computes the front, the recommendation and its cost. It throws InputError when no key
// is limited.
Advice advise(const KeyedTraces& traces, const BurstFamily& family, const AdviceOptions& options);

} // namespace ratelab
