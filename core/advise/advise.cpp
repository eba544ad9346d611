#include "advise/advise.h"
#include "advise/let_by.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace ratelab {

namespace {

// KeptBurst is the burst the kept keys need at a step (the most any of them needs), each step
// computed once.
class KeptBurst {
public:
    KeptBurst(const KeyedTraces& traces, const BurstFamily& family, const std::vector<std::uint8_t>& kept)
        : m_traces(traces), m_family(family), m_kept(kept)
    {
    }

    std::int64_t operator()(std::int64_t step)
    {
        const auto it = m_known.find(step);
        if (it != m_known.end())
            return it->second;
        std::int64_t most = 0;
        for (std::size_t k = 0; k < m_traces.keys(); ++k)
            if (m_kept[k])
                most = std::max(most, m_family.burstNeeded(m_traces.trace(k), step));
        return m_known[step] = most;
    }

private:
    const KeyedTraces& m_traces;
    const BurstFamily& m_family;
    const std::vector<std::uint8_t>& m_kept;
    std::map<std::int64_t, std::int64_t> m_known;
};

using StepTest = std::function<bool(std::int64_t)>;

// lowestStep returns the least step in [lo, hi] that passes `test`, which passes at hi and, once
// it passes, at every higher step.
std::int64_t lowestStep(std::int64_t lo, std::int64_t hi, const StepTest& test)
{
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (test(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return hi;
}

// firstStep is lowestStep over [from, max] when the answer is likely low: it doubles until a
// step passes, then bisects, so a low answer costs few tests. 0 when not even max passes.
std::int64_t firstStep(std::int64_t from, std::int64_t max, const StepTest& test)
{
    std::int64_t lo = from, hi = from;
    while (!test(hi)) {
        if (hi == max)
            return 0;
        lo = hi + 1;
        hi = hi > max / 2 ? max : std::max(hi * 2, from + 1);
    }
    return lowestStep(lo, hi, test);
}

// pointAt measures a (step, burst) on every limited key; perKey, when given, receives each
// key's denials.
AdvicePoint pointAt(const KeyedTraces& traces, const BurstFamily& family, const Advice& a, std::int64_t step,
                    std::int64_t burst, std::vector<std::int64_t>* perKey = nullptr)
{
    const DenialCount d =
        countDenials(traces, a.kept, [&](KeyTrace trace) { return family.denied(trace, step, burst); }, perKey);
    return {step, burst, d, std::nullopt};
}

// recommend picks the least step whose burst drains within the bound at its rate (burst <= rate *
// drain). The burst never grows with the step and rate * drain grows, so once a step drains every
// higher one does: a search over the ladder up to its top, not only the front's points. When not
// even the top step drains, the lowest step needing the floor's burst, said so (drainMet false).
void recommend(const BurstFamily& family, KeptBurst& burst, const AdviceOptions& o, Advice& out)
{
    const StepTest drains = [&](std::int64_t s) {
        const Rate r = family.rate(s);
        return Int128(burst(s)) * r.perNanos <= Int128(r.tokens) * o.drain;
    };
    const std::int64_t max = out.top;
    std::int64_t step = firstStep(1, max, drains);
    if (step == 0) {
        out.drainMet = false;
        step = lowestStep(1, max, [&](std::int64_t s) { return burst(s) <= out.floorBurst; });
    }
    out.recommended.step = step;
    out.recommended.burst = burst(step);
}

// CapSearch finds, with --cap, the steps whose f(s) = mostIn(s, burst(s)) is at most the cap.
// mostIn never falls as the step or the burst grows (over the bursts the ladder needs, all at
// least the floor's), and burst(s) never grows with s, so f never falls along a run of steps of
// one burst and a run's first step is its least. Runs that cannot fit are skipped by mostIn's
// arithmetic alone, without a pass over the log: a log can have thousands of runs.
class CapSearch {
public:
    CapSearch(const BurstFamily& family, KeptBurst& burst, Nanos window, const Advice& a)
        : m_family(family), m_burst(burst), m_window(window), m_floor(a.floorBurst), m_top(a.top)
    {
    }

    std::int64_t most(std::int64_t s, std::int64_t b) const { return *m_family.mostIn(s, b, m_window); }
    bool fits(std::int64_t s, std::int64_t n) const { return most(s, m_burst(s)) <= n; }

    // highest: the highest step that can let at most n through (above it even the floor's burst
    // gets more), 0 for none.
    std::int64_t highest(std::int64_t n) const
    {
        const auto tooMany = [&](std::int64_t s) { return most(s, m_floor) > n; };
        return !tooMany(m_top) ? m_top : lowestStep(1, m_top, tooMany) - 1;
    }

    // leastAbove: the least step above s, up to hi, that can let at most n through (0 for none):
    // none in s's run does, and a later step x does only with burst(x) at most the largest burst
    // step s + 1 does it with.
    std::int64_t leastAbove(std::int64_t s, std::int64_t hi, std::int64_t n) const
    {
        if (s >= hi || most(s + 1, m_floor) > n)
            return 0;
        const std::int64_t top = m_burst(s) - 1;
        const std::int64_t g =
            lowestStep(m_floor, top + 1, [&](std::int64_t b) { return b > top || most(s + 1, b) > n; }) - 1;
        if (g < m_burst(hi))
            return 0;
        return lowestStep(s + 1, hi, [&](std::int64_t x) { return m_burst(x) <= g; });
    }

    // highestFrom: the highest step at or below s that lets at most n through, 0 for none. A run
    // that does not at its first step (burst b) rules out every lower step at which b gets more
    // through, and, when step 1 does, every lower step.
    std::int64_t highestFrom(std::int64_t s, std::int64_t n) const
    {
        while (s >= 1) {
            const std::int64_t b = m_burst(s);
            const std::int64_t first = lowestStep(1, s, [&](std::int64_t x) { return m_burst(x) <= b; });
            if (fits(first, n)) // the run's highest that does: f never falls along it
                return fits(s, n) ? s : lowestStep(first, s, [&](std::int64_t x) { return !fits(x, n); }) - 1;
            if (most(1, b) > n)
                return 0;
            s = lowestStep(1, first, [&](std::int64_t x) { return most(x, b) > n; }) - 1;
        }
        return 0;
    }

    // least: the fewest any step lets through, and the highest step that does: the least n some
    // step meets, by bisection (a step meeting n meets every larger one).
    std::pair<std::int64_t, std::int64_t> least() const
    {
        const auto none = [&](std::int64_t n) { return highestFrom(highest(n), n) == 0; };
        std::int64_t lo = 0, hi = most(1, m_burst(1)); // step 1 meets its own
        while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (none(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        return {hi, highestFrom(highest(hi), hi)};
    }

private:
    const BurstFamily& m_family;
    KeptBurst& m_burst;
    Nanos m_window;
    std::int64_t m_floor, m_top;
};

// recommendCapped keeps the recommendation made without the cap when it meets the cap. Else the
// least step that drains in time and meets it (above `drained`, the drain rule's step, every
// step drains), else the highest that meets it, which drains soonest (burst / rate falls as the
// step grows), else a refusal naming the least any step lets through.
void recommendCapped(const BurstFamily& family, KeptBurst& burst, const WindowCap& cap, std::int64_t drained, Advice& out)
{
    const CapSearch search(family, burst, cap.window, out);
    const std::int64_t n = cap.requests;
    if (search.fits(out.recommended.step, n))
        return;
    const auto take = [&](std::int64_t s, bool drains) {
        out.recommended.step = s;
        out.recommended.burst = burst(s);
        out.drainMet = drains;
    };
    const std::int64_t hi = search.highest(n);
    for (std::int64_t s = drained; s != 0 && s <= hi; s = search.leastAbove(s, hi, n))
        if (search.fits(s, n))
            return take(s, true);
    if (const std::int64_t s = search.highestFrom(std::min(drained == 0 ? hi : drained - 1, hi), n); s != 0)
        return take(s, false);
    const auto [least, at] = search.least();
    throw InputError("--cap: no " + family.product() + " limit lets through every request that must pass and at most "
                     + grouping(cap.requests) + " in any " + formatSeconds(cap.window) + " s; the least any lets through is "
                     + grouping(least) + " (" + family.rateText(at) + ", burst " + grouping(burst(at)) + ")");
}

// recommendForOrigin measures the origin at every row of the front and keeps the recommendation
// when it meets the goal; else it takes the row of least rate that meets the goal and the cap and
// drains in time, else the one meeting them that drains soonest (the highest: its burst is the
// least and its rate the most), else refuses, naming the fewest any row lets reach the origin.
void recommendForOrigin(const KeyedTraces& traces, const BurstFamily& family, const AdviceOptions& o, Advice& out)
{
    const WindowCap& goal = o.origin->most;
    for (AdvicePoint& p : out.front)
        p.origin = originMost(traces, family, p.step, p.burst, o.origin->elsewhere, goal.window);
    const auto row = [&](std::int64_t step) {
        return std::find_if(out.front.begin(), out.front.end(), [&](const AdvicePoint& p) { return p.step == step; });
    };
    out.recommended.origin = row(out.recommended.step)->origin;
    if (*out.recommended.origin <= goal.requests)
        return;
    const auto meets = [&](const AdvicePoint& p) {
        return *p.origin <= goal.requests && (!o.cap || *family.mostIn(p.step, p.burst, o.cap->window) <= o.cap->requests);
    };
    const auto drains = [&](const AdvicePoint& p) {
        const Rate r = family.rate(p.step);
        return Int128(p.burst) * r.perNanos <= Int128(r.tokens) * o.drain;
    };
    const AdvicePoint* chosen = nullptr;
    for (const AdvicePoint& p : out.front)
        if (!chosen && meets(p) && drains(p))
            chosen = &p;
    out.drainMet = chosen != nullptr;
    for (const AdvicePoint& p : out.front)
        if (!out.drainMet && meets(p))
            chosen = &p; // the last that meets them: the highest rate
    if (!chosen) {
        const AdvicePoint* fewest = nullptr; // of the rows within the cap: the recommendation is one
        for (const AdvicePoint& p : out.front)
            if ((!o.cap || *family.mostIn(p.step, p.burst, o.cap->window) <= o.cap->requests)
                && (!fewest || *p.origin < *fewest->origin))
                fewest = &p;
        throw InputError("--origin: no row of the " + family.product() + " front lets every request that must pass through"
                         + (o.cap ? " within the cap" : "") + " and at most " + grouping(goal.requests)
                         + " reach the origin in any " + formatSeconds(goal.window) + " s of this log; the fewest any"
                         + (o.cap ? " within the cap" : "") + " lets through is " + grouping(*fewest->origin) + " (" + family.rateText(fewest->step) + ", burst "
                         + grouping(fewest->burst) + ")");
    }
    const AdvicePoint taken = *chosen;
    out.movedByOrigin = true;
    out.recommended = pointAt(traces, family, out, taken.step, taken.burst, &out.deniedPerKey);
    out.recommended.origin = taken.origin;
}

} // namespace

std::int64_t originMost(const KeyedTraces& traces, const BurstFamily& family, std::int64_t step, std::int64_t burst,
                        std::span<const Nanos> elsewhere, Nanos window)
{
    return originMost(
        traces, [&](KeyTrace trace, std::vector<Nanos>& out) { family.passed(trace, step, burst, out); }, elsewhere, window);
}

std::int64_t originMost(const KeyedTraces& traces, const std::function<void(KeyTrace, std::vector<Nanos>&)>& passed,
                        std::span<const Nanos> elsewhere, Nanos window, bool unlimitedReach)
{
    std::vector<Nanos> times(elsewhere.begin(), elsewhere.end());
    times.insert(times.end(), traces.letByTimes.begin(), traces.letByTimes.end());
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (traces.limited[k])
            passed(traces.trace(k), times);
        else if (unlimitedReach)
            times.insert(times.end(), traces.times.begin() + std::ptrdiff_t(traces.start[k]),
                         traces.times.begin() + std::ptrdiff_t(traces.start[k + 1]));
    }
    std::sort(times.begin(), times.end());
    std::int64_t most = 0;
    for (std::size_t from = 0, to = 0; to < times.size(); ++to) { // the window (times[to] - T, times[to]]
        while (times[to] - times[from] >= window) // a difference of two of the log's times: no overflow
            ++from;
        most = std::max(most, std::int64_t(to - from + 1));
    }
    return most;
}

Advice advise(const KeyedTraces& traces, const BurstFamily& family, const AdviceOptions& options)
{
    if (options.keep <= 0 || options.keep > kPercentUnit || options.drain <= 0)
        throw InputError("advise: keep must be in (0, 100] % and drain above 0 s");
    Advice out;
    keepKeys(traces, options.keep, out);
    KeptBurst burst(traces, family, out.kept);
    out.floorBurst = burst(family.maxStep());
    out.top = family.topStep(out.floorBurst);
    recommend(family, burst, options, out);
    if (options.cap) {
        if (!family.mostIn(1, 1, options.cap->window))
            throw InputError("--cap: no bound of what one key gets through in a window is derived for " + family.product());
        recommendCapped(family, burst, *options.cap, out.drainMet ? out.recommended.step : 0, out);
    }
    // The front's rows: the round steps while the burst still falls, and the recommendation, which
    // may need the burst of a lower row (a flat stretch: its rate is there to drain it in time).
    std::vector<std::int64_t> steps;
    for (std::int64_t s : family.roundSteps()) {
        s = std::min(s, out.top);
        steps.push_back(s);
        if (burst(s) <= out.floorBurst)
            break;
    }
    steps.push_back(out.recommended.step);
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    out.recommended = pointAt(traces, family, out, out.recommended.step, out.recommended.burst, &out.deniedPerKey);
    for (std::int64_t s : steps) {
        if (s == out.recommended.step)
            out.front.push_back(out.recommended);
        else if (out.front.empty() || burst(s) < out.front.back().burst)
            out.front.push_back(pointAt(traces, family, out, s, burst(s)));
    }
    if (options.origin)
        recommendForOrigin(traces, family, options, out);
    return out;
}

} // namespace ratelab
