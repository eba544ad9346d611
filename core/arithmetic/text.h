// Numbers and fields as RateLab writes them: one rule for each, so a count, a time or a CSV
// field reads the same in every report, script, explanation and file.
//
// Everything here is exact: no value goes through a double, and a count of 128 bits (a bound's
// product, a script's argument) is written in full.
#pragma once

#include "arithmetic/nanos.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ratelab {

// integerText writes v in decimal, with a '-' before a negative value; every Int128 has its
// text, the smallest included (whose magnitude no Int128 holds).
std::string integerText(Int128 v);

// secondsText writes a nanosecond count as decimal seconds, exact: at least minDecimals
// decimals (0 to 9), then as many more as it takes and no trailing zero past those
// (secondsText(1'500'000'000) is "1.5", with 3 decimals "1.500"; 1 ns is "0.000000001").
// formatSeconds(t) is secondsText(t) for a Nanos.
std::string secondsText(Int128 nanos, int minDecimals = 0);

// kSecondsChars is room enough for any Nanos as formatSeconds writes it ("-9223372036.854775808").
inline constexpr std::size_t kSecondsChars = 32;

// secondsChars writes formatSeconds(t) at first, which has room for kSecondsChars characters,
// and returns the end of what it wrote: for a writer that appends without a temporary string.
char* secondsChars(char* first, Nanos t);

// Rounding says which way a value between two written ones goes: down (toward -infinity) or up.
enum class Rounding { Down, Up };

// hundredthsText writes num / den (den > 0) with exactly two decimals, rounded as asked
// (hundredthsText(1, 3, Rounding::Up) is "0.34"; hundredthsText(-1, 3, Rounding::Down) "-0.34").
std::string hundredthsText(Int128 num, Int128 den, Rounding rounding);

// counted writes a count and its noun as every report and message counts: the number as
// grouping writes it, the noun singular for exactly 1 ("1 rule", "0 rules", "1,234 requests").
// A noun whose plural is not the noun and an "s" passes its plural: counted(n, "entry", "entries").
std::string counted(std::int64_t n, std::string_view noun, std::string_view plural = {});

// csvNeedsQuotes: v holds a comma, a quote, a CR or an LF, which a reader would otherwise take
// for the field's end, the row's end or a quoted field (RFC 4180).
bool csvNeedsQuotes(std::string_view v);

// csvField is v as one CSV field: quoted, its quotes doubled, when csvNeedsQuotes; else v itself.
// Every CSV the program writes (compare, replay, the dry run, sweep, the app's exports) quotes
// with it.
std::string csvField(std::string_view v);

// kMessageQuote is the most of an input's text a message quotes.
inline constexpr std::size_t kMessageQuote = 200;

// messageText is text as a message carries it, on one printable line: each control byte (a
// newline, a NUL, DEL) as "\xNN", the rest as it is; past `most` bytes written, cut with "...".
std::string messageText(std::string_view text, std::size_t most = kMessageQuote);

} // namespace ratelab
