#include "arithmetic/decimal.h"

#include "arithmetic/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

namespace ratelab {

namespace {

constexpr int kMaxDigits = 36;    // significant digits an Int128 holds with room to spare
constexpr std::size_t kMaxText = 1000; // no number a person types is longer

// Decimal is mantissa * 10^exponent, parsed exactly, with no trailing zeros in the mantissa.
struct Decimal {
    bool negative = false;
    Int128 mantissa = 0;
    int exponent = 0;
};

Int128 pow10(int n)
{
    Int128 p = 1;
    for (int i = 0; i < n; ++i)
        p *= 10;
    return p;
}

std::string describe(std::string_view text) { return quoted(text) + " is not a number"; }

// shown is text as typed, for "(got ...)": printable and short.
std::string shown(std::string_view text)
{
    const std::string q = quoted(text);
    return q.substr(1, q.size() - 2);
}

const std::string& largestSeconds()
{
    static const std::string s = formatSeconds(kMaxNanos) + " s, about 292 years";
    return s;
}

// readSignificand reads the digits and the point from text[i] into d, i left after them; false
// when there is no digit.
bool readSignificand(std::string_view text, std::size_t& i, Decimal& d)
{
    const std::size_t n = text.size();
    int significant = 0;
    bool sawDigit = false;
    bool sawPoint = false;
    for (; i < n; ++i) {
        const char c = text[i];
        if (c == '.' && !sawPoint) {
            sawPoint = true;
            continue;
        }
        if (!std::isdigit(static_cast<unsigned char>(c)))
            break;
        sawDigit = true;
        if (d.mantissa == 0 && c == '0') {
            if (sawPoint)
                --d.exponent;
            continue;
        }
        if (significant >= kMaxDigits) {
            // Further digits only matter if they are not zero after the point: keep exactness.
            if (c != '0')
                throw InputError(quoted(text) + " has too many digits");
            if (!sawPoint)
                ++d.exponent;
            continue;
        }
        d.mantissa = d.mantissa * 10 + (c - '0');
        ++significant;
        if (sawPoint)
            --d.exponent;
    }
    return sawDigit;
}

// readExponent reads an exponent ("e-3") at text[i], if there is one, i left after it: the power
// of ten it adds (0 without one), its size capped.
int readExponent(std::string_view text, std::size_t& i)
{
    const std::size_t n = text.size();
    if (i >= n || (text[i] != 'e' && text[i] != 'E'))
        return 0;
    ++i;
    bool expNegative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
        expNegative = text[i] == '-';
        ++i;
    }
    if (i == n || !std::isdigit(static_cast<unsigned char>(text[i])))
        throw InputError(describe(text));
    int e = 0;
    for (; i < n && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
        e = std::min(e * 10 + (text[i] - '0'), 100000);
    return expNegative ? -e : e;
}

Decimal parseDecimal(std::string_view text)
{
    if (text.size() > kMaxText)
        throw InputError(quoted(text) + " is too long to be a number");
    Decimal d;
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        d.negative = text[i] == '-';
        ++i;
    }
    if (!readSignificand(text, i, d))
        throw InputError(describe(text));
    d.exponent += readExponent(text, i);
    if (i != text.size())
        throw InputError(describe(text));
    if (d.mantissa == 0) {
        d.exponent = 0; // "0e999999" is 0: no exponent to overflow on
    } else {
        for (; d.mantissa % 10 == 0; d.mantissa /= 10)
            ++d.exponent;
    }
    return d;
}

// digitsOf counts the decimal digits of a positive Int128.
int digitsOf(Int128 v)
{
    int d = 0;
    for (; v > 0; v /= 10)
        ++d;
    return d;
}

// scaled returns d * 10^shift as an exact integer, throwing when it is not whole or too large.
Int128 scaled(const Decimal& d, int shift, Int128 max, std::string_view text, const char* unitTooFine,
              const std::string& tooLarge)
{
    if (d.mantissa == 0)
        return 0;
    const int e = d.exponent + shift;
    if (e >= 0) {
        if (digitsOf(d.mantissa) + e > 37)
            throw InputError(quoted(text) + tooLarge);
        const Int128 v = d.mantissa * pow10(e);
        if (v > max)
            throw InputError(quoted(text) + tooLarge);
        return v;
    }
    if (-e > kMaxDigits + 1 || d.mantissa % pow10(-e) != 0)
        throw InputError(quoted(text) + unitTooFine);
    const Int128 v = d.mantissa / pow10(-e);
    if (v > max)
        throw InputError(quoted(text) + tooLarge);
    return v;
}

// parseWhole parses a plain run of decimal digits (at most 37) into an Int128.
std::optional<Int128> parseWhole(std::string_view text)
{
    if (text.empty() || text.size() > 37)
        return std::nullopt;
    Int128 v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v;
}

// parseFractionRate parses "P/Q" per second, two whole numbers, as Rate::exactText writes a rate
// with no finite decimal ("3/7").
Rate parseFractionRate(std::string_view text, std::size_t slash)
{
    const auto p = parseWhole(text.substr(0, slash));
    const auto d = parseWhole(text.substr(slash + 1));
    if (!p || !d)
        throw InputError(quoted(text) + " is not a number or a fraction of two whole numbers");
    if (*p == 0 || *d == 0)
        throw InputError("must be greater than 0 (got " + shown(text) + ")");
    // p/d per second is p tokens every d * 10^9 ns; d < 10^37 would overflow, so bound it first.
    if (*d > Int128(1'000'000'000'000'000'000) * 10'000'000'000)
        throw InputError(quoted(text) + " is too small or too finely divided");
    Int128 tokens = *p;
    Int128 per = *d * kNanosPerSecond;
    const Int128 g = std::gcd(tokens, per);
    tokens /= g;
    per /= g;
    const Int128 max = std::numeric_limits<std::int64_t>::max();
    if (tokens > max)
        throw InputError(quoted(text) + " is too large (at most " + std::to_string(kMaxNanos) + " per nanosecond)");
    if (per > max)
        throw InputError(quoted(text) + " is too small or too finely divided");
    return Rate{static_cast<std::int64_t>(tokens), static_cast<Nanos>(per)};
}

} // namespace

std::uint64_t parseSeed(std::string_view text)
{
    if (const auto v = parseWhole(text)) {
        if (*v > Int128(std::numeric_limits<std::uint64_t>::max()))
            throw InputError("must be at most " + std::to_string(std::numeric_limits<std::uint64_t>::max()) + " (got "
                             + shown(text) + ")");
        return static_cast<std::uint64_t>(*v);
    }
    return static_cast<std::uint64_t>(parseIntegerIn(text, 0, std::numeric_limits<std::int64_t>::max()));
}

std::string quoted(std::string_view text)
{
    std::string s;
    for (char c : text.substr(0, 40))
        s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
    if (text.size() > 40)
        s += "...";
    return "'" + s + "'";
}

std::string grouping(std::int64_t n)
{
    // The magnitude as unsigned: INT64_MIN has no positive int64.
    const std::uint64_t magnitude = n < 0 ? std::uint64_t(-(n + 1)) + 1 : std::uint64_t(n);
    const std::string digits = std::to_string(magnitude);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return (n < 0 ? "-" : "") + out;
}

namespace {

// utf8Length returns the length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
// form, no surrogate, nothing past U+10FFFF), or 0 when the byte there starts none.
std::size_t utf8Length(std::string_view s, std::size_t i)
{
    const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    const auto tail = [](unsigned b) { return b >= 0x80 && b <= 0xBF; };
    const unsigned b0 = at(0);
    if (b0 >= 0xC2 && b0 <= 0xDF)
        return tail(at(1)) ? 2 : 0;
    if (b0 >= 0xE0 && b0 <= 0xEF) {
        const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF; // overlong; surrogates
        return at(1) >= lo && at(1) <= hi && tail(at(2)) ? 3 : 0;
    }
    if (b0 >= 0xF0 && b0 <= 0xF4) {
        const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF; // overlong; past U+10FFFF
        return at(1) >= lo && at(1) <= hi && tail(at(2)) && tail(at(3)) ? 4 : 0;
    }
    return 0;
}

} // namespace

std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    out.reserve(s.size() + 2);
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8Length(s, i);
            if (n == 0) {
                out += "\xEF\xBF\xBD"; // U+FFFD for this one byte; the next starts afresh
                ++i;
            } else {
                out.append(s, i, n);
                i += n;
            }
            continue;
        }
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
                out += buf;
            } else {
                out += char(c);
            }
        }
        ++i;
    }
    return out + "\"";
}

