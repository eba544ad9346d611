// An nginx log_format string read by its named variables: no field is taken by its place.
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"
#include "limiters/limiter.h"

#include <algorithm>

namespace ratelab::detail {

namespace {

bool isNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// formatOfDirective returns the format string of "log_format NAME [escape=...] 'a' 'b';": its
// quoted (or bare) pieces after the name, joined.
std::string formatOfDirective(std::string_view text)
{
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
            ++i;
        } else if (c == '\'' || c == '"') {
            std::string w;
            for (++i; i < text.size() && text[i] != c; ++i) {
                if (text[i] == '\\' && i + 1 < text.size())
                    ++i;
                w += text[i];
            }
            if (i >= text.size())
                throw InputError("the log_format has a quote that never closes");
            ++i;
            words.push_back(w);
        } else {
            const std::size_t begin = i;
            while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != ';')
                ++i;
            words.emplace_back(text.substr(begin, i - begin));
        }
    }
    std::size_t first = 2; // "log_format", its name
    if (first < words.size() && words[first].starts_with("escape="))
        ++first;
    std::string out;
    for (std::size_t w = first; w < words.size(); ++w)
        out += words[w];
    return out;
}

} // namespace

NginxLogFormat::NginxLogFormat(std::string_view input)
{
    while (!input.empty() && (input.front() == ' ' || input.front() == '\t'))
        input.remove_prefix(1);
    const std::string text = input.starts_with("log_format") ? formatOfDirective(input) : std::string(input);
    std::string literal;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '$' && i + 1 < text.size() && (isNameChar(text[i + 1]) || text[i + 1] == '{')) {
            const bool braced = text[i + 1] == '{';
            std::size_t j = i + (braced ? 2 : 1);
            const std::size_t begin = j;
            while (j < text.size() && isNameChar(text[j]))
                ++j;
            if (braced && (j >= text.size() || text[j] != '}'))
                throw InputError("the log_format's ${" + text.substr(begin, j - begin) + " has no closing }");
            if (!m_names.empty() && literal.empty())
                throw InputError("the log_format's $" + m_names.back() + " and $" + text.substr(begin, j - begin)
                                 + " have nothing between them: nothing tells where one ends");
            m_literals.push_back(literal);
            literal.clear();
            m_names.push_back(text.substr(begin, j - begin));
            i = braced ? j + 1 : j;
        } else {
            literal += text[i++];
        }
    }
    m_literals.push_back(literal);
    if (m_names.empty())
        throw InputError("the log_format has no $variable");
}

int NginxLogFormat::index(std::string_view name) const
{
    if (name.starts_with('$'))
        name.remove_prefix(1);
    const auto it = std::find(m_names.begin(), m_names.end(), name);
    return it == m_names.end() ? -1 : int(it - m_names.begin());
}

std::string NginxLogFormat::split(std::string_view line, std::vector<std::string_view>& values) const
{
    values.clear();
    if (!line.starts_with(m_literals.front()))
        return "does not start with " + ratelab::quoted(m_literals.front()) + " as the log_format does";
    std::size_t pos = m_literals.front().size();
    for (std::size_t v = 0; v < m_names.size(); ++v) {
        const std::string& next = m_literals[v + 1];
        if (next.empty()) { // the last variable, nothing after it: the rest of the line
            values.push_back(line.substr(pos));
            pos = line.size();
            break;
        }
        // "10/Oct/2026:13:55:36 +0000" holds a space of its own: look past it.
        const std::size_t from = m_names[v] == "time_local" ? std::min(line.size(), pos + 26) : pos;
        const std::size_t end = line.find(next, from);
        if (end == std::string_view::npos)
            return "no " + ratelab::quoted(next) + " after $" + m_names[v] + " as the log_format has";
        values.push_back(line.substr(pos, end - pos));
        pos = end + next.size();
    }
    if (pos != line.size())
        return "text after the log_format's last field: " + ratelab::quoted(line.substr(pos, 40));
    return {};
}

void LineParser::setUpNginx()
{
    if (m_options.nginxLogFormat.empty())
        throw InputError("--log-format nginx needs the log_format string: --log-format 'nginx:$remote_addr ... $msec'");
    m_nginx = std::make_unique<NginxLogFormat>(m_options.nginxLogFormat);
    std::string known;
    for (const std::string& n : m_nginx->variables())
        known += (known.empty() ? "$" : ", $") + n;
    const auto need = [&](const std::string& option, const std::string& name) {
        const int i = m_nginx->index(name);
        if (i < 0)
            throw InputError(option + " " + ratelab::quoted(name) + ": the log_format has no $"
                             + (name.starts_with('$') ? name.substr(1) : name) + " (it has " + known + ")");
        return i;
    };
    if (m_options.timeField != "time") {
        m_nginxTime = need("--time-field", m_options.timeField);
    } else {
        for (const char* t : {"msec", "time_iso8601", "time_local"})
            if (m_nginxTime < 0)
                m_nginxTime = m_nginx->index(t);
        if (m_nginxTime < 0)
            throw InputError("the log_format has no time: $msec, $time_iso8601 or $time_local (it has " + known
                             + "; or name one with --time-field)");
    }
    m_nginxKey = need("--key", m_options.key == "ip" ? "remote_addr" : m_options.key == "user" ? "remote_user" : m_options.key);
    for (std::size_t i = 0; i < m_fieldColumn.size(); ++i) {
        const std::string& f = m_options.keyFields[i];
        m_fieldColumn[i] = m_nginx->index(f == "ip" ? "remote_addr" : f == "user" ? "remote_user" : f);
    }
    if (!m_options.costField.empty())
        m_nginxCost = need("--cost-field", m_options.costField);
    if (m_options.pathField != "path") {
        m_nginxPath = need("--path-field", m_options.pathField);
        m_pathIsUri = m_options.pathField == "uri";
    } else {
        m_nginxPath = m_nginx->index("request");
        m_nginxRequestLine = m_nginxPath >= 0;
        for (const char* p : {"request_uri", "uri"})
            if (m_nginxPath < 0) {
                m_nginxPath = m_nginx->index(p);
                m_pathIsUri = m_nginxPath >= 0 && std::string_view(p) == "uri";
            }
        if (!m_options.pathPrefix.empty() && m_nginxPath < 0)
            throw InputError("--path: the log_format has no $request, $request_uri or $uri (it has " + known + ")");
    }
}

std::string LineParser::parseNginx(std::string_view line, ParsedLine& out)
{
    if (std::string why = m_nginx->split(line, m_values); !why.empty())
        return why;
    std::string_view key = m_values[std::size_t(m_nginxKey)];
    if (key.empty() || key == "-")
        return "no $" + m_nginx->variables()[std::size_t(m_nginxKey)] + " ('-'): nginx limits no request without its key";
    for (std::size_t i = 0; i < m_fieldColumn.size(); ++i)
        if (m_fieldColumn[i] >= 0)
            field(i, unlogged(m_values[std::size_t(m_fieldColumn[i])], m_fieldStorage[i]), out);
    std::string_view path;
    if (m_nginxPath >= 0)
        path = m_nginxRequestLine ? requestPath(m_values[std::size_t(m_nginxPath)]) : m_values[std::size_t(m_nginxPath)];
    if (m_nginxPath >= 0 && m_nginxRequestLine)
        methodField(m_values[std::size_t(m_nginxPath)], out);
    const std::string_view cost = m_nginxCost >= 0 ? m_values[std::size_t(m_nginxCost)] : std::string_view();
    return finish(key, m_values[std::size_t(m_nginxTime)], cost, m_nginxCost >= 0, path, out);
}

} // namespace ratelab::detail
