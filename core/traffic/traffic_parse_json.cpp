// The JSON-lines format of the traffic reader, read by simdjson's On Demand parser (Debian's
// libsimdjson-dev). Each line is one JSON object, read whole as RFC 8259 says: every string
// decoded (a surrogate pair to its one code point), every escape, number and nested value
// checked, and the line's bytes UTF-8. A field's value is its decoded string, or for any other
// value its JSON text as written (a number as "946684800.5", a nested object as "{...}"); the
// first field of a name counts. A line that is not such an object is unreadable, with the reason.
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"

#include <simdjson.h>

#include <cstring>

namespace ratelab::detail {

// JsonLines is the parser's state, kept across lines: simdjson's parser and the line copied with
// the SIMDJSON_PADDING bytes simdjson reads past the end.
struct JsonLines {
    simdjson::ondemand::parser parser;
    std::string buffer;
};

void JsonLinesDeleter::operator()(JsonLines* p) const { delete p; }

namespace {

using simdjson::error_code;
namespace od = simdjson::ondemand;

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trimmed(std::string_view t)
{
    while (!t.empty() && isJsonSpace(t.back()))
        t.remove_suffix(1);
    return t;
}

// isJsonNumber says whether t is a number as RFC 8259 writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?, of any size (a value read as its text is never converted).
bool isJsonNumber(std::string_view t)
{
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < t.size() && isAsciiDigit(t[i]))
            ++i;
        return i > from;
    };
    if (i < t.size() && t[i] == '-')
        ++i;
    if (i < t.size() && t[i] == '0')
        ++i;
    else if (!digits())
        return false;
    if (i < t.size() && t[i] == '.' && (++i, !digits()))
        return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-'))
            ++i;
        if (!digits())
            return false;
    }
    return i == t.size();
}

int hexValue(char c)
{
    if (isAsciiDigit(c))
        return c - '0';
    c = char(c | 32);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// hex4 reads the four hex digits of a \u escape at text[i], or -1.
long hex4(std::string_view text, std::size_t i)
{
    if (i + 4 > text.size())
        return -1;
    long v = 0;
    for (std::size_t k = i; k < i + 4; ++k) {
        const int d = hexValue(text[k]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

// escapeProblem describes the first escape in line that JSON does not allow (simdjson said a
// string did not decode, and the first such escape is where it stopped): an unknown letter, a \u
// without four hex digits, or half of a surrogate pair alone.
std::string escapeProblem(std::string_view line)
{
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '\\')
            continue;
        if (i + 1 >= line.size())
            break;
        const char c = line[i + 1];
        if (c != 'u') {
            if (std::strchr("\"\\/bfnrt", c) == nullptr || c == '\0') {
                const bool printable = static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
                char byte[8];
                std::snprintf(byte, sizeof byte, "0x%02X", unsigned(static_cast<unsigned char>(c)));
                return "malformed JSON (an invalid escape " + (printable ? "\\" + std::string(1, c) : "\\ before byte " + std::string(byte))
                       + ")";
            }
            ++i;
            continue;
        }
        const long v = hex4(line, i + 2);
        if (v < 0)
            return "malformed JSON (a \\u escape without four hex digits)";
        const std::string written(line.substr(i, 6));
        if (v >= 0xDC00 && v <= 0xDFFF)
            return "malformed JSON (a lone surrogate " + written + ": a low surrogate with no high one before it)";
        if (v >= 0xD800 && v <= 0xDBFF) {
            const long low = i + 7 < line.size() && line[i + 6] == '\\' && line[i + 7] == 'u' ? hex4(line, i + 8) : -1;
            if (low < 0xDC00 || low > 0xDFFF)
                return "malformed JSON (a lone surrogate " + written + ": a high surrogate with no low one after it)";
            i += 6;
        }
        i += 5;
    }
    return "malformed JSON (a string that does not decode)";
}

// closingProblem tells, for a line simdjson found unbalanced, whether the object is never closed
// or text follows it (strings skipped, so braces in them do not count).
std::string closingProblem(std::string_view line)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            if (!trimmed(line.substr(i + 1)).empty())
                return "text after the JSON object";
            break;
        }
    }
    return inString ? "malformed JSON (an unterminated string)" : "malformed JSON (an unclosed object or array)";
}