Nanos parseSeconds(std::string_view text)
{
    const Decimal d = parseDecimal(text);
    const Int128 v = scaled(d, 9, kMaxNanos, text, " is finer than one nanosecond",
                            " is too large (at most " + largestSeconds() + ")");
    return static_cast<Nanos>(d.negative ? -v : v);
}

Rate parseRate(std::string_view text)
{
    if (const auto slash = text.find('/'); slash != std::string_view::npos)
        return parseFractionRate(text, slash);
    const Decimal d = parseDecimal(text);
    if (d.negative || d.mantissa == 0)
        throw InputError("must be greater than 0 (got " + shown(text) + ")");
    const Int128 max = std::numeric_limits<std::int64_t>::max();
    const std::string tooLarge = quoted(text) + " is too large (at most " + std::to_string(kMaxNanos) + " per nanosecond)";
    const std::string tooSmall = quoted(text) + " is too small (at least 1 per " + formatSeconds(kMaxNanos) + " s)";
    // r = mantissa * 10^exponent per second = tokens / perNanos.
    Int128 tokens = d.mantissa;
    Int128 per = kNanosPerSecond;
    if (d.exponent >= 0) {
        if (digitsOf(tokens) + d.exponent > 37)
            throw InputError(tooLarge);
        tokens *= pow10(d.exponent);
    } else {
        // perNanos = 10^(9 - exponent) must stay inside 128 bits; beyond that the rate is below
        // 1e-20 per second or has more than 29 decimals, and either way cannot be held.
        if (-d.exponent > 29)
            throw InputError(digitsOf(tokens) + d.exponent < -9 ? tooSmall
                                                                 : quoted(text) + " is too finely divided to hold exactly");
        per *= pow10(-d.exponent);
    }
    const Int128 g = std::gcd(tokens, per);
    tokens /= g;
    per /= g;
    if (tokens > max || per > max) {
        // Either the value itself is out of range, or it is in range but needs more digits than
        // two int64s hold ("1.0000000001" per second is 10000000001 / 10^19 per ns).
        if (tokens / per > max || (tokens / per == max && tokens % per != 0))
            throw InputError(tooLarge);
        if (per / tokens > max || (per / tokens == max && per % tokens != 0))
            throw InputError(tooSmall);
        throw InputError(quoted(text) + " is too finely divided to hold exactly (as tokens per nanosecond, numerator "
                         "and denominator must each be at most " + std::to_string(kMaxNanos) + ")");
    }
    return Rate{static_cast<std::int64_t>(tokens), static_cast<Nanos>(per)};
}

