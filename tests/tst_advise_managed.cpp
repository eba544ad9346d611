// advise for Cloudflare's rate limiting rule and AWS WAF's rate-based rule
// (core/advise/managed_advice.h): each offered window's least limit worked out by hand, the
// sliding estimate and WAF's delayed verdicts where they make the least differ from a window's
// count, seeded properties against a brute-force search on each product's model, and the
// written rules read back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/managed_advice.h"
#include "advise/window_gateway.h"
#include "advise/window_goals.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/aws_waf.h"
#include "limiters/products/cloudflare.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

using advisetest::smallLog;

constexpr Nanos kS = kNanosPerSecond;

// wafLog: a (1 request at 0 s), b (12 at 0 s, 1 at 45 s, 1 at 100 s), c (30 at 0 s, 1 at 45 s, 1 at 50 s).
Traffic wafLog()
{
    std::string csv = "time,ip,path\n1795392000,a,/\n";
    for (int i = 0; i < 12; ++i)
        csv += "1795392000,b,/\n";
    for (int i = 0; i < 30; ++i)
        csv += "1795392000,c,/\n";
    csv += "1795392045,b,/\n1795392045,c,/\n1795392050,c,/\n1795392100,b,/\n";
    TrafficOptions o;
    o.format = LogFormat::Csv;
    o.keepPaths = true;
    return parseTraffic(csv, o, "waf.csv");
}

// randomTrace is 1 to 40 requests, in order, with gaps from none to over a few minutes, and
// costs 1 to 3 for a third of the traces.
std::pair<std::vector<Nanos>, std::vector<std::int64_t>> randomTrace(std::mt19937_64& rng)
{
    std::vector<Nanos> times;
    std::vector<std::int64_t> costs;
    const auto n = std::uniform_int_distribution<int>(1, 40)(rng);
    const Nanos gaps[] = {0, 0, 1, kS / 3, kS, 5 * kS, 10 * kS, 29 * kS, 30 * kS, 61 * kS, 200 * kS};
    // Half start on a whole 10 s, so that requests fall on WAF's checks and Cloudflare's periods' edges.
    Nanos t = std::uniform_int_distribution<Nanos>(0, 60'000)(rng) * 1'000'000;
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 0)
        t = t / (10 * kS) * (10 * kS);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 10)(rng)];
        times.push_back(t);
    }
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0)
        for (int i = 0; i < n; ++i)
            costs.push_back(std::uniform_int_distribution<std::int64_t>(1, 3)(rng));
    return {times, costs};
}

// dryRunDenials runs the written text as `replay --config` does, on the log by ip.
std::vector<std::int64_t> dryRunDenials(const std::string& config, const Traffic& traffic, std::int64_t requests)
{
    DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
    bindKeyFields(parsed, traffic);
    if (!dryRunRefusal(parsed).empty() || !parsed.notReplayed.empty())
        return {-1};
    const DryRunResult r = dryRun(traffic, parsed);
    if (r.rules.size() != 1 || r.rules[0].requests != requests)
        return {-2};
    return r.rules[0].deniedPerKey;
}

} // namespace

