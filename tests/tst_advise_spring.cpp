// advise for Spring Cloud Gateway's RedisRateLimiter (core/advise/spring_advice.h): the least
// burst of a trace worked out by hand in whole seconds of the clock, the ttl that switches
// limiting off and so ends the ladder, a seeded property against a brute-force search on the
// Spring model itself, and the written route read back by `import` and by the dry run `replay
// --config` runs.
#include "limiters/any_limiter.h"
#include "advise_log.h"
#include "advise/spring_advice.h"
#include "config_dry_run.h"
#include "config_import.h"
#include "limiters/products/spring_gateway.h"
#include "property_seeds.h"
#include "window_bound.h"
#include "replay/dry_run.h"

#include <QTest>

#include <limits>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;
constexpr Nanos kS = kNanosPerSecond;

using advisetest::randomTrace;
using advisetest::smallLog;

constexpr std::int64_t perMinute(std::int64_t n) { return n; }
constexpr std::int64_t perSecond(std::int64_t n) { return SpringBurstFamily::kPerMinuteSteps + n; }

// springOf builds the model from Spring's own three numbers, not through the family.
SpringGateway springOf(std::int64_t replenish, std::int64_t capacity, std::int64_t requested)
{
    return SpringGateway(LimiterConfig{}.withProductOptions({{"replenishRate", std::to_string(replenish)},
                                                             {"burstCapacity", std::to_string(capacity)},
                                                             {"requestedTokens", std::to_string(requested)}}));
}

std::int64_t deniedBy(const std::vector<Nanos>& times, const std::vector<std::int64_t>& costs, SpringGateway spring)
{
    std::int64_t out = 0;
    for (std::size_t i = 0; i < times.size(); ++i)
        out += !spring.decide(times[i], costs.empty() ? 1 : costs[i]).allowed;
    return out;
}

// bruteBurst is the least burst (in requests) at which the Spring model denies none of the
// trace and keeps its bucket (ttl above 0: limiting on), tried from 1 upwards. A step is written
// unreduced here: N a minute as replenishRate N, requestedTokens 60, burstCapacity 60 a request.
std::int64_t bruteBurst(const std::vector<Nanos>& times, const std::vector<std::int64_t>& costs, std::int64_t step)
{
    const std::int64_t replenish = step <= 59 ? step : step - 59, requested = step <= 59 ? 60 : 1;
    for (std::int64_t burst = 1;; ++burst) {
        const SpringGateway spring = springOf(replenish, burst * requested, requested);
        if (spring.ttlSeconds() > 0 && deniedBy(times, costs, spring) == 0)
            return burst;
    }
}

} // namespace

class TestSpringAdvice : public QObject {
    Q_OBJECT
private slots:
    // Key a's burst (1.1.1.1 in advise_log.h: four requests in the log's second 0, at 0 and
    // 0.5 s, one in second 1). With d = burstCapacity - tokens in tokens, each request makes
    // d = max(0, d - replenishRate * whole seconds since the last) + requestedTokens, and the
    // burst is the most d over requestedTokens, rounded up:
    //   1/min (replenishRate 1, requestedTokens 60): 60, 120, 180, 240, then 240 - 1 + 60 = 299:
    //       ceil(299 / 60) = 5.
    //   30/min (1 and 2): 2, 4, 6, 8, then 8 - 1 + 2 = 9: ceil(9 / 2) = 5.
    //   59/min (59 and 60): 60 .. 240, then 240 - 59 + 60 = 241: ceil(241 / 60) = 5.
    //   1/s: 1 .. 4, then 4 - 1 + 1 = 4: 4; and 4 at every rate above (second 0 holds 4).
    // Key b (one request) needs 1, key c (ten at once) 10, at every rate.
    void burstsByHand()
    {
        const SpringBurstFamily spring;
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace a = traces.trace(0), b = traces.trace(1), c = traces.trace(2);
        QCOMPARE(spring.burstNeeded(a, perMinute(1)), 5);
        QCOMPARE(spring.burstNeeded(a, perMinute(30)), 5);
        QCOMPARE(spring.burstNeeded(a, perMinute(59)), 5);
        QCOMPARE(spring.burstNeeded(a, perSecond(1)), 4);
        QCOMPARE(spring.burstNeeded(a, perSecond(2)), 4);
        QCOMPARE(spring.burstNeeded(a, spring.maxStep()), 4);
        QCOMPARE(spring.burstNeeded(b, perMinute(1)), 1);
        QCOMPARE(spring.burstNeeded(c, perSecond(1000)), 10);
        // At 30/min, burst 5 (burstCapacity 10, 2 tokens a request): c's first 5 pass, 5 denied.
        QCOMPARE(spring.denied(c, perMinute(30), 5), 5);
        QCOMPARE(spring.rateText(perMinute(30)), std::string("30/min"));
        QCOMPARE(spring.rateText(perSecond(2)), std::string("2/s"));
    }

