// LineParser, the part of the traffic reader that turns one line into a time, a key, a path and
// a cost, and the format detection that picks it. Internal to core (traffic_log.cpp uses it;
// tests reach it through parseTraffic).
#pragma once

#include "traffic/text_ids.h"
#include "traffic/traffic_log.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab::detail {

// isAsciiDigit is '0'..'9' only, whatever the locale.
inline bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }
// isSpace is what separates a log line's fields: a space or a tab.
inline bool isSpace(char c) { return c == ' ' || c == '\t'; }

// ParsedLine is one request as read. key and path point into the line or the parser's storage
// and stay valid until the next call.
struct ParsedLine {
    Nanos epochNanos = 0;
    bool fraction = false; // the time was written with decimals
    std::string_view key;
    std::string_view path; // empty when the line has none (a request of "-")
    std::int64_t cost = 1;
    std::vector<std::string_view> fields; // per TrafficOptions::keyFields: its value, "" when absent
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
// requestPath returns the path of "GET /a/b?c HTTP/1.1" ("/a/b?c"), or an empty view; of an
// absolute-form target, its originForm.
std::string_view requestPath(std::string_view request);
// originForm is a request target's path and query as nginx's $request_uri holds them: an
// absolute-form target ("http://host:8080/a?b", RFC 9112 3.2.2, as a proxy is sent it) from the
// first '/' or '?' after its host, where ngx_http_parse_request_line starts the URI ("/" when
// there is neither); any other target as it is.
std::string_view originForm(std::string_view target);
// AccessLogLine is the fields of an access-log line (combined or common) a reader uses, views
// into the line: host ident user [time] "request" ..., the brackets and quotes left out (a
// quoted field's escapes kept as written).
struct AccessLogLine {
    std::string_view host, ident, user, time, request;
};
enum class AccessLogSplit : std::uint8_t { Ok, Unterminated, NotAccessLog };
// splitAccessLog reads a line's fields: bare words, "quoted" strings (a backslash escapes the next
// character) and [bracketed] times, separated by runs of spaces or tabs. Every field is read to
// the line's end, so an unterminated quote or bracket anywhere makes the line Unterminated; else
// fewer than five fields, a quoted or bracketed host, a time not bracketed or a request not
// quoted make it NotAccessLog. out is whole only when the line is Ok.
AccessLogSplit splitAccessLog(std::string_view line, AccessLogLine& out);
// unlogged is a logged field's text as the request sent it, in storage when it differs: nginx's
// log escaping writes '"', '\\' and bytes outside 0x20-0x7e as \xHH (ngx_http_log_escape; escape=json
// writes \" and \\), Apache's '"' and '\\' as \" and \\, and \b \n \r \t \v for those bytes.
std::string_view unlogged(std::string_view text, std::string& storage);
// canonicalAddress returns an IPv6 address in its canonical text form (RFC 5952) in storage, or
// the text as it is for anything else.
std::string_view canonicalAddress(std::string_view text, std::string& storage);

// classifyLine names the format one line looks like (Combined, Common, Msec, Json, Csv), or Auto
// when it looks like none.
LogFormat classifyLine(std::string_view line);

// SampleLine is one line of the sample a format is decided from: its number (from 1) and text.
struct SampleLine {
    std::int64_t number = 0;
    std::string text;
};

// decideFormat returns the format that more than half of the sample's lines that look like a
// format look like, counting combined and common as one family. The file's first line (`tail -c`
// cuts it) decides only when no other line looks like any format. It throws InputError, naming
// the log, the counts and the first lines that disagree, when no format holds a majority or no
// line looks like a log line.
LogFormat decideFormat(const std::vector<SampleLine>& sample, const std::string& name);

// NginxLogFormat is an nginx log_format string: literal text and $variables. A line is split by
// finding, after each variable, the first occurrence of the text that follows it in the format
// (nginx escapes '"' in values as \x22, so a quote in the format is never inside a value);
// $time_local spans its own space.
class NginxLogFormat {
public:
    // The constructor reads the string ("$remote_addr - [$time_local] ...") or a whole log_format
    // directive (log_format NAME [escape=...] '...' '...';). It throws InputError for no variable,
    // or two variables with no text between them (nothing tells where one ends).
    explicit NginxLogFormat(std::string_view text);
    // index returns a variable's place among variables(), or -1.
    int index(std::string_view name) const;
    const std::vector<std::string>& variables() const { return m_names; }
    // split fills values (one per variable, views into line); it returns "" or why the line does
    // not match.
    std::string split(std::string_view line, std::vector<std::string_view>& values) const;

private:
    std::vector<std::string> m_names;
    std::vector<std::string> m_literals; // m_literals[i] comes before variable i; the last one after the last
};

// JsonLines is the JSON-lines reader's state (traffic_parse_json.cpp), kept out of this header.
struct JsonLines;
struct JsonLinesDeleter {
    void operator()(JsonLines* p) const;
};

class LineParser {
public:
    LineParser(LogFormat format, const TrafficOptions& options);

