#include "report/explain.h"

#include "arithmetic/text.h"

#include "limiters/algorithm_facts.h"
#include "engine/decide.h"

#include "limiters/limiters.h"

#include <stdexcept>
#include <string_view>

namespace ratelab {

namespace {

// at is an instant or a duration of the simulation ("1.000 s"); exact is a configuration
// quantity, a window bound or W ("10 s").
std::string at(Int128 nanos) { return secondsText(nanos, 3) + " s"; }
std::string exact(Int128 nanos) { return secondsText(nanos, 0) + " s"; }

// withNoun puts a noun after a number written as text: singular exactly when the text is 1.
// Not counted: an explanation writes every number exactly as the engine holds it, ungrouped
// like the others of its sentence, and a fractional one too ("1.00 token").
std::string withNoun(const std::string& number, std::string_view singular, std::string_view plural)
{
    const bool one = number == "1" || number == "1.00";
    return number + " " + std::string(one ? singular : plural);
}

std::string withNoun(Int128 n, std::string_view singular, std::string_view plural)
{
    return withNoun(integerText(n), singular, plural);
}

std::string retry(const Decision& d)
{
    return d.retryNever() ? std::string("never admitted: it costs more than the quota") : "retry in " + at(d.retryAfter);
}

std::string name(Algorithm a) { return std::string(facts(a).phrase); }

bool sameDecision(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.retryAfter == b.retryAfter && a.remaining == b.remaining
        && a.level == b.level;
}

// Each describe* reads the state a request at t finds (the limiter has decided every earlier
// request; `previous` is the last of them, if any), decides the request, and words both.

std::string describe(FixedWindow& l, const LimiterConfig& c, Nanos t, const Nanos*, Decision& d)
{
    const Nanos w = c.windowNanos();
    const auto used = static_cast<std::int64_t>(l.levelAt(t));
    const Int128 from = Int128(t / w) * w, to = from + w;
    d = l.decide(t);
    std::string s = integerText(used) + " of " + integerText(c.limit()) + " used in window [" + exact(from) + ", "
                  + exact(to) + ")";
    if (d.allowed)
        return s + " -> admitted, " + integerText(d.remaining) + " left";
    return s + " -> denied, " + retry(d) + " when window [" + exact(to) + ", " + exact(to + w) + ") opens";
}

std::string describe(SlidingWindowLog& l, const LimiterConfig& c, Nanos t, const Nanos* previous, Decision& d)
{
    const Nanos w = c.windowNanos();
    const auto entries = static_cast<std::int64_t>(l.levelAt(t));
    const auto expired = previous ? static_cast<std::int64_t>(l.levelAt(*previous)) - entries : 0;
    const std::optional<Nanos> oldest = l.oldestAt(t);
    d = l.decide(t);
    std::string s = integerText(entries) + " of " + withNoun(c.limit(), "entry", "entries") + " in the last " + exact(w);
    std::string notes;
    if (expired > 0)
        notes = integerText(expired) + " expired since the last request";
    if (oldest)
        notes += (notes.empty() ? "" : "; ") + ("oldest " + at(*oldest) + ", expires at " + at(Int128(*oldest) + w));
    if (!notes.empty())
        s += " (" + notes + ")";
    if (d.allowed)
        return s + " -> admitted, " + integerText(d.remaining) + " left";
    return s + " -> denied, " + retry(d) + " when the oldest expires";
}

std::string describe(SlidingWindowCounter& l, const LimiterConfig& c, Nanos t, const Nanos*, Decision& d)
{
    const Nanos w = c.windowNanos();
    const std::int64_t prev = l.previousCountAt(t), cur = l.currentCountAt(t);
    const Int128 from = Int128(t / w) * w;
    const Nanos e = t - t / w * w;
    const Int128 estimateTimesW = Int128(prev) * (w - e) + Int128(cur) * w; // E * W, exact
    d = l.decide(t);
    const bool below = estimateTimesW < Int128(c.limit()) * w;
    std::string s = at(e) + " into window [" + exact(from) + ", " + exact(from + w) + "): prev "
                  + integerText(prev) + " x weight " + hundredthsText(w - e, w, Rounding::Down) + " + cur " + integerText(cur)
                  + " = estimate " + hundredthsText(estimateTimesW, w, Rounding::Down) + (below ? " < " : " >= ") + "limit "
                  + integerText(c.limit());
    if (d.allowed)
        return s + " -> admitted, " + integerText(d.remaining) + " left";
    return s + " -> denied, " + retry(d);
}

std::string describe(TokenBucket& l, const LimiterConfig& c, Nanos t, const Nanos* previous, Decision& d)
{
    const Int128 unit = c.rate().perNanos; // units of one token
    const Int128 found = l.unitsAt(t);
    std::string s = "had " + withNoun(hundredthsText(found, unit, Rounding::Down), "token", "tokens");
    if (previous) {
        s += " (refilled " + hundredthsText(found - l.unitsAt(*previous), unit, Rounding::Down) + " since the last request";
        s += found == Int128(c.capacity()) * unit ? ", full)" : ")";
    } else {
        s += " (full at the start)";
    }
    d = l.decide(t);
    if (d.allowed)
        return s + " -> admitted, " + hundredthsText(found - unit, unit, Rounding::Down) + " left";
    return s + " -> denied, 1 token needed, " + retry(d);
}

// water writes the water found at t and what drained since the previous request.
std::string water(const detail::Bucket& b, const LimiterConfig& c, Nanos t, const Nanos* previous, bool drainNote)
{
    const Int128 unit = c.rate().perNanos; // units of one request
    const Int128 found = b.waterAt(t);
    std::string s = "water " + hundredthsText(found, unit, Rounding::Up) + " of " + integerText(c.capacity());
    if (!drainNote)
        return s;
    if (previous) {
        s += " (drained " + hundredthsText(b.waterAt(*previous) - found, unit, Rounding::Down) + " since the last request";
        s += found == 0 ? ", empty)" : ")";
    } else {
        s += " (empty at the start)";
    }
    return s;
}

std::string describe(LeakyBucket& l, const LimiterConfig& c, Nanos t, const Nanos* previous, Decision& d)
{
    const Int128 after = l.bucket().waterAt(t) + c.rate().perNanos;
    std::string s = water(l.bucket(), c, t, previous, true);
    d = l.decide(t);
    if (d.allowed)
        return s + " -> admitted (1 more fits), water now " + hundredthsText(after, c.rate().perNanos, Rounding::Up);
    return s + " -> denied (1 more would overflow), " + retry(d);
}

std::string describe(LeakyBucketQueue& l, const LimiterConfig& c, Nanos t, const Nanos* previous, Decision& d)
{
    const auto waiting = static_cast<std::int64_t>(l.levelAt(t));
    std::string s = water(l.bucket(), c, t, previous, false) + ", " + withNoun(waiting, "request", "requests") + " waiting";
    d = l.decide(t);
    if (!d.allowed)
        return s + " -> dropped (1 more would overflow), " + retry(d);
    if (d.delay == 0)
        return s + " -> admitted at once";
    return s + " -> admitted, waits " + at(d.delay) + " (leaves at " + at(Int128(t) + d.delay) + ")";
}

std::string describe(Gcra& l, const LimiterConfig& c, Nanos t, const Nanos*, Decision& d)
{
    // Time in GCRA is kept in units of 1/scale ns; shown rounded up to the nanosecond.
    const Int128 scale = c.rate().tokens;
    const Int128 now = Int128(t) * scale;
    const Int128 tolerance = Int128(c.capacity() - 1) * c.rate().perNanos;
    const std::optional<Int128> tat = l.tatScaled();
    const Int128 backlog = tat && *tat > now ? *tat - now : 0;
    std::string s = !tat ? std::string("no TAT yet")
                  : *tat <= now ? "TAT " + at(ceilDiv(*tat, scale)) + " not ahead of t"
                                : "TAT " + at(ceilDiv(*tat, scale));
    s += ", backlog " + at(ceilDiv(backlog, scale)) + (backlog <= tolerance ? " <= " : " > ") + "tolerance "
       + at(ceilDiv(tolerance, scale));
    d = l.decide(t);
    if (d.allowed)
        return s + " -> admitted, TAT now " + at(ceilDiv(*l.tatScaled(), scale));
    return s + " -> denied, " + retry(d);
}

std::string describe(NginxLimitReq& l, const LimiterConfig& c, Nanos t, const Nanos*, Decision& d)
{
    // nginx's own integers: excess in thousandths, as its debug log prints them.
    std::string s = "excess " + integerText(static_cast<std::int64_t>(l.levelAt(t) * 1000 + 0.5)) + "/1000 at "
                  + integerText(t / 1'000'000) + " ms, burst " + integerText(c.nginxBurst() * 1000) + "/1000";
    d = l.decide(t);
    if (!d.allowed)
        return s + " -> rejected (excess would pass burst), " + retry(d);
    s += " -> accepted, excess now " + integerText(l.excessThousandths()) + "/1000";
    return d.delay > 0 ? s + ", waits " + at(d.delay) : s;
}

// describe words a product model's decision in its own unit: what it held, and the verdict
// (the product's own rule is in its Help paragraph).
template <typename Product>
    requires std::derived_from<Product, ProductLimiter<Product>>
std::string describe(Product& l, const LimiterConfig&, Nanos t, const Nanos*, Decision& d)
{
    std::string s = integerText(l.remainingAt(t)) + " left of " + integerText(l.quota());
    d = l.decide(t);
    if (!d.allowed)
        return s + " -> denied, " + retry(d);
    s += " -> admitted, " + integerText(d.remaining) + " left";
    return d.delay > 0 ? s + ", held back " + at(d.delay) : s;
}

// describeCost words a request of cost k != 1 in the terms every limiter shares: what cost-1
// requests would still pass, and the verdict.
template <Limiter L>
std::string describeCost(L& l, Nanos t, std::int64_t cost, Decision& d)
{
    std::string s = "costs " + integerText(cost) + " of a quota of " + integerText(l.quota()) + ", "
                  + integerText(l.remainingAt(t)) + " left";
    d = l.decide(t, cost);
    if (d.allowed)
        return s + " -> admitted, " + integerText(d.remaining) + " left";
    return s + " -> denied, " + retry(d);
}

} // namespace

std::string explainSeconds(Nanos t) { return secondsText(t, 3); }

std::string explain(const Trace& trace, std::size_t row, std::size_t index)
{
    const AlgorithmTrace& result = trace.results.at(row);
    const Nanos t = trace.arrivals.at(index);
    const Decision recorded = decisionAt(trace, row, index);
    return visitLimiter(result.algorithm, trace.config, [&](auto& limiter) {
        for (std::size_t i = detail::restoreCheckpoint(limiter, result, index); i < index; ++i)
            limiter.decide(trace.arrivals[i], costOf(trace, i));
        Decision d;
        const std::int64_t cost = costOf(trace, index);
        const std::string words =
            cost != 1 ? describeCost(limiter, t, cost, d)
                      : describe(limiter, trace.config, t, index > 0 ? &trace.arrivals[index - 1] : nullptr, d);
        if (!sameDecision(d, recorded))
            throw std::logic_error("explain: request " + std::to_string(index) + " of " + name(result.algorithm)
                                   + " was decided differently when replayed");
        return "t = " + at(t) + ": " + name(result.algorithm) + ": " + words;
    });
}

} // namespace ratelab
