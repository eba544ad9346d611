// advise for Kong's rate-limiting (core/advise/kong_advice.h): each window's least limit worked
// out by hand on the shared log, why a denied request counted in no window matters, a seeded
// property against a brute-force search on the Kong model itself, and the written decK file read
// back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/kong_advice.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

using advisetest::smallLog;

constexpr Nanos kMs = 1'000'000;
constexpr int kSecond = 0, kMinute = 1, kHour = 2, kDay = 3;
// kMidnight: advise_log.h's first request, 2026-11-23T00:00:00Z: every window starts there.
constexpr Nanos kMidnight = 1'795'392'000 * kNanosPerSecond;

KongLimits only(int period, std::int64_t limit)
{
    KongLimits out{};
    out[std::size_t(period)] = limit;
    return out;
}

// randomTimes is 1 to 30 requests, in order, with gaps from none to over an hour (so that
// windows of a second, a minute and an hour all split it somewhere).
std::vector<Nanos> randomTimes(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 30)(rng);
    const Nanos gaps[] = {0, 0, 1, 300 * kMs, 999 * kMs, 1000 * kMs, 7000 * kMs, 59'000 * kMs, 61'000 * kMs, 3'600'000 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, 3'599'999 * kMs)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 9)(rng)];
        out.push_back(t);
    }
    return out;
}

// randomCosts is costs 1 to 3 for a third of the traces, else none (each costs 1).
std::vector<std::int64_t> randomCosts(std::mt19937_64& rng, std::size_t n)
{
    std::vector<std::int64_t> out;
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0)
        for (std::size_t i = 0; i < n; ++i)
            out.push_back(std::uniform_int_distribution<std::int64_t>(1, 3)(rng));
    return out;
}

// bruteLeast is the least limit of one period at which the Kong model denies none of the trace,
// tried from 1 upwards.
std::int64_t bruteLeast(KeyTrace trace, int period, Nanos clock)
{
    for (std::int64_t limit = 1;; ++limit)
        if (kongDenied(trace, only(period, limit), clock) == 0)
            return limit;
}

} // namespace

class TestKongAdvice : public QObject {
    Q_OBJECT
private slots:
    // advise_log.h's keys, on the log's clock (its first request at 0 s): 1.1.1.1 has 3 at 0 ms
    // and 1 at 500 ms in the second [0, 1), 1 at 1000 ms in [1, 2): 4 in a second at most, all 5
    // in one minute, hour and day. 2.2.2.2: 1 everywhere; 3.3.3.3's ten at 0 ms: 10 everywhere.
    void windowsByHand()
    {
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        const std::int64_t expected[3][4] = {{4, 5, 5, 5}, {1, 1, 1, 1}, {10, 10, 10, 10}};
        const KeyTrace keys[] = {a, b, c};
        for (int k = 0; k < 3; ++k)
            for (int p = kSecond; p <= kDay; ++p)
                QCOMPARE(kongWindowMost(keys[k], p, kMidnight), expected[k][p]);
        // Costs count, not requests: 2 + 3 in the second [0, 1), 4 in [1, 2).
        const std::vector<Nanos> times{0, 900 * kMs, 1000 * kMs};
        const std::vector<std::int64_t> costs{2, 3, 4};
        QCOMPARE(kongWindowMost(KeyTrace{times, costs}, kSecond, 0), 5);
        QCOMPARE(kongWindowMost(KeyTrace{times, costs}, kMinute, 0), 9);
    }

    // A denied request is counted in no window (handler.lua returns the 429 before the increment),
    // which shows with two limits: second 1, minute 3, requests at 0, 0, 1, 2 and 3 s. The first
    // passes (second 1, minute 1); the second is denied by the second's limit and not counted; at
    // 1 s and 2 s each passes (minute 2, then 3); at 3 s the minute is full: 2 denied. Were the
    // denied one counted, the minute would be full after 1 s and 3 would be denied.
    void aDeniedRequestIsNotCounted()
    {
        const std::vector<Nanos> times{0, 0, 1000 * kMs, 2000 * kMs, 3000 * kMs};
        KongLimits limits{};
        limits[kSecond] = 1;
        limits[kMinute] = 3;
        QCOMPARE(kongDenied(KeyTrace{times, {}}, limits, 0), 2);
    }

