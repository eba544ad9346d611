#include "view/key_levels.h"

#include "limiters/any_limiter.h"
#include "limiters/nginx_limit_req.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <optional>

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

// busiest keeps the `most` lines with the most attempts (in index order), each carried on to
// `end`, and counts the others.
KeyLevels busiest(std::vector<Replay>& replays, Nanos end, std::size_t most, int samples)
{
    KeyLevels out;
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
        sampleUntil(r, end, endHanded, samples);
        if (end > r.lastT)
            r.line.points.push_back({end, levelAny(*r.limiter, endHanded)});
        out.lines.push_back(std::move(r.line));
    }
    std::sort(out.lines.begin(), out.lines.end(), [](const KeyLevel& x, const KeyLevel& y) { return x.index < y.index; });
    return out;
}

// racyStore replays a racy cluster's store (store.cpp): each admitted attempt's write lands a
// round trip after it (t + latency), handed the time its read was handed (the latest read clock
// so far), and is decided there on the store, which may refuse it (a node admitted on a stale
// read): the line shows what the store holds while the nodes admit past it.
KeyLevels racyStore(const EngineSetup& setup, const RowRun& run, std::span<const std::int64_t> costs, int samples)
{
    const ClusterConfig& cluster = *setup.cluster;
    const Nanos latency = cluster.latencyNanos();
    struct Write {
        Nanos t, handed; // decided at t on a read handed `handed`
        std::int64_t cost;
    };
    std::deque<Write> pending;
    Replay r;
    r.limiter = makeAnyLimiter(setup.layers.front().algorithm, layerConfig(setup, 0));
    r.line.name = "store";
    const LoggedAttempt& first = run.log[0];
    r.lastT = first.t;
    r.lastHanded = first.t + cluster.nodeOffset(first.node);
    r.line.points.push_back({r.lastT, levelAny(*r.limiter, r.lastHanded)});
    Nanos readLast = std::numeric_limits<Nanos>::min(), end = first.t;
    const auto land = [&](const Write& w) {
        const Nanos lands = w.t > kMaxNanos - latency ? kMaxNanos : w.t + latency;
        const Nanos handed = std::max(r.lastHanded, w.handed);
        sampleUntil(r, lands, handed, samples);
        r.line.points.push_back({lands, levelAny(*r.limiter, handed)});
        (void)decideAny(*r.limiter, handed, w.cost); // refused when a stale read let it through: no change
        r.line.points.push_back({lands, levelAny(*r.limiter, handed)});
        r.lastT = lands;
        r.lastHanded = handed;
        ++r.line.attempts;
        end = std::max(end, lands);
    };
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        for (; !pending.empty() && a.t - pending.front().t >= latency; pending.pop_front())
            land(pending.front());
        readLast = std::max(readLast, a.t + cluster.nodeOffset(a.node));
        if (a.allowed)
            pending.push_back({a.t, readLast, costs.empty() ? 1 : costs[std::size_t(a.request)]});
        end = std::max(end, a.t);
    }
    for (; !pending.empty(); pending.pop_front()) // the writes still in flight land after the last read
        land(pending.front());
    const Nanos endHanded = r.lastHanded + (end - r.lastT);
    sampleUntil(r, end, endHanded, samples);
    if (end > r.lastT)
        r.line.points.push_back({end, levelAny(*r.limiter, endHanded)});
    KeyLevels out;
    out.lines.push_back(std::move(r.line));
    return out;
}

// hybridNodes replays a hybrid cluster's nodes (store.cpp): each decides on its own copy and
// pushes its admissions to the store; at its first attempt after a sync tick k*sync the store
// takes every admission before the tick, and the node's copy becomes the store. Its line jumps
// to the store's level at that tick.
KeyLevels hybridNodes(const EngineSetup& setup, const RowRun& run, std::span<const std::int64_t> costs, std::size_t most,
                      int samples)
{
    const ClusterConfig& cluster = *setup.cluster;
    const Nanos sync = cluster.syncNanos();
    AnyLimiter fresh = makeAnyLimiter(setup.layers.front().algorithm, layerConfig(setup, 0));
    if (const auto* log = std::get_if<SlidingWindowLog>(&fresh)) // copied at every sync: shared, as the engine does
        fresh = SyncedLog(log->quota(), log->windowNanos());
    struct Admission {
        Nanos t, handed;
        std::int64_t cost;
    };
    std::deque<Admission> pending;
    AnyLimiter store = fresh;
    Nanos storeLast = std::numeric_limits<Nanos>::min(), end = 0;
    std::vector<Replay> nodes(std::size_t(cluster.nodes()));
    std::vector<std::int64_t> ticks(nodes.size(), 0);
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        Replay& r = nodes[a.node];
        const Nanos offset = cluster.nodeOffset(a.node);
        if (!r.limiter) {
            r.limiter = fresh;
            r.line.index = a.node;
            r.line.name = "node " + std::to_string(a.node + 1);
        }
        if (const std::int64_t tick = a.t / sync; tick != ticks[a.node]) {
            const Nanos boundary = tick * sync;
            for (; !pending.empty() && pending.front().t < boundary; pending.pop_front()) {
                storeLast = std::max(storeLast, pending.front().handed);
                (void)decideAny(store, storeLast, pending.front().cost);
            }
            if (!r.line.points.empty()) { // the node's own level up to the tick, then the store's
                const Nanos handed = std::max(r.lastHanded, boundary + offset);
                sampleUntil(r, boundary, handed, samples);
                r.line.points.push_back({boundary, levelAny(*r.limiter, handed)});
                r.lastT = boundary;
                r.lastHanded = std::max(storeLast, boundary + offset);
                r.line.points.push_back({boundary, levelAny(store, r.lastHanded)});
            }
            r.limiter = store;
            r.lastHanded = std::max(r.lastHanded, storeLast);
            ticks[a.node] = tick;
        }
        const Nanos handed = std::max(r.lastHanded, a.t + offset);
        sampleUntil(r, a.t, handed, samples);
        r.line.points.push_back({a.t, levelAny(*r.limiter, handed)});
        const std::int64_t cost = costs.empty() ? 1 : costs[std::size_t(a.request)];
        if (decideAny(*r.limiter, handed, cost).allowed != (a.allowed != 0))
            return {}; // a replay that parts from the engine would draw a wrong line: none
        if (a.allowed)
            pending.push_back({a.t, handed, cost});
        r.line.points.push_back({a.t, levelAny(*r.limiter, handed)});
        r.lastT = a.t;
        r.lastHanded = handed;
        ++r.line.attempts;
        end = std::max(end, a.t);
    }
    return busiest(nodes, end, most, samples);
}

} // namespace