// fieldProblem words a structural error met where a field should start, at loc: after '{' or ','
// a name was expected; after a name, ':'; after a value, ',' or '}'.
std::string fieldProblem(std::string_view line, const char* loc)
{
    std::size_t i = loc ? std::size_t(loc - line.data()) : 0;
    if (!loc || i > line.size())
        return "malformed JSON";
    while (i > 0 && isJsonSpace(line[i - 1]))
        --i;
    if (i == 0 || line[i - 1] == '{' || line[i - 1] == ',')
        return "malformed JSON (a field name was expected)";
    if (line[i - 1] == '"') { // a name or a string value ends here: which, the text before its opening quote tells
        std::size_t open = i - 1;
        while (open > 0) {
            --open;
            std::size_t backslashes = 0;
            while (open >= backslashes + 1 && line[open - backslashes - 1] == '\\')
                ++backslashes;
            if (line[open] == '"' && backslashes % 2 == 0)
                break;
        }
        while (open > 0 && isJsonSpace(line[open - 1]))
            --open;
        if (open > 0 && (line[open - 1] == '{' || line[open - 1] == ','))
            return "malformed JSON (':' was expected)";
    }
    return "malformed JSON (',' or '}' was expected)";
}

// problem words an error simdjson reported; structural ones are worded by the caller.
std::string problem(error_code e, std::string_view line)
{
    switch (e) {
    case simdjson::UTF8_ERROR: return "malformed JSON (not UTF-8)";
    case simdjson::UNCLOSED_STRING: return "malformed JSON (an unterminated string)";
    case simdjson::UNESCAPED_CHARS: return "malformed JSON (a control character in a string, not escaped)";
    case simdjson::STRING_ERROR: return escapeProblem(line);
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return closingProblem(line);
    case simdjson::DEPTH_ERROR: return "malformed JSON (nested too deep)";
    default: return "malformed JSON (a value was expected)";
    }
}

// checkValue reads a nested value whole, so that a malformed one anywhere in the line refuses it.
error_code checkValue(od::value v)
{
    od::json_type type;
    if (const error_code e = v.type().get(type))
        return e;
    switch (type) {
    case od::json_type::object: {
        od::object o;
        if (const error_code e = v.get_object().get(o))
            return e;
        for (auto f : o) {
            std::string_view name;
            od::value item;
            if (error_code e = f.unescaped_key().get(name); e || (e = f.value().get(item)) || (e = checkValue(item)))
                return e;
        }
        return simdjson::SUCCESS;
    }
    case od::json_type::array: {
        od::array a;
        if (const error_code e = v.get_array().get(a))
            return e;
        for (auto element : a) {
            od::value item;
            if (error_code e = element.get(item); e || (e = checkValue(item)))
                return e;
        }
        return simdjson::SUCCESS;
    }
    case od::json_type::string: {
        std::string_view s;
        return v.get_string().get(s);
    }
    case od::json_type::number: return isJsonNumber(trimmed(v.raw_json_token())) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
    case od::json_type::boolean:
    case od::json_type::null: {
        const std::string_view t = trimmed(v.raw_json_token());
        return t == "true" || t == "false" || t == "null" ? simdjson::SUCCESS : simdjson::T_ATOM_ERROR;
    }
    }
    return simdjson::TAPE_ERROR;
}

