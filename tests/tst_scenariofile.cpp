// Scenario files: a saved scenario reopens equal to itself and makes the same decisions, times
// and rates exactly; every kind of broken file is refused with a message naming the problem, and
// leaves the current scenario (and the file on disk) as it was; missing fields are reported.
#include "engine_helpers.h"
#include "scenariofile.h"
#include "engine/layered.h"

#include "arithmetic/decimal.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace ratelab;
using namespace ratelab::io;
using namespace ratelab::test;

Q_DECLARE_METATYPE(ratelab::Scenario)

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

// sameDecisions compares two traces field by field (Decision has no operator==): every row's
// decisions, whether kept or logged by the engine, and their times.
bool sameDecisions(const Trace& a, const Trace& b)
{
    if (a.arrivals != b.arrivals || a.results.size() != b.results.size())
        return false;
    for (std::size_t r = 0; r < a.results.size(); ++r) {
        const auto& x = a.results[r];
        const auto& y = b.results[r];
        if (x.algorithm != y.algorithm || decisionCount(x) != decisionCount(y) || timesOf(a, r) != timesOf(b, r))
            return false;
        for (std::size_t k = 0; k < decisionCount(x); ++k) {
            const Decision d = decisionAt(a, r, k);
            const Decision e = decisionAt(b, r, k);
            if (d.allowed != e.allowed || d.delay != e.delay || d.retryAfter != e.retryAfter
                || d.remaining != e.remaining || d.level != e.level)
                return false;
        }
    }
    return true;
}

std::vector<bool> allowed(const AlgorithmTrace& t)
{
    std::vector<bool> out;
    for (const Decision& d : t.decisions)
        out.push_back(d.allowed);
    return out;
}

// valid is a complete file; broken inputs below are variations of it.
QByteArray valid(const QByteArray& fields = {})
{
    return R"({"format": "ratelab-scenario", "version": 1, "limit": 10, "window": "10", "capacity": 10,
               "rate": "1", "algorithms": ["fixed_window"],
               "pattern": {"kind": "uniform", "n": 15, "delay": "0.1", "start": "0"})"
           + (fields.isEmpty() ? QByteArray() : ", " + fields) + "}";
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

bool writeAll(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

} // namespace