class TestManagedAdvice : public QObject {
    Q_OBJECT
private slots:
    // advise_log.h's keys all fall in the first period of every length (the last at 1 s), where
    // the previous period is empty: a request needs the count so far plus itself. 1.1.1.1: 5,
    // 2.2.2.2: 1, 3.3.3.3: 10. The sliding estimate: 4 at 5 s (period [0, 10)), then at 12 s
    // (e = 2 s) 4 * 8 / 10 = 3.2 of the last period weigh in, so it needs 0 + 1 + ceil(3.2) = 5;
    // at 15 s 1 + 1 + ceil(4 * 5 / 10) = 4, at 19 s 2 + 1 + ceil(0.4) = 4: least 5, where no
    // period holds more than 4. At 4 the 12 s request is over (4 * 8 + 1 * 10 = 42 > 40): it and,
    // in the 10 s of blocking that follow, 15 s and 19 s are denied: 3.
    void cloudflareByHand()
    {
        const KeyedTraces traces = keyedTraces(smallLog());
        for (std::int64_t period : kCloudflarePeriods) {
            QCOMPARE(cloudflareLeast(traces.trace(0), period), 5);
            QCOMPARE(cloudflareLeast(traces.trace(1), period), 1);
            QCOMPARE(cloudflareLeast(traces.trace(2), period), 10);
        }
        const std::vector<Nanos> times{5 * kS, 5 * kS, 5 * kS, 5 * kS, 12 * kS, 15 * kS, 19 * kS};
        const KeyTrace sliding{times, {}};
        QCOMPARE(cloudflareLeast(sliding, 10), 5);
        QCOMPARE(cloudflareDenied(sliding, 10, 5), 0);
        QCOMPARE(cloudflareDenied(sliding, 10, 4), 3);
        // Costs count: 2 and 3 at 0 s need 2, then 5.
        const std::vector<Nanos> two{0, 0};
        const std::vector<std::int64_t> costs{2, 3};
        QCOMPARE(cloudflareLeast(KeyTrace{two, costs}, 60), 5);
    }

