// LineParser, the part of the traffic reader that turns one line into a time, a key, a path and
// a cost. Internal to core (traffic_log.cpp uses it; tests reach it through parseTraffic).
#pragma once

#include "traffic/traffic_log.h"

#include <string>
#include <string_view>
#include <vector>

namespace ratelab::detail {

// ParsedLine is one request as read. key and path point into the line or the parser's storage
// and stay valid until the next call.
struct ParsedLine {
    Nanos epochNanos = 0;
    bool fraction = false; // the time was written with decimals
    std::string_view key;
    std::string_view path; // empty when the line has none (a request of "-")
    std::int64_t cost = 1;
};

// parseDecimalSeconds reads "1763900000.123" (digits, optionally a point and at most nine more)
// into ns; it returns false for anything else or a value of 2^63 ns or more.
bool parseDecimalSeconds(std::string_view text, Nanos& out, bool& fraction);
// parseClfTime reads "10/Oct/2026:13:55:36 +0000" (the brackets already removed).
bool parseClfTime(std::string_view text, Nanos& out);
// parseIsoTime reads "2026-10-10T13:55:36[.123456789](Z|+hh:mm|-hhmm)" (or a space for the T).
bool parseIsoTime(std::string_view text, Nanos& out, bool& fraction);
// parseAnyTime tries decimal seconds, ISO 8601 and the access-log form, in that order.
bool parseAnyTime(std::string_view text, Nanos& out, bool& fraction);
// requestPath returns the path of "GET /a/b?c HTTP/1.1" ("/a/b?c"), or an empty view.
std::string_view requestPath(std::string_view request);
// canonicalAddress returns an IPv6 address in its canonical text form (RFC 5952) in storage, or
// the text as it is for anything else.
std::string_view canonicalAddress(std::string_view text, std::string& storage);

class LineParser {
public:
    LineParser(LogFormat format, const TrafficOptions& options);

    // header reads a CSV header; it throws InputError naming a field the options ask for that
    // the header lacks.
    void header(std::string_view line);
    // parse reads one line; it returns an empty string or the reason the line cannot be read.
    std::string parse(std::string_view line, ParsedLine& out);

private:
    std::string parseAccessLog(std::string_view line, ParsedLine& out);
    std::string parseMsec(std::string_view line, ParsedLine& out);
    std::string parseJson(std::string_view line, ParsedLine& out);
    std::string parseCsv(std::string_view line, ParsedLine& out);
    std::string finish(std::string_view keyText, std::string_view timeText, std::string_view costText,
                       bool hasCost, std::string_view pathText, ParsedLine& out);

    LogFormat m_format;
    const TrafficOptions& m_options;
    bool m_keyIsUser = false;
    bool m_wantPath = false;
    // CSV: the column of each field (-1: absent), and the delimiter.
    int m_keyColumn = -1, m_timeColumn = -1, m_costColumn = -1, m_pathColumn = -1, m_requestColumn = -1;
    char m_delimiter = ',';
    std::vector<std::string> m_cells; // CSV cells / JSON values, decoded
    std::string m_keyStorage;
    std::string m_lastClf; // the last access-log time read, and its value: a log repeats each second
    Nanos m_lastClfNanos = 0;
};

} // namespace ratelab::detail
