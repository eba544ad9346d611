#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"
#include "limiters/limiter.h"

#include <arpa/inet.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace ratelab::detail {

namespace {

// Field is one token of an access-log line.
struct Field {
    enum Kind : std::uint8_t { Bare, Quoted, Bracketed } kind = Bare;
    std::string_view text;
};

enum class Scan : std::uint8_t { Found, End, Unterminated };

constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
constexpr bool kLittle = std::endian::native == std::endian::little;

// zeroBytes marks (0x80) the lowest byte of v that is zero and may mark bytes above it: the
// lowest mark is exact (the borrow only runs upwards).
constexpr std::uint64_t zeroBytes(std::uint64_t v) { return (v - kOnes) & ~v & kHighs; }

std::uint64_t word(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// wordEnd returns the first space or tab at or after pos, or n: eight bytes a step while eight
// remain (fields are short; a call to a library scan costs more than they do).
[[gnu::always_inline]] inline std::size_t wordEnd(const char* s, std::size_t pos, std::size_t n)
{
    if constexpr (kLittle) {
        for (; pos + 8 <= n; pos += 8) {
            const std::uint64_t v = word(s + pos);
            if (const std::uint64_t m = zeroBytes(v ^ (kOnes * ' ')) | zeroBytes(v ^ (kOnes * '\t')))
                return pos + std::size_t(std::countr_zero(m) / 8);
        }
    }
    while (pos < n && !isSpace(s[pos]))
        ++pos;
    return pos;
}

// findByte returns the first c at or after pos, or npos: eight bytes a step for the first 32,
// then memchr (a referer of "-" or a time of 26 bytes ends long before a call pays off).
[[gnu::always_inline]] inline std::size_t findByte(const char* s, std::size_t pos, std::size_t n, char c)
{
    if constexpr (kLittle) {
        for (const std::size_t stop = std::min(n, pos + 32); pos + 8 <= stop; pos += 8)
            if (const std::uint64_t m = zeroBytes(word(s + pos) ^ (kOnes * std::uint8_t(c))))
                return pos + std::size_t(std::countr_zero(m) / 8);
    }
    const void* at = pos < n ? std::memchr(s + pos, c, n - pos) : nullptr;
    return at ? std::size_t(static_cast<const char*>(at) - s) : std::string_view::npos;
}

// closingQuote returns the quote that ends a quoted field whose text starts at begin (a
// backslash escapes the next character), or npos. A quote is escaped when an odd run of
// backslashes comes right before it: the run starts where a character is read on its own (after
// a character that is not a backslash, or at begin), so its parity decides. Each backslash is
// looked at once, so a line of any length takes linear time.
[[gnu::always_inline]] inline std::size_t closingQuote(std::string_view line, std::size_t begin)
{
    const char* s = line.data();
    for (std::size_t at = begin;;) {
        const std::size_t quote = findByte(s, at, line.size(), '"');
        if (quote == std::string_view::npos)
            return quote;
        std::size_t slashes = 0;
        while (quote - slashes > begin && s[quote - slashes - 1] == '\\')
            ++slashes;
        if (slashes % 2 == 0)
            return quote;
        at = quote + 1;
    }
}

// nextField reads the token after pos (spaces and tabs skipped) into out and moves pos past it:
// a bare word, a "quoted" string or a [bracketed] time (the brackets and quotes left out).
// Inlined: it runs about ten times a line, and a call costs as much as a short field's scan.
[[gnu::always_inline]] inline Scan nextField(std::string_view line, std::size_t& pos, Field& out)
{
    const std::size_t n = line.size();
    while (pos < n && isSpace(line[pos]))
        ++pos;
    if (pos == n)
        return Scan::End;
    if (line[pos] == '"') {
        const std::size_t begin = pos + 1, end = closingQuote(line, begin);
        if (end == std::string_view::npos)
            return Scan::Unterminated;
        out = {Field::Quoted, line.substr(begin, end - begin)};
        pos = end + 1;
    } else if (line[pos] == '[') {
        const std::size_t end = findByte(line.data(), pos + 1, n, ']');
        if (end == std::string_view::npos)
            return Scan::Unterminated;
        out = {Field::Bracketed, line.substr(pos + 1, end - pos - 1)};
        pos = end + 1;
    } else {
        const std::size_t begin = pos;
        pos = wordEnd(line.data(), pos, n);
        out = {Field::Bare, line.substr(begin, pos - begin)};
    }
    return Scan::Found;
}

// tokenize splits an access-log line into its fields, separated by any run of spaces or tabs.
// It returns false for an unterminated quote or bracket.
bool tokenize(std::string_view line, std::vector<Field>& fields)
{
    fields.clear();
    std::size_t pos = 0;
    Field f;
    while (true) {
        const Scan s = nextField(line, pos, f);
        if (s != Scan::Found)
            return s == Scan::End;
        fields.push_back(f);
    }
}

bool looksLikeAddress(std::string_view t)
{
    if (t.size() < 2 || t.size() > 45)
        return false;
    if (t.find(':') != std::string_view::npos) // IPv6: hex digits, colons, maybe a dotted tail
        return std::all_of(t.begin(), t.end(), [](char c) { return isAsciiDigit(c) || c == ':' || c == '.' || ((c | 32) >= 'a' && (c | 32) <= 'f'); });
    int dots = 0;
    for (char c : t) {
        if (c == '.')
            ++dots;
        else if (!isAsciiDigit(c))
            return false;
    }
    return dots == 3;
}

thread_local std::vector<Field> t_fields;

} // namespace


std::string_view requestPath(std::string_view request)
{
    const std::size_t space = request.find(' ');
    if (space == std::string_view::npos)
        return {};
    std::size_t begin = space;
    while (begin < request.size() && request[begin] == ' ')
        ++begin;
    const std::size_t end = std::min(request.find(' ', begin), request.size());
    return originForm(request.substr(begin, end - begin));
}

std::string_view originForm(std::string_view target)
{
    if (target.empty() || target[0] == '/') // the origin form of nearly every line: no scan
        return target;
    const std::size_t colon = target.find("://");
    if (colon == std::string_view::npos || colon == 0)
        return target;
    for (std::size_t i = 0; i < colon; ++i) // nginx's scheme: letters only (ngx_http_parse_request_line)
        if (const char c = char(target[i] | 0x20); c < 'a' || c > 'z')
            return target;
    // The authority ends at the first '/', '?' or '#'; nginx's URI starts there (sw_host_end), so
    // a query straight after the host is $request_uri's whole ("?a=/b", no path of its own).
    const std::size_t end = target.find_first_of("/?#", colon + 3);
    return end == std::string_view::npos || target[end] == '#' ? std::string_view("/") : target.substr(end);
}

namespace {

// accessLogHead reads a line's first five fields into out, pos past them: NotAccessLog for fewer
// fields or the wrong kinds, Unterminated for a quote or bracket that never closes among them.
AccessLogSplit accessLogHead(std::string_view line, std::size_t& pos, AccessLogLine& out)
{
    // Written field by field, not through an array of Fields set to zero first: the zeroing
    // alone cost a tenth of the line's time.
    std::string_view* const texts[5] = {&out.host, &out.ident, &out.user, &out.time, &out.request};
    Field::Kind kinds[5];
    Field f;
    for (std::size_t i = 0; i < 5; ++i) {
        const Scan s = nextField(line, pos, f);
        if (s != Scan::Found)
            return s == Scan::End ? AccessLogSplit::NotAccessLog : AccessLogSplit::Unterminated;
        *texts[i] = f.text;
        kinds[i] = f.kind;
    }
    if (kinds[0] != Field::Bare || kinds[3] != Field::Bracketed || kinds[4] != Field::Quoted)
        return AccessLogSplit::NotAccessLog;
    return AccessLogSplit::Ok;
}

// The combined format's fields after the request: $status $body_bytes_sent "$http_referer"
// "$http_user_agent" (nginx's log_format combined; Apache's LogFormat of that name). The common
// format has the first two.
constexpr std::string_view kCombinedTail[] = {"status", "body_bytes_sent", "http_referer", "http_user_agent"};

// restTerminated reads the fields after pos; false when a quote or bracket never closes.
bool restTerminated(std::string_view line, std::size_t pos)
{
    Field f;
    Scan s = Scan::Found;
    while (s == Scan::Found)
        s = nextField(line, pos, f);
    return s == Scan::End;
}

} // namespace

AccessLogSplit splitAccessLog(std::string_view line, AccessLogLine& out)
{
    std::size_t pos = 0;
    const AccessLogSplit head = accessLogHead(line, pos, out);
    return head == AccessLogSplit::Unterminated || !restTerminated(line, pos) ? AccessLogSplit::Unterminated : head;
}

std::string_view canonicalAddress(std::string_view text, std::string& storage)
{
    if (text.find(':') == std::string_view::npos || text.size() > 45)
        return text;
    char in[64];
    std::memcpy(in, text.data(), text.size());
    in[text.size()] = '\0';
    unsigned char addr[16];
    char buffer[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET6, in, addr) != 1 || !inet_ntop(AF_INET6, addr, buffer, sizeof buffer))
        return text;
    storage = buffer;
    return storage;
}

