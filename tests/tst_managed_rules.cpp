// cloudflare_rate, aws_waf_rate and aws_api_gateway against tables derived by hand from the cited documentation
// (see cloudflare.h, aws_waf.h and aws_api_gateway.h for what is documented and what is assumed), as the comment
// above each table works out. Every field is checked, and on copies: a denied request's
// retry_after admits at t + d and not at t + d - 1 ns; `remaining` more pass and one more does not
// (where it is small enough to try).
#include "limiters/any_limiter.h"
#include "product_steps.h"

#include <QTest>

using namespace ratelab;

namespace {

using productsteps::check;
using productsteps::Options;
using productsteps::with;

constexpr std::int32_t kAll = 2'000'000'000; // WAF: every request passes until the next verdict

} // namespace

class TestManagedRules : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Steps>("steps");

        // Cloudflare's own example (request-rate/): 1 request per 10 s, mitigation timeout 10 min.
        // 0: counter 1 <= 1 passes (remaining 0). 1 s: counter 2 > 1: blocked, for 600 s from
        // then, whatever the rate: 601 s is the first to pass (retry 600 s; 5 s: 596 s). At 20 s
        // the periods [0, 10) and [10, 20) are gone: the estimate is 0 (level 0), still blocked.
        QTest::newRow("cloudflare: two requests, ten minutes")
            << Algorithm::CloudflareRate
            << with({{"period", "10"}, {"requests_per_period", "1"}, {"mitigation_timeout", "600"}})
            << Steps{admitted(0, 0, 1), denied(sec(1), sec(600), 2), denied(sec(5), sec(596), 2),
                     denied(sec(20), sec(581), 0), admitted(sec(601), 0, 1)};
        // Sliding counting, 10 per 60 s, timeout 60 s. Ten at 50 s (remaining 9 ... 0). At 70 s the
        // previous period weighs (60 - 10) / 60: 10 * 50/60 + 1 = 9.33 <= 10 passes (room 600 - 560
        // = 40 < 60: remaining 0); the next makes 10.33 > 10: counted, blocked until 130 s. At
        // 130 s, e = 10 s, prev = 2: 2 * 50/60 + 1 <= 10 passes: retry 60 s.
        Steps sliding;
        for (int i = 1; i <= 10; ++i)
            sliding.push_back(admitted(sec(50), 10 - i, i));
        sliding.push_back(admitted(sec(70), 0, 560.0 / 60.0));
        sliding.push_back(denied(sec(70), sec(60), 620.0 / 60.0));
        sliding.push_back(admitted(sec(130), 7, 160.0 / 60.0));
        QTest::newRow("cloudflare: the previous period weighted")
            << Algorithm::CloudflareRate
            << with({{"period", "60"}, {"requests_per_period", "10"}, {"mitigation_timeout", "60"}}) << sliding;
        // Throttle (mitigation_timeout 0), 2 per 10 s: the 3rd at 0 is refused and not counted;
        // the next passes once 2 * (10 - e)/10 + 1 <= 2: e >= 5 s in the next period, 15 s.
        QTest::newRow("cloudflare: throttle")
            << Algorithm::CloudflareRate
            << with({{"period", "10"}, {"requests_per_period", "2"}, {"mitigation_timeout", "0"}})
            << Steps{admitted(0, 1, 1), admitted(0, 0, 2), denied(0, sec(15), 2), admitted(sec(15), 0, 2)};
        // Fixed counting: the boundary burst is there: 2 at 9.9 s, 2 at 10 s.
        QTest::newRow("cloudflare: fixed counting")
            << Algorithm::CloudflareRate
            << with({{"period", "10"}, {"requests_per_period", "2"}, {"mitigation_timeout", "10"}, {"counting", "fixed"}})
            << Steps{admitted(ms(9900), 1, 1), admitted(ms(9900), 0, 2), admitted(sec(10), 1, 1), admitted(sec(10), 0, 2)};

        // AWS WAF, Limit 10 over 60 s, checks every 10 s, verdicts 30 s late (the defaults). One
        // request a second from 0: the check at 10 s sees [-50, 10): 10, not over 10; at 20 s 20:
        // over, in force from 50 s. So 0 ... 49 pass (50 requests against a limit of 10) and 50 is
        // blocked. Nothing more arrives: the check at 100 sees [40, 100): 40 ... 50 = 11, over; at
        // 110, [50, 110) holds 1: not over, in force at 140 s: retry 90 s. Level: the check
        // intervals overlapping (t - 60, t]: at 50 s, [0, 10) ... [50, 60): 51.
        Steps waf;
        for (int s = 0; s < 50; ++s)
            waf.push_back(admitted(sec(s), kAll, s + 1));
        waf.push_back(denied(sec(50), sec(90), 51));
        waf.push_back(admitted(sec(140), kAll, 1)); // (80, 140] holds only 140 itself
        QTest::newRow("aws waf: the scraper's first 50 seconds")
            << Algorithm::AwsWafRate << with({{"Limit", "10"}, {"EvaluationWindowSec", "60"}}) << waf;
        // The same scraper against action=Count (the Count action counts and blocks nothing): the
        // counts, and so the levels, are the Block rule's, and 50 s passes as every one before it.
        Steps counted(waf.begin(), waf.end() - 2);
        counted.push_back(admitted(sec(50), kAll, 51));
        counted.push_back(admitted(sec(140), kAll, 1));
        QTest::newRow("aws waf: Count blocks nothing")
            << Algorithm::AwsWafRate << with({{"Limit", "10"}, {"EvaluationWindowSec", "60"}, {"action", "Count"}}) << counted;
        // detection_delay 0, rate_check_interval 10 s: the same traffic is blocked from the check at
        // 20 s on: 0 ... 19 pass.
        Steps prompt;
        for (int s = 0; s < 20; ++s)
            prompt.push_back(admitted(sec(s), kAll, s + 1));
        prompt.push_back(denied(sec(20), sec(60), 21)); // the check at 80 s sees [20, 80): 1 (itself)
        QTest::newRow("aws waf: no delay")
            << Algorithm::AwsWafRate
            << with({{"Limit", "10"}, {"EvaluationWindowSec", "60"}, {"detection_delay", "0"}}) << prompt;
    }

    void gateway_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Steps>("steps");
        constexpr Nanos kDay = 86400 * kNanosPerSecond;
        // A usage plan of rate 10, burst 20 (and the account's 10,000 / 5,000, which never binds
        // here): a page load of 21 requests at once spends the burst on 20 (remaining and level:
        // the plan's tokens 19 ... 0); the 21st waits one token at 10/s, 0.1 s. At 1 s 10 are back.
        Steps page;
        for (int i = 1; i <= 20; ++i)
            page.push_back(admitted(0, 20 - i, 20 - i));
        page.push_back(denied(0, ms(100), 0));
        page.push_back(admitted(sec(1), 9, 9));
        QTest::newRow("burst spent by a page load") << with({{"plan_rate", "10"}, {"plan_burst", "20"}}) << page;
        // quota 3 a MONTH (plan 1/s burst 5): three on January 20th (day 19) pass (remaining: the
        // quota's 2, 1, 0; level: the plan's tokens 4, 3, 2); the 4th waits for February 1st, day 31:
        // 12 days. There the quota is new (remaining 2) and the bucket full (level 4).
        QTest::newRow("monthly quota out on the 20th")
            << with({{"plan_rate", "1"}, {"plan_burst", "5"}, {"quota_limit", "3"}, {"quota_period", "MONTH"}})
            << Steps{admitted(19 * kDay, 2, 4), admitted(19 * kDay, 1, 3), admitted(19 * kDay, 0, 2),
                     denied(19 * kDay, 12 * kDay, 2), admitted(31 * kDay, 2, 4)};
        // Stage 100/s burst 5 and plan 1/s burst 10 at once: the stage's 5 bind first (remaining and
        // level its tokens 4 ... 0); the 6th waits 10 ms for the stage's token and takes none of
        // the plan's, so at 10 ms the plan holds 5 + 0.01 and the stage 1: remaining 0.
        QTest::newRow("every level at once")
            << with({{"stage_rate", "100"}, {"stage_burst", "5"}, {"plan_rate", "1"}, {"plan_burst", "10"}})
            << Steps{admitted(0, 4, 4), admitted(0, 3, 3), admitted(0, 2, 2), admitted(0, 1, 1), admitted(0, 0, 0),
                     denied(0, ms(10), 0), admitted(ms(10), 0, 0)};
        // quota 5 a DAY with offset 3: the first day holds 2; the next day 5. Level: the account's
        // tokens (5000 less what was taken, full again a day later).
        QTest::newRow("quota offset")
            << with({{"quota_limit", "5"}, {"quota_period", "DAY"}, {"quota_offset", "3"}})
            << Steps{admitted(0, 1, 4999), admitted(0, 0, 4998), denied(0, kDay, 4998), admitted(kDay, 4, 4999)};
    }

    void gateway()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(Steps, steps);
        const QString problem = check(Algorithm::AwsApiGateway, config, steps);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Quota periods on the UTC calendar: 1970-01-01 was a Thursday, so its week began on Sunday
    // 1969-12-28 (-4 days) and the next on January 4th; February began on day 31.
    void quotaPeriods()
    {
        constexpr Nanos kDay = 86400 * kNanosPerSecond;
        using P = AwsApiGateway::QuotaPeriod;
        QCOMPARE(AwsApiGateway::periodStart(P::Week, 0), -4 * kDay);
        QCOMPARE(AwsApiGateway::periodStart(P::Week, 3 * kDay), 3 * kDay);
        QCOMPARE(AwsApiGateway::periodStart(P::Week, 10 * kDay - 1), 3 * kDay);
        QCOMPARE(AwsApiGateway::periodStart(P::Month, 40 * kDay), 31 * kDay);
        QCOMPARE(AwsApiGateway::periodStart(P::Day, kDay + 5), kDay);
        QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(Algorithm::AwsApiGateway, with({{"plan_rate", "5"}})));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 makeLimiter(Algorithm::AwsApiGateway, with({{"quota_limit", "5"}, {"quota_period", "YEAR"}})));
    }

    void decisions()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(Steps, steps);
        const QString problem = check(algorithm, config, steps);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // A key's state at scale: WAF's ring of per-interval counts ((60 + 30) / 10 + 2 = 11 for a
    // 60 s window checked every 10 s, verdicts 30 s late), however few it holds yet; Cloudflare's two
    // counters, window and block; API Gateway's account and plan buckets and its quota.
    void memory()
    {
        AnyLimiter waf = makeLimiter(Algorithm::AwsWafRate, with({{"Limit", "10"}, {"EvaluationWindowSec", "60"}}));
        QCOMPARE(waf.memory().entries, 11);
        QCOMPARE(waf.memory().bytes, 176);
        QCOMPARE(makeLimiter(Algorithm::CloudflareRate, with({{"period", "10"}, {"requests_per_period", "1"}})).memory().bytes, 32);
        AnyLimiter gateway = makeLimiter(Algorithm::AwsApiGateway,
                                         with({{"plan_rate", "1"}, {"plan_burst", "2"}, {"quota_limit", "5"}}));
        QCOMPARE(gateway.memory().entries, 3);
    }

    // The documented values are the only ones taken.
    void refusals()
    {
        const Options bad[] = {
            {{"period", "30"}, {"requests_per_period", "5"}},
            {{"period", "60"}, {"requests_per_period", "5"}, {"mitigation_timeout", "30"}},
            {{"period", "60"}},
        };
        for (const Options& o : bad)
            QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(Algorithm::CloudflareRate, with(o)));
        QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(Algorithm::AwsWafRate, with({{"Limit", "9"}})));
        QVERIFY_THROWS_EXCEPTION(InputError, makeLimiter(Algorithm::AwsWafRate, with({{"Limit", "100"}, {"action", "Captcha"}})));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 makeLimiter(Algorithm::AwsWafRate, with({{"Limit", "100"}, {"EvaluationWindowSec", "90"}})));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 makeLimiter(Algorithm::AwsWafRate, with({{"Limit", "100"}, {"rate_check_interval", "7s"}})));
        // Without options, RateLab's L per W, beside the textbook rows, whatever AWS and Cloudflare offer.
        AnyLimiter waf = makeLimiter(Algorithm::AwsWafRate, LimiterConfig::make(3, sec(1)));
        QCOMPARE(std::get<AwsWafRate>(waf).checkInterval(), sec(1)); // 10 s does not divide 1 s
        QCOMPARE(std::get<AwsWafRate>(makeLimiter(Algorithm::AwsWafRate, LimiterConfig::make(3, sec(60))))
                     .checkInterval(), sec(10));
        QVERIFY(makeLimiter(Algorithm::CloudflareRate, LimiterConfig::make(3, ms(1500))).decide(0).allowed);
    }
};

QTEST_GUILESS_MAIN(TestManagedRules)
#include "tst_managed_rules.moc"
