// Reading real traffic: every format with broken lines, odd spacing, IPv6, quoted
// fields, time zones and gzip. Each expectation is worked out by hand from the lines (the times
// from 2000-01-01T00:00:00Z = 946684800 s since 1970, a date every epoch table lists).
#include "error_of.h"
#include "arithmetic/decimal.h"
#include "traffic/text_ids.h"
#include "traffic/traffic_log.h"
#include "traffic/traffic_parse.h"

#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <fstream>

using namespace ratelab;
using detail::AccessLogLine;
using detail::AccessLogSplit;

namespace {

constexpr Nanos kS = kNanosPerSecond;
constexpr Nanos kY2k = 946684800 * kS;

Traffic parse(const std::string& text, TrafficOptions o = {}) { return parseTraffic(text, o, "test.log"); }

std::vector<std::string> keysOf(const Traffic& t)
{
    std::vector<std::string> out;
    for (std::uint32_t k : t.keys)
        out.push_back(t.keyNames.at(k));
    return out;
}

void writeGzip(const std::string& path, const std::string& text, const char* mode = "wb")
{
    gzFile f = gzopen(path.c_str(), mode);
    QVERIFY(f);
    QCOMPARE(gzwrite(f, text.data(), unsigned(text.size())), int(text.size()));
    QCOMPARE(gzclose(f), Z_OK);
}

// Six lines: two unreadable (a one-digit second, an unterminated quote), one blank; tabs and
// double spaces between fields; an IPv6 address in a long form; escaped quotes in the request and
// the user agent; three time zones.
const std::string kCombined =
    "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /api/login HTTP/1.1\" 200 5 \"-\" \"curl/8\"\n"
    "2001:DB8:0:0:0:0:0:1\t-  alice  [01/Jan/2000:01:00:01 +0100]   \"POST /api/items?q=\\\"x\\\" HTTP/1.1\" 201 0 "
    "\"https://e.x/a b\" \"Mozilla \\\"quoted\\\" UA\"\r\n"
    "\n"
    "192.0.2.1 - - [01/Jan/2000:00:00:0 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"-\"\n"
    "192.0.2.2 - - [31/Dec/1999:19:00:02 -0500] \"GET /api/login/x HTTP/1.1\" 401 5 \"-\" \"-\"\n"
    "192.0.2.1 - - [01/Jan/2000:00:00:01 +0000] \"GET /api/login HTTP/1.1\" 200 5 \"-\" \"-\n";

} // namespace