LineParser::LineParser(LogFormat format, const TrafficOptions& options)
    : m_format(format), m_options(options)
{
    const bool accessLog = format == LogFormat::Combined || format == LogFormat::Common || format == LogFormat::Msec;
    if (accessLog && options.key != "ip" && !(options.key == "user" && format != LogFormat::Msec))
        throw InputError("--key " + ratelab::quoted(options.key) + ": an access log's key is ip"
                         + (format == LogFormat::Msec ? "" : " or user") + " (fields are named in JSON and CSV logs)");
    m_keyIsUser = options.key == "user";
    m_wantTail = (format == LogFormat::Combined || format == LogFormat::Common)
                 && std::any_of(options.keyFields.begin(), options.keyFields.end(), [](const std::string& f) {
                        return std::find(std::begin(kCombinedTail), std::end(kCombinedTail), f) != std::end(kCombinedTail);
                    });
    m_fieldColumn.assign(options.keyFields.size(), -1);
    m_fieldStorage.resize(options.keyFields.size());
    if (accessLog && !options.costField.empty())
        throw InputError("--cost-field " + ratelab::quoted(options.costField)
                         + ": an access log has no named fields (every request costs --cost; or give its log_format: "
                           "--log-format 'nginx:...')");
    if (format == LogFormat::Nginx)
        setUpNginx();
}