    // --keep 50 of 1, 5, 10 requests keeps 1.1.1.1 and 2.2.2.2 (at most 5): least 5 in every
    // period. 3.3.3.3's ten at 0 s: five pass, the sixth is over and blocks it for the period
    // (mitigation_timeout = period), so the last four are denied too: 5. Recommended: a minute.
    void cloudflareAdviceByHand()
    {
        const WindowAdvice a = adviseCloudflare(keyedTraces(smallLog()), kPercentUnit / 2);
        QCOMPARE(a.keys.keptKeys, 2);
        QCOMPARE(a.windows.size(), std::size_t(6));
        for (std::size_t w = 0; w < 6; ++w) {
            QCOMPARE(a.windows[w].window, kCloudflarePeriods[w]);
            QCOMPARE(a.windows[w].least, 5);
            QCOMPARE(a.windows[w].limit, 5);
            QCOMPARE(a.windows[w].denied.kept, 0);
            QCOMPARE(a.windows[w].denied.other, 5);
            QCOMPARE(a.windows[w].denied.keys, 1);
        }
        QCOMPARE(a.recommended().window, 60);
        QCOMPARE(a.deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
        const WindowAdvice all = adviseCloudflare(keyedTraces(smallLog()), kPercentUnit);
        QCOMPARE(all.recommended().limit, 10);
        QCOMPARE(all.deniedPerKey, (std::vector<std::int64_t>{0, 0, 0}));
    }

    // WAF, checks every 10 s taking effect 30 s later: a request at t meets the check at
    // floor((t - 30) / 10) * 10 once t >= 40 s, which counts [check - window, check). b: the 12
    // at 0 s meet no check; at 45 s the check at 10 counts the 12; at 100 s the check at 70 counts
    // [10, 70) = 1 with a window of 60, [-50, 70) = 13 with 120 and more: most 12, then 13. a
    // meets no check (0). c: at 45 s the check at 10 counts 30, at 50 s the check at 20 counts 30.
    void wafByHand()
    {
        const KeyedTraces traces = keyedTraces(wafLog());
        const std::int64_t b[] = {12, 13, 13, 13};
        for (std::size_t w = 0; w < 4; ++w) {
            QCOMPARE(wafMostCount(traces.trace(0), kWafWindows[w]), 0);
            QCOMPARE(wafMostCount(traces.trace(1), kWafWindows[w]), b[w]);
            QCOMPARE(wafMostCount(traces.trace(2), kWafWindows[w]), 30);
        }
        // Every request of advise_log.h is in its first second: no check is in force for any.
        QCOMPARE(wafMostCount(keyedTraces(smallLog()).trace(2), 300), 0);
        // A check counts the requests before it: eleven at 10 s are the check at 20's, not the
        // check at 10's, which a request at 45 s meets (45 - 30 = 15): it counts none.
        const std::vector<Nanos> atCheck{10 * kS, 10 * kS, 10 * kS, 10 * kS, 10 * kS, 10 * kS,
                                         10 * kS, 10 * kS, 10 * kS, 10 * kS, 10 * kS, 45 * kS};
        QCOMPARE(wafMostCount(KeyTrace{atCheck, {}}, 60), 0);
        // The 100 s request is over at 12 with a window of 120 (13 > 12), not at 13.
        QCOMPARE(wafDenied(traces.trace(1), 120, 12), 1);
        QCOMPARE(wafDenied(traces.trace(1), 120, 13), 0);
    }

    // --keep 50 of 1, 14, 32 requests keeps a and b (at most 14): least 12 at 60 s, 13 beyond,
    // each at least AWS's 10 already. c's 45 s and 50 s requests meet checks counting 30: 2
    // denied at every window. On advise_log.h the kept keys need 0, written as 10: 3.3.3.3's ten
    // meet no check, nothing denied.
    void wafAdviceByHand()
    {
        const WindowAdvice a = adviseAwsWaf(keyedTraces(wafLog()), kPercentUnit / 2);
        QCOMPARE(a.keys.keptKeys, 2);
        const std::int64_t least[] = {12, 13, 13, 13};
        QCOMPARE(a.windows.size(), std::size_t(4));
        for (std::size_t w = 0; w < 4; ++w) {
            QCOMPARE(a.windows[w].window, kWafWindows[w]);
            QCOMPARE(a.windows[w].least, least[w]);
            QCOMPARE(a.windows[w].limit, least[w]);
            QCOMPARE(a.windows[w].denied.kept, 0);
            QCOMPARE(a.windows[w].denied.other, 2);
            QCOMPARE(a.windows[w].denied.keys, 1);
        }
        QCOMPARE(a.recommended().window, 300);
        QCOMPARE(a.deniedPerKey, (std::vector<std::int64_t>{0, 0, 2}));
        const WindowAdvice small = adviseAwsWaf(keyedTraces(smallLog()), kPercentUnit / 2);
        QCOMPARE(small.recommended().least, 0);
        QCOMPARE(small.recommended().limit, 10);
        QCOMPARE(small.deniedPerKey, (std::vector<std::int64_t>{0, 0, 0}));
    }

    // Property: on random traces each least is the brute-force least on the model (WAF's from
    // its least Limit, 10), and every higher limit passes all as well.
    void leastIsTheBruteForceLeastAndMonotone()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const auto [times, costs] = randomTrace(rng);
            const KeyTrace trace{times, costs};
            for (std::int64_t period : {10, 60}) {
                const QString where = QString("seed %1 period %2").arg(seed).arg(period);
                const std::int64_t least = cloudflareLeast(trace, period);
                std::int64_t brute = 1;
                while (cloudflareDenied(trace, period, brute) != 0)
                    ++brute;
                QVERIFY2(least == brute, qPrintable(where));
                for (std::int64_t above = 1; above <= 3; ++above)
                    QVERIFY2(cloudflareDenied(trace, period, least + above) == 0, qPrintable(where));
            }
            for (std::int64_t window : {60, 120}) {
                const QString where = QString("seed %1 window %2").arg(seed).arg(window);
                const std::int64_t least = std::max(kWafMinLimit, wafMostCount(trace, window));
                std::int64_t brute = kWafMinLimit;
                while (wafDenied(trace, window, brute) != 0)
                    ++brute;
                QVERIFY2(least == brute, qPrintable(where));
                for (std::int64_t above = 1; above <= 3; ++above)
                    QVERIFY2(wafDenied(trace, window, least + above) == 0, qPrintable(where));
            }
        }
    }

    // The written ruleset: `import` reads back a Cloudflare rule of 5 per 60 s by ip.src, blocking
    // for 60 s; the dry run denies 3.3.3.3's 5 (cloudflareAdviceByHand).
    void theCloudflareRuleReadsBack()
    {
        const std::string config = cloudflareAdviceConfig(60, 5);
        QVERIFY(config.find("\"action\": \"block\"") != std::string::npos);
        QVERIFY(config.find("\"characteristics\": [\"cf.colo.id\", \"ip.src\"]") != std::string::npos);
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Cloudflare rate limiting rule"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::CloudflareRate});
        QVERIFY(imported.notModelled.empty());
        AnyLimiter read = makeLimiter(Algorithm::CloudflareRate, imported.scenario.config);
        const auto& rule = std::get<CloudflareRate>(read);
        QCOMPARE(rule.requestsPerPeriod(), 5);
        QCOMPARE(rule.period(), 60 * kS);
        QCOMPARE(rule.mitigationTimeout(), 60 * kS);
        QCOMPARE(dryRunDenials(config, smallLog(), 16), (std::vector<std::int64_t>{0, 0, 5}));
    }

    // The written WAF rule: `import` reads back Limit 13 over 300 s, action Block; the dry run
    // denies c's 2 (wafAdviceByHand).
    void theWafRuleReadsBack()
    {
        const std::string config = wafAdviceConfig(300, 13);
        QVERIFY(config.find("\"Block\": {}") != std::string::npos);
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("AWS WAF rate-based rule"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::AwsWafRate});
        QVERIFY(imported.notModelled.empty());
        AnyLimiter read = makeLimiter(Algorithm::AwsWafRate, imported.scenario.config);
        const auto& rule = std::get<AwsWafRate>(read);
        QCOMPARE(rule.limit(), 13);
        QCOMPARE(rule.window(), 300 * kS);
        QVERIFY(!rule.counts());
        QCOMPARE(dryRunDenials(config, wafLog(), 47), (std::vector<std::int64_t>{0, 0, 2}));
    }

    // The app's rows (window_gateway.h) are cloudflareAdviceByHand's windows in Cloudflare's words:
    // each period's least limit 5, denying 3.3.3.3 five; a minute recommended; 3.3.3.3 shown.
    void windowGatewayRowsInTheProductsWords()
    {
        const WindowGatewayAdvice a({"cloudflare", "ip", kPercentUnit / 2, "", {}}, smallLog());
        QCOMPARE(a.windowName(), std::string("period"));
        QCOMPARE(a.limitName(), std::string("requests_per_period"));
        QCOMPARE(a.rows().size(), std::size_t(6));
        QCOMPARE(a.rows()[0].window, std::string("10 s"));
        QCOMPARE(a.rows()[5].window, std::string("3600 s"));
        for (const WindowRow& r : a.rows()) {
            QCOMPARE(r.limit, std::string("5"));
            QCOMPARE(r.denied.other, 5);
        }
        QCOMPARE(a.recommended(), std::size_t(1));
        QCOMPARE(a.rows()[1].point, std::string("period 60, requests_per_period 5"));
        QCOMPARE(a.config(1), cloudflareAdviceConfig(60, 5));
        QCOMPARE(a.config(5), cloudflareAdviceConfig(3600, 5));
        QCOMPARE(a.shownKey(1), std::optional<std::size_t>(2)); // 3.3.3.3, denied most
        QCOMPARE(a.keys().keptKeys, 2);
        // WAF's least Limit is 10: every window's limit is written as 10, denying none.
        const WindowGatewayAdvice waf({"aws-waf", "ip", kPercentUnit / 2, "", {}}, smallLog());
        QCOMPARE(waf.rows()[waf.recommended()].point, std::string("EvaluationWindowSec 300, Limit 10"));
        QCOMPARE(waf.rows()[waf.recommended()].denied.other, 0);
        QCOMPARE(waf.shownKey(waf.recommended()), std::optional<std::size_t>(2)); // none denied: the busiest
    }

    // An origin goal among windows (window_goals.h), with rows that let through the first n of
    // each key's requests, on the small log (kept at 60 %: 1.1.1.1's five and 2.2.2.2's one).
    // The busiest second is (-0.5 s, 0.5 s]: first-n of 1.1.1.1's four there (three at 0, one at
    // 500 ms), of 2.2.2.2's one and of 3.3.3.3's ten. Row A lets all through: 4 + 1 + 10 = 15;
    // B (2 each) 2 + 1 + 2 = 5, denying 3 + 0 + 8 = 11; C (3) 3 + 1 + 3 = 7, denying 2 + 7 = 9;
    // D (1) 1 + 1 + 1 = 3, denying 4 + 9 = 13. At most 8: B, C and D meet it and C denies fewest.
    // At most 2: none does, and D's 3 is the fewest named.
    void anOriginGoalTakesTheWindowDenyingFewest()
    {
        const KeyedTraces traces = keyedTraces(smallLog(), "");
        KeptKeys keys;
        keepKeys(traces, kPercentUnit / 100 * 60, keys);
        const auto firstN = [](std::size_t n) {
            return WindowRowModel{[n](KeyTrace t) { return std::int64_t(t.times.size() - std::min(n, t.times.size())); },
                                  [n](KeyTrace t, std::vector<Nanos>& out) {
                                      out.insert(out.end(), t.times.begin(), t.times.begin() + std::ptrdiff_t(std::min(n, t.times.size())));
                                  }};
        };
        const std::vector<WindowRowModel> rows{firstN(100), firstN(2), firstN(3), firstN(1)};
        std::vector<DenialCount> denied;
        for (const WindowRowModel& r : rows)
            denied.push_back(countDenials(traces, keys.kept, r.denied));
        const auto name = [](std::size_t r) { return std::string(1, char('A' + r)); };
        const WindowChoice c = chooseWindow(traces, keys, rows, denied, 0, {{}, OriginGoal{{8, kS}, {}}}, "P", name);
        QCOMPARE(c.origin, (std::vector<std::int64_t>{15, 5, 7, 3}));
        QCOMPARE(c.recommended, std::size_t(2));
        QVERIFY(c.moved);
        QCOMPARE(c.deniedPerKey, (std::vector<std::int64_t>{2, 0, 7}));
        const WindowChoice kept = chooseWindow(traces, keys, rows, denied, 0, {{}, OriginGoal{{15, kS}, {}}}, "P", name);
        QCOMPARE(kept.recommended, std::size_t(0));
        QVERIFY(!kept.moved && kept.deniedPerKey.empty());
        // What no limit sees reaches the origin too: two requests elsewhere at 0 make C's 9.
        const WindowChoice more = chooseWindow(traces, keys, rows, denied, 0, {{}, OriginGoal{{8, kS}, {0, 0}}}, "P", name);
        QCOMPARE(more.origin, (std::vector<std::int64_t>{17, 7, 9, 5}));
        QCOMPARE(more.recommended, std::size_t(1));
        try {
            chooseWindow(traces, keys, rows, denied, 0, {{}, OriginGoal{{2, kS}, {}}}, "P", name);
            QFAIL("no row meets 2 in a second");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()), std::string("--origin: no P window lets every request that must pass through and "
                                                        "at most 2 reach the origin in any 1 s of this log; the fewest any "
                                                        "lets through is 3 (D)"));
        }
    }

    // Two rows that meet the goal alike: the first is taken. And a cap, from each row's windows:
    // a second of 4 under a minute of 5 lets one key through 4 * 2 = 8 in any 1 s (2 seconds
    // meet one), 5 * 2 = 10 in any 60 s; a row of no count has no bound.
    void equalDenialsTakeTheFirstAndACapIsDerived()
    {
        const KeyedTraces traces = keyedTraces(smallLog(), "");
        KeptKeys keys;
        keepKeys(traces, kPercentUnit / 100 * 60, keys);
        const auto firstN = [](std::size_t n, std::vector<std::pair<Nanos, std::int64_t>> counts) {
            return WindowRowModel{[n](KeyTrace t) { return std::int64_t(t.times.size() - std::min(n, t.times.size())); },
                                  [n](KeyTrace t, std::vector<Nanos>& out) {
                                      out.insert(out.end(), t.times.begin(), t.times.begin() + std::ptrdiff_t(std::min(n, t.times.size())));
                                  },
                                  std::move(counts)};
        };
        const std::vector<WindowRowModel> rows{firstN(100, {{kS, 100}}), firstN(2, {{kS, 2}}), firstN(2, {{kS, 2}}),
                                               firstN(2, {{kS, 4}, {60 * kS, 5}})};
        std::vector<DenialCount> denied;
        for (const WindowRowModel& r : rows)
            denied.push_back(countDenials(traces, keys.kept, r.denied));
        const auto name = [](std::size_t r) { return std::string(1, char('A' + r)); };
        const WindowChoice c = chooseWindow(traces, keys, rows, denied, 0, {{}, OriginGoal{{8, kS}, {}}}, "P", name);
        QCOMPARE(c.recommended, std::size_t(1));
        QCOMPARE(windowRowMostIn(rows[3], kS), std::optional<std::int64_t>(8));
        QCOMPARE(windowRowMostIn(rows[3], 60 * kS), std::optional<std::int64_t>(10));
        QCOMPARE(windowRowMostIn(WindowRowModel{}, kS), std::nullopt);
        const WindowChoice capped = chooseWindow(traces, keys, rows, denied, 0, {WindowCap{8, kS}, {}}, "P", name);
        QCOMPARE(capped.mostIn, (std::vector<std::int64_t>{200, 4, 4, 8}));
        QCOMPARE(capped.recommended, std::size_t(1));
        try {
            chooseWindow(traces, keys, rows, denied, 0, {WindowCap{3, kS}, {}}, "P", name);
            QFAIL("no row meets 3 in a second");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()), std::string("--cap: no P window lets every request that must pass through and one "
                                                        "key through at most 3 in any 1 s; the least any lets one key "
                                                        "through is 4 (B)"));
        }
    }

    void windowGatewaysKeyAsTheProductCan()
    {
        QCOMPARE(windowGatewayKeyProblem("cloudflare", "user"), std::string("the written rule counts by the client's IP (ip.src): only ip"));
        QCOMPARE(windowGatewayKeyProblem("aws-waf", "user"), std::string("the written rule counts by the client's IP (AggregateKeyType IP): only ip"));
        QVERIFY(windowGatewayKeyProblem("express", "user").ends_with(": only ip"));
        QCOMPARE(windowGatewayKeyProblem("kong", "host"),
                 std::string("Kong's rate-limiting has no limit_by for 'host' (it offers: ip, user as the consumer, http_NAME as a header)"));
        for (const char* key : {"ip", "user", "http_x_api_key"})
            QCOMPARE(windowGatewayKeyProblem("kong", key), std::string());
        QCOMPARE(windowGatewayKeyProblem("upstash", "host"), std::string());
        QCOMPARE(kongUnkeyedProblem("http_x_api_key", false, 3),
                 std::string("Kong counts a request without the header by its client IP, and 3 requests of the log lack "
                             "it: advise by ip, or on a log whose every request has it"));
        QCOMPARE(kongUnkeyedProblem("user", true, 3), std::string()); // the consumer: none unkeyed
        QCOMPARE(kongUnkeyedProblem("http_x_api_key", false, 0), std::string());
        QVERIFY_THROWS_EXCEPTION(InputError, WindowGatewayAdvice({"express", "user", kPercentUnit, "", {}}, smallLog()));
        QVERIFY_THROWS_EXCEPTION(InputError, WindowGatewayAdvice({"nginx", "ip", kPercentUnit, "", {}}, smallLog()));
        QVERIFY(isWindowGateway("upstash") && !isWindowGateway("nginx") && !isWindowGateway("traefik"));
    }
};

QTEST_GUILESS_MAIN(TestManagedAdvice)
#include "tst_advise_managed.moc"
