// Logs read as they are: the format decided by most of a sample of lines, a first
// line cut short by `tail -c` and comment lines set aside with a count, byte order marks skipped
// wherever a line starts with one, `$request_time` before `$msec` not taken for the time, and an
// nginx log_format string read by its named variables. Times are worked out by hand from
// 2000-01-01T00:00:00Z = 946684800 s since 1970.
#include "error_of.h"
#include "cli_run.h"

#include "arithmetic/decimal.h"
#include "traffic/traffic_log.h"
#include "traffic/traffic_warnings.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using clitest::runRatelab;

namespace {

constexpr Nanos kS = kNanosPerSecond;
constexpr Nanos kY2k = 946684800 * kS;

Traffic parse(const std::string& text, TrafficOptions o = {}) { return parseTraffic(text, o, "test.log"); }

std::string combined(int second, const char* ip = "192.0.2.1")
{
    return std::string(ip) + " - - [01/Jan/2000:00:00:0" + std::to_string(second)
         + " +0000] \"GET /a HTTP/1.1\" 200 5 \"-\" \"curl/8 (x, y)\"\n";
}

} // namespace

class TestTrafficFormats : public QObject {
    Q_OBJECT
private slots:
    // `tail -c` starts mid-line: the cut line is set aside with its reason (not unreadable, not
    // fatal even with --strict), and a comma in it does not make the log CSV.
    void aCutFirstLineIsSetAside()
    {
        const std::string whole = combined(0) + combined(1) + combined(2) + combined(3);
        const std::string cut = whole.substr(whole.find("(x, y)")); // `(x, y)"` and three whole lines
        const Traffic t = parse(cut);
        QCOMPARE(t.format, LogFormat::Combined);
        QCOMPARE(t.times, (std::vector<Nanos>{0, kS, 2 * kS}));
        QCOMPARE(t.startEpochNanos, kY2k + kS);
        QCOMPARE(t.unreadable, std::int64_t(0));
        QCOMPARE(t.firstLineCut, std::string("not an access-log line (host ident user [time] \"request\" ...)"));
        TrafficOptions strict;
        strict.strict = true;
        QCOMPARE(parse(cut, strict).times.size(), std::size_t(3));
    }

    // Comment lines are skipped and counted wherever they are; the format is that of the lines.
    void commentLinesAreCounted()
    {
        const Traffic t = parse("# rotated 2000-01-01\n" + combined(0) + "  # a note\n" + combined(1));
        QCOMPARE(t.format, LogFormat::Combined);
        QCOMPARE(t.times.size(), std::size_t(2));
        QCOMPARE(t.comments, std::int64_t(2));
        QCOMPARE(t.unreadable, std::int64_t(0));
        QCOMPARE(t.lines, std::int64_t(4));
        QCOMPARE(errorOf([] { parse("# nothing but this\n"); }), std::string("test.log: no request to replay (it holds only comment lines)"));
        // The warning counts them as every report counts: in threes past a thousand.
        std::string many;
        for (int i = 0; i < 1234; ++i)
            many += "# a note\n";
        QCOMPARE(trafficWarnings(parse(combined(0) + many + combined(1))).front(), std::string("1,234 comment lines (#...) skipped"));
    }

    // The majority of the sample decides: three JSON lines and one combined line are JSON, and
    // the combined line is unreadable by its number. Two against two is no majority: refused,
    // naming the counts and the lines that are not the format counted first.
    void theMajorityDecides()
    {
        const std::string json = R"({"time": "946684800.5", "ip": "198.51.100.7"})" "\n";
        const Traffic t = parse(json + json + combined(1) + json);
        QCOMPARE(t.format, LogFormat::Json);
        QCOMPARE(t.times.size(), std::size_t(3));
        QCOMPARE(t.unreadable, std::int64_t(1));
        QCOMPARE(t.firstErrors.at(0).line, std::int64_t(3));
        // Line 1 does not vote (it may be cut): lines 2 and 4 are combined, 3 and 5 JSON.
        QCOMPARE(errorOf([&] { parse(combined(0) + combined(1) + json + combined(2) + json); }),
                 std::string("test.log: no one format holds most of the first 5 lines (access log 2, json 2; lines 3, 5 are "
                             "not combined); name the format with --log-format"));
    }

