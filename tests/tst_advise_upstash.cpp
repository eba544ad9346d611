// advise for @upstash/ratelimit (core/advise/upstash_advice.h): the least tokens of a trace worked
// out by hand, the sliding window's weighted and rounded-down estimate, Date.now()'s windows, a
// seeded property against a brute-force search on the UpstashRatelimit model itself, and the
// written snippet read back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/upstash_advice.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/upstash.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kS = kNanosPerSecond;

using advisetest::smallLog;

// upstashOf builds the model from the snippet's own words, not through the advice.
UpstashRatelimit upstashOf(const std::string& limiter, std::int64_t tokens, const std::string& window)
{
    return UpstashRatelimit(LimiterConfig{}.withProductOptions(
        {{"limiter", limiter}, {"tokens", std::to_string(tokens)}, {"window", window}}));
}

std::int64_t deniedBy(const std::vector<Nanos>& times, const std::vector<std::int64_t>& costs, UpstashRatelimit u)
{
    std::int64_t out = 0;
    for (std::size_t i = 0; i < times.size(); ++i)
        out += !u.decide(times[i], costs.empty() ? 1 : costs[i]).allowed;
    return out;
}

// randomTrace is 1 to 25 requests of cost 1 to 3, in order, with gaps from none to 25 s, so that
// requests fall anywhere in the windows of 1 s, 7 ms and 10 s and their previous windows.
void randomTrace(std::mt19937_64& rng, std::vector<Nanos>& times, std::vector<std::int64_t>& costs)
{
    times.clear();
    costs.clear();
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, kMs / 2, kMs, 3 * kMs, 200 * kMs, 900 * kMs, kS, 2500 * kMs, 9 * kS, 25 * kS};
    Nanos t = std::uniform_int_distribution<Nanos>(0, 10 * kS)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 9)(rng)];
        times.push_back(t);
        costs.push_back(std::uniform_int_distribution<std::int64_t>(1, 3)(rng));
    }
}

} // namespace