    // header reads a CSV header; it throws InputError naming a field the options ask for that
    // the header lacks.
    void header(std::string_view line);
    // parse reads one line; it returns an empty string or the reason the line cannot be read.
    std::string parse(std::string_view line, ParsedLine& out);
    // hintKeys names the table the caller will look each line's key up in (nullptr: none): an
    // access log's reader asks it to fetch the key's place early.
    void hintKeys(const TextIds* keys) { m_keyIds = keys; }
    // pathIsUri: the paths are an nginx log_format's $uri (decoded, without the query string).
    bool pathIsUri() const { return m_pathIsUri; }

private:
    std::string parseAccessLog(std::string_view line, ParsedLine& out);
    // tail reads the fields after pos into the key fields kCombinedTail names (a bare status and
    // size, then quoted strings; a field of another kind is left empty); false when a quote or
    // bracket never closes.
    bool tail(std::string_view line, std::size_t pos, ParsedLine& out);
    std::string parseMsec(std::string_view line, ParsedLine& out);
    std::string parseJson(std::string_view line, ParsedLine& out);
    std::string parseCsv(std::string_view line, ParsedLine& out);
    std::string parseNginx(std::string_view line, ParsedLine& out);
    void setUpNginx();
    std::string finish(std::string_view keyText, std::string_view timeText, std::string_view costText,
                       bool hasCost, std::string_view pathText, ParsedLine& out);

    LogFormat m_format;
    const TrafficOptions& m_options;
    bool m_keyIsUser = false;
    const TextIds* m_keyIds = nullptr;
    // m_wantTail: a key field is one of the access log's fields after the request (kCombinedTail:
    // status bytes "referer" "agent").
    bool m_wantTail = false;
    // CSV: the column of each field (-1: absent), and the delimiter.
    int m_keyColumn = -1, m_timeColumn = -1, m_costColumn = -1, m_pathColumn = -1, m_requestColumn = -1;
    char m_delimiter = ',';
    std::vector<std::string> m_cells; // CSV cells / JSON values, decoded
    std::unique_ptr<JsonLines, JsonLinesDeleter> m_json; // simdjson's parser, made at the first JSON line
    std::string m_keyStorage;
    std::string m_lastClf; // the last access-log time read, and its value: a log repeats each second
    Nanos m_lastClfNanos = 0;
    // An nginx log_format: the format, and the variable of each field (-1: absent).
    std::unique_ptr<NginxLogFormat> m_nginx;
    int m_nginxTime = -1, m_nginxKey = -1, m_nginxPath = -1, m_nginxCost = -1;
    bool m_nginxRequestLine = false; // the path comes from $request ("GET /a HTTP/1.1")
    bool m_pathIsUri = false;
    std::vector<std::string_view> m_values;
    // The key fields besides the key: their CSV column or log_format variable (-1: absent), and
    // their values when decoded or made canonical.
    std::vector<int> m_fieldColumn;
    std::vector<std::string> m_fieldStorage;
    std::vector<int> m_fieldRank; // JSON: the rank of the name each key field was read by (fieldRank)
    // field sets out.fields[i] from a raw value: "-" is none, an address canonical.
    void field(std::size_t i, std::string_view raw, ParsedLine& out);
    // methodField sets the field request_method, when read and not logged on its own, from the
    // request line ("GET /a HTTP/1.1": GET), as nginx's $request_method is that line's first word.
    void methodField(std::string_view request, ParsedLine& out);
};

} // namespace ratelab::detail