    // A UTF-8 byte order mark is skipped: before a CSV header, before JSON lines (also at the
    // start of a later line, where two files were joined).
    void byteOrderMarksAreSkipped()
    {
        const std::string bom = "\xEF\xBB\xBF";
        const Traffic csv = parse(bom + "time,ip\n946684800,192.0.2.1\n946684801,192.0.2.2\n");
        QCOMPARE(csv.format, LogFormat::Csv);
        QCOMPARE(csv.times, (std::vector<Nanos>{0, kS}));
        const std::string line = R"({"time": "946684800.25", "ip": "192.0.2.1"})" "\n";
        const Traffic json = parse(bom + line + line + bom + line);
        QCOMPARE(json.format, LogFormat::Json);
        QCOMPARE(json.times.size(), std::size_t(3));
        QCOMPARE(json.unreadable, std::int64_t(0));
        QVERIFY(json.firstLineCut.empty());
    }

    // $request_time (0.004) before $msec is a duration, not the time: the time is the word of
    // seconds since 1970 (nine or more whole digits), wherever it stands.
    void requestTimeBeforeMsec()
    {
        const Traffic t = parse("203.0.113.9 \"GET /a HTTP/1.1\" 200 0.004 946684800.123\n"
                                "0.250 946684801.000 203.0.113.9 \"GET /b HTTP/1.1\" 200\n"
                                "203.0.113.9 \"GET /c HTTP/1.1\" 200 12.5 946684800.500\n");
        QCOMPARE(t.format, LogFormat::Msec);
        QCOMPARE(t.startEpochNanos, kY2k + 123'000'000);
        QCOMPARE(t.times, (std::vector<Nanos>{0, 377'000'000, 877'000'000}));
        QCOMPARE(t.unreadable, std::int64_t(0));
        TrafficOptions msec;
        msec.format = LogFormat::Msec;
        QVERIFY(errorOf([&] { parse("203.0.113.9 \"GET / HTTP/1.1\" 0.004\n", msec); })
                    .find("no $msec time (seconds since 1970 with decimals") != std::string::npos);
    }

    // An nginx log_format string names every field: $msec is the time even after
    // $request_time, $http_x_api_key can be the key, a '-' key is unreadable with a reason,
    // $time_local spans its own space, and the whole directive may be given.
    void nginxLogFormatByName()
    {
        TrafficOptions o;
        o.format = LogFormat::Nginx;
        o.nginxLogFormat = "$remote_addr - $remote_user [$time_local] \"$request\" $status $request_time $msec \"$http_x_api_key\"";
        const std::string log = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /api/a HTTP/1.1\" 200 0.004 946684800.250 \"k1\"\n"
                                "192.0.2.2 - bob [01/Jan/2000:00:00:01 +0000] \"POST /api/b HTTP/1.1\" 429 1.500 946684801.000 \"-\"\n";
        const Traffic t = parse(log, o);
        QCOMPARE(t.format, LogFormat::Nginx);
        QCOMPARE(t.startEpochNanos, kY2k + 250'000'000); // $msec, not $request_time or $time_local
        QCOMPARE(t.times, (std::vector<Nanos>{0, 750'000'000}));
        QCOMPARE(t.keyNames, (std::vector<std::string>{"192.0.2.1", "192.0.2.2"}));
        o.key = "http_x_api_key";
        o.pathPrefix = "/api/";
        const Traffic byKey = parse(log, o);
        QCOMPARE(byKey.keyNames, (std::vector<std::string>{"k1"}));
        QCOMPARE(byKey.unreadable, std::int64_t(1));
        QCOMPARE(byKey.firstErrors.at(0).reason, std::string("no $http_x_api_key ('-'): nginx limits no request without its key"));
        // $time_local alone, unbracketed: whole seconds; the directive form with escape=json.
        TrafficOptions local;
        local.format = LogFormat::Nginx;
        local.nginxLogFormat = "log_format main escape=json '$time_local $remote_addr '\n    '\"$request\"';";
        const Traffic l = parse("01/Jan/2000:00:00:02 +0000 192.0.2.9 \"GET / HTTP/1.1\"\n", local);
        QCOMPARE(l.startEpochNanos, kY2k + 2 * kS);
        QVERIFY(l.wholeSeconds);
    }

