// The named-field formats of the traffic reader: JSON lines and CSV with a header.
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab::detail {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return c == ' ' || c == '\t'; }

} // namespace

std::string LineParser::parseJson(std::string_view line, ParsedLine& out)
{
    // A flat object: "name": value pairs; nested values are skipped whole.
    std::size_t i = 0;
    const std::size_t n = line.size();
    auto ws = [&] { while (i < n && (isSpace(line[i]) || line[i] == '\r')) ++i; };
    // str reads a JSON string at i into s (decoded); false when malformed.
    auto str = [&](std::string& s) {
        s.clear();
        if (i >= n || line[i] != '"')
            return false;
        for (++i; i < n && line[i] != '"'; ++i) {
            if (line[i] != '\\') {
                s += line[i];
                continue;
            }
            if (++i >= n)
                return false;
            switch (line[i]) {
            case 'n': s += '\n'; break;
            case 't': s += '\t'; break;
            case 'r': s += '\r'; break;
            case 'b': s += '\b'; break;
            case 'f': s += '\f'; break;
            case 'u': {
                if (i + 4 >= n)
                    return false;
                unsigned v = 0;
                for (int k = 1; k <= 4; ++k) {
                    const char c = line[i + std::size_t(k)];
                    v = v * 16 + unsigned(isDigit(c) ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : 99);
                    if (v > 0xFFFF)
                        return false;
                }
                i += 4;
                if (v < 0x80) {
                    s += char(v);
                } else if (v < 0x800) {
                    s += char(0xC0 | (v >> 6));
                    s += char(0x80 | (v & 0x3F));
                } else {
                    s += char(0xE0 | (v >> 12));
                    s += char(0x80 | ((v >> 6) & 0x3F));
                    s += char(0x80 | (v & 0x3F));
                }
                break;
            }
            default: s += line[i];
            }
        }
        if (i >= n)
            return false;
        ++i;
        return true;
    };
    ws();
    if (i >= n || line[i] != '{')
        return "not a JSON object";
    ++i;
    m_cells.assign(5, std::string()); // key, time, cost, path, request
    bool have[5] = {};
    const std::string* names[5] = {&m_options.key, &m_options.timeField, &m_options.costField, &m_options.pathField,
                                   nullptr};
    static const std::string kRequest = "request";
    names[4] = &kRequest;
    std::string name, value;
    ws();
    if (i < n && line[i] == '}')
        ++i;
    else
        while (true) {
            ws();
            if (!str(name))
                return "malformed JSON (a field name was expected)";
            ws();
            if (i >= n || line[i] != ':')
                return "malformed JSON (':' was expected)";
            ++i;
            ws();
            if (i < n && line[i] == '"') {
                if (!str(value))
                    return "malformed JSON (an unterminated string)";
            } else if (i < n && (line[i] == '{' || line[i] == '[')) {
                int depth = 0;
                const std::size_t begin = i;
                for (; i < n; ++i) {
                    if (line[i] == '"') {
                        std::string skipped;
                        if (!str(skipped))
                            return "malformed JSON (an unterminated string)";
                        --i;
                    } else if (line[i] == '{' || line[i] == '[') {
                        ++depth;
                    } else if ((line[i] == '}' || line[i] == ']') && --depth == 0) {
                        ++i;
                        break;
                    }
                }
                if (depth != 0)
                    return "malformed JSON (an unclosed object or array)";
                value.assign(line.substr(begin, i - begin));
            } else {
                const std::size_t begin = i;
                while (i < n && line[i] != ',' && line[i] != '}' && !isSpace(line[i]))
                    ++i;
                value.assign(line.substr(begin, i - begin));
                if (value.empty())
                    return "malformed JSON (a value was expected)";
            }
            for (int k = 0; k < 5; ++k)
                if (!have[k] && !names[k]->empty() && *names[k] == name) {
                    m_cells[std::size_t(k)] = value;
                    have[k] = true;
                }
            for (std::size_t k = 0; k < m_options.keyFields.size(); ++k)
                if (m_options.keyFields[k] == name && out.fields[k].empty()) {
                    m_fieldStorage[k] = value == "-" ? std::string() : value;
                    field(k, m_fieldStorage[k], out);
                }
            ws();
            if (i < n && line[i] == ',') {
                ++i;
                continue;
            }
            if (i < n && line[i] == '}') {
                ++i;
                break;
            }
            return "malformed JSON (',' or '}' was expected)";
        }
    ws();
    if (i != n)
        return "text after the JSON object";
    if (!have[1])
        return "no field " + ratelab::quoted(m_options.timeField);
    if (!have[0])
        return "no field " + ratelab::quoted(m_options.key);
    if (!m_options.costField.empty() && !have[2])
        return "no field " + ratelab::quoted(m_options.costField);
    const std::string_view path = have[3] ? std::string_view(m_cells[3]) : have[4] ? requestPath(m_cells[4]) : std::string_view();
    return finish(m_cells[0], m_cells[1], m_cells[2], !m_options.costField.empty(), path, out);
}