KeyLevels keyLevels(const EngineSetup& setup, const RowRun& run, std::span<const std::int64_t> costs, std::size_t most,
                    int samplesPerGap)
{
    KeyLevels out;
    const ClusterConfig* cluster = setup.cluster ? &*setup.cluster : nullptr;
    const bool perClient = setup.clients && setup.clients->key() == KeyMode::Client && setup.clients->clients() > 1;
    // One limiter's row has its own line, unless it starts empty or changes its limit: the
    // row's replay knows neither, so its one line is drawn here.
    const bool single = !cluster && !perClient && (setup.startEmpty || !setup.changes.empty());
    if (setup.layers.size() != 1 || run.log.empty() || (cluster && perClient) || (!cluster && !perClient && !single))
        return out;
    const Coordination mode = cluster ? cluster->coordination() : Coordination::Local;
    const bool plainFleet = cluster && !perClient && !cluster->hasOutage() && !setup.startEmpty && setup.changes.empty();
    if (mode == Coordination::Racy && plainFleet)
        return racyStore(setup, run, costs, samplesPerGap);
    if (mode == Coordination::Hybrid && plainFleet && !cluster->hasAutoscale() && !cluster->hasMembership())
        return hybridNodes(setup, run, costs, most, samplesPerGap);
    const bool store = cluster && mode == Coordination::Shared;
    // An outage leaves a shared store as it was when nodes fail open or closed (their attempts
    // skip it); a local fallback holds levels of its own on each node: none drawn.
    if (cluster && (mode == Coordination::Racy || mode == Coordination::Hybrid
                    || (store && cluster->hasOutage() && cluster->options().fallback == Fallback::Local)))
        return out;
    const bool split = cluster && mode == Coordination::Split;
    AnyLimiter fresh = makeAnyLimiter(setup.layers.front().algorithm, layerConfig(setup, 0));

    std::vector<Replay> replays;
    Nanos end = 0;
    std::size_t nextChange = 0;
    std::size_t nextScale = 1; // run.scaling[0] is the start
    const auto offsetOf = [&](int key) { return cluster && !store ? cluster->nodeOffset(key) : Nanos(0); };
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        // Autoscaling: a node that comes up again is new from then on (its line restarts there).
        for (; cluster && !store && nextScale < run.scaling.size() && run.scaling[nextScale].first <= a.t; ++nextScale) {
            const auto [at, up] = run.scaling[nextScale];
            for (int key = run.scaling[nextScale - 1].second; key < up && std::size_t(key) < replays.size(); ++key) {
                Replay& r = replays[std::size_t(key)];
                if (!r.limiter)
                    continue;
                sampleUntil(r, at, std::max(r.lastHanded, at + offsetOf(key)), samplesPerGap);
                r.limiter = fresh;
                if (setup.startEmpty)
                    emptyAt(*r.limiter, at + offsetOf(key));
                r.lastHanded = at + offsetOf(key);
                r.line.points.push_back({at, levelAny(*r.limiter, r.lastHanded)});
                r.lastT = at;
            }
        }
        // A limit change: each line is drawn up to it under the old config, then keeps its state.
        for (; nextChange < setup.changes.size() && setup.changes[nextChange].first <= a.t; ++nextChange) {
            const auto& [at, config] = setup.changes[nextChange];
            const LimiterConfig c = split ? splitConfig(config, cluster->nodes()).withNginx(config.nginx()) : config;
            fresh = makeAnyLimiter(setup.layers.front().algorithm, c);
            for (std::size_t key = 0; key < replays.size(); ++key) {
                Replay& r = replays[key];
                if (!r.limiter)
                    continue;
                const Nanos handed = std::max(r.lastHanded, at + offsetOf(int(key)));
                sampleUntil(r, at, handed, samplesPerGap);
                if (at > r.lastT)
                    r.line.points.push_back({at, levelAny(*r.limiter, handed)});
                retargetAny(*r.limiter, c, handed);
                r.line.points.push_back({std::max(at, r.lastT), levelAny(*r.limiter, handed)});
                r.lastT = std::max(at, r.lastT);
                r.lastHanded = handed;
            }
        }
        end = std::max(end, a.t);
        if (store && cluster->storeDown(a.t))
            continue; // decided by the fallback: the store saw nothing
        const int key = store ? 0 : perClient ? a.client : a.node;
        if (std::size_t(key) >= replays.size())
            replays.resize(std::size_t(key) + 1);
        Replay& r = replays[std::size_t(key)];
        if (!r.limiter) {
            r.limiter = fresh;
            // New when it joined, or last came up (autoscaling), or at 0.
            Nanos since = cluster && !store ? cluster->joinedAt(key) : 0;
            for (std::size_t k = 1; cluster && !store && k < run.scaling.size() && run.scaling[k].first <= a.t; ++k)
                if (run.scaling[k - 1].second <= key && key < run.scaling[k].second)
                    since = run.scaling[k].first;
            if (setup.startEmpty) // new with no credit
                emptyAt(*r.limiter, since + offsetOf(key));
            if (cluster && cluster->hasAutoscale() && since < a.t) { // the line starts when the node came up
                r.line.points.push_back({since, levelAny(*r.limiter, since + offsetOf(key))});
                r.lastT = since;
                r.lastHanded = since + offsetOf(key);
            }
            r.line.index = key;
            r.line.name = single ? "level"
                          : store ? "store"
                                  : (perClient ? "client " : "node ") + std::to_string(key + (perClient ? 0 : 1));
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
    return busiest(replays, end, most, samplesPerGap);
}

AttemptBuckets attemptBuckets(const RowRun& run, Nanos from, Nanos to, int buckets)
{
    AttemptBuckets b;
    b.from = from;
    // A round width (1, 2 or 5 times a power of ten ns) of at least (to - from) / buckets, so a
    // bar's count per second reads as a round rate.
    const Nanos least = std::max<Nanos>(1, Nanos((Int128(to - from) + buckets - 1) / buckets));
    Nanos width = 1;
    for (Nanos decade = 1;; decade *= 10) {
        if (decade >= least) { width = decade; break; }
        if (2 * decade >= least) { width = 2 * decade; break; }
        if (5 * decade >= least) { width = 5 * decade; break; }
        if (decade > std::numeric_limits<Nanos>::max() / 100) { width = least; break; }
    }
    b.widthNanos = width;
    buckets = int(std::min<Int128>((Int128(to - from) + width - 1) / width, buckets));
    b.first.assign(std::size_t(buckets), 0);
    b.retries.assign(std::size_t(buckets), 0);
    for (std::size_t i = 0; i < run.log.size(); ++i) {
        const LoggedAttempt& a = run.log[i];
        if (a.t < from)
            continue;
        const Int128 k = Int128(a.t - from) / b.widthNanos;
        if (k >= buckets)
            continue;
        ++(a.attempt == 0 ? b.first : b.retries)[std::size_t(k)];
    }
    return b;
}

NginxWater nginxWater(const Trace& trace, std::size_t row, std::size_t first, std::size_t end)
{
    NginxWater water;
    const std::int64_t rate = nginxRateThousandths(trace.config.rate());
    constexpr Nanos kMs = 1'000'000;
    std::optional<std::pair<std::int64_t, std::int64_t>> held; // (thousandths after the admission, ms)
    const auto heldAt = [&](std::int64_t ms) {
        const std::int64_t drained = std::int64_t(Int128(rate) * (ms - held->second) / 1000);
        return std::max<std::int64_t>(0, held->first - drained);
    };
    const auto emptyAt = [&] { return held->second + (rate > 0 ? (held->first * 1000 + rate - 1) / rate : 0); };
    for (std::size_t i = first; i < end; ++i) {
        const Nanos t = trace.arrivals[i];
        const std::int64_t ms = t / kMs;
        const Decision d = decisionAt(trace, row, i);
        if (held) { // the drain up to this request, a vertex a millisecond
            const std::int64_t before = heldAt(ms);
            if (before == 0 && emptyAt() < ms)
                water.points.push_back({emptyAt() * kMs, 0});
            water.points.push_back({ms * kMs, double(before)});
            if (!d.allowed)
                water.leftovers.emplace_back(t, before);
        }
        if (d.allowed) {
            held = {std::llround(d.level * 1000) + 1000 * costOf(trace, i), ms};
            water.points.push_back({ms * kMs, double(held->first)});
        }
    }
    if (held) // the drain after the last, to empty
        water.points.push_back({emptyAt() * kMs, 0});
    return water;
}

} // namespace ratelab
