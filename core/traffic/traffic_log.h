// Reading real traffic: access logs (nginx/Apache `combined` and `common`, an nginx log_format
// with `$msec`, or any nginx log_format string given, read by its named variables), JSON lines
// and CSV with a header, plain or gzip-compressed, into compact arrays of times, key ids and
// costs (semantics.md, "Replaying real traffic").
//
// The format, when not given, is the one most of a sample of lines (the first kSampleLines that
// are not blank or comments) look like; the file's first line does not vote, since `tail -c`
// leaves it cut. Lines starting with '#' are comments, counted and skipped; a UTF-8 byte order
// mark at the start of a line is skipped; a first line that does not read is set aside with a
// warning (a line cut short), not counted as unreadable.
//
// Times are exact: a log's decimal seconds are read digit by digit into integer nanoseconds,
// never through a double, and made relative to the earliest request (its absolute time is kept).
// A line that cannot be read is counted and the first few are kept with their line numbers; with
// `strict` the first one refuses the whole file instead. Lines out of time order (nginx writes a
// line when the request ends, so a slow request is logged after quicker later ones) are put in
// time order by a stable sort: requests at the same instant keep the order of the file.
#pragma once

#include "arithmetic/nanos.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

enum class LogFormat : std::uint8_t { Auto, Combined, Common, Msec, Json, Csv, Nginx };

// logFormatId names a format as the CLI does: "auto", "combined", "common", "msec", "json", "csv",
// "nginx" (a log_format string, TrafficOptions::nginxLogFormat).
std::string_view logFormatId(LogFormat f);
std::optional<LogFormat> logFormatFromId(std::string_view id);

// TrafficOptions say how to read a log. Field names are used by JSON lines, CSV and an nginx
// log_format (its variables, "$" optional); combined, common and msec know their fields by place.
struct TrafficOptions {
    LogFormat format = LogFormat::Auto;
    // LogFormat::Nginx: the log_format string ("$remote_addr - [$time_local] \"$request\" $msec"),
    // or the whole directive (log_format main '...' '...';). Its time is $msec, $time_iso8601 or
    // $time_local (the first present in that order) unless timeField names a variable; its key
    // is $remote_addr for "ip", $remote_user for "user", else the variable key names; its path
    // is $request's (or $request_uri, $uri) unless pathField names a variable.
    std::string nginxLogFormat;
    // key: "ip" (the client address: `$remote_addr`, or the JSON/CSV field named "ip"), "user"
    // (`$remote_user` in an access log) or a field name (JSON, CSV).
    std::string key = "ip";
    std::string timeField = "time"; // JSON/CSV: epoch seconds (decimal), ISO 8601 or [10/Oct/2026:13:55:36 +0000]
    std::string costField;          // JSON/CSV: an integer 1..kMaxCost per request; empty: every request costs 1
    std::string pathField = "path"; // JSON/CSV: the request path --path filters on (or a "request" field)
    std::string pathPrefix;         // keep only requests whose path starts with this; empty: all
    bool strict = false;            // refuse the file at its first unreadable line
    // maxKeys: refuse the file as soon as a key beyond this many distinct ones appears (0: no
    // bound), naming the estimate of maxKeys + 1 keys at bytesPerKey (replayBytesPerKey).
    std::int64_t maxKeys = 0;
    std::int64_t bytesPerKey = 0;
    // maxRequests: refuse the file as soon as a request beyond this many is read (0: only
    // kMaxTrafficLines), naming the estimate at bytesPerRequest.
    std::int64_t maxRequests = 0;
    std::int64_t bytesPerRequest = 0;
    bool keepPaths = false;         // keep each request's path (Traffic::paths): a dry run selects by it
    bool emptyKeys = false;         // JSON/CSV/log_format: an empty key is a request of key "", not an unreadable line
    // keyFields: keys read besides `key`, each per request (Traffic::fieldKeys), as `key` names
    // them ("ip", "user" or a field); a line without one has "" there (absent, or "-"), never unreadable.
    std::vector<std::string> keyFields;
    std::size_t errorsKept = 5;     // how many unreadable lines are kept with their numbers
    const std::atomic<bool>* cancel = nullptr; // when set and true, reading stops (TrafficCancelled)
    std::function<void(std::int64_t bytesRead)> progress; // called now and then with the bytes read so far
};

// LineError is an unreadable line: its number (from 1) and why.
struct LineError {
    std::int64_t line = 0;
    std::string reason;
};

