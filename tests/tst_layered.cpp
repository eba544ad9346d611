// LayeredPolicy against semantics.md ("Layered policies"): admitted iff every layer admits,
// layers asked in order, an admitting layer consumes and is not refunded when a later one
// denies (`wasted`), retry_after the least d such that a request at t + d passes every layer.
#include "limiters/any_limiter.h"
#include "cost_steps.h"

#include "engine/layered.h"

#include <QTest>

#include <random>

using namespace ratelab;

class TestLayered : public QObject {
    Q_OBJECT
private slots:
    // Layer A: token bucket C = 3, r = 1 per 10 s. Layer B: fixed window L = 2, W = 5 s.
    void twoLayersWithWastedTokens()
    {
        LayeredPolicy p({{Algorithm::TokenBucket, LimiterConfig::make(3, sec(30), 3, Rate{1, sec(10)})},
                         {Algorithm::FixedWindow, LimiterConfig::make(2, sec(5))}});
        const CostSteps steps{
            // 0: A 3 -> 2, B 0 -> 1: admitted; remaining min(A 2, B 1) = 1; level A's tokens 2.
            pass(0, 1, 1, 2),
            // 0: A 2 -> 1, B 2: admitted, remaining min(1, 0) = 0.
            pass(0, 1, 0, 1),
            // 0: A 1 -> 0 (consumed), B 2 + 1 > 2: denied; A's token is wasted. B alone would
            // say 5 s (its next window), and A's decision said 0 (it admitted), but at 5 s A
            // holds only 0.5 token: the exact wait is A's 10 s. remaining min(0, 0) = 0.
            fail(0, 1, sec(10), 0, 0),
            // 10 s: A has 1 token -> 0; B window [10, 15) count 0 -> 1: admitted, min(0, 1) = 0.
            pass(sec(10), 1, 0, 0),
            // 10 s cost 2: A has 0 tokens: A denies (B not asked); wait: A needs 2 tokens, 20 s;
            // B needs 1 + 2 <= 2, its next window, 5 s: 20 s.
            fail(sec(10), 2, sec(20), 0, 0),
            // 10 s cost 3 > B's L = 2: never (A, asked first, denies it: nothing wasted).
            never(sec(10), 3, 0, 0),
        };
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const CostStep& s = steps[i];
            const Decision d = p.decide(s.t, s.cost);
            const QString where = QStringLiteral("request %1: ").arg(i);
            QVERIFY2(d.allowed == s.allowed, qPrintable(where + "allowed"));
            QVERIFY2(d.remaining == s.remaining, qPrintable(where + QString("remaining %1").arg(d.remaining)));
            QVERIFY2(d.retryAfter == s.retryAfter, qPrintable(where + QString("retry_after %1").arg(d.retryAfter)));
            QVERIFY2(sameLevel(d.level, s.level), qPrintable(where + "level"));
            const QString problem = costProblem(p, s.t, s.cost, d);
            QVERIFY2(problem.isEmpty(), qPrintable(where + problem));
        }
        // A admitted requests 0, 1, 2, 3 and denied 4, 5; it wasted request 2's token. B admitted
        // 0, 1, 3 and denied 2.
        const auto& m = p.layerMetrics();
        QCOMPARE(m[0].allowed, 4);
        QCOMPARE(m[0].deniedHere, 2);
        QCOMPARE(m[0].wasted, 1);
        QCOMPARE(m[1].allowed, 3);
        QCOMPARE(m[1].deniedHere, 1);
        QCOMPARE(m[1].wasted, 0);
        QCOMPARE(p.quota(), 2);
    }

    // Property, 100 seeds x every algorithm: a one-layer policy decides exactly as its limiter,
    // every field, with random costs.
    void oneLayerEqualsItsLimiter()
    {
        for (std::uint64_t seed = 1; seed <= 100; ++seed) {
            std::mt19937_64 g(seed);
            const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
            const LimiterConfig c = LimiterConfig::make(in(1, 12), in(1, 20'000) * ms(1), in(1, 12), Rate{in(1, 9), sec(in(1, 5))});
            for (Algorithm a : kEveryAlgorithm) {
                std::optional<AnyLimiter> limiter;
                try {
                    limiter = makeLimiter(a, c);
                } catch (const InputError&) {
                    QVERIFY(isProduct(a)); // a product model refuses what its product cannot say (a
                    continue;              // window of 1.234 s for limits' whole seconds)
                }
                LayeredPolicy policy({{a, c}});
                Nanos t = 0;
                for (int i = 0; i < 80; ++i) {
                    t += in(0, 2) == 0 ? 0 : in(0, 3'000) * ms(1) + in(0, 2);
                    const std::int64_t cost = in(0, 3) == 0 ? in(1, 14) : 1;
                    const Decision got = policy.decide(t, cost);
                    const Decision want = limiter->decide(t, cost);
                    QVERIFY2(sameDecision(got, want), qPrintable(QStringLiteral("seed %1, %2, request %3")
                                                                     .arg(seed).arg(algorithmId(a).data()).arg(i)));
                    QCOMPARE(policy.reset(t), limiter->reset(t));
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestLayered)
#include "tst_layered.moc"
