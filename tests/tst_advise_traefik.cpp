// advise for Traefik's rateLimit (core/advise/traefik_advice.h): the least burst of a trace
// worked out by hand in x/time/rate's terms (with maxDelay's debt), why 90 a minute is not on
// the ladder, a seeded property against a brute-force search on the Traefik model itself, and
// the written middleware read back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/traefik_advice.h"
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/traefik.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

using advisetest::smallLog;

constexpr std::int64_t perMinute(std::int64_t n) { return n; }
constexpr std::int64_t perSecond(std::int64_t n) { return TraefikBurstFamily::kPerMinuteSteps + n; }

std::int64_t deniedBy(const std::vector<Nanos>& times, std::int64_t average, const std::string& period, std::int64_t burst)
{
    Traefik traefik(LimiterConfig{}.withProductOptions(
        {{"average", std::to_string(average)}, {"period", period}, {"burst", std::to_string(burst)}}));
    std::int64_t out = 0;
    for (Nanos t : times)
        out += !traefik.decide(t).allowed;
    return out;
}

// bruteBurst is the least burst at which the Traefik model (built here from the step's average
// and period, not by the family) denies none of the trace: tried from 1 upwards.
std::int64_t bruteBurst(const std::vector<Nanos>& times, std::int64_t step)
{
    const std::int64_t average = step <= 59 ? step : step - 59;
    const std::string period = step <= 59 ? "60" : "1";
    for (std::int64_t burst = 1;; ++burst)
        if (deniedBy(times, average, period, burst) == 0)
            return burst;
}

// randomTrace is 1 to 25 times, in order, with gaps from none to seconds, sub-ms parts included.
std::vector<Nanos> randomTrace(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, 300'000, kMs, 7 * kMs, 60 * kMs, 200 * kMs, 333 * kMs, 1000 * kMs, 4700 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, kMs)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 8)(rng)] + std::uniform_int_distribution<Nanos>(0, 3)(rng) * 1000;
        out.push_back(t);
    }
    return out;
}

} // namespace

class TestTraefikAdvice : public QObject {
    Q_OBJECT
private slots:
    // Key a's burst (1.1.1.1 in advise_log.h). With d = burst - tokens, each request makes
    // d = max(0, d - r * elapsed) + 1 and waits (d - burst) / r, served iff that is at most
    // maxDelay, i.e. burst >= d - r * maxDelay:
    //   1 a minute (r = 1/60, maxDelay 500 ms, debt 1/120): d = 3, 3 - 1/120 + 1, then
    //       3.99167 - 0.00833 + 1 = 4.98333: burst ceil(4.98333 - 0.00833) = 5.
    //   29 a minute (r = 0.48333, debt 0.24167): 3, 3.75833, 4.51667: ceil(4.275) = 5.
    //   30 a minute (r = 0.5, debt 0.25): 3, 3.75, 4.5: ceil(4.25) = 5.
    //   1 a second (maxDelay 1 s / 2 = 500 ms, debt 0.5): 3, 3.5, 4: ceil(3.5) = 4.
    //   2 a second (maxDelay 250 ms, debt 0.5): 3, 3, 3: ceil(2.5) = 3, and 3 at every rate above.
    // Key c (ten at once) needs 10 at every rate (the eleventh would wait 1/r, above maxDelay);
    // key b 1.
    void burstsByHand()
    {
        const TraefikBurstFamily traefik;
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        QCOMPARE(traefik.burstNeeded(a, perMinute(1)), 5);
        QCOMPARE(traefik.burstNeeded(a, perMinute(29)), 5);
        QCOMPARE(traefik.burstNeeded(a, perMinute(30)), 5);
        QCOMPARE(traefik.burstNeeded(a, perSecond(1)), 4);
        QCOMPARE(traefik.burstNeeded(a, perSecond(2)), 3);
        QCOMPARE(traefik.burstNeeded(a, traefik.maxStep()), 3);
        QCOMPARE(traefik.burstNeeded(b, perMinute(1)), 1);
        QCOMPARE(traefik.burstNeeded(c, perSecond(1000)), 10);
        // At 30 a minute, burst 5: c's first 5 pass, each other would wait 2 s: 5 denied.
        QCOMPARE(traefik.denied(c, perMinute(30), 5), 5);
        QCOMPARE(traefik.rateText(perMinute(30)), std::string("30 per 1m"));
        QCOMPARE(traefik.rateText(perSecond(2)), std::string("2 per 1s"));
    }

