// ownLimit ("Products are first-class"): the limit and window a row's max_in_window and
// overshoot are measured against. Every expected value below is worked out from the product's own
// documented semantics (the header comment of its model), not read back from the code; and a
// Traefik row under RateLab's L = 10, W = 10 s is measured against its own 100 per minute.
#include "engine/simulator.h"
#include "limiters/algorithm_facts.h"
#include "limiters/limiters.h"
#include "limiters/products/own_limit.h"
#include "limiters/products/product.h"
#include "view/reduce.h"
#include "view/row_extras.h"
#include "engine/engine.h"
#include "replay/replay.h"

#include "chart/summarytable.h"
#include "model/frame.h"

#include <QTest>

using namespace ratelab;

Q_DECLARE_METATYPE(ratelab::Algorithm)
Q_DECLARE_METATYPE(ratelab::LimiterConfig)

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

LimiterConfig with(std::vector<std::pair<std::string, std::string>> options, LimiterConfig base = LimiterConfig{})
{
    std::vector<ProductOption> out;
    for (auto& [name, value] : options)
        out.push_back({name, value});
    return base.withProductOptions(std::move(out));
}

// Traefik average=100, period=1m, burst=50 under RateLab's limit 10 per 10 s.
LimiterConfig traefik100()
{
    return with({{"average", "100"}, {"period", "1m"}, {"burst", "50"}}, LimiterConfig::make(10, 10 * kSecond));
}

// burst60 is 60 requests at t.
void burst60(std::vector<Nanos>& out, Nanos t) { out.insert(out.end(), 60, t); }

// The Traefik table: 60 requests at 0 s, 60 at 40 s, 60 at 59.5 s. Its rate is 100 per 60 s = 5/3 a
// second, its bucket 50, its maxDelay 1 s / (int(5/3) * 2) = 0.5 s.
// - 0 s: the full bucket passes 50; the 51st would wait 1 / (5/3) = 0.6 s > 0.5 s: refused
//   (its reservation cancelled), and so are the 9 after it.
// - 40 s: 40 s refill 66.7 tokens, the bucket holds 50: 50 pass, 10 are refused.
// - 59.5 s: 19.5 s refill 32.5 tokens: 32 pass at once; the 33rd waits 0.5 / (5/3) = 0.3 s <= 0.5 s:
//   admitted, delayed; the 34th would wait 0.9 s: refused, as are the 27 from it on.
// Admitted: 50 + 50 + 33 = 133 (1 delayed), denied 47. Every admission lies in (-0.5 s, 59.5 s], one
// window of Traefik's own 60 s: max_in_window 133, overshoot 133 / 100 = 1.33. (Over RateLab's 10 s
// the bursts are apart, 50 at most: 5.0x its limit of 10, which says nothing about Traefik.)
std::vector<Nanos> traefikArrivals()
{
    std::vector<Nanos> t;
    burst60(t, 0);
    burst60(t, 40 * kSecond);
    burst60(t, 59 * kSecond + kSecond / 2);
    return t;
}

// traceOf runs each algorithm as a plain row does: simulateOne, handed the arrivals' lookback
// over RateLab's W.
Trace traceOf(const LimiterConfig& config, std::vector<Algorithm> algorithms, std::vector<Nanos> arrivals)
{
    Trace trace{config, std::move(arrivals), {}, {}};
    const auto lookback = makeWindowLookback(trace.arrivals, config.windowNanos());
    for (Algorithm a : algorithms)
        trace.results.push_back(simulateOne(config, a, trace.arrivals, {}, lookback.get()));
    return trace;
}

// mostIn counts, apart from the simulator, the most admissions inside any (s - w, s].
std::int64_t mostIn(const std::vector<Nanos>& t, const std::vector<Decision>& d, Nanos w)
{
    std::int64_t inside = 0, most = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!d[i].allowed)
            continue;
        ++inside;
        for (; t[first] <= t[i] - w; ++first)
            inside -= d[first].allowed;
        most = std::max(most, inside);
    }
    return most;
}

} // namespace

