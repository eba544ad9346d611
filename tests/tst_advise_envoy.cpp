// advise for Envoy's local_ratelimit (core/advise/envoy_advice.h): the least max_tokens of a
// trace worked out by hand in the timer refill's arithmetic, why the ladder keeps one
// fill_interval, a seeded property against a brute-force search on EnvoyLocal itself, and the
// written filter read back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/envoy_advice.h"
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/envoy_local.h"
#include "property_seeds.h"
#include "window_bound.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

using advisetest::smallLog;

LimiterConfig bucket(std::int64_t maxTokens, std::int64_t perFill, Nanos fill)
{
    return LimiterConfig{}.withProductOptions({{"max_tokens", std::to_string(maxTokens)},
                                               {"tokens_per_fill", std::to_string(perFill)},
                                               {"fill_interval", formatSeconds(fill)}});
}

// bruteBurst is the least max_tokens at which EnvoyLocal (built here from its options, not by
// the family) admits every request of the trace: tried from 1 upwards.
std::int64_t bruteBurst(const std::vector<Nanos>& times, std::int64_t perFill, Nanos fill)
{
    for (std::int64_t maxTokens = 1;; ++maxTokens) {
        EnvoyLocal envoy(bucket(maxTokens, perFill, fill));
        bool all = true;
        for (Nanos t : times)
            all = envoy.decide(t).allowed && all;
        if (all)
            return maxTokens;
    }
}

// randomTrace is 1 to 25 times, in order, with gaps from none to seconds and sub-ms parts, so
// requests fall just before, on and after the fires.
std::vector<Nanos> randomTrace(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, 300'000, kMs, 49 * kMs, 50 * kMs, 333 * kMs, 1000 * kMs, 4700 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, kMs)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 7)(rng)] + std::uniform_int_distribution<Nanos>(0, 3)(rng) * 1000;
        out.push_back(t);
    }
    return out;
}

} // namespace

class TestEnvoyAdvice : public QObject {
    Q_OBJECT
private slots:
    // The log as one trace, fill_interval 1 s (fires at 1000 ms, 2000 ms, ... from the log's
    // start; one due at t comes before a request at t). The deficit d:
    //   1 a fill: the 14 at 0 ms make 14, the one at 500 ms 15 (no fire yet), the fire at
    //             1000 ms takes 1 (14) and its request makes 15 again: max_tokens 15.
    //   2 a fill: 14, 15, then 15 - 2 + 1 = 14: 15. Every rate: 15, reached before any fire.
    // A lone request needs 1, Envoy's least max_tokens.
    void burstsByHand()
    {
        const EnvoyBurstFamily envoy;
        const Traffic traffic = smallLog();
        const KeyedTraces shared = sharedTraces(traffic);
        QCOMPARE(shared.keys(), std::size_t(1));
        QCOMPARE(shared.requests(0), 16);
        QCOMPARE(envoy.burstNeeded(shared.trace(0), 1), 15);
        QCOMPARE(envoy.burstNeeded(shared.trace(0), 2), 15);
        QCOMPARE(envoy.burstNeeded(shared.trace(0), envoy.maxStep()), 15);
        const std::vector<Nanos> one{7 * kMs};
        QCOMPARE(envoy.burstNeeded(KeyTrace{one, {}}, 1), 1);
        // Two at 999 ms and two at 1000 ms: 1 a fill: d 1, 2, the fire at 1000 ms takes 1, then
        // 2, 3: 3. 2 a fill: 1, 2, the fire takes 2 (0), then 1, 2: 2.
        const std::vector<Nanos> edge{999 * kMs, 999 * kMs, 1000 * kMs, 1000 * kMs};
        QCOMPARE(envoy.burstNeeded(KeyTrace{edge, {}}, 1), 3);
        QCOMPARE(envoy.burstNeeded(KeyTrace{edge, {}}, 2), 2);
        // max_tokens 10, 1 a fill: at 0 ms 10 of the 14 pass, the 4 others and the one at 500 ms
        // find none, the fire at 1000 ms gives the last its token: 5 denied.
        QCOMPARE(envoy.denied(shared.trace(0), 1, 10), 5);
        QCOMPARE(envoy.rateText(2), std::string("2 per 1s"));
        QCOMPARE(EnvoyBurstFamily(50 * kMs).rateText(1), std::string("1 per 0.05s"));
    }

    // Why the ladder varies tokens_per_fill at one fill_interval: 1 every 999 ms is a faster
    // rate than 1 every 1 s, yet one request at 999 ms and one at 1000 ms need max_tokens 2 from
    // it (its fire at 999 ms comes before the first, on a full bucket, and the next is at
    // 1998 ms) and 1 from the slower (its fire at 1000 ms refills the token the first took).
    void aShorterIntervalCanNeedMore()
    {
        const std::vector<Nanos> times{999 * kMs, 1000 * kMs};
        QCOMPARE(EnvoyBurstFamily(1000 * kMs).burstNeeded(KeyTrace{times, {}}, 1), 1);
        QCOMPARE(EnvoyBurstFamily(999 * kMs).burstNeeded(KeyTrace{times, {}}, 1), 2);
        QCOMPARE(bruteBurst(times, 1, 999 * kMs), 2);
    }