// A product's JSON access log names the fields RateLab reads by its own names. For a field asked
// by its RateLab name (the defaults: key and fields "ip", "user", "host", "request_method",
// "http_NAME"; time "time", path "path"), fieldRank ranks a line's field `name`: 0 not that field,
// else lower is better, the best one of a line counting (the first of equal rank). cutPort says the
// value is "host:port", the host to be read.
//  - Traefik (pkg/middlewares/accesslog, logdata.go and logger.go at fd5a576df2): ClientAddr is the
//    connection's req.RemoteAddr, "ip:port", whose host is what its rateLimit (RemoteAddrStrategy,
//    pkg/ip/strategy.go) and ClientIP see; ClientHost is not read, since logger.go overwrites it
//    with the X-Forwarded-For header whenever the request sent one. StartUTC is the request's
//    start to the nanosecond, and outranks "time": Traefik's JSON formatter (logrus's) adds a
//    "time" of when the line was written, in whole seconds. ClientUsername, RequestHost (the port
//    cut), RequestMethod, RequestPath; a kept request header is request_<Canonical-Name>
//    ("request_User-Agent", "request_X-Api-Key": the first letter after request_ upper case).
//  - Envoy has no JSON format of its own (json_format names its keys); Envoy Gateway's default
//    (internal/xds/translator/accesslog.go at 00175ad954, EnvoyTextLogFormat) is read:
//    downstream_remote_address (%DOWNSTREAM_REMOTE_ADDRESS%, "ip:port": the address its
//    remote_address rate-limit action reads; x-forwarded-for is a header, not the client),
//    start_time, method, x-envoy-origin-path (the path as received), :authority, and a header
//    by its lower-case name ("user-agent", "x-forwarded-for": a name holding '-').
int fieldRank(std::string_view asked, std::string_view name, bool& cutPort)
{
    cutPort = false;
    if (name == asked)
        return 2;
    struct Alias {
        std::string_view asked, name;
        int rank;
        bool cutPort;
    };
    static constexpr Alias kAliases[] = {
        {"ip", "ClientAddr", 3, true},          {"ip", "downstream_remote_address", 3, true},
        {"time", "StartUTC", 1, false},         {"time", "start_time", 1, false},
        {"path", "RequestPath", 3, false},      {"path", "x-envoy-origin-path", 3, false},
        {"user", "ClientUsername", 3, false},   {"host", "RequestHost", 3, false},
        {"host", ":authority", 3, false},       {"request_method", "RequestMethod", 3, false},
        {"request_method", "method", 3, false},
    };
    for (const Alias& a : kAliases)
        if (a.asked == asked && a.name == name)
            return cutPort = a.cutPort, a.rank;
    if (!asked.starts_with("http_") || asked.size() == 5)
        return 0;
    // A header: Traefik's request_X-Name, or a lower-case name with '-' (Envoy Gateway's).
    std::string_view header = name;
    if (name.starts_with("request_") && name.size() > 8 && name[8] >= 'A' && name[8] <= 'Z')
        header.remove_prefix(8);
    else if (name.find('-') == std::string_view::npos)
        return 0;
    asked.remove_prefix(5);
    if (header.size() != asked.size())
        return 0;
    for (std::size_t i = 0; i < header.size(); ++i) {
        const char c = header[i] == '-' ? '_' : char(header[i] >= 'A' && header[i] <= 'Z' ? header[i] + 32 : header[i]);
        if (c != asked[i])
            return 0;
    }
    return 3;
}

// jsonValue reads a field's value as the reader keeps it: a string decoded, any other value its
// JSON text as written (a nested one whole, up to the location after it); "" or the problem.
template <typename Location>
std::string jsonValue(od::value& v, od::json_type type, std::string_view text, const Location& location, std::string& value)
{
    if (type == od::json_type::string) {
        std::string_view s;
        if (const error_code e = v.get_string().get(s))
            return problem(e, text);
        value.assign(s);
        return {};
    }
    const std::string_view token = trimmed(v.raw_json_token()); // a number, true, false, null; or '{' or '['
    if (const error_code e = checkValue(v))
        return e == simdjson::TAPE_ERROR ? std::string("malformed JSON (inside a nested object or array)") : problem(e, text);
    if (type == od::json_type::object || type == od::json_type::array) {
        const char* end = location(); // the ',' or '}' after the value, read whole
        value.assign(trimmed(std::string_view(token.data(), std::size_t((end ? end : text.data() + text.size()) - token.data()))));
    } else {
        value.assign(token);
    }
    return {};
}