    // --keep 50 of 1, 5, 10 requests: rank ceil(0.5 * 3) = 2, so 1.1.1.1 and 2.2.2.2 are kept (at
    // most 5). Their least: second 4, minute 5, hour 5, day 5 (windowsByHand). Alone, each denies
    // 3.3.3.3's ten at once all beyond its limit (a denied request counts nowhere, so the window
    // stays at the limit): 6 at a second of 4, 5 at a minute, an hour or a day of 5. Recommended:
    // minute 5 and, below it, second 4: 3.3.3.3 loses 6.
    void theAdviceByHand()
    {
        const KongAdvice k = adviseKong(keyedTraces(smallLog()), kPercentUnit / 2);
        QCOMPARE(k.keys.keptKeys, 2);
        QCOMPARE(k.keys.keptMost, 5);
        const std::int64_t limits[] = {4, 5, 5, 5}, denied[] = {6, 5, 5, 5};
        QCOMPARE(k.windows.size(), std::size_t(4));
        for (int p = kSecond; p <= kDay; ++p) {
            QCOMPARE(k.windows[std::size_t(p)].limits, only(p, limits[p]));
            QCOMPARE(k.windows[std::size_t(p)].denied.kept, 0);
            QCOMPARE(k.windows[std::size_t(p)].denied.other, denied[p]);
            QCOMPARE(k.windows[std::size_t(p)].denied.keys, 1);
        }
        KongLimits both{};
        both[kSecond] = 4;
        both[kMinute] = 5;
        QCOMPARE(k.recommended.limits, both);
        QCOMPARE(k.recommended.denied.other, 6);
        QCOMPARE(k.deniedPerKey, (std::vector<std::int64_t>{0, 0, 6}));
        // Every key kept: 3.3.3.3 needs 10 in a second and in a minute. A second's cap of 10 under
        // a minute of 10 never binds, so only the minute is written, and nothing is denied.
        const KongAdvice all = adviseKong(keyedTraces(smallLog()), kPercentUnit);
        QCOMPARE(all.recommended.limits, only(kMinute, 10));
        QCOMPARE(all.deniedPerKey, (std::vector<std::int64_t>{0, 0, 0}));
    }