    // Whole seconds, not elapsed time: at 1/s, requests at 0.9 s and 1.1 s fall in two seconds
    // of the clock, the second one getting a token (burst 1), where a bucket refilled
    // continuously would hold 0.2 of one (burst 2); at 0.1 s and 0.9 s they share a second
    // (burst 2). At 1/min (replenishRate 1, requestedTokens 60): 0 s and 59 s make d = 60, then
    // 60 - 59 + 60 = 61, burst ceil(61 / 60) = 2; 0 s and 60 s make 60 - 60 + 60 = 60, burst 1.
    void wholeSecondsOfTheClock()
    {
        const SpringBurstFamily spring;
        const auto burst = [&](std::vector<Nanos> times, std::int64_t step) {
            return spring.burstNeeded(KeyTrace{times, {}}, step);
        };
        QCOMPARE(burst({900 * kMs, 1100 * kMs}, perSecond(1)), 1);
        QCOMPARE(burst({100 * kMs, 900 * kMs}, perSecond(1)), 2);
        QCOMPARE(burst({0, 59 * kS}, perMinute(1)), 2);
        QCOMPARE(burst({0, 60 * kS}, perMinute(1)), 1);
        // The seconds are the clock's: a log starting at 12:00:59.500 has its requests at 0 and
        // 0.7 s in the epoch seconds ...259 and ...260, one token each (burst 1), where counted
        // from the log's start they would share second 0 (burst 2). The model denies alike.
        const std::vector<Nanos> twoSeconds{0, 700 * kMs};
        const KeyTrace midSecond{twoSeconds, {}, 1'795'435'259'500 * kMs};
        QCOMPARE(spring.burstNeeded(midSecond, perSecond(1)), 1);
        QCOMPARE(spring.denied(midSecond, perSecond(1), 1), 0);
        QCOMPARE(spring.burstNeeded(KeyTrace{twoSeconds, {}}, perSecond(1)), 2);
        QCOMPARE(spring.denied(KeyTrace{twoSeconds, {}}, perSecond(1), 1), 1);
        // A request of cost 3 asks 3 * requestedTokens: two of them in one second at 1/s need 6.
        const std::vector<Nanos> times{0, 0};
        const std::vector<std::int64_t> costs{3, 3};
        QCOMPARE(spring.burstNeeded(KeyTrace{times, costs}, perSecond(1)), 6);
    }

    // The ttl that ends the ladder: burstCapacity under half of replenishRate makes the script's
    // ttl floor(2 * 4 / 10) = 0, so it stores nothing and c's ten at once all pass at 10/s with
    // burst 4; at 8/s (ttl floor(8 / 8) = 1) and at 4/s the bucket of 4 is whole at every second,
    // the same limit: 4 pass, 6 denied. So the kept keys' floor burst 4 ends the ladder at 4/s.
    void theTtlEndsTheLadder()
    {
        const SpringBurstFamily spring;
        const KeyedTraces traces = keyedTraces(smallLog());
        const KeyTrace c = traces.trace(2);
        QCOMPARE(springOf(10, 4, 1).ttlSeconds(), 0);
        QCOMPARE(spring.denied(c, perSecond(10), 4), 0);
        QCOMPARE(spring.denied(c, perSecond(8), 4), 6);
        QCOMPARE(spring.denied(c, perSecond(4), 4), 6);
        QCOMPARE(spring.topStep(4), perSecond(4));
        // burstCapacity 0 refuses every request: never written, the least burst is 1.
        QCOMPARE(deniedBy({0}, {}, springOf(1, 0, 1)), 1);
        QCOMPARE(spring.burstNeeded(KeyTrace{}, perSecond(1)), 1);
    }

