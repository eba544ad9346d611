#include "traffic/arrivals.h"

#include "arithmetic/decimal.h"
#include "limiters/limiter.h"
#include "traffic/pattern.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace ratelab {

namespace {

std::string_view trim(std::string_view s)
{
    const auto first = s.find_first_not_of(" \t\r\f\v");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\r\f\v");
    return s.substr(first, last - first + 1);
}

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// isControl is true for a byte no text file of times holds: C0 controls but tab, CR, FF, VT.
bool isControl(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != '\v') || c == 0x7f; }

constexpr std::int64_t kMaxClientId = kMaxScenarioClients - 1;

bool isUtf16(std::string_view text) { return text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"); }

} // namespace

ArrivalsParser::ArrivalsParser(std::string_view name)
    : m_name(name)
{
}

void ArrivalsParser::feed(std::string_view chunk)
{
    if (!m_sniffed) {
        // Like grep: a control byte near the start means a binary file, even if its first line
        // happens to look like text ("\x89PNG").
        m_sniffed = true;
        const std::string_view head = chunk.substr(0, 8 * 1024);
        for (std::size_t i = 0; i < head.size(); ++i)
            if (head[i] != '\n' && isControl(static_cast<unsigned char>(head[i])) && !isUtf16(head))
                throw InputError(where(m_lineNo + 1 + std::size_t(std::count(head.begin(), head.begin() + i, '\n')))
                                 + "binary data, not a list of times in seconds");
    }
    while (!chunk.empty()) {
        const auto end = chunk.find('\n');
        if (end == std::string_view::npos) {
            if (m_partial.size() + chunk.size() > kMaxArrivalsLineBytes)
                tooLong(m_lineNo + 1);
            m_partial.append(chunk);
            return;
        }
        if (m_partial.empty()) {
            line(chunk.substr(0, end));
        } else {
            if (m_partial.size() + end > kMaxArrivalsLineBytes)
                tooLong(m_lineNo + 1);
            m_partial.append(chunk.substr(0, end));
            line(m_partial);
            m_partial.clear();
        }
        chunk.remove_prefix(end + 1);
    }
}

std::vector<Nanos> ArrivalsParser::finish()
{
    if (!m_partial.empty()) // the last line has no line break
        line(m_partial);
    m_partial.clear();
    return std::move(m_out);
}

std::string ArrivalsParser::where(std::size_t lineNo) const { return m_name + ":" + std::to_string(lineNo) + ": "; }

void ArrivalsParser::tooLong(std::size_t lineNo) const
{
    throw InputError(where(lineNo) + "line longer than " + std::to_string(kMaxArrivalsLineBytes)
                     + " bytes; not a list of times in seconds");
}

std::string_view ArrivalsParser::content(std::string_view text) const
{
    if (text.size() > kMaxArrivalsLineBytes)
        tooLong(m_lineNo);
    if (m_lineNo == 1) {
        if (text.starts_with(kUtf8Bom))
            text.remove_prefix(kUtf8Bom.size());
        else if (isUtf16(text))
            throw InputError(where(1) + "UTF-16 text; save the file as UTF-8 (or ASCII)");
    }
    for (const char c : text)
        if (isControl(static_cast<unsigned char>(c)))
            throw InputError(where(m_lineNo) + "binary data, not a list of times in seconds");
    return trim(text.substr(0, text.find('#')));
}

std::size_t ArrivalsParser::split(std::string_view text, std::string_view* fields) const
{
    std::size_t count = 0;
    for (std::string_view rest = text;; ++count) {
        const auto comma = rest.find(',');
        if (count == (m_header ? m_columnCount : kColumns))
            throw InputError(where(m_lineNo) + (m_header ? "more columns than the header names"
                                                         : "more than three columns (expected t, t,cost or t,cost,client)"));
        fields[count] = trim(rest.substr(0, comma));
        if (comma == std::string_view::npos)
            return count + 1;
        rest.remove_prefix(comma + 1);
    }
}

std::int64_t ArrivalsParser::integer(std::string_view f, std::int64_t min, std::int64_t max, const char* name,
                                     const char* expected) const
{
    try {
        return parseIntegerIn(f, min, max);
    } catch (const InputError& e) {
        throw InputError(where(m_lineNo) + name + " " + e.what() + " (expected " + expected + " from "
                         + std::to_string(min) + " to " + std::to_string(max) + ")");
    }
}

