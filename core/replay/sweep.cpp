#include "replay/sweep.h"

#include "arithmetic/decimal.h"
#include "arithmetic/workers.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>

namespace ratelab {

namespace {

// Fraction is an exact rational p/q (q > 0) in 128 bits, for stepping rates.
struct Fraction {
    Int128 p = 0, q = 1;
};

Fraction perNanosOf(const Rate& r) { return {r.tokens, r.perNanos}; }

bool mul(Int128 a, Int128 b, Int128& out) { return !__builtin_mul_overflow(a, b, &out); }

// add returns a + k*s exactly, or nullopt when it does not fit.
std::optional<Fraction> addSteps(const Fraction& a, const Fraction& s, std::int64_t k)
{
    Int128 q, x, y, ks;
    if (!mul(a.q, s.q, q) || !mul(a.p, s.q, x) || !mul(s.p, k, ks) || !mul(ks, a.q, y) || __builtin_add_overflow(x, y, &x))
        return std::nullopt;
    const Int128 g = std::gcd(x, q);
    return Fraction{x / g, q / g};
}

bool lessEqual(const Fraction& a, const Fraction& b)
{
    Int128 l, r;
    if (!mul(a.p, b.q, l) || !mul(b.p, a.q, r))
        return false;
    return l <= r;
}

std::int64_t wholeValue(SweepParameter p, std::string_view text)
{
    if (p == SweepParameter::Window) {
        const Nanos t = parseSeconds(text);
        if (t <= 0)
            throw InputError("must be greater than 0 s (got " + std::string(text) + ")");
        return t;
    }
    return parseIntegerIn(text, 1, LimiterConfig::kMaxLimit);
}

} // namespace

std::string_view sweepParameterId(SweepParameter p)
{
    switch (p) {
    case SweepParameter::Limit: return "limit";
    case SweepParameter::Window: return "window";
    case SweepParameter::Capacity: return "capacity";
    case SweepParameter::Rate: break;
    }
    return "rate";
}

std::string SweepAxis::text(std::size_t i) const
{
    if (parameter == SweepParameter::Rate)
        return rates.at(i).exactText();
    if (parameter == SweepParameter::Window)
        return formatSeconds(values.at(i));
    return std::to_string(values.at(i));
}

SweepAxis parseSweepAxis(SweepParameter p, std::string_view text)
{
    SweepAxis axis;
    axis.parameter = p;
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const std::size_t colon = text.find(':', at);
        parts.push_back(text.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at));
        if (colon == std::string_view::npos)
            break;
        at = colon + 1;
    }
    if (parts.size() != 1 && parts.size() != 3)
        throw InputError("give FROM:TO:STEP or one value (got " + ratelab::quoted(text) + ")");
    if (p == SweepParameter::Rate) {
        const Fraction from = perNanosOf(parseRate(parts[0]));
        if (parts.size() == 1) {
            axis.rates.push_back(parseRate(parts[0]));
            return axis;
        }
        const Fraction to = perNanosOf(parseRate(parts[1]));
        const Fraction step = perNanosOf(parseRate(parts[2]));
        if (!lessEqual(from, to))
            throw InputError("FROM must not be above TO (got " + ratelab::quoted(text) + ")");
        for (std::int64_t k = 0;; ++k) {
            const std::optional<Fraction> v = addSteps(from, step, k);
            if (!v || v->p > std::numeric_limits<std::int64_t>::max() || v->q > std::numeric_limits<std::int64_t>::max())
                throw InputError("a step of " + ratelab::quoted(text) + " cannot be held exactly");
            if (!lessEqual(*v, to))
                break;
            if (axis.rates.size() >= kMaxSweepPoints)
                throw InputError("more than " + std::to_string(kMaxSweepPoints) + " values (got " + ratelab::quoted(text) + ")");
            axis.rates.push_back(Rate{std::int64_t(v->p), Nanos(v->q)});
        }
        return axis;
    }
    const std::int64_t from = wholeValue(p, parts[0]);
    if (parts.size() == 1) {
        axis.values.push_back(from);
        return axis;
    }
    const std::int64_t to = wholeValue(p, parts[1]);
    const std::int64_t step = wholeValue(p, parts[2]);
    if (from > to)
        throw InputError("FROM must not be above TO (got " + ratelab::quoted(text) + ")");
    if ((to - from) / step + 1 > std::int64_t(kMaxSweepPoints))
        throw InputError("more than " + std::to_string(kMaxSweepPoints) + " values (got " + ratelab::quoted(text) + ")");
    for (std::int64_t v = from; v <= to; v += step) {
        axis.values.push_back(v);
        if (to - v < step)
            break;
    }
    return axis;
}

