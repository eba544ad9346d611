// The lessons of the managed-service presets, each number derived by hand from the
// model's rules (core/limiters/products/upstash.h, aws_api_gateway.h, aws_waf.h, cloudflare.h
// cite their sources): the preset's words must hold in its run.
#include "preset_rows.h"
#include "presets.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

Trace run(const QString& id)
{
    const LoadResult r = loadPreset(id);
    if (!r.scenario)
        qFatal("preset %s: %s", qPrintable(id), qPrintable(r.error));
    return simulateRows(*r.scenario);
}

std::vector<std::size_t> joined(std::vector<std::size_t> a, const std::vector<std::size_t>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

class TestPresetsManaged : public QObject {
    Q_OBJECT
private slots:
    void upstashSlidingVsLog()
    {
        // Requests 0..9 at 9 s, 10 at 9.5 s, 11..20 at 10 ... 19 s. Upstash slidingWindow(10, "10 s"):
        // 0..9 pass (cur 0..9 < 10); 10 is denied (10 >= 10) and the cache blocks to 10000 ms
        // inclusive: 11 (10 s) is denied. At 10 + k s (k = 1..9) prevW = floor((1 - k/10) * 10),
        // 10 - k (or one less where the double falls just short), and cur = k - 1 < k: each passes.
        // 19 in all; (8 s, 18 s] holds the ten at 9 s and 11 ... 18 s: 18. The log: 0..9, then
        // nothing until the ten at 9 s leave its window at 19 s (9 > 19 - 10 is false): 11.
        const Trace t = run("upstash-sliding-vs-log");
        const AlgorithmTrace& upstash = rowResult(t, Algorithm::UpstashRatelimit);
        QCOMPARE(admitted(upstash), joined(range(0, 10), range(12, 21)));
        QCOMPARE(upstash.metrics.maxInWindow, 18);
        QCOMPARE(admitted(rowResult(t, Algorithm::SlidingWindowLog)), joined(range(0, 10), {20}));
    }

    void apiGatewayPageLoad()
    {
        // 27 requests 2 ms apart; plan 10/s burst 20 (the account's 10,000/5,000 never binds).
        // Request i at 2i ms finds 20 - i + 0.02 i tokens: 20 - 0.98 i >= 1 for i <= 19; request
        // 20 finds 0.4, and 21..26 at most 0.52: 20 pass. The log of 10 per 1 s: the first 10.
        const Trace t = run("api-gateway-page-load");
        QCOMPARE(admitted(rowResult(t, Algorithm::AwsApiGateway)), range(0, 20));
        QCOMPARE(admitted(rowResult(t, Algorithm::SlidingWindowLog)), range(0, 10));
    }

    void apiGatewayMonthlyQuota()
    {
        // Request i at 1728 i s (50 a day, day floor(i / 50)); quota 1000 a MONTH on the UTC
        // calendar, January being days 0 ... 30. The plan's bucket (20 at 10/s) is full at each
        // request. i = 0 ... 999 (up to day 19, January 20th) fill the quota; i = 1000 is at day 20
        // exactly and the last, i = 1549, at 2,676,672 s < 31 days: all in January, all refused.
        // The token bucket of 20 at 10 a second alone refuses none.
        const Trace t = run("api-gateway-monthly-quota");
        QCOMPARE(admitted(rowResult(t, Algorithm::AwsApiGateway)), range(0, 1000));
        QCOMPARE(t.arrivals[1000], Nanos(20) * 86400 * kNanosPerSecond);
        QCOMPARE(rowResult(t, Algorithm::TokenBucket).metrics.allowed, 1550);
    }

    void wafScraperFirstMinute()
    {
        // One request a second, 0 ... 119 s; Limit 10 over 60 s, checks every 10 s, verdicts 30 s
        // late. The check at 10 s counts [-50, 10): 10, not over 10; each from 20 s counts at
        // least 20: over. A request at t meets the check at floor((t - 30) / 10) * 10: none before
        // 40 s, the one at 10 s for 40 ... 49 s, one at 20 s or later from 50 s: 0 ... 49 pass.
        // The log of 10 per 60 s: 0 ... 9, and 60 ... 69 as those leave its window: 20.
        const Trace t = run("waf-scraper-first-minute");
        QCOMPARE(admitted(rowResult(t, Algorithm::AwsWafRate)), range(0, 50));
        QCOMPARE(admitted(rowResult(t, Algorithm::SlidingWindowLog)), joined(range(0, 10), range(60, 70)));
    }

    void cloudflareLongBlock()
    {
        // 6 requests at 0 ... 0.5 s, then 60 at 10, 20, ..., 600 s. Cloudflare 5 per 10 s: the
        // first 5 pass (count 1 ... 5 <= 5); the 6th makes 6 > 5: blocked until 600.5 s, so every
        // later request (600 s < 600.5 s at the latest) is blocked: 5 pass. The fixed window of 5
        // per 10 s refuses only the 6th: each later request is alone in its window: 65.
        const Trace t = run("cloudflare-long-block");
        QCOMPARE(admitted(rowResult(t, Algorithm::CloudflareRate)), range(0, 5));
        QCOMPARE(admitted(rowResult(t, Algorithm::FixedWindow)), joined(range(0, 5), range(6, 66)));
    }
};

QTEST_GUILESS_MAIN(TestPresetsManaged)
#include "tst_presets_managed.moc"