class TestUpstashAdvice : public QObject {
    Q_OBJECT
private slots:
    // Key a (1.1.1.1 in advise_log.h: three requests at 0, one at 0.5 s, one at 1 s; the log
    // starts on a whole minute since 1970, so every window shown starts with it). A request
    // passes iff the window's count so far, plus for slidingWindow the previous window's count
    // weighted by the part of it still covered and rounded down, plus its own 1, is at most
    // tokens; the least tokens is the most of that:
    //   fixedWindow 1 s: 4 in the first second (1, 2, 3, 4), then 1: 4.
    //   slidingWindow 1 s: 1 .. 4, then at 1 s, 0 % into the second window, the previous 4 count
    //       whole: floor((1 - 0) * 4) + 0 + 1 = 5.
    //   both at 10 s and 1 m: all 5 in one window: 5.
    // Key b needs 1, key c (ten at once) 10.
    void tokensByHand()
    {
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        QCOMPARE(upstashLeastTokens(a, false, 1'000, 0), 4);
        QCOMPARE(upstashLeastTokens(a, true, 1'000, 0), 5);
        QCOMPARE(upstashLeastTokens(a, true, 10'000, 0), 5);
        QCOMPARE(upstashLeastTokens(a, false, 60'000, 0), 5);
        QCOMPARE(upstashLeastTokens(b, true, 10'000, 0), 1);
        QCOMPARE(upstashLeastTokens(c, true, 10'000, 0), 10);
        // slidingWindow 1 s with 4 tokens: a's fifth meets 4 + 0 >= 4 and is denied.
        QCOMPARE(upstashDenied(a, true, 1'000, 4, 0), 1);
        QCOMPARE(upstashDenied(a, true, 1'000, 5, 0), 0);
    }

    // The weighted estimate mid-window: 4 requests at 0 s, then 5 at 12.5 s in a window of 10 s.
    // At 12.5 s the window is 25 % through, so the previous 4 weigh floor(0.75 * 4) = 3: the five
    // meet 3 + 0 + 1 .. 3 + 4 + 1, so the least is 8, where fixedWindow needs 5. With 7 tokens
    // the fifth meets 3 + 4 = 7 >= 7: 1 denied.
    void theWeightedEstimate()
    {
        const std::vector<Nanos> times{0, 0, 0, 0, 12'500 * kMs, 12'500 * kMs, 12'500 * kMs, 12'500 * kMs, 12'500 * kMs};
        const KeyTrace trace{times, {}};
        QCOMPARE(upstashLeastTokens(trace, true, 10'000, 0), 8);
        QCOMPARE(upstashLeastTokens(trace, false, 10'000, 0), 5);
        QCOMPARE(upstashDenied(trace, true, 10'000, 7, 0), 1);
        QCOMPARE(upstashDenied(trace, true, 10'000, 8, 0), 0);
    }

    // Date.now()'s windows: requests at 4 s and 6 s of a log that starts 5 s into a window of
    // 10 s fall at 9 s and 11 s, two windows: fixedWindow needs 1 token; from a window's start
    // they share one and need 2.
    void windowsOnTheClock()
    {
        const std::vector<Nanos> times{4 * kS, 6 * kS};
        QCOMPARE(upstashLeastTokens(KeyTrace{times, {}}, false, 10'000, 5 * kS), 1);
        QCOMPARE(upstashLeastTokens(KeyTrace{times, {}}, false, 10'000, 0), 2);
    }

    // Advice on the small log keeping a and b (--keep 60): per limiter the least tokens is a's
    // (tokensByHand) and c's ten at once lose 10 - tokens: its last ones are denied by the script
    // or, once it is denied, by the ephemeral cache until its window ends. The recommendation is
    // slidingWindow 10 s with 5 tokens.
    void adviceOnTheLogsClock()
    {
        // fixedWindow counts floor(now / window) of the clock: requests at 12:00:59.500 and
        // 12:01:00.200, 0.7 s apart, fall in two windows of 1 s, of 10 s ([50, 60) and [60, 70))
        // and of 1 min, so 1 token admits both in each; counted from the log's start they would
        // share one window of each and need 2.
        TrafficOptions o;
        o.format = LogFormat::Csv;
        const Traffic traffic = parseTraffic("time,ip\n1795435259.500,1.1.1.1\n1795435260.200,1.1.1.1\n", o, "c.csv");
        const UpstashAdvice u = adviseUpstash(keyedTraces(traffic), kPercentUnit);
        QCOMPARE(u.limiters.size(), std::size_t(6));
        for (std::size_t i = 3; i < 6; ++i) {
            QVERIFY(!u.limiters[i].sliding);
            QCOMPARE(u.limiters[i].tokens, std::int64_t(1));
        }
    }

    void adviceOnTheSmallLog()
    {
        const UpstashAdvice u = adviseUpstash(keyedTraces(smallLog()), kPercentUnit / 100 * 60);
        QCOMPARE(u.limiters.size(), std::size_t(6));
        const std::int64_t tokens[] = {5, 5, 5, 4, 5, 5}, others[] = {5, 5, 5, 6, 5, 5};
        for (std::size_t i = 0; i < 6; ++i) {
            QCOMPARE(u.limiters[i].sliding, i < 3);
            QCOMPARE(u.limiters[i].windowMs, kUpstashWindowsMs[i % 3]);
            QCOMPARE(u.limiters[i].tokens, tokens[i]);
            QCOMPARE(u.limiters[i].denied.kept, 0);
            QCOMPARE(u.limiters[i].denied.other, others[i]);
        }
        QVERIFY(u.recommended().sliding);
        QCOMPARE(u.recommended().windowMs, 10'000);
        QCOMPARE(u.deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
    }

    // Property: on random traces, for both limiters and windows of 7 ms, 1 s and 10 s, the least
    // tokens is the brute-force least on the model (tried from 1 up), and tokens above it still
    // admit every request (the monotonicity upstash_advice.h proves).
    void leastTokensIsTheBruteForceLeast()
    {
        std::vector<Nanos> times;
        std::vector<std::int64_t> costs;
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            randomTrace(rng, times, costs);
            for (const bool sliding : {true, false})
                for (const std::int64_t windowMs : {7, 1'000, 10'000}) {
                    const std::string kind = sliding ? "slidingWindow" : "fixedWindow";
                    const std::string window = std::to_string(windowMs) + "ms";
                    const std::int64_t least = upstashLeastTokens(KeyTrace{times, costs}, sliding, windowMs, 0);
                    std::int64_t brute = 1;
                    while (deniedBy(times, costs, upstashOf(kind, brute, window)) != 0)
                        ++brute;
                    QVERIFY2(least == brute, qPrintable(QString("seed %1 %2 %3: %4, expected %5")
                                                            .arg(seed).arg(kind.c_str()).arg(windowMs).arg(least).arg(brute)));
                    for (std::int64_t above : {least + 1, least + 7})
                        QVERIFY2(deniedBy(times, costs, upstashOf(kind, above, window)) == 0,
                                 qPrintable(QString("seed %1 %2 %3: denies at %4").arg(seed).arg(kind.c_str()).arg(windowMs).arg(above)));
                }
        }
    }

    // The written snippet: its text; `import` reads back the same limiter (slidingWindow, 5
    // tokens, 10 s, the ephemeral cache on); the dry run, on the log's clock, denies c's 5.
    void theWrittenSnippetReadsBack()
    {
        const std::string config = upstashAdviceSnippet({true, 10'000, 5, {}});
        QCOMPARE(config, std::string("import { Ratelimit } from \"@upstash/ratelimit\";\n"
                                     "import { Redis } from \"@upstash/redis\";\n\n"
                                     "export const ratelimit = new Ratelimit({\n  redis: Redis.fromEnv(),\n"
                                     "  limiter: Ratelimit.slidingWindow(5, \"10 s\"),\n});\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("@upstash/ratelimit"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::UpstashRatelimit});
        AnyLimiter read = makeLimiter(Algorithm::UpstashRatelimit, imported.scenario.config);
        const auto& back = std::get<UpstashRatelimit>(read);
        QCOMPARE(int(back.kind()), int(UpstashRatelimit::Kind::SlidingWindow));
        QCOMPARE(back.tokens(), 5);
        QCOMPARE(back.windowMs(), 10'000);
        QVERIFY(back.ephemeralCache());
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
        QCOMPARE(upstashWindowText(60'000), std::string("1 m"));
        QCOMPARE(upstashWindowText(1'500), std::string("1500 ms"));
    }

    // The dry run's windows are Date.now()'s too: u's two requests at 9 s and 11 s past a whole
    // 10 s since 1970 fall in two windows, so fixedWindow(1, "10 s") denies neither; had the
    // windows started at the log's first request (9 s), both would share one and the second be
    // denied.
    void theDryRunIsOnTheClock()
    {
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        const Traffic traffic = parseTraffic("time,ip,path\n1795392009.000,u,/\n1795392011.000,u,/\n", o, "c.csv");
        const std::string config = upstashAdviceSnippet({false, 10'000, 1, {}});
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QCOMPARE(dryRun(traffic, parsed).denied, 0);
        QCOMPARE(upstashDenied(keyedTraces(traffic).trace(0), false, 10'000, 1, 0), 1);
    }
};

QTEST_GUILESS_MAIN(TestUpstashAdvice)
#include "tst_advise_upstash.moc"