// padded copies a line into the parser's buffer with simdjson's padding after it, zeroed as
// simdjson's own padded_string; it returns the line's text there, where simdjson's locations point.
std::string_view padded(std::string& buffer, std::string_view line)
{
    buffer.resize(line.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(buffer.data(), line.data(), line.size());
    std::memset(buffer.data() + line.size(), 0, simdjson::SIMDJSON_PADDING);
    return std::string_view(buffer.data(), line.size());
}

// missingField is the problem of a line without a field the options ask for (rank[k]: the rank
// of the field read into cell k, 0 for none), or "".
std::string missingField(const int (&rank)[5], const TrafficOptions& options)
{
    if (!rank[1])
        return "no field " + ratelab::quoted(options.timeField);
    if (!rank[0])
        return "no field " + ratelab::quoted(options.key);
    if (!options.costField.empty() && !rank[2])
        return "no field " + ratelab::quoted(options.costField);
    return {};
}

} // namespace

// parseJson keeps its loop over a line's fields whole: it runs for every field of every line.
std::string LineParser::parseJson(std::string_view line, ParsedLine& out)
{
    std::size_t start = 0;
    while (start < line.size() && isJsonSpace(line[start]))
        ++start;
    if (start >= line.size() || line[start] != '{')
        return "not a JSON object";
    if (!m_json)
        m_json.reset(new JsonLines);
    const std::string_view text = padded(m_json->buffer, line);
    od::document doc;
    if (const error_code e = m_json->parser.iterate(m_json->buffer.data(), line.size(), m_json->buffer.size()).get(doc))
        return problem(e, text);
    od::object object;
    if (const error_code e = doc.get_object().get(object))
        return problem(e, text);
    const auto location = [&]() -> const char* {
        const char* at = nullptr;
        return doc.current_location().get(at) ? nullptr : at;
    };

    m_cells.assign(5, std::string()); // key, time, cost, path, request
    int rank[5] = {}; // of the field read into each cell (fieldRank), 0 for none yet
    static const std::string kRequest = "request";
    const std::string* names[5] = {&m_options.key, &m_options.timeField, &m_options.costField, &m_options.pathField, &kRequest};
    m_fieldRank.assign(m_options.keyFields.size(), 0);
    std::string value;
    for (auto f : object) {
        std::string_view name;
        if (const error_code e = f.unescaped_key().get(name))
            return e == simdjson::TAPE_ERROR ? fieldProblem(text, location()) : problem(e, text);
        od::value v;
        od::json_type type;
        if (error_code e = f.value().get(v); e || (e = v.type().get(type)))
            return e == simdjson::TAPE_ERROR ? std::string("malformed JSON (a value was expected)") : problem(e, text);
        if (const std::string error = jsonValue(v, type, text, location, value); !error.empty())
            return error;
        bool cutPort = false;
        for (int k = 0; k < 5; ++k)
            if (const int r = names[k]->empty() ? 0 : fieldRank(*names[k], name, cutPort); r > 0 && (rank[k] == 0 || r < rank[k])) {
                m_cells[std::size_t(k)] = type == od::json_type::null ? std::string() : cutPort ? std::string(hostOfHostPort(value)) : value;
                rank[k] = r;
            }
        for (std::size_t k = 0; k < m_options.keyFields.size(); ++k)
            if (const int r = fieldRank(m_options.keyFields[k], name, cutPort); r > 0 && (m_fieldRank[k] == 0 || r < m_fieldRank[k])) {
                // An absent value: nginx writes "-", Envoy null.
                m_fieldStorage[k] = value == "-" || type == od::json_type::null ? std::string() : cutPort ? std::string(hostOfHostPort(value)) : value;
                m_fieldRank[k] = r;
                field(k, m_fieldStorage[k], out);
            }
    }
    if (location() != nullptr)
        return "text after the JSON object";
    if (std::string missing = missingField(rank, m_options); !missing.empty())
        return missing;
    const std::string_view path = rank[3] ? std::string_view(m_cells[3]) : rank[4] ? requestPath(m_cells[4]) : std::string_view();
    if (rank[4])
        methodField(m_cells[4], out);
    return finish(m_cells[0], m_cells[1], m_cells[2], !m_options.costField.empty(), path, out);
}

} // namespace ratelab::detail
