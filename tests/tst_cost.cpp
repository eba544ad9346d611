// Request cost against semantics.md ("Request cost"): every limiter with requests of cost k,
// tables derived by hand from the cost table, including a cost above L or C (never admitted,
// retry_after "never"). remaining counts cost-1 requests, also after a denial; retry_after is the
// least wait for a request of the same cost, checked on copies (cost_steps.h). Defaults:
// L = 10, W = 10 s, C = 10, r = 1/s.
#include "limiters/any_limiter.h"
#include "cost_steps.h"
#include "engine_helpers.h"

#include "traffic/arrivals.h"
#include "arithmetic/decimal.h"
#include "view/reduce.h"
#include "view/row_extras.h"

#include <QTest>

#include <cstring>
#include <random>

using namespace ratelab;
using namespace ratelab::test;

Q_DECLARE_METATYPE(ratelab::Algorithm)

class TestCost : public QObject {
    Q_OBJECT
private slots:
    void decisions_data()
    {
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<CostSteps>("steps");
        const LimiterConfig c = config(10, sec(10));

        // Fixed window, admit iff count + k <= 10. 0: 0+4 -> 4 (6 left). 1 s: 4+5 -> 9 (1 left).
        // 2 s: 9+2 = 11 > 10, denied; only window [10 s, 20 s) helps: 10 - 2 = 8 s; one cost-1
        // request still fits: remaining 1. 2 s cost 1: 10. 3 s cost 11 > L: never. 10 s: new
        // window, count 0, cost 10 fits exactly.
        QTest::newRow("fixed_window") << Algorithm::FixedWindow << c
            << CostSteps{pass(0, 4, 6, 4), pass(sec(1), 5, 1, 9), fail(sec(2), 2, sec(8), 1, 9),
                         pass(sec(2), 1, 0, 10), never(sec(3), 11, 0, 10), pass(sec(10), 10, 0, 10)};

        // Sliding window log, admit iff kept costs + k <= 10; (s, k) kept while s > t - 10 s.
        // 0: 3; 1 s: 3+4 = 7; 2 s: 7+3 = 10. 5 s cost 5: 15 > 10; need kept <= 5: the entry at 0
        // leaves at 10 s (7 left, not enough), the one at 1 s at 11 s (3 left): wait 6 s.
        // 10 s: (0, 3) expired (0 <= 10 - 10): 7 + 3 = 10. Cost 11: never. 11 s: (1 s, 4)
        // expired: kept 3 + 3 = 6, + 2 = 8, 2 left.
        QTest::newRow("sliding_window_log") << Algorithm::SlidingWindowLog << c
            << CostSteps{pass(0, 3, 7, 3), pass(sec(1), 4, 3, 7), pass(sec(2), 3, 0, 10),
                         fail(sec(5), 5, sec(6), 0, 10), pass(sec(10), 3, 0, 10), never(sec(10), 11, 0, 10),
                         pass(sec(11), 2, 2, 8)};

        // Sliding window counter, admit iff prev*(W - e) + (cur + k - 1)*W < L*W (in units of
        // s^2 below, W = 10). 0: (0 + 5)*10 = 50 < 100: cur 6, E = 6, 4 left (6 + j < 10, j < 4).
        // 5 s cost 5: (6 + 4)*10 = 100, not < 100: denied, 4 cost-1 still fit. The rule is the
        // cost-1 rule with L' = L - k + 1 = 6 and cur = 6 >= 6, so only window 1 helps: there
        // prev = 6 and 6*(10 - e') + 40 < 100 iff e' > 0: at 10 s + 1 ns. Wait 5 s + 1 ns.
        // 12 s (window 1, e = 2, prev 6 weighs 6*8 = 48): cost 3: 48 + 20 = 68 < 100: cur 3,
        // E = 4.8 + 3 = 7.8, 3 left (78 + 10j < 100 for j = 0, 1, 2). Cost 3 again: 48 + 50 = 98
        // < 100: cur 6, E = 10.8 (a cost above 1 may end above L), 0 left. Cost 2: 48 + 70 = 118:
        // denied; L' = 9 > cur = 6: the previous window must decay: 6*(8 s - d) < (9 - 6)*10 s,
        // d > 3 s: 3 s + 1 ns. 13 s cost 11 > L: never; E = 6*0.7 + 6 = 10.2, nothing left.
        QTest::newRow("sliding_window_counter") << Algorithm::SlidingWindowCounter << c
            << CostSteps{pass(0, 6, 4, 6), fail(sec(5), 5, sec(5) + 1, 4, 6), pass(sec(12), 3, 3, 7.8),
                         pass(sec(12), 3, 0, 10.8), fail(sec(12), 2, sec(3) + 1, 0, 10.8),
                         never(sec(13), 11, 0, 10.2)};

        // Token bucket, admit iff tokens >= k. 0: 10 - 4 = 6. Cost 7: 6 < 7, missing 1 token at
        // 1/s: 1 s; 6 cost-1 still fit. 0.5 s: 6.5, missing 0.5: 0.5 s. 1 s: 7, admitted, 0 left.
        // Cost 11 > C: never. 3.5 s: 2.5 - 1 = 1.5, 1 left.
        const CostSteps buckets{pass(0, 4, 6, 6), fail(0, 7, sec(1), 6, 6), fail(ms(500), 7, ms(500), 6, 6.5),
                                pass(sec(1), 7, 0, 0), never(sec(1), 11, 0, 0), pass(ms(3500), 1, 1, 1.5)};
        QTest::newRow("token_bucket") << Algorithm::TokenBucket << c << buckets;

        // Leaky bucket, admit iff level + k <= 10: level = 10 - tokens of the token bucket above,
        // so the same verdicts, waits and remaining; level 4, 4, 3.5, 10, 10, 8.5.
        CostSteps leaky = buckets;
        const double water[] = {4, 4, 3.5, 10, 10, 8.5};
        for (std::size_t i = 0; i < leaky.size(); ++i)
            leaky[i].level = water[i];
        QTest::newRow("leaky_bucket") << Algorithm::LeakyBucket << c << leaky;

        // Queue: same verdicts; an admitted request waits level_before / r: 0 at 0; at 1 s the
        // level before is 4 - 1 = 3: 3 s; at 3.5 s it is 10 - 2.5 = 7.5: 7.5 s. Level: requests
        // waiting, ceil(water) - 1: 3, 3, ceil(3.5) - 1 = 3, 9, 9, ceil(8.5) - 1 = 8.
        CostSteps queue = buckets;
        const double waiting[] = {3, 3, 3, 9, 9, 8};
        for (std::size_t i = 0; i < queue.size(); ++i)
            queue[i].level = waiting[i];
        queue[3].delay = sec(3);
        queue[5].delay = ms(7500);
        QTest::newRow("leaky_bucket_queue") << Algorithm::LeakyBucketQueue << c << queue;

        // GCRA, T = 1 s, C*T = 10 s: admit iff max(TAT, t) + k*T - t <= 10 s, TAT = max + k*T.
        // 0 cost 4: 0 + 4 <= 10, TAT 4 (backlog 4 s). Cost 7: 4 + 7 = 11 > 10, 1 s late. 0.5 s:
        // 4 + 7 - 0.5 = 10.5: 0.5 s. 1 s: 4 + 7 - 1 = 10, TAT 11, backlog 10. Cost 11: never.
        // 3.5 s: 11 + 1 - 3.5 = 8.5 <= 10, TAT 12, backlog 8.5. remaining as the token bucket.
        CostSteps gcra = buckets;
        const double backlog[] = {4, 4, 3.5, 10, 10, 8.5};
        for (std::size_t i = 0; i < gcra.size(); ++i)
            gcra[i].level = backlog[i];
        QTest::newRow("gcra") << Algorithm::Gcra << c << gcra;

        // C = 3, r = 3/7 per s: cost 1 at 0 leaves 2 tokens, cost 2 leaves 0; the next cost 2
        // misses 2 tokens: 2 / (3/7) s = 14/3 s = 4666666666.7 ns, rounded up; cost 3 misses 3
        // tokens: exactly 7 s; cost 4 > C: never.
        QTest::newRow("token_bucket 3 per 7 s") << Algorithm::TokenBucket << config(3, sec(7))
            << CostSteps{pass(0, 1, 2, 2), pass(0, 2, 0, 0), fail(0, 2, ns(4'666'666'667), 0, 0),
                         fail(0, 3, sec(7), 0, 0), never(0, 4, 0, 0)};

        // The largest cost with a capacity of 1e9 at 1e9/s: one such request empties the bucket
        // and the next waits exactly 1 s (no 128-bit overflow in k * perNanos).
        QTest::newRow("token_bucket cost 1e9")
            << Algorithm::TokenBucket << LimiterConfig::make(kMaxCost, sec(1))
            << CostSteps{pass(0, kMaxCost, 0, 0), fail(0, kMaxCost, sec(1), 0, 0), pass(sec(1), kMaxCost, 0, 0)};
    }

    // checks every field of each decision, and on copies remaining, retry_after (or never) and reset.
    void decisions()
    {
        QFETCH(Algorithm, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(CostSteps, steps);
        const QString problem = visitLimiter(algorithm, config, [&](auto& limiter) { return replayCosts(limiter, steps); });
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // Property "cost 1 equals today's results": 300 seeded random configs and streams (bursts,
    // 1 ns steps, gaps up to 3 s) through the seven limiters, every field of every decision,
    // levelAt just after and the memory at the end, folded into one FNV-1a hash. The expected
    // hash was computed by this same loop compiled against core/ of commit 73fcdfa, before
    // request cost existed (and is not produced by the code under test): any change in a cost-1
    // decision changes it.
    void costOneEqualsBeforeCost()
    {
        std::uint64_t h = 1469598103934665603ull;
        const auto mix = [&](std::int64_t v) {
            for (int b = 0; b < 8; ++b) {
                h ^= std::uint64_t(v >> (8 * b)) & 0xff;
                h *= 1099511628211ull;
            }
        };
        const auto bitsOf = [](double v) {
            std::int64_t bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            return bits;
        };
        for (std::uint64_t seed = 1; seed <= 300; ++seed) {
            std::mt19937_64 g(seed);
            const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
            // Each draw on a line of its own: the order of a call's arguments, and of an operator's
            // operands, is the compiler's to choose, and the hash below must not depend on it.
            // This is the order the hash was first taken in (GCC's: arguments right to left).
            const std::int64_t rateTokens = in(1, 20);
            const std::int64_t ratePer = in(1'000'000, 20'000'000'000);
            const std::int64_t capacity = in(1, 20);
            const std::int64_t windowMicros = in(1, 20'000'000);
            const std::int64_t windowNanos = in(0, 999);
            const std::int64_t limit = in(1, 20);
            const LimiterConfig c = LimiterConfig::make(limit, windowMicros * 1000 + windowNanos, capacity, Rate{rateTokens, ratePer});
            std::vector<Nanos> times;
            Nanos t = 0;
            for (int i = 0; i < 300; ++i) {
                const int k = int(in(0, 3));
                t += k == 0 ? 0 : k == 1 ? in(0, 3) : in(0, 3'000'000'000);
                times.push_back(t);
            }
            for (Algorithm a : kAllAlgorithms)
                visitLimiter(a, c, [&](auto& l) {
                    for (Nanos x : times) {
                        const Decision d = l.decide(x);
                        mix(d.allowed);
                        mix(d.remaining);
                        mix(d.retryAfter);
                        mix(d.delay);
                        mix(bitsOf(d.level));
                        mix(bitsOf(l.levelAt(x + 12345)));
                    }
                    mix(l.memory().bytes);
                });
        }
        QCOMPARE(h, std::uint64_t(0xa7c80daac6cdd97dull));
    }

    // checks that decide(t) and decide(t, 1) are one decision, on every limiter type itself (an
    // AnyLimiter sends cost 1 to decide(t), so it would compare a call with itself).
    void costOneIsDecide()
    {
        for (Algorithm a : kEveryAlgorithm)
            visitLimiter(a, config(3, sec(1)), [&](auto& one) {
                auto plain = one;
                for (Nanos t : {ns(0), ns(0), ns(0), ns(0), ms(400), ms(999), sec(1), sec(2)})
                    QVERIFY(sameDecision(one.decide(t, 1), plain.decide(t)));
            });
    }

    // checks the `t,cost` column of an arrivals file: costs kept per line, 0 where a line has none.
    void arrivalsWithCosts()
    {
        const Arrivals a = parseArrivalsWithCosts("0,3\n0.5\n 1 , 2 # comment\n\n1,1000000000\n", "f");
        QCOMPARE(a.times, (std::vector<Nanos>{0, ms(500), sec(1), sec(1)}));
        QCOMPARE(a.costs, (std::vector<std::int64_t>{3, 0, 2, kMaxCost}));
        const Arrivals plain = parseArrivalsWithCosts("0\n1\n", "f");
        QCOMPARE(plain.times, (std::vector<Nanos>{0, sec(1)}));
        QVERIFY(plain.costs.empty());
        QCOMPARE(parseArrivals("0,3\n1\n", "f"), (std::vector<Nanos>{0, sec(1)})); // times only
    }

    // checks that a cost that is not a whole number from 1 to 1e9 is refused naming file:line.
    void badCosts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("zero") << "0\n1,0\n" << "f:2: cost must be at least 1 (got 0)";
        QTest::newRow("too big") << "0,1000000001\n" << "f:1: cost must be at most 1000000000";
        QTest::newRow("fraction") << "0,1.5\n" << "f:1: cost ";
        QTest::newRow("word") << "0,abc\n" << "f:1: cost ";
        QTest::newRow("empty") << "0,\n" << "f:1: cost ";
        QTest::newRow("negative") << "0,-2\n" << "f:1: cost must be at least 1";
    }
    void badCosts()
    {
        QFETCH(QString, text);
        QFETCH(QString, prefix);
        try {
            (void)parseArrivalsWithCosts(text.toStdString(), "f");
            QFAIL("accepted");
        } catch (const InputError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.startsWith(prefix), qPrintable(message));
            QVERIFY2(message.contains("from 1 to 1000000000"), qPrintable(message));
        }
    }

    // checks that a scenario's rows thread per-request costs: explicit costs, the scenario's cost
    // where a line has none, and for requests added by hand (merged after equal explicit times).
    void simulateWithCosts()
    {
        Scenario s;
        s.algorithms = {Algorithm::TokenBucket, Algorithm::FixedWindow};
        s.explicitArrivals = std::vector<Nanos>{0, 0, 0};
        s.explicitCosts = {4, 0, 7};
        s.cost = 5;
        s.addedArrivals = {0};
        // Costs 4, 5 (the scenario's), 7, then the added request: 5.
        QCOMPARE(resolveCosts(s), (std::vector<std::int64_t>{4, 5, 7, 5}));
        const Trace trace = traceOf(s);
        QCOMPARE(trace.costs, (std::vector<std::int64_t>{4, 5, 7, 5}));
        // Token bucket, C = 10 at 1/s, all at 0: 10 - 4 = 6, 6 - 5 = 1, 7 > 1 denied (wait 6 s),
        // 5 > 1 denied (wait 4 s). Fixed window, L = 10: 4, 9, 9 + 7 > 10 denied, 9 + 5 denied;
        // both wait for the window at 10 s.
        const AlgorithmTrace& token = trace.results[0];
        QCOMPARE(token.metrics.allowed, 2);
        QCOMPARE(token.metrics.allowedCost, 9);
        QCOMPARE(token.metrics.denied, 2);
        QCOMPARE(token.metrics.never, 0);
        QCOMPARE(token.decisions[2].retryAfter, sec(6));
        QCOMPARE(token.decisions[3].retryAfter, sec(4));
        QCOMPARE(token.decisions[3].remaining, 1);
        const AlgorithmTrace& fixed = trace.results[1];
        QCOMPARE(fixed.metrics.allowedCost, 9);
        QCOMPARE(fixed.decisions[2].retryAfter, sec(10));
        QCOMPARE(fixed.decisions[3].remaining, 1);

        // A cost above C everywhere: every request is denied for ever.
        s.explicitCosts.clear();
        s.addedArrivals.clear();
        s.cost = 11;
        const Trace never = traceOf(s);
        for (const AlgorithmTrace& a : never.results) {
            QCOMPARE(a.metrics.never, 3);
            for (const Decision& d : a.decisions)
                QVERIFY(d.retryNever());
        }
        // Cost 1 leaves the trace without costs: every output stays as it was.
        s.cost = 1;
        QVERIFY(traceOf(s).costs.empty());
    }

    // max_in_window, overshoot and the bound's reached are in units, weighted by cost
    // (semantics.md). The edge at 10 s with cost 5: two requests at 9.9 s and two at 10 s, L = 10,
    // W = 10 s, C = 10 at 1/s.
    //   fixed_window: window [0, 10 s) admits 5 + 5 = 10, window [10 s, 20 s) 5 + 5 = 10; all four
    //     lie in (0, 10 s]: 20 units, overshoot 20 / 10 = 2.0. Its bound over T = W is
    //     L (ceil((T - 1 ns) / W) + 1) = 20: reached.
    //   sliding_window_log: 9.9 s admits 5 and 5; at 10 s the kept 10 + 5 > 10: denied. 10 units,
    //     overshoot 1.0; bound L ceil(T / W) = 10, reached.
    //   token_bucket (full): 9.9 s takes 10 tokens; 10 s holds 0.1 < 5: denied. 10 units, 1.0;
    //     bound C + floor(r (T - 1 ns)) = 10 + 9 = 19, reached 10.
    // Counted in requests instead, these are 4, 2 and 2 (overshoot 0.4, 0.2, 0.2). Every path
    // that measures them says the same: the simulator, the one-pass reduction with and without the
    // arrivals' lookback, and the engine (buckets starting empty: the windows decide as above; the
    // token bucket holds 9.9 at 9.9 s, takes 5 and refuses the second (4.9 < 5), holds exactly 5.0
    // at 10 s, takes 5 and refuses the last: 5 + 5 = 10 units in (0, 10 s]).
    void maxInWindowWeighsCost()
    {
        const LimiterConfig c = config(10, sec(10));
        const std::vector<Algorithm> algorithms{Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::TokenBucket};
        const std::vector<Nanos> arrivals{ms(9'900), ms(9'900), sec(10), sec(10)};
        const std::vector<std::int64_t> costs{5, 5, 5, 5};
        const std::int64_t most[] = {20, 10, 10}, atMost[] = {20, 10, 19};
        const double overshoot[] = {2.0, 1.0, 1.0};
        const Nanos reachedAt[] = {sec(10), ms(9'900), ms(9'900)}; // the fixed window's fourth request, the others' second
        const Trace trace = traceOf(c, algorithms, arrivals, costs);
        const auto lookback = makeWindowLookback(arrivals, c.windowNanos());
        Scenario empty;
        empty.config = c;
        empty.algorithms = algorithms;
        empty.explicitArrivals = arrivals;
        empty.explicitCosts = costs;
        empty.bucketsStartEmpty = true;
        const Trace engine = traceOf(empty);
        for (std::size_t r = 0; r < algorithms.size(); ++r) {
            const QByteArray id(algorithmId(algorithms[r]).data());
            const Metrics& m = trace.results[r].metrics;
            QVERIFY2(m.maxInWindow == most[r], id);
            QVERIFY2(m.overshoot == overshoot[r], id);
            QVERIFY2(m.allowedCost == most[r], id);
            QVERIFY2(trace.results[r].bound && trace.results[r].bound->reached == most[r], id);
            QVERIFY2(trace.results[r].bound->atMost == atMost[r], id);
            QVERIFY2(trace.results[r].bound->closestEnd == reachedAt[r], id);
            for (const WindowLookback* back : {lookback.get(), static_cast<const WindowLookback*>(nullptr)}) {
                const ReducedResult one = simulateReduced(c, algorithms[r], arrivals, costs, 0, sec(20), 8, nullptr, back);
                QVERIFY2(one.trace.metrics.maxInWindow == most[r], id);
                QVERIFY2(one.trace.metrics.overshoot == overshoot[r], id);
                if (back)
                    QVERIFY2(one.reach && one.reach->most == most[r] && one.reach->end == reachedAt[r], id);
            }
            QVERIFY2(engine.results[r].engine, id); // run by the engine
            QVERIFY2(engine.results[r].metrics.maxInWindow == most[r], id);
            QVERIFY2(engine.results[r].metrics.overshoot == overshoot[r], id);
        }
    }

    // The app's "max in a window so far" (maxUnitsSoFar) and its overshoot count a client's
    // attempts in units too, each its request's cost, as the engine does. One client retrying
    // by retry_after once; three requests at 0 of cost 4 on a fixed window of 10 per 10 s: 4 and
    // 4 pass (8), the third finds 8 + 4 > 10, waits for the window at 10 s and passes there
    // alone. (-10 s, 0] holds 8 units, (0, 10 s] 4: max_in_window 8, overshoot 0.8 (attempts
    // counted one each: 2).
    void attemptsWeighTheirRequestsCost()
    {
        Scenario s;
        s.config = config(10, sec(10));
        s.algorithms = {Algorithm::FixedWindow};
        s.explicitArrivals = std::vector<Nanos>{0, 0, 0};
        s.explicitCosts = {4, 4, 4};
        ClientOptions o;
        o.clients = 1;
        o.retry = RetryPolicy::RetryAfter;
        o.maxRetries = 1;
        s.clients = ClientConfig::make(o);
        const Trace trace = traceOf(s);
        const AlgorithmTrace& row = trace.results[0];
        QVERIFY(row.kind.attempts);
        QCOMPARE(decisionCount(row), std::size_t(4));
        QCOMPARE(row.metrics.allowed, 3);
        QCOMPARE(row.metrics.maxInWindow, 8);
        QCOMPARE(row.metrics.overshoot, 0.8);
        const std::vector<std::uint32_t> soFar = maxUnitsSoFar(trace, 0);
        QCOMPARE(soFar, (std::vector<std::uint32_t>{0, 4, 8, 8, 8}));
        const UnitsOvershoot units = unitsOvershoot(trace, 0);
        QCOMPARE(units.quota, 10);
        QCOMPARE(units.overshoot, 0.8);
    }

    // Property, 200 seeded random streams with random costs on every limiter: each decision
    // passes the copy checks of cost_steps.h (remaining, retry_after or never, reset), and the
    // token bucket, both leaky buckets and GCRA admit exactly the same requests (semantics.md:
    // level = C - tokens; GCRA is the token bucket as one timestamp), cost or not.
    void randomCostStreams()
    {
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            std::mt19937_64 g(seed);
            const auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
            const LimiterConfig c = LimiterConfig::make(in(1, 12), in(1, 20'000) * ms(1), in(1, 12),
                                                        Rate{in(1, 9), in(1, 5'000) * ms(1) + in(0, 999)});
            std::vector<Nanos> times;
            std::vector<std::int64_t> costs;
            Nanos t = 0;
            for (int i = 0; i < 60; ++i) {
                t += in(0, 2) == 0 ? 0 : in(0, 3'000) * ms(1) + in(0, 2);
                times.push_back(t);
                costs.push_back(in(0, 3) == 0 ? 1 : in(1, 14));
            }
            for (Algorithm a : kAllAlgorithms) {
                const QString problem = visitLimiter(a, c, [&](auto& limiter) {
                    for (std::size_t i = 0; i < times.size(); ++i) {
                        const Decision d = limiter.decide(times[i], costs[i]);
                        const QString p = costProblem(limiter, times[i], costs[i], d);
                        if (!p.isEmpty())
                            return QStringLiteral("request %1: ").arg(i) + p;
                    }
                    return QString();
                });
                QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("seed %1, %2: ").arg(seed).arg(
                                                QString::fromUtf8(algorithmId(a).data())) + problem));
            }
            const Trace trace = traceOf(c, std::vector<Algorithm>{Algorithm::TokenBucket, Algorithm::LeakyBucket,
                                                                   Algorithm::LeakyBucketQueue, Algorithm::Gcra},
                                        times, costs);
            for (std::size_t i = 0; i < times.size(); ++i)
                for (const AlgorithmTrace& r : trace.results)
                    QVERIFY2(r.decisions[i].allowed == trace.results[0].decisions[i].allowed
                                 && r.decisions[i].retryAfter == trace.results[0].decisions[i].retryAfter
                                 && r.decisions[i].remaining == trace.results[0].decisions[i].remaining,
                             qPrintable(QStringLiteral("seed %1 request %2").arg(seed).arg(i)));
        }
    }
};

QTEST_APPLESS_MAIN(TestCost)
#include "tst_cost.moc"