class TestScenarioFile : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("defaults") << Scenario{};

        Scenario s;
        s.config = LimiterConfig::make(3, 7 * kSecond); // rate 3/7 per second: no finite decimal
        s.algorithms = {Algorithm::Gcra, Algorithm::FixedWindow, Algorithm::LeakyBucketQueue};
        s.pattern.count = 40;
        s.pattern.delayNanos = 1; // one nanosecond apart
        s.pattern.startNanos = 3 * kSecond + 1;
        s.title = "Quotes \" and \\ backslashes, a tab\t, a newline\n, \xc3\xa9 and \xe2\x9c\x93";
        s.lesson = "Line one.\nLine two.";
        QTest::newRow("3/7 rate, 1 ns delay, odd text") << s;

        s = Scenario{};
        s.config = LimiterConfig::make(5, 2 * kSecond + 500'000'001, 7, Rate{1, 3}); // 1/3 token per ns
        s.pattern.kind = PatternKind::Burst;
        s.pattern.count = 23;
        s.pattern.burstSize = 4;
        s.pattern.periodNanos = 1'234'567'891;
        QTest::newRow("burst, 1/3 per ns") << s;

        s = Scenario{};
        s.pattern.kind = PatternKind::Poisson;
        s.pattern.count = 500;
        s.pattern.lambda = Rate{3, 7 * kSecond}; // 3/7 per second
        s.pattern.seed = 18'446'744'073'709'551'615ULL; // 2^64 - 1: beyond what a JSON number holds
        QTest::newRow("poisson, huge seed") << s;

        s.pattern.seed = 9'007'199'254'740'993ULL; // 2^53 + 1: not a double, still an int64
        s.pattern.lambda = Rate{1, 7}; // 10^9/7 per second
        QTest::newRow("poisson, 2^53 + 1 seed") << s;

        s.pattern.seed = 9'223'372'036'854'775'807ULL; // 2^63 - 1: an int64, read back as a double when a number
        QTest::newRow("poisson, 2^63 - 1 seed") << s;

        s = Scenario{};
        s.config = LimiterConfig::make(4, kSecond);
        s.pattern.kind = PatternKind::Edge;
        s.pattern.gapNanos = 1;
        s.pattern.startNanos = 5 * kSecond;
        QTest::newRow("edge") << s;

        s = Scenario{};
        s.explicitArrivals = std::vector<Nanos>{0, 1, 1, 100'000'000, kSecond + 1, 9'223'372'036'854'775'807LL};
        s.addedArrivals = {5 * kSecond, 1, 5 * kSecond}; // by hand, in the order sent
        s.pattern.kind = PatternKind::Burst; // kept as it was, unused while arrivals are set
        s.pattern.count = 3;
        QTest::newRow("explicit and added arrivals, ns exact") << s;

        s = Scenario{};
        s.explicitArrivals = std::vector<Nanos>{};
        QTest::newRow("no arrivals at all") << s;

        // What production adds, each exact.
        s = Scenario{};
        s.cost = 3;
        s.config = s.config.withNginx({7, true, 0});
        s.algorithms = {Algorithm::NginxLimitReq, Algorithm::LeakyBucket};
        s.layers = {parseLayer("token_bucket:capacity=100,rate=10", s.config.nginx()), // layers read the nginx options
                    parseLayer("sliding_window_counter:limit=1000,window=3600.000000001,rate=3/7", s.config.nginx())};
        QTest::newRow("cost, nginx, two layers") << s;

        s = Scenario{};
        s.explicitArrivals = std::vector<Nanos>{0, 0, kSecond};
        s.explicitCosts = {2, 1, 9};
        s.config = s.config.withNginx({std::nullopt, false, 4});
        QTest::newRow("a cost per arrival, nginx delay") << s;

        for (Coordination c : kAllCoordinations) {
            s = Scenario{};
            ClusterConfig::Options o;
            o.nodes = 3;
            o.balancer = Balancer::Hash;
            o.coordination = c;
            o.latencyNanos = c == Coordination::Racy ? 50'000'001 : 0;
            o.syncNanos = c == Coordination::Hybrid ? kSecond / 10 : 0;
            o.skewNanos = 7;
            s.cluster = ClusterConfig::make(o);
            QTest::newRow(qPrintable("cluster " + QString::fromUtf8(coordinationId(c).data()))) << s;
        }

        s = Scenario{};
        ClientOptions o;
        o.clients = 4;
        o.key = KeyMode::Global;
        o.retry = RetryPolicy::Backoff;
        o.maxRetries = 100;
        o.retryDelayNanos = 1;
        o.backoffBaseNanos = 3;
        o.backoffCapNanos = 5 * kSecond + 1;
        s.clients = ClientConfig::make(o);
        s.explicitArrivals = std::vector<Nanos>{0, 1, 2};
        s.explicitClients = {3, 0, 3};
        QTest::newRow("clients, named per arrival") << s;
        s = Scenario{};
        s.server = ServerConfig::parse("workers=2,service=const:100ms");
        s.concurrency = {GateSpec::parse("none"), GateSpec::parse("fixed:limit=3")};
        s.layers = {parseLayer("token_bucket:limit=5")};
        s.layeredGate = GateSpec::parse("aimd:initial_limit=4");
        s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
        QTest::newRow("server, gates, throttle") << s;
    }

    void roundTrip()
    {
        QFETCH(Scenario, scenario);
        const QByteArray json = serializeScenario(scenario);
        const LoadResult r = parseScenario(json);
        QVERIFY2(r.scenario, qPrintable(r.error));
        QVERIFY(r.error.isEmpty());
        QCOMPARE(r.notes, QStringList()); // a saved file has every field
        QVERIFY(*r.scenario == scenario);
        QCOMPARE(serializeScenario(*r.scenario), json);

        // The same through a file on disk, and the very same decisions.
        QTemporaryDir dir;
        const QString path = dir.filePath("s.ratelab.json");
        QCOMPARE(saveScenario(scenario, path), QString());
        QCOMPARE(readAll(path), json);
        const LoadResult f = loadScenarioFile(path);
        QVERIFY2(f.scenario, qPrintable(f.error));
        QVERIFY(*f.scenario == scenario);
        QVERIFY(sameDecisions(traceOf(*f.scenario), traceOf(scenario)));
    }

    void timesAndRatesAreWrittenExactly()
    {
        Scenario s;
        s.config = LimiterConfig::make(3, 7 * kSecond);
        s.explicitArrivals = std::vector<Nanos>{1, kSecond / 10};
        const QByteArray json = serializeScenario(s);
        QVERIFY2(json.contains(R"("rate": "3/7")"), json);
        QVERIFY2(json.contains(R"("window": "7")"), json);
        QVERIFY2(json.contains(R"("0.000000001", "0.1")"), json);
        QVERIFY2(json.contains(R"("delay": "0.1")"), json);
        QVERIFY2(json.contains(R"("format": "ratelab-scenario")") && json.contains(R"("version": 1)"), json);
    }

    void aSavedRateDecidesExactly()
    {
        // L = C = 3 per 7 s: r = 3/7 token per s, so after three requests at 0 the next token is
        // due at 7/3 s = 2333333333 1/3 ns: not there at 2.333333333 s, there 1 ns later. A rate
        // rounded to nine decimals (0.428571428) would put it at 2.33333333644 s and deny both.
        Scenario s;
        s.config = LimiterConfig::make(3, 7 * kSecond);
        s.algorithms = {Algorithm::TokenBucket, Algorithm::Gcra};
        s.explicitArrivals = std::vector<Nanos>{0, 0, 0, 2'333'333'333, 2'333'333'334};
        QTemporaryDir dir;
        const QString path = dir.filePath("exact.ratelab.json");
        QCOMPARE(saveScenario(s, path), QString());
        const LoadResult r = loadScenarioFile(path);
        QVERIFY2(r.scenario, qPrintable(r.error));
        QCOMPARE(r.scenario->config.rate(), (Rate{3, 7 * kSecond}));
        const Trace t = traceOf(*r.scenario);
        for (const AlgorithmTrace& a : t.results)
            QCOMPARE(allowed(a), (std::vector<bool>{true, true, true, false, true}));
    }

    void numbersAreAcceptedToo()
    {
        // A hand-written file may use JSON numbers for times and rates; each is read as the
        // decimal it is written as: 0.1 s is exactly 100000000 ns, 2.5/s exactly 1 per 0.4 s.
        const LoadResult r = parseScenario(R"({"format": "ratelab-scenario", "version": 1, "limit": "4",
            "window": 0.1, "capacity": 2, "rate": 2.5, "arrivals": [1e-9, 0.1, 3], "added": [7, 0],
            "pattern": {"kind": "poisson", "n": 3, "start": 0, "lambda": 0.5, "seed": "42"}})");
        QVERIFY2(r.scenario, qPrintable(r.error));
        const Scenario& s = *r.scenario;
        QCOMPARE(s.config.limit(), 4);
        QCOMPARE(s.config.windowNanos(), kSecond / 10);
        QCOMPARE(s.config.rate(), (Rate{1, 400'000'000}));
        QCOMPARE(s.pattern.lambda, (Rate{1, 2 * kSecond}));
        QCOMPARE(s.pattern.seed, std::uint64_t(42));
        QCOMPARE(*s.explicitArrivals, (std::vector<Nanos>{1, kSecond / 10, 3 * kSecond}));
        QCOMPARE(s.addedArrivals, (std::vector<Nanos>{7 * kSecond, 0})); // by hand: any order
        // The explicit times must not decrease: 0.1 then 1e-9 is refused, naming the second.
        const LoadResult bad = parseScenario(valid(R"("arrivals": [0.1, 1e-9])"));
        QVERIFY(!bad.scenario);
        QVERIFY2(bad.error.contains("arrivals[1]") && bad.error.contains("earlier"), qPrintable(bad.error));
    }

    void missingFieldsTakeDefaultsAndAreReported()
    {
        const LoadResult r = parseScenario(R"({"format": "ratelab-scenario"})");
        QVERIFY2(r.scenario, qPrintable(r.error));
        QVERIFY(*r.scenario == Scenario{});
        for (const char* field : {"\"version\"", "\"algorithms\"", "\"limit\"", "\"window\"", "\"capacity\"",
                                  "\"rate\"", "\"pattern\""})
            QVERIFY2(r.notes.filter(field).size() == 1, qPrintable(QString(field) + " in " + r.notes.join(" | ")));
        QCOMPARE(r.notes.size(), 7);

        // Capacity and rate default from the limit and window given: 3 per 7 s.
        const LoadResult c = parseScenario(R"({"format": "ratelab-scenario", "version": 1, "limit": 3,
            "window": "7", "algorithms": ["gcra"], "pattern": {"kind": "burst", "delay": "5"}})");
        QVERIFY2(c.scenario, qPrintable(c.error));
        QCOMPARE(c.scenario->config.capacity(), 3);
        QCOMPARE(c.scenario->config.rate(), (Rate{3, 7 * kSecond}));
        QVERIFY(c.notes.filter("3/7").size() == 1);
        // A burst reads n, start, size and period: each missing one is reported; delay (given,
        // unused), lambda, seed and gap (not read by a burst) are not.
        for (const char* field : {"pattern.n", "pattern.start", "pattern.size", "pattern.period"})
            QVERIFY2(c.notes.filter(field).size() == 1, qPrintable(QString(field) + " in " + c.notes.join(" | ")));
        QCOMPARE(c.notes.filter("pattern.").size(), 4);
        QCOMPARE(c.scenario->pattern.delayNanos, 5 * kSecond);

        // Explicit arrivals need no pattern; an unknown field is ignored and reported (a typo).
        const LoadResult a = parseScenario(R"({"format": "ratelab-scenario", "version": 1, "limit": 10,
            "window": "10", "capacity": 10, "rate": "1", "algorithms": ["gcra"], "arrivals": ["1"],
            "delya": "0.5"})");
        QVERIFY2(a.scenario, qPrintable(a.error));
        QCOMPARE(a.notes.size(), 1);
        QVERIFY(a.notes.first().contains("delya"));
    }

    void brokenInputIsRefused_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QStringList>("mentions");
        const auto row = [](const char* name, const QByteArray& json, const QStringList& mentions) {
            QTest::newRow(name) << json << mentions;
        };
        row("empty", "", {"empty"});
        row("blank", "  \n ", {"empty"});
        row("not JSON", "hello", {"not valid JSON", "at line 1, column "}); // where, as an editor shows it
        row("truncated", valid().left(valid().size() / 2), {"not valid JSON", "at line ", ", column ", "cut short"});
        row("top-level array", "[1, 2]", {"object"});
        row("no format", R"({"version": 1})", {"not a RateLab scenario", "\"format\""});
        row("another format", R"({"format": "excel", "version": 1})", {"'excel'", "ratelab-scenario"});
        row("format not a string", R"({"format": 1})", {"\"format\"", "a number"});
        row("newer version", R"({"format": "ratelab-scenario", "version": 2, "limit": "nonsense"})",
            {"made by a newer RateLab: version 2, this one reads 1"});
        row("version 0", R"({"format": "ratelab-scenario", "version": 0})", {"\"version\" 0"});
        row("version 1.5", R"({"format": "ratelab-scenario", "version": 1.5})", {"\"version\" 1.5"});
        row("version as a string", R"({"format": "ratelab-scenario", "version": "1"})", {"\"version\"", "a string"});
        row("limit true", valid(R"("limit": true)").replace("\"limit\": 10,", ""), {"\"limit\"", "a boolean"});
        row("limit 0", valid().replace("\"limit\": 10", "\"limit\": 0"), {"limit", "at least 1"});
        row("limit abc", valid().replace("\"limit\": 10", "\"limit\": \"abc\""), {"\"limit\"", "'abc'"});
        row("limit 1.5", valid().replace("\"limit\": 10", "\"limit\": 1.5"), {"\"limit\"", "whole number"});
        row("limit too large", valid().replace("\"limit\": 10", "\"limit\": 1e300"), {"\"limit\"", "too large"});
        row("window 0", valid().replace("\"window\": \"10\"", "\"window\": \"0\""), {"window", "greater than 0"});
        row("window finer than 1 ns", valid().replace("\"window\": \"10\"", "\"window\": \"1e-10\""),
            {"\"window\"", "finer than one nanosecond"});
        row("window an array", valid().replace("\"window\": \"10\"", "\"window\": [10]"), {"\"window\"", "an array"});
        row("capacity 0", valid().replace("\"capacity\": 10", "\"capacity\": 0"), {"capacity", "at least 1"});
        row("rate 0", valid().replace("\"rate\": \"1\"", "\"rate\": \"0\""), {"rate", "greater than 0"});
        row("rate 3/0", valid().replace("\"rate\": \"1\"", "\"rate\": \"3/0\""), {"rate", "3/0"});
        row("rate a/b", valid().replace("\"rate\": \"1\"", "\"rate\": \"a/b\""), {"\"rate\"", "'a/b'"});
        row("rate null", valid().replace("\"rate\": \"1\"", "\"rate\": null"), {"\"rate\"", "null"});
        row("algorithms a string", valid().replace("[\"fixed_window\"]", "\"all\""), {"\"algorithms\"", "a string"});
        row("algorithms unknown", valid().replace("[\"fixed_window\"]", "[\"gcra\", \"nope\"]"),
            {"\"algorithms\"", "'nope'", "token_bucket"});
        row("algorithms empty", valid().replace("[\"fixed_window\"]", "[]"), {"\"algorithms\"", "empty"});
        row("algorithms number", valid().replace("[\"fixed_window\"]", "[1]"), {"\"algorithms[0]\""});
        row("pattern a string", valid().replace(R"({"kind": "uniform", "n": 15, "delay": "0.1", "start": "0"})",
                                                          "\"uniform\""),
            {"\"pattern\"", "a string"});
        row("pattern kind unknown", valid().replace("\"uniform\"", "\"zigzag\""), {"pattern.kind", "'zigzag'"});
        row("pattern kind a number", valid().replace("\"uniform\"", "3"), {"pattern.kind", "a number"});
        row("pattern n negative", valid().replace("\"n\": 15", "\"n\": -5"), {"pattern.n", "negative"});
        row("pattern n too many", valid().replace("\"n\": 15", "\"n\": 5000001"), {"pattern.n", "too large"});
        row("pattern delay negative", valid().replace("\"delay\": \"0.1\"", "\"delay\": \"-1\""),
            {"pattern.delay", "negative"});
        row("pattern start a word", valid().replace("\"start\": \"0\"", "\"start\": \"soon\""),
            {"pattern.start", "'soon'"});
        row("pattern size 0", valid().replace("\"n\": 15", "\"n\": 15, \"size\": 0"), {"pattern.size", "at least 1"});
        row("pattern lambda 0", valid().replace("\"n\": 15", "\"n\": 15, \"lambda\": 0"), {"pattern.lambda"});
        row("pattern seed negative", valid().replace("\"n\": 15", "\"n\": 15, \"seed\": -1"), {"pattern.seed"});
        row("pattern seed 2^64", valid().replace("\"n\": 15", "\"n\": 15, \"seed\": \"18446744073709551616\""),
            {"pattern.seed", "at most 18446744073709551615"});
        // 3 requests 5 * 10^9 s apart end at 10^10 s, past the 2^63 ns (about 292 years) of Nanos.
        row("pattern beyond 292 years", valid().replace("\"delay\": \"0.1\"", "\"delay\": \"5e9\"").replace("15", "3"),
            {"\"pattern\"", "292 years"});
        // The edge pattern sends 2 * limit requests: 6,000,000 is more than a scenario may hold.
        row("edge pattern too large",
            valid().replace("\"uniform\"", "\"edge\"").replace("\"limit\": 10", "\"limit\": 3000000"),
            {"\"pattern\"", "at most 5000000"});
        row("arrivals an object", valid(R"("arrivals": {})"), {"\"arrivals\"", "an object"});
        row("arrivals a word", valid(R"("arrivals": ["1", "abc"])"), {"arrivals[1]", "'abc'"});
        row("arrivals negative", valid(R"("arrivals": ["-1"])"), {"arrivals[0]", "negative"});
        row("arrivals backwards", valid(R"("arrivals": ["1", "0.5"])"), {"arrivals[1]", "earlier"});
        row("arrivals true", valid(R"("arrivals": [true])"), {"arrivals[0]", "a boolean"});
        row("arrivals too large", valid(R"("arrivals": ["1e10"])"), {"arrivals[0]", "too large"});
        row("added a word", valid(R"("added": ["x"])"), {"added[0]", "'x'"});
        row("title a number", valid(R"("title": 5)"), {"\"title\"", "a number"});
        row("lesson null", valid(R"("lesson": null)"), {"\"lesson\"", "null"});
        row("cost 0", valid(R"("cost": 0)"), {"\"cost\"", "at least 1"});
        row("costs without arrivals", valid(R"("costs": [1])"), {"\"costs\"", "no \"arrivals\""});
        row("costs one short", valid(R"("arrivals": ["0", "1"], "costs": [2])"), {"\"costs\"", "one each"});
        row("costs a word", valid(R"("arrivals": ["0"], "costs": ["x"])"), {"costs[0]", "'x'"});
        row("nginx burst negative", valid(R"("nginx": {"burst": -1})"), {"nginx.burst"});
        // A gate or throttle spec is read with the file: a bad key is refused there, naming the field.
        row("concurrency bad key", valid(R"("server": "workers=2", "concurrency": ["none", "fixed:limt=2"])"),
            {"\"concurrency\"", "unknown key 'limt' for fixed"});
        row("throttle bad kind", valid(R"("throttle": "bottle")"), {"\"throttle\"", "unknown client throttle 'bottle'"});
        row("layered gate bad value", valid(R"("server": "workers=2", "layered_gate": "aimd:backoff_ratio=2")"),
            {"\"layered_gate\"", "backoff_ratio"});
        row("nginx nodelay a string", valid(R"("nginx": {"nodelay": "yes"})"), {"nginx.nodelay", "a string"});
        row("nginx nodelay and delay", valid(R"("nginx": {"nodelay": true, "delay": 2})"), {"\"nginx\"", "choose one"});
        row("layer unknown key", valid(R"("layers": ["token_bucket:size=3"])"), {"layers[0]", "'size'"});
        row("layer unknown algorithm", valid(R"("layers": ["bucket"])"), {"layers[0]", "'bucket'"});
        row("layers a string", valid(R"("layers": "token_bucket")"), {"\"layers\"", "a string"});
        row("cluster 65 nodes", valid(R"("cluster": {"nodes": 65})"), {"cluster.nodes", "64"});
        row("cluster coordination unknown", valid(R"("cluster": {"coordination": "magic"})"), {"cluster.coordination", "'magic'"});
        row("cluster sync without hybrid", valid(R"("cluster": {"coordination": "shared", "sync": "1"})"),
            {"\"cluster\"", "sync"});
        row("cluster hybrid without sync", valid(R"("cluster": {"coordination": "hybrid"})"), {"\"cluster\"", "sync"});
        row("clients 0", valid(R"("clients": {"clients": 0})"), {"clients.clients", "at least 1"});
        row("clients retry unknown", valid(R"("clients": {"retry": "sometimes"})"), {"clients.retry", "'sometimes'"});
        row("client_of past the clients", valid(R"("arrivals": ["0"], "clients": {"clients": 2}, "client_of": [2])"),
            {"client_of[0]", "at most 1"});
    }

    // Every combination runs on the one engine: a file with a cluster, clients and a cost keeps all three.
    void combinationsLoad()
    {
        const LoadResult r = parseScenario(R"({"format": "ratelab-scenario", "version": 1, "limit": 10, "window": "10",
            "cost": 2, "cluster": {"nodes": 2, "coordination": "local"}, "clients": {"clients": 3}})");
        QVERIFY2(r.scenario, qPrintable(r.error));
        QCOMPARE(r.scenario->cost, 2);
        QCOMPARE(r.scenario->cluster->nodes(), 2);
        QCOMPARE(r.scenario->cluster->coordination(), Coordination::Local);
        QCOMPARE(r.scenario->clients->clients(), 3);
    }

    // "playback": the app's classroom pace, exact, written back only when set, and
    // refused unless a positive time.
    void playbackRoundTrips()
    {
        const LoadResult r = parseScenario(valid(R"("playback": "12.5")"));
        QVERIFY2(r.scenario, qPrintable(r.error));
        QCOMPARE(r.scenario->playbackNanos, Nanos(12'500'000'000));
        const LoadResult again = parseScenario(serializeScenario(*r.scenario));
        QVERIFY2(again.scenario, qPrintable(again.error));
        QVERIFY(*again.scenario == *r.scenario);
        QVERIFY(!serializeScenario(Scenario{}).contains("playback"));
        const LoadResult zero = parseScenario(valid(R"("playback": 0)"));
        QVERIFY(!zero.scenario);
        QVERIFY2(zero.error.contains("playback"), qPrintable(zero.error));
    }

    // "buckets_start": "empty" reads and writes back; "full" is the default and is
    // not written; anything else is refused with the key and the value.
    void bucketsStartRoundTrips()
    {
        const LoadResult r = parseScenario(valid(R"("buckets_start": "empty")"));
        QVERIFY2(r.scenario, qPrintable(r.error));
        QVERIFY(r.scenario->bucketsStartEmpty);
        const LoadResult again = parseScenario(serializeScenario(*r.scenario));
        QVERIFY2(again.scenario, qPrintable(again.error));
        QVERIFY(*again.scenario == *r.scenario);
        const LoadResult full = parseScenario(valid(R"("buckets_start": "full")"));
        QVERIFY(full.scenario && !full.scenario->bucketsStartEmpty);
        QVERIFY(!serializeScenario(*full.scenario).contains("buckets_start"));
        const LoadResult bad = parseScenario(valid(R"("buckets_start": "half")"));
        QVERIFY(!bad.scenario);
        QVERIFY2(bad.error.contains("buckets_start") && bad.error.contains("half"), qPrintable(bad.error));
    }

    // "changes": each "T:limit=L,capacity=C,rate=R" reads and writes back as given;
    // a bad one is refused with the key and the reason.
    void changesRoundTrip()
    {
        const LoadResult r = parseScenario(valid(R"("changes": ["10:limit=20", "12.5:capacity=3,rate=3/7"])"));
        QVERIFY2(r.scenario, qPrintable(r.error));
        QCOMPARE(r.scenario->changes.size(), std::size_t(2));
        QCOMPARE(r.scenario->changes[1].at, Nanos(12'500'000'000));
        QCOMPARE(r.scenario->changes[1].rate->perNanos, Nanos(7'000'000'000));
        const QByteArray written = serializeScenario(*r.scenario);
        QVERIFY2(written.contains(R"("changes": ["10:limit=20", "12.5:capacity=3,rate=3/7"])"), written.constData());
        const LoadResult again = parseScenario(written);
        QVERIFY2(again.scenario, qPrintable(again.error));
        QVERIFY(*again.scenario == *r.scenario);
        QVERIFY(!serializeScenario(Scenario{}).contains("changes"));
        const LoadResult bad = parseScenario(valid(R"("changes": ["10:window=3"])"));
        QVERIFY(!bad.scenario);
        QVERIFY2(bad.error.contains("changes") && bad.error.contains("window"), qPrintable(bad.error));
    }

    // "clients.cohorts" read and write back as given, and hold every client.
    void cohortsRoundTrip()
    {
        const LoadResult r = parseScenario(valid(
            R"("clients": {"clients": 10, "key": "global", "cohorts": ["9:retry_after", "1:immediate:retry_delay=0.1,max_retries=20"]})"));
        QVERIFY2(r.scenario, qPrintable(r.error));
        const ClientOptions& o = r.scenario->clients->options();
        QCOMPARE(o.cohorts.size(), std::size_t(2));
        QCOMPARE(o.cohorts[1].maxRetries, std::int64_t(20));
        QCOMPARE(r.scenario->clients->policyOf(9).retry, RetryPolicy::Immediate);
        const QByteArray written = serializeScenario(*r.scenario);
        QVERIFY2(written.contains(R"("cohorts": ["9:retry_after", "1:immediate:retry_delay=0.1,max_retries=20"])"),
                 written.constData());
        const LoadResult again = parseScenario(written);
        QVERIFY2(again.scenario, qPrintable(again.error));
        QVERIFY(*again.scenario == *r.scenario);
        const LoadResult short_ = parseScenario(valid(R"("clients": {"clients": 11, "cohorts": ["9:retry_after"]})"));
        QVERIFY(!short_.scenario);
        QVERIFY2(short_.error.contains("the cohorts hold 9 clients, but there are 11"), qPrintable(short_.error));
    }

    // "cluster.autoscale" reads and writes back; its max must be the nodes.
    void autoscaleRoundTrip()
    {
        const LoadResult r = parseScenario(valid(
            R"("cluster": {"nodes": 4, "coordination": "local", "autoscale": {"min": 1, "max": 4, "scale_at": "2.5"}})"));
        QVERIFY2(r.scenario, qPrintable(r.error));
        QVERIFY(r.scenario->cluster->hasAutoscale());
        QCOMPARE(r.scenario->cluster->options().scaleAt, Rate::reduced(5, 2 * kNanosPerSecond));
        const LoadResult again = parseScenario(serializeScenario(*r.scenario));
        QVERIFY2(again.scenario, qPrintable(again.error));
        QVERIFY(*again.scenario == *r.scenario);
        const LoadResult bad = parseScenario(valid(R"("cluster": {"nodes": 3, "autoscale": {"min": 1, "max": 4}})"));
        QVERIFY(!bad.scenario);
        QVERIFY2(bad.error.contains("autoscale up to 4 nodes needs nodes 4"), qPrintable(bad.error));
    }

    // A JSON number a double cannot hold is refused, never run rounded; as a string it is exact.
    void numbersStayExact()
    {
        const LoadResult rounded = parseScenario(valid(R"("arrivals": [9000000000.123456789])"));
        QVERIFY(!rounded.scenario);
        QVERIFY2(rounded.error.contains("9000000000.123456789") && rounded.error.contains("as a string"),
                 qPrintable(rounded.error));
        const LoadResult exact = parseScenario(valid(R"("arrivals": ["9000000000.123456789"])"));
        QVERIFY2(exact.scenario, qPrintable(exact.error));
        QCOMPARE(exact.scenario->explicitArrivals->front(), Nanos(9'000'000'000'123'456'789));
        QVERIFY(parseScenario(valid(R"("arrivals": [2.5e-3, 0.1])")).scenario); // short decimals are fine
    }

    void brokenInputIsRefused()
    {
        QFETCH(QByteArray, json);
        QFETCH(QStringList, mentions);
        const LoadResult r = parseScenario(json);
        QVERIFY2(!r.scenario, json);
        QVERIFY(!r.error.isEmpty());
        QVERIFY2(!r.error.contains('\n'), qPrintable(r.error)); // one line, fit for a status bar
        QCOMPARE(r.notes, QStringList());
        for (const QString& m : mentions)
            QVERIFY2(r.error.contains(m), qPrintable("'" + m + "' not in: " + r.error));
    }

    void explicitArrivalsAreCapped()
    {
        // kMaxArrivals + 1 times are refused before any is parsed; kMaxArrivals pattern requests
        // plus one sent by hand are too many in all.
        QByteArray many = valid(R"("arrivals": [0)");
        many.chop(1);
        many.reserve(many.size() + 2 * (kMaxArrivals + 1));
        for (std::int64_t i = 0; i < kMaxArrivals; ++i)
            many += ",0";
        many += "]}";
        const LoadResult r = parseScenario(many);
        QVERIFY(!r.scenario);
        QVERIFY2(r.error.contains("\"arrivals\"") && r.error.contains("5000001") && r.error.contains("5000000"),
                 qPrintable(r.error));

        const LoadResult total =
            parseScenario(valid(R"("added": ["1"])").replace("\"n\": 15", "\"n\": 5000000").replace("0.1", "0"));
        QVERIFY(!total.scenario);
        QVERIFY2(total.error.contains("\"added\"") && total.error.contains("5000001"), qPrintable(total.error));
    }

    void aBrokenFileLeavesTheCurrentScenario()
    {
        QTemporaryDir dir;
        Scenario current;
        current.config = LimiterConfig::make(3, 7 * kSecond);
        current.title = "current work";
        const Scenario before = current;
        const QByteArray newer = R"({"format": "ratelab-scenario", "version": 2, "limit": 5})";
        const QString path = dir.filePath("newer.ratelab.json");
        QVERIFY(writeAll(path, newer));
        // The caller's pattern: take the scenario only when one was loaded.
        const LoadResult r = loadScenarioFile(path);
        if (r.scenario)
            current = *r.scenario;
        QVERIFY(!r.scenario);
        QVERIFY(current == before);
        QVERIFY2(r.error.startsWith(path + ": "), qPrintable(r.error)); // errors name the file
        QVERIFY(r.error.contains("version 2"));
        QCOMPARE(readAll(path), newer); // and reading never touches the file

        const LoadResult missing = loadScenarioFile(dir.filePath("nope.ratelab.json"));
        QVERIFY(!missing.scenario);
        QVERIFY2(missing.error.contains(dir.filePath("nope.ratelab.json")), qPrintable(missing.error));
        const LoadResult folder = loadScenarioFile(dir.path());
        QVERIFY(!folder.scenario);
        QVERIFY2(folder.error.contains(dir.path()), qPrintable(folder.error));
    }

    void aFailedSaveKeepsTheOldFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("kept.ratelab.json");
        Scenario old;
        old.title = "old";
        QCOMPARE(saveScenario(old, path), QString());
        const QByteArray oldBytes = readAll(path);

        // A scenario too large for the file-size limit set below: the write fails part-way.
        Scenario big;
        big.explicitArrivals = std::vector<Nanos>(20'000);
        for (std::size_t i = 0; i < big.explicitArrivals->size(); ++i)
            (*big.explicitArrivals)[i] = Nanos(i) * 123'456'789;
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN); // EFBIG instead of being killed
        rlimit small = saved;
        small.rlim_cur = 4096;
        QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
        const QString error = saveScenario(big, path);
        setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, oldHandler);
        QVERIFY2(!error.isEmpty(), "the save should have failed");
        QVERIFY2(error.contains(path), qPrintable(error));
        QCOMPARE(readAll(path), oldBytes); // the old file, whole
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"kept.ratelab.json"}); // no leftovers
        QVERIFY(parseScenario(oldBytes).scenario->title == "old");

        // A folder that does not exist: refused, naming the path.
        const QString nowhere = dir.filePath("no/such/folder/x.ratelab.json");
        const QString e2 = saveScenario(old, nowhere);
        QVERIFY2(!e2.isEmpty() && e2.contains(nowhere), qPrintable(e2));
        QVERIFY(!QFile::exists(nowhere));

        if (::geteuid() != 0) { // root writes anywhere; for anyone else a read-only folder refuses
            QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::ExeOwner);
            const QString e3 = saveScenario(big, path);
            QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            QVERIFY(!e3.isEmpty());
            QCOMPARE(readAll(path), oldBytes);
        }
    }

    void mutatedInputNeverCrashes()
    {
        // A cheap in-process fuzz: flips, cuts and splices of a valid file must each give either a
        // scenario or a one-line error, never both, never a crash or a throw.
        Scenario s;
        s.explicitArrivals = std::vector<Nanos>{0, 1, kSecond, 3 * kSecond};
        s.addedArrivals = {2};
        s.config = LimiterConfig::make(3, 7 * kSecond);
        const QByteArray base = serializeScenario(s) + valid();
        const QByteArray alphabet = "{}[]\",:0123456789.-e/ \nabc\\";
        QRandomGenerator rng(20240611);
        int accepted = 0;
        for (int i = 0; i < 3000; ++i) {
            QByteArray m = serializeScenario(s);
            const int edits = 1 + int(rng.bounded(4));
            for (int e = 0; e < edits && !m.isEmpty(); ++e) {
                const int at = int(rng.bounded(m.size()));
                switch (rng.bounded(4)) {
                case 0: m[at] = alphabet[int(rng.bounded(alphabet.size()))]; break;
                case 1: m.truncate(at); break;
                case 2: m.insert(at, base.mid(int(rng.bounded(base.size())), int(rng.bounded(12)))); break;
                default: m.remove(at, int(rng.bounded(8))); break;
                }
            }
            const LoadResult r = parseScenario(m);
            QVERIFY(r.scenario.has_value() != !r.error.isEmpty());
            QVERIFY(!r.error.contains('\n'));
            if (r.scenario) {
                ++accepted;
                (void)resolveArrivals(*r.scenario); // whatever is accepted can be simulated
            }
        }
        QVERIFY(accepted > 0);
    }
};

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "tst_scenariofile.moc"