namespace {

int hexDigit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

// Apache's letter escapes of control bytes (ap_escape_logitem), and the bytes.
constexpr char kControls[] = "bnrtv";
constexpr char kControlBytes[] = "\b\n\r\t\v";

} // namespace

std::string_view unlogged(std::string_view text, std::string& storage)
{
    if (text.find('\\') == std::string_view::npos)
        return text;
    storage.clear();
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x' && hexDigit(text[i + 2]) >= 0
            && hexDigit(text[i + 3]) >= 0) {
            storage += char(hexDigit(text[i + 2]) * 16 + hexDigit(text[i + 3]));
            i += 3;
        } else if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
            storage += text[++i];
        } else if (const char* c = i + 1 < text.size() && text[i] == '\\' ? std::strchr(kControls, text[i + 1]) : nullptr;
                   c && *c) {
            storage += kControlBytes[c - kControls];
            ++i;
        } else {
            storage += text[i];
        }
    }
    return storage;
}

bool LineParser::tail(std::string_view line, std::size_t pos, ParsedLine& out)
{
    Field f;
    for (std::size_t at = 0;; ++at) {
        const Scan s = nextField(line, pos, f);
        if (s != Scan::Found)
            return s == Scan::End;
        if (at < std::size(kCombinedTail) && (at < 2 ? f.kind == Field::Bare : f.kind == Field::Quoted))
            for (std::size_t i = 0; i < out.fields.size(); ++i)
                if (m_options.keyFields[i] == kCombinedTail[at])
                    field(i, f.kind == Field::Quoted ? unlogged(f.text, m_fieldStorage[i]) : f.text, out);
    }
}

void LineParser::field(std::size_t i, std::string_view raw, ParsedLine& out)
{
    if (raw == "-")
        raw = {};
    out.fields[i] = m_options.keyFields[i] == "ip" && !raw.empty() ? canonicalAddress(raw, m_fieldStorage[i]) : raw;
}

void LineParser::methodField(std::string_view request, ParsedLine& out)
{
    for (std::size_t i = 0; i < out.fields.size(); ++i)
        if (m_options.keyFields[i] == "request_method" && out.fields[i].empty() && requestPath(request).size() > 0)
            out.fields[i] = request.substr(0, request.find(' '));
}

std::string LineParser::parse(std::string_view line, ParsedLine& out)
{
    out.fields.assign(m_options.keyFields.size(), std::string_view());
    switch (m_format) {
    case LogFormat::Combined:
    case LogFormat::Common: return parseAccessLog(line, out);
    case LogFormat::Msec: return parseMsec(line, out);
    case LogFormat::Json: return parseJson(line, out);
    case LogFormat::Csv: return parseCsv(line, out);
    case LogFormat::Nginx: return parseNginx(line, out);
    case LogFormat::Auto: break;
    }
    return "no format";
}

