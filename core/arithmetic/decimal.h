// Exact parsing of decimal numbers typed by people ("0.1", "9.5", "1e-3", "2.5e3").
//
// Nothing here goes through a double: 0.1 s is exactly 100000000 ns, and a rate of 0.1 per
// second is exactly the fraction 1/10.
#pragma once

#include "arithmetic/rate.h"
#include "arithmetic/nanos.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ratelab {

// InputError is a problem with what a user handed in: a flag, a file, a value. Its message is
// one line that names the problem and is fit to show as it is.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// parseSeconds parses a decimal number of seconds into exact nanoseconds. It throws InputError
// for anything that is not a plain decimal number, for a value finer than one nanosecond, and
// for a value beyond the range of Nanos (about 292 years). Negative values are returned as they
// are; callers that need a non-negative time check the sign themselves.
Nanos parseSeconds(std::string_view text);

// parseDuration reads a duration as parseSeconds does that must be 0 s or more, or more than
// 0 s when `positive`; it throws InputError saying which ("must not be negative (got -1 s)").
Nanos parseDuration(std::string_view text, bool positive = false);

// parseDurationText reads a duration with units, as Go's time.ParseDuration spells them and
// exactly: "250ms", "1.5s", "1h30m", "2d"; a plain number ("90") is in plainUnit. It throws
// InputError for an empty text, an unknown unit, a value finer than 1 ns or past the largest Nanos.
Nanos parseDurationText(std::string_view text, Nanos plainUnit);

// parseRate parses a positive number of tokens per second into an exact Rate: a decimal ("2.5",
// "1e-3") or a fraction of two whole numbers ("3/7", as Rate::exactText writes it). It throws
// InputError for a value that is not a number, is 0 or negative, or cannot be held exactly.
Rate parseRate(std::string_view text);

// parseSeed parses a random seed: a whole number from 0 to 2^64 - 1.
std::uint64_t parseSeed(std::string_view text);

// parseCount parses a non-negative decimal integer no larger than max.
std::int64_t parseCount(std::string_view text, std::int64_t max);

// parseInteger parses a decimal integer of either sign ("12", "-3", "1e3").
std::int64_t parseInteger(std::string_view text);

// parseIntegerIn parses a decimal integer and checks that it lies in [min, max]. Its messages
// name the bound and the value as typed: "must be at least 1 (got 0)", "must be at most
// 1000000000 (got 1e30)"; callers prefix them with what the value is ("--limit: ").
std::int64_t parseIntegerIn(std::string_view text, std::int64_t min, std::int64_t max);

// quoted returns text in single quotes, shortened for an error message.
std::string quoted(std::string_view text);

// jsonString writes s as a JSON string literal, always valid JSON: '"', '\\' and every control
// character escaped, well-formed UTF-8 kept as it is, and each byte that does not begin or
// belong to a well-formed UTF-8 sequence (RFC 3629) replaced by U+FFFD, so a log's or a file's
// stray bytes still give JSON a reader accepts. Every JSON writer of core and the commands
// escapes with it.
std::string jsonString(std::string_view s);

// sameDecimal reports whether two numbers in the one grammar have exactly the same value
// ("0.10" and "1e-1" do). It throws InputError when either is not a number.
bool sameDecimal(std::string_view a, std::string_view b);

// forEachKeyValue calls f(key, value) for each "key=value" of a comma-separated list (the
// options of --change, --cohort, ...); an InputError f throws is prefixed with its key
// ("limit: must be at least 1 (got 0)") unless it names the key already.
template <typename F>
void forEachKeyValue(std::string_view list, F f)
{
    while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw InputError("expected key=value (got " + quoted(item) + ")");
        const std::string_view key = item.substr(0, eq);
        try {
            f(key, item.substr(eq + 1));
        } catch (const InputError& e) {
            const std::string what = e.what();
            throw InputError(what.rfind("unknown key", 0) == 0 || what.rfind(std::string(key), 0) == 0
                                 ? what
                                 : std::string(key) + ": " + what);
        }
    }
}

} // namespace ratelab