std::int64_t parseCount(std::string_view text, std::int64_t max)
{
    const Decimal d = parseDecimal(text);
    if (d.negative && d.mantissa != 0)
        throw InputError(quoted(text) + " must not be negative");
    const Int128 v = scaled(d, 0, Int128(max) + 1, text, " is not a whole number",
                            " is too large (at most " + std::to_string(max) + ")");
    if (v > max)
        throw InputError(quoted(text) + " is too large (at most " + std::to_string(max) + ")");
    return static_cast<std::int64_t>(v);
}

std::int64_t parseInteger(std::string_view text)
{
    const Decimal d = parseDecimal(text);
    const auto max = std::numeric_limits<std::int64_t>::max();
    const Int128 v = scaled(d, 0, max, text, " is not a whole number",
                            " is too large (at most " + std::to_string(max) + " either way)");
    return static_cast<std::int64_t>(d.negative ? -v : v);
}

std::int64_t parseIntegerIn(std::string_view text, std::int64_t min, std::int64_t max)
{
    const Decimal d = parseDecimal(text);
    Int128 v = 0;
    if (d.mantissa != 0) {
        if (d.exponent < 0) // the mantissa has no trailing zeros: a negative exponent is a fraction
            throw InputError(quoted(text) + " is not a whole number");
        // Beyond 20 digits a value is outside any int64 range; its sign says which bound it breaks.
        v = digitsOf(d.mantissa) + d.exponent > 20 ? pow10(20) : d.mantissa * pow10(d.exponent);
        if (d.negative)
            v = -v;
    }
    if (v < min)
        throw InputError("must be at least " + std::to_string(min) + " (got " + shown(text) + ")");
    if (v > max)
        throw InputError("must be at most " + std::to_string(max) + " (got " + shown(text) + ")");
    return static_cast<std::int64_t>(v);
}

std::string Rate::exactText() const
{
    // tokens / perNanos per ns = tokens * 1e9 / perNanos per second.
    Int128 p = Int128(tokens) * kNanosPerSecond;
    Int128 q = perNanos;
    const Int128 g = std::gcd(p, q);
    p /= g;
    q /= g;
    Int128 rest = q;
    while (rest % 2 == 0)
        rest /= 2;
    while (rest % 5 == 0)
        rest /= 5;
    if (rest != 1)
        return integerText(p) + "/" + integerText(q);
    // q = 2^a 5^b, so the expansion ends after max(a, b) digits. Long division keeps every
    // intermediate below 10 q: p * 10^max(a, b) / q can exceed 128 bits (window 2^48 ns).
    std::string digits = integerText(p / q);
    Int128 remainder = p % q;
    if (remainder != 0)
        digits += '.';
    for (; remainder != 0; remainder %= q) {
        remainder *= 10;
        digits += char('0' + int(remainder / q));
    }
    return digits;
}

bool sameDecimal(std::string_view a, std::string_view b)
{
    const Decimal x = parseDecimal(a), y = parseDecimal(b);
    if (x.mantissa == 0 || y.mantissa == 0)
        return x.mantissa == y.mantissa;
    return x.negative == y.negative && x.mantissa == y.mantissa && x.exponent == y.exponent;
}

} // namespace ratelab
