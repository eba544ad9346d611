// The times an access log or a traffic file writes: decimal epoch seconds, ISO 8601 and the
// access log's [10/Oct/2026:13:55:36 +0000], each read exactly into epoch nanoseconds.
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"

#include <array>

namespace ratelab::detail {

namespace {

// digits reads exactly n digits at text[pos], advancing pos.
bool digits(std::string_view text, std::size_t& pos, int n, int& out)
{
    if (pos + std::size_t(n) > text.size())
        return false;
    out = 0;
    for (int i = 0; i < n; ++i) {
        const char c = text[pos + std::size_t(i)];
        if (!isAsciiDigit(c))
            return false;
        out = out * 10 + (c - '0');
    }
    pos += std::size_t(n);
    return true;
}

int daysInMonth(std::int64_t year, int month)
{
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
}

// civil builds epoch ns from checked fields, minus the zone's offset in seconds.
bool civil(std::int64_t year, int month, int day, int hour, int minute, int second, std::int64_t offsetSeconds,
           Nanos fractionNanos, Nanos& out)
{
    if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)
        || hour > 23 || minute > 59 || second > 60)
        return false;
    const std::int64_t s = epochFromCivil(year, month, day, hour, minute, second) - offsetSeconds;
    if (s < 0)
        return false;
    out = s * kNanosPerSecond + fractionNanos;
    return true;
}

// zone reads "Z", "+hh:mm", "+hhmm" or "+hh" at the end of text.
bool zone(std::string_view text, std::size_t pos, std::int64_t& offsetSeconds)
{
    if (pos == text.size())
        return false;
    if (text[pos] == 'Z' || text[pos] == 'z') {
        offsetSeconds = 0;
        return pos + 1 == text.size();
    }
    if (text[pos] != '+' && text[pos] != '-')
        return false;
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int hh = 0, mm = 0;
    if (!digits(text, pos, 2, hh))
        return false;
    if (pos < text.size() && text[pos] == ':')
        ++pos;
    if (pos < text.size() && !digits(text, pos, 2, mm))
        return false;
    if (pos != text.size() || hh > 23 || mm > 59)
        return false;
    offsetSeconds = sign * (hh * 3600 + mm * 60);
    return true;
}

// fractionDigits reads ".123" at pos into ns (at most nine digits).
bool fractionDigits(std::string_view text, std::size_t& pos, Nanos& out, bool& fraction)
{
    out = 0;
    fraction = false;
    if (pos >= text.size() || text[pos] != '.')
        return true;
    ++pos;
    int n = 0;
    for (; pos < text.size() && isAsciiDigit(text[pos]); ++pos, ++n) {
        if (n >= 9)
            return false; // finer than a nanosecond: not exact
        out = out * 10 + (text[pos] - '0');
    }
    if (n == 0)
        return false;
    for (int i = n; i < 9; ++i)
        out *= 10;
    fraction = true;
    return true;
}

} // namespace

bool parseDecimalSeconds(std::string_view text, Nanos& out, bool& fraction)
{
    std::size_t pos = 0;
    std::int64_t whole = 0;
    for (; pos < text.size() && isAsciiDigit(text[pos]); ++pos) {
        if (pos >= 11)
            return false; // more than 10^11 s: beyond any log (and close to 2^63 ns)
        whole = whole * 10 + (text[pos] - '0');
    }
    if (pos == 0)
        return false;
    Nanos frac = 0;
    if (!fractionDigits(text, pos, frac, fraction) || pos != text.size())
        return false;
    if (whole > (kMaxNanos - frac) / kNanosPerSecond)
        return false;
    out = whole * kNanosPerSecond + frac;
    return true;
}

bool parseClfTime(std::string_view text, Nanos& out)
{
    static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    // dd/Mon/yyyy:HH:MM:SS +hhmm
    std::size_t pos = 0;
    int day = 0, year = 0, hour = 0, minute = 0, second = 0;
    if (!digits(text, pos, 2, day) || pos + 5 > text.size() || text[pos] != '/' || text[pos + 4] != '/')
        return false;
    const std::string_view mon = text.substr(pos + 1, 3);
    int month = 0;
    for (int m = 0; m < 12; ++m)
        if (mon == kMonths[std::size_t(m)])
            month = m + 1;
    pos += 5;
    if (month == 0 || !digits(text, pos, 4, year) || pos >= text.size() || text[pos++] != ':'
        || !digits(text, pos, 2, hour) || pos >= text.size() || text[pos++] != ':' || !digits(text, pos, 2, minute)
        || pos >= text.size() || text[pos++] != ':' || !digits(text, pos, 2, second))
        return false;
    while (pos < text.size() && isSpace(text[pos]))
        ++pos;
    std::int64_t offset = 0;
    if (!zone(text, pos, offset))
        return false;
    return civil(year, month, day, hour, minute, second, offset, 0, out);
}

bool parseIsoTime(std::string_view text, Nanos& out, bool& fraction)
{
    std::size_t pos = 0;
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(text, pos, 4, year) || pos >= text.size() || text[pos++] != '-' || !digits(text, pos, 2, month)
        || pos >= text.size() || text[pos++] != '-' || !digits(text, pos, 2, day) || pos >= text.size()
        || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' '))
        return false;
    ++pos;
    if (!digits(text, pos, 2, hour) || pos >= text.size() || text[pos++] != ':' || !digits(text, pos, 2, minute)
        || pos >= text.size() || text[pos++] != ':' || !digits(text, pos, 2, second))
        return false;
    Nanos frac = 0;
    std::int64_t offset = 0;
    if (!fractionDigits(text, pos, frac, fraction) || !zone(text, pos, offset))
        return false;
    return civil(year, month, day, hour, minute, second, offset, frac, out);
}

bool parseAnyTime(std::string_view text, Nanos& out, bool& fraction)
{
    if (parseDecimalSeconds(text, out, fraction) || parseIsoTime(text, out, fraction))
        return true;
    fraction = false;
    if (!text.empty() && text.front() == '[' && text.back() == ']')
        text = text.substr(1, text.size() - 2);
    return parseClfTime(text, out);
}

} // namespace ratelab::detail