    // Advice on the small log keeping a and b (--keep 60: rank ceil(0.6 * 3) = 2, at most 5
    // requests): their burst is 5 at every rate a minute and 4 from 1/s on (burstsByHand), so the
    // floor is 4 and the top 4/s. The least rate whose burst drains within 10 s: N/min with burst
    // 5 drains in 300 / N s, so 30/min (10 s), not 29/min (10.3 s). The front: 1/min 5, 30/min 5
    // (the recommendation), 1/s 4; c loses 5 of its ten at 30/min, 6 at 1/s.
    void adviceOnTheSmallLog()
    {
        const SpringBurstFamily spring;
        AdviceOptions o;
        o.keep = kPercentUnit / 100 * 60;
        const Advice a = advise(keyedTraces(smallLog()), spring, o);
        QCOMPARE(a.floorBurst, 4);
        QCOMPARE(a.top, perSecond(4));
        QCOMPARE(a.recommended.step, perMinute(30));
        QCOMPARE(a.recommended.burst, 5);
        QCOMPARE(a.recommended.denied.other, 5);
        QCOMPARE(a.front.size(), std::size_t(3));
        QCOMPARE(a.front[0].step, perMinute(1));
        QCOMPARE(a.front[0].burst, 5);
        QCOMPARE(a.front[2].step, perSecond(1));
        QCOMPARE(a.front[2].burst, 4);
        QCOMPARE(a.front[2].denied.other, 6);
        // Asked to drain within 0.1 s: burst 4 would drain so at 40/s, where burstCapacity 4 is
        // under half of replenishRate 40 and limiting is off (theTtlEndsTheLadder). The ladder
        // ends at 4/s, which drains in 1 s, so no step drains in time: the lowest rate needing
        // the floor's 4 is advised, 1/s, which denies c 6 (4 pass in its one second).
        o.drain = kNanosPerSecond / 10;
        const Advice fast = advise(keyedTraces(smallLog()), spring, o);
        QVERIFY(!fast.drainMet);
        QCOMPARE(fast.recommended.step, perSecond(1));
        QCOMPARE(fast.recommended.burst, 4);
        QCOMPARE(fast.recommended.denied.other, 6);
    }