    // Envoy reads fill_interval in whole ms and refuses less than 50 ms.
    void theFillIntervalsEnvoyTakes()
    {
        QCOMPARE(envoyFillProblem(50 * kMs), std::string());
        QCOMPARE(envoyFillProblem(1500 * kMs), std::string());
        const std::string refused = "envoy_local: fill_interval must be whole milliseconds and at least 50 ms";
        QVERIFY(envoyFillProblem(49 * kMs).starts_with(refused));
        QVERIFY(envoyFillProblem(50 * kMs + 500'000).starts_with(refused));
    }

    // Property: on random traces the one-pass max_tokens equals the brute-force least on
    // EnvoyLocal, at several fill_intervals, and never grows with tokens_per_fill.
    void burstIsTheBruteForceLeastAndFallsWithTheRate()
    {
        const Nanos fills[] = {50 * kMs, 100 * kMs, 1000 * kMs, 1500 * kMs};
        const std::int64_t steps[] = {1, 2, 3, 5, 10, 50};
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTrace(rng);
            const Nanos fill = fills[std::uniform_int_distribution<int>(0, 3)(rng)];
            const EnvoyBurstFamily envoy(fill);
            std::int64_t previous = std::numeric_limits<std::int64_t>::max();
            for (std::int64_t step : steps) {
                const std::int64_t b = envoy.burstNeeded(KeyTrace{times, {}}, step);
                QVERIFY2(b == bruteBurst(times, step, fill), qPrintable(QString("seed %1 step %2").arg(seed).arg(step)));
                QVERIFY2(b <= previous, qPrintable(QString("seed %1: grows at step %2").arg(seed).arg(step)));
                previous = b;
            }
        }
    }

    // The written filter: its text as Envoy reads it; `import` reads back the same bucket; the
    // dry run denies what the advice says, key by key. max_tokens 10, 1 a fill: at 0 ms the first
    // 10 in the log's order pass (1.1.1.1's 3, 2.2.2.2's 1, 3.3.3.3's first 6), 3.3.3.3's other 4
    // are denied, 1.1.1.1's at 500 ms too, its one at 1000 ms has the fire's token: {1, 0, 4}.
    void theWrittenFilterReadsBack()
    {
        const EnvoyBurstFamily envoy;
        const std::string config = envoyAdviceConfig(envoy, 1, 10);
        QCOMPARE(config, std::string("- name: envoy.filters.http.local_ratelimit\n"
                                     "  typed_config:\n"
                                     "    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
                                     "    stat_prefix: ratelab\n"
                                     "    token_bucket:\n"
                                     "      max_tokens: 10\n"
                                     "      tokens_per_fill: 1\n"
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
                                     "        denominator: HUNDRED\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Envoy local_ratelimit"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::EnvoyLocal});
        AnyLimiter read = makeLimiter(Algorithm::EnvoyLocal, imported.scenario.config);
        const auto& back = std::get<EnvoyLocal>(read);
        QCOMPARE(back.maxTokens(), 10u);
        QCOMPARE(back.tokensPerFill(), 1u);
        QCOMPARE(back.fillInterval(), 1000 * kMs);
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{1, 0, 4}));
        QCOMPARE(envoySharedDenials(traffic, envoy, 1, 10), (std::vector<std::int64_t>{1, 0, 4}));
        // At 50 ms the interval is written as Envoy's Duration, in seconds.
        QVERIFY(envoyAdviceConfig(EnvoyBurstFamily(50 * kMs), 3, 7).find("      fill_interval: 0.05s\n")
                != std::string::npos);
    }

    // mostIn by hand: max_tokens 5, 3 a fire of 1 s, in any 2.5 s: the window's instants span
    // 2.5 s - 1 ns and meet at most ceil(2.5 - 1 ns / 1 s) = 3 fires, so 5 + 3 * 3 = 14, which 5 at
    // 0.5 s + 1 ns and 3 at each fire 1, 2 and 3 s reach: all admitted, all in (0.5 s, 3 s]. A
    // per-fill above max_tokens fills to max_tokens only: 9 a fire, max 5, in 1 s: 5 + 5.
    void theMostInAWindowByHand()
    {
        using namespace advisetest;
        const EnvoyBurstFamily envoy(kNanosPerSecond);
        QCOMPARE(*envoy.mostIn(3, 5, 2'500'000'000), 14);
        std::vector<Nanos> worst;
        burstAt(worst, 500'000'001, 5);
        for (Nanos fire : {1, 2, 3})
            burstAt(worst, fire * kNanosPerSecond, 3);
        QCOMPARE(mostThrough(EnvoyLocal(envoy.config(3, 5)), worst, 2'500'000'000), 14);
        QCOMPARE(*envoy.mostIn(9, 5, kNanosPerSecond), 10);
        std::vector<Nanos> over;
        burstAt(over, 500'000'000, 5);
        burstAt(over, kNanosPerSecond, 9);
        QCOMPARE(mostThrough(EnvoyLocal(envoy.config(9, 5)), over, kNanosPerSecond), 10);
        QCOMPARE(*envoy.mostIn(3, 5, 1), 5); // one instant: the bucket
    }

    // Property: no run of EnvoyLocal on a dense random trace admits more in a window than mostIn.
    void noRunLetsMoreThroughThanMostIn()
    {
        const Nanos fill = 50'000'000;
        const std::vector<Nanos> gaps{0, 1, fill - 1, fill, fill + 1, 7 * fill, 20 * fill};
        const std::vector<Nanos> windows{1, fill, fill + 1, 3 * fill - 1, kNanosPerSecond};
        QCOMPARE(advisetest::firstExcess<EnvoyLocal>(EnvoyBurstFamily(fill), gaps, windows,
                                                     [](std::mt19937_64& rng, std::uint64_t) {
                                                         return std::pair{std::uniform_int_distribution<std::int64_t>(1, 6)(rng),
                                                                          std::uniform_int_distribution<std::int64_t>(1, 9)(rng)};
                                                     }),
                 QString());
    }
};

QTEST_GUILESS_MAIN(TestEnvoyAdvice)
#include "tst_advise_envoy.moc"
