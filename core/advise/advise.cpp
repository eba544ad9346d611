#include "advise/advise.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace ratelab {

KeyTrace KeyedTraces::trace(std::size_t key) const
{
    const std::size_t from = start[key], n = start[key + 1] - from;
    return {std::span<const Nanos>(times).subspan(from, n),
            costs.empty() ? std::span<const std::int64_t>() : std::span<const std::int64_t>(costs).subspan(from, n),
            clock};
}

void checkPassPattern(const std::string& pass)
{
    try {
        ProductRegex(pass, RegexEngine::Re2, RegexSpan::Whole);
    } catch (const InputError& e) {
        throw InputError("--pass: " + std::string(e.what()));
    }
}

KeyedTraces keyedTraces(const Traffic& traffic, const std::string& pass)
{
    KeyedTraces out;
    const std::size_t keys = traffic.keyNames.size(), n = traffic.times.size();
    out.clock = traffic.startEpochNanos;
    out.start.assign(keys + 1, 0);
    for (std::uint32_t k : traffic.keys)
        ++out.start[k + 1];
    for (std::size_t k = 0; k < keys; ++k)
        out.start[k + 1] += out.start[k];
    std::vector<std::size_t> next(out.start.begin(), out.start.end() - 1);
    out.times.resize(n);
    if (!traffic.costs.empty())
        out.costs.resize(n);
    for (std::size_t i = 0; i < n; ++i) { // in time order, so each key's requests stay in it
        const std::size_t at = next[traffic.keys[i]]++;
        out.times[at] = traffic.times[i];
        if (!traffic.costs.empty())
            out.costs[at] = traffic.costs[i];
    }
    out.limited.resize(keys);
    for (std::size_t k = 0; k < keys; ++k)
        out.limited[k] = !keylessName(traffic.keyNames[k]);
    if (!pass.empty()) {
        checkPassPattern(pass);
        const ProductRegex re(pass, RegexEngine::Re2, RegexSpan::Whole);
        out.mustPass.assign(keys, 0);
        for (std::size_t k = 0; k < keys; ++k)
            out.mustPass[k] = out.limited[k] && re.matches(traffic.keyNames[k]);
        if (std::find(out.mustPass.begin(), out.mustPass.end(), 1) == out.mustPass.end())
            throw InputError("--pass: " + ratelab::quoted(pass) + " matches no key of the log (a whole key must match)");
    }
    return out;
}

// keepKeys: the nearest rank is ceil(keep * n / 100 %), from the fewest.
void keepKeys(const KeyedTraces& traces, std::int64_t keep, KeptKeys& out)
{
    std::vector<std::int64_t> counts;
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (traces.limited[k])
            counts.push_back(traces.requests(k));
        else
            out.unlimitedRequests += traces.requests(k);
    }
    if (counts.empty())
        throw InputError("advise: every request's key is empty, so no limit keyed by it counts any");
    const auto n = std::int64_t(counts.size());
    const auto rank = std::int64_t(ceilDiv(Int128(keep) * n, kPercentUnit)); // 1..n: keep is in (0, 100 %]
    std::nth_element(counts.begin(), counts.begin() + (rank - 1), counts.end());
    out.keptMost = counts[std::size_t(rank - 1)];
    out.limitedKeys = n;
    out.kept.assign(traces.keys(), 0);
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (!traces.limited[k])
            continue;
        out.limitedRequests += traces.requests(k);
        const bool few = traces.requests(k) <= out.keptMost, must = !traces.mustPass.empty() && traces.mustPass[k];
        if (few || must) {
            out.kept[k] = 1;
            ++out.keptKeys;
            out.passedKeys += !few;
            out.keptRequests += traces.requests(k);
        }
    }
}

std::optional<std::string> headerOfField(const std::string& logKey)
{
    if (!logKey.starts_with("http_") || logKey.size() == 5
        || !std::all_of(logKey.begin() + 5, logKey.end(),
                        [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }))
        return std::nullopt;
    std::string header = logKey.substr(5);
    std::replace(header.begin(), header.end(), '_', '-');
    return header;
}