    void nginxLogFormatRefusals_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("message");
        QTest::newRow("no time") << "$remote_addr \"$request\"" << "ip"
                                 << "the log_format has no time: $msec, $time_iso8601 or $time_local (it has $remote_addr, "
                                    "$request; or name one with --time-field)";
        QTest::newRow("adjacent") << "$remote_addr$msec" << "ip"
                                  << "the log_format's $remote_addr and $msec have nothing between them: nothing tells where "
                                     "one ends";
        QTest::newRow("no key") << "$remote_addr $msec" << "http_x_api_key"
                                << "--key 'http_x_api_key': the log_format has no $http_x_api_key (it has $remote_addr, $msec)";
        QTest::newRow("no variable") << "plain text" << "ip" << "the log_format has no $variable";
    }

    void nginxLogFormatRefusals()
    {
        QFETCH(QString, format);
        QFETCH(QString, key);
        QFETCH(QString, message);
        TrafficOptions o;
        o.format = LogFormat::Nginx;
        o.nginxLogFormat = format.toStdString();
        o.key = key.toStdString();
        QCOMPARE(QString::fromStdString(errorOf([&] { parse("192.0.2.1 946684800.5\n", o); })), message);
    }

    // The command: --log-format 'nginx:...' reads by name; the cut first line and the comments
    // are warnings; a bad log_format is one line on stderr, exit 2, nothing on stdout.
    void command()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.log");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("1.500 946684800.250 192.0.2.1\n# note\n0.004 946684801.000 192.0.2.1\n");
        f.close();
        const auto r = runRatelab({"replay", path, "--log-format", "nginx:$request_time $msec $remote_addr", "--format", "json"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("\"start\": \"2000-01-01T00:00:00.25Z\""), r.out.constData());
        QVERIFY2(r.err.contains("ratelab: warning: 1 comment line (#...) skipped"), r.err.constData());
        const auto bad = runRatelab({"replay", path, "--log-format", "nginx:$request_time$msec"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.out.isEmpty());
        QCOMPARE(bad.err.count('\n'), 1);
        const auto cut = runRatelab({"replay", path, "--log-format", "msec", "--format", "json"});
        QCOMPARE(cut.code, 0); // line 1's 1.500 is a duration; 946684800.250 is its time
        QVERIFY2(cut.out.contains("\"start\": \"2000-01-01T00:00:00.25Z\""), cut.out.constData());
    }

    // jsonString always writes JSON: well-formed UTF-8 kept, each byte that is not part of a
    // well-formed sequence one U+FFFD (EF BF BD), control characters escaped.
    void jsonStringWritesValidJsonOfAnyBytes()
    {
        const std::string fffd = "\xEF\xBF\xBD";
        QCOMPARE(jsonString("\xF0\x9F\x98\x80 \xC3\xA9"), std::string("\"\xF0\x9F\x98\x80 \xC3\xA9\""));
        QCOMPARE(jsonString("a\xFF" "b"), "\"a" + fffd + "b\"");
        QCOMPARE(jsonString("\xC0\xAF"), "\"" + fffd + fffd + "\"");               // an overlong '/'
        QCOMPARE(jsonString("\xED\xA0\xBD"), "\"" + fffd + fffd + fffd + "\"");    // half a surrogate pair, CESU-8
        QCOMPARE(jsonString("\xF4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\""); // U+110000
        QCOMPARE(jsonString("x\xE4\xB8"), "\"x" + fffd + fffd + "\"");             // cut short
        QCOMPARE(jsonString(std::string("\x01\x1f\x7f\"\\\n", 6)), std::string("\"\\u0001\\u001f\x7f\\\"\\\\\\n\""));
    }
};

QTEST_GUILESS_MAIN(TestTrafficFormats)
#include "tst_traffic_formats.moc"
