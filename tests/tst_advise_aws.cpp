// advise for an Amazon API Gateway usage plan (core/advise/aws_api_gateway_advice.h): the least
// burst of a trace worked out by hand, the account's throttle no plan lifts, a seeded property
// against a brute-force search on the AwsApiGateway model itself, and the written usage plan read
// back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/aws_api_gateway_advice.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/aws_api_gateway.h"
#include "property_seeds.h"
#include "window_bound.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kS = kNanosPerSecond;

using advisetest::randomTrace;
using advisetest::smallLog;

constexpr std::int64_t hundredths(std::int64_t n) { return n; }
constexpr std::int64_t perSecond(std::int64_t n) { return AwsApiGatewayBurstFamily::kHundredthSteps + n; }

// gatewayOf builds the model from the plan's own two numbers as text, not through the family.
AwsApiGateway gatewayOf(const std::string& rateLimit, std::int64_t burstLimit)
{
    return AwsApiGateway(
        LimiterConfig{}.withProductOptions({{"plan_rate", rateLimit}, {"plan_burst", std::to_string(burstLimit)}}));
}

std::int64_t deniedBy(const std::vector<Nanos>& times, const std::vector<std::int64_t>& costs, AwsApiGateway gateway)
{
    std::int64_t out = 0;
    for (std::size_t i = 0; i < times.size(); ++i)
        out += !gateway.decide(times[i], costs.empty() ? 1 : costs[i]).allowed;
    return out;
}

// bruteBurst is the least burstLimit at which the model throttles none of the trace, from 1 up.
std::int64_t bruteBurst(const std::vector<Nanos>& times, const std::vector<std::int64_t>& costs,
                        const std::string& rateLimit)
{
    for (std::int64_t burst = 1;; ++burst)
        if (deniedBy(times, costs, gatewayOf(rateLimit, burst)) == 0)
            return burst;
}

} // namespace

class TestAwsAdvice : public QObject {
    Q_OBJECT
private slots:
    // Key a (1.1.1.1 in advise_log.h: three requests at 0, one at 0.5 s, one at 1 s). With d the
    // deficit, d = max(0, d - rate * elapsed) + 1 at each request and the burst is ceil(max d):
    //   0.01/s: 3, then 3 - 0.005 + 1 = 3.995, then 3.995 - 0.005 + 1 = 4.99: burst 5.
    //   0.5/s: 3, 3 - 0.25 + 1 = 3.75, 3.75 - 0.25 + 1 = 4.5: 5.
    //   0.99/s: 3, 3.505, 3.505 - 0.495 + 1 = 4.01: 5; at 1/s: 3, 3.5, 3.5 - 0.5 + 1 = 4: 4 exactly.
    //   2/s: 3, 3 - 1 + 1 = 3, 3: 3; and 3 at every rate above (the three at 0 s).
    // Key b (one request) needs 1, key c (ten at once) 10, at every rate.
    void burstsByHand()
    {
        const AwsApiGatewayBurstFamily aws;
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        QCOMPARE(aws.burstNeeded(a, hundredths(1)), 5);
        QCOMPARE(aws.burstNeeded(a, hundredths(50)), 5);
        QCOMPARE(aws.burstNeeded(a, hundredths(99)), 5);
        QCOMPARE(aws.burstNeeded(a, perSecond(1)), 4);
        QCOMPARE(aws.burstNeeded(a, perSecond(2)), 3);
        QCOMPARE(aws.burstNeeded(a, aws.maxStep()), 3);
        QCOMPARE(aws.burstNeeded(b, hundredths(1)), 1);
        QCOMPARE(aws.burstNeeded(c, perSecond(1000)), 10);
        // At 0.5/s, burst 5: c's first 5 take the bucket's tokens, its other 5 are throttled.
        QCOMPARE(aws.denied(c, hundredths(50), 5), 5);
        QCOMPARE(aws.rateText(hundredths(50)), std::string("0.5/s"));
        QCOMPARE(aws.rateText(hundredths(1)), std::string("0.01/s"));
        QCOMPARE(aws.rateText(perSecond(20)), std::string("20/s"));
        QCOMPARE(aws.rateText(aws.maxStep()), std::string("10000/s"));
    }