void ArrivalsParser::field(Column column, std::string_view f, Line& l) const
{
    switch (column) {
    case Column::Time:
        l.hasTime = true;
        try {
            l.t = parseSeconds(f);
        } catch (const InputError& e) {
            std::string message = e.what();
            if (message.ends_with(" is not a number"))
                message += " (expected a time in seconds, such as 0.25 or 1e-3)";
            throw InputError(where(m_lineNo) + message);
        }
        if (l.t < 0)
            throw InputError(where(m_lineNo) + "time " + quoted(f) + " is negative");
        break;
    case Column::Cost:
        l.cost = integer(f, 1, kMaxCost, "cost", "a whole cost");
        break;
    case Column::Client:
        l.client = integer(f, 0, kMaxClientId, "client", "a whole client number");
        break;
    case Column::Service:
        l.service = serviceTime(f);
        break;
    case Column::Priority:
        if (f == "critical" || f == "normal") {
            l.critical = f == "critical";
        } else {
            const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), l.priority);
            if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !std::isfinite(l.priority))
                throw InputError(where(m_lineNo) + "priority " + quoted(f)
                                 + " is not critical, normal or a number (such as 9, -1 or 2.5)");
        }
        break;
    }
}

void ArrivalsParser::check(const Line& l, const std::string_view* fields) const
{
    if (!l.hasTime)
        throw InputError(where(m_lineNo) + "no time (the header names the columns t, cost and client)");
    if (m_hasService && l.service < 0)
        throw InputError(where(m_lineNo) + "no service time (the header names a service column: every line gives one)");
    const bool number = !std::isnan(l.priority);
    if (m_hasPriority && l.critical < 0 && !number)
        throw InputError(where(m_lineNo) + "no priority (the header names a priority column: every line gives one)");
    if (m_hasPriority && m_priorityKindLine != 0 && number == m_priorities.empty())
        throw InputError(where(m_lineNo) + "priority " + quoted(fields[priorityColumn()]) + " is a "
                         + (number ? "number" : "word") + " but line " + std::to_string(m_priorityKindLine) + " gave a "
                         + (number ? "word" : "number") + ": the column holds words (critical, normal) for a stripe "
                         "row's priority=file or numbers for a client throttle, not both");
    if (!m_out.empty() && l.t < m_out.back())
        throw InputError(where(m_lineNo) + "time " + quoted(fields[timeColumn()]) + " is earlier than the line before ("
                         + formatSeconds(m_out.back()) + " s); times must not go back");
    if (static_cast<std::int64_t>(m_out.size()) >= kMaxArrivals)
        throw InputError(where(m_lineNo) + "more than " + std::to_string(kMaxArrivals)
                         + " arrivals, the most one scenario may hold");
}

void ArrivalsParser::store(const Line& l)
{
    m_out.push_back(l.t);
    if (l.cost != 0 && m_costs.empty())
        m_costs.assign(m_out.size() - 1, 0);
    if (l.cost != 0 || !m_costs.empty())
        m_costs.push_back(l.cost);
    if (l.client >= 0 && m_clients.empty())
        m_clients.assign(m_out.size() - 1, -1);
    if (l.client >= 0 || !m_clients.empty())
        m_clients.push_back(l.client);
    if (m_hasService)
        m_services.push_back(l.service);
    if (m_hasPriority && !std::isnan(l.priority))
        m_priorities.push_back(l.priority);
    else if (m_hasPriority)
        m_critical.push_back(std::uint8_t(l.critical));
    if (m_hasPriority && m_priorityKindLine == 0)
        m_priorityKindLine = m_lineNo;
}

void ArrivalsParser::line(std::string_view text)
{
    ++m_lineNo;
    text = content(text);
    if (text.empty())
        return;
    std::string_view fields[kColumns];
    const std::size_t count = split(text, fields);
    if (m_out.empty() && !m_header && header(fields, count))
        return;
    if (count > m_columnCount)
        throw InputError(where(m_lineNo) + (m_header ? "more columns than the header names"
                                                     : "more than three columns (expected t, t,cost or t,cost,client)"));
    Line l;
    for (std::size_t k = 0; k < count; ++k)
        field(m_columns[k], fields[k], l);
    check(l, fields);
    store(l);
}

