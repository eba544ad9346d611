// Java's and Netty's value forms as Spring Cloud Gateway reads them (config_dry_run_spring_values.h).
#include "config_dry_run_spring_values.h"

#include "arithmetic/decimal.h"
#include "traffic/traffic_log.h"

#include <QByteArray>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

namespace ratelab::io {

DryRunAddressRange nettyRange(std::string source, const std::string& where)
{
    if (source.find('/') == std::string::npos)
        source += "/32";
    const std::size_t slash = source.find('/');
    const std::string address = source.substr(0, slash), prefix = source.substr(slash + 1);
    const std::optional<IpAddress> ip = parseIpLiteral(address);
    if (!ip)
        throw InputError("Spring: " + where + ": " + ratelab::quoted(address) + " is no IP address --config reads "
                         "(a host name is resolved by DNS when the route is built)");
    const std::size_t sign = prefix.starts_with('+') || prefix.starts_with('-') ? 1 : 0;
    if (prefix.size() == sign || prefix.find_first_not_of("0123456789", sign) != std::string::npos)
        throw InputError("Spring: " + where + ": the prefix " + ratelab::quoted(prefix) + " is no integer: Spring refuses it "
                         "(NumberFormatException)");
    int bits = 0;
    for (std::size_t i = sign; i < prefix.size(); ++i)
        bits = std::min(bits * 10 + (prefix[i] - '0'), 1000);
    if (prefix[0] == '-')
        bits = -bits;
    if (bits < 0 || bits > (ip->v4 ? 32 : 128))
        throw InputError("Spring: " + where + ": " + ratelab::quoted(source) + ": a prefix of " + std::to_string(bits)
                         + " bits for an IPv" + (ip->v4 ? "4" : "6") + " address: Spring refuses it (IpSubnetFilterRule)");
    return maskedRange(*ip, bits);
}

namespace {

// epochMillis reads Long.parseLong's form (a sign, decimal digits, within a long): nullopt else.
std::optional<std::int64_t> epochMillis(const std::string& text)
{
    const std::size_t sign = text.starts_with('+') || text.starts_with('-') ? 1 : 0;
    if (text.size() == sign || text.size() > sign + 19 || text.find_first_not_of("0123456789", sign) != std::string::npos)
        return std::nullopt;
    __int128 v = 0;
    for (std::size_t i = sign; i < text.size(); ++i)
        v = v * 10 + (text[i] - '0');
    v = text[0] == '-' ? -v : v;
    if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
        return std::nullopt;
    return std::int64_t(v);
}

// isoOffset reads ISO_ZONED_DATE_TIME's offset at i into seconds east of UTC; nullopt when it is
// not one. ISO_OFFSET_DATE_TIME reads it with parseLenient().appendOffsetId() (OpenJDK
// DateTimeFormatter.java; DateTimeFormatterBuilder.OffsetIdPrinterParser.parse, lenient
// "+HH:MM:ss" is parse type 10, "+HH:mm:ss"): 'Z' in any case, or a sign and two digits of hours,
// then optionally :MM and then :SS (+01, +01:30, +01:30:15; +0130 leaves "30" unread, refused),
// the hours at most 23 and the whole at most 18 hours (ZoneOffset).
std::optional<int> isoOffset(const std::string& t, std::size_t& i)
{
    if (i < t.size() && (t[i] == 'Z' || t[i] == 'z'))
        return ++i, 0;
    if (i >= t.size() || (t[i] != '+' && t[i] != '-'))
        return std::nullopt;
    const int sign = t[i++] == '-' ? -1 : 1;
    int parts[3] = {0, 0, 0}, n = 0;
    for (; n < 3; ++n) {
        if (n > 0 && (i >= t.size() || t[i] != ':'))
            break;
        i += n > 0;
        if (i + 2 > t.size() || !std::isdigit(static_cast<unsigned char>(t[i])) || !std::isdigit(static_cast<unsigned char>(t[i + 1])))
            return std::nullopt;
        parts[n] = (t[i] - '0') * 10 + (t[i + 1] - '0');
        i += 2;
    }
    if (n < 1 || parts[0] > 23 || parts[1] > 59 || parts[2] > 59 || parts[0] * 3600 + parts[1] * 60 + parts[2] > 18 * 3600)
        return std::nullopt;
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
}

// bracketZone says whether ISO_ZONED_DATE_TIME's optional [zone] reads `zone` whole
// (appendZoneRegionId, ZoneIdPrinterParser.parse): an offset id (+01:00; UTC, GMT or UT with
// one or none after it; Z), else a region of the time-zone database (case-sensitive). Java's
// own tzdb decides in Spring; this machine's (Qt's QTimeZone, the system's tzdata) decides here.
bool bracketZone(const std::string& zone)
{
    for (const char* prefix : {"UTC", "GMT", "UT", ""}) {
        if (!zone.starts_with(prefix))
            continue;
        std::size_t i = std::strlen(prefix);
        if (i == zone.size() && i > 0)
            return true;
        if (i < zone.size() && (zone[i] == '+' || zone[i] == '-') && isoOffset(zone, i) && i == zone.size())
            return true;
    }
    return zone == "Z" || QTimeZone::isTimeZoneIdAvailable(QByteArray::fromStdString(zone));
}

} // namespace

DryRunInstant javaInstant(const std::string& t, const std::string& where)
{
    if (const std::optional<std::int64_t> ms = epochMillis(t)) {
        const std::int64_t seconds = *ms / 1000 - (*ms % 1000 < 0);
        return {seconds, std::int32_t((*ms - seconds * 1000) * 1'000'000)};
    }
    const std::string head = "Spring: " + where + ": " + ratelab::quoted(t);
    const InputError bad(head + " is neither milliseconds since 1970 nor an ISO-8601 date-time with an offset as "
                                "ZonedDateTime.parse reads it (2017-01-20T17:42:47.789-07:00)");
    std::size_t i = 0;
    const auto number = [&](std::size_t width, char before) {
        if ((before && (i >= t.size() || std::tolower(static_cast<unsigned char>(t[i++])) != before)) || i + width > t.size())
            throw bad;
        int v = 0;
        for (const std::size_t end = i + width; i < end; ++i)
            v = std::isdigit(static_cast<unsigned char>(t[i])) ? v * 10 + (t[i] - '0') : throw bad;
        return v;
    };
    const int year = number(4, 0), month = number(2, '-'), day = number(2, '-'), hour = number(2, 't'), minute = number(2, ':');
    const bool seconds = i < t.size() && t[i] == ':';
    const int second = seconds ? number(2, ':') : 0;
    std::int32_t nanos = 0;
    if (seconds && i < t.size() && t[i] == '.') { // ISO_LOCAL_TIME: a fraction only after the seconds
        const std::size_t start = ++i;
        for (; i < t.size() && i - start < 9 && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
            nanos = nanos * 10 + (t[i] - '0');
        for (std::size_t d = i - start; d < 9; ++d)
            nanos *= 10;
    }
    static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (i == t.size() || t[i] == '[')
        throw InputError(head + " has no offset: Spring refuses it (ZonedDateTime.parse's ISO_ZONED_DATE_TIME needs the "
                                "offset, as in 2017-01-20T17:42:47.789-07:00[America/Denver])");
    const std::optional<int> offset = isoOffset(t, i);
    if (!offset || month < 1 || month > 12 || day < 1 || day > kDays[month - 1] || (month == 2 && day == 29 && !leap) || hour > 23
        || minute > 59 || second > 59)
        throw bad;
    if (i < t.size() && (t[i] != '[' || !t.ends_with(']')))
        throw bad;
    if (i < t.size() && !bracketZone(t.substr(i + 1, t.size() - i - 2)))
        throw InputError(head + ": a zone in brackets must be an offset or a region of the time-zone database: Spring "
                                "refuses an unknown region (ZoneRulesException)");
    return {epochFromCivil(year, month, day, hour, minute, second) - *offset, nanos};
}

} // namespace ratelab::io