std::string LineParser::finish(std::string_view keyText, std::string_view timeText, std::string_view costText,
                               bool hasCost, std::string_view pathText, ParsedLine& out)
{
    if (!parseAnyTime(timeText, out.epochNanos, out.fraction))
        return "time " + ratelab::quoted(timeText) + " is not epoch seconds, ISO 8601 or dd/Mon/yyyy:HH:MM:SS +zone";
    if (keyText.empty() && !m_options.emptyKeys)
        return "empty key";
    out.key = m_options.key == "ip" && !keyText.empty() ? canonicalAddress(keyText, m_keyStorage) : keyText;
    out.path = originForm(pathText); // a target logged in absolute form is routed by its path, as a request line's is
    out.cost = 1;
    if (hasCost) {
        try {
            out.cost = parseIntegerIn(costText, 1, kMaxCost);
        } catch (const InputError& e) {
            return "cost " + ratelab::quoted(costText) + ": " + e.what();
        }
    }
    return {};
}

std::string LineParser::parseAccessLog(std::string_view line, ParsedLine& out)
{
    // splitAccessLog's steps, with the key's place in the reader's table fetched between them:
    // while the rest of the line is read, the memory the key's lookup needs is on its way.
    AccessLogLine f;
    std::size_t pos = 0;
    const AccessLogSplit head = accessLogHead(line, pos, f);
    if (head == AccessLogSplit::Ok && m_keyIds)
        m_keyIds->prefetch(m_keyIsUser ? f.user : f.host);
    if (head == AccessLogSplit::Unterminated || !(m_wantTail ? tail(line, pos, out) : restTerminated(line, pos)))
        return "an unterminated quote or bracket";
    if (head == AccessLogSplit::NotAccessLog)
        return "not an access-log line (host ident user [time] \"request\" ...)";
    // A log repeats each second many times: the last one read is remembered.
    if (f.time != m_lastClf) {
        if (!parseClfTime(f.time, m_lastClfNanos)) {
            m_lastClf.clear();
            return "time " + ratelab::quoted(f.time) + " is not dd/Mon/yyyy:HH:MM:SS +zone";
        }
        m_lastClf.assign(f.time);
    }
    out.epochNanos = m_lastClfNanos;
    out.fraction = false;
    const std::string_view key = m_keyIsUser ? f.user : f.host;
    if (key.empty())
        return "empty key";
    out.key = m_keyIsUser ? key : canonicalAddress(key, m_keyStorage);
    out.path = requestPath(f.request);
    out.cost = 1;
    for (std::size_t i = 0; i < out.fields.size(); ++i) // an access log holds the address and the user
        if (m_options.keyFields[i] == "ip" || m_options.keyFields[i] == "user")
            field(i, m_options.keyFields[i] == "ip" ? f.host : f.user, out);
    methodField(f.request, out);
    return {};
}

std::string LineParser::parseMsec(std::string_view line, ParsedLine& out)
{
    std::vector<Field>& f = t_fields;
    if (!tokenize(line, f))
        return "an unterminated quote or bracket";
    // The time is the first bare word of seconds since 1970 with decimals and at least nine whole
    // digits (1973 on): $request_time, $upstream_response_time (0.004, 12.5) are durations, and
    // may come before it.
    bool haveTime = false, haveKey = false, haveRequest = false;
    out.path = {};
    for (const Field& x : f) {
        if (x.kind == Field::Bare && !haveTime && x.text.find('.') != std::string_view::npos
            && x.text.find(':') == std::string_view::npos && !looksLikeAddress(x.text)) {
            haveTime = x.text.find('.') >= 9 && parseDecimalSeconds(x.text, out.epochNanos, out.fraction);
        } else if (x.kind == Field::Bare && !haveKey && looksLikeAddress(x.text)) {
            out.key = canonicalAddress(x.text, m_keyStorage);
            haveKey = true;
        } else if (x.kind == Field::Quoted && !haveRequest && x.text.find(' ') != std::string_view::npos) {
            out.path = requestPath(x.text);
            methodField(x.text, out);
            haveRequest = true;
        }
    }
    if (!haveTime)
        return "no $msec time (seconds since 1970 with decimals, 1763900000.123; or give the log_format: --log-format "
               "'nginx:...')";
    if (!haveKey)
        return "no client address";
    for (std::size_t i = 0; i < out.fields.size(); ++i)
        if (m_options.keyFields[i] == "ip")
            out.fields[i] = out.key;
    out.cost = 1;
    return {};
}

} // namespace ratelab::detail
