// The product models (core/products/) against tables derived by hand from each product's own
// source rules, as the comment above each table works out. Every row is checked field by field,
// and on copies: `remaining` more requests at t pass and one more does not; a denied request's
// retry_after admits at t + d and not at t + d - 1 ns. Each product's surprise has its row:
// Traefik's 6 per 1m, Spring's burstCapacity 0 (and below half the rate), nginx's 50r/s page
// load, Envoy's fill interval, redis-cell's max_burst 15.
#include "limiters/any_limiter.h"
#include "limiter_steps.h"

#include "limiters/algorithm_facts.h"
#include "limiters/products/product.h"

#include <QTest>

using namespace ratelab;

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

LimiterConfig with(Options options, LimiterConfig base = LimiterConfig{})
{
    std::vector<ProductOption> out;
    for (auto& [name, value] : options)
        out.push_back({name, value});
    return base.withProductOptions(std::move(out));
}

constexpr Nanos kNever = kRetryNever;
constexpr Nanos kDays = 86400 * kNanosPerSecond;

// check replays a product's table: slack is how far (ns) a retry_after may sit from the table's
// value, for the products that compute in floating point (0: exact).
QString check(Algorithm a, const LimiterConfig& config, const Steps& steps, Nanos slack = 0)
{
    AnyLimiter limiter = makeLimiter(a, config);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& want = steps[i];
        const Decision got = limiter.decide(want.t);
        const QString where = QStringLiteral("request %1 at %2: ").arg(i).arg(at(want.t));
        if (got.allowed != want.allowed)
            return where + (got.allowed ? "admitted, expected denied" : "denied, expected admitted");
        if (got.remaining != want.remaining)
            return where + QStringLiteral("remaining %1, expected %2").arg(got.remaining).arg(want.remaining);
        const bool retryOk = got.retryAfter == want.retryAfter
                          || (want.retryAfter > 0 && got.retryAfter > 0 && std::abs(got.retryAfter - want.retryAfter) <= slack);
        if (!retryOk)
            return where + QStringLiteral("retry_after %1 ns, expected %2 ns").arg(got.retryAfter).arg(want.retryAfter);
        if (std::abs(got.delay - want.delay) > slack)
            return where + QStringLiteral("delay %1 ns, expected %2 ns").arg(got.delay).arg(want.delay);
        if (std::abs(got.level - want.level) > 1e-9 * std::max(1.0, std::abs(want.level)))
            return where + QStringLiteral("level %1, expected %2").arg(got.level, 0, 'g', 17).arg(want.level, 0, 'g', 17);
        if (got.allowed && got.remaining < 1000) {
            AnyLimiter copy = limiter;
            for (std::int32_t k = 0; k < got.remaining; ++k)
                if (!copy.decide(want.t).allowed)
                    return where + QStringLiteral("remaining %1, but only %2 more passed").arg(got.remaining).arg(k);
            if (copy.decide(want.t).allowed)
                return where + QStringLiteral("remaining %1, but one more passed").arg(got.remaining);
        }
        if (!got.allowed && got.retryAfter > 0) {
            if (AnyLimiter(limiter).decide(want.t + got.retryAfter - 1).allowed)
                return where + "1 ns before retry_after already passes";
            if (!AnyLimiter(limiter).decide(want.t + got.retryAfter).allowed)
                return where + "a request at retry_after is denied";
        }
    }
    return {};
}

Steps times(std::int64_t n, Nanos t, bool allowed)
{
    Steps s;
    for (std::int64_t i = 0; i < n; ++i)
        s.push_back(Step{t, allowed, 0, 0, 0, 0});
    return s;
}

} // namespace

Q_DECLARE_METATYPE(ratelab::Algorithm)

