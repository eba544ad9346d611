// Durations as people type them: seconds with a sign check (parseDuration) and numbers with Go's
// units ("1h30m", "250ms": parseDurationText). The numbers themselves are parsed in decimal.cpp;
// durations are written as text by text.cpp (formatSeconds, secondsText).
#include "arithmetic/decimal.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace ratelab {

Nanos parseDuration(std::string_view text, bool positive)
{
    const Nanos t = parseSeconds(text);
    if (positive && t <= 0)
        throw InputError("must be greater than 0 s (got " + formatSeconds(t) + ")");
    if (t < 0)
        throw InputError("must not be negative (got " + formatSeconds(t) + ")");
    return t;
}

namespace {

// Units a duration may name, in nanoseconds (Go's time.ParseDuration spellings, and "d").
struct DurationUnit {
    std::string_view name;
    Nanos nanos;
};
constexpr DurationUnit kUnits[] = {
    {"ns", 1}, {"us", 1'000}, {"µs", 1'000}, {"ms", 1'000'000}, {"s", kNanosPerSecond},
    {"m", 60 * kNanosPerSecond}, {"h", 3600 * kNanosPerSecond}, {"d", 86400 * kNanosPerSecond},
};

// scaledUnits converts a decimal number of `unit` ("1.5", "250", "1e3") to exact nanoseconds, or throws.
Nanos scaledUnits(std::string_view number, Nanos unit)
{
    if (number.find_first_of("eE-") != std::string_view::npos) {
        const Int128 nanos = Int128(parseSeconds(number)) * unit; // parseSeconds: number * 1e9, exact
        if (nanos % kNanosPerSecond != 0)
            throw InputError("finer than one nanosecond");
        if (nanos / kNanosPerSecond > kMaxNanos)
            throw InputError("too long");
        return static_cast<Nanos>(nanos / kNanosPerSecond);
    }
    const std::size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
    if ((whole.empty() && frac.empty()) || whole.size() > 19 || frac.size() > 18
        || whole.find_first_not_of("0123456789") != std::string_view::npos
        || frac.find_first_not_of("0123456789") != std::string_view::npos)
        throw InputError("not a number");
    Int128 w = 0, f = 0, scale = 1;
    for (char c : whole)
        w = w * 10 + (c - '0');
    for (char c : frac) {
        f = f * 10 + (c - '0');
        scale *= 10;
    }
    const Int128 fracNanos = f * unit;
    if (fracNanos % scale != 0)
        throw InputError("finer than one nanosecond");
    const Int128 total = w * unit + fracNanos / scale;
    if (total > kMaxNanos)
        throw InputError("too long");
    return static_cast<Nanos>(total);
}

bool isNumberChar(char c) { return (c >= '0' && c <= '9') || c == '.'; }

} // namespace

// parseDurationText reads "90", "1m", "1h30m", "0.5s", "250ms"; a plain number is in plainUnit.
Nanos parseDurationText(std::string_view text, Nanos plainUnit)
{
    if (text.empty())
        throw InputError("empty");
    if (std::all_of(text.begin(), text.end(), [](char c) { return isNumberChar(c) || c == 'e' || c == '-'; }))
        return scaledUnits(text, plainUnit);
    Int128 total = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t j = i;
        while (j < text.size() && isNumberChar(text[j]))
            ++j;
        if (j == i)
            throw InputError("expected a number at " + quoted(text.substr(i)));
        std::size_t k = j;
        while (k < text.size() && !isNumberChar(text[k]))
            ++k;
        const std::string_view unit = text.substr(j, k - j);
        const auto u = std::find_if(std::begin(kUnits), std::end(kUnits), [&](const DurationUnit& d) { return d.name == unit; });
        if (u == std::end(kUnits))
            throw InputError("unknown unit " + quoted(unit) + " (known: ns, us, ms, s, m, h, d)");
        total += scaledUnits(text.substr(i, j - i), u->nanos);
        if (total > kMaxNanos)
            throw InputError("too long");
        i = k;
    }
    return static_cast<Nanos>(total);
}

} // namespace ratelab