WindowCap parseWindowCap(std::string_view text)
{
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos)
        throw InputError("must be requests/window, as 600/1m (got " + quoted(text) + ")");
    WindowCap cap;
    try {
        cap.requests = parseIntegerIn(text.substr(0, slash), 1, std::numeric_limits<std::int64_t>::max());
    } catch (const InputError& e) {
        throw InputError(std::string("the requests ") + e.what());
    }
    try {
        cap.window = parseDurationText(text.substr(slash + 1), kNanosPerSecond);
    } catch (const InputError& e) {
        throw InputError(std::string("the window: ") + e.what());
    }
    if (cap.window < 1)
        throw InputError("the window must be more than 0 s (got " + quoted(text.substr(slash + 1)) + ")");
    return cap;
}

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
    return {step, burst, d};
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

// leastCap is the fewest requests any step of the ladder lets through in the cap's window, at
// the burst the kept keys need there, and that step: over the runs of steps of one burst, each
// at its first step (where mostIn is least), up to where even the floor's burst gets more.
std::pair<std::int64_t, std::int64_t> leastCap(const BurstFamily& family, KeptBurst& burst, const WindowCap& cap,
                                               std::int64_t top)
{
    std::pair<std::int64_t, std::int64_t> best{std::numeric_limits<std::int64_t>::max(), 1};
    const std::int64_t floor = burst(top);
    for (std::int64_t s = 1; s <= top && *family.mostIn(s, floor, cap.window) < best.first;) {
        best = std::min(best, std::pair{*family.mostIn(s, burst(s), cap.window), s});
        const std::int64_t b = burst(s);
        if (b <= floor)
            break;
        s = lowestStep(s + 1, top, [&](std::int64_t x) { return burst(x) < b; });
    }
    return best;
}

// recommendCapped moves the drain rule's step (`drained`, 0 for none) to one that meets the cap.
// f(s) = mostIn(s, burst(s)) never falls within a run of steps of one burst (the burst is the
// same, the step grows), so the first step of a run is its least. Above `drained` every step
// drains in time: the least that meets the cap is the first of some run. Below it none does, and
// the highest that meets the cap drains soonest (burst / rate falls as the step grows). Steps
// where even the floor's burst gets more through than the cap are never tried.
void recommendCapped(const BurstFamily& family, KeptBurst& burst, const WindowCap& cap, std::int64_t drained, Advice& out)
{
    const auto fits = [&](std::int64_t s) { return *family.mostIn(s, burst(s), cap.window) <= cap.requests; };
    const auto tooMany = [&](std::int64_t s) { return *family.mostIn(s, out.floorBurst, cap.window) > cap.requests; };
    const std::int64_t hi = tooMany(out.top) ? lowestStep(1, out.top, tooMany) - 1 : out.top;
    const auto take = [&](std::int64_t s, bool drains) {
        out.recommended.step = s;
        out.recommended.burst = burst(s);
        out.drainMet = drains;
    };
    for (std::int64_t s = drained; s != 0 && s <= hi;) {
        if (fits(s))
            return take(s, true);
        const std::int64_t b = burst(s);
        if (burst(hi) >= b)
            break;
        s = lowestStep(s + 1, hi, [&](std::int64_t x) { return burst(x) < b; });
    }
    for (std::int64_t s = std::min(drained == 0 ? hi : drained - 1, hi); s >= 1;) {
        const std::int64_t b = burst(s);
        const std::int64_t first = lowestStep(1, s, [&](std::int64_t x) { return burst(x) <= b; });
        if (fits(first)) // the run's highest that fits: f never falls along it
            return take(fits(s) ? s : lowestStep(first, s, [&](std::int64_t x) { return !fits(x); }) - 1, false);
        s = first - 1;
    }
    const auto [least, at] = leastCap(family, burst, cap, out.top);
    throw InputError("--cap: no " + family.product() + " limit lets through every request that must pass and at most "
                     + grouping(cap.requests) + " in any " + formatSeconds(cap.window) + " s; the least any lets through is "
                     + grouping(least) + " (" + family.rateText(at) + ", burst " + grouping(burst(at)) + ")");
}

} // namespace

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
    return out;
}

} // namespace ratelab