    // Why the ladder has no 90 a minute: three at 0 s and one at 0.2 s. At 1.5/s maxDelay is
    // 1 s / (2 * int(1.5)) = 500 ms, a debt of 0.75: d = 3 - 0.3 + 1 = 3.7, burst ceil(2.95) = 3.
    // At 2/s maxDelay is 250 ms, a debt of 0.5: d = 3 - 0.4 + 1 = 3.6, burst ceil(3.1) = 4: the
    // faster rate needs the larger burst (with 3 its fourth request would wait 0.3 s).
    void ninetyAMinuteBorrowsMore()
    {
        const std::vector<Nanos> times{0, 0, 0, 200 * kMs};
        QCOMPARE(deniedBy(times, 90, "1m", 3), 0);
        QCOMPARE(deniedBy(times, 2, "1s", 3), 1);
        QCOMPARE(deniedBy(times, 2, "1s", 4), 0);
        // On the ladder: 59 a minute (debt 59/120) and 1 a second (0.5) both need 4 here:
        // 3 - 0.2 * 59/60 + 1 = 3.80333 - 0.49167, and 3.8 - 0.5, rounded up.
        const TraefikBurstFamily traefik;
        QCOMPARE(traefik.burstNeeded(KeyTrace{times, {}}, perMinute(59)), 4);
        QCOMPARE(traefik.burstNeeded(KeyTrace{times, {}}, perSecond(1)), 4);
        QCOMPARE(traefik.burstNeeded(KeyTrace{times, {}}, perSecond(2)), 4);
    }

    // How the middleware is keyed by the log's key: the client's address by default, the host,
    // a header's field; Traefik has no criterion for a user.
    void theSourceCriterion()
    {
        QCOMPARE(traefikSourceCriterion("ip"), std::optional<std::string>(""));
        QCOMPARE(traefikSourceCriterion("host"),
                 std::optional<std::string>("        sourceCriterion:\n          requestHost: true\n"));
        QCOMPARE(traefikSourceCriterion("http_x_api_key"),
                 std::optional<std::string>("        sourceCriterion:\n          requestHeaderName: x-api-key\n"));
        QVERIFY(!traefikSourceCriterion("user"));
        QVERIFY(!traefikSourceCriterion("http_"));
    }

    // Property: on random traces the burst equals the brute-force least on the Traefik model, on
    // the ladder's per-minute and per-second steps, and never grows with the step.
    void burstIsTheBruteForceLeastAndFallsWithTheRate()
    {
        const TraefikBurstFamily traefik;
        const std::int64_t steps[] = {perMinute(1),  perMinute(7),  perMinute(30), perMinute(59), perSecond(1),
                                      perSecond(2),  perSecond(3),  perSecond(5),  perSecond(7),  perSecond(10),
                                      perSecond(64), perSecond(100)};
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTrace(rng);
            std::int64_t previous = std::numeric_limits<std::int64_t>::max();
            for (std::int64_t step : steps) {
                const std::int64_t b = traefik.burstNeeded(KeyTrace{times, {}}, step);
                QVERIFY2(b == bruteBurst(times, step), qPrintable(QString("seed %1 step %2").arg(seed).arg(step)));
                QVERIFY2(b <= previous, qPrintable(QString("seed %1: grows at step %2").arg(seed).arg(step)));
                previous = b;
            }
        }
    }

    // The written middleware: its text; `import` reads back the same limiter (30 a minute, burst
    // 5); the dry run denies what the advice says, key by key: c's 5 (burstsByHand).
    void theWrittenMiddlewareReadsBack()
    {
        const std::string config = traefikAdviceConfig(perMinute(30), 5, "");
        QCOMPARE(config, std::string("http:\n  middlewares:\n    ratelab-limit:\n      rateLimit:\n"
                                     "        average: 30\n        period: 1m\n        burst: 5\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Traefik rateLimit"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::Traefik});
        AnyLimiter read = makeLimiter(Algorithm::Traefik, imported.scenario.config);
        const auto& back = std::get<Traefik>(read);
        QCOMPARE(back.average(), 30);
        QCOMPARE(back.period(), 60 * kNanosPerSecond);
        QCOMPARE(back.burst(), 5);
        QCOMPARE(back.limitPerSecond(), 0.5);
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
        // A header's key: the dry run keys the middleware by the log's field of that header.
        const std::string keyed = traefikAdviceConfig(perSecond(2), 3, *traefikSourceCriterion("http_x_api_key"));
        QCOMPARE(keyed, std::string("http:\n  middlewares:\n    ratelab-limit:\n      rateLimit:\n"
                                    "        average: 2\n        period: 1s\n        burst: 3\n"
                                    "        sourceCriterion:\n          requestHeaderName: x-api-key\n"));
        // k1 sends 4 at once, k2 1: at burst 3 k1's fourth would wait 0.5 s, above 2 a second's
        // 250 ms: k1 1 denied, k2 none, each key its own bucket as the header keys it.
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        o.key = "http_x_api_key";
        const Traffic byHeader = parseTraffic("time,http_x_api_key,path\n1.0,k1,/\n1.0,k1,/\n1.0,k2,/\n1.0,k1,/\n"
                                              "1.0,k1,/\n",
                                              o, "k.csv");
        DryRunConfig keyedParsed = io::dryRunConfigText(QByteArray::fromStdString(keyed), "http_x_api_key");
        QCOMPARE(keyedParsed.notReplayed.size(), std::size_t(0));
        bindKeyFields(keyedParsed, byHeader);
        const DryRunResult k = dryRun(byHeader, keyedParsed);
        QCOMPARE(k.rules[0].deniedPerKey, (std::vector<std::int64_t>{1, 0}));
    }
};

QTEST_GUILESS_MAIN(TestTraefikAdvice)
#include "tst_advise_traefik.moc"
