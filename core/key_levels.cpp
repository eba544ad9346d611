#include "key_levels.h"

#include "any_limiter.h"

#include <algorithm>
#include <limits>

namespace ratelab {

namespace {

// Replay is one state's limiter as the engine held it, and its line so far.
struct Replay {
    std::optional<AnyLimiter> limiter;
    Nanos lastT = 0, lastHanded = std::numeric_limits<Nanos>::min();
    KeyLevel line;
};

// sampleUntil adds the level between r's last decision and (t, handed), exclusive.
void sampleUntil(Replay& r, Nanos t, Nanos handed, int samples)
{
    if (!r.limiter || r.line.points.empty() || t <= r.lastT)
        return;
    for (int j = 1; j < samples; ++j) {
        const Nanos at = r.lastT + Nanos((Int128(t - r.lastT) * j) / samples);
        const Nanos h = r.lastHanded + Nanos((Int128(handed - r.lastHanded) * j) / samples);
        r.line.points.push_back({at, levelAny(*r.limiter, h)});
    }
}

} // namespace

KeyLevels keyLevels(const EngineSetup& setup, const RowRun& run, std::span<const std::int64_t> costs, std::size_t most,
                    int samplesPerGap)
{
    KeyLevels out;
    const ClusterConfig* cluster = setup.cluster ? &*setup.cluster : nullptr;
    const bool perClient = setup.clients && setup.clients->key() == KeyMode::Client && setup.clients->clients() > 1;
    if (setup.layers.size() != 1 || run.log.empty() || (cluster && perClient) || (!cluster && !perClient))
        return out;
    const Coordination mode = cluster ? cluster->coordination() : Coordination::Local;
    if (cluster && (mode == Coordination::Racy || mode == Coordination::Hybrid || cluster->hasOutage()))
        return out;
    const bool store = cluster && mode == Coordination::Shared;
    const AnyLimiter fresh = makeAnyLimiter(setup.layers.front().algorithm, layerConfig(setup, 0));

    std::vector<Replay> replays;
    Nanos end = 0;
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        const int key = store ? 0 : perClient ? a.client : a.node;
        if (std::size_t(key) >= replays.size())
            replays.resize(std::size_t(key) + 1);
        Replay& r = replays[std::size_t(key)];
        if (!r.limiter) {
            r.limiter = fresh;
            r.line.index = key;
            r.line.name = store ? "store" : (perClient ? "client " : "node ") + std::to_string(key + (perClient ? 0 : 1));
        }
        const Nanos clock = a.t + (cluster ? cluster->nodeOffset(a.node) : 0);
        const Nanos handed = std::max(r.lastHanded, clock);
        sampleUntil(r, a.t, handed, samplesPerGap);
        r.line.points.push_back({a.t, levelAny(*r.limiter, handed)});
        const std::int64_t cost = costs.empty() ? 1 : costs[std::size_t(a.request)];
        if (decideAny(*r.limiter, handed, cost).allowed != (a.allowed != 0))
            return {}; // a replay that parts from the engine would draw a wrong line: none
        r.line.points.push_back({a.t, levelAny(*r.limiter, handed)});
        r.lastT = a.t;
        r.lastHanded = handed;
        ++r.line.attempts;
        end = std::max(end, a.t);
    }
    // The busiest `most`, each line carried on to the last attempt of the row.
    std::vector<Replay*> used;
    for (Replay& r : replays)
        if (r.limiter)
            used.push_back(&r);
    std::stable_sort(used.begin(), used.end(), [](const Replay* x, const Replay* y) { return x->line.attempts > y->line.attempts; });
    for (std::size_t k = 0; k < used.size(); ++k) {
        if (k >= most) {
            ++out.others;
            continue;
        }
        Replay& r = *used[k];
        const Nanos endHanded = r.lastHanded + (end - r.lastT);
        sampleUntil(r, end, endHanded, samplesPerGap);
        if (end > r.lastT)
            r.line.points.push_back({end, levelAny(*r.limiter, endHanded)});
        out.lines.push_back(std::move(r.line));
    }
    std::sort(out.lines.begin(), out.lines.end(), [](const KeyLevel& x, const KeyLevel& y) { return x.index < y.index; });
    return out;
}

} // namespace ratelab
