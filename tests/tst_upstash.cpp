// upstash_ratelimit (@upstash/ratelimit 2.2.0) against tables derived by hand from its Lua scripts
// (src/lua-scripts/single.ts) and TypeScript (src/single.ts, src/cache.ts, src/duration.ts), as
// the comment above each table works out. Every field of every decision is checked, and on
// copies: `remaining` more requests at t pass and one more does not; a denied request's
// retry_after admits at t + d and not at t + d - 1 ns. The package's own `reset` is checked too.
#include "engine_helpers.h"
#include "product_steps.h"

#include "report/headers.h"

#include <QTest>

using namespace ratelab;

namespace {

using productsteps::Options;
using productsteps::with;

// check is the table check of the upstash_ratelimit product.
QString check(const LimiterConfig& config, const Steps& steps)
{
    return productsteps::check(Algorithm::UpstashRatelimit, config, steps);
}

std::int64_t packageReset(const LimiterConfig& config, const std::vector<Nanos>& times)
{
    UpstashRatelimit l(config);
    for (Nanos t : times)
        l.decide(t);
    return l.lastResetMs();
}

const Options kFixed = {{"limiter", "fixedWindow"}, {"tokens", "3"}, {"window", "10 s"}};
const Options kSliding = {{"limiter", "slidingWindow"}, {"tokens", "10"}, {"window", "10 s"}};
const Options kBucket = {{"limiter", "tokenBucket"}, {"refillRate", "2"}, {"interval", "1 s"}, {"maxTokens", "4"}};

Options plus(Options o, const Options& more)
{
    o.insert(o.end(), more.begin(), more.end());
    return o;
}

const Options kNoCache = {{"ephemeralCache", "false"}};

} // namespace