// Traffic is a log read into arrays, one entry per request, in time order.
struct Traffic {
    std::vector<Nanos> times;          // since startEpochNanos, non-decreasing (the first under 1 ms)
    std::vector<std::uint32_t> keys;   // dense key ids, 0..keyNames.size()-1, in order of first appearance
    std::vector<std::int64_t> costs;   // one per request, or empty when every request costs 1
    std::vector<std::string> keyNames; // key id -> the key as written (IPv6 addresses in their canonical form)
    std::vector<std::uint32_t> paths;   // with TrafficOptions::keepPaths: path ids, one per request, else empty
    std::vector<std::string> pathNames; // path id -> the path as logged (its query string included; "" for none)
    // noPaths: paths were kept, but the log has none (a CSV or JSON log without the field): every
    // request is read at "/", which a config selecting nothing by path needs (dryRunPathProblem).
    bool noPaths = false;
    bool pathIsUri = false; // the paths are an nginx log_format's $uri: decoded, without the query string
    std::vector<std::string> keyFields;              // TrafficOptions::keyFields
    std::vector<std::vector<std::uint32_t>> fieldKeys; // per key field, per request: its key id in keyNames ("" when absent)
    std::vector<std::int64_t> fieldSeen;             // per key field: the requests that had it
    // startEpochNanos: the clock's whole millisecond at or before the earliest request, in ns since
    // 1970-01-01T00:00:00Z, so that whole ms of `times` are the clock's (nginx's ngx_current_msec
    // and every limiter that truncates to the ms count those, not ms since the first request).
    Nanos startEpochNanos = 0;
    LogFormat format = LogFormat::Auto;
    std::string key = "ip";      // what the requests are keyed by (TrafficOptions::key)
    std::int64_t lines = 0;      // lines read, blank ones, comments and a CSV header included
    std::int64_t comments = 0;   // lines starting with '#', skipped
    std::string firstLineCut;    // why the file's first line did not read (set aside as cut short), or empty
    std::int64_t filtered = 0;   // readable requests left out by the path filter
    std::int64_t unreadable = 0; // lines that could not be read
    std::vector<LineError> firstErrors; // the first few of them
    bool wholeSeconds = false;   // no time had a fraction: every second is one instant
    std::int64_t outOfOrder = 0; // requests earlier than a request logged before them
    Nanos largestStepBack = 0;   // the most a request was logged after a later one
};

// TrafficCancelled is thrown when TrafficOptions::cancel was set while reading.
struct TrafficCancelled {};

// readTrafficLog reads a file, gzip-compressed or not (told by its content, not its name). It
// throws InputError, one line naming the file, when it cannot be read, when strict and a line is
// unreadable ("FILE:LINE: reason"), or when no request is left.
Traffic readTrafficLog(const std::string& path, const TrafficOptions& options);

// parseTraffic reads a log held in memory (gzip-compressed or not); name is used in messages.
Traffic parseTraffic(std::string_view bytes, const TrafficOptions& options, const std::string& name = "log");

// subsetOf is the traffic of the requests `keep` marks (one entry per request, at least one
// marked), in their order: only the keys they use, numbered again in order of first use, the
// clock's start moved to the whole millisecond at or before the first (each request keeps its
// time on the clock), and the log's counts as read (lines, unreadable, the requests that had
// each key field) kept.
Traffic subsetOf(const Traffic& traffic, const std::vector<std::uint8_t>& keep);

// keyByField keys the requests by one of their key fields (Traffic::keyFields[field]): `keys`
// becomes that field's ids (a request without it keyed "", no key), and `key` its name. The names
// stay where they are, so the ids are no longer in order of first appearance, and the old key's
// names are keyed by no request.
void keyByField(Traffic& traffic, std::size_t field);

// formatEpoch writes an absolute time as ISO 8601 UTC with up to nine decimals:
// "2026-10-10T13:55:36.123Z".
std::string formatEpoch(Nanos epochNanos);

// hostOfHostPort is the host of "host:port" or "[host]:port" as Go's net.SplitHostPort splits
// it (one ':' outside brackets; the port may be empty), else the whole text ("1.2.3.4", "::1").
std::string_view hostOfHostPort(std::string_view text);

// epochFromCivil returns the seconds since 1970 of a UTC date and time (proleptic Gregorian).
std::int64_t epochFromCivil(std::int64_t year, int month, int day, int hour, int minute, int second);

// kSampleLines is how many lines (not blank, not comments) decide a log's format.
inline constexpr std::size_t kSampleLines = 100;

// kMaxTrafficLines caps the requests one log may hold (key ids and indices fit 32 bits).
inline constexpr std::int64_t kMaxTrafficLines = 2'000'000'000;

} // namespace ratelab
