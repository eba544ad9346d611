#include "arithmetic/text.h"

#include "arithmetic/decimal.h"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace ratelab {

namespace {

using Unsigned128 = unsigned __int128;

// magnitude is |v| as an unsigned 128-bit value: the smallest Int128 has no positive Int128.
Unsigned128 magnitude(Int128 v) { return v < 0 ? Unsigned128(0) - Unsigned128(v) : Unsigned128(v); }

// digits writes m in decimal at the end of [first, last) and returns where they begin.
char* digits(char* last, Unsigned128 m)
{
    do {
        *--last = char('0' + int(m % 10));
        m /= 10;
    } while (m != 0);
    return last;
}

// fraction writes the nine digits of frac (< 10^9) at p, less the trailing zeros past
// minDecimals, with the point before them when any remain; it returns the end.
char* fraction(char* p, std::uint32_t frac, int minDecimals)
{
    char nine[9];
    for (int i = 8; i >= 0; --i, frac /= 10)
        nine[i] = char('0' + frac % 10);
    int len = 9;
    while (len > minDecimals && nine[len - 1] == '0')
        --len;
    if (len == 0)
        return p;
    *p++ = '.';
    std::memcpy(p, nine, std::size_t(len));
    return p + len;
}

} // namespace

std::string integerText(Int128 v)
{
    char text[41]; // 2^127 has 39 digits; one more for the sign
    char* const end = text + sizeof text;
    char* first = digits(end, magnitude(v));
    if (v < 0)
        *--first = '-';
    return std::string(first, end);
}

std::string secondsText(Int128 nanos, int minDecimals)
{
    const Unsigned128 m = magnitude(nanos);
    std::string s = nanos < 0 ? "-" : "";
    char whole[40];
    s.append(digits(whole + sizeof whole, m / kNanosPerSecond), whole + sizeof whole);
    char frac[10];
    s.append(frac, fraction(frac, std::uint32_t(m % kNanosPerSecond), minDecimals));
    return s;
}

char* secondsChars(char* first, Nanos t)
{
    char* p = first;
    if (t < 0)
        *p++ = '-';
    const std::uint64_t v = t < 0 ? 0 - static_cast<std::uint64_t>(t) : static_cast<std::uint64_t>(t);
    p = std::to_chars(p, first + kSecondsChars, v / kNanosPerSecond).ptr;
    return fraction(p, std::uint32_t(v % kNanosPerSecond), 0);
}

std::string formatSeconds(Nanos t)
{
    char text[kSecondsChars];
    return std::string(text, secondsChars(text, t));
}

std::string hundredthsText(Int128 num, Int128 den, Rounding rounding)
{
    // Split first so that num * 100 cannot overflow: num = q * den + r with 0 <= r < den.
    const Int128 q = floorDiv(num, den);
    const Int128 r = num - q * den;
    const Int128 hundredths = q * 100 + (rounding == Rounding::Down ? floorDiv(r * 100, den) : ceilDiv(r * 100, den));
    const Unsigned128 m = magnitude(hundredths);
    const int cents = int(m % 100);
    return (hundredths < 0 ? "-" : "") + integerText(Int128(m / 100)) + (cents < 10 ? ".0" : ".")
         + std::to_string(cents);
}

std::string counted(std::int64_t n, std::string_view noun, std::string_view plural)
{
    std::string out = grouping(n) + " ";
    if (n == 1)
        return out.append(noun);
    if (plural.empty())
        return out.append(noun).append("s");
    return out.append(plural);
}

bool csvNeedsQuotes(std::string_view v) { return v.find_first_of(",\"\r\n") != std::string_view::npos; }

std::string csvField(std::string_view v)
{
    if (!csvNeedsQuotes(v))
        return std::string(v);
    std::string out = "\"";
    for (const char c : v) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string messageText(std::string_view text, std::size_t most)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        const bool control = b < 0x20 || b == 0x7f;
        if (out.size() + (control ? 4 : 1) > most)
            return out + "...";
        if (control) {
            out += "\\x";
            out += kHex[b >> 4];
            out += kHex[b & 15];
        } else {
            out += text[i];
        }
    }
    return out;
}

} // namespace ratelab