class TestUpstash : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Steps>("steps");

        // fixedWindow(3, "10 s"), no cache: bucket floor(now / 10000). 0, 1, 2 s: INCRBY 1, 2, 3 <= 3
        // (remaining 2, 1, 0). 3 s: INCRBY 4 > 3, denied, and counted (level 4); only the next
        // bucket at 10 s admits: 7 s. 9.999 s: 5, 1 ms. 10 s: bucket 1, count 1.
        QTest::newRow("fixedWindow counts its denials")
            << with(plus(kFixed, kNoCache))
            << Steps{admitted(0, 2, 1), admitted(sec(1), 1, 2), admitted(sec(2), 0, 3), denied(sec(3), sec(7), 4),
                     denied(ms(9999), ms(1), 5), admitted(sec(10), 2, 1)};
        // The same with the ephemeral cache (the package's default): the denial at 3 s blocks the
        // identifier until reset 10000 ms INCLUSIVE (isBlocked unblocks once reset < now), so 10 s
        // is denied by the cache (retry 1 ms; the new bucket holds 0: level 0) and 10.001 s passes.
        QTest::newRow("fixedWindow cache blocks the boundary millisecond")
            << with(kFixed)
            << Steps{admitted(0, 2, 1), admitted(sec(1), 1, 2), admitted(sec(2), 0, 3), denied(sec(3), ms(7001), 4),
                     denied(sec(10), ms(1), 0), admitted(ms(10001), 2, 1)};

        // slidingWindow(10, "10 s"), no cache. Ten at 9 s (prev 0, cur 0..9 < 10): remaining 9..0.
        // The 11th: 0 + 10 >= 10, -1, nothing written. At 10.000 s (bucket 1, now % 10000 = 0)
        // prevW = floor(1 * 10) = 10: denied; at 10.001 s floor((1 - 0.0001) * 10) = floor(9.999)
        // = 9: passes, so retry_after 1.001 s. At 15.5 s: floor((1 - 0.55) * 10) = floor(4.4999..)
        // = 4, so 6 pass (used 5 ... 10: remaining 5 ... 0) and the 7th waits until prevW <= 3:
        // (1 - e/10000) * 10 < 4 from e = 6001 (e = 6000 gives exactly 4.0): 16.001 s, 0.501 s.
        QTest::newRow("slidingWindow rounds the previous window down")
            << with(plus(kSliding, kNoCache))
            << Steps{admitted(sec(9), 9, 1), admitted(sec(9), 8, 2), admitted(sec(9), 7, 3), admitted(sec(9), 6, 4),
                     admitted(sec(9), 5, 5), admitted(sec(9), 4, 6), admitted(sec(9), 3, 7), admitted(sec(9), 2, 8),
                     admitted(sec(9), 1, 9), admitted(sec(9), 0, 10), denied(sec(9), ms(1001), 10),
                     admitted(ms(15500), 5, 5), admitted(ms(15500), 4, 6), admitted(ms(15500), 3, 7),
                     admitted(ms(15500), 2, 8), admitted(ms(15500), 1, 9), admitted(ms(15500), 0, 10),
                     denied(ms(15500), ms(501), 10), admitted(ms(16500), 0, 10)};
        // With the cache: the denial at 15.5 s blocks until the bucket's end, 20000 ms inclusive:
        // 16.5 s, where the estimate floor(0.35 * 10) + 6 = 9 would admit, is denied (level 9,
        // retry 3.501 s); at 20.001 s prev = 6: floor(0.9999 * 6) = 5, 5 + 0 < 10 passes (remaining 4).
        QTest::newRow("slidingWindow cache blocks to the window's end")
            << with(kSliding)
            << Steps{admitted(sec(9), 9, 1), admitted(sec(9), 8, 2), admitted(sec(9), 7, 3), admitted(sec(9), 6, 4),
                     admitted(sec(9), 5, 5), admitted(sec(9), 4, 6), admitted(sec(9), 3, 7), admitted(sec(9), 2, 8),
                     admitted(sec(9), 1, 9), admitted(sec(9), 0, 10), denied(sec(9), ms(1001), 10),
                     admitted(ms(15500), 5, 5), admitted(ms(15500), 4, 6), admitted(ms(15500), 3, 7),
                     admitted(ms(15500), 2, 8), admitted(ms(15500), 1, 9), admitted(ms(15500), 0, 10),
                     denied(ms(15500), ms(4501), 10), denied(ms(16500), ms(3501), 9), admitted(ms(20001), 4, 6)};

        // tokenBucket(2, "1 s", 4), no cache; level = tokens used. 0: a new hash {refilledAt 0,
        // tokens 4}: four pass (remaining 3..0; the last PEXPIREs ceil(4/2) * 1000 = 2000 ms on). The
        // 5th: 0 < 1, denied until the whole interval at 1000 ms: 1 s. 0.999 s: 1 ms. 1.5 s: one
        // refill (floor(1500/1000) = 1): 2 tokens, refilledAt 1000; two pass (expiry 1500 + 2000 =
        // 3500), the 3rd waits for 2000: 0.5 s. 3.5 s: the key is still there (3500 is not > 3500):
        // floor(2500/1000) = 2 refills, min(4, 4) = 4, refilledAt 3000; remaining 3, expiry 3500 +
        // 1000 = 4500. 4.501 s: the key is gone: a new full bucket from refilledAt 4501. Four pass
        // (3 were left, but the new hash starts full: remaining 3..0), and the next refill is at
        // 5501, not 5000: retry_after 1 s.
        QTest::newRow("tokenBucket refills in whole intervals, expiry restarts them")
            << with(plus(kBucket, kNoCache))
            << Steps{admitted(0, 3, 1), admitted(0, 2, 2), admitted(0, 1, 3), admitted(0, 0, 4), denied(0, sec(1), 4),
                     denied(ms(999), ms(1), 4), admitted(ms(1500), 1, 3), admitted(ms(1500), 0, 4),
                     denied(ms(1500), ms(500), 4), admitted(ms(3500), 3, 1), admitted(ms(4501), 3, 1),
                     admitted(ms(4501), 2, 2), admitted(ms(4501), 1, 3), admitted(ms(4501), 0, 4),
                     denied(ms(4501), sec(1), 4)};
        // With the cache: the denial at 0 blocks until reset 1000 inclusive: 1.0 s is denied by
        // the cache (retry 1 ms; the bucket has refilled 2: level 2), 1.001 s passes (remaining 1).
        QTest::newRow("tokenBucket cache blocks the refill millisecond")
            << with(kBucket)
            << Steps{admitted(0, 3, 1), admitted(0, 2, 2), admitted(0, 1, 3), admitted(0, 0, 4),
                     denied(0, ms(1001), 4), denied(sec(1), ms(1), 2), admitted(ms(1001), 1, 3)};

        // Without options: slidingWindow(L, W) with the cache, L = 10, W = 10 s; Date.now() is whole
        // milliseconds, so 0.5 ms is 0 ms.
        QTest::newRow("from L and W") << LimiterConfig{} << Steps{admitted(ns(500'000), 9, 1)};
    }

    void decisions()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(Steps, steps);
        const QString problem = check(config, steps);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // reset is the package's: the window's end, or refilledAt + interval, or the cache's block.
    void packageReset()
    {
        QCOMPARE(::packageReset(with(plus(kFixed, kNoCache)), {sec(3)}), 10'000);
        QCOMPARE(::packageReset(with(kFixed), {0, 0, 0, 0, sec(10)}), 10'000); // the cache's block
        QCOMPARE(::packageReset(with(kSliding), {ms(15500)}), 20'000);
        // One request at 0 PEXPIREs ceil(1/2) * 1000 = 1000 ms on; at 1.5 s the key is gone: a new
        // bucket from 1500, reset 2500. Two at 0 expire at 1000 too; four at 0 at 2000: refilledAt 1000.
        QCOMPARE(::packageReset(with(plus(kBucket, kNoCache)), {0, ms(1500)}), 2'500);
        QCOMPARE(::packageReset(with(plus(kBucket, kNoCache)), {0, 0, 0, 0, ms(1500)}), 2'000);
        QCOMPARE(::packageReset(with(plus(kBucket, kNoCache)), {0, ms(999)}), 1'000);
    }

    // remaining and reset are what the package answers for each call (index.js, tokenBucket's
    // limit(): `remaining: Math.max(0, remaining)`, `reset` the script's refilledAt + interval).
    // tokenBucket(2, "1 s", 4), no cache. 0, cost 3: 4 - 3 = 1 left, reset 0 + 1000 ms: 1 s from
    // 0 (the bucket is full again only at 2 s: 1 + 2 + 2 capped at 4). 0, cost 2: 1 < 2, the
    // script returns -1: remaining 0 (a request of cost 1 would still pass), reset 1000 ms. 1.5 s:
    // the key lives (it expires ceil((4 - 1) / 2) * 1000 = 2000 ms after 0), one refill: 3
    // tokens, refilledAt 1000; cost 1 passes, 2 left, reset 2000 ms: 0.5 s from 1.5 s.
    // With the cache, the denial blocks until 1000 inclusive: 0.5 s is refused from memory with
    // remaining 0 and the blocked reset 1000 ms, 0.5 s away.
    void packageAnswersEachDecision()
    {
        UpstashRatelimit l(with(plus(kBucket, kNoCache)));
        Decision d = l.decide(0, 3);
        QVERIFY(d.allowed);
        QCOMPARE(d.remaining, 1);
        QCOMPARE(l.reset(0), sec(1));
        d = l.decide(0, 2);
        QVERIFY(!d.allowed);
        QCOMPARE(d.remaining, 0);
        QCOMPARE(l.remainingAt(0), 0);
        QCOMPARE(l.reset(0), sec(1));
        d = l.decide(ms(1500), 1);
        QVERIFY(d.allowed);
        QCOMPARE(d.remaining, 2);
        QCOMPARE(l.reset(ms(1500)), ms(500));

        UpstashRatelimit cached(with(kBucket));
        QVERIFY(cached.decide(0, 3).allowed);
        QVERIFY(!cached.decide(0, 2).allowed);
        d = cached.decide(ms(500), 1);
        QVERIFY(!d.allowed);
        QCOMPARE(d.remaining, 0);
        QCOMPARE(cached.reset(ms(500)), ms(500));

        // The headers of a row carry both: compare's response at the denial at 0 says
        // X-RateLimit-Remaining 0 and X-RateLimit-Reset ceil(0 + 1 s) = 1.
        Scenario s;
        s.config = with(plus(kBucket, kNoCache));
        s.algorithms = {Algorithm::UpstashRatelimit};
        s.explicitArrivals = std::vector<Nanos>{0, 0};
        s.explicitCosts = {3, 2};
        const std::vector<Header> h = headersAt(test::traceOf(s), 0, 1);
        QCOMPARE(h[1].name, std::string("X-RateLimit-Remaining"));
        QCOMPARE(h[1].value, std::string("0"));
        QCOMPARE(h[2].name, std::string("X-RateLimit-Reset"));
        QCOMPARE(h[2].value, std::string("1"));
    }

    // Durations are read as ms() reads them: a number, at most one space, a unit; Math.round.
    void windows()
    {
        QCOMPARE(UpstashRatelimit::parseWindow("10 s"), 10'000);
        QCOMPARE(UpstashRatelimit::parseWindow("10s"), 10'000);
        QCOMPARE(UpstashRatelimit::parseWindow("1.5 m"), 90'000);
        QCOMPARE(UpstashRatelimit::parseWindow("0.5ms"), 1);   // Math.round(0.5) = 1
        QCOMPARE(UpstashRatelimit::parseWindow("2.4 ms"), 2);  // Math.round(2.4) = 2
        QCOMPARE(UpstashRatelimit::parseWindow("1 w"), 604'800'000);
        for (const char* bad : {"10", "10  s", "s", "1.s", "-1 s", "10 sec", "0.4ms"})
            QVERIFY_THROWS_EXCEPTION(InputError, UpstashRatelimit::parseWindow(bad));
        QVERIFY_THROWS_EXCEPTION(InputError, UpstashRatelimit(with({{"tokens", "5"}})));
        QVERIFY_THROWS_EXCEPTION(InputError, UpstashRatelimit(with({{"limiter", "tokenBucket"}, {"refillRate", "1"}})));
        QVERIFY_THROWS_EXCEPTION(InputError, UpstashRatelimit(with(plus(kFixed, {{"ephemeralCache", "maybe"}}))));
        QVERIFY_THROWS_EXCEPTION(InputError, UpstashRatelimit(LimiterConfig::make(10, ns(1'500'000))));
    }

    // A key's state: the window's counter (two for the sliding window, one hash of two fields for
    // the bucket) and, with the cache, its slot for the identifier.
    void memory()
    {
        QCOMPARE(UpstashRatelimit(with(kFixed)).memory().entries, 2);
        QCOMPARE(UpstashRatelimit(with(plus(kSliding, kNoCache))).memory().bytes, 16);
        QCOMPARE(UpstashRatelimit(with(kBucket)).memory().bytes, 24);
    }

    // A cost is the package's `rate`: fixedWindow INCRBYs it whatever it finds; slidingWindow only
    // checks prevW + cur < tokens before adding it, so a request of cost 3 on 8 of 10 is counted
    // (11) and denied.
    void cost()
    {
        UpstashRatelimit sliding(with(plus(kSliding, kNoCache)));
        for (int i = 0; i < 8; ++i)
            QVERIFY(sliding.decide(0).allowed);
        QVERIFY(!sliding.decide(0, 3).allowed);
        QCOMPARE(sliding.levelAt(0), 11.0);
        QVERIFY(!sliding.decide(0).allowed); // 11 >= 10
    }
};

QTEST_GUILESS_MAIN(TestUpstash)
#include "tst_upstash.moc"