class TestProducts : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Steps>("steps");
        QTest::addColumn<qint64>("slack");

        // Traefik average 6, period 1m, burst 1: rtl = 6e9/60e9 = 0.1/s, maxDelay 500 ms (rtl < 1).
        // 0: the bucket is full (1), admitted. 2 s: 0.2 tokens, the wait (8 s) > 500 ms: cancelled,
        // 429; it passes once the wait is <= 0.5 s: 0.95 tokens at 2 + 7.5 s. 10 s: 1.0 tokens,
        // admitted. 15 s: 0.5, retry at 19.5 (4.5 s; float: a ns either way). 19.6: 0.96 tokens,
        // admitted and held 0.4 s. 20 s: 0 tokens, the wait 10 s: 429 until 29.5. One per 10 s.
        QTest::newRow("traefik 6/1m is one per 10 s")
            << Algorithm::Traefik << with({{"average", "6"}, {"period", "1m"}, {"burst", "1"}})
            << Steps{admitted(0, 0, 0), denied(sec(2), ms(7500), 0.2), admitted(sec(10), 0, 0),
                     denied(sec(15), ms(4500), 0.5), admitted(ms(19600), 0, -0.04, ms(400)),
                     denied(sec(20), ms(9500), 0)}
            << qint64(2);

        // Spring burstCapacity 0: the bucket holds 0 and nothing fills it: every request is
        // refused, and no wait helps (the script's `filled_tokens >= requested` never holds).
        QTest::newRow("spring burstCapacity 0 refuses all")
            << Algorithm::SpringGateway << with({{"replenishRate", "10"}, {"burstCapacity", "0"}})
            << Steps{denied(0, kNever, 0), denied(sec(1), kNever, 0), denied(sec(100), kNever, 0)} << qint64(0);
        // replenishRate 10, burstCapacity 4: ttl = floor(4/10 * 2) = 0, nothing is stored, every
        // request finds a full bucket of 4: limiting is off (remaining: unbounded, clamped).
        Steps off = times(50, 0, true);
        for (Step& s : off) {
            s.remaining = 2'000'000'000;
            s.level = 4;
        }
        QTest::newRow("spring burstCapacity below half the rate is off")
            << Algorithm::SpringGateway << with({{"replenishRate", "10"}, {"burstCapacity", "4"}}) << off << qint64(0);
        // replenishRate 1, burstCapacity 2 (ttl 4): whole seconds. 0: 2 -> 1; 0: 1 -> 0; 0: 0, denied
        // until second 1 (1 s); 0.5 (0.5 s); 0.999 (1 ms); 1.0: 1 token, admitted; 1.0 again: denied 1 s.
        QTest::newRow("spring whole seconds")
            << Algorithm::SpringGateway << with({{"replenishRate", "1"}, {"burstCapacity", "2"}})
            << Steps{admitted(0, 1, 1), admitted(0, 0, 0), denied(0, sec(1), 0), denied(ms(500), ms(500), 0),
                     denied(ms(999), ms(1), 0), admitted(sec(1), 0, 0), denied(sec(1), sec(1), 0)}
            << qint64(0);

        // Envoy max_tokens 3, tokens_per_fill 15, fill_interval 1s: a fill is cut to max_tokens,
        // so at most 3 a second pass, not 15. 0: 3 -> 2 -> 1 -> 0, the 4th waits for the fire at
        // 1 s; 0.5 s: 0.5 s; 1 s: refilled to 3, again 3 pass.
        QTest::newRow("envoy tokens_per_fill above max_tokens")
            << Algorithm::EnvoyLocal
            << with({{"max_tokens", "3"}, {"tokens_per_fill", "15"}, {"fill_interval", "1s"}})
            << Steps{admitted(0, 2, 2), admitted(0, 1, 1), admitted(0, 0, 0), denied(0, sec(1), 0),
                     denied(ms(500), ms(500), 0), admitted(sec(1), 2, 2), admitted(sec(1), 1, 1),
                     admitted(sec(1), 0, 0), denied(sec(1), sec(1), 0)}
            << qint64(0);
        // max_tokens 2, tokens_per_fill 1, fill_interval 0.5s (2/s on average): nothing refills
        // between fires: 0.1 s waits 0.4 s, 0.499999999 waits 1 ns, 0.5 finds one token.
        QTest::newRow("envoy fill interval granularity")
            << Algorithm::EnvoyLocal
            << with({{"max_tokens", "2"}, {"tokens_per_fill", "1"}, {"fill_interval", "0.5s"}})
            << Steps{admitted(0, 1, 1), admitted(0, 0, 0), denied(ms(100), ms(400), 0),
                     denied(ns(499'999'999), 1, 0), admitted(ms(500), 0, 0), denied(ms(600), ms(400), 0)}
            << qint64(0);

        // redis-cell max_burst 15, 1 per 1 s: tolerance (15 + 1) * 1 s: 16 pass at once (remaining
        // 15..0, backlog 1..16 s), the 17th waits 1 s; at 1 s one more passes.
        Steps cell;
        for (int k = 1; k <= 16; ++k)
            cell.push_back(admitted(0, 16 - k, double(k)));
        cell.push_back(denied(0, sec(1), 16));
        cell.push_back(admitted(sec(1), 0, 16));
        QTest::newRow("redis-cell max_burst 15 admits 16")
            << Algorithm::RedisCell << with({{"max_burst", "15"}, {"count_per_period", "1"}, {"period", "1"}}) << cell
            << qint64(0);

        // express-rate-limit windowMs 1000, limit 2. 0: hits 1; 0.5: 2; 0.6: 3 (counted!) > 2,
        // 429 until resetTime 1000 ms; 0.999: 4; 1.0: resetTime <= now, new window to 2.0.
        QTest::newRow("express counts rejected hits")
            << Algorithm::ExpressRateLimit << with({{"windowMs", "1000"}, {"limit", "2"}})
            << Steps{admitted(0, 1, 1), admitted(ms(500), 0, 2), denied(ms(600), ms(400), 3),
                     denied(ms(999), ms(1), 4), admitted(sec(1), 1, 1), admitted(ms(1200), 0, 2),
                     denied(ms(1500), ms(500), 3)}
            << qint64(0);
        // The window starts at the first request (0.3 s), not at a clock boundary: 1.0 s is still
        // inside it, denied until 1.3 s.
        QTest::newRow("express window from the first request")
            << Algorithm::ExpressRateLimit << with({{"windowMs", "1000"}, {"limit", "2"}})
            << Steps{admitted(ms(300), 1, 1), admitted(ms(400), 0, 2), denied(sec(1), ms(300), 3),
                     admitted(ms(1300), 1, 1)}
            << qint64(0);

        // rate-limiter-flexible points 2, duration 1, blockDuration 5. 0, 0.1: consumed 1, 2. 0.2:
        // 3 > 2, the first excess: the record is set anew to expire at 5.2 s (retry 5 s). 1.5: 4,
        // no new block (4 > 2 + 1), retry 3.7 s. 5.2: expiresAt - now = 0, not > 0: a new record.
        QTest::newRow("flexible blockDuration")
            << Algorithm::RateLimiterFlexible << with({{"points", "2"}, {"duration", "1"}, {"blockDuration", "5"}})
            << Steps{admitted(0, 1, 1), admitted(ms(100), 0, 2), denied(ms(200), sec(5), 3),
                     denied(ms(1500), ms(3700), 4), admitted(ms(5200), 1, 1)}
            << qint64(0);
        QTest::newRow("flexible without block")
            << Algorithm::RateLimiterFlexible << with({{"points", "2"}, {"duration", "1"}})
            << Steps{admitted(0, 1, 1), admitted(ms(100), 0, 2), denied(ms(200), ms(800), 3), admitted(sec(1), 1, 1)}
            << qint64(0);

        // limits moving-window "2 per 1 second": at 1.0 the 2nd newest entry (0.0) is >= 1.0 - 1:
        // still counted, denied (the textbook log forgets it at exactly W); 1 ns later it passes.
        QTest::newRow("limits moving window keeps the entry at exactly W")
            << Algorithm::PythonLimits << with({{"strategy", "moving-window"}, {"limit", "2 per 1 second"}})
            << Steps{admitted(0, 1, 1), admitted(ms(500), 0, 2), denied(sec(1), 1, 2), admitted(ns(1'000'000'001), 0, 2)}
            << qint64(0);
        // fixed-window "2/second": the window runs from the first hit (expiry 1.0); 0.75 is hit 3
        // (counted), denied until 1.0; 1.0 drops the counter (expiration <= now).
        QTest::newRow("limits fixed window")
            << Algorithm::PythonLimits << with({{"limit", "2/second"}})
            << Steps{admitted(0, 1, 1), admitted(ms(500), 0, 2), denied(ms(750), ms(250), 3), admitted(sec(1), 1, 1)}
            << qint64(0);
        // elastic: every hit moves the expiry: 0.75 -> 1.75 (retry 1 s); 1.5 -> 2.5 (retry 1 s);
        // only at 2.5 is the counter dropped.
        QTest::newRow("limits elastic expiry")
            << Algorithm::PythonLimits << with({{"strategy", "fixed-window-elastic-expiry"}, {"limit", "2/second"}})
            << Steps{admitted(0, 1, 1), admitted(ms(500), 0, 2), denied(ms(750), sec(1), 3), denied(ms(1500), sec(1), 4),
                     admitted(ms(2500), 1, 1)}
            << qint64(0);

        // Guava permitsPerSecond 2 (interval 500000 us, at most 2 stored), starting with none.
        // 0: the ticket is free, 1 fresh permit, next ticket at 0.5 s. 0.1: not free, 0.4 s. 0.5:
        // free, next at 1.0. 3.0: resync stores min(2, 4) = 2: three pass at once (2 stored + 1
        // borrowed, next ticket 3.5), the 4th waits 0.5 s.
        QTest::newRow("guava stores a second, the one that exceeds pays")
            << Algorithm::Guava << with({{"permitsPerSecond", "2"}})
            << Steps{admitted(0, 0, 0), denied(ms(100), ms(400), 0), admitted(ms(500), 0, 0), admitted(sec(3), 2, 1),
                     admitted(sec(3), 1, 0), admitted(sec(3), 0, 0), denied(sec(3), ms(500), 0)}
            << qint64(0);

        // npm limiter tokensPerInterval 2, interval 1000: the bucket starts full (2) and the window
        // runs from creation (0). 0, 0 pass; the 3rd finds the window full. 0.5 s: the window
        // (still [0, 1000)) is full. 1 s: the window restarts; the bucket dripped 2 * 1000/1000: full;
        // after two the window is full again until 2 s, though a token drips back at 1.5 s.
        QTest::newRow("npm limiter window and bucket")
            << Algorithm::NodeLimiter << with({{"tokensPerInterval", "2"}, {"interval", "1000"}})
            << Steps{admitted(0, 1, 1), admitted(0, 0, 0), denied(0, sec(1), 0), denied(ms(500), ms(500), 1),
                     admitted(sec(1), 1, 1), admitted(sec(1), 0, 0), denied(sec(1), sec(1), 0)}
            << qint64(0);

        // Kong minute=3 (local): windows on the minute. 59, 59.5, 59.9 pass; 59.99 waits for 60 s;
        // at 60 three more pass: 6 within one second across the boundary. 60.5 waits 59.5 s.
        QTest::newRow("kong minute boundary")
            << Algorithm::Kong << with({{"minute", "3"}})
            << Steps{admitted(sec(59), 2, 1), admitted(ms(59500), 1, 2), admitted(ms(59900), 0, 3),
                     denied(ms(59990), ms(10), 3), admitted(sec(60), 2, 1), admitted(sec(60), 1, 2),
                     admitted(sec(60), 0, 3), denied(ms(60500), ms(59500), 3)}
            << qint64(0);
        // month=2: January 1970 has 31 days; a request on day 30 waits until February 1st.
        QTest::newRow("kong month on the calendar")
            << Algorithm::Kong << with({{"month", "2"}})
            << Steps{admitted(30 * kDays, 1, 1), admitted(30 * kDays + sec(1), 0, 2),
                     denied(30 * kDays + sec(2), kDays - sec(2), 2), admitted(31 * kDays, 1, 1)}
            << qint64(0);
        // Whole seconds: second=1; 0.2 passes, 0.9 is the same second (retry 0.1 s).
        QTest::newRow("kong whole seconds")
            << Algorithm::Kong << with({{"second", "1"}})
            << Steps{admitted(ms(200), 0, 1), denied(ms(900), ms(100), 1), admitted(sec(1), 0, 1)} << qint64(0);
    }

    void decisions()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(Steps, steps);
        QFETCH(qint64, slack);
        const QString problem = check(algorithm, config, steps, slack);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // limits' moving window with a cost (RateLab's extension: `amount` entries at once, as
    // acquire_entry(amount=k) inserts them): "3 per 1 second". 0: cost 2 -> [0, 0]. 0.5: cost 2
    // reads entry 3 - 2 = 1 (atime 0 >= -0.5): refused. 0.5: cost 1 reads entry 2: none, passes ->
    // [0.5, 0, 0]. 1.0: entry 2 is 0.0 >= 1.0 - 1: refused; 1 ns later it passes.
    void limitsMovingWindowCost()
    {
        AnyLimiter l = makeLimiter(Algorithm::PythonLimits, with({{"strategy", "moving-window"}, {"limit", "3 per 1 second"}}));
        QVERIFY(l.decide(0, 2).allowed);
        QCOMPARE(l.remainingAt(0), 1);
        QVERIFY(!l.decide(ms(500), 2).allowed);
        QVERIFY(l.decide(ms(500), 1).allowed);
        QCOMPARE(l.remainingAt(sec(1)), 0);
        QVERIFY(!l.decide(sec(1), 1).allowed);
        QCOMPARE(l.waitFor(sec(1), 1), 1);
        QVERIFY(l.decide(sec(1) + 1, 1).allowed);
        QVERIFY(!l.decide(sec(1) + 1, 4).allowed); // more than the amount: never
        QCOMPARE(l.decide(sec(1) + 1, 4).retryAfter, kRetryNever);
    }

    // nginx's 50r/s with burst=8 nodelay: a page load of 27 requests at once gets 9 through and
    // 18 rejected (excess passes 8000 from the 10th on): 50r/s is one request per 20 ms, not 50
    // at once.
    void nginxPageLoad()
    {
        const LimiterConfig c = LimiterConfig::make(50, sec(1), 9).withNginx(NginxOptions{8, true, 0});
        AnyLimiter l = makeLimiter(Algorithm::NginxLimitReq, c);
        int admittedCount = 0;
        for (int i = 0; i < 27; ++i)
            admittedCount += l.decide(ms(1)).allowed ? 1 : 0;
        QCOMPARE(admittedCount, 9);
        // One more passes 20 ms later, and only one.
        QVERIFY(l.decide(ms(21)).allowed);
        QVERIFY(!l.decide(ms(21)).allowed);
    }

    // With no option of its own, each product is configured from L, W, C, r and decides.
    void defaultsFromTheConfig()
    {
        const LimiterConfig c = LimiterConfig::make(10, sec(10)); // 10 per 10 s, capacity 10, 1/s
        for (Algorithm a : kEveryAlgorithm) {
            if (!isProduct(a) || a == Algorithm::Kong)
                continue;
            AnyLimiter l = makeLimiter(a, c);
            QVERIFY2(l.decide(0).allowed, algorithmId(a).data());
        }
        // redis-cell: max_burst C - 1 = 9, so 10 at once; Envoy: 10 tokens; Kong has no 10 s window.
        AnyLimiter cell = makeLimiter(Algorithm::RedisCell, c);
        int n = 0;
        while (cell.decide(0).allowed)
            ++n;
        QCOMPARE(n, 10);
        QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(Algorithm::Kong, LimiterConfig::make(10, sec(7))));
    }

    void refusals_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::newRow("envoy fill below 50 ms") << Algorithm::EnvoyLocal
                                                << with({{"max_tokens", "5"}, {"fill_interval", "10ms"}});
        QTest::newRow("envoy max_tokens required") << Algorithm::EnvoyLocal << with({{"fill_interval", "1s"}});
        QTest::newRow("spring replenishRate required") << Algorithm::SpringGateway << with({{"burstCapacity", "5"}});
        QTest::newRow("limits notation") << Algorithm::PythonLimits << with({{"limit", "ten a minute"}});
        QTest::newRow("limits strategy") << Algorithm::PythonLimits << with({{"strategy", "leaky"}, {"limit", "1/second"}});
        QTest::newRow("guava rate") << Algorithm::Guava << with({{"permitsPerSecond", "-1"}});
        QTest::newRow("redis-cell period 0") << Algorithm::RedisCell
                                                  << with({{"max_burst", "1"}, {"count_per_period", "1000000000"},
                                                           {"period", "0"}});
        QTest::newRow("express windowMs") << Algorithm::ExpressRateLimit << with({{"windowMs", "0"}});
    }

    void refusals()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(algorithm, config));
    }

    // Options: a plain name reaches every product that reads it, product.name only that one; a
    // name no chosen product reads is refused, as is one no product reads at all.
    void options()
    {
        QCOMPARE(parseProductOption("traefik.period=1m").name, std::string("traefik.period"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseProductOption("nosuch=1"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseProductOption("guava.windowMs=1"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseProductOption("windowMs"));
        const LimiterConfig c = with({{"windowMs", "1000"}});
        const std::vector<Algorithm> express{Algorithm::ExpressRateLimit};
        const std::vector<Algorithm> guava{Algorithm::Guava};
        checkProductOptions(c, express);
        QVERIFY_THROWS_EXCEPTION(InputError, checkProductOptions(c, guava));
        // The qualified form wins over the plain one.
        const LimiterConfig both = with({{"express_rate_limit.limit", "1"}, {"limit", "5"}, {"windowMs", "1000"}});
        AnyLimiter l = makeLimiter(Algorithm::ExpressRateLimit, both);
        QCOMPARE(l.quota(), 1);
    }
};

QTEST_GUILESS_MAIN(TestProducts)
#include "tst_products.moc"