class TestOwnLimit : public QObject {
    Q_OBJECT

private slots:
    void textbookAndBareProducts_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        const LimiterConfig configs[] = {LimiterConfig{}, LimiterConfig::make(3, 7 * kSecond),
                                         LimiterConfig::make(100, 60 * kSecond, 20, Rate{5, kSecond})};
        int k = 0;
        for (const LimiterConfig& c : configs) {
            for (Algorithm a : kEveryAlgorithm)
                QTest::addRow("%s #%d", algorithmId(a).data(), k) << a << c;
            ++k;
        }
        // Another product's options are none of this one's: express_rate_limit reads no `average`.
        for (Algorithm a : {Algorithm::ExpressRateLimit, Algorithm::Kong, Algorithm::Guava})
            QTest::addRow("%s beside traefik's options", algorithmId(a).data()) << a << traefik100();
        QTest::addRow("another product's qualified option")
            << Algorithm::EnvoyLocal << with({{"traefik.burst", "5"}}, LimiterConfig::make(3, 7 * kSecond));
    }
    // Every textbook algorithm, and every product given none of its options: RateLab's L per W.
    void textbookAndBareProducts()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        const LimitWindow own = ownLimit(algorithm, config);
        QCOMPARE(own.limit, config.limit());
        QCOMPARE(own.windowNanos, config.windowNanos());
    }

    void productsGivenOptions_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<qint64>("window");
        const auto row = [](const char* name, Algorithm a, std::vector<std::pair<std::string, std::string>> o,
                            qint64 limit, Nanos window) {
            QTest::newRow(name) << a << with(std::move(o)) << limit << qint64(window);
        };
        using A = Algorithm;
        // express-rate-limit: a 429 once a window's hits pass `limit` (alias max), windowMs long.
        row("express limit per windowMs", A::ExpressRateLimit, {{"windowMs", "60000"}, {"limit", "100"}}, 100, 60 * kSecond);
        row("express max, default 60 s", A::ExpressRateLimit, {{"max", "7"}}, 7, 60 * kSecond);
        row("express defaults: 5 per minute", A::ExpressRateLimit, {{"windowMs", "1s"}}, 5, kSecond);
        row("express limit 0 refuses all", A::ExpressRateLimit, {{"limit", "0"}, {"windowMs", "500"}}, 0, kSecond / 2);
        // rate-limiter-flexible: points per duration seconds; duration 0 never expires.
        row("flexible points per duration", A::RateLimiterFlexible, {{"points", "5"}, {"duration", "2"}}, 5, 2 * kSecond);
        row("flexible documentation's 4 per 1 s", A::RateLimiterFlexible, {{"blockDuration", "10"}}, 4, kSecond);
        row("flexible never expires", A::RateLimiterFlexible, {{"points", "9"}, {"duration", "0"}}, 9, kMaxNanos);
        // limits: the item's amount per its expiry, whatever the strategy.
        row("limits 10/minute", A::PythonLimits, {{"limit", "10/minute"}}, 10, 60 * kSecond);
        row("limits 10 per 2 minutes, moving", A::PythonLimits,
            {{"limit", "10 per 2 minutes"}, {"strategy", "moving-window"}}, 10, 120 * kSecond);
        row("limits 3 per day, elastic", A::PythonLimits,
            {{"limit", "3 per day"}, {"strategy", "fixed-window-elastic-expiry"}}, 3, 86400 * kSecond);
        // Guava: permitsPerSecond a second, over whole seconds when it is a fraction.
        row("guava 10 a second", A::Guava, {{"permitsPerSecond", "10"}}, 10, kSecond);
        row("guava 2.5 is 5 per 2 s", A::Guava, {{"permitsPerSecond", "2.5"}}, 5, 2 * kSecond);
        row("guava 0.5 is 1 per 2 s", A::Guava, {{"permitsPerSecond", "0.5"}}, 1, 2 * kSecond);
        row("guava 0.1 is 1 per 10 s", A::Guava, {{"permitsPerSecond", "0.1"}}, 1, 10 * kSecond);
        // Envoy: one fire adds tokens_per_fill, cut at max_tokens.
        row("envoy tokens_per_fill per fill_interval", A::EnvoyLocal,
            {{"max_tokens", "10"}, {"tokens_per_fill", "5"}, {"fill_interval", "1s"}}, 5, kSecond);
        row("envoy fill above max_tokens is cut", A::EnvoyLocal,
            {{"max_tokens", "3"}, {"tokens_per_fill", "10"}, {"fill_interval", "500ms"}}, 3, kSecond / 2);
        row("envoy default fill of 1", A::EnvoyLocal, {{"max_tokens", "10"}, {"fill_interval", "2"}}, 1, 2 * kSecond);
        // Traefik: average per period (period 1 s by default); average 0 lets burst through in all.
        row("traefik 100 per minute", A::Traefik, {{"average", "100"}, {"period", "1m"}, {"burst", "50"}}, 100, 60 * kSecond);
        row("traefik 6 per minute", A::Traefik, {{"average", "6"}, {"period", "1m"}}, 6, 60 * kSecond);
        row("traefik period 1 s", A::Traefik, {{"average", "5"}}, 5, kSecond);
        row("traefik average 0: burst in all", A::Traefik, {{"average", "0"}, {"burst", "3"}}, 3, kMaxNanos);
        row("traefik burst alone: average 0", A::Traefik, {{"burst", "4"}}, 4, kMaxNanos);
        // Spring: replenishRate tokens a second, requestedTokens a request.
        row("spring replenishRate a second", A::SpringGateway, {{"replenishRate", "10"}, {"burstCapacity", "20"}}, 10, kSecond);
        row("spring 10 tokens, 3 a request: 10 per 3 s", A::SpringGateway,
            {{"replenishRate", "10"}, {"burstCapacity", "30"}, {"requestedTokens", "3"}}, 10, 3 * kSecond);
        row("spring 6 tokens, 2 a request: 3 per 1 s", A::SpringGateway,
            {{"replenishRate", "6"}, {"burstCapacity", "6"}, {"requestedTokens", "2"}}, 3, kSecond);
        // Kong: the shortest configured period's limit (month 30 days, year 365, as expiration.lua).
        row("kong minute", A::Kong, {{"minute", "100"}}, 100, 60 * kSecond);
        row("kong second and hour", A::Kong, {{"second", "5"}, {"hour", "1000"}}, 5, kSecond);
        row("kong shortest, not smallest", A::Kong, {{"second", "100"}, {"minute", "50"}}, 100, kSecond);
        row("kong day and month", A::Kong, {{"day", "1000"}, {"month", "20000"}}, 1000, 86400 * kSecond);
        row("kong month is 30 days", A::Kong, {{"month", "10"}}, 10, 2'592'000 * kSecond);
        row("kong year is 365 days", A::Kong, {{"year", "1"}}, 1, 31'536'000 * kSecond);
        // redis-cell: count_per_period / quantity requests per period seconds.
        row("redis-cell 30 per 60 s", A::RedisCell, {{"max_burst", "15"}, {"count_per_period", "30"}, {"period", "60"}},
            30, 60 * kSecond);
        row("redis-cell quantity 2: 15 per 60 s", A::RedisCell,
            {{"max_burst", "15"}, {"count_per_period", "30"}, {"period", "60"}, {"quantity", "2"}}, 15, 60 * kSecond);
        row("redis-cell 5 per s, quantity 2: 5 per 2 s", A::RedisCell,
            {{"max_burst", "9"}, {"count_per_period", "5"}, {"period", "1"}, {"quantity", "2"}}, 5, 2 * kSecond);
        // npm limiter: tokensPerInterval per interval.
        row("limiter per hour", A::NodeLimiter, {{"tokensPerInterval", "150"}, {"interval", "hour"}}, 150, 3600 * kSecond);
        row("limiter per 250 ms", A::NodeLimiter, {{"tokensPerInterval", "5"}, {"interval", "250"}}, 5, kSecond / 4);
        row("limiter per minute", A::NodeLimiter, {{"tokensPerInterval", "2"}, {"interval", "min"}}, 2, 60 * kSecond);
        // @upstash/ratelimit: tokens per window; tokenBucket: refillRate per interval.
        row("upstash sliding 10 per 10 s", A::UpstashRatelimit, {{"tokens", "10"}, {"window", "10 s"}}, 10, 10 * kSecond);
        row("upstash fixed 100 per 1 m", A::UpstashRatelimit,
            {{"limiter", "fixedWindow"}, {"tokens", "100"}, {"window", "1m"}}, 100, 60 * kSecond);
        row("upstash bucket 5 per 2 s", A::UpstashRatelimit,
            {{"limiter", "tokenBucket"}, {"refillRate", "5"}, {"interval", "2 s"}, {"maxTokens", "20"}}, 5, 2 * kSecond);
        // Cloudflare: requests_per_period per period; AWS WAF: Limit per EvaluationWindowSec; API
        // Gateway: the slowest level's rate (a plan's 2.5/s under the account's 10,000/s: 5 per 2 s).
        row("cloudflare 10 per minute", A::CloudflareRate, {{"period", "60"}, {"requests_per_period", "10"}}, 10, 60 * kSecond);
        row("waf 100 per 5 min", A::AwsWafRate, {{"Limit", "100"}}, 100, 300 * kSecond);
        row("api gateway plan 2.5/s", A::AwsApiGateway, {{"plan_rate", "2.5"}, {"plan_burst", "5"}}, 5, 2 * kSecond);
    }
    // Each product given options, under RateLab's default 10 per 10 s: its own limit and window.
    void productsGivenOptions()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(qint64, limit);
        QFETCH(qint64, window);
        QVERIFY(ProductParams(algorithm, config).given());
        const LimitWindow own = ownLimit(algorithm, config);
        QCOMPARE(qint64(own.limit), limit);
        QCOMPARE(qint64(own.windowNanos), window);
    }

    // Options a product refuses are refused by ownLimit too (it builds the product).
    void refusedOptions()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, ownLimit(Algorithm::RedisCell, with({{"max_burst", "3"}})));
        QVERIFY_THROWS_EXCEPTION(InputError, ownLimit(Algorithm::PythonLimits, with({{"strategy", "moving-window"}})));
    }

    void overshootOfLimitZero()
    {
        QCOMPARE((LimitWindow{0, kSecond}.overshoot(0)), 0.0);
        QCOMPARE((LimitWindow{100, kSecond}.overshoot(133)), 1.33);
    }

    // The Traefik table above, through every plain path: simulateOne with the arrivals' lookback over
    // RateLab's 10 s and without one, decideStream and the one-pass reduction.
    void traefikRowAgainstItsOwnLimit()
    {
        const LimiterConfig config = traefik100();
        const std::vector<Nanos> arrivals = traefikArrivals();
        const Trace trace = traceOf(config, {Algorithm::Traefik, Algorithm::FixedWindow}, arrivals);
        const Metrics& m = trace.results.at(0).metrics;
        QCOMPARE(m.allowed, std::int64_t(133));
        QCOMPARE(m.denied, std::int64_t(47));
        QCOMPARE(m.delayed, std::int64_t(1));
        QCOMPARE(m.maxInWindow, std::int64_t(133));
        QCOMPARE(m.overshoot, 1.33);
        // The textbook row beside it keeps RateLab's 10 per 10 s: 10 at 0 s, at 40 s, at 59.5 s.
        QCOMPARE(trace.results.at(1).metrics.maxInWindow, std::int64_t(10));
        QCOMPARE(trace.results.at(1).metrics.overshoot, 1.0);

        QCOMPARE(simulateOne(config, Algorithm::Traefik, arrivals).metrics.maxInWindow, std::int64_t(133));
        const auto lookback = makeWindowLookback(arrivals, config.windowNanos());
        const Metrics streamed = decideStream(config, Algorithm::Traefik, arrivals, {}, [](std::size_t, std::span<const Decision>) {},
                                              lookback.get());
        QCOMPARE(streamed.maxInWindow, std::int64_t(133));
        QCOMPARE(streamed.overshoot, 1.33);
        const ReducedResult reduced = simulateReduced(config, Algorithm::Traefik, arrivals, {}, 0, 60 * kSecond, 100,
                                                      nullptr, lookback.get());
        QCOMPARE(reduced.trace.metrics.maxInWindow, std::int64_t(133));
        QCOMPARE(reduced.trace.metrics.overshoot, 1.33);

        // The summary table's running max and the view's recovery read the same window: by 59.5 s
        // all 133; Traefik's 50 at its rate of 5/3 a second refill in 30 s.
        QCOMPARE(maxUnitsSoFar(trace, 0).back(), 133u);
        QCOMPARE(maxUnitsSoFar(trace, 1).back(), 10u);
        const Trace alone = traceOf(config, {Algorithm::Traefik}, arrivals);
        QCOMPARE(ui::recoveryNanos(alone), 30 * kSecond);
    }

    // The same table through the engine (one node sharing a store, the path of every cluster,
    // client and layered row) and through replay (one key of a log, the fast path and the engine's
    // keyed store): the same 133 in Traefik's own 60 s, the same 1.33.
    void traefikRowOnTheEngineAndInReplay()
    {
        const LimiterConfig config = traefik100();
        const std::vector<Nanos> arrivals = traefikArrivals();
        EngineSetup setup;
        setup.layers = {Layer{Algorithm::Traefik, config}};
        setup.cluster = ClusterConfig::make({1, Balancer::RoundRobin, Coordination::Shared});
        const RowRun run = runRow(setup, {arrivals, {}, {}});
        QCOMPARE(run.metrics.allowed, std::int64_t(133));
        QCOMPARE(run.metrics.maxInWindow, std::int64_t(133));
        QCOMPARE(run.metrics.overshoot, 1.33);

        Traffic log;
        log.times = arrivals;
        log.keys.assign(arrivals.size(), 0);
        log.keyNames = {"one"};
        QCOMPARE(replayOne(log, Algorithm::Traefik, config).maxInWindow, std::int64_t(133));
        ReplayPlace onEngine;
        onEngine.cluster = ClusterConfig::make({1, Balancer::RoundRobin, Coordination::Shared});
        QCOMPARE(replayOne(log, Algorithm::Traefik, config, 1, nullptr, nullptr, onEngine).maxInWindow, std::int64_t(133));
    }

    // A window of the product's own 60 s holding more than a lookback keeps (65,534 earlier
    // arrivals) while RateLab's 10 s does not: the counter keeps its own verdicts, where
    // decideStream (handed the 10 s lookback) keeps none. Against an independent count.
    void ownWindowBeyondTheLookback()
    {
        const LimiterConfig config = traefik100();
        std::vector<Nanos> arrivals;
        for (Nanos t = 0; t < 65 * kSecond; t += kSecond / 2000) // 2,000 a second: 20,000 in 10 s
            arrivals.push_back(t);
        const auto lookback = makeWindowLookback(arrivals, config.windowNanos());
        QVERIFY(lookback);
        QVERIFY(!makeWindowLookback(arrivals, 60 * kSecond));
        const AlgorithmTrace one = simulateOne(config, Algorithm::Traefik, arrivals);
        const std::int64_t expected = mostIn(arrivals, one.decisions, 60 * kSecond);
        // 50 at once, then 100 a minute, and one early by maxDelay: about 150 in a minute.
        QVERIFY2(expected >= 140 && expected <= 160, qPrintable(QString::number(expected)));
        QCOMPARE(one.metrics.maxInWindow, expected);
        const Metrics streamed = decideStream(config, Algorithm::Traefik, arrivals, {}, [](std::size_t, std::span<const Decision>) {},
                                              lookback.get());
        QCOMPARE(streamed.maxInWindow, expected);
        QCOMPARE(traceOf(config, {Algorithm::Traefik}, arrivals).results.at(0).metrics.maxInWindow, expected);
    }

    // The dashed line of a product counting requests in a window is its own limit: Kong's is its
    // shortest period's (the window its level counts), not the smallest limit.
    void dashedLine()
    {
        const LimiterConfig kong = with({{"second", "100"}, {"minute", "50"}});
        QCOMPARE(facts(Algorithm::Kong).ceiling(kong), 100.0);
        QCOMPARE(facts(Algorithm::ExpressRateLimit).ceiling(with({{"limit", "100"}, {"windowMs", "60000"}})), 100.0);
        QCOMPARE(facts(Algorithm::NodeLimiter).ceiling(with({{"tokensPerInterval", "7"}, {"interval", "second"}})), 7.0);
        // No options: RateLab's limit, as before; a config the product refuses: none.
        QCOMPARE(facts(Algorithm::ExpressRateLimit).ceiling(LimiterConfig::make(3, 7 * kSecond)), 3.0);
        QCOMPARE(facts(Algorithm::Kong).ceiling(LimiterConfig::make(3, 7 * kSecond)), 0.0);
    }
};

QTEST_MAIN(TestOwnLimit)
#include "tst_own_limit.moc"
