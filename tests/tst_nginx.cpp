// nginx_limit_req against semantics.md ("nginx_limit_req"), i.e. ngx_http_limit_req_module.c of
// nginx 1.22: time truncated to whole ms, rate in thousandths of a request per second, per key
// `excess` in thousandths; first request: excess 0; later excess = max(0, excess - rate*ms/1000
// + 1000) (integer division), rejected iff excess > B*1000 (nothing changes), an accepted one
// waits (excess - D*1000)*1000/rate ms when excess > D*1000 (nodelay: never).
// remaining = how many more at the same ms pass: each adds 1000. level = excess / 1000.
#include "cost_steps.h"
#include "engine_helpers.h"

#include "arithmetic/decimal.h"

#include <QTest>

#include <random>

using namespace ratelab;
using namespace ratelab::test;

namespace {

LimiterConfig nginx(std::int64_t capacity, Rate rate, NginxOptions options)
{
    return LimiterConfig::make(10, sec(10), capacity, rate).withNginx(options);
}

const Rate kPerSecond1{1, sec(1)};

NginxOptions nodelay(std::optional<std::int64_t> burst = std::nullopt) { return {burst, true, 0}; }

} // namespace

class TestNginx : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<CostSteps>("steps");

        // rate=1r/s (1000), burst B = C - 1 = 9, nodelay; 11 requests at 0. The first creates
        // the key with excess 0; request k (1..9) at the same ms finds excess (k-1)*1000, adds
        // 1000: k*1000 <= 9000, admitted, 9 - k more fit; the 11th: 10000 > 9000, rejected. So
        // B + 1 = 10 pass. Its wait: need rate*ms/1000 >= 9000 + 1000 - 9000 = 1000, ms >= 1000:
        // 1 s after the last accepted ms (0).
        CostSteps burst;
        for (int k = 0; k < 10; ++k)
            burst.push_back(pass(0, 1, 9 - k, k));
        burst.push_back(fail(0, 1, sec(1), 0, 9));
        // At 0.999 s: drained 1000*999/1000 = 999: 9000 - 999 + 1000 = 9001 > 9000, wait 1 ms;
        // at 1 s: 9000 - 1000 + 1000 = 9000, admitted, nothing more fits.
        burst.push_back(fail(ms(999), 1, ms(1), 0, 8.001));
        burst.push_back(pass(sec(1), 1, 0, 9));
        QTest::newRow("a burst at one instant admits B + 1") << nginx(10, kPerSecond1, nodelay()) << burst;

        // rate=1000r/s (1000000), burst=0: 1 ms drains exactly 1000000*1/1000 = 1000, so each
        // request 1 ms apart finds excess 0 - 1000 + 1000 = 0 and passes, none more fits. At
        // 2.5 ms (ms 2, same as the last) excess would be 1000 > 0: rejected; ms 3 is needed
        // (1000*1000/1000000 = 1 ms after ms 2): wait 0.5 ms. At 3.9 ms (ms 3) it passes.
        // At 4.1 ms (ms 4): 1 ms since ms 3 drains 1000: passes, though only 0.2 ms passed
        // since 3.9 ms: the exact leaky bucket (C = 1 at 1000/s) would deny it (0.8 + 1 > 1).
        QTest::newRow("requests 1 ms apart at rate=1000r/s")
            << nginx(1, Rate{1000, sec(1)}, nodelay(0))
            << CostSteps{pass(0, 1, 0, 0), pass(ms(1), 1, 0, 0), pass(ms(2), 1, 0, 0),
                         fail(ms(2) + 500'000, 1, 500'000, 0, 0), pass(ms(3) + 900'000, 1, 0, 0),
                         pass(ms(4) + 100'000, 1, 0, 0)};

        // rate=3r/s (3000), burst=0. At 333 ms: 3000*333/1000 = 999 (truncated from 999), excess
        // 0 - 999 + 1000 = 1 > 0: rejected; level max(0, 0 - 999) = 0; ms >= ceil(1000*1000/3000)
        // = 334: wait 1 ms. At 334 ms: 1002 drained, admitted.
        QTest::newRow("truncation of rate*ms/1000, 3r/s")
            << nginx(1, Rate{3, sec(1)}, nodelay(0))
            << CostSteps{pass(0, 1, 0, 0), fail(ms(333), 1, ms(1), 0, 0), pass(ms(334), 1, 0, 0)};

        // rate=1r/m: 1000/60 = 16 thousandths per s (truncated from 16.67). burst=1. Two at 0
        // pass (excess 0, 1000), the third: 2000 > 1000. It needs 16*ms/1000 >= 1000, ms >=
        // 62500: 62.5 s, where the exact bucket (1 per 60 s) needs 60 s. At 62.499999999 s
        // (ms 62499): 16*62499/1000 = 999, excess 1001: 1 ns short (level (1000 - 999)/1000).
        QTest::newRow("per-minute rate truncated to thousandths")
            << nginx(2, Rate{1, sec(60)}, nodelay())
            << CostSteps{pass(0, 1, 1, 0), pass(0, 1, 0, 1), fail(0, 1, ms(62'500), 0, 1),
                         fail(ms(62'500) - 1, 1, 1, 0, 0.001), pass(ms(62'500), 1, 0, 1)};

        // delay=3, burst=9, 1r/s, six at 0: excess 0, 1000, ..., 5000; those above 3000 wait
        // (excess - 3000)*1000/1000 ms: 1 s and 2 s.
        QTest::newRow("delay=3")
            << nginx(10, kPerSecond1, NginxOptions{9, false, 3})
            << CostSteps{pass(0, 1, 9, 0), pass(0, 1, 8, 1), pass(0, 1, 7, 2), pass(0, 1, 6, 3),
                         pass(0, 1, 5, 4, sec(1)), pass(0, 1, 4, 5, sec(2))};

        // No nodelay and no delay=: D = 0, every request beyond the first of a burst waits
        // excess*1000/rate ms: 1 s, 2 s. At 0.5 s (ms 500): 2000 - 500 + 1000 = 2500: 2.5 s.
        QTest::newRow("default: everything beyond the first is delayed")
            << nginx(10, kPerSecond1, NginxOptions{})
            << CostSteps{pass(0, 1, 9, 0), pass(0, 1, 8, 1, sec(1)), pass(0, 1, 7, 2, sec(2)),
                         pass(ms(500), 1, 6, 2.5, ms(2500))};

        // Cost (RateLab's extension, a cost-k request counts k at once): burst 4 at 1r/s. Cost 3
        // first: excess 2000; cost 3 again: 2000 + 1000 + 2000 = 5000 > 4000, rejected, 2
        // cost-1 fit (3000, 4000); wait: need = 2000 + 1000 - (4000 - 2000) = 1000: 1 s. Cost 6
        // > B + 1 = 5: never.
        QTest::newRow("cost") << nginx(5, kPerSecond1, nodelay())
                              << CostSteps{pass(0, 3, 2, 2), fail(0, 3, sec(1), 2, 2), never(0, 6, 2, 2),
                                           pass(sec(1), 3, 0, 4)};
    }

    // checks every field of each decision, and on copies remaining, retry_after and reset.
    void decisions()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(CostSteps, steps);
        NginxLimitReq limiter(config);
        const QString problem = replayCosts(limiter, steps);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // checks that a rate nginx cannot write is refused, naming the nearest rates it can.
    void refusesRates()
    {
        // 3 per 7 s = 25.71 per minute.
        try {
            NginxLimitReq limiter(LimiterConfig::make(3, sec(7)));
            QFAIL("accepted 3/7 per s");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("nearest: 25r/m or 26r/m"), e.what());
        }
        // 2.5 per s = 150 per minute: nginx writes it as 150r/m.
        QCOMPARE(nginxRateThousandths(Rate::reduced(5, sec(2))), 2500);
        QCOMPARE(nginxRateText(Rate::reduced(5, sec(2))), std::string("150r/m"));
        QCOMPARE(nginxRateText(Rate{10, sec(1)}), std::string("10r/s"));
        QCOMPARE(nginxRateThousandths(Rate{1, sec(60)}), 16);
    }

    // checks the limit_req_zone / limit_req lines.
    void directives()
    {
        QCOMPARE(nginxDirectives(LimiterConfig::make(10, sec(1)).withNginx(nodelay())),
                 std::string("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=10r/s;\n"
                             "limit_req zone=ratelab burst=9 nodelay;\n"));
        QCOMPARE(nginxDirectives(LimiterConfig::make(10, sec(60), 20).withNginx(NginxOptions{5, false, 2})),
                 std::string("limit_req_zone $binary_remote_addr zone=ratelab:10m rate=10r/m;\n"
                             "limit_req zone=ratelab burst=5 delay=2;\n"));
    }

    // Property, 300 seeds: with every time a whole ms and the rate a whole number per second,
    // nginx_limit_req with burst = C - 1 admits exactly what leaky_bucket admits (semantics.md).
    // On streams with sub-ms times and per-minute rates every decision still passes the copy
    // checks (retry_after exact under nginx's arithmetic, remaining, reset).
    void matchesLeakyBucketOnWholeMilliseconds()
    {
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            std::mt19937_64 g(seed);
            const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
            const std::int64_t capacity = in(1, 12);
            const Rate rate{in(1, 50), sec(1)};
            const LimiterConfig c = LimiterConfig::make(10, sec(10), capacity, Rate::reduced(rate.tokens, rate.perNanos));
            std::vector<Nanos> times;
            Nanos t = 0;
            for (int i = 0; i < 200; ++i) {
                t += in(0, 2) == 0 ? 0 : ms(in(0, 400));
                times.push_back(t);
            }
            const Trace trace = traceOf(c, std::vector<Algorithm>{Algorithm::NginxLimitReq, Algorithm::LeakyBucket}, times);
            for (std::size_t i = 0; i < times.size(); ++i)
                QVERIFY2(trace.results[0].decisions[i].allowed == trace.results[1].decisions[i].allowed,
                         qPrintable(QStringLiteral("seed %1, request %2").arg(seed).arg(i)));

            // Any ns times, per-second or per-minute rates, random burst, delay and cost.
            const Rate anyRate{in(1, 40), in(0, 1) ? sec(1) : sec(60)};
            const LimiterConfig any = LimiterConfig::make(10, sec(10), capacity, Rate::reduced(anyRate.tokens, anyRate.perNanos))
                                          .withNginx(NginxOptions{in(0, 8), in(0, 1) == 1, in(0, 4)});
            NginxLimitReq limiter(any);
            Nanos u = 0;
            for (int i = 0; i < 80; ++i) {
                u += in(0, 2) == 0 ? 0 : in(0, 3'000'000'000);
                const std::int64_t cost = in(0, 3) == 0 ? in(1, 10) : 1;
                const Decision d = limiter.decide(u, cost);
                const QString problem = costProblem(limiter, u, cost, d);
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("seed %1, request %2: ").arg(seed).arg(i) + problem));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestNginx)
#include "tst_nginx.moc"