namespace {

// splitCsv splits one CSV line into cells (RFC 4180 quotes, "" inside a quoted cell); false for
// an unterminated quote.
bool splitCsv(std::string_view line, char delimiter, std::vector<std::string>& cells)
{
    cells.clear();
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (true) {
        std::string cell;
        while (i < n && line[i] == ' ')
            ++i;
        if (i < n && line[i] == '"') {
            ++i;
            while (true) {
                if (i >= n)
                    return false;
                if (line[i] == '"') {
                    if (i + 1 < n && line[i + 1] == '"') {
                        cell += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                cell += line[i++];
            }
            while (i < n && line[i] != delimiter)
                ++i; // spaces after the closing quote
        } else {
            const std::size_t begin = i;
            while (i < n && line[i] != delimiter)
                ++i;
            std::string_view raw = line.substr(begin, i - begin);
            while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\r'))
                raw.remove_suffix(1);
            cell.assign(raw);
        }
        cells.push_back(std::move(cell));
        if (i >= n)
            return true;
        ++i; // the delimiter
    }
}

} // namespace

void LineParser::header(std::string_view line)
{
    const std::size_t commas = std::count(line.begin(), line.end(), ',');
    const std::size_t tabs = std::count(line.begin(), line.end(), '\t');
    const std::size_t semicolons = std::count(line.begin(), line.end(), ';');
    m_delimiter = tabs > commas && tabs >= semicolons ? '\t' : semicolons > commas ? ';' : ',';
    std::vector<std::string> names;
    if (!splitCsv(line, m_delimiter, names))
        throw InputError("the CSV header has an unterminated quote");
    auto column = [&](const std::string& field) {
        const auto it = std::find(names.begin(), names.end(), field);
        return field.empty() || it == names.end() ? -1 : int(it - names.begin());
    };
    m_keyColumn = column(m_options.key);
    m_timeColumn = column(m_options.timeField);
    m_costColumn = column(m_options.costField);
    m_pathColumn = column(m_options.pathField);
    m_requestColumn = column("request");
    for (std::size_t i = 0; i < m_fieldColumn.size(); ++i)
        m_fieldColumn[i] = column(m_options.keyFields[i]);
    std::string known;
    for (std::size_t i = 0; i < names.size() && i < 10; ++i) // a message stays one short line
        known += (i ? ", " : "") + ratelab::quoted(names[i]);
    if (names.size() > 10)
        known += ", ... (" + std::to_string(names.size()) + " in all)";
    if (m_timeColumn < 0)
        throw InputError("the CSV header has no time field " + ratelab::quoted(m_options.timeField) + " (--time-field; fields: "
                         + known + ")");
    if (m_keyColumn < 0)
        throw InputError("the CSV header has no key field " + ratelab::quoted(m_options.key) + " (--key; fields: " + known + ")");
    if (!m_options.costField.empty() && m_costColumn < 0)
        throw InputError("the CSV header has no cost field " + ratelab::quoted(m_options.costField) + " (--cost-field; fields: "
                         + known + ")");
    if (m_wantPath && m_pathColumn < 0 && m_requestColumn < 0)
        throw InputError("the CSV header has no path field " + ratelab::quoted(m_options.pathField) + " or request (--path-field; fields: "
                         + known + ")");
}

std::string LineParser::parseCsv(std::string_view line, ParsedLine& out)
{
    if (!splitCsv(line, m_delimiter, m_cells))
        return "an unterminated quote";
    const int needed = std::max({m_keyColumn, m_timeColumn, m_costColumn});
    if (int(m_cells.size()) <= needed)
        return std::to_string(m_cells.size()) + " fields where the header names " + std::to_string(needed + 1)
               + " or more";
    for (std::size_t i = 0; i < m_fieldColumn.size(); ++i)
        if (m_fieldColumn[i] >= 0 && m_fieldColumn[i] < int(m_cells.size()))
            field(i, m_cells[std::size_t(m_fieldColumn[i])], out);
    std::string_view path;
    if (m_pathColumn >= 0 && m_pathColumn < int(m_cells.size()))
        path = m_cells[std::size_t(m_pathColumn)];
    else if (m_requestColumn >= 0 && m_requestColumn < int(m_cells.size()))
        path = requestPath(m_cells[std::size_t(m_requestColumn)]);
    return finish(m_cells[std::size_t(m_keyColumn)], m_cells[std::size_t(m_timeColumn)],
                  m_costColumn >= 0 ? std::string_view(m_cells[std::size_t(m_costColumn)]) : std::string_view(),
                  m_costColumn >= 0, path, out);
}

} // namespace ratelab::detail
