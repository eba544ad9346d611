// Reading arrival times from text: one attempt per line, `t[,cost[,client]]` (semantics.md,
// "Everything together"), or columns in another order named by a header line (`client,t`); a
// header may also name a request's `service` time and `priority` class (the server behind the
// limiter).
#pragma once

#include "arithmetic/nanos.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// kMaxArrivalsLineBytes caps one line of an arrivals file (comment included), so that a file
// with no line breaks is refused as soon as its first line is too long, not read to the end.
inline constexpr std::size_t kMaxArrivalsLineBytes = 64 * 1024;

// parseArrivals reads one arrival time in seconds per line. Blank lines and everything after a
// `#` are ignored; a UTF-8 byte-order mark at the start is skipped. Times must be non-negative
// and non-decreasing; at most kMaxArrivals of them, lines at most kMaxArrivalsLineBytes long.
// Binary data (a NUL or another control character) and UTF-16 text are refused. Errors throw
// InputError as "NAME:LINE: what is wrong".
std::vector<Nanos> parseArrivals(std::string_view text, std::string_view name);

// kMaxServiceNanos is the longest service time a line may give (an hour, as `service=const:D`).
inline constexpr Nanos kMaxServiceNanos = 3600 * kNanosPerSecond;

// Arrivals are times with their per-request costs and clients: costs[i] belongs to times[i], 0
// where the line gave no cost (the scenario's cost applies); clients[i] is -1 where the line
// named no client (round robin). Each is empty when no line gave one. services is the `service`
// column, one per time, or empty when the header names no such column (a header that names one
// needs it on every line): services[i] is request i's service time in ns. The `priority` column
// holds words or numbers, one kind in a file: words (`critical`, `normal`) are Stripe's classes
// for a stripe row's priority=file, critical[i] 1 for `critical` and 0 for `normal`; numbers
// (any finite number, such as 9, -1 or 2.5) are the priorities a client throttle is handed,
// priorities[i]. The kind the file does not hold is empty.
struct Arrivals {
    std::vector<Nanos> times;
    std::vector<std::int64_t> costs;
    std::vector<std::int64_t> clients;
    std::vector<Nanos> services;
    std::vector<std::uint8_t> critical;
    std::vector<double> priorities;
};

// parseArrivalsWithCosts is parseArrivals keeping the other columns: `t`, `t,cost` or
// `t,cost,client` per line, or the columns a first line names (`t`, `cost`, `client`, `service`,
// `priority` in any order; `time` for t). A cost that is not an integer from 1 to kMaxCost, a
// client not from 0 to ClientConfig::kMaxClients - 1, a service time that is not a duration
// ("35ms", or plain seconds) from 0 to kMaxServiceNanos, a priority other than `critical`,
// `normal` or a finite number, or a priority column that mixes words and numbers throws
// InputError "NAME:LINE: ...".
Arrivals parseArrivalsWithCosts(std::string_view text, std::string_view name);

// ArrivalsParser is parseArrivals in pieces: feed it the text in chunks split anywhere (a file as
// it is read) and call finish at the end. It keeps only the arrivals and the unfinished line.
class ArrivalsParser {
public:
    explicit ArrivalsParser(std::string_view name);
    void feed(std::string_view chunk);
    std::vector<Nanos> finish();
    // finishWithCosts is finish keeping the costs (see Arrivals).
    Arrivals finishWithCosts();

private:
    enum class Column : std::uint8_t { Time, Cost, Client, Service, Priority };
    static constexpr std::size_t kColumns = 5;

    std::string where(std::size_t lineNo) const;
    bool header(const std::string_view* fields, std::size_t count);
    std::size_t timeColumn() const;
    std::size_t priorityColumn() const;
    [[noreturn]] void tooLong(std::size_t lineNo) const;
    Nanos serviceTime(std::string_view field) const;
    // One line's values; -1 (NaN for a priority) where the line gives none.
    struct Line {
        Nanos t = 0;
        bool hasTime = false;
        std::int64_t cost = 0, client = -1;
        Nanos service = -1;
        int critical = -1;
        double priority = std::numeric_limits<double>::quiet_NaN();
    };
    // line reads one line: content (the text without a BOM, comment and blanks, or a refusal of
    // binary data), split into fields, each field's value, check against the lines before, store.
    void line(std::string_view text);
    std::string_view content(std::string_view text) const;
    std::size_t split(std::string_view text, std::string_view* fields) const;
    void field(Column column, std::string_view f, Line& l) const;
    std::int64_t integer(std::string_view f, std::int64_t min, std::int64_t max, const char* name,
                         const char* expected) const;
    void check(const Line& l, const std::string_view* fields) const;
    void store(const Line& l);

    std::string m_name;
    std::string m_partial;
    std::size_t m_lineNo = 0;
    bool m_sniffed = false;
    std::vector<Nanos> m_out;
    std::vector<std::int64_t> m_costs;   // empty until a line gives a cost; then one per arrival
    std::vector<std::int64_t> m_clients; // empty until a line names a client; then one per arrival
    std::vector<Nanos> m_services;       // with a service column: one per arrival
    std::vector<std::uint8_t> m_critical; // with a priority column of words: one per arrival
    std::vector<double> m_priorities;     // with a priority column of numbers: one per arrival
    std::size_t m_priorityKindLine = 0;   // the first line that gave a priority (its kind is the column's)
    Column m_columns[kColumns] = {Column::Time, Column::Cost, Column::Client, Column::Service, Column::Priority};
    std::size_t m_columnCount = 3;
    bool m_header = false;
    bool m_hasService = false, m_hasPriority = false; // the header names the column
};

// readArrivalsFile reads and parses a file (or a pipe) as it streams in: a missing or unreadable
// file is an InputError too, and a file over the caps above is refused when its reading passes
// the cap, so an endless or huge input never fills the memory.
std::vector<Nanos> readArrivalsFile(const std::string& path);

// readArrivalsFileWithCosts is readArrivalsFile keeping the other columns (see Arrivals).
Arrivals readArrivalsFileWithCosts(const std::string& path);

} // namespace ratelab
