#include "replay/replay.h"

#include "arithmetic/decimal.h"
#include "engine/admitted_window.h"
#include "engine/clients.h"
#include "engine/engine.h"
#include "limiters/limiters.h"
#include "limiters/products/own_limit.h"
#include "scenario/rows.h"

#include <algorithm>
#include <type_traits>

namespace ratelab {

namespace {

constexpr std::size_t kCancelEvery = 1 << 16;

void checkCancel(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw ReplayCancelled{};
}

// clockFor is what a replay adds to a request's time (since the log's start) before a limiter of
// algorithm a decides it: the log's start since 1970 for one onTheClock.
Nanos clockFor(const Traffic& traffic, Algorithm a)
{
    return onTheClock(a) ? traffic.startEpochNanos : 0;
}

// run decides every request on its key's policy (one of `policies`, indexed by key id) and
// fills the row's counts; decide(policy, clock + t, cost) returns the Decision (clockFor).
template <typename P, typename Decide>
void run(const Traffic& traffic, std::vector<P>& policies, std::int64_t cost, Nanos windowNanos, ReplayRow& row,
         std::vector<std::uint8_t>* admitted, const std::atomic<bool>* cancel, Decide&& decide, Nanos clock = 0)
{
    const std::size_t n = traffic.times.size();
    const std::size_t keys = traffic.keyNames.size();
    row.deniedPerKey.assign(keys, 0);
    row.firstDenialPerKey.assign(keys, -1);
    if (admitted)
        admitted->assign(n, 0);
    AdmittedWindow window(windowNanos);
    const bool costs = !traffic.costs.empty() || cost != 1;
    for (std::size_t i = 0; i < n; ++i) {
        if (i % kCancelEvery == 0)
            checkCancel(cancel);
        const Nanos t = traffic.times[i];
        const std::uint32_t key = traffic.keys[i];
        const std::int64_t k = !costs ? 1 : traffic.costs.empty() ? cost : traffic.costs[i];
        const Decision d = decide(policies[key], clock + t, k);
        row.allowed += d.allowed;
        row.delayed += d.allowed && d.delay > 0;
        row.never += d.retryNever();
        if (!d.allowed) {
            if (row.deniedPerKey[key]++ == 0)
                row.firstDenialPerKey[key] = t;
        }
        if (admitted)
            (*admitted)[i] = d.allowed;
        row.maxInWindow = std::max(row.maxInWindow, window.add(t, d.allowed, k));
    }
    row.attempts = std::int64_t(n);
    row.denied = row.attempts - row.allowed;
    row.keysDenied = std::count_if(row.deniedPerKey.begin(), row.deniedPerKey.end(), [](std::int64_t d) { return d > 0; });
}

// onEngine replays through the engine's keyed store: the layers (one algorithm, or the policy's
// layers) placed as `place` says, each log key a client of its own. The setup is engineSetup's,
// so the rule of which row takes the limit changes is compare's.
void onEngine(const Traffic& traffic, const Scenario& s, std::size_t r, std::int64_t cost, Nanos windowNanos,
              ReplayRow& row, std::vector<std::uint8_t>* admitted, const std::atomic<bool>* cancel)
{
    checkCancel(cancel);
    // The engine's times are the scenario's, from its t = 0, with its limit changes and clocks
    // placed on them: moving them to 1970 would move all of that too.
    const std::vector<Layer> layers = s.layers.empty() ? std::vector<Layer>{{s.algorithms.front(), s.config}} : s.layers;
    for (const Layer& l : layers)
        if (clockFor(traffic, l.algorithm) != 0)
            throw InputError(std::string(algorithmId(l.algorithm))
                             + " counts on the clock's time, which a replay placed on the engine (a cluster, buckets that "
                               "start empty, limit changes) does not keep: replay it on one server, full, without limit changes");
    EngineSetup setup = engineSetup(s, r);
    setup.clients = ClientConfig::keyed(std::int64_t(traffic.keyNames.size()));
    const std::size_t n = traffic.times.size();
    std::vector<std::int64_t> costs(traffic.costs.begin(), traffic.costs.end());
    if (costs.empty() && cost != 1)
        costs.assign(n, cost);
    const std::vector<std::int64_t> keys(traffic.keys.begin(), traffic.keys.end());
    const RowRun engine = runRow(setup, {traffic.times, costs, keys});
    checkCancel(cancel);
    // No retries: the engine decided request i as attempt i, so the log reads like the fast path's.
    std::size_t i = 0;
    std::vector<Decision> decisions;
    decisions.reserve(n);
    for (const LoggedAttempt& a : engine.log)
        decisions.push_back(a.decision());
    const auto decide = [&](std::size_t&, Nanos, std::int64_t) { return decisions[i++]; };
    std::vector<std::size_t> one(traffic.keyNames.size());
    run(traffic, one, cost, windowNanos, row, admitted, nullptr, decide);
    row.held = engine.clients.total;
}

Scenario placedScenario(const ReplayPlace& place, const LimiterConfig& config)
{
    Scenario s;
    s.config = config;
    s.cluster = place.cluster;
    s.bucketsStartEmpty = place.startEmpty;
    s.changes = place.changes;
    s.pattern.seed = place.seed;
    return s;
}

} // namespace

ReplayPlace replayPlace(const Scenario& s)
{
    return {s.cluster, s.bucketsStartEmpty, s.changes, s.pattern.seed};
}

std::vector<std::int64_t> attemptsPerKey(const Traffic& traffic)
{
    std::vector<std::int64_t> out(traffic.keyNames.size(), 0);
    for (std::uint32_t k : traffic.keys)
        ++out[k];
    return out;
}

ReplayRow replayOne(const Traffic& traffic, Algorithm algorithm, const LimiterConfig& config, std::int64_t cost,
                    std::vector<std::uint8_t>* admitted, const std::atomic<bool>* cancel, const ReplayPlace& place)
{
    ReplayRow row;
    row.id = std::string(algorithmId(algorithm));
    row.algorithm = algorithm;
    row.predicted = memoryAtScale(algorithm, config, std::int64_t(traffic.keyNames.size()));
    // A product neither starts empty nor takes a limit change (AnyLimiter::retarget refuses it): only a
    // cluster, or a change to refuse, places it on the engine.
    if (place.cluster || !place.changes.empty() || (place.startEmpty && !isProduct(algorithm))) {
        Scenario s = placedScenario(place, config);
        s.algorithms = {algorithm};
        onEngine(traffic, s, 0, cost, ownLimit(algorithm, config).windowNanos, row, admitted, cancel);
        return row;
    }
    const bool costs = !traffic.costs.empty() || cost != 1;
    const Nanos window = ownLimit(algorithm, config).windowNanos; // a product given its options: its own
    const Nanos clock = clockFor(traffic, algorithm);
    visitLimiter(algorithm, config, [&](auto& fresh) {
        using L = std::decay_t<decltype(fresh)>;
        std::vector<L> limiters(traffic.keyNames.size(), fresh);
        if (costs)
            run(traffic, limiters, cost, window, row, admitted, cancel,
                [](L& l, Nanos t, std::int64_t k) { return l.decide(t, k); }, clock);
        else
            run(traffic, limiters, cost, window, row, admitted, cancel,
                [](L& l, Nanos t, std::int64_t) { return l.decide(t); }, clock);
        for (const L& l : limiters)
            row.held += l.memory();
    });
    return row;
}

ReplayRow replayLayered(const Traffic& traffic, const std::vector<Layer>& layers, Nanos windowNanos, std::int64_t cost,
                        std::vector<std::uint8_t>* admitted, const std::atomic<bool>* cancel, const ReplayPlace& place)
{
    ReplayRow row;
    row.id = "layered";
    if (place.onEngine()) {
        Scenario s = placedScenario(place, layers.front().config);
        s.algorithms.clear();
        s.layers = layers;
        onEngine(traffic, s, 0, cost, windowNanos, row, admitted, cancel);
    } else {
        std::vector<LayeredPolicy> policies(traffic.keyNames.size(), LayeredPolicy(layers, traffic.startEpochNanos));
        run(traffic, policies, cost, windowNanos, row, admitted, cancel,
            [](LayeredPolicy& p, Nanos t, std::int64_t k) { return p.decide(t, k); });
    }
    const auto keys = std::int64_t(traffic.keyNames.size());
    for (const Layer& l : layers)
        row.predicted += memoryAtScale(l.algorithm, l.config, keys);
    return row;
}

std::vector<ReplayRow> replay(const Traffic& traffic, const ReplayPolicy& policy, const std::atomic<bool>* cancel)
{
    std::vector<ReplayRow> rows;
    for (Algorithm a : policy.algorithms)
        rows.push_back(replayOne(traffic, a, policy.config, policy.cost, nullptr, cancel, policy.place));
    if (!policy.layers.empty())
        rows.push_back(replayLayered(traffic, policy.layers, policy.config.windowNanos(), policy.cost, nullptr, cancel,
                                     policy.place));
    return rows;
}

std::vector<KeyDenials> topKeys(const ReplayRow& row, std::size_t n)
{
    std::vector<KeyDenials> all;
    for (std::size_t k = 0; k < row.deniedPerKey.size(); ++k)
        if (row.deniedPerKey[k] > 0)
            all.push_back({std::uint32_t(k), row.deniedPerKey[k], row.firstDenialPerKey[k]});
    const auto before = [](const KeyDenials& a, const KeyDenials& b) {
        if (a.denied != b.denied)
            return a.denied > b.denied;
        if (a.firstDenial != b.firstDenial)
            return a.firstDenial < b.firstDenial;
        return a.key < b.key;
    };
    const std::size_t m = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + std::ptrdiff_t(m), all.end(), before);
    all.resize(m);
    return all;
}

} // namespace ratelab