    // Property: on random traces the burst never grows with the step, over the whole ladder;
    // up to the trace's top it is the brute-force least on the Spring model (limiting on), and
    // above it the floor, the burst at the ladder's highest rate.
    void burstIsTheBruteForceLeastAndFallsWithTheRate()
    {
        const SpringBurstFamily spring;
        const std::int64_t steps[] = {perMinute(1),  perMinute(7),  perMinute(30), perMinute(59),  perSecond(1),
                                      perSecond(2),  perSecond(3),  perSecond(5),  perSecond(7),   perSecond(10),
                                      perSecond(64), perSecond(100), spring.maxStep()};
        std::vector<Nanos> times;
        std::vector<std::int64_t> costs;
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            randomTrace(rng, times, costs);
            const KeyTrace trace{times, costs};
            const std::int64_t floor = spring.burstNeeded(trace, spring.maxStep());
            std::int64_t previous = std::numeric_limits<std::int64_t>::max();
            for (std::int64_t step : steps) {
                const std::int64_t b = spring.burstNeeded(trace, step);
                const std::int64_t expected = step <= spring.topStep(floor) ? bruteBurst(times, costs, step) : floor;
                QVERIFY2(b == expected, qPrintable(QString("seed %1 step %2: %3, expected %4").arg(seed).arg(step).arg(b).arg(expected)));
                QVERIFY2(b <= previous, qPrintable(QString("seed %1: grows at step %2").arg(seed).arg(step)));
                previous = b;
            }
        }
    }

    // How the filter is keyed by the log's key: the principal by default, a KeyResolver bean
    // otherwise; none for a key Spring's request does not carry.
    void theKeyResolver()
    {
        QCOMPARE(springKeyResolver("user"), std::optional<std::string>(""));
        QCOMPARE(springKeyResolver("ip"),
                 std::optional<std::string>(
                     "Mono.justOrEmpty(exchange.getRequest().getRemoteAddress()).map(a -> a.getAddress().getHostAddress())"));
        QCOMPARE(springKeyResolver("http_x_api_key"),
                 std::optional<std::string>("Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(\"x-api-key\"))"));
        QVERIFY(!springKeyResolver("request_uri"));
        QVERIFY(!springKeyResolver("http_"));
    }

    // The written route: its text; `import` reads back the same limiter (30/min as replenishRate
    // 1, requestedTokens 2, burstCapacity 10: 5 requests at once); the dry run denies what the
    // advice says, key by key: c's 5 (burstsByHand).
    void theWrittenRouteReadsBack()
    {
        const std::string config = springAdviceConfig(perMinute(30), 5, *springKeyResolver("ip"));
        QCOMPARE(config, std::string("spring:\n  cloud:\n    gateway:\n      routes:\n        - id: ratelab-limit\n"
                                     "          uri: http://localhost:8080\n          predicates:\n            - Path=/**\n"
                                     "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                     "                redis-rate-limiter.replenishRate: 1\n"
                                     "                redis-rate-limiter.burstCapacity: 10\n"
                                     "                redis-rate-limiter.requestedTokens: 2\n"
                                     "                key-resolver: \"#{@ratelabKeyResolver}\"\n"
                                     "                deny-empty-key: false\n"
                                     "# The key: a bean of the application, beside @SpringBootApplication:\n"
                                     "#   @Bean KeyResolver ratelabKeyResolver() {\n"
                                     "#     return exchange -> Mono.justOrEmpty(exchange.getRequest().getRemoteAddress())"
                                     ".map(a -> a.getAddress().getHostAddress());\n"
                                     "#   }\n"));
        const io::ImportedConfig imported = io::importConfiguration(QByteArray::fromStdString(config));
        QCOMPARE(imported.product, std::string("Spring Cloud Gateway RedisRateLimiter"));
        QVERIFY(imported.scenario.algorithms == std::vector<Algorithm>{Algorithm::SpringGateway});
        AnyLimiter read = makeLimiter(Algorithm::SpringGateway, imported.scenario.config);
        const auto& back = std::get<SpringGateway>(read);
        QCOMPARE(back.replenishRate(), 1);
        QCOMPARE(back.requestedTokens(), 2);
        QCOMPARE(back.quota(), 5);
        QCOMPARE(back.ttlSeconds(), 20); // floor(10 / 1 * 2)
        const Traffic traffic = smallLog();
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "ip");
        bindKeyFields(parsed, traffic);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(traffic, parsed);
        QCOMPARE(r.rules.size(), std::size_t(1));
        QCOMPARE(r.rules[0].deniedPerKey, (std::vector<std::int64_t>{0, 0, 5}));
    }

    // Keyed by the principal: no key-resolver, so Spring's PrincipalNameKeyResolver, which the
    // dry run replays as the log's user. u1 sends 3 in one second, u2 1; at 1/s burst 2 u1's
    // third is denied; a request without a user passes (deny-empty-key: false), counted by none.
    void keyedByThePrincipal()
    {
        const std::string config = springAdviceConfig(perSecond(1), 2, "");
        QVERIFY(config.find("key-resolver") == std::string::npos);
        QVERIFY(config.find("# The key") == std::string::npos);
        TrafficOptions o;
        o.format = LogFormat::Csv;
        o.keepPaths = true;
        o.key = "user";
        const Traffic byUser = parseTraffic("time,user,path\n1.0,u1,/\n1.0,u1,/\n1.0,u2,/\n1.0,u1,/\n1.0,-,/\n", o, "u.csv");
        DryRunConfig parsed = io::dryRunConfigText(QByteArray::fromStdString(config), "user");
        bindKeyFields(parsed, byUser);
        QVERIFY(dryRunRefusal(parsed).empty());
        const DryRunResult r = dryRun(byUser, parsed);
        QCOMPARE(r.rules[0].requests, 4);
        QCOMPARE(r.denied, 1);
    }

    // mostIn by hand: replenishRate 2, burstCapacity 4 (2/s, burst 4), in any 2.5 s: 4 at the
    // first instant and 2 at each of at most 3 whole seconds: 10, which 4 at 0.5 s + 1 ns and 2 at
    // 1, 2 and 3 s reach. 30 a minute, burst 3 (replenishRate 1, requestedTokens 2, burstCapacity
    // 6), in 10 s: (6 + 1 * 10) / 2 = 8: 3 at 0.5 s, then one at 2, 4, 6, 8 and 10 s. 10/s with
    // burst 4 is off (2 * 4 < 10: the script stores nothing), and lets 100 at once through.
    void theMostInAWindowByHand()
    {
        using namespace advisetest;
        const SpringBurstFamily spring;
        const std::int64_t twoASecond = SpringBurstFamily::perSecond(2);
        QCOMPARE(*spring.mostIn(twoASecond, 4, 2'500'000'000), 10);
        std::vector<Nanos> worst;
        burstAt(worst, 500'000'001, 4);
        for (Nanos s : {1, 2, 3})
            burstAt(worst, s * kNanosPerSecond, 2);
        QCOMPARE(mostThrough(SpringGateway(spring.config(twoASecond, 4)), worst, 2'500'000'000), 10);
        QCOMPARE(*spring.mostIn(30, 3, 10 * kNanosPerSecond), 8);
        std::vector<Nanos> slow;
        burstAt(slow, 500'000'000, 3);
        for (Nanos s : {2, 4, 6, 8, 10})
            burstAt(slow, s * kNanosPerSecond, 1);
        QCOMPARE(mostThrough(SpringGateway(spring.config(30, 3)), slow, 10 * kNanosPerSecond), 8);
        const std::int64_t tenASecond = SpringBurstFamily::perSecond(10);
        QCOMPARE(*spring.mostIn(tenASecond, 4, kNanosPerSecond), std::numeric_limits<std::int64_t>::max());
        std::vector<Nanos> flood;
        burstAt(flood, 0, 100);
        QCOMPARE(mostThrough(SpringGateway(spring.config(tenASecond, 4)), flood, 1), 100);
    }

    // Property: no run of SpringGateway on a dense random trace admits more in a window than
    // mostIn, per-minute steps (whole tokens over several seconds) among them.
    void noRunLetsMoreThroughThanMostIn()
    {
        const SpringBurstFamily spring;
        const std::vector<Nanos> gaps{0, 1, kNanosPerSecond - 1, kNanosPerSecond, kNanosPerSecond + 1, 3 * kNanosPerSecond};
        const std::vector<Nanos> windows{1, kNanosPerSecond, kNanosPerSecond + 1, 5 * kNanosPerSecond, 61 * kNanosPerSecond};
        QCOMPARE(advisetest::firstExcess<SpringGateway>(spring, gaps, windows, [&](std::mt19937_64& rng, std::uint64_t seed) {
            const std::int64_t step = std::uniform_int_distribution<std::int64_t>(1, 6)(rng) * 10 - 1 + (seed % 2 ? 0 : 40);
            // From half a second's tokens up, where the script limits at all (below, mostIn is no limit).
            const std::int64_t perSecond = step > SpringBurstFamily::kPerMinuteSteps ? step - SpringBurstFamily::kPerMinuteSteps : 0;
            const std::int64_t burst = std::uniform_int_distribution<std::int64_t>((perSecond + 1) / 2 + 1, perSecond / 2 + 9)(rng);
            if (*spring.mostIn(step, burst, kNanosPerSecond) == std::numeric_limits<std::int64_t>::max())
                qFatal("the draw left the script's limit off");
            return std::pair{step, burst};
        }),
                 QString());
    }
};

QTEST_GUILESS_MAIN(TestSpringAdvice)
#include "tst_advise_spring.moc"