    // The account's bucket (10,000 a second, burst 5,000) applies whatever the plan: 5,000 at once
    // pass with a plan of burst 5,000; a 5,001st is throttled at any plan, so advice refuses it.
    void theAccountThrottle()
    {
        const AwsApiGatewayBurstFamily aws;
        const std::vector<Nanos> fiveThousand(5'000, 0), oneMore(5'001, 0);
        QCOMPARE(aws.burstNeeded(KeyTrace{fiveThousand, {}}, perSecond(1)), 5'000);
        QCOMPARE(deniedBy(oneMore, {}, gatewayOf("1", 1'000'000)), 1);
        QVERIFY_THROWS_EXCEPTION(InputError, aws.burstNeeded(KeyTrace{oneMore, {}}, perSecond(1)));
    }

    // Advice on the small log keeping a and b (--keep 60: rank ceil(0.6 * 3) = 2 of 1, 5, 10):
    // their burst is a's (burstsByHand), 3 at the ladder's top. The least rate whose burst drains
    // within 10 s: 0.5/s with burst 5 (10 s), not 0.49/s (5 > 4.9). The front: 0.01/s 5, 0.5/s 5
    // (recommended), 1/s 4, 2/s 3 (the floor); c loses 10 - burst at each.
    void adviceOnTheSmallLog()
    {
        const AwsApiGatewayBurstFamily aws;
        AdviceOptions o;
        o.keep = kPercentUnit / 100 * 60;
        const Advice a = advise(keyedTraces(smallLog()), aws, o);
        QCOMPARE(a.floorBurst, 3);
        QCOMPARE(a.recommended.step, hundredths(50));
        QCOMPARE(a.recommended.burst, 5);
        QCOMPARE(a.recommended.denied.other, 5);
        QCOMPARE(a.front.size(), std::size_t(4));
        const std::int64_t steps[] = {hundredths(1), hundredths(50), perSecond(1), perSecond(2)};
        const std::int64_t bursts[] = {5, 5, 4, 3}, others[] = {5, 5, 6, 7};
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(a.front[i].step, steps[i]);
            QCOMPARE(a.front[i].burst, bursts[i]);
            QCOMPARE(a.front[i].denied.kept, 0);
            QCOMPARE(a.front[i].denied.other, others[i]);
        }
        QCOMPARE(a.deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
    }

    // Property: on random traces the burst is the brute-force least on the model at each step,
    // and never grows with the step.
    void burstIsTheBruteForceLeastAndFallsWithTheRate()
    {
        const AwsApiGatewayBurstFamily aws;
        const std::int64_t steps[] = {hundredths(1), hundredths(3),  hundredths(33), hundredths(50), hundredths(99),
                                      perSecond(1),  perSecond(2),   perSecond(3),   perSecond(7),   perSecond(64),
                                      perSecond(1000), aws.maxStep()};
        std::vector<Nanos> times;
        std::vector<std::int64_t> costs;
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            randomTrace(rng, times, costs);
            const KeyTrace trace{times, costs};
            std::int64_t previous = std::numeric_limits<std::int64_t>::max();
            for (std::int64_t step : steps) {
                const std::int64_t b = aws.burstNeeded(trace, step);
                const std::int64_t expected = bruteBurst(times, costs, aws.rateLimit(step));
                QVERIFY2(b == expected, qPrintable(QString("seed %1 step %2: %3, expected %4").arg(seed).arg(step).arg(b).arg(expected)));
                QVERIFY2(b <= previous, qPrintable(QString("seed %1: grows at step %2").arg(seed).arg(step)));
                previous = b;
            }
        }
    }

    // The written usage plan: its text; `import` reads back the same limiter (0.5 a second,
    // burst 5); the dry run, keyed by the log's key as the API key, denies c's 5 (burstsByHand).
    void theWrittenPlanReadsBack()
    {
        const AwsApiGatewayBurstFamily aws;
        const std::string config = awsUsagePlanJson(aws, hundredths(50), 5);
        QCOMPARE(config, std::string("{\n  \"name\": \"ratelab-limit\",\n"
                                     "  \"description\": \"Advised by ratelab advise: add the API stages and the API keys "
                                     "it throttles\",\n  \"apiStages\": [],\n"
                                     "  \"throttle\": {\n    \"burstLimit\": 5,\n    \"rateLimit\": 0.5\n  }\n}\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Amazon API Gateway usage plan"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::AwsApiGateway});
        AnyLimiter read = makeLimiter(Algorithm::AwsApiGateway, imported.scenario.config);
        const auto& back = std::get<AwsApiGateway>(read);
        const Rate slowest = back.slowest(); // 0.5 a second: tokens / perNanos = 1 / (2 s)
        QVERIFY(Int128(slowest.tokens) * 2 * kS == Int128(slowest.perNanos));
        QCOMPARE(back.quota(), 5);
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
        // A whole rate is written whole: 20, not 20.0.
        QVERIFY(awsUsagePlanJson(aws, perSecond(20), 3).find("\"rateLimit\": 20\n") != std::string::npos);
    }

    // mostIn by hand: 1/s with burst 3, in any 10 s: 3 + floor(1/s * (10 s - 1 ns)) = 12, which 3
    // at 0 and one at each second 1..9 reach, all in (-1 s, 9 s]. A plan's burst above the
    // account's 5,000 is the account's at once.
    void theMostInAWindowByHand()
    {
        using namespace advisetest;
        const AwsApiGatewayBurstFamily aws;
        const std::int64_t oneASecond = AwsApiGatewayBurstFamily::perSecond(1);
        QCOMPARE(*aws.mostIn(oneASecond, 3, 10 * kNanosPerSecond), 12);
        std::vector<Nanos> worst;
        burstAt(worst, 0, 3);
        for (Nanos s = 1; s <= 9; ++s)
            burstAt(worst, s * kNanosPerSecond, 1);
        QCOMPARE(mostThrough(AwsApiGateway(aws.config(oneASecond, 3)), worst, 10 * kNanosPerSecond), 12);
        QCOMPARE(*aws.mostIn(AwsApiGatewayBurstFamily::perSecond(10'000), 6'000, 1), 5'000);
    }

    // Property: no run of the AwsApiGateway model on a dense random trace admits more in a window
    // than mostIn, hundredths a second among the rates.
    void noRunLetsMoreThroughThanMostIn()
    {
        const std::vector<Nanos> gaps{0, 1, 499'999'999, 500'000'000, kNanosPerSecond, 7 * kNanosPerSecond};
        const std::vector<Nanos> windows{1, kNanosPerSecond, kNanosPerSecond + 1, 5 * kNanosPerSecond, 61 * kNanosPerSecond};
        QCOMPARE(advisetest::firstExcess<AwsApiGateway>(AwsApiGatewayBurstFamily{}, gaps, windows,
                                                        [](std::mt19937_64& rng, std::uint64_t) {
                                                            return std::pair{std::uniform_int_distribution<std::int64_t>(1, 110)(rng),
                                                                             std::uniform_int_distribution<std::int64_t>(1, 9)(rng)};
                                                        }),
                 QString());
    }
};

QTEST_GUILESS_MAIN(TestAwsAdvice)
#include "tst_advise_aws.moc"
