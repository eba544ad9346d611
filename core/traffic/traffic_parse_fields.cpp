// The CSV format of the traffic reader: a header names the fields (JSON lines: traffic_parse_json.cpp).
#include "traffic/traffic_parse.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab::detail {

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
    // Kept for a dry run (keepPaths), a path the log lacks is "/" (Traffic::noPaths): a config
    // whose places select by path refuses such a log (dryRunPathProblem). A filter by path, or a
    // path field named, needs it.
    if ((!m_options.pathPrefix.empty() || m_options.pathField != "path") && m_pathColumn < 0 && m_requestColumn < 0)
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
    if (m_requestColumn >= 0 && m_requestColumn < int(m_cells.size()))
        methodField(m_cells[std::size_t(m_requestColumn)], out);
    return finish(m_cells[std::size_t(m_keyColumn)], m_cells[std::size_t(m_timeColumn)],
                  m_costColumn >= 0 ? std::string_view(m_cells[std::size_t(m_costColumn)]) : std::string_view(),
                  m_costColumn >= 0, path, out);
}

} // namespace ratelab::detail