class TestTrafficLog : public QObject {
    Q_OBJECT
private slots:
    // subsetOf keeps the marked requests: a log starting at 5.000 s of the clock with a at 0,
    // b at 1.5 ms and 2 s, c at 3 s; keeping b's two, the clock starts at the whole ms at or
    // before 1.5 ms (1 ms), so they are at 0.5 ms and 1.9995 s, b is key 0, and the field key
    // follows its ids (b's own field value "x" is renumbered too).
    void aSubsetKeepsItsRequestsOnTheClock()
    {
        Traffic t;
        t.startEpochNanos = 5 * kNanosPerSecond;
        t.times = {0, 1'500'000, 2 * kNanosPerSecond, 3 * kNanosPerSecond};
        t.keyNames = {"a", "b", "c", "x", ""};
        t.keys = {0, 1, 1, 2};
        t.keyFields = {"http_x"};
        t.fieldKeys = {{4, 3, 4, 4}};
        t.fieldSeen = {1};
        t.lines = 9;
        const Traffic s = subsetOf(t, {0, 1, 1, 0});
        QCOMPARE(s.startEpochNanos, 5 * kNanosPerSecond + kNanosPerMs);
        QVERIFY(s.times == (std::vector<Nanos>{500'000, 2 * kNanosPerSecond - kNanosPerMs}));
        QVERIFY(s.keys == (std::vector<std::uint32_t>{0, 0}));
        QCOMPARE(s.keyNames.size(), std::size_t(3)); // b, x, ""
        QCOMPARE(s.keyNames[s.fieldKeys[0][0]], std::string("x"));
        QCOMPARE(s.keyNames[s.fieldKeys[0][1]], std::string(""));
        QCOMPARE(s.lines, 9); // the log as read
        // Without the one request that had the field, the log still has it: a rule keyed by it binds.
        const Traffic late = subsetOf(t, {0, 0, 1, 1});
        QCOMPARE(late.startEpochNanos, 7 * kNanosPerSecond);
        QVERIFY(late.times == (std::vector<Nanos>{0, kNanosPerSecond}));
        QVERIFY(late.fieldSeen == std::vector<std::int64_t>{1});
        QCOMPARE(errorOf([&] { (void)subsetOf(t, {0, 0, 0, 0}); }), std::string("no request is left"));
    }

    // A combined line whose URL is a mebibyte is read like any other, its path kept whole: two such
    // requests from one address and a short one from another are 3 requests of 2 keys, 2 paths.
    void megabyteUrlsAreRead()
    {
        const std::string url = "/search?q=" + std::string(std::size_t(1) << 20, 'a');
        const std::string log = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET " + url + " HTTP/1.1\" 414 5 \"-\" \"-\"\n"
                                "192.0.2.1 - - [01/Jan/2000:00:00:01 +0000] \"GET " + url + " HTTP/1.1\" 414 5 \"-\" \"-\"\n"
                                "192.0.2.2 - - [01/Jan/2000:00:00:02 +0000] \"GET /x HTTP/1.1\" 200 5 \"-\" \"-\"\n";
        TrafficOptions o;
        o.keepPaths = true;
        const Traffic t = parse(log, o);
        QCOMPARE(t.unreadable, std::int64_t(0));
        QCOMPARE(t.times.size(), std::size_t(3));
        QCOMPARE(t.keyNames.size(), std::size_t(2));
        QCOMPARE(t.pathNames.size(), std::size_t(2));
        QCOMPARE(t.pathNames.at(t.paths.at(0)), url);
        QCOMPARE(t.paths.at(1), t.paths.at(0));
    }

    // Each line's fields worked out by hand: the brackets and outer quotes go, escapes inside a
    // quoted field stay as written, runs of spaces and tabs separate.
    void accessLogLinesSplitIntoTheirFields()
    {
        AccessLogLine f;
        // Escaped quotes in the request and the user agent; the agent ends in an escaped
        // backslash, so the quote after it closes the field.
        const std::string quotes = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /a?q=\\\"x\\\" HTTP/1.1\" 200 5 \"-\" "
                                   "\"UA \\\"q\\\" \\\\\"";
        QCOMPARE(detail::splitAccessLog(quotes, f), AccessLogSplit::Ok);
        QCOMPARE(f.host, std::string_view("192.0.2.1"));
        QCOMPARE(f.ident, std::string_view("-"));
        QCOMPARE(f.user, std::string_view("-"));
        QCOMPARE(f.time, std::string_view("01/Jan/2000:00:00:00 +0000"));
        QCOMPARE(f.request, std::string_view("GET /a?q=\\\"x\\\" HTTP/1.1"));
        QCOMPARE(detail::requestPath(f.request), std::string_view("/a?q=\\\"x\\\""));
        // An IPv6 address as the host, a user, tabs and double spaces, no protocol in the request.
        QCOMPARE(detail::splitAccessLog("2001:db8::1\t-  bob [10/Oct/2026:13:55:36 +0530]\t\"GET /x\" 200 5", f),
                 AccessLogSplit::Ok);
        QCOMPARE(f.host, std::string_view("2001:db8::1"));
        QCOMPARE(f.user, std::string_view("bob"));
        QCOMPARE(f.request, std::string_view("GET /x"));
        QCOMPARE(detail::requestPath(f.request), std::string_view("/x"));
        // A request of "-" (nginx's for a connection closed before one): no path. A bare word may
        // hold quotes and brackets without opening a field.
        QCOMPARE(detail::splitAccessLog("h - - [t] \"-\" 400 0 x\"y[z \"-\" \"-\"", f), AccessLogSplit::Ok);
        QCOMPARE(f.request, std::string_view("-"));
        QCOMPARE(detail::requestPath(f.request), std::string_view());
        // A carriage return left on the line (the reader strips it) is one more bare word.
        QCOMPARE(detail::splitAccessLog("h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\"\r", f), AccessLogSplit::Ok);
        QCOMPARE(f.request, std::string_view("GET / HTTP/1.1"));
    }

    void brokenAccessLogLinesSayWhy()
    {
        AccessLogLine f;
        // Cut inside the request, inside the time, after the third field.
        QCOMPARE(detail::splitAccessLog("192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /a HTT", f),
                 AccessLogSplit::Unterminated);
        QCOMPARE(detail::splitAccessLog("192.0.2.1 - - [01/Jan/2000:00:0", f), AccessLogSplit::Unterminated);
        QCOMPARE(detail::splitAccessLog("192.0.2.1 - -", f), AccessLogSplit::NotAccessLog);
        // The last quote escaped: the agent never closes. Two backslashes: it does.
        QCOMPARE(detail::splitAccessLog("h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\\\"", f),
                 AccessLogSplit::Unterminated);
        QCOMPARE(detail::splitAccessLog("h - - [t] \"GET / HTTP/1.1\" 200 5 \"-\" \"ua\\\\\"", f), AccessLogSplit::Ok);
        // A backslash as the line's last character escapes nothing that closes.
        QCOMPARE(detail::splitAccessLog("h - - [t] \"GET / HTTP/1.1\" \"\\", f), AccessLogSplit::Unterminated);
        // Fields of the wrong kinds; an unterminated quote after them wins, as it makes the line unreadable
        // whatever it holds.
        QCOMPARE(detail::splitAccessLog("h - - t \"GET / HTTP/1.1\"", f), AccessLogSplit::NotAccessLog);
        QCOMPARE(detail::splitAccessLog("\"h\" - - [t] \"GET / HTTP/1.1\"", f), AccessLogSplit::NotAccessLog);
        QCOMPARE(detail::splitAccessLog("h - - [t] GET", f), AccessLogSplit::NotAccessLog);
        QCOMPARE(detail::splitAccessLog("h - - t \"GET", f), AccessLogSplit::Unterminated);
    }

    // A mebibyte path: the request is "GET " + path + " HTTP/1.1", whole.
    void aMebibytePathSplitsWhole()
    {
        const std::string path = "/" + std::string(std::size_t(1) << 20, 'a');
        const std::string line = "h - - [t] \"GET " + path + " HTTP/1.1\" 414 0 \"-\" \"" + std::string(1000, '\\') + "\"";
        AccessLogLine f;
        // The agent is 1000 backslashes, an even run: the quote after them closes it.
        QCOMPARE(detail::splitAccessLog(line, f), AccessLogSplit::Ok);
        QCOMPARE(f.request.size(), path.size() + 4 + 9);
        QCOMPARE(detail::requestPath(f.request), std::string_view(path));
        QCOMPARE(detail::splitAccessLog(line.substr(0, line.size() - 1), f), AccessLogSplit::Unterminated);
    }

    // Zones east and west of UTC, by hand: 2026-10-10T00:00:00Z is 20,736 days after 1970-01-01
    // (56 years of 365 days, 14 leap days 1972-2024, 282 days Jan-Sep of 2026), 1,791,590,400 s.
    // 13:55:36 at +05:30 is 08:25:36 UTC: + 30,336 s. 16:25:36 the day before at -08:00 is 00:25:36
    // UTC: + 1,536 s.
    void zonesGiveEpochMilliseconds()
    {
        Nanos t = 0;
        QVERIFY(detail::parseClfTime("10/Oct/2026:13:55:36 +0530", t));
        QCOMPARE(t / 1'000'000, std::int64_t(1'791'620'736'000));
        QVERIFY(detail::parseClfTime("09/Oct/2026:16:25:36 -0800", t));
        QCOMPARE(t / 1'000'000, std::int64_t(1'791'591'936'000));
        // The same two lines in a log with CRLF endings: the earlier (00:25:36 UTC) starts it and
        // the other comes 8 hours later, 28,800 s.
        const Traffic log = parse("192.0.2.1 - - [10/Oct/2026:13:55:36 +0530] \"GET / HTTP/1.1\" 200 5 \"-\" \"a\"\r\n"
                                  "192.0.2.2 - - [09/Oct/2026:16:25:36 -0800] \"GET / HTTP/1.1\" 200 5 \"-\" \"a\"\r\n"
                                  "192.0.2.3 - - [09/Oct/2026:16:25:36 -0800] \"GET / HTTP/1.1\" 200 5 \"-\" \"a\"\r\n");
        QCOMPARE(log.unreadable, std::int64_t(0));
        QCOMPARE(log.startEpochNanos, 1'791'591'936 * kS);
        QCOMPARE(log.times, (std::vector<Nanos>{0, 0, 28'800 * kS}));
        QCOMPARE(keysOf(log), (std::vector<std::string>{"192.0.2.2", "192.0.2.3", "192.0.2.1"}));
    }

    // Ids in order of first appearance, over texts of 0 to 40 bytes (the table keeps up to 16 in a
    // slot and hashes longer ones), texts that differ only past byte 16 or only in length (a NUL
    // byte included), and enough of them to grow the table many times.
    void textIdsAreDenseInOrderOfFirstAppearance()
    {
        std::vector<std::string> texts = {"", std::string(1, '\0'), std::string(2, '\0'), "a", "abca", "abcaabca",
                                          "0123456789abcdefX", "0123456789abcdefY"};
        for (int i = 0; i < 100'000; ++i)
            texts.push_back(std::to_string(i) + std::string(std::size_t(i % 41), char('a' + i % 26)));
        detail::TextIds ids;
        std::vector<std::string> names;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            QCOMPARE(ids.find(texts[i], names), detail::TextIds::kAbsent);
            QCOMPARE(ids.add(texts[i], names), std::uint32_t(i));
        }
        QCOMPARE(names, texts);
        for (std::size_t i = 0; i < texts.size(); ++i)
            if (ids.find(texts[i], names) != std::uint32_t(i))
                QFAIL(("text " + std::to_string(i) + " lost its id").c_str());
        QCOMPARE(ids.find("0123456789abcdefZ", names), detail::TextIds::kAbsent);
        QCOMPARE(ids.find(std::string(3, '\0'), names), detail::TextIds::kAbsent);
    }

    void combinedWithOddSpacingZonesIpv6AndBrokenLines()
    {
        const Traffic t = parse(kCombined);
        QCOMPARE(t.format, LogFormat::Combined);
        QCOMPARE(t.startEpochNanos, kY2k);
        // 00:00:00 UTC; 01:00:01 at +01:00 is 00:00:01 UTC; 19:00:02 the day before at -05:00 is 00:00:02 UTC.
        QCOMPARE(t.times, (std::vector<Nanos>{0, 1 * kS, 2 * kS}));
        QCOMPARE(keysOf(t), (std::vector<std::string>{"192.0.2.1", "2001:db8::1", "192.0.2.2"}));
        QVERIFY(t.costs.empty());
        QCOMPARE(t.lines, std::int64_t(6));
        QCOMPARE(t.unreadable, std::int64_t(2));
        QCOMPARE(t.firstErrors.size(), std::size_t(2));
        QCOMPARE(t.firstErrors[0].line, std::int64_t(4));
        QCOMPARE(t.firstErrors[1].line, std::int64_t(6));
        QVERIFY(t.firstErrors[1].reason.find("unterminated") != std::string::npos);
        QVERIFY(t.wholeSeconds);
        QCOMPARE(t.outOfOrder, std::int64_t(0));
    }

    void keyByUserAndCommonFormat()
    {
        TrafficOptions o;
        o.key = "user";
        const Traffic t = parse("1.1.1.1 - ann [01/Jan/2000:00:00:00 +0000] \"GET / HTTP/1.0\" 200 1\n"
                                "2.2.2.2 - ann [01/Jan/2000:00:00:03 +0000] \"GET / HTTP/1.0\" 200 1\n"
                                "2.2.2.2 - bob [01/Jan/2000:00:00:03 +0000] \"GET / HTTP/1.0\" 200 1\n",
                                o);
        QCOMPARE(t.format, LogFormat::Common);
        QCOMPARE(keysOf(t), (std::vector<std::string>{"ann", "ann", "bob"}));
        QCOMPARE(t.times, (std::vector<Nanos>{0, 3 * kS, 3 * kS}));
        o.key = "api_key";
        QVERIFY(errorOf([&] { parse(kCombined, o); }).find("--key 'api_key'") != std::string::npos);
    }

    void pathFilterCountsWhatItLeavesOut()
    {
        TrafficOptions o;
        o.pathPrefix = "/api/login";
        const Traffic t = parse(kCombined, o);
        QCOMPARE(keysOf(t), (std::vector<std::string>{"192.0.2.1", "192.0.2.2"})); // /api/login and /api/login/x
        QCOMPARE(t.times, (std::vector<Nanos>{0, 2 * kS}));
        QCOMPARE(t.filtered, std::int64_t(1)); // the POST /api/items
        o.pathPrefix = "/nothing";
        QVERIFY(errorOf([&] { parse(kCombined, o); }).find("none under --path '/nothing'") != std::string::npos);
    }

    void outOfOrderLinesAreSortedStably()
    {
        const Traffic t = parse("a - - [01/Jan/2000:00:00:05 +0000] \"GET / HTTP/1.1\" 200 1\n"
                                "b - - [01/Jan/2000:00:00:03 +0000] \"GET / HTTP/1.1\" 200 1\n"
                                "c - - [01/Jan/2000:00:00:05 +0000] \"GET / HTTP/1.1\" 200 1\n"
                                "d - - [01/Jan/2000:00:00:03 +0000] \"GET / HTTP/1.1\" 200 1\n");
        // Sorted by time, the file's order kept among equal times: b, d (at 3 s), then a, c (at 5 s).
        QCOMPARE(keysOf(t), (std::vector<std::string>{"b", "d", "a", "c"}));
        QCOMPARE(t.times, (std::vector<Nanos>{0, 0, 2 * kS, 2 * kS}));
        QCOMPARE(t.startEpochNanos, kY2k + 3 * kS);
        QCOMPARE(t.outOfOrder, std::int64_t(2));
        QCOMPARE(t.largestStepBack, 2 * kS);
    }

    void msecLogFormat()
    {
        const Traffic t = parse("1763900000.123 203.0.113.9 \"GET /api/login HTTP/2.0\" 200 0.004\n"
                                "1763900001.000   2001:db8::2 \"GET /x HTTP/1.1\" 404 0.010\n"
                                "203.0.113.9 \"GET / HTTP/1.1\" 200\n"
                                "203.0.113.9 1763900000.200 \"GET / HTTP/1.1\" 200 0.001\n");
        QCOMPARE(t.format, LogFormat::Msec);
        QCOMPARE(t.startEpochNanos, 1763900000 * kS + 123'000'000);
        // .123, then .200 (logged last), then 1.000: exact thousandths, no double in between.
        QCOMPARE(t.times, (std::vector<Nanos>{0, 77'000'000, 877'000'000}));
        QCOMPARE(keysOf(t), (std::vector<std::string>{"203.0.113.9", "203.0.113.9", "2001:db8::2"}));
        QCOMPARE(t.unreadable, std::int64_t(1));
        QCOMPARE(t.firstErrors.at(0).line, std::int64_t(3));
        QVERIFY(!t.wholeSeconds);
        QCOMPARE(t.outOfOrder, std::int64_t(1));
        QCOMPARE(t.largestStepBack, Nanos(800'000'000));
    }

    void jsonLinesWithNamedFieldsAndCost()
    {
        TrafficOptions o;
        o.timeField = "ts";
        o.key = "user";
        o.costField = "units";
        const Traffic t = parse(
            "{\"ts\": \"2000-01-01T01:00:00.250+01:00\", \"user\": \"k\\u00e9y\", \"units\": 3, \"path\": \"/api/a\", "
            "\"nested\": {\"a\": [1, \"}\"]}}\n"
            "  {\"user\":\"b\",\"ts\":946684800.5,\"units\":\"2\"}\n"
            "{\"ts\": \"2000-01-01T00:00:00Z\", \"user\": \"b\", \"units\": 1}\n"
            "{\"ts\": 946684801, \"user\": \"b\"}\n"
            "{\"ts\": \"yesterday\", \"user\": \"b\", \"units\": 1}\n"
            "{\"ts\": 946684801, \"user\": \"b\", \"units\": 1\n"
            "{\"ts\": 946684801, \"user\": \"b\", \"units\": 0}\n",
            o);
        QCOMPARE(t.format, LogFormat::Json);
        QCOMPARE(t.startEpochNanos, kY2k);
        QCOMPARE(t.times, (std::vector<Nanos>{0, 250'000'000, 500'000'000}));
        QCOMPARE(keysOf(t), (std::vector<std::string>{"b", "k\xc3\xa9y", "b"}));
        QCOMPARE(t.costs, (std::vector<std::int64_t>{1, 3, 2}));
        QCOMPARE(t.unreadable, std::int64_t(4));
        std::vector<std::int64_t> lines;
        for (const LineError& e : t.firstErrors)
            lines.push_back(e.line);
        QCOMPARE(lines, (std::vector<std::int64_t>{4, 5, 6, 7}));
        QVERIFY(t.firstErrors[0].reason.find("no field 'units'") != std::string::npos);
        QVERIFY(t.firstErrors[3].reason.find("cost") != std::string::npos); // 0 is below 1
        QVERIFY(!t.wholeSeconds);
    }

    // Traefik's and Envoy Gateway's JSON access logs, read by their own names (traffic_parse_json.cpp
    // fieldRank cites the sources). Line 1, Traefik's: the client is ClientAddr's host 192.0.2.10,
    // not ClientHost (Traefik wrote the X-Forwarded-For 203.0.113.9 there); the time is StartUTC,
    // 2000-01-01T00:00:01.000000250Z = Y2K + 1 s + 250 ns, not logrus's "time" (00:00:02, when the
    // line was written); ClientUsername "-" is no user. Line 2, Envoy Gateway's: the client is
    // downstream_remote_address's host 2001:db8::1, the time start_time = Y2K + 0.5 s, the header
    // x-forwarded-for is http_x_forwarded_for, not the client. Line 3: Envoy's null is no value
    // (its x-forwarded-for absent). In time order: line 2 (0.5 s), line 3 (0.75 s), line 1; the
    // start is Y2K + 500 ms, so the times are 0, 250 ms and 500 ms + 250 ns.
    void productJsonFieldNames()
    {
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = {"ip", "user", "host", "request_method", "http_user_agent", "http_x_forwarded_for"};
        const Traffic t = parse(
            "{\"ClientAddr\":\"192.0.2.10:51234\",\"ClientHost\":\"203.0.113.9\",\"ClientPort\":\"51234\","
            "\"ClientUsername\":\"-\",\"DownstreamStatus\":200,\"RequestAddr\":\"api.example.com:8443\","
            "\"RequestHost\":\"api.example.com\",\"RequestMethod\":\"POST\",\"RequestPath\":\"/api/v1?x=1\","
            "\"StartUTC\":\"2000-01-01T00:00:01.000000250Z\",\"level\":\"info\",\"msg\":\"\","
            "\"request_User-Agent\":\"curl/8.0\",\"request_X-Forwarded-For\":\"203.0.113.9\",\"time\":\"2000-01-01T00:00:02Z\"}\n"
            "{\":authority\":\"shop.example.com\",\"downstream_remote_address\":\"[2001:db8::1]:40000\",\"method\":\"GET\","
            "\"start_time\":\"2000-01-01T00:00:00.500Z\",\"user-agent\":\"Go-http-client/1.1\",\"x-envoy-origin-path\":\"/cart\","
            "\"x-forwarded-for\":\"198.51.100.7\",\"response_code\":200}\n"
            "{\":authority\":\"shop.example.com\",\"downstream_remote_address\":\"198.51.100.7:1\",\"method\":\"GET\","
            "\"start_time\":\"2000-01-01T00:00:00.750Z\",\"user-agent\":null,\"x-envoy-origin-path\":\"/\",\"x-forwarded-for\":null}\n",
            o);
        QCOMPARE(t.format, LogFormat::Json);
        QCOMPARE(t.unreadable, std::int64_t(0));
        QCOMPARE(t.startEpochNanos, kY2k + 500'000'000);
        QCOMPARE(t.times, (std::vector<Nanos>{0, 250'000'000, 500'000'250}));
        QCOMPARE(keysOf(t), (std::vector<std::string>{"2001:db8::1", "198.51.100.7", "192.0.2.10"}));
        std::vector<std::string> paths;
        for (const std::uint32_t p : t.paths)
            paths.push_back(t.pathNames.at(p));
        QCOMPARE(paths, (std::vector<std::string>{"/cart", "/", "/api/v1?x=1"}));
        const auto column = [&](std::size_t field) {
            std::vector<std::string> out;
            for (const std::uint32_t k : t.fieldKeys.at(field))
                out.push_back(t.keyNames.at(k));
            return out;
        };
        QCOMPARE(column(0), keysOf(t));
        QCOMPARE(column(1), (std::vector<std::string>{"", "", ""}));
        QCOMPARE(column(2), (std::vector<std::string>{"shop.example.com", "shop.example.com", "api.example.com"}));
        QCOMPARE(column(3), (std::vector<std::string>{"GET", "GET", "POST"}));
        QCOMPARE(column(4), (std::vector<std::string>{"Go-http-client/1.1", "", "curl/8.0"}));
        QCOMPARE(column(5), (std::vector<std::string>{"198.51.100.7", "", "203.0.113.9"}));
        // A field named as asked is read before a product's name for it (but StartUTC's time).
        const Traffic both = parse("{\"ip\":\"10.0.0.1\",\"ClientAddr\":\"10.0.0.2:1\",\"time\":946684800}\n", o);
        QCOMPARE(keysOf(both), (std::vector<std::string>{"10.0.0.1"}));
    }

    // A combined log's fields after the request are $status $body_bytes_sent "$http_referer"
    // "$http_user_agent" (nginx's log_format combined): asked for, each is read, a quoted one as
    // the request sent it (nginx's \x22 a quote, \x5C a backslash; Apache's \" and \\, \t and
    // \n; another escape as written; "-" is none). A common line has the first two, and a line with one more quoted field than combined
    // keeps the four as they come.
    void combinedLogsTail()
    {
        TrafficOptions o;
        o.keyFields = {"http_user_agent", "http_referer", "status", "body_bytes_sent"};
        const Traffic t = parse(
            "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET / HTTP/1.1\" 200 437 \"-\" \"okhttp/4.12.0\"\n"
            "192.0.2.2 - - [01/Jan/2000:00:00:01 +0000] \"GET /a HTTP/1.1\" 429 0 \"https://x.example/\" \"a \\x22b\\x22 c\"\n"
            "192.0.2.3 - - [01/Jan/2000:00:00:02 +0000] \"GET /b HTTP/1.1\" 200 12 \"-\" \"-\" \"extra\"\n"
            "192.0.2.4 - - [01/Jan/2000:00:00:03 +0000] \"GET /c HTTP/1.1\" 200 1 \"-\" \"q\\\"r\\\\s\\x5Ct\\xC3\\xA9\"\n"
            "192.0.2.5 - - [01/Jan/2000:00:00:04 +0000] \"GET /d HTTP/1.1\" 200 1 \"-\" \"a\\tb\\nc\\q\"\n",
            o);
        QCOMPARE(t.format, LogFormat::Combined);
        QCOMPARE(t.unreadable, std::int64_t(0));
        const auto column = [&](std::size_t field) {
            std::vector<std::string> out;
            for (const std::uint32_t k : t.fieldKeys.at(field))
                out.push_back(t.keyNames.at(k));
            return out;
        };
        QCOMPARE(column(0), (std::vector<std::string>{"okhttp/4.12.0", "a \"b\" c", "", "q\"r\\s\\t\xC3\xA9", "a\tb\nc\\q"}));
        QCOMPARE(column(1), (std::vector<std::string>{"", "https://x.example/", "", "", ""}));
        QCOMPARE(column(2), (std::vector<std::string>{"200", "429", "200", "200", "200"}));
        QCOMPARE(column(3), (std::vector<std::string>{"437", "0", "12", "1", "1"}));
        QCOMPARE(t.fieldSeen, (std::vector<std::int64_t>{4, 1, 5, 5}));
        // A log_format's field is read the same: nginx escaped it the same.
        TrafficOptions n;
        n.keyFields = {"http_user_agent"};
        n.format = LogFormat::Nginx;
        n.nginxLogFormat = "$msec $remote_addr \"$http_user_agent\"";
        const Traffic f = parse("946684800.000 192.0.2.1 \"a \\x22b\\x22 c\"\n", n);
        QCOMPARE(f.keyNames.at(f.fieldKeys.at(0).at(0)), std::string("a \"b\" c"));
        o.format = LogFormat::Common;
        const Traffic common = parse("192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET / HTTP/1.1\" 200 437\n", o);
        QCOMPARE(common.fieldSeen, (std::vector<std::int64_t>{0, 0, 1, 1}));
    }

    // A request line's absolute-form target (what a proxy is sent) is its path from the '/' after
    // the host, as nginx's $request_uri and locations see it; a target without one is "/"; a
    // scheme must be letters; any other target is as written.
    void absoluteFormTargets()
    {
        QCOMPARE(std::string(detail::requestPath("GET http://example.com/health?x=1 HTTP/1.1")), std::string("/health?x=1"));
        QCOMPARE(std::string(detail::requestPath("GET HTTPS://example.com:8443/a HTTP/1.1")), std::string("/a"));
        QCOMPARE(std::string(detail::requestPath("GET http://example.com HTTP/1.1")), std::string("/"));
        QCOMPARE(std::string(detail::requestPath("GET /a?u=http://x/y HTTP/1.1")), std::string("/a?u=http://x/y"));
        QCOMPARE(std::string(detail::requestPath("GET h2c1://x/y HTTP/1.1")), std::string("h2c1://x/y"));
        QCOMPARE(std::string(detail::requestPath("OPTIONS * HTTP/1.1")), std::string("*"));
        // The host ends at '?' too: the URI is the query alone, as $request_uri holds it; at '#', "/".
        QCOMPARE(std::string(detail::requestPath("GET http://h.example?next=/y HTTP/1.1")), std::string("?next=/y"));
        QCOMPARE(std::string(detail::requestPath("GET http://h.example#top HTTP/1.1")), std::string("/"));
        // An nginx log_format's $uri is marked: decoded, without the query string.
        TrafficOptions o;
        o.keepPaths = true;
        o.format = LogFormat::Nginx;
        o.nginxLogFormat = "$msec $remote_addr $uri";
        const Traffic uri = parse("946684800.000 192.0.2.1 /a\n", o);
        QVERIFY(uri.pathIsUri);
        o.nginxLogFormat = "$msec $remote_addr \"$request\"";
        QVERIFY(!parse("946684800.000 192.0.2.1 \"GET /a HTTP/1.1\"\n", o).pathIsUri);
    }

    // A JSON line is read as RFC 8259 reads it: a surrogate pair is one code point (U+1F600 is
    // F0 9F 98 80 in UTF-8, not the six bytes of each half encoded alone), and an escape JSON
    // does not have, half of a pair alone or a malformed value anywhere in the line makes the
    // line unreadable, with the reason.
    void jsonLinesDecodeAsJsonSays()
    {
        TrafficOptions o;
        o.timeField = "ts";
        o.key = "user";
        o.errorsKept = 10;
        const Traffic t = parse("{\"ts\": 946684800, \"user\": \"\\ud83d\\ude00\"}\n"
                                "{\"ts\": 946684801, \"user\": \"\\u00e9\\u4E2D\"}\n"
                                "{\"ts\": 946684802, \"user\": \"a\\qb\"}\n"
                                "{\"ts\": 946684803, \"user\": \"\\ud800\"}\n"
                                "{\"ts\": 946684804, \"user\": \"\\ude00x\"}\n"
                                "{\"ts\": 946684805, \"user\": \"b\", \"extra\": {\"x\": \"\\q\"}}\n"
                                "{\"ts\": 946684806, \"user\": \"b\"} tail\n"
                                "{\"ts\": 946684807, \"user\": \"c\", \"n\": [1, {\"k\": null}], \"big\": 123456789012345678901234567890}\n"
                                "{\"ts\": 946684808 \"user\": \"d\"}\n"
                                "{\"ts\" 946684809, \"user\": \"d\"}\n",
                                o);
        QCOMPARE(t.format, LogFormat::Json);
        QCOMPARE(t.times, (std::vector<Nanos>{0, kS, 7 * kS}));
        // U+00E9 is C3 A9; U+4E2D is E4 B8 AD.
        QCOMPARE(keysOf(t), (std::vector<std::string>{"\xF0\x9F\x98\x80", "\xC3\xA9\xE4\xB8\xAD", "c"}));
        QCOMPARE(t.unreadable, std::int64_t(7));
        std::vector<std::pair<std::int64_t, std::string>> errors;
        for (const LineError& e : t.firstErrors)
            errors.emplace_back(e.line, e.reason);
        const std::vector<std::pair<std::int64_t, std::string>> want{
            {3, "malformed JSON (an invalid escape \\q)"},
            {4, "malformed JSON (a lone surrogate \\ud800: a high surrogate with no low one after it)"},
            {5, "malformed JSON (a lone surrogate \\ude00: a low surrogate with no high one before it)"},
            {6, "malformed JSON (an invalid escape \\q)"},
            {7, "text after the JSON object"},
            {9, "malformed JSON (',' or '}' was expected)"},
            {10, "malformed JSON (':' was expected)"}};
        QCOMPARE(errors, want);
    }

    void csvWithHeaderQuotesAndShortRows()
    {
        TrafficOptions o;
        o.key = "api key";
        o.costField = "units";
        o.pathPrefix = "/";
        const Traffic t = parse("time,\"api key\",path,units\n"
                                "2000-01-01T00:00:00.000000001Z,\"k,1\",/a,1\n"
                                "2000-01-01T00:00:01Z , k2 ,\"/b,c\",2\n"
                                "2000-01-01T00:00:02Z,\"unterminated,/a,1\n"
                                "2000-01-01T00:00:03Z,k3\n"
                                "946684804,\"say \"\"hi\"\"\",/d,5\n",
                                o);
        QCOMPARE(t.format, LogFormat::Csv);
        // Times count from the clock's ms at or before the first (kY2k + 1 ns): kY2k.
        QCOMPARE(t.startEpochNanos, kY2k);
        QCOMPARE(t.times, (std::vector<Nanos>{1, kS, 4 * kS}));
        QCOMPARE(keysOf(t), (std::vector<std::string>{"k,1", "k2", "say \"hi\""}));
        QCOMPARE(t.costs, (std::vector<std::int64_t>{1, 2, 5}));
        QCOMPARE(t.unreadable, std::int64_t(2));
        QCOMPARE(t.firstErrors.at(0).line, std::int64_t(4));
        QCOMPARE(t.firstErrors.at(1).line, std::int64_t(5));
        o.costField = "price";
        QVERIFY(errorOf([&] { parse("time,\"api key\",path,units\n1,a,/,1\n", o); })
                    .find("test.log:1: the CSV header has no cost field 'price'") != std::string::npos);
    }

    void strictRefusesAtTheFirstUnreadableLine()
    {
        TrafficOptions o;
        o.strict = true;
        QCOMPARE(errorOf([&] { parse(kCombined, o); }).substr(0, 16), std::string("test.log:4: time"));
        QVERIFY(errorOf([&] { parse(kCombined, o); }).find("(--strict)") != std::string::npos);
    }

    void onlyTheFirstErrorsAreKeptAllAreCounted()
    {
        std::string text = "a - - [01/Jan/2000:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1\n";
        for (int i = 0; i < 8; ++i)
            text += "junk\n";
        const Traffic t = parse(text);
        QCOMPARE(t.unreadable, std::int64_t(8));
        QCOMPARE(t.firstErrors.size(), std::size_t(5));
        QCOMPARE(t.firstErrors.front().line, std::int64_t(2));
        QCOMPARE(t.firstErrors.back().line, std::int64_t(6));
        QVERIFY(errorOf([&] { parse("junk\njunk\n"); }).find("test.log: no line of the first 2 looks like a log line (line 1: 'junk')")
                != std::string::npos);
        QVERIFY(errorOf([&] { parse(""); }).find("it is empty") != std::string::npos);
        // A line longer than 16 MiB is one unreadable line, and the next line is read.
        const Traffic l = parse(std::string((std::size_t(16) << 20) + 1, 'x') + "\n" + text.substr(0, text.find('\n') + 1));
        QCOMPARE(l.unreadable, std::int64_t(1));
        QCOMPARE(l.times.size(), std::size_t(1));
        QCOMPARE(l.firstErrors.front().reason, std::string("longer than 16777216 bytes"));
    }

    // A log with more requests (or keys) than its bound is refused as soon as the one past it is
    // read, with the estimate (3 requests at 48 B: 1 MB rounded up; 2 keys at 600 B).
    void boundsRefuseTheOnePastThem()
    {
        const std::string log = "time,ip\n1,a\n2,b\n3,a\n4,b\n";
        TrafficOptions o;
        o.maxRequests = 3;
        o.bytesPerRequest = 48;
        QCOMPARE(errorOf([&] { parseTraffic(log, o, "big.csv"); }),
                 std::string("big.csv: more than 3 requests, about 1 MB at 48 B a request, half of the memory available: "
                             "replay a part of the log (--path, or fewer lines)"));
        o.maxRequests = 4;
        QCOMPARE(parseTraffic(log, o, "big.csv").times.size(), std::size_t(4));
        o.maxKeys = 1;
        o.bytesPerKey = 600;
        QCOMPARE(errorOf([&] { parseTraffic(log, o, "big.csv"); }),
                 std::string("big.csv: more than 1 distinct keys (--max-keys): 2 keys take about 1 MB at 600 B a key; "
                             "raise --max-keys if the machine has the memory"));
    }

    void gzipIsReadDirectlyAndAsBytes()
    {
        QTemporaryDir dir;
        const std::string gz = dir.filePath("a.log.gz").toStdString();
        writeGzip(gz, kCombined.substr(0, 300));
        writeGzip(gz, kCombined.substr(300), "ab"); // a second gzip member, as logrotate's appends make
        const Traffic plain = parse(kCombined);
        const Traffic file = readTrafficLog(gz, {});
        QCOMPARE(file.times, plain.times);
        QCOMPARE(keysOf(file), keysOf(plain));
        QCOMPARE(file.unreadable, plain.unreadable);
        std::ifstream in(gz, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const Traffic memory = parseTraffic(bytes, {}, "a.log.gz");
        QCOMPARE(memory.times, plain.times);
        QCOMPARE(keysOf(memory), keysOf(plain));
        // Cut short: refused, never read as if it ended there.
        const std::string cut = dir.filePath("cut.log.gz").toStdString();
        writeGzip(cut, kCombined);
        std::ifstream whole(cut, std::ios::binary);
        const std::string all((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary | std::ios::trunc) << all.substr(0, all.size() - 12);
        QVERIFY(errorOf([&] { readTrafficLog(cut, {}); }).find(cut + ": cannot be read") == 0);
        QVERIFY(errorOf([&] { parseTraffic(all.substr(0, all.size() - 12), {}, "cut"); }).find("cut: ") == 0);
        QCOMPARE(errorOf([&] { readTrafficLog(dir.filePath("none").toStdString(), {}); }),
                 dir.filePath("none").toStdString() + ": no such file");
        QCOMPARE(errorOf([&] { readTrafficLog(dir.path().toStdString(), {}); }), dir.path().toStdString() + ": not a regular file");
    }

    void timesAreExact()
    {
        // The same instants written four ways.
        const Traffic t = parse("{\"time\": 946684800.000000001, \"ip\": \"a\"}\n"
                                "{\"time\": \"2000-01-01T00:00:00.1Z\", \"ip\": \"a\"}\n"
                                "{\"time\": \"2000-01-01 05:30:00.2+05:30\", \"ip\": \"a\"}\n"
                                "{\"time\": \"[01/Jan/2000:00:00:01 +0000]\", \"ip\": \"a\"}\n"
                                "{\"time\": 946684800.0000000001, \"ip\": \"a\"}\n");
        // From kY2k, the clock's ms at or before the first: 1 ns, 0.1 s, 0.2 s, 1 s.
        QCOMPARE(t.times, (std::vector<Nanos>{1, 100'000'000, 200'000'000, 1'000'000'000}));
        QCOMPARE(t.unreadable, std::int64_t(1)); // finer than a nanosecond: not exact, so not read
        QCOMPARE(formatEpoch(kY2k + 123'000'000), std::string("2000-01-01T00:00:00.123Z"));
        QCOMPARE(formatEpoch(0), std::string("1970-01-01T00:00:00Z"));
        QCOMPARE(epochFromCivil(2000, 3, 1, 0, 0, 0), std::int64_t(946684800 + 60 * 86400)); // 31 + 29 days
    }
};

QTEST_GUILESS_MAIN(TestTrafficLog)
#include "tst_traffic_log.moc"
