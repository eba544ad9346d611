// `ratelab advise`, run as a user runs it: the report of a small log worked out by hand, the
// config it writes read back by `replay --config`, and its refusals.
#include "advise_log.h"
#include "cli_run.h"
#include "traffic/traffic_log.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace clitest;

namespace {

// advise_log.h's log: key 1.1.1.1 three requests at 0 ms, one at 500, one at 1000; 2.2.2.2 one
// at 0; 3.3.3.3 ten at 0.
const QByteArray kLog = advisetest::kLog;

// The config for 24r/m burst 4 keyed by the address, in shadow mode.
const QByteArray kConfig = "limit_req_zone $binary_remote_addr zone=ratelab:1m rate=24r/m;\n"
                           "limit_req zone=ratelab burst=4 nodelay;\n"
                           "limit_req_dry_run on;\n";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(name));
    return f.fileName();
}

const QString kApiDay = QStringLiteral(QT_TESTCASE_SOURCEDIR "/../resources/traffic/api-day.log.gz");

// ApiDay is the shipped day read here, apart from RateLab: each address's request times in whole
// seconds of the day (its one date), and the keys kept at 99 % (nearest rank of their counts).
struct ApiDay {
    std::map<QByteArray, std::vector<std::int64_t>> keys;
    int keptMost = 0;
    int letBy = 0; // lines left out, as a config lets them by