LimiterConfig pointConfig(const SweepBase& base, const std::vector<SweepAxis>& axes, std::size_t i, std::size_t j)
{
    std::int64_t limit = base.limit;
    Nanos window = base.windowNanos;
    std::optional<std::int64_t> capacity = base.capacity;
    std::optional<Rate> rate = base.rate;
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const SweepAxis& axis = axes[a];
        const std::size_t at = a == 0 ? i : j;
        switch (axis.parameter) {
        case SweepParameter::Limit: limit = axis.values.at(at); break;
        case SweepParameter::Window: window = axis.values.at(at); break;
        case SweepParameter::Capacity: capacity = axis.values.at(at); break;
        case SweepParameter::Rate: rate = axis.rates.at(at); break;
        }
    }
    return LimiterConfig::make(limit, window, capacity, rate).withNginx(base.nginx).withProductOptions(base.productOptions);
}

SweepCell cellOf(const ReplayRow& row, const std::vector<std::int64_t>& attempts, std::uint32_t heaviestKey)
{
    SweepCell c;
    c.attempts = row.attempts;
    c.denied = row.denied;
    c.keysSeen = std::int64_t(attempts.size());
    c.keysDenied = row.keysDenied;
    c.maxInWindow = row.maxInWindow;
    c.heaviestAttempts = attempts.at(heaviestKey);
    c.heaviestAllowed = c.heaviestAttempts - row.deniedPerKey.at(heaviestKey);
    return c;
}

SweepResult runSweep(const Traffic& traffic, const SweepBase& base, const std::vector<SweepAxis>& axes,
                     unsigned threads, const std::atomic<bool>* cancel,
                     const std::function<void(std::size_t, std::size_t)>& progress)
{
    SweepResult result;
    result.axes = axes;
    result.algorithms = base.algorithms;
    const std::vector<std::int64_t> attempts = attemptsPerKey(traffic);
    result.heaviestKey = std::uint32_t(std::max_element(attempts.begin(), attempts.end()) - attempts.begin());
    const std::size_t rows = axes.empty() ? 1 : axes[0].size();
    const std::size_t columns = result.columns();
    // Every point's config is checked before any work: a refused point refuses the sweep.
    std::vector<LimiterConfig> configs;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < columns; ++j)
            configs.push_back(pointConfig(base, axes, i, j));
    const std::size_t algorithms = base.algorithms.size();
    const std::size_t total = configs.size() * algorithms;
    result.cells.resize(total);

    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex mutex; // progress and the first error
    std::exception_ptr error;
    std::size_t done = 0;
    const auto work = [&] {
        while (!stop.load(std::memory_order_relaxed)) {
            const std::size_t c = next.fetch_add(1);
            if (c >= total)
                return;
            try {
                const ReplayRow row = replayOne(traffic, base.algorithms[c % algorithms], configs[c / algorithms],
                                                base.cost, nullptr, cancel, base.place);
                result.cells[c] = cellOf(row, attempts, result.heaviestKey);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!error)
                    error = std::current_exception();
                stop = true;
                return;
            }
            std::lock_guard lock(mutex);
            ++done;
            if (progress)
                progress(done, total);
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(threads, unsigned(std::min<std::size_t>(total, 256))));
    runOnThreads(n, work); // each takes the next cell, however many threads start
    if (error) {
        try {
            std::rethrow_exception(error);
        } catch (const ReplayCancelled&) {
            throw SweepCancelled{};
        }
    }
    if (cancel && cancel->load())
        throw SweepCancelled{};
    return result;
}

} // namespace ratelab