    // Kong's windows are the clock's, not the log's: a log whose first request is at 12:00:59.500
    // and second at 12:01:00.200 has them 0.7 s apart, in one second from the log's start, but in
    // two seconds (and two minutes) of the clock. So one a second admits both, as the dry run
    // replays the file: nothing denied.
    void theWindowsAreTheClocks()
    {
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        const Traffic traffic = parseTraffic("time,ip,path\n1795435259.500,1.1.1.1,/\n1795435260.200,1.1.1.1,/\n", o, "c.csv");
        QCOMPARE(traffic.startEpochNanos, 1'795'435'259'500 * kMs);
        const KeyedTraces traces = keyedTraces(traffic);
        QCOMPARE(kongWindowMost(traces.trace(0), kSecond, traffic.startEpochNanos), 1);
        QCOMPARE(kongWindowMost(traces.trace(0), kMinute, traffic.startEpochNanos), 1);
        QCOMPARE(kongWindowMost(traces.trace(0), kHour, traffic.startEpochNanos), 2);
        QCOMPARE(kongWindowMost(traces.trace(0), kSecond, 0), 2); // counted from the log's start
        // The advice reads that clock from the traces: a second's and a minute's least are 1.
        const KongAdvice k = adviseKong(traces, kPercentUnit);
        QCOMPARE(k.windows[std::size_t(kSecond)].limits, only(kSecond, 1));
        QCOMPARE(k.windows[std::size_t(kMinute)].limits, only(kMinute, 1));
        QCOMPARE(k.windows[std::size_t(kHour)].limits, only(kHour, 2));
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(kongAdviceConfig(only(kSecond, 1),
                                                                                              *kongLimitBy("ip"))), "ip");
        bindKeyFields(parsed, traffic);
        QCOMPARE(dryRun(traffic, parsed).rules[0].deniedPerKey, (std::vector<std::int64_t>{0}));
    }

    // Property: on random traces each period's least limit is the brute-force least on the Kong
    // model, and every higher limit admits all as well (what makes the least the answer); two
    // periods together admit all iff each admits all alone.
    void leastIsTheBruteForceLeastAndMonotone()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTimes(rng);
            const std::vector<std::int64_t> costs = randomCosts(rng, times.size());
            const KeyTrace trace{times, costs};
            const Nanos clock = kMidnight + std::uniform_int_distribution<Nanos>(0, 86'400'000)(rng) * kMs;
            const QString where = QString("seed %1").arg(seed);
            std::int64_t least[3] = {};
            for (int p : {kSecond, kMinute, kHour}) {
                least[p] = kongWindowMost(trace, p, clock);
                QVERIFY2(least[p] == bruteLeast(trace, p, clock), qPrintable(where));
                for (std::int64_t above = 1; above <= 3; ++above)
                    QVERIFY2(kongDenied(trace, only(p, least[p] + above), clock) == 0, qPrintable(where));
            }
            for (std::int64_t s = std::max<std::int64_t>(1, least[kSecond] - 1); s <= least[kSecond] + 1; ++s)
                for (std::int64_t m = std::max<std::int64_t>(1, least[kMinute] - 1); m <= least[kMinute] + 1; ++m) {
                    KongLimits both{};
                    both[kSecond] = s;
                    both[kMinute] = m;
                    const bool admitsAll = s >= least[kSecond] && m >= least[kMinute];
                    QVERIFY2((kongDenied(trace, both, clock) == 0) == admitsAll, qPrintable(where));
                }
        }
    }

    // How the plugin is keyed: the address, the consumer (the log's user, with basic-auth to set
    // it), a header; Kong has no limit_by for a host.
    void limitBy()
    {
        QCOMPARE(kongLimitBy("ip")->lines, std::string("    limit_by: ip\n"));
        QVERIFY(!kongLimitBy("ip")->consumer);
        QCOMPARE(kongLimitBy("user")->lines, std::string("    limit_by: consumer\n"));
        QVERIFY(kongLimitBy("user")->consumer);
        QCOMPARE(kongLimitBy("http_x_api_key")->lines, std::string("    limit_by: header\n    header_name: x-api-key\n"));
        QVERIFY(!kongLimitBy("host"));
        QVERIFY(!kongLimitBy("http_"));
    }

    // The written file: its text; `import` reads back Kong with second 4 and minute 5; the dry run
    // denies what the advice says, key by key: 3.3.3.3's 6 (theAdviceByHand).
    void theWrittenFileReadsBack()
    {
        KongLimits limits{};
        limits[kSecond] = 4;
        limits[kMinute] = 5;
        const std::string config = kongAdviceConfig(limits, *kongLimitBy("ip"));
        QCOMPARE(config, std::string("_format_version: \"3.0\"\nservices:\n- name: ratelab-upstream\n"
                                     "  url: http://upstream.invalid\n  routes:\n  - name: ratelab-every-path\n"
                                     "    paths:\n    - /\nplugins:\n- name: rate-limiting\n  config:\n"
                                     "    second: 4\n    minute: 5\n    policy: local\n    limit_by: ip\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Kong rate-limiting"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::Kong});
        AnyLimiter read = makeLimiter(Algorithm::Kong, imported.scenario.config);
        QCOMPARE(std::get<Kong>(read).limits(), limits);
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        QCOMPARE(parsed.notReplayed.size(), std::size_t(0));
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].requests, 16);
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 6}));
    }

    // By consumer: basic-auth before the limit, so the dry run keys by the log's user and a
    // request without one meets no limit (basic-auth answers 401). u1 sends 3 in a second, u2 1,
    // and one request has no user: at second 2 u1 loses 1, of 4 limited requests.
    void theConsumerFileReadsBack()
    {
        const std::string config = kongAdviceConfig(only(kSecond, 2), *kongLimitBy("user"));
        QVERIFY(config.find("plugins:\n- name: basic-auth\n- name: rate-limiting\n") != std::string::npos);
        QVERIFY(config.ends_with("    policy: local\n    limit_by: consumer\n"));
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        o.key = "user";
        const Traffic traffic = parseTraffic("time,user,path\n1.0,u1,/\n1.0,u1,/\n1.0,-,/\n1.0,u2,/\n1.5,u1,/\n", o, "u.csv");
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "user");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules[0].requests, 4);
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{1, 0, 0}));
    }
};

QTEST_GUILESS_MAIN(TestKongAdvice)
#include "tst_advise_kong.moc"
