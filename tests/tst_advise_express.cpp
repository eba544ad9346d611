// advise for express-rate-limit (core/advise/express_advice.h): each window's least limit worked
// out by hand on the shared log, windows from a key's first request rather than the clock's, a
// seeded property against a brute-force search on the model itself, and the written options read
// back by `import` and by the dry run `replay --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/express_advice.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/express_rate_limit.h"
#include "property_seeds.h"
#include "replay/dry_run.h"

#include <QTest>

#include <random>

using namespace ratelab;

namespace {

using advisetest::smallLog;

constexpr Nanos kMs = 1'000'000;

// randomTimes is 1 to 30 requests, in order, gaps from none to over a minute.
std::vector<Nanos> randomTimes(std::mt19937_64& rng)
{
    std::vector<Nanos> out;
    const auto n = std::uniform_int_distribution<int>(1, 30)(rng);
    const Nanos gaps[] = {0, 0, 1, 300 * kMs, 999 * kMs, 1000 * kMs, 7000 * kMs, 59'999 * kMs, 61'000 * kMs};
    Nanos t = std::uniform_int_distribution<Nanos>(0, 999)(rng) * kMs;
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 8)(rng)];
        out.push_back(t);
    }
    return out;
}

std::int64_t bruteLeast(KeyTrace trace, std::int64_t windowMs)
{
    for (std::int64_t limit = 1;; ++limit)
        if (expressDenied(trace, windowMs, limit) == 0)
            return limit;
}

} // namespace

class TestExpressAdvice : public QObject {
    Q_OBJECT
private slots:
    // advise_log.h's 1.1.1.1: 3 at 0 ms, 1 at 500, 1 at 1000. windowMs 1000: the window from 0
    // ends at 1000 (resetTime <= now), so it holds 4, the next 1: 4; a minute or more holds all
    // 5. 2.2.2.2: 1; 3.3.3.3: 10. And windows start at a key's first request: 500, 1400 and 1450
    // ms fall in one window of 1000 from 500 (3), though in two seconds of the clock (1, 2).
    void windowsByHand()
    {
        const KeyedTraces traces = keyedTraces(smallLog());
        QCOMPARE(expressWindowMost(traces.trace(0), 1000), 4);
        QCOMPARE(expressWindowMost(traces.trace(0), 60'000), 5);
        QCOMPARE(expressWindowMost(traces.trace(1), 1000), 1);
        QCOMPARE(expressWindowMost(traces.trace(2), 3'600'000), 10);
        const std::vector<Nanos> times{500 * kMs, 1400 * kMs, 1450 * kMs};
        QCOMPARE(expressWindowMost(KeyTrace{times, {}}, 1000), 3);
    }

    // --keep 50 keeps 1.1.1.1 and 2.2.2.2 (1, 5, 10 requests: rank 2, at most 5). Least limits:
    // 4 at 1000 ms, 5 at a minute, 15 minutes and an hour; 3.3.3.3's ten at once lose all beyond
    // (6, then 5). Recommended: the minute, limit 5: 3.3.3.3 loses 5.
    void theAdviceByHand()
    {
        const ExpressAdvice e = adviseExpress(keyedTraces(smallLog()), kPercentUnit / 2);
        QCOMPARE(e.keys.keptKeys, 2);
        const std::int64_t limits[] = {4, 5, 5, 5}, denied[] = {6, 5, 5, 5};
        QCOMPARE(e.windows.size(), std::size_t(4));
        for (std::size_t w = 0; w < 4; ++w) {
            QCOMPARE(e.windows[w].windowMs, kExpressWindowsMs[w]);
            QCOMPARE(e.windows[w].limit, limits[w]);
            QCOMPARE(e.windows[w].denied.kept, 0);
            QCOMPARE(e.windows[w].denied.other, denied[w]);
            QCOMPARE(e.windows[w].denied.keys, 1);
        }
        QCOMPARE(e.recommended().windowMs, 60'000);
        QCOMPARE(e.deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
    }

    // Property: on random traces the least limit is the brute-force least on the model, and
    // every higher limit admits all as well.
    void leastIsTheBruteForceLeastAndMonotone()
    {
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const std::vector<Nanos> times = randomTimes(rng);
            const KeyTrace trace{times, {}};
            for (std::int64_t windowMs : {1000, 60'000}) {
                const std::int64_t least = expressWindowMost(trace, windowMs);
                const QString where = QString("seed %1 windowMs %2").arg(seed).arg(windowMs);
                QVERIFY2(least == bruteLeast(trace, windowMs), qPrintable(where));
                for (std::int64_t above = 1; above <= 3; ++above)
                    QVERIFY2(expressDenied(trace, windowMs, least + above) == 0, qPrintable(where));
            }
        }
    }

    // The written options: `import` reads back windowMs 60000 and limit 5; the dry run denies
    // what the advice says, key by key: 3.3.3.3's 5.
    void theWrittenOptionsReadBack()
    {
        const std::string config = expressAdviceConfig(60'000, 5);
        QCOMPARE(config, std::string("{windowMs: 60000, limit: 5}\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("express-rate-limit"));
        AnyLimiter read = makeLimiter(Algorithm::ExpressRateLimit, imported.scenario.config);
        QCOMPARE(std::get<ExpressRateLimit>(read).windowMs(), 60'000);
        QCOMPARE(std::get<ExpressRateLimit>(read).limit(), 5);
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules[0].requests, 16);
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
    }
};

QTEST_GUILESS_MAIN(TestExpressAdvice)
#include "tst_advise_express.moc"