Nanos ArrivalsParser::serviceTime(std::string_view f) const
{
    Nanos d = 0;
    try {
        d = parseDurationText(f, kNanosPerSecond);
    } catch (const InputError& e) {
        throw InputError(where(m_lineNo) + "service " + quoted(f) + ": " + e.what()
                         + " (expected a duration such as 35ms, or seconds)");
    }
    if (d < 0 || d > kMaxServiceNanos)
        throw InputError(where(m_lineNo) + "service " + quoted(f) + " must be from 0 s to "
                         + formatSeconds(kMaxServiceNanos) + " s");
    return d;
}

bool ArrivalsParser::header(const std::string_view* fields, std::size_t count)
{
    Column columns[kColumns];
    bool seen[kColumns] = {};
    for (std::size_t k = 0; k < count; ++k) {
        const std::string_view f = fields[k];
        const Column c = f == "t" || f == "time" ? Column::Time
                         : f == "cost"           ? Column::Cost
                         : f == "client"         ? Column::Client
                         : f == "service"        ? Column::Service
                         : f == "priority"       ? Column::Priority
                                                 : Column(kColumns);
        if (c == Column(kColumns)) {
            if (k == 0)
                return false; // not a header: a line of numbers, refused or read as one
            throw InputError(where(m_lineNo) + "unknown column " + quoted(f)
                             + " in the header (known: t, cost, client, service, priority)");
        }
        if (seen[int(c)])
            throw InputError(where(m_lineNo) + "column " + quoted(f) + " named twice in the header");
        seen[int(c)] = true;
        columns[k] = c;
    }
    if (!seen[int(Column::Time)])
        throw InputError(where(m_lineNo) + "the header names no time column t");
    for (std::size_t k = 0; k < count; ++k)
        m_columns[k] = columns[k];
    m_columnCount = count;
    m_header = true;
    m_hasService = seen[int(Column::Service)];
    m_hasPriority = seen[int(Column::Priority)];
    return true;
}

std::size_t ArrivalsParser::timeColumn() const
{
    for (std::size_t k = 0; k < m_columnCount; ++k)
        if (m_columns[k] == Column::Time)
            return k;
    return 0;
}

std::size_t ArrivalsParser::priorityColumn() const
{
    for (std::size_t k = 0; k < m_columnCount; ++k)
        if (m_columns[k] == Column::Priority)
            return k;
    return 0;
}

Arrivals ArrivalsParser::finishWithCosts()
{
    Arrivals out;
    out.times = finish();
    out.costs = std::move(m_costs);
    out.clients = std::move(m_clients);
    out.services = std::move(m_services);
    out.critical = std::move(m_critical);
    out.priorities = std::move(m_priorities);
    return out;
}

Arrivals parseArrivalsWithCosts(std::string_view text, std::string_view name)
{
    ArrivalsParser parser(name);
    parser.feed(text);
    return parser.finishWithCosts();
}

std::vector<Nanos> parseArrivals(std::string_view text, std::string_view name)
{
    ArrivalsParser parser(name);
    parser.feed(text);
    return parser.finish();
}

std::vector<Nanos> readArrivalsFile(const std::string& path) { return readArrivalsFileWithCosts(path).times; }

Arrivals readArrivalsFileWithCosts(const std::string& path)
{
    if (path.empty())
        throw InputError("no arrivals file name given");
    const auto cannotRead = [&](int error) {
        return InputError(path + ": cannot read arrivals file (" + std::strerror(error) + ")");
    };
    errno = 0;
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file)
        throw cannotRead(errno);
    ArrivalsParser parser(path);
    std::string buffer(64 * 1024, '\0');
    for (;;) {
        errno = 0;
        const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
        if (n > 0)
            parser.feed(std::string_view(buffer.data(), n));
        if (n < buffer.size()) {
            if (std::ferror(file.get()))
                throw cannotRead(errno != 0 ? errno : EIO); // a directory: EISDIR
            if (std::feof(file.get()))
                break;
        }
    }
    return parser.finishWithCosts();
}

} // namespace ratelab