    int keptKeys() const
    {
        return int(std::count_if(keys.begin(), keys.end(), [&](const auto& k) { return int(k.second.size()) <= keptMost; }));
    }
    // keptBurst: the most deficit of a kept key at a whole rate a second, d = max(0, d - rate *
    // gap) + 1, a token bucket's least burst.
    int keptBurst(std::int64_t rate) const
    {
        std::int64_t most = 0;
        for (const auto& [key, times] : keys) {
            if (int(times.size()) > keptMost)
                continue;
            std::int64_t d = 0;
            for (std::size_t i = 0; i < times.size(); ++i) {
                d = std::max<std::int64_t>(0, d - (i ? rate * (times[i] - times[i - 1]) : 0)) + 1;
                most = std::max(most, d);
            }
        }
        return int(most);
    }
    // bucketDenials: what a token bucket (full at first, `rate` tokens a second) denies the keys
    // not kept, and how many of them it denies.
    std::pair<int, int> bucketDenials(std::int64_t rate, std::int64_t burst) const
    {
        int denied = 0, keysDenied = 0;
        for (const auto& [key, times] : keys) {
            if (int(times.size()) <= keptMost)
                continue;
            std::int64_t tokens = burst, mine = 0;
            for (std::size_t i = 0; i < times.size(); ++i) {
                tokens = std::min(burst, tokens + (i ? rate * (times[i] - times[i - 1]) : 0));
                tokens >= 1 ? --tokens : ++mine;
            }
            denied += int(mine);
            keysDenied += mine > 0;
        }
        return {denied, keysDenied};
    }
    // originPeaks: the most requests of the day in one second (its times are whole seconds, so a
    // second (t - 1 s, t] holds one of them), and the most of those that bucketDenials' token
    // bucket, one per key, lets through.
    std::pair<int, int> originPeaks(std::int64_t rate, std::int64_t burst) const
    {
        std::map<std::int64_t, int> all, admitted;
        for (const auto& [key, times] : keys) {
            std::int64_t tokens = burst;
            for (std::size_t i = 0; i < times.size(); ++i) {
                tokens = std::min(burst, tokens + (i ? rate * (times[i] - times[i - 1]) : 0));
                ++all[times[i]];
                if (tokens >= 1) {
                    --tokens;
                    ++admitted[times[i]];
                }
            }
        }
        const auto most = [](const std::map<std::int64_t, int>& m) {
            return std::max_element(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->second;
        };
        return {most(all), most(admitted)};
    }
    // sliding runs @upstash/ratelimit's slidingWindow script on one key (src/lua-scripts/single.ts:
    // the previous window's count times 1 - (now % window) / window, rounded down, in doubles;
    // denied iff that plus the current count reaches tokens, nothing counted) with the ephemeral
    // cache (a denied key blocked to its window's end, that millisecond included). tokens 0: none
    // denied, and `most` the least tokens that admit all.
    static std::int64_t sliding(const std::vector<std::int64_t>& times, std::int64_t windowS, std::int64_t tokens,
                                std::int64_t& most)
    {
        const std::int64_t windowMs = windowS * 1000;
        std::int64_t bucket = -1, current = 0, previous = 0, blockedUntil = -1, denied = 0;
        for (const std::int64_t s : times) {
            const std::int64_t now = s * 1000, b = now / windowMs;
            if (b != bucket) {
                previous = b == bucket + 1 ? current : 0;
                current = 0;
                bucket = b;
            }
            if (blockedUntil >= now) {
                ++denied;
                continue;
            }
            const auto weighted = std::int64_t(std::floor((1.0 - double(now % windowMs) / double(windowMs)) * double(previous)));
            most = std::max(most, weighted + current + 1);
            if (tokens > 0 && weighted + current >= tokens) {
                ++denied;
                blockedUntil = (b + 1) * windowMs;
                continue;
            }
            ++current;
        }
        return denied;
    }
    int slidingLeast(std::int64_t windowS) const
    {
        std::int64_t most = 0;
        for (const auto& [key, times] : keys)
            if (int(times.size()) <= keptMost)
                sliding(times, windowS, 0, most);
        return int(most);
    }
    // slidingDenials: the kept keys' denials when tokens is below their least, else the others'
    // and how many of them are denied.
    std::pair<int, int> slidingDenials(std::int64_t windowS, std::int64_t tokens) const
    {
        int denied = 0, keysDenied = 0, keptDenied = 0;
        std::int64_t unused = 0;
        for (const auto& [key, times] : keys) {
            const auto mine = int(sliding(times, windowS, tokens, unused));
            if (int(times.size()) <= keptMost) {
                keptDenied += mine;
                continue;
            }
            denied += mine;
            keysDenied += mine > 0;
        }
        return keptDenied > 0 ? std::pair{keptDenied, 0} : std::pair{denied, keysDenied};
    }
};

// readApiDay reads the log with gzip: the address is a line's first field, the time its
// [dd/Mon/yyyy:hh:mm:ss +0000]. The lines letBy picks are counted and left out.
ApiDay readApiDay(const std::function<bool(const QByteArray&)>& letBy = {})
{
    QProcess gzip;
    gzip.start("gzip", {"-dc", kApiDay});
    if (!gzip.waitForFinished(60'000))
        qFatal("gzip did not finish");
    ApiDay day;
    for (const QByteArray& line : gzip.readAllStandardOutput().split('\n')) {
        const qsizetype open = line.indexOf('[');
        if (open < 0)
            continue;
        if (letBy && letBy(line)) {
            ++day.letBy;
            continue;
        }
        const QByteArray clock = line.mid(open + 13, 8); // hh:mm:ss after "[23/Nov/2026:"
        const std::int64_t s = clock.mid(0, 2).toLongLong() * 3600 + clock.mid(3, 2).toLongLong() * 60 + clock.mid(6, 2).toLongLong();
        day.keys[line.left(line.indexOf(' '))].push_back(s);
    }
    std::vector<int> counts;
    for (const auto& [key, times] : day.keys)
        counts.push_back(int(times.size()));
    std::sort(counts.begin(), counts.end());
    day.keptMost = counts[(counts.size() * 99 + 99) / 100 - 1]; // rank ceil(0.99 n)
    return day;
}

} // namespace

class TestCliAdvise : public QObject {
    Q_OBJECT
private slots:
    // --keep 60: the 2 keys with at most 5 requests (rank ceil(0.6 * 3) = 2 of 1, 5, 10) are
    // kept; their burst is 1.1.1.1's (tst_advise derives it: 4 below 1r/s, 3 at 1r/s, 2 at 2r/s
    // and above); 3.3.3.3's ten at once lose 10 - (burst + 1). The recommendation at the default
    // drain of 10 s: the least rate draining 4 in 10 s, 0.4/s = 24r/m (10.00 s), beside the
    // front's 1r/m of the same burst; it caps a key at 5 at once.
    void theReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60"});
        QCOMPARE(r.code, 0);
        const QByteArray expected =
            "advise for nginx: " + log.toUtf8() + ", 16 requests of 3 keys by ip\n"
            "kept: the 2 keys with at most 5 requests each (the 60 % least active, ties kept together): all 6 of "
            "their requests must pass\n"
            "\n"
            "the front: for each burst, the lowest round rate at which every request of the kept keys passes\n"
            "  rate           burst  kept denied  others denied  keys denied\n"
            "  1r/m               4            0              5            1\n"
            "  24r/m              4            0              5            1  <- recommended\n"
            "  1r/s               3            0              6            1\n"
            "  2r/s               2            0              7            1\n"
            "\n"
            "recommended: rate 24r/m, burst 4 (the lowest rate whose burst drains within 10 s at that rate; "
            "this one drains in 10.00 s)\n"
            "  kept keys: 0 of their 6 requests denied\n"
            "  the other keys: 5 of their 10 requests denied, 1 key capped; the most denied:\n"
            "    3.3.3.3                                  5 of 10 denied, the first at 0 s after the log's first request\n"
            "  it caps every key at 5 requests at once, then 24r/m\n"
            "\n"
            "nginx, in shadow mode first: limit_req_dry_run logs what it would reject and rejects nothing; delete "
            "it to enforce\n"
            + kConfig
            + "\n"
              "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 5 of 16 requests "
              "denied, 1 key; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 10 under this limit\n";
        QCOMPARE(r.out, expected);
    }

    // What reaches the origin, from the log above: every request falls in (-0.5 s, 0.5 s] but
    // 1.1.1.1's at 1 s, so the busiest second holds 15 of the 16. At 24r/m burst 4 3.3.3.3 gets 5
    // of its 10 through: 10 then. The busiest key is 3.3.3.3: 10 of the 16 requests (62.50 %) and
    // 5 of the 11 let through (45.45 %, rounded down). At 2r/s burst 2 (--drain 1) it gets 3: 8
    // in the busiest second, 3 of 9 let through.
    void whatReachesTheOrigin()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--top", "1"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.endsWith("\nthe origin's busiest second: 15 requests of the log, 10 under this limit; the "
                                "busiest key sent 62.50 % of the requests and 45.45 % of those it lets through\n"),
                 r.out.constData());
        const Run two = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--top", "2"});
        QVERIFY2(two.out.contains("; the 2 busiest keys sent 93.75 % of the requests and 90.90 % of those it lets "
                                  "through\n"),
                 two.out.constData());
        const Run j = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--drain", "1", "--top", "1",
                                  "--format", "json"});
        QCOMPARE(j.code, 0);
        const QJsonObject origin = parseJson(j.out)["origin"].toObject();
        QCOMPARE(origin["peak_per_second"].toInt(), 15);
        QCOMPARE(origin["admitted_peak_per_second"].toInt(), 8);
        QCOMPARE(origin["admitted"].toInt(), 9);
        QCOMPARE(origin["busiest_keys"].toInt(), 1);
        QCOMPARE(origin["requests"].toInt(), 16);
        QCOMPARE(origin["busiest_keys_requests"].toInt(), 10);
        QCOMPARE(origin["busiest_keys_admitted"].toInt(), 3);
    }

    // The same in JSON; --write saves the config, and `replay --config` on it denies the 6.
    void jsonAndTheWrittenConfig()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog), conf = dir.filePath("limit.conf");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--drain", "1", "--format",
                                  "json", "--write", conf});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        // drain 1 s: the lowest rate whose burst is at most the rate: 2r/s, burst 2 (1r/s needs 3).
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("2r/s"));
        QCOMPARE(rec["burst"].toInt(), 2);
        QCOMPARE(rec["others_denied"].toInt(), 7);
        QCOMPARE(rec["kept_denied"].toInt(), 0);
        QCOMPARE(rec["drains_in"].toString(), QString("1.00"));
        QCOMPARE(rec["top_keys"].toArray().at(0).toObject()["key"].toString(), QString("3.3.3.3"));
        QCOMPARE(out["keys"].toObject()["kept"].toInt(), 2);
        QCOMPARE(out["front"].toArray().size(), 3);
        QCOMPARE(out["proof"].toObject()["denied"].toInt(), 7);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        QFile f(conf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray written = f.readAll();
        QCOMPARE(written, QByteArray("limit_req_zone $binary_remote_addr zone=ratelab:1m rate=2r/s;\n"
                                     "limit_req zone=ratelab burst=2 nodelay;\n"
                                     "limit_req_dry_run on;\n"));
        QCOMPARE(out["config"].toString().toUtf8(), written);
        const Run replay = runRatelab({"replay", log, "--config", conf});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 7);
    }

    // --keep 33 keeps the key of 1 request (rank ceil(0.33 * 3) = 1 of 1, 5, 10), and --pass
    // keeps 3.3.3.3 however many it sends: its ten at once need burst 9 at every rate, so the
    // front is 1r/m with 9, and the least rate draining 9 within 10 s is 0.9/s, 54r/m (53r/m
    // drains 8.83 in 10 s). 1.1.1.1 (needs 4 at most) loses nothing at either.
    void keysThatMustPassByPattern()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "33", "--pass", "3\\.3\\.3\\.3"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("\nkept: the 1 key with at most 1 request each (the 33 % least active, ties kept "
                                "together) and 1 busier key matching '3\\.3\\.3\\.3': all 11 of their requests must "
                                "pass\n"),
                 r.out.constData());
        const Run j = runRatelab({"advise", log, "--for", "nginx", "--keep", "33", "--pass", "3\\.3\\.3\\.3", "--format", "json"});
        QCOMPARE(j.code, 0);
        const QJsonObject out = parseJson(j.out);
        const QJsonObject keys = out["keys"].toObject();
        QCOMPARE(keys["kept"].toInt(), 2);
        QCOMPARE(keys["kept_by_pattern"].toInt(), 1);
        QCOMPARE(keys["kept_most_requests"].toInt(), 1);
        QCOMPARE(keys["kept_requests"].toInt(), 11);
        QCOMPARE(keys["pass_pattern"].toString(), QString("3\\.3\\.3\\.3"));
        const QJsonArray front = out["front"].toArray();
        QCOMPARE(front.size(), 2);
        QCOMPARE(front[0].toObject()["rate"].toString(), QString("1r/m"));
        QCOMPARE(front[0].toObject()["burst"].toInt(), 9);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("54r/m"));
        QCOMPARE(rec["burst"].toInt(), 9);
        QCOMPARE(rec["others_denied"].toInt(), 0);
        QCOMPARE(rec["kept_denied"].toInt(), 0);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        // A pattern keeping the busier keys too keeps every key, and says so.
        const Run every = runRatelab({"advise", log, "--for", "nginx", "--keep", "33", "--pass", "3\\.3\\.3\\.3|1\\.1\\.1\\.1"});
        QVERIFY2(every.out.contains("ties kept together) and 2 busier keys matching '3\\.3\\.3\\.3|1\\.1\\.1\\.1' (that "
                                    "is every key): all 16 of their requests must pass\n"),
                 every.out.constData());
        // Without a pattern the JSON says so; a window product keeps by it too.
        const Run plain = runRatelab({"advise", log, "--for", "nginx", "--format", "json"});
        QVERIFY(parseJson(plain.out)["keys"].toObject()["pass_pattern"].isNull());
        const Run kong = runRatelab({"advise", log, "--for", "kong", "--keep", "33", "--pass", "3\\.3\\.3\\.3", "--format", "json"});
        QCOMPARE(kong.code, 0);
        QCOMPARE(parseJson(kong.out)["keys"].toObject()["kept_by_pattern"].toInt(), 1);
    }

    // --pass-path: 3.3.3.3's ten requests go to /health, let by. 1.1.1.1's five and 2.2.2.2's one
    // are left, both kept (rank ceil(0.99 * 2) = 2 of 1, 5); 1.1.1.1 needs burst 4 below 1r/s
    // (tst_advise), so the least rate draining 4 within 10 s is 0.4/s, 24r/m, denying nothing. The
    // written map lets /health by, and `replay --config` on it counts the 6 and denies none.
    void requestsLetByPath()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", QByteArray(kLog).replace("3.3.3.3,/", "3.3.3.3,/health"));
        const QString conf = dir.filePath("limit.conf");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--pass-path", "/health"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith(("advise for nginx: " + log + ", 6 requests of 2 keys by ip\n  and 10 requests whose "
                                   "path matches '/health', which the config lets by uncounted (they pass at any limit; "
                                   "the most, 10, from 3.3.3.3)\n"
                                   "kept: the 2 keys with at most 5 requests each (the 99 % least active, ties kept "
                                   "together; that is every key): all 6 of their requests must pass\n").toUtf8()),
                 r.out.constData());
        const Run j = runRatelab({"advise", log, "--for", "nginx", "--pass-path", "/health", "--format", "json", "--write", conf});
        QCOMPARE(j.code, 0);
        const QJsonObject out = parseJson(j.out);
        QCOMPARE(out["let_by"].toObject()["path"].toString(), QString("/health"));
        QCOMPARE(out["let_by"].toObject()["requests"].toInt(), 10);
        QCOMPARE(out["keys"].toObject()["requests"].toInt(), 6);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("24r/m"));
        QCOMPARE(rec["burst"].toInt(), 4);
        QCOMPARE(rec["others_denied"].toInt(), 0);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        QFile f(conf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("map $request_uri $ratelab_key {\n    \"~^(?:/health)$\" \"\";\n    default "
                                         "$binary_remote_addr;\n}\nlimit_req_zone $ratelab_key zone=ratelab:1m rate=24r/m;\n"
                                         "limit_req zone=ratelab burst=4 nodelay;\nlimit_req_dry_run on;\n"));
        const QJsonObject replayed = parseJson(runRatelab({"replay", log, "--config", conf}).out)["current"].toObject();
        QCOMPARE(replayed["denied"].toInt(), 0);
        QCOMPARE(replayed["rules"].toArray().at(0).toObject()["requests"].toInt(), 6);
        // A current config whose locations leave /health out: the pattern is asked of the 6 requests
        // its rule meets, and says so.
        const QString current = writeFile(dir, "routes.conf", "limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n"
                                                              "server { location /health { } location / { limit_req zone=a; } }\n");
        const Run routed = runRatelab({"advise", log, "--for", "nginx", "--config", current, "--pass-path", "/health"});
        QCOMPARE(routed.code, 2);
        QCOMPARE(routed.err, QByteArray("ratelab: --pass-path: '/health' matches no request's path (the whole path as "
                                        "logged must match, its query string included), of the 6 requests the current "
                                        "config's rules meet\n"));
        // Beside a current config of 1r/s burst 20, which denies nothing: the kept keys' 6 requests,
        // a count that would hold those let by too, of a kept key had it sent any.
        const QString lenient = writeFile(dir, "lenient.conf", "limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n"
                                                               "limit_req zone=a burst=20 nodelay;\n");
        const Run beside = runRatelab({"advise", log, "--for", "nginx", "--config", lenient, "--pass-path", "/health"});
        QCOMPARE(beside.code, 0);
        QVERIFY2(beside.out.contains("\n  it denies the kept keys 0 of their 6 requests (those let by among them); the advice "
                                     "denies them 0\n"),
                 beside.out.constData());
        // Without the pattern the ten count, and no let_by is written.
        const QJsonObject counted = parseJson(runRatelab({"advise", log, "--for", "nginx", "--format", "json"}).out);
        QCOMPARE(counted["keys"].toObject()["requests"].toInt(), 16);
        QVERIFY(counted["let_by"].isUndefined());
    }

    // --pass-agent on the shipped day, read apart from RateLab: the okhttp/ app's requests (the
    // combined log's last field) let by, the advice is the default one on the rest: 1r/s with
    // the kept keys' least burst (a token bucket's capacity less the one nginx admits at excess
    // 0), what it denies the other keys as that bucket does, and the proof as advised.
    void requestsLetByAgentOnTheShippedDay()
    {
        const ApiDay day = readApiDay([](const QByteArray& line) { return line.endsWith("\"okhttp/4.12.0\""); });
        QVERIFY(day.letBy > 10'000);
        const Run r = runRatelab({"advise", kApiDay, "--for", "nginx", "--pass-agent", "okhttp/.*", "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["let_by"].toObject()["agent"].toString(), QString("okhttp/.*"));
        QCOMPARE(out["let_by"].toObject()["requests"].toInt(), day.letBy);
        const QJsonObject keys = out["keys"].toObject();
        QCOMPARE(keys["requests"].toInt(), 142'243 - day.letBy);
        QCOMPARE(keys["limited"].toInt(), int(day.keys.size()));
        QCOMPARE(keys["kept"].toInt(), day.keptKeys());
        QCOMPARE(keys["kept_most_requests"].toInt(), day.keptMost);
        const QJsonObject rec = out["recommended"].toObject();
        const int burst = day.keptBurst(1) - 1;
        QVERIFY(burst <= 10); // drains within 10 s at 1r/s
        QCOMPARE(rec["rate"].toString(), QString("1r/s"));
        QCOMPARE(rec["burst"].toInt(), burst);
        const auto [denied, keysDenied] = day.bucketDenials(1, burst + 1);
        QCOMPARE(rec["others_denied"].toInt(), denied);
        QCOMPARE(rec["keys_denied"].toInt(), keysDenied);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        QVERIFY(out["config"].toString().startsWith("map $http_user_agent $ratelab_key {\n    \"~^(?:okhttp/.*)$\" \"\";\n"));
    }

    // --cap N/T on the log above (--keep 60: the kept keys need burst 4 below 1r/s, 3 at 1r/s, 2
    // from 2r/s). A limit of burst B at N thousandths a second lets at most B + 1 + N * 60,000 /
    // 10^6 through in any 60 s: 1r/m (16 thousandths) with 4: 5; 24r/m (400) with 4: 29; 1r/s
    // with 3: 64; 2r/s with 2: 123. So 30/1m keeps the drain rule's 24r/m. 10/1m does not: no
    // rate of burst 3 or 2 gets near it, and of the rates of burst 4, N * 0.06 < 6 needs N <= 99,
    // 5r/m (83: 9 in a minute; 6r/m is 100: 11); it drains 4 in 48 s. Under 5 no limit lets the
    // kept keys through: 1r/m with burst 4 lets 5, the least any does.
    void aCapInAWindow()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--cap", "30/1m"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("  rate           burst  kept denied  others denied  keys denied  most in 60 s\n"
                                "  1r/m               4            0              5            1             5\n"
                                "  24r/m              4            0              5            1            29  <- recommended\n"
                                "  1r/s               3            0              6            1            64\n"
                                "  2r/s               2            0              7            1           123\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("recommended: rate 24r/m, burst 4 (the lowest rate whose burst drains within 10 s at that "
                                "rate and that lets one key through at most 30 in any 60 s; this one drains in 10.00 s)\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("  it caps every key at 5 requests at once, then 24r/m; at most 29 in any 60 s, whatever it sends\n"),
                 r.out.constData());
        const Run tight = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--cap", "10/1m", "--format", "json"});
        QCOMPARE(tight.code, 0);
        const QJsonObject out = parseJson(tight.out);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("5r/m"));
        QCOMPARE(rec["burst"].toInt(), 4);
        QCOMPARE(rec["most_in_window"].toInt(), 9);
        QCOMPARE(rec["drain_met"].toBool(), false);
        QCOMPARE(rec["drains_in"].toString(), QString("48.00"));
        QCOMPARE(rec["cap"].toObject()["requests"].toInt(), 10);
        QCOMPARE(rec["cap"].toObject()["window"].toString(), QString("60"));
        QCOMPARE(out["front"].toArray()[0].toObject()["most_in_window"].toInt(), 5);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run text = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--cap", "10/1m"});
        QVERIFY2(text.out.contains("recommended: rate 5r/m, burst 4 (no rate that lets one key through at most 10 in any "
                                   "60 s drains its burst within 10 s, and of those rates this one drains soonest; this "
                                   "one drains in 48.00 s)\n"),
                 text.out.constData());
        const Run none = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--cap", "4/1m"});
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
        QCOMPARE(none.err, QByteArray("ratelab: --cap: no nginx limit lets through every request that must pass and at "
                                      "most 4 in any 60 s; the least any lets through is 5 (1r/m, burst 4)\n"));
    }

    // --origin N/T on the log above (--keep 60), in any (t - 1 s, t]: at 0 ms the kept keys' four
    // and what 3.3.3.3 gets through of its ten (1 + the burst, nodelay), at 500 ms one more of
    // 1.1.1.1's, and at 1 s the window has left 0 ms behind. 1r/m and 24r/m with burst 4: 4 + 5
    // + 1 = 10; 1r/s with 3: 9; 2r/s with 2: 8. So 10/1s keeps the drain rule's 24r/m; 9/1s takes
    // 1r/s, the row of least rate that meets it (its burst 3 drains in 3 s); 8/1s 2r/s; at 7/1s
    // none does, the fewest being 8. At 1r/s the proof's own count of the busiest second
    // (origin.admitted_peak_per_second, from the written config's dry run) is the row's 9.
    void anOriginGoal()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "9/1s"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("  rate           burst  kept denied  others denied  keys denied  origin in 1 s\n"
                                "  1r/m               4            0              5            1             10\n"
                                "  24r/m              4            0              5            1             10\n"
                                "  1r/s               3            0              6            1              9  <- recommended\n"
                                "  2r/s               2            0              7            1              8\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("recommended: rate 1r/s, burst 3 (the row of lowest rate whose burst drains within 10 s "
                                "and with which at most 9 reach the origin in any 1 s of the log; this one drains in 3.00 s)\n"),
                 r.out.constData());
        const QJsonObject kept = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "10/1s",
                                                       "--format", "json"}).out);
        QCOMPARE(kept["recommended"].toObject()["rate"].toString(), QString("24r/m"));
        QCOMPARE(kept["recommended"].toObject()["origin_most_in_window"].toInt(), 10);
        QCOMPARE(kept["recommended"].toObject()["origin_goal"].toObject()["requests"].toInt(), 10);
        QCOMPARE(kept["front"].toArray()[2].toObject()["origin_most_in_window"].toInt(), 9);
        const QJsonObject nine = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "9/1s",
                                                       "--format", "json"}).out);
        QCOMPARE(nine["origin"].toObject()["admitted_peak_per_second"].toInt(), 9);
        QVERIFY(nine["proof"].toObject()["as_advised"].toBool());
        const QJsonObject eight = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "8/1s",
                                                        "--format", "json"}).out);
        QCOMPARE(eight["recommended"].toObject()["rate"].toString(), QString("2r/s"));
        QCOMPARE(eight["recommended"].toObject()["burst"].toInt(), 2);
        const Run none = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "7/1s"});
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
        QCOMPARE(none.err, QByteArray("ratelab: --origin: no row of the nginx front lets every request that must pass through "
                                      "and at most 7 reach the origin in any 1 s of this log; the fewest any lets through "
                                      "is 8 (2r/s, burst 2)\n"));
        // In a window of 2 s (t - 2 s, t] every request of the log but 3.3.3.3's denied ones: at
        // 2r/s with burst 2, 6 + 3 = 9.
        const QJsonObject two = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--origin", "9/2s",
                                                      "--format", "json"}).out);
        QCOMPARE(two["recommended"].toObject()["rate"].toString(), QString("2r/s"));
        QCOMPARE(two["recommended"].toObject()["origin_most_in_window"].toInt(), 9);
        // Every product's figure at its recommendation is its proof's busiest second, counted
        // apart on the written config's dry run; Traefik's held requests count at their arrival
        // in both.
        for (const char* product : {"nginx", "envoy", "traefik", "spring"}) {
            const QJsonObject j = parseJson(runRatelab({"advise", log, "--for", product, "--keep", "60", "--origin", "100/1s",
                                                        "--format", "json"}).out);
            QCOMPARE(j["recommended"].toObject()["origin_most_in_window"].toInt(),
                     j["origin"].toObject()["admitted_peak_per_second"].toInt());
        }
        // With a cap too, the fewest named is of the rows within it: at most 6 in any minute
        // rules out every row but 1r/m (5 in a minute, 10 at the origin in a second).
        const Run capped = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--cap", "6/1m", "--origin", "9/1s"});
        QCOMPARE(capped.code, 2);
        QVERIFY2(capped.err.endsWith("the fewest any within the cap lets through is 10 (1r/m, burst 4)\n"), capped.err.constData());
    }

    // --origin on the windows (--keep 60 keeps 1.1.1.1 and 2.2.2.2; the log starts on a whole day).
    // In any (t - 1 s, t] the busiest is (-0.5 s, 0.5 s]: 1.1.1.1's three at 0 and one at 500 ms,
    // 2.2.2.2's one, and what 3.3.3.3 gets through of its ten at 0. Kong: the second's least limit
    // is 4 (1.1.1.1's 0 to 500 ms), every longer window's 5; so 4 + 1 + 4 = 9 under the second, and
    // 10 under the others; the recommendation, a minute of 5 with a second of 4 under it, 9.
    // express-rate-limit's windows start at a key's first request: 1000 ms holds the same 4, so
    // 9 again, and 10 at 60000 ms, its default, which 9/1s therefore moves to 1000 ms, the one
    // row meeting it.
    void anOriginGoalOnTheWindows()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run kong = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--origin", "9/1s"});
        QCOMPARE(kong.code, 0);
        QVERIFY2(kong.out.contains("  window         limit  kept denied  others denied  keys denied  origin in 1 s\n"
                                   "  second             4            0              6            1              9\n"
                                   "  minute             5            0              5            1             10\n"
                                   "  hour               5            0              5            1             10\n"
                                   "  day                5            0              5            1             10\n"),
                 kong.out.constData());
        QVERIFY2(kong.out.contains("recommended: second 4, minute 5 (the most one kept key sent in a minute, and under it "
                                   "the most it sent in a second, and with it at most 9 reach the origin in any 1 s of the "
                                   "log (the goal 9))\n"),
                 kong.out.constData());
        const QJsonObject kongJson = parseJson(runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--origin", "9/1s",
                                                           "--format", "json"}).out);
        QCOMPARE(kongJson["recommended"].toObject()["origin_most_in_window"].toInt(), 9);
        QCOMPARE(kongJson["recommended"].toObject()["moved_by_goals"].toBool(), false);
        QCOMPARE(kongJson["windows"].toArray()[1].toObject()["origin_most_in_window"].toInt(), 10);
        const Run none = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--origin", "8/1s"});
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
        QCOMPARE(none.err, QByteArray("ratelab: --origin: no Kong window lets every request that must pass through and at "
                                      "most 8 reach the origin in any 1 s of this log; the fewest any lets through is 9 "
                                      "(second 4)\n"));

        const Run express = runRatelab({"advise", log, "--for", "express", "--keep", "60", "--origin", "9/1s"});
        QCOMPARE(express.code, 0);
        QVERIFY2(express.out.contains("  1000               4            0              6            1              9  <- recommended\n"
                                      "  60000              5            0              5            1             10\n"),
                 express.out.constData());
        QVERIFY2(express.out.contains("recommended: windowMs 1000, limit 4 (of the windows with which at most 9 reach the "
                                      "origin in any 1 s of the log, the one that denies the fewest requests; windowMs "
                                      "60000, limit 5 would let 10 reach the origin in any 1 s of the log)\n"),
                 express.out.constData());
        // The written config is the moved row's, and its dry run denies what the row does: the
        // proof's busiest second is the row's 9.
        const QJsonObject moved = parseJson(runRatelab({"advise", log, "--for", "express", "--keep", "60", "--origin", "9/1s",
                                                        "--format", "json"}).out);
        QCOMPARE(moved["recommended"].toObject()["windowMs"].toInt(), 1000);
        QCOMPARE(moved["recommended"].toObject()["moved_by_goals"].toBool(), true);
        QCOMPARE(moved["config"].toString(), QString("{windowMs: 1000, limit: 4}\n"));
        QVERIFY(moved["proof"].toObject()["as_advised"].toBool());
        QCOMPARE(moved["proof"].toObject()["denied"].toInt(), 6);
        QCOMPARE(moved["origin"].toObject()["admitted_peak_per_second"].toInt(), 9);
        // Every window product's figure at its recommendation is its proof's busiest second.
        for (const char* product : {"kong", "express", "cloudflare", "aws-waf", "upstash"}) {
            const QJsonObject j = parseJson(runRatelab({"advise", log, "--for", product, "--keep", "60", "--origin", "100/1s",
                                                        "--format", "json"}).out);
            QCOMPARE(j["recommended"].toObject()["origin_most_in_window"].toInt(),
                     j["origin"].toObject()["admitted_peak_per_second"].toInt());
        }
    }

    // --cap on the windows (--keep 60, as above). A fixed window of N lets a key through N at its
    // end and N at the next one's start: in any 60 s, Kong's second of 4 at most 4 * 61 = 244, its
    // minute of 5 at most 10 (2 minutes meet a window of 60 s), an hour's or a day's 5 at most 10
    // too; the recommendation (second 4 under minute 5) the lesser, 10. So 10/1m keeps it, and at
    // 9/1m none meets, the least being 10. In any 1 s, a second of 4 lets 4 * 2 = 8 and a minute's
    // 5 * 2 = 10: 8/1s keeps Kong's recommendation (8, its second's), and moves express-rate-limit
    // from 60000 ms of 5 (10) to 1000 ms of 4 (8), which denies 3.3.3.3 six instead of five.
    void aCapOnTheWindows()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run kong = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--cap", "10/1m"});
        QCOMPARE(kong.code, 0);
        QVERIFY2(kong.out.contains("  window         limit  kept denied  others denied  keys denied  most in 60 s\n"
                                   "  second             4            0              6            1           244\n"
                                   "  minute             5            0              5            1            10\n"),
                 kong.out.constData());
        QVERIFY2(kong.out.contains("and with it one key gets through at most 10 in any 60 s (the cap 10))\n"), kong.out.constData());
        const Run none = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--cap", "9/1m"});
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
        QCOMPARE(none.err, QByteArray("ratelab: --cap: no Kong window lets every request that must pass through and one key "
                                      "through at most 9 in any 60 s; the least any lets one key through is 10 (minute 5)\n"));
        const QJsonObject second = parseJson(runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--cap", "8/1s",
                                                         "--format", "json"}).out);
        QCOMPARE(second["recommended"].toObject()["most_in_window"].toInt(), 8);
        QCOMPARE(second["recommended"].toObject()["moved_by_goals"].toBool(), false);
        QCOMPARE(second["windows"].toArray()[1].toObject()["most_in_window"].toInt(), 10);
        const QJsonObject express = parseJson(runRatelab({"advise", log, "--for", "express", "--keep", "60", "--cap", "8/1s",
                                                          "--format", "json"}).out);
        const QJsonObject rec = express["recommended"].toObject();
        QCOMPARE(rec["windowMs"].toInt(), 1000);
        QCOMPARE(rec["most_in_window"].toInt(), 8);
        QCOMPARE(rec["moved_by_goals"].toBool(), true);
        QCOMPARE(rec["cap"].toObject()["requests"].toInt(), 8);
        QCOMPARE(express["config"].toString(), QString("{windowMs: 1000, limit: 4}\n"));
        QVERIFY(express["proof"].toObject()["as_advised"].toBool());
        QCOMPARE(express["windows"].toArray()[1].toObject()["most_in_window"].toInt(), 10);
        // Cloudflare's periods of 5 (the least limit at each): in any 60 s a period of 10 s lets
        // at most 5 * (ceil((60 s - 1 ns) / 10 s) + 1) = 35 through, a minute's 5 * 2 = 10.
        const QJsonObject cloudflare = parseJson(runRatelab({"advise", log, "--for", "cloudflare", "--keep", "60", "--cap",
                                                             "10/1m", "--format", "json"}).out);
        QCOMPARE(cloudflare["windows"].toArray()[0].toObject()["most_in_window"].toInt(), 35);
        QCOMPARE(cloudflare["windows"].toArray()[1].toObject()["most_in_window"].toInt(), 10);
    }

    // Kong by consumer writes basic-auth before the limit, which answers a request without a
    // user 401: those never reach the origin. alice and bob send one request a second for 120 s,
    // and 10 requests with no user come at 30 s: the origin sees 2 in any second, not 12.
    void theOriginBehindKongsAuthentication()
    {
        QTemporaryDir dir;
        QByteArray text = "time,ip,user,path\n";
        for (int s = 0; s < 120; ++s) {
            const QByteArray t = QByteArray::number(1795392000 + s) + ".000";
            text += t + ",1.1.1.1,alice,/\n" + t + ",1.1.1.2,bob,/\n";
            if (s == 30)
                for (int i = 0; i < 10; ++i)
                    text += t + ",1.1.1.3,-,/\n";
        }
        const QJsonObject j = parseJson(runRatelab({"advise", writeFile(dir, "users.csv", text), "--for", "kong", "--key",
                                                    "user", "--origin", "2/1s", "--format", "json"}).out);
        QCOMPARE(j["recommended"].toObject()["origin_most_in_window"].toInt(), 2);
        QCOMPARE(j["recommended"].toObject()["moved_by_goals"].toBool(), false);
        QCOMPARE(j["origin"].toObject()["peak_per_second"].toInt(), 12);
        QCOMPARE(j["origin"].toObject()["admitted_peak_per_second"].toInt(), 2);
    }

    // --pass-path as each product's config matches it, on 1.1.1.1's /health, /health?probe=1,
    // /%68ealth, /health/ and /api (and /api from 2.2.2.2 and 3.3.3.3). nginx's map reads
    // $request_uri as sent: only /health is let by. Traefik's PathRegexp and Kong's "~" path read
    // the path as they route it, without its query string and with %68 decoded to 'h': the first
    // three. Envoy's safe_regex drops the query string and decodes nothing: the first two.
    // /health/ is no whole match for any. The written configs' dry runs let by the same.
    void letByAsEachProductRoutes()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "health.csv",
                                      "time,ip,path\n1795392000.000,1.1.1.1,/health\n1795392000.000,1.1.1.1,/health?probe=1\n"
                                      "1795392000.000,1.1.1.1,/%68ealth\n1795392000.000,1.1.1.1,/health/\n"
                                      "1795392000.000,1.1.1.1,/api\n1795392000.000,2.2.2.2,/api\n"
                                      "1795392000.500,2.2.2.2,/api\n1795392001.000,3.3.3.3,/api\n");
        const auto advised = [&](const char* product) {
            return parseJson(runRatelab({"advise", log, "--for", product, "--pass-path", "/health", "--format", "json"}).out);
        };
        const QJsonObject nginx = advised("nginx"), traefik = advised("traefik"), kong = advised("kong"), envoy = advised("envoy");
        QCOMPARE(nginx["let_by"].toObject()["requests"].toInt(), 1);
        QCOMPARE(traefik["let_by"].toObject()["requests"].toInt(), 3);
        QCOMPARE(kong["let_by"].toObject()["requests"].toInt(), 3);
        // Envoy's safe_regex reads the path as sent (no normalize_path): /%68ealth stays encoded.
        QCOMPARE(envoy["let_by"].toObject()["requests"].toInt(), 2);
        QVERIFY(envoy["config"].toString().contains("    - name: ratelab-let-by\n      match:\n        safe_regex:\n"
                                                    "          regex: '^(?:/health)$'\n"));
        // Its own local_ratelimit has a token bucket (Envoy refuses one without) and no
        // filter_enabled (0%: it neither counts nor limits there).
        const QString route = envoy["config"].toString().section("ratelab-let-by", 1).section("ratelab-limited", 0, 0);
        QVERIFY2(route.contains("token_bucket:") && !route.contains("filter_enabled"), qPrintable(route));
        for (const QJsonObject& j : {nginx, traefik, kong, envoy}) {
            QVERIFY(j["proof"].toObject()["as_advised"].toBool());
            QCOMPARE(j["proof"].toObject()["requests"].toInt(), 8 - j["let_by"].toObject()["requests"].toInt());
        }
        QVERIFY2(traefik["config"].toString().startsWith("http:\n  routers:\n    ratelab-let-by:\n"
                                                         "      rule: 'PathRegexp(`^(?:/health)$`)'\n      priority: 2\n"),
                 qPrintable(traefik["config"].toString()));
        QVERIFY2(kong["config"].toString().contains("  - name: ratelab-let-by\n    paths:\n    - '~/{0}(?:/health)$'\n"
                                                    "  - name: ratelab-every-path\n"),
                 qPrintable(kong["config"].toString()));
        QVERIFY(kong["config"].toString().contains("- name: rate-limiting\n  route: ratelab-every-path\n"));
        // Kong's schema refuses a path that starts with neither "/" nor "~/", and so does its dry run.
        const QString bad = writeFile(dir, "kong.yaml",
                                      "_format_version: \"3.0\"\nservices:\n- name: s\n  url: http://u.invalid\n"
                                      "  routes:\n  - name: r\n    paths:\n    - ~^/health$\nplugins:\n"
                                      "- name: rate-limiting\n  config:\n    second: 1\n    policy: local\n");
        const Run refused = runRatelab({"replay", log, "--config", bad});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("the path '~^/health$' should start with: / (fixed path) or ~/ (regex path)"),
                 refused.err.constData());
    }

    // What no route takes: a request line logged "-" (a 400) and "OPTIONS *" have no path starting
    // with '/', so neither Traefik's routers nor Kong's routes (its route for every path is "/")
    // take them, and no limit counts them: 2 of the 6, besides /health let by. The proof's dry
    // run agrees, for Kong without a pattern too.
    void requestsNoRouteTakes()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "dash.log",
                                      "1.1.1.1 - - [23/Nov/2026:00:00:00 +0000] \"GET /health HTTP/1.1\" 200 2 \"-\" \"curl/8\"\n"
                                      "1.1.1.1 - - [23/Nov/2026:00:00:00 +0000] \"GET /api HTTP/1.1\" 200 2 \"-\" \"curl/8\"\n"
                                      "2.2.2.2 - - [23/Nov/2026:00:00:00 +0000] \"-\" 400 0 \"-\" \"-\"\n"
                                      "2.2.2.2 - - [23/Nov/2026:00:00:01 +0000] \"GET /api HTTP/1.1\" 200 2 \"-\" \"curl/8\"\n"
                                      "3.3.3.3 - - [23/Nov/2026:00:00:01 +0000] \"GET /api HTTP/1.1\" 200 2 \"-\" \"curl/8\"\n"
                                      "3.3.3.3 - - [23/Nov/2026:00:00:01 +0000] \"OPTIONS * HTTP/1.1\" 200 2 \"-\" \"curl/8\"\n");
        for (const char* product : {"traefik", "kong"}) {
            const Run r = runRatelab({"advise", log, "--for", product, "--keep", "60", "--pass-path", "/health"});
            QCOMPARE(r.code, 0);
            QVERIFY2(r.out.contains("  and 1 request whose path matches '/health', which the config lets by uncounted"),
                     r.out.constData());
            QVERIFY2(r.out.contains("  and 2 requests with no path the config's routes take (none logged, or not starting "
                                    "with /), which no limit counts\n"),
                     r.out.constData());
            QVERIFY2(r.out.contains("0 of 3 requests it counts denied, 0 keys; every key's denials as advised"), r.out.constData());
        }
        const QJsonObject kong = parseJson(runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--format", "json"}).out);
        QVERIFY(kong["proof"].toObject()["as_advised"].toBool());
        QCOMPARE(kong["proof"].toObject()["requests"].toInt(), 4);
        QCOMPARE(kong["keys"].toObject()["unrouted_requests"].toInt(), 2);
        // Envoy's filter runs before the router: what no route takes is in its bucket, and its
        // let-by route's regex is tried on any path, '*' too: 2 let by, 4 counted.
        const QJsonObject envoy = parseJson(runRatelab({"advise", log, "--for", "envoy", "--pass-path", "/health|\\*",
                                                        "--format", "json"}).out);
        QCOMPARE(envoy["let_by"].toObject()["requests"].toInt(), 2);
        QCOMPARE(envoy["proof"].toObject()["requests"].toInt(), 4);
        QVERIFY(envoy["proof"].toObject()["as_advised"].toBool());
        // A target logged in absolute form is routed by its path, in a CSV log as in a request line.
        const QString absolute = writeFile(dir, "abs.csv",
                                           "time,ip,path\n1795392000.000,1.1.1.1,http://example.com/health\n"
                                           "1795392000.000,1.1.1.1,/api\n1795392000.000,2.2.2.2,/api\n");
        const QJsonObject traefik = parseJson(runRatelab({"advise", absolute, "--for", "traefik", "--pass-path", "/health",
                                                          "--format", "json"}).out);
        QCOMPARE(traefik["let_by"].toObject()["requests"].toInt(), 1);
        QCOMPARE(traefik["let_by"].toObject()["unrouted"].toInt(), 0);
    }

    // Kong matches a "~" path by Rust's regex crate through its router, whose '$' is the very end:
    // /health%0A (normalized to "/health\n") is no whole match of /health there, as it would be in
    // PCRE. Traefik's HeaderRegexp lets a User-Agent by; a quote in it is doubled in the YAML.
    void kongsRegexAndTraefiksAgent()
    {
        QTemporaryDir dir;
        const QString paths = writeFile(dir, "nl.csv",
                                        "time,ip,path\n1795392000.000,1.1.1.1,/health\n1795392000.000,1.1.1.1,/health%0A\n"
                                        "1795392000.000,1.1.1.1,/api\n1795392000.000,2.2.2.2,/api\n");
        const QJsonObject kong = parseJson(runRatelab({"advise", paths, "--for", "kong", "--pass-path", "/health", "--format",
                                                       "json"}).out);
        QCOMPARE(kong["let_by"].toObject()["requests"].toInt(), 1);
        QVERIFY(kong["proof"].toObject()["as_advised"].toBool());
        const QString agents = writeFile(dir, "ua.csv",
                                         "time,ip,path,http_user_agent\n1795392000.000,1.1.1.1,/a,probe's/1\n"
                                         "1795392000.000,1.1.1.1,/a,curl/8\n1795392000.000,2.2.2.2,/a,probe's/2\n"
                                         "1795392000.000,2.2.2.2,/a,curl/8\n");
        const QJsonObject traefik = parseJson(runRatelab({"advise", agents, "--for", "traefik", "--pass-agent", "probe's/.*",
                                                          "--format", "json"}).out);
        QCOMPARE(traefik["let_by"].toObject()["requests"].toInt(), 2);
        QVERIFY(traefik["proof"].toObject()["as_advised"].toBool());
        QVERIFY2(traefik["config"].toString().contains("      rule: 'HeaderRegexp(`User-Agent`, `^(?:probe''s/.*)$`)'\n"),
                 qPrintable(traefik["config"].toString()));
    }

    // Kong by consumer with a path let by: basic-auth is on the limited route only, so the 10
    // requests without a user to /health at 30 s reach the origin beside alice's and bob's: 12;
    // the one without a user to /api at 30 s is answered 401 there, and does not.
    void theOriginBehindKongsAuthenticationAndALetBy()
    {
        QTemporaryDir dir;
        QByteArray text = "time,ip,user,path\n";
        for (int s = 0; s < 120; ++s) {
            const QByteArray t = QByteArray::number(1795392000 + s) + ".000";
            text += t + ",1.1.1.1,alice,/api\n" + t + ",1.1.1.2,bob,/api\n";
            if (s == 30) {
                for (int i = 0; i < 10; ++i)
                    text += t + ",1.1.1.3,-,/health\n";
                text += t + ",1.1.1.4,-,/api\n"; // basic-auth answers it 401: it never reaches the origin
            }
        }
        const QJsonObject j = parseJson(runRatelab({"advise", writeFile(dir, "users.csv", text), "--for", "kong", "--key",
                                                    "user", "--pass-path", "/health", "--origin", "12/1s", "--format", "json"}).out);
        QCOMPARE(j["recommended"].toObject()["origin_most_in_window"].toInt(), 12);
        QCOMPARE(j["origin"].toObject()["admitted_peak_per_second"].toInt(), 12);
    }

    // The windows of the clock, on a log that starts 30 s past one (9.9.9.9's one request): 1.1.1.1
    // sends 3 at 59.5 s and 3 at 60.5 s, 2.2.2.2 one at 59.5 s, 3.3.3.3 two at 59.5 s and ten at
    // 60.2 s; --keep 75 keeps all but 3.3.3.3. Kong's minutes are the clock's: 1.1.1.1's least is 3
    // (its second's too, so none under it), and 3.3.3.3 gets its 2 through at 59.5 s and 3 at
    // 60.2 s, in the next minute. In (59.2 s, 60.2 s] the origin sees 3 + 1 + 2 + 3 = 9. Counted
    // from the log's start instead, one minute would hold 59.5 s and 60.2 s: 3.3.3.3 would get 1
    // through at 60.2 s, 7 in that second.
    void theGoalsOnTheClock()
    {
        QTemporaryDir dir;
        QByteArray text = "time,ip,path\n1795392030.000,9.9.9.9,/\n";
        for (int i = 0; i < 3; ++i)
            text += "1795392059.500,1.1.1.1,/\n";
        text += "1795392059.500,2.2.2.2,/\n1795392059.500,3.3.3.3,/\n1795392059.500,3.3.3.3,/\n";
        for (int i = 0; i < 10; ++i)
            text += "1795392060.200,3.3.3.3,/\n";
        for (int i = 0; i < 3; ++i)
            text += "1795392060.500,1.1.1.1,/\n";
        const QString log = writeFile(dir, "clock.csv", text);
        const QJsonObject j = parseJson(runRatelab({"advise", log, "--for", "kong", "--keep", "75", "--origin", "9/1s",
                                                    "--format", "json"}).out);
        QCOMPARE(j["recommended"].toObject()["limits"].toObject(), QJsonObject({{"minute", 3}}));
        QCOMPARE(j["recommended"].toObject()["origin_most_in_window"].toInt(), 9);
        QCOMPARE(j["recommended"].toObject()["moved_by_goals"].toBool(), false);
        QCOMPARE(j["origin"].toObject()["admitted_peak_per_second"].toInt(), 9);
    }

    // --config: the config the gateway runs now, 1r/s with burst 1, beside the advice (24r/m,
    // burst 4, --keep 60). nginx's excess at 1r/s: 1.1.1.1's three at 0 ms pass twice (0, 1000),
    // the third (2000) and the one at 500 ms (1000 - 500 + 1000) are denied, the one at 1 s
    // (1000 - 1000 + 1000) passes: 2 of the kept keys' 6 denied. 3.3.3.3's ten pass twice. So it
    // denies 10 of 16; the advice admits 3.3.3.3's 3rd to 5th and 1.1.1.1's two, and denies
    // nothing it admitted.
    void besideTheCurrentConfig()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const QString current = writeFile(dir, "current.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                               "limit_req zone=one burst=1 nodelay;\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", current});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.endsWith("\nagainst the current config (" + current.toUtf8()
                                + "): denied 10 of 16 requests; every rule replayed\n"
                                  "  it denies the kept keys 2 of their 6 requests; the advice denies them 0\n"
                                  "  your change denies no more requests and admits 5 it denied, of 2 keys; the "
                                  "2 most affected: 3.3.3.3 (-3), 1.1.1.1 (-2)\n"),
                 r.out.constData());
        const Run j = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--config", current, "--format", "json"});
        QCOMPARE(j.code, 0);
        const QJsonObject c = parseJson(j.out)["current"].toObject();
        QCOMPARE(c["denied"].toInt(), 10);
        QCOMPARE(c["kept_requests"].toInt(), 6);
        QCOMPARE(c["kept_denied"].toInt(), 2);
        QCOMPARE(c["advice_kept_denied"].toInt(), 0);
        QVERIFY(c["complete"].toBool());
        // Envoy keeps every request whole: the current config's 10 denials are all kept requests'.
        const Run envoy = runRatelab({"advise", log, "--for", "envoy", "--config", current, "--format", "json"});
        QCOMPARE(envoy.code, 0);
        QCOMPARE(parseJson(envoy.out)["current"].toObject()["kept_denied"].toInt(), 10);
        QCOMPARE(parseJson(envoy.out)["current"].toObject()["kept_requests"].toInt(), 16);
        const Run envoyText = runRatelab({"advise", log, "--for", "envoy", "--config", current});
        QVERIFY2(envoyText.out.contains("\n  it denies 10 of the 16 requests advised on; the advice denies 0\n"), envoyText.out.constData());
        const Run missing = runRatelab({"advise", log, "--for", "nginx", "--config", dir.filePath("none.conf")});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.out.isEmpty());
        QCOMPARE(missing.err.count('\n'), 1);
    }

    // --config keyed by an API key's header: without --key the advice keys by it too. The log is
    // the small one's requests, all from 9.9.9.9 (a proxy), with API keys a, b and c where it has
    // 1.1.1.1, 2.2.2.2 and 3.3.3.3, so by key it is the small log: --keep 60 keeps a and b, 24r/m
    // with burst 4, and c's ten at once lose 10 - 5. The current 1r/s burst 5 lets c's first six
    // through (excess 0 to 5000) and a's five (0, 1000, 2000, then 2000 - 500 + 1000 = 2500 and
    // 3000): it denies 4, so the change denies 1 more, c's sixth. By ip (--key ip) the log is
    // one key of 16, kept whole.
    void theCurrentConfigsKey()
    {
        QTemporaryDir dir;
        QByteArray text = QByteArray(kLog).replace(",1.1.1.1,", ",9.9.9.9,a,").replace(",2.2.2.2,", ",9.9.9.9,b,");
        text = text.replace(",3.3.3.3,", ",9.9.9.9,c,").replace("time,ip,path", "time,ip,http_x_api_key,path");
        const QString log = writeFile(dir, "a.csv", text);
        const QString current = writeFile(dir, "current.conf", "limit_req_zone $http_x_api_key zone=k:1m rate=1r/s;\n"
                                                               "limit_req zone=k burst=5 nodelay;\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", current});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith(("advise for nginx: " + log + ", 16 requests of 3 keys by http_x_api_key (the "
                                   "current config's key)\n").toUtf8()),
                 r.out.constData());
        QVERIFY2(r.out.contains("\nlimit_req_zone $http_x_api_key zone=ratelab:1m rate=24r/m;\nlimit_req zone=ratelab "
                                "burst=4 nodelay;\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("\n  it denies the kept keys 0 of their 6 requests; the advice denies them 0\n"
                                "  your change denies 1 more request"),
                 r.out.constData());
        const QJsonObject j = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", current,
                                                    "--format", "json"}).out);
        QCOMPARE(j["input"].toObject()["key"].toString(), QString("http_x_api_key"));
        QCOMPARE(j["recommended"].toObject()["others_denied"].toInt(), 5);
        QCOMPARE(j["current"].toObject()["denied"].toInt(), 4);
        const QJsonObject byIp = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", current,
                                                       "--key", "ip", "--format", "json"}).out);
        QCOMPARE(byIp["input"].toObject()["key"].toString(), QString("ip"));
        QCOMPARE(byIp["keys"].toObject()["limited"].toInt(), 1);
        QCOMPARE(byIp["keys"].toObject()["kept_requests"].toInt(), 16);
        // A gateway that keys by the address alone says where the key came from.
        const Run express = runRatelab({"advise", log, "--for", "express", "--config", current});
        QCOMPARE(express.code, 2);
        QVERIFY(express.out.isEmpty());
        QVERIFY2(express.err.endsWith("only ip (the key is the current config's, http_x_api_key: --key names another)\n"),
                 express.err.constData());
    }

    // --keep current keeps the keys the current config denies nothing. besideTheCurrentConfig's
    // 1r/s with burst 1 denies 1.1.1.1 2 and 3.3.3.3 8: 2.2.2.2 alone is whole, and its one
    // request needs no burst at any rate, so 1r/m with none is the recommendation. There nginx
    // admits each key's first request and no other (1r/m drains 16 thousandths a second: the
    // excess of each later one is 1000 - at most 16, above 0): 1.1.1.1 loses 4 of 5, 3.3.3.3 9
    // of 10.
    void keepWhatTheCurrentLeavesWhole()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const QString current = writeFile(dir, "current.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                               "limit_req zone=one burst=1 nodelay;\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "current", "--config", current});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("\nkept: the 1 key the current config denies nothing (of 3 keys): its 1 request must pass\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("\nlimit_req_zone $binary_remote_addr zone=ratelab:1m rate=1r/m;\nlimit_req zone=ratelab "
                                "nodelay;\n"),
                 r.out.constData());
        const QJsonObject j = parseJson(runRatelab({"advise", log, "--for", "nginx", "--keep", "current", "--config", current,
                                                    "--format", "json"}).out);
        const QJsonObject keys = j["keys"].toObject();
        QCOMPARE(keys["kept"].toInt(), 1);
        QVERIFY(keys["kept_by_current"].toBool());
        QVERIFY(keys["keep_percent"].isNull());
        const QJsonObject rec = j["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("1r/m"));
        QCOMPARE(rec["burst"].toInt(), 0);
        QCOMPARE(rec["others_denied"].toInt(), 13);
        QCOMPARE(rec["keys_denied"].toInt(), 2);
        QVERIFY(j["proof"].toObject()["as_advised"].toBool());
        // A window product keeps by it too; without --config, or when every key loses a request, it is
        // refused (a log of time and address alone, which a config without locations runs on).
        const QJsonObject kong = parseJson(runRatelab({"advise", log, "--for", "kong", "--keep", "current", "--config",
                                                       current, "--format", "json"}).out);
        QCOMPARE(kong["keys"].toObject()["kept"].toInt(), 1);
        const Run alone = runRatelab({"advise", log, "--for", "nginx", "--keep", "current"});
        QCOMPARE(alone.code, 2);
        QCOMPARE(alone.err, QByteArray("ratelab: --keep current: name the config the gateway runs now with --config\n"));
        const QString both = writeFile(dir, "b.csv", "time,ip\n1795392000,1.1.1.1\n1795392000,1.1.1.1\n"
                                                      "1795392000,2.2.2.2\n1795392000,2.2.2.2\n");
        const QString strict = writeFile(dir, "strict.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;\n"
                                                             "limit_req zone=one nodelay;\n");
        const Run none = runRatelab({"advise", both, "--for", "nginx", "--keep", "current", "--config", strict});
        QCOMPARE(none.code, 2);
        QVERIFY(none.out.isEmpty());
        QCOMPARE(none.err, QByteArray("ratelab: --keep current: no key the limit counts is one the current config denies "
                                      "nothing (give --keep P)\n"));
        // Nor when the keys it leaves whole send only requests let by: 2.2.2.2's one to /health.
        const QString health = writeFile(dir, "h.csv", "time,ip,path\n1795392000,1.1.1.1,/\n1795392000,1.1.1.1,/\n"
                                                       "1795392000,2.2.2.2,/health\n");
        const Run letBy = runRatelab({"advise", health, "--for", "nginx", "--keep", "current", "--config", strict,
                                      "--pass-path", "/health"});
        QCOMPARE(letBy.code, 2);
        QCOMPARE(letBy.err, none.err);
    }

    // A log of times and addresses alone, no path: every gateway's advice is written and proved on
    // it, the written configs' routes of every path (Kong's "/", Spring's "/**") meeting each
    // request as it meets "/". 1.1.1.1 sends two at 0 s and one at 2 s, 2.2.2.2 one at 1 s: both
    // kept at 99 %, so nothing is denied. API Gateway's rate is fractional (0.3/s: burst 3 drains in 10 s).
    void everyGatewayOnALogOfTimesAndKeys()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "k.csv", "time,ip\n1795392000,1.1.1.1\n1795392000,1.1.1.1\n"
                                                    "1795392001,2.2.2.2\n1795392002,1.1.1.1\n");
        for (const char* product : {"nginx", "envoy", "traefik", "kong", "express", "spring", "cloudflare", "aws-waf",
                                    "aws-api-gateway", "upstash"}) {
            QStringList args{"advise", log, "--for", product, "--format", "json"};
            if (QByteArray(product) == "aws-api-gateway")
                args << "--key" << "ip";
            const Run r = runRatelab(args);
            QVERIFY2(r.code == 0, qPrintable(QString(product) + ": " + QString::fromUtf8(r.err)));
            const QJsonObject out = parseJson(r.out);
            QVERIFY2(out["proof"].toObject()["as_advised"].toBool(), product);
            QCOMPARE(out["input"].toObject()["requests"].toInt(), 4);
        }
        // A path asked for on it is refused for what it is.
        const Run path = runRatelab({"advise", log, "--for", "nginx", "--pass-path", "/health"});
        QCOMPARE(path.code, 2);
        QCOMPARE(path.err, QByteArray("ratelab: --pass-path: the log has no paths (a path or request field; --path-field names another)\n"));
        const Run field = runRatelab({"advise", log, "--for", "nginx", "--path-field", "route"});
        QCOMPARE(field.code, 2);
        QVERIFY2(field.err.contains("the CSV header has no path field 'route'"), field.err.constData());
    }

    // The key the current config keys by, on an access log: its User-Agent (the combined format's
    // last field). Three clients send as curl/8 and one as app/1: by that key curl/8 is one key of
    // three requests at 0 s (nginx's excess 0, 1000, 2000: burst 2 at every rate) and app/1 one. A
    // config keyed by a header the log lacks leaves the key to --key, and the dry run names the field.
    void theCurrentConfigsKeyOnAnAccessLog()
    {
        QTemporaryDir dir;
        QByteArray lines;
        for (const char* ip : {"192.0.2.1", "192.0.2.2", "192.0.2.3"})
            lines += QByteArray(ip) + " - - [23/Nov/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"curl/8\"\n";
        lines += "192.0.2.4 - - [23/Nov/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"app/1\"\n";
        const QString log = writeFile(dir, "access.log", lines);
        const QString ua = writeFile(dir, "ua.conf", "limit_req_zone $http_user_agent zone=ua:1m rate=1r/s;\n"
                                                     "limit_req zone=ua burst=5 nodelay;\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--config", ua, "--format", "json"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["input"].toObject()["key"].toString(), QString("http_user_agent"));
        QVERIFY(out["keys"].toObject()["key_from_current"].toBool());
        QCOMPARE(out["keys"].toObject()["limited"].toInt(), 2);
        QCOMPARE(out["recommended"].toObject()["burst"].toInt(), 2);
        QVERIFY(out["config"].toString().startsWith("limit_req_zone $http_user_agent zone=ratelab:1m"));
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const QString header = writeFile(dir, "h.conf", "limit_req_zone $http_x_api_key zone=k:1m rate=1r/s;\n"
                                                        "limit_req zone=k nodelay;\n");
        const Run lacking = runRatelab({"advise", log, "--for", "nginx", "--config", header});
        QCOMPARE(lacking.code, 2);
        QCOMPARE(lacking.err, ("ratelab: --config: " + header + ": its rules key by the log field http_x_api_key, which "
                               "no request of the log has (--key names the key to advise by)\n").toUtf8());
        // A key's control bytes (an ESC the User-Agent carried, \x1B as nginx logged it) are written
        // as that escape in the text, never sent to the terminal: curl/8's three at once lose one
        // at burst 1 (--keep 50 keeps app/1 alone).
        const QString esc = writeFile(dir, "esc.log", QByteArray(lines).replace("curl/8", "curl\\x1B[31m"));
        const Run shown = runRatelab({"advise", esc, "--for", "nginx", "--config", ua, "--keep", "50"});
        QCOMPARE(shown.code, 0);
        QVERIFY2(!shown.out.contains('\x1b'), shown.out.constData());
        QVERIFY2(shown.out.contains("\n    curl\\x1B[31m "), shown.out.constData());
    }

    // --config limiting /api/ only: the advice is made on the 14 requests its rule meets (all at
    // 2 s: 1.1.1.1's 3, 2.2.2.2's 1, 3.3.3.3's 10; the 6 under /static/, at 0 s, are not). --keep
    // 60 keeps the keys of 1 and 3 (rank 2 of 1, 3, 10), whose burst is 2 at every rate (three at
    // once); the least rate draining 2 in 10 s is 12r/m. It lets 3 of 3.3.3.3's ten through: 7
    // denied, the first 2 s after the log's first request. The origin's busiest second is the
    // 14 at 2 s, 7 under the limit. The current 1r/s with burst 1 denies 1.1.1.1's third and
    // 3.3.3.3's 3rd to 10th: 9, one of the kept keys' 4.
    void theRoutesOfTheCurrentConfig()
    {
        QTemporaryDir dir;
        QByteArray csv = "time,ip,path\n";
        const auto add = [&](const char* second, const char* ip, const char* path, int n) {
            for (int i = 0; i < n; ++i)
                csv += QByteArray("179539200") + second + ".000," + ip + "," + path + "\n";
        };
        add("0", "1.1.1.1", "/static/a", 1);
        add("0", "3.3.3.3", "/static/b", 5);
        add("2", "1.1.1.1", "/api/x", 3);
        add("2", "2.2.2.2", "/api/y", 1);
        add("2", "3.3.3.3", "/api/z", 10);
        const QString log = writeFile(dir, "routes.csv", csv);
        const QString api = writeFile(dir, "api.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                       "server {\n location /api/ { limit_req zone=one burst=1 nodelay; }\n}\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", api});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("advise for nginx: " + log.toUtf8() + ", 14 requests of 3 keys by ip\n"
                                  "  the requests the current config's rules meet (" + api.toUtf8() + "): 14 of the log's 20\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("limit_req_zone $binary_remote_addr zone=ratelab:1m rate=12r/m;\n"
                                "limit_req zone=ratelab burst=2 nodelay;\nlimit_req_dry_run on;\n"
                                "(its limit_req in place of the current config's limit_req zone=one burst=1 nodelay (line 3), "
                                "on whose requests it is advised; the other lines in http {})\n\n"
                                "proof: the dry run of this config on the 14 requests the current config's rules meet: 7 "
                                "of 14 requests denied, 1 key; every key's denials as advised\n"
                                "the origin's busiest second: 14 requests of the log, 7 under this limit\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("    3.3.3.3                                  7 of 10 denied, the first at 2 s after the log's "
                                "first request\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("): denied 9 of 14 requests; every rule replayed\n"
                                "  it denies the kept keys 1 of their 4 requests; the advice denies them 0\n"
                                "  your change denies no more requests and admits 2 it denied, of 2 keys;"),
                 r.out.constData());
        const Run j = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", api, "--format", "json"});
        const QJsonObject met = parseJson(j.out)["met_by_current"].toObject();
        QCOMPARE(met["log_requests"].toInt(), 20);
        QCOMPARE(met["requests"].toInt(), 14);
        QCOMPARE(met["rules"].toString(), QString("limit_req zone=one burst=1 nodelay (line 3)"));
        // A key a map empties (2.2.2.2: a partner the rule lets by) is still in the rule's
        // location, so the advice, keyed by the address, is made on its request too; the rule
        // itself looks up 13 of the 14.
        const QString mapped = writeFile(dir, "map.conf", "map $remote_addr $limit_key {\n  2.2.2.2 \"\";\n  default "
                                                          "$binary_remote_addr;\n}\n"
                                                          "limit_req_zone $limit_key zone=one:1m rate=1r/s;\n"
                                                          "server {\n location /api/ { limit_req zone=one burst=1 nodelay; }\n}\n");
        const Run m = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", mapped});
        QCOMPARE(m.code, 0);
        QVERIFY2(m.out.contains("): 14 of the log's 20\n") && m.out.contains("  its rules meet fewer requests than the advice "
                                                                             "limits: limit_req zone=one burst=1 nodelay "
                                                                             "(line 7), 13 of the 14 requests\n"),
                 m.out.constData());
        // Two rules counting apart, meeting part of the log (/static/b is neither's), get no one
        // limit in their place: refused, both named.
        const QString two = writeFile(dir, "two.conf", "limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n"
                                                       "limit_req_zone $binary_remote_addr zone=s:1m rate=5r/s;\n"
                                                       "server {\n location /api/ { limit_req zone=a; }\n"
                                                       " location /static/a { limit_req zone=s; }\n}\n");
        const Run both = runRatelab({"advise", log, "--for", "nginx", "--config", two});
        QCOMPARE(both.code, 2);
        QVERIFY(both.out.isEmpty());
        QVERIFY2(both.err.startsWith("ratelab: --config: " + two.toUtf8() + ": 2 of its rules limit parts of the log "
                                     "(limit_req zone=a (line 4); limit_req zone=s (line 5)), which count apart"),
                 both.err.constData());
        // A rule keyed by a field the log lacks is not replayed: the requests only it meets
        // (1.1.1.1's /static/a) are not advised on, and the scope line says so.
        const QString partial = writeFile(dir, "partial.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                               "limit_req_zone $http_x_api_key zone=k:1m rate=1r/s;\n"
                                                               "server {\n location /api/ { limit_req zone=one burst=1 nodelay; }\n"
                                                               " location /static/a { limit_req zone=k; }\n}\n");
        const Run p = runRatelab({"advise", log, "--for", "nginx", "--keep", "60", "--config", partial});
        QCOMPARE(p.code, 0);
        QVERIFY2(p.out.contains("): 14 of the log's 20 (NOT COMPLETE: the requests only its parts not replayed meet are "
                                "not among them)\n"),
                 p.out.constData());
        // A config whose rules meet no request of the log is refused.
        const QString none = writeFile(dir, "none.conf", "limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                         "server {\n location /admin/ { limit_req zone=one; }\n}\n");
        const Run refused = runRatelab({"advise", log, "--for", "nginx", "--config", none});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("its rules meet none of the log's 20 requests"), refused.err.constData());
    }

    // Keyed by a field: the zone keys by $http_x_api_key, and the request whose key is logged "-"
    // meets no limit. k1 sends two at 1.000 s: 0 then 1000, burst 1 at every rate; k2 one at 1 s
    // and one at 2 s: its second finds max(0, 0 - drain) + 1000 = 1000 at every rate, burst 1.
    // So the front is one point, 1r/m burst 1, which drains in 60 s, not within 10 s; the least
    // rate draining 1 within 10 s is 0.1/s, 6r/m (10.00 s), recommended beside it. No request is
    // denied.
    void keyedByAFieldWithAnEmptyKey()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "k.jsonl",
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"-\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n"
                                      "{\"time\": 2.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--key", "http_x_api_key", "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["keys"].toObject()["limited"].toInt(), 2);
        QCOMPARE(out["keys"].toObject()["unlimited_requests"].toInt(), 1);
        QCOMPARE(out["front"].toArray().size(), 2);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("6r/m"));
        QCOMPARE(rec["burst"].toInt(), 1);
        QCOMPARE(rec["drain_met"].toBool(), true);
        QCOMPARE(rec["drains_in"].toString(), QString("10.00"));
        QVERIFY(out["config"].toString().startsWith("limit_req_zone $http_x_api_key zone=ratelab:1m rate=6r/m;\n"));
        QCOMPARE(out["proof"].toObject()["denied"].toInt(), 0);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
    }

    // 200,000 addresses of one request each: the zone holds twice them at 128 bytes a state
    // (tst_advise derives it: 2 * 200,000 * 128 B = 48.8 MiB), 49m, where 10m holds 81,920.
    void theZoneHoldsManyKeys()
    {
        QTemporaryDir dir;
        QByteArray text = "time,ip,path\n";
        for (int i = 0; i < 200'000; ++i)
            text += "1795392000.000,10." + QByteArray::number(i / 65536) + "." + QByteArray::number(i / 256 % 256) + "."
                    + QByteArray::number(i % 256) + ",/\n";
        const Run r = runRatelab({"advise", writeFile(dir, "many.csv", text), "--for", "nginx", "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["keys"].toObject()["limited"].toInt(), 200'000);
        QVERIFY2(out["config"].toString().startsWith("limit_req_zone $binary_remote_addr zone=ratelab:49m rate="),
                 qPrintable(out["config"].toString()));
    }

    // One key of one request and one request with an empty key: every count in the singular; the
    // kept key is every key (99 % of 1: rank 1), said so; it needs no burst, so the least rate,
    // 1r/m, drains it at once (0 <= 1/60 * 10), and caps a key at 1 request at once. The proof
    // counts the 1 request the limit counts, as the header does, and names the other.
    void oneOfEachInWords()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "one.jsonl",
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"-\", \"path\": \"/\"}\n");
        const Run r = runRatelab({"advise", log, "--for", "nginx", "--key", "http_x_api_key"});
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines[0], "advise for nginx: " + log.toUtf8() + ", 1 request of 1 key by http_x_api_key");
        QCOMPARE(lines[1], QByteArray("  and 1 request with an empty key, which no limit counts"));
        QCOMPARE(lines[2], QByteArray("kept: the 1 key with at most 1 request each (the 99 % least active, ties kept "
                                      "together; that is every key): its 1 request must pass"));
        QVERIFY2(r.out.contains("\n  kept keys: 0 of their 1 request denied\n"
                                "  the other keys: 0 of their 0 requests denied, 0 keys capped\n"
                                "  it caps every key at 1 request at once, then 1r/m\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("on this config: 0 of 1 request denied, 0 keys, besides 1 request with an empty "
                                "key, which no limit counts; every key's denials as advised\n"),
                 r.out.constData());
    }

    // Bad input: exit 2, one line on stderr naming the problem, nothing on stdout.
    void badInputIsOneLine()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const auto oneLine = [](const QStringList& args, const QString& start) {
            const Run r = runRatelab(args);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.out.isEmpty(), r.out.constData());
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.startsWith(("ratelab: " + start).toUtf8()), r.err.constData());
        };
        const QStringList nginx{"--for", "nginx"};
        oneLine({"advise"}, "advise: name the LOG");
        oneLine({"advise", log}, "advise: name the gateway with --for (known: nginx, envoy, traefik, kong, express, spring, cloudflare, aws-waf, aws-api-gateway, upstash)");
        oneLine({"advise", log, "--for", "haproxy"}, "--for: unknown gateway 'haproxy' (known: nginx, envoy, traefik, kong, express, spring, cloudflare, aws-waf, aws-api-gateway, upstash)");
        oneLine(QStringList{"advise", log, "--keep", "0"} + nginx, "--keep: must be a percentage above 0 and at most 100, or current (got '0')");
        oneLine(QStringList{"advise", log, "--keep", "100.5"} + nginx, "--keep: must be a percentage above 0 and at most 100");
        oneLine(QStringList{"advise", log, "--keep", "most"} + nginx, "--keep: must be a percentage above 0 and at most 100");
        oneLine(QStringList{"advise", log, "--drain", "0"} + nginx, "--drain: ");
        oneLine(QStringList{"advise", log, "--format", "csv"} + nginx, "--format: unknown format 'csv' (known: text, json)");
        oneLine(QStringList{"advise", log, "--pass", "("} + nginx, "--pass: ");
        oneLine(QStringList{"advise", log, "--pass", ""} + nginx, "--pass: no pattern given");
        oneLine(QStringList{"advise", log, "--pass", "1\\.1"} + nginx,
                "--pass: '1\\.1' matches no key of the log (a whole key must match)");
        oneLine(QStringList{"advise", log, "--pass", "1.*", "--for", "envoy"}, "--pass: Envoy's local_ratelimit keeps one token bucket");
        oneLine(QStringList{"advise", log, "--cap", "10"} + nginx, "--cap: must be requests/window, as 600/1m (got '10')");
        oneLine(QStringList{"advise", log, "--cap", "0/1m"} + nginx, "--cap: the requests must be at least 1 (got 0)");
        oneLine(QStringList{"advise", log, "--cap", "10/0"} + nginx, "--cap: the window must be more than 0 s");
        oneLine(QStringList{"advise", log, "--cap", "10/1x"} + nginx, "--cap: the window: ");
        oneLine(QStringList{"advise", log, "--cap", "50/1m/2"} + nginx, "--cap: must be requests/window, as 600/1m (got '50/1m/2')");
        oneLine({"advise", log, "--cap", "10/1m", "--for", "traefik"}, "--cap: Traefik serves a request late rather than deny it");
        oneLine({"advise", log, "--cap", "10/1m", "--for", "aws-waf"}, "--cap: AWS WAF lets a key's burst through whole until a check sees it");
        oneLine({"advise", log, "--origin", "0/1s", "--for", "nginx"}, "--origin: ");
        oneLine({"advise", log, "--origin", "10", "--for", "nginx"}, "--origin: ");
        oneLine(QStringList{"advise", log, "--pass-path", "/x", "--pass-agent", "y"} + nginx,
                "--pass-path and --pass-agent: give one");
        oneLine(QStringList{"advise", log, "--pass-path", ""} + nginx, "--pass-path: no pattern given");
        oneLine(QStringList{"advise", log, "--pass-path", "(/x"} + nginx, "--pass-path: the regex '(/x' is refused by PCRE2");
        oneLine(QStringList{"advise", log, "--pass-path", "/x"} + nginx,
                "--pass-path: '/x' matches no request's path (the whole path as logged must match, its query string included)");
        oneLine(QStringList{"advise", log, "--pass-agent", "curl.*"} + nginx, "--pass-agent: the log has no User-Agent");
        oneLine({"advise", log, "--pass-path", "/", "--for", "spring"}, "--pass-path: written for nginx, Traefik, Kong and Envoy only");
        oneLine({"advise", log, "--pass-agent", "x", "--for", "envoy"}, "--pass-agent: written for nginx and Traefik only");
        oneLine({"advise", log, "--pass-agent", "x", "--for", "kong"}, "--pass-agent: written for nginx and Traefik only");
        oneLine({"advise", log, "--pass-path", "/a`b", "--for", "traefik"}, "--pass-path: Traefik's rule quotes the regex in backquotes");
        oneLine({"advise", log, "--pass-path", "(/x", "--for", "traefik"}, "--pass-path: the regex '(/x' is refused by RE2");
        // Only variables nginx has for every request: $user_id fails `nginx -t` (unknown
        // variable), $1abc is capture $1 and the text "abc", $http_ names no header.
        const QString offered = "--key: nginx has no variable named ";
        const QString fields = writeFile(dir, "f.csv", "time,user_id,1abc,http_,path\n1.0,u,a,h,/\n");
        oneLine(QStringList{"advise", log, "--key", "x-api-key"} + nginx, offered + "'x-api-key'");
        for (const QString key : {"user_id", "1abc", "http_"})
            oneLine(QStringList{"advise", fields, "--key", key} + nginx, offered + "'" + key + "'");
        oneLine(QStringList{"advise", log, "--cost-field", "cost"} + nginx, "Unknown option 'cost-field'");
        oneLine(QStringList{"advise", log, "--path", "/api/"} + nginx, "Unknown option 'path'");
        oneLine(QStringList{"advise", log, "--limit", "5"} + nginx, "Unknown option 'limit'");
        oneLine(QStringList{"advise", log, "--write", dir.path()} + nginx, "--write: ");
        oneLine(QStringList{"advise", dir.filePath("none.log")} + nginx, dir.filePath("none.log") + ": ");
        // Envoy's one bucket has no key to keep; only it has a fill_interval, in whole ms
        // from 50 ms; Traefik keys by the address, the host or a header, never a user.
        const QStringList envoy{"--for", "envoy"};
        oneLine(QStringList{"advise", log, "--keep", "90"} + envoy, "--keep: Envoy's local_ratelimit keeps one token bucket");
        oneLine(QStringList{"advise", log, "--fill-interval", "0.5"} + nginx, "--fill-interval: only Envoy's");
        const QString refused = "--fill-interval: envoy_local: fill_interval must be whole milliseconds and at least 50 ms";
        oneLine(QStringList{"advise", log, "--fill-interval", "0.0505"} + envoy, refused);
        oneLine(QStringList{"advise", log, "--fill-interval", "0.049"} + envoy, refused);
        oneLine(QStringList{"advise", log, "--fill-interval", "0"} + envoy, "--fill-interval: ");
        oneLine({"advise", log, "--for", "traefik", "--key", "user"}, "--key: Traefik's rateLimit has no sourceCriterion for 'user'");
        // Kong's limits are windows' counts: no rate to drain at or compare at; no limit_by for a
        // host; a request without the header is counted by its address, which the log's key
        // cannot say (the JSON line's third request has none).
        const QStringList kong{"--for", "kong"};
        oneLine(QStringList{"advise", log, "--drain", "5"} + kong, "--drain: Kong's rate-limiting counts requests in windows");
        oneLine(QStringList{"advise", log, "--compare"} + kong, "--compare: Kong's rate-limiting counts requests in windows");
        oneLine(QStringList{"advise", log, "--key", "host"} + kong, "--key: Kong's rate-limiting has no limit_by for 'host'");
        const QString headers = writeFile(dir, "h.jsonl", "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                                          "{\"time\": 1.0, \"http_x_api_key\": \"-\", \"path\": \"/\"}\n");
        oneLine(QStringList{"advise", headers, "--key", "http_x_api_key"} + kong,
                "--key: Kong counts a request without the header by its client IP, and 1 request of the log lack it");
        // express-rate-limit keys by req.ip unless the application's code says otherwise.
        const QStringList express{"--for", "express"};
        oneLine(QStringList{"advise", log, "--key", "user"} + express, "--key: express-rate-limit keys by the request's IP");
        oneLine(QStringList{"advise", log, "--drain", "5"} + express, "--drain: express-rate-limit counts requests in windows");
        // Spring: a KeyResolver for the address, the host, the principal or a header, no other.
        oneLine({"advise", log, "--for", "spring", "--key", "request_uri"},
                "--key: RateLab writes no Spring KeyResolver for 'request_uri' (it writes: ip, host, user, http_NAME)");
        // API Gateway throttles by the API key, which no field is unless named; Upstash's windows
        // have no rate to drain at or compare at.
        oneLine({"advise", log, "--for", "aws-api-gateway"}, "--key: an API Gateway usage plan throttles by the API key");
        oneLine({"advise", log, "--for", "upstash", "--drain", "5"}, "--drain: @upstash/ratelimit's slidingWindow and fixedWindow");
        oneLine({"advise", log, "--for", "upstash", "--compare"}, "--compare: @upstash/ratelimit's slidingWindow and fixedWindow");
        // Cloudflare and AWS WAF: windows' counts, by the IP the written rule names.
        oneLine({"advise", log, "--for", "cloudflare", "--compare"}, "--compare: Cloudflare's rate limiting rule counts requests in windows");
        oneLine({"advise", log, "--for", "aws-waf", "--drain", "5"}, "--drain: AWS WAF's rate-based rule counts requests in windows");
        oneLine({"advise", log, "--for", "cloudflare", "--key", "user"}, "--key: the written rule counts by the client's IP (ip.src): only ip");
        oneLine({"advise", log, "--for", "aws-waf", "--key", "host"}, "--key: the written rule counts by the client's IP (AggregateKeyType IP): only ip");
    }

    // Envoy on the same log, as one trace (its bucket counts every request): 14 at 0 ms, one at
    // 500 ms, one at 1000 ms; fill_interval 1 s. The deficit reaches 15 at 500 ms, before the
    // first fire, at every tokens_per_fill (tst_advise_envoy derives it), so the front is one
    // row; the least rate draining 15 within 10 s is 1.5 a second: 2 per 1s, in 7.50 s. Every
    // request passes.
    // (The origin: every request but 1.1.1.1's at 1 s falls in one second, 15 of them, less what
    // the limit denies 3.3.3.3 at 0 s, in this test and the four like it below.)
    void envoyReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "envoy"});
        QCOMPARE(r.code, 0);
        const QByteArray expected =
            "advise for Envoy: " + log.toUtf8() + ", 16 requests, one token bucket for all of them (local_ratelimit "
            "keeps none per client)\n"
            "kept: every request: local_ratelimit counts every request the filter sees in one token bucket, whatever its "
            "client, so the limit is on what reaches the origin through one Envoy, and the least bucket the log's "
            "busiest moments pass\n"
            "\n"
            "the front: for each burst, the lowest round rate at which every request of the log passes\n"
            "  rate           burst  kept denied  others denied  keys denied\n"
            "  1 per 1s          15            0              0            0\n"
            "  2 per 1s          15            0              0            0  <- recommended\n"
            "\n"
            "recommended: rate 2 per 1s, burst 15 (the lowest rate whose burst drains within 10 s at that rate; this "
            "one drains in 7.50 s)\n"
            "  the log's requests: 0 of 16 requests denied\n"
            "  it caps what one Envoy lets through at 15 requests at once, then 2 per 1s, added whole at each fill\n"
            "\n"
            "Envoy, in shadow mode first: filter_enforced 0% counts what it would deny "
            "(ratelab.http_local_rate_limit.rate_limited) and denies nothing; set its numerator to 100 to enforce. The "
            "entry goes in the http_connection_manager's http_filters, before envoy.filters.http.router\n"
            "- name: envoy.filters.http.local_ratelimit\n"
            "  typed_config:\n"
            "    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
            "    stat_prefix: ratelab\n"
            "    token_bucket:\n"
            "      max_tokens: 15\n"
            "      tokens_per_fill: 2\n"
            "      fill_interval: 1s\n"
            "    filter_enabled:\n"
            "      runtime_key: local_rate_limit_enabled\n"
            "      default_value:\n"
            "        numerator: 100\n"
            "        denominator: HUNDRED\n"
            "    filter_enforced:\n"
            "      runtime_key: local_rate_limit_enforced\n"
            "      default_value:\n"
            "        numerator: 0\n"
            "        denominator: HUNDRED\n"
            "\n"
            "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 0 of 16 requests denied, 0 "
            "keys; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 15 under this limit\n";
        QCOMPARE(r.out, expected);
    }

    // --fill-interval 0.5: fires at 500 and 1000 ms. 1 a fill: 14 at 0, the fire takes 1 and the
    // request at 500 ms adds it back (14), again at 1000 ms: max_tokens 14, which 2 a second
    // drains in 7 s: 1 per 0.5s. The written file is what `import` and `replay --config` read.
    void envoyFillIntervalAndTheWrittenFilter()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog), conf = dir.filePath("envoy.yaml");
        const Run r = runRatelab({"advise", log, "--for", "envoy", "--fill-interval", "0.5", "--format", "json",
                                  "--write", conf});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("1 per 0.5s"));
        QCOMPARE(rec["burst"].toInt(), 14);
        QCOMPARE(rec["drains_in"].toString(), QString("7.00"));
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run imported = runRatelab({"import", conf});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.startsWith("What you wrote (Envoy local_ratelimit): max_tokens 14; tokens_per_fill 1; "
                                         "fill_interval 0.5s;\n"),
                 imported.out.constData());
        const Run replay = runRatelab({"replay", log, "--config", conf});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 0);
    }

    // Traefik on the same log, --keep 60 (a and b kept): a's burst is 5 below one a second, 4 at
    // 1 a second, 3 from 2 a second on; 3.3.3.3's ten at once lose 10 - burst (tst_advise_traefik
    // derives them). The least rate draining 5 within 10 s: 0.5 a second, 30 per 1m.
    void traefikReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "traefik", "--keep", "60"});
        QCOMPARE(r.code, 0);
        const QByteArray expected =
            "advise for Traefik: " + log.toUtf8() + ", 16 requests of 3 keys by ip\n"
            "kept: the 2 keys with at most 5 requests each (the 60 % least active, ties kept together): all 6 of "
            "their requests must pass\n"
            "\n"
            "the front: for each burst, the lowest round rate at which every request of the kept keys passes\n"
            "  rate           burst  kept denied  others denied  keys denied\n"
            "  1 per 1m           5            0              5            1\n"
            "  30 per 1m          5            0              5            1  <- recommended\n"
            "  1 per 1s           4            0              6            1\n"
            "  2 per 1s           3            0              7            1\n"
            "\n"
            "recommended: rate 30 per 1m, burst 5 (the lowest rate whose burst drains within 10 s at that rate; this "
            "one drains in 10.00 s)\n"
            "  kept keys: 0 of their 6 requests denied\n"
            "  the other keys: 5 of their 10 requests denied, 1 key capped; the most denied:\n"
            "    3.3.3.3                                  5 of 10 denied, the first at 0 s after the log's first request\n"
            "  it caps every key at 5 requests at once, then 30 per 1m (Traefik holds a request up to its maxDelay "
            "rather than deny it: 500 ms below one a second, 1 s / (2 * rate) from one on)\n"
            "\n"
            "Traefik has no dry-run mode: a rateLimit denies from the moment a router lists it. The closest: load this "
            "middleware with no router listing it (it limits nothing), run `ratelab replay LOG --config FILE` on each "
            "new day's log, and add ratelab-limit to the router's middlewares when the denials are as expected\n"
            "http:\n"
            "  middlewares:\n"
            "    ratelab-limit:\n"
            "      rateLimit:\n"
            "        average: 30\n"
            "        period: 1m\n"
            "        burst: 5\n"
            "\n"
            "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 5 of 16 requests denied, 1 "
            "key; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 10 under this limit\n";
        QCOMPARE(r.out, expected);
    }

    // Spring on the same log, --keep 60 (a and b kept): a's burst is 5 at every rate a minute and
    // 4 from 1/s on, the top; 3.3.3.3's ten at once lose 10 - burst (tst_advise_spring derives
    // them). The least rate draining 5 within 10 s: 30/min, replenishRate 1 and requestedTokens
    // 2, burstCapacity 5 * 2.
    void springReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "spring", "--keep", "60"});
        QCOMPARE(r.code, 0);
        const QByteArray expected =
            "advise for Spring Cloud Gateway: " + log.toUtf8() + ", 16 requests of 3 keys by ip\n"
            "kept: the 2 keys with at most 5 requests each (the 60 % least active, ties kept together): all 6 of "
            "their requests must pass\n"
            "\n"
            "the front: for each burst, the lowest round rate at which every request of the kept keys passes\n"
            "  rate           burst  kept denied  others denied  keys denied\n"
            "  1/min              5            0              5            1\n"
            "  30/min             5            0              5            1  <- recommended\n"
            "  1/s                4            0              6            1\n"
            "\n"
            "recommended: rate 30/min, burst 5 (the lowest rate whose burst drains within 10 s at that rate; this "
            "one drains in 10.00 s)\n"
            "  kept keys: 0 of their 6 requests denied\n"
            "  the other keys: 5 of their 10 requests denied, 1 key capped; the most denied:\n"
            "    3.3.3.3                                  5 of 10 denied, the first at 0 s after the log's first request\n"
            "  it caps every key at 5 requests at once, then 30/min (1 token at each whole second of the clock, 2 a "
            "request)\n"
            "\n"
            "Spring Cloud Gateway has no dry-run mode: a RequestRateLimiter denies from the moment a route lists it. The "
            "closest: load this route in a gateway no client uses (or none), run `ratelab replay LOG --config FILE` on "
            "each new day's log, and add the filter to your routes when the denials are as expected; a request without "
            "a key passes (deny-empty-key: false)\n"
            "spring:\n"
            "  cloud:\n"
            "    gateway:\n"
            "      routes:\n"
            "        - id: ratelab-limit\n"
            "          uri: http://localhost:8080\n"
            "          predicates:\n"
            "            - Path=/**\n"
            "          filters:\n"
            "            - name: RequestRateLimiter\n"
            "              args:\n"
            "                redis-rate-limiter.replenishRate: 1\n"
            "                redis-rate-limiter.burstCapacity: 10\n"
            "                redis-rate-limiter.requestedTokens: 2\n"
            "                key-resolver: \"#{@ratelabKeyResolver}\"\n"
            "                deny-empty-key: false\n"
            "# The key: a bean of the application, beside @SpringBootApplication:\n"
            "#   @Bean KeyResolver ratelabKeyResolver() {\n"
            "#     return exchange -> Mono.justOrEmpty(exchange.getRequest().getRemoteAddress()).map(a -> "
            "a.getAddress().getHostAddress());\n"
            "#   }\n"
            "\n"
            "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 5 of 16 requests denied, 1 "
            "key; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 10 under this limit\n";
        QCOMPARE(r.out, expected);
    }

    // Spring keyed by a header: k1 sends two in one second (burst 2 at every rate), k2 one at the
    // log's second 0 and one at second 1 (in tokens of N/min, 60 then 120 - N: burst 2 below one
    // a second, 1 from it); the request logged "-" passes, counted by no limit. The least rate
    // draining 2 within 10 s is 0.2 a second, 12/min: replenishRate 1, requestedTokens 5,
    // burstCapacity 10. The written file keys the filter by the header, `import` reads it back,
    // and `replay --config` on it denies nothing.
    void springKeyedByAHeader()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "k.jsonl",
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"-\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n"
                                      "{\"time\": 2.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n");
        const QString conf = dir.filePath("application.yml");
        const Run r = runRatelab({"advise", log, "--for", "spring", "--key", "http_x_api_key", "--format", "json",
                                  "--write", conf});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["keys"].toObject()["unlimited_requests"].toInt(), 1);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("12/min"));
        QCOMPARE(rec["burst"].toInt(), 2);
        const QString config = out["config"].toString();
        QVERIFY2(config.contains("                redis-rate-limiter.replenishRate: 1\n"
                                 "                redis-rate-limiter.burstCapacity: 10\n"
                                 "                redis-rate-limiter.requestedTokens: 5\n"),
                 qPrintable(config));
        QVERIFY2(config.contains("exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(\"x-api-key\"));"),
                 qPrintable(config));
        QCOMPARE(out["proof"].toObject()["requests"].toInt(), 4);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run imported = runRatelab({"import", conf});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.contains("replenishRate 1") && imported.out.contains("burstCapacity 10")
                     && imported.out.contains("requestedTokens 5"),
                 imported.out.constData());
        const Run replay = runRatelab({"replay", log, "--config", conf, "--key", "http_x_api_key"});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 0);
    }

    // --compare: the textbook limiters at the recommended rate. Envoy's log as one trace at 2 a
    // second, refilled continuously: 14 at 0 s, then 14 - 1 + 1 at 0.5 s and again at 1 s: a
    // capacity of 14 where Envoy's whole fills need 15, and nothing denied. Traefik's 30 per 1m
    // (0.5/s) on a: 3, 3.75, 4.5: 5, and c's ten at once lose 5 (tst_advise_textbook derives it).
    void compareWithTheTextbook()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run envoy = runRatelab({"advise", log, "--for", "envoy", "--compare"});
        QCOMPARE(envoy.code, 0);
        QVERIFY2(envoy.out.contains("  it caps what one Envoy lets through at 15 requests at once, then 2 per 1s, added "
                                    "whole at each fill\n\n"
                                    "compared at 2 per 1s, the textbook limiters: the least capacity at which every "
                                    "request of the kept keys passes\n"
                                    "  algorithm       capacity  kept denied  others denied  keys denied\n"
                                    "  token_bucket          14            0              0            0\n"
                                    "  gcra                  14            0              0            0\n\n"
                                    "Envoy, in shadow mode first"),
                 envoy.out.constData());
        const Run traefik = runRatelab({"advise", log, "--for", "traefik", "--keep", "60", "--compare", "--format", "json"});
        QCOMPARE(traefik.code, 0);
        const QJsonArray rows = parseJson(traefik.out)["textbook"].toArray();
        QCOMPARE(rows.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const QJsonObject row = rows[i].toObject();
            QCOMPARE(row["algorithm"].toString(), QString(i == 0 ? "token_bucket" : "gcra"));
            QCOMPARE(row["capacity"].toInt(), 5);
            QCOMPARE(row["others_denied"].toInt(), 5);
            QCOMPARE(row["keys_denied"].toInt(), 1);
        }
        // Without --compare the report has no such rows (theReportByHand reads nginx's whole).
        QVERIFY(!parseJson(runRatelab({"advise", log, "--for", "traefik", "--format", "json"}).out).contains("textbook"));
    }

    // Keyed by a header: k1 sends two at once (burst 2 at every rate: a debt under 1 token never
    // spares the second), k2 one at 1 s and one at 2 s (1, or 2 below one a second: 2 - 1/60
    // - 1/120 at 1 a minute); the request logged "-" meets no limit. The least rate draining 2
    // within 10 s is 0.2 a second, 12 per 1m. The written file keys the middleware by the header,
    // and `import` reads back its average, period and burst.
    void traefikKeyedByAHeader()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "k.jsonl",
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k1\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"-\", \"path\": \"/\"}\n"
                                      "{\"time\": 1.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n"
                                      "{\"time\": 2.0, \"http_x_api_key\": \"k2\", \"path\": \"/\"}\n");
        const QString conf = dir.filePath("traefik.yaml");
        const Run r = runRatelab({"advise", log, "--for", "traefik", "--key", "http_x_api_key", "--format", "json",
                                  "--write", conf});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["keys"].toObject()["unlimited_requests"].toInt(), 1);
        const QJsonObject rec = out["recommended"].toObject();
        QCOMPARE(rec["rate"].toString(), QString("12 per 1m"));
        QCOMPARE(rec["burst"].toInt(), 2);
        QCOMPARE(out["config"].toString(), QString("http:\n  middlewares:\n    ratelab-limit:\n      rateLimit:\n"
                                                   "        average: 12\n        period: 1m\n        burst: 2\n"
                                                   "        sourceCriterion:\n          requestHeaderName: x-api-key\n"));
        QCOMPARE(out["proof"].toObject()["requests"].toInt(), 4);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run imported = runRatelab({"import", conf});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.startsWith("What you wrote (Traefik rateLimit): rateLimit.average 12; rateLimit.period 1m; "
                                         "rateLimit.burst 2;\n"),
                 imported.out.constData());
        // Envoy reads the same log by the header (--key only reads it there): its one bucket counts
        // all 5 requests, the empty key's too: 4 at 0 s, 1 at 1 s after the fire, so d = 4, then
        // 4 - 1 + 1: max_tokens 4 at 1 per 1s, which drains 4 within 10 s.
        const Run envoy = runRatelab({"advise", log, "--for", "envoy", "--key", "http_x_api_key", "--format", "json"});
        QCOMPARE(envoy.code, 0);
        const QJsonObject shared = parseJson(envoy.out);
        QCOMPARE(shared["recommended"].toObject()["rate"].toString(), QString("1 per 1s"));
        QCOMPARE(shared["recommended"].toObject()["burst"].toInt(), 4);
        QCOMPARE(shared["proof"].toObject()["requests"].toInt(), 5);
        QVERIFY(shared["proof"].toObject()["as_advised"].toBool());
    }
    // Kong on the shared log, --keep 60: the kept keys are 1.1.1.1 and 2.2.2.2 (at most 5, as
    // for nginx). tst_advise_kong derives the windows: the kept keys need 4 in a second and 5 in
    // a minute, an hour and a day; alone each denies 3.3.3.3's ten at once all beyond it (6, then
    // 5). Recommended: minute 5 with second 4 under it: 3.3.3.3 loses 6, the first at once.
    void kongReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const QString conf = dir.filePath("kong.yaml");
        const Run r = runRatelab({"advise", log, "--for", "kong", "--keep", "60", "--write", conf});
        QCOMPARE(r.code, 0);
        const QByteArray config = "_format_version: \"3.0\"\nservices:\n- name: ratelab-upstream\n"
                                  "  url: http://upstream.invalid\n  routes:\n  - name: ratelab-every-path\n"
                                  "    paths:\n    - /\nplugins:\n- name: rate-limiting\n  config:\n"
                                  "    second: 4\n    minute: 5\n    policy: local\n    limit_by: ip\n";
        const QByteArray expected =
            "advise for Kong: " + log.toUtf8() + ", 16 requests of 3 keys by ip\n"
            "kept: the 2 keys with at most 5 requests each (the 60 % least active, ties kept together): all 6 of "
            "their requests must pass\n"
            "\n"
            "the windows: for each, the least limit at which every request of the kept keys passes, and what it "
            "alone denies\n"
            "  window         limit  kept denied  others denied  keys denied\n"
            "  second             4            0              6            1\n"
            "  minute             5            0              5            1\n"
            "  hour               5            0              5            1\n"
            "  day                5            0              5            1\n"
            "\n"
            "recommended: second 4, minute 5 (the most one kept key sent in a minute, and under it the most it sent "
            "in a second)\n"
            "  kept keys: 0 of their 6 requests denied\n"
            "  the other keys: 6 of their 10 requests denied, 1 key capped; the most denied:\n"
            "    3.3.3.3                                  6 of 10 denied, the first at 0 s after the log's first request\n"
            "  it caps every key at 5 requests in each minute of the clock and 4 in each second: fixed windows, so a "
            "key may spend one window's limit at its end and the next's at its start\n"
            "\n"
            "Kong has no dry-run mode: its rate-limiting denies from the moment it runs (a flag to only log was asked "
            "for, not added). The closest: merge the plugin into your kong.yml with enabled: false (configured, run "
            "nowhere), run `ratelab replay LOG --config FILE` on each new day's log, and enable it when the denials "
            "are as expected. The service and route are placeholders the dry run needs: `deck gateway sync` of this "
            "file alone would delete every entity it does not list\n"
            + config
            + "\n"
              "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 6 of 16 requests "
              "denied, 1 key; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 9 under this limit\n";
        QCOMPARE(r.out, expected);
        QFile written(conf);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), config);
        // What replay --config and import make of the file: the same 6 denials, Kong's limits.
        const Run replay = runRatelab({"replay", log, "--config", conf});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 6);
        const Run imported = runRatelab({"import", conf});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.startsWith("What you wrote (Kong rate-limiting): "), imported.out.constData());
        // Every key kept (--keep 100): 3.3.3.3 needs 10 in a second and in a minute, so the
        // second's cap would never bind: minute 10 alone, nothing denied.
        const Run all = runRatelab({"advise", log, "--for", "kong", "--keep", "100", "--format", "json"});
        QCOMPARE(all.code, 0);
        const QJsonObject rec = parseJson(all.out)["recommended"].toObject();
        QCOMPARE(rec["limits"].toObject(), (QJsonObject{{"minute", 10}}));
        QCOMPARE(rec["others_denied"].toInt(), 0);
        QVERIFY(parseJson(all.out)["proof"].toObject()["as_advised"].toBool());
    }
    // express-rate-limit on the shared log, --keep 60 (1.1.1.1 and 2.2.2.2 kept): tst_advise_express
    // derives the least limits, 4 at 1000 ms and 5 from a minute on; 3.3.3.3's ten at once lose 6,
    // then 5. Recommended: windowMs 60000, limit 5; the dry run of the options denies the same 5.
    void expressReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const Run r = runRatelab({"advise", log, "--for", "express", "--keep", "60", "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        const QJsonArray windows = out["windows"].toArray();
        QCOMPARE(windows.size(), 4);
        const int limits[] = {4, 5, 5, 5}, denied[] = {6, 5, 5, 5};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(windows[i].toObject()["limit"].toInt(), limits[i]);
            QCOMPARE(windows[i].toObject()["others_denied"].toInt(), denied[i]);
        }
        QCOMPARE(out["recommended"].toObject()["windowMs"].toInt(), 60000);
        QCOMPARE(out["recommended"].toObject()["limit"].toInt(), 5);
        QCOMPARE(out["config"].toString(), QString("{windowMs: 60000, limit: 5}\n"));
        QCOMPARE(out["proof"].toObject()["denied"].toInt(), 5);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
    }

    // API Gateway on the small log, the log's ip taken as the API key, --keep 60 (1.1.1.1 and
    // 2.2.2.2 kept): tst_advise_aws derives the front, 1.1.1.1's burst at 0.01/s .. 0.99/s 5, at
    // 1/s 4 and from 2/s on 3, and the least rate draining 5 within 10 s, 0.5/s; 3.3.3.3's ten at
    // once lose 10 - burst. --write saves the usage plan, which `replay --config` denies the same 5.
    void awsReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const QString plan = dir.filePath("plan.json");
        const Run r = runRatelab({"advise", log, "--for", "aws-api-gateway", "--key", "ip", "--keep", "60", "--write", plan});
        QCOMPARE(r.code, 0);
        const QByteArray config = "{\n  \"name\": \"ratelab-limit\",\n  \"description\": \"Advised by ratelab advise: add the "
                                  "API stages and the API keys it throttles\",\n  \"apiStages\": [],\n  \"throttle\": {\n"
                                  "    \"burstLimit\": 5,\n    \"rateLimit\": 0.5\n  }\n}\n";
        const QByteArray expected =
            "advise for Amazon API Gateway: " + log.toUtf8() + ", 16 requests of 3 keys by ip\n"
            "kept: the 2 keys with at most 5 requests each (the 60 % least active, ties kept together): all 6 of "
            "their requests must pass\n"
            "\n"
            "the front: for each burst, the lowest round rate at which every request of the kept keys passes\n"
            "  rate           burst  kept denied  others denied  keys denied\n"
            "  0.01/s             5            0              5            1\n"
            "  0.5/s              5            0              5            1  <- recommended\n"
            "  1/s                4            0              6            1\n"
            "  2/s                3            0              7            1\n"
            "\n"
            "recommended: rate 0.5/s, burst 5 (the lowest rate whose burst drains within 10 s at that rate; "
            "this one drains in 10.00 s)\n"
            "  kept keys: 0 of their 6 requests denied\n"
            "  the other keys: 5 of their 10 requests denied, 1 key capped; the most denied:\n"
            "    3.3.3.3                                  5 of 10 denied, the first at 0 s after the log's first request\n"
            "  it caps every API key at 5 requests at once, then 0.5/s (its own token bucket; the account's, 10,000 a "
            "second and burst 5,000, which AWS shares among all keys, is weighed here for each key alone)\n"
            "\n"
            "API Gateway has no dry-run or count mode: a usage plan throttles its API keys from the moment it has a "
            "stage. The closest: create it on a copy of the stage that receives the same keys (aws apigateway "
            "create-usage-plan --cli-input-json file://FILE, then its apiStages and keys) and watch that stage's 429s "
            "in CloudWatch, or run `ratelab replay LOG --config FILE` on each new day's log\n"
            + config
            + "\n"
              "proof: the dry run `ratelab replay LOG --config FILE` runs, on this config: 5 of 16 requests "
              "denied, 1 key; every key's denials as advised\n"
              "the origin\'s busiest second: 15 requests of the log, 10 under this limit\n";
        QCOMPARE(r.out, expected);
        QFile written(plan);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), config);
        const Run replay = runRatelab({"replay", log, "--config", plan});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 5);
    }

    // Upstash on the small log, --keep 60: tst_advise_upstash derives each limiter's least tokens
    // (1.1.1.1's: 5, but fixedWindow 1 s 4) and 3.3.3.3's loss of 10 - tokens; slidingWindow 10 s
    // is recommended. --write saves the snippet, which `replay --config` denies the same 5.
    void upstashReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog);
        const QString snippet = dir.filePath("ratelimit.ts");
        const Run r = runRatelab({"advise", log, "--for", "upstash", "--keep", "60", "--format", "json", "--write", snippet});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        QCOMPARE(out["product"].toString(), QString("@upstash/ratelimit"));
        const QJsonArray limiters = out["limiters"].toArray();
        QCOMPARE(limiters.size(), 6);
        const int tokens[] = {5, 5, 5, 4, 5, 5}, denied[] = {5, 5, 5, 6, 5, 5};
        const char* windows[] = {"1 s", "10 s", "1 m"};
        for (int i = 0; i < 6; ++i) {
            const QJsonObject l = limiters[i].toObject();
            QCOMPARE(l["limiter"].toString(), QString(i < 3 ? "slidingWindow" : "fixedWindow"));
            QCOMPARE(l["window"].toString(), QString(windows[i % 3]));
            QCOMPARE(l["tokens"].toInt(), tokens[i]);
            QCOMPARE(l["others_denied"].toInt(), denied[i]);
        }
        QCOMPARE(out["recommended"].toObject()["window"].toString(), QString("10 s"));
        const QString config = "import { Ratelimit } from \"@upstash/ratelimit\";\nimport { Redis } from \"@upstash/redis\";\n\n"
                               "export const ratelimit = new Ratelimit({\n  redis: Redis.fromEnv(),\n"
                               "  limiter: Ratelimit.slidingWindow(5, \"10 s\"),\n});\n";
        QCOMPARE(out["config"].toString(), config);
        QCOMPARE(out["proof"].toObject()["denied"].toInt(), 5);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run replay = runRatelab({"replay", log, "--config", snippet});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 5);
    }

    // The shipped day (resources/traffic/api-day.log.gz, combined format, whole seconds of one
    // day that starts on a whole 10 s since 1970), keyed by ip, checked against loops here that
    // read the log and decide each product's arithmetic without RateLab's code.
    void theShippedDay()
    {
        const ApiDay day = readApiDay();
        QCOMPARE(day.keys.size(), std::size_t(2506));
        const Run aws = runRatelab({"advise", kApiDay, "--for", "aws-api-gateway", "--key", "ip", "--format", "json"});
        QCOMPARE(aws.code, 0);
        const QJsonObject a = parseJson(aws.out);
        QCOMPARE(a["keys"].toObject()["kept"].toInt(), day.keptKeys());
        QCOMPARE(a["keys"].toObject()["kept_most_requests"].toInt(), day.keptMost);
        // The recommendation: 1/s needs a burst that does not drain in 10 s, 2/s one that does.
        QVERIFY(day.keptBurst(1) > 10);
        QVERIFY(day.keptBurst(2) <= 20);
        const QJsonObject ar = a["recommended"].toObject();
        QCOMPARE(ar["rate"].toString(), QString("2/s"));
        QCOMPARE(ar["burst"].toInt(), day.keptBurst(2));
        const auto [awsDenied, awsKeys] = day.bucketDenials(2, day.keptBurst(2));
        QCOMPARE(ar["others_denied"].toInt(), awsDenied);
        QCOMPARE(ar["keys_denied"].toInt(), awsKeys);
        QCOMPARE(ar["kept_denied"].toInt(), 0);
        QVERIFY(a["proof"].toObject()["as_advised"].toBool());
        const auto [peak, admittedPeak] = day.originPeaks(2, day.keptBurst(2));
        QCOMPARE(a["origin"].toObject()["peak_per_second"].toInt(), peak);
        QCOMPARE(a["origin"].toObject()["admitted_peak_per_second"].toInt(), admittedPeak);
        QCOMPARE(a["origin"].toObject()["admitted"].toInt(), 142'243 - awsDenied);
        const Run up = runRatelab({"advise", kApiDay, "--for", "upstash", "--format", "json"});
        QCOMPARE(up.code, 0);
        const QJsonObject u = parseJson(up.out)["recommended"].toObject();
        const int least = day.slidingLeast(10);
        QCOMPARE(u["tokens"].toInt(), least);
        QCOMPARE(day.slidingDenials(10, least - 1).first > 0, true); // one fewer denies a kept key's request
        const auto [upDenied, upKeys] = day.slidingDenials(10, least);
        QCOMPARE(u["others_denied"].toInt(), upDenied);
        QCOMPARE(u["keys_denied"].toInt(), upKeys);
        QVERIFY(parseJson(up.out)["proof"].toObject()["as_advised"].toBool());
    }

    // Cloudflare on the shared log, --keep 60 (1.1.1.1 and 2.2.2.2 kept): tst_advise_managed
    // derives 5 in every period, all in the log's first; 3.3.3.3's sixth request of ten at once
    // is over and blocks it for the period: 5 denied. Recommended: period 60. The written
    // ruleset is read back by `import` (the same rule) and by `replay --config` (the same 5).
    void cloudflareReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog), rule = dir.filePath("rule.json");
        const Run r = runRatelab({"advise", log, "--for", "cloudflare", "--keep", "60", "--write", rule});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("  period         limit  kept denied  others denied  keys denied\n"
                                "  10 s               5            0              5            1\n"
                                "  60 s               5            0              5            1  <- recommended\n"),
                 r.out.constData());
        QVERIFY2(r.out.contains("\nrecommended: period 60, requests_per_period 5 ("), r.out.constData());
        QVERIFY2(r.out.contains("on this config: 5 of 16 requests denied, 1 key; every key's denials as advised\n"),
                 r.out.constData());
        const Run imported = runRatelab({"import", rule});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.startsWith("What you wrote (Cloudflare rate limiting rule): ratelimit.period 60; "
                                         "ratelimit.requests_per_period 5; ratelimit.mitigation_timeout 60; "
                                         "ratelimit.characteristics ip.src; action block;"),
                 imported.out.constData());
        const Run replay = runRatelab({"replay", log, "--config", rule});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 5);
    }

    // AWS WAF on the shared log: every request is in the first second, before any check can be
    // in force (the first at 10 s, from 40 s), so the kept keys need 0 and AWS's least Limit, 10,
    // is written; it denies nothing. Recommended: EvaluationWindowSec 300 (AWS's default). The
    // rule is read back by `import` (Limit 10, Block) and by `replay --config` (nothing denied).
    void wafReportByHand()
    {
        QTemporaryDir dir;
        const QString log = writeFile(dir, "a.csv", kLog), rule = dir.filePath("rule.json");
        const Run r = runRatelab({"advise", log, "--for", "aws-waf", "--keep", "60", "--write", rule, "--format", "json"});
        QCOMPARE(r.code, 0);
        const QJsonObject out = parseJson(r.out);
        const QJsonArray windows = out["windows"].toArray();
        QCOMPARE(windows.size(), 4);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(windows[i].toObject()["least"].toInt(), 0);
            QCOMPARE(windows[i].toObject()["Limit"].toInt(), 10);
            QCOMPARE(windows[i].toObject()["others_denied"].toInt(), 0);
        }
        QCOMPARE(out["recommended"].toObject()["EvaluationWindowSec"].toInt(), 300);
        QVERIFY(out["proof"].toObject()["as_advised"].toBool());
        const Run imported = runRatelab({"import", rule});
        QCOMPARE(imported.code, 0);
        QVERIFY2(imported.out.startsWith("What you wrote (AWS WAF rate-based rule): RateBasedStatement.Limit 10; "
                                         "RateBasedStatement.EvaluationWindowSec 300; Action Block; "
                                         "RateBasedStatement.AggregateKeyType IP;"),
                 imported.out.constData());
        const Run replay = runRatelab({"replay", log, "--config", rule});
        QCOMPARE(replay.code, 0);
        QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInt(), 0);
    }

    // The shipped day, each window's least limit worked out here by a loop of its own on the
    // log's requests, not advise's: the kept keys are those with at most the nearest-rank 99th
    // percentile of the keys' counts. Cloudflare: a request at e into period w needs the requests
    // of w before it, itself, and ceil(the count of w - 1 * (P - e) / P); the least is the most
    // any kept request needs. WAF: a request at t >= 40 s meets the check at floor((t - 30) / 10)
    // * 10 = C, which counts the key's requests in [C - W, C); the least is the most any kept
    // request meets, and at least 10. Each written rule's dry run then denies what advise says.
    void theShippedDayIndependently()
    {
        const QString log = QString(RATELAB_TESTDATA) + "/../../resources/traffic/api-day.log.gz";
        const ratelab::Traffic traffic = ratelab::readTrafficLog(log.toStdString(), ratelab::TrafficOptions{});
        std::vector<std::vector<std::int64_t>> times(traffic.keyNames.size()); // seconds since the log's start
        for (std::size_t i = 0; i < traffic.times.size(); ++i)
            times[traffic.keys[i]].push_back(traffic.times[i] / 1'000'000'000);
        std::vector<std::size_t> counts;
        for (const auto& t : times)
            counts.push_back(t.size());
        std::sort(counts.begin(), counts.end());
        const std::size_t most = counts[(99 * counts.size() + 99) / 100 - 1];
        QCOMPARE(most, std::size_t(99));
        const auto least = [&](const auto& need) {
            std::int64_t out = 0;
            for (const auto& t : times)
                if (t.size() <= most)
                    for (std::size_t i = 0; i < t.size(); ++i)
                        out = std::max(out, need(t, i));
            return out;
        };
        const auto check = [&](const QString& product, const QString& windowName, const QString& limitName,
                               const std::function<std::int64_t(std::int64_t)>& expected) {
            QTemporaryDir dir;
            const QString rule = dir.filePath("rule.json");
            const Run r = runRatelab({"advise", log, "--for", product, "--format", "json", "--write", rule});
            QCOMPARE(r.code, 0);
            const QJsonObject out = parseJson(r.out);
            for (const QJsonValue& w : out["windows"].toArray())
                QCOMPARE(w.toObject()[limitName].toInteger(), expected(w.toObject()[windowName].toInteger()));
            QVERIFY(out["proof"].toObject()["as_advised"].toBool());
            const Run replay = runRatelab({"replay", log, "--config", rule});
            QCOMPARE(parseJson(replay.out)["current"].toObject()["denied"].toInteger(),
                     out["recommended"].toObject()["others_denied"].toInteger());
        };
        check("cloudflare", "period", "requests_per_period", [&](std::int64_t p) {
            return least([p](const std::vector<std::int64_t>& t, std::size_t i) {
                const std::int64_t w = t[i] / p, e = t[i] % p;
                const auto inPeriod = [&](std::int64_t of, std::size_t until) {
                    return std::int64_t(std::count_if(t.begin(), t.begin() + std::ptrdiff_t(until),
                                                      [&](std::int64_t s) { return s / p == of; }));
                };
                const std::int64_t prev = inPeriod(w - 1, i);
                return inPeriod(w, i) + 1 + (prev * (p - e) + p - 1) / p;
            });
        });
        check("aws-waf", "EvaluationWindowSec", "Limit", [&](std::int64_t window) {
            return std::max<std::int64_t>(10, least([window](const std::vector<std::int64_t>& t, std::size_t i) {
                if (t[i] < 40)
                    return std::int64_t(0);
                const std::int64_t c = (t[i] - 30) / 10 * 10;
                return std::int64_t(std::lower_bound(t.begin(), t.end(), c) - std::lower_bound(t.begin(), t.end(), c - window));
            }));
        });
    }
};

QTEST_GUILESS_MAIN(TestCliAdvise)
#include "tst_cli_advise.moc"
