// explain: one line of plain words per request, checked word for word against sentences derived
// by hand from semantics.md, and by property over random traces.
#include "engine_helpers.h"
#include "report/explain.h"
#include "limiter_steps.h"

#include <QTest>

#include <random>
#include <stdexcept>
#include <string>

using namespace ratelab;
using namespace ratelab::test;

Q_DECLARE_METATYPE(ratelab::Algorithm)

namespace {

using Arrivals = std::vector<Nanos>;

// reference is the semantics page's case: 15 requests 0.1 s apart from t = 0.
Arrivals reference()
{
    Arrivals a;
    for (int k = 0; k < 15; ++k)
        a.push_back(ms(100) * k);
    return a;
}

// edges is requests at 0, 5, 9.5, 10, 10.5 and 15 s: around the boundary of W = 10 s.
const Arrivals kEdges = {0, sec(5), ms(9500), sec(10), ms(10500), sec(15)};

std::string explainOne(const LimiterConfig& c, Algorithm a, const Arrivals& arrivals, std::size_t index)
{
    const Algorithm one[] = {a};
    return explain(traceOf(c, one, arrivals), 0, index);
}

// Property cases: random configs and arrivals mixing bursts, 1 ns steps, gaps of W and of the
// refill interval, and arrivals at or just before a boundary (as in tst_properties).
struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
};

LimiterConfig randomConfig(Rng& r)
{
    const std::int64_t limit = r.in(1, 12);
    const Nanos window = r.in(0, 1) ? r.in(1, 20) * sec(1) : r.in(ms(1), sec(20));
    std::optional<std::int64_t> capacity;
    if (r.in(0, 1))
        capacity = r.in(1, 12);
    std::optional<Rate> rate;
    switch (r.in(0, 2)) {
    case 0: break; // L / W, often not a decimal
    case 1: rate = Rate{r.in(1, 20), r.in(1, 20) * sec(1)}; break;
    default: rate = Rate{r.in(1, 20), r.in(ms(1), sec(20))}; break;
    }
    return LimiterConfig::make(limit, window, capacity, rate);
}

Arrivals randomArrivals(Rng& r, const LimiterConfig& c)
{
    const Nanos w = c.windowNanos();
    const Nanos refill = c.rate().perNanos / c.rate().tokens;
    Arrivals a;
    Nanos t = 0;
    const auto n = std::size_t(r.in(20, 120));
    while (a.size() < n) {
        switch (r.in(0, 7)) {
        case 0: t += r.in(0, 2 * w / c.limit()); break;
        case 1: t += r.in(0, 2 * refill); break;
        case 2: t += 1; break;
        case 3: t = (t / w + 1) * w - r.in(0, 1); break;
        case 4: t += refill + r.in(0, 1); break;
        case 5: t += w; break;
        default: break; // a burst at one instant
        }
        a.push_back(t);
    }
    return a;
}

// shownAmount reads the two-decimal number that follows `label` in a sentence.
double shownAmount(const std::string& s, const std::string& label)
{
    const std::size_t at = s.find(label);
    return at == std::string::npos ? -1 : std::stod(s.substr(at + label.size()));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

} // namespace

class TestExplain : public QObject {
    Q_OBJECT
private slots:
    void seconds_data()
    {
        QTest::addColumn<Nanos>("t");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << Nanos(0) << "0.000";
        QTest::newRow("whole") << sec(10) << "10.000";
        QTest::newRow("tenths") << ms(1500) << "1.500";
        QTest::newRow("1 ns is not 0.000") << ns(1) << "0.000000001";
        QTest::newRow("7/3 s rounded up") << ns(2'333'333'334) << "2.333333334";
        QTest::newRow("microseconds") << ns(1'000'250'000) << "1.00025";
    }

    void seconds()
    {
        QFETCH(Nanos, t);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(explainSeconds(t)), text);
    }

    void sentences_data()
    {
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Algorithm>("algorithm");
        QTest::addColumn<Arrivals>("arrivals");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("sentence");

        using A = Algorithm;
        const LimiterConfig ref; // L = 10, W = 10 s, C = 10, r = 1/s
        const Arrivals r = reference(); // request k at 0.1k s
        const auto row = [](const char* name, const LimiterConfig& c, A a, const Arrivals& arr, int i, const char* s) {
            QTest::newRow(name) << c << a << arr << i << QString::fromUtf8(s);
        };

        // The reference case. Fixed window: request k finds k used in [0, 10); k = 0..9 pass
        // and leave 10 - (k + 1); k = 10 at 1.0 s finds 10 and waits for the boundary, 9 s away.
        row("fixed, reference, k=2", ref, A::FixedWindow, r, 2,
            "t = 0.200 s: fixed window: 2 of 10 used in window [0 s, 10 s) -> admitted, 7 left");
        row("fixed, reference, k=10", ref, A::FixedWindow, r, 10,
            "t = 1.000 s: fixed window: 10 of 10 used in window [0 s, 10 s) -> denied, retry in 9.000 s "
            "when window [10 s, 20 s) opens");
        // Log: nothing expires before 10 s; at 1.0 s the 10 entries 0 .. 0.9 s fill it, and the
        // oldest (0 s) leaves the window (s > t - W) at exactly 10 s.
        row("log, reference, k=0", ref, A::SlidingWindowLog, r, 0,
            "t = 0.000 s: sliding window log: 0 of 10 entries in the last 10 s -> admitted, 9 left");
        row("log, reference, k=9", ref, A::SlidingWindowLog, r, 9,
            "t = 0.900 s: sliding window log: 9 of 10 entries in the last 10 s (oldest 0.000 s, expires at 10.000 s) "
            "-> admitted, 0 left");
        row("log, reference, k=10", ref, A::SlidingWindowLog, r, 10,
            "t = 1.000 s: sliding window log: 10 of 10 entries in the last 10 s (oldest 0.000 s, expires at "
            "10.000 s) -> denied, retry in 9.000 s when the oldest expires");
        // Counter: all in window 0, prev = 0. At 0.9 s the weight is (10 - 0.9) / 10 = 0.91,
        // E = cur = 9 < 10. At 1.0 s E = 10: cur >= L, so only the next window helps, and there
        // prev = 10 counts in full at e = 0 (10 < 10 fails): retry 9 s + 1 ns.
        row("counter, reference, k=9", ref, A::SlidingWindowCounter, r, 9,
            "t = 0.900 s: sliding window counter: 0.900 s into window [0 s, 10 s): prev 0 x weight 0.91 + cur 9 "
            "= estimate 9.00 < limit 10 -> admitted, 0 left");
        row("counter, reference, k=10", ref, A::SlidingWindowCounter, r, 10,
            "t = 1.000 s: sliding window counter: 1.000 s into window [0 s, 10 s): prev 0 x weight 0.90 + cur 10 "
            "= estimate 10.00 >= limit 10 -> denied, retry in 9.000000001 s");
        // Token bucket: request k finds 10 - 0.9k tokens (k <= 10), 0.1 refilled in each gap.
        // k = 10 at exactly 1.0 s finds exactly 1 token; k = 11 finds 0.1 and needs 0.9 s more.
        row("token, reference, k=0", ref, A::TokenBucket, r, 0,
            "t = 0.000 s: token bucket: had 10.00 tokens (full at the start) -> admitted, 9.00 left");
        row("token, reference, k=10", ref, A::TokenBucket, r, 10,
            "t = 1.000 s: token bucket: had 1.00 token (refilled 0.10 since the last request) -> admitted, 0.00 left");
        row("token, reference, k=11", ref, A::TokenBucket, r, 11,
            "t = 1.100 s: token bucket: had 0.10 tokens (refilled 0.10 since the last request) -> denied, "
            "1 token needed, retry in 0.900 s");
        // Leaky meter: water = 10 - tokens. 9.00 + 1 fits in 10; 9.90 + 1 overflows by 0.9.
        row("leaky, reference, k=10", ref, A::LeakyBucket, r, 10,
            "t = 1.000 s: leaky bucket (meter): water 9.00 of 10 (drained 0.10 since the last request) -> admitted "
            "(1 more fits), water now 10.00");
        row("leaky, reference, k=11", ref, A::LeakyBucket, r, 11,
            "t = 1.100 s: leaky bucket (meter): water 9.90 of 10 (drained 0.10 since the last request) -> denied "
            "(1 more would overflow), retry in 0.900 s");
        // Queue: request k waits water / r = 0.9k s and leaves at k s. At 1.0 s those admitted
        // at 0.2 .. 0.9 s (leaving at 2 .. 9 s) wait: 8 (ceil(9.00) - 1); request 1 leaves at
        // exactly 1.0 s. At 1.1 s request 10 (leaving at 10 s) has joined them: 9.
        row("queue, reference, k=0", ref, A::LeakyBucketQueue, r, 0,
            "t = 0.000 s: leaky bucket (queue): water 0.00 of 10, 0 requests waiting -> admitted at once");
        row("queue, reference, k=1", ref, A::LeakyBucketQueue, r, 1,
            "t = 0.100 s: leaky bucket (queue): water 0.90 of 10, 0 requests waiting -> admitted, waits 0.900 s "
            "(leaves at 1.000 s)");
        row("queue, reference, k=10", ref, A::LeakyBucketQueue, r, 10,
            "t = 1.000 s: leaky bucket (queue): water 9.00 of 10, 8 requests waiting -> admitted, waits 9.000 s "
            "(leaves at 10.000 s)");
        row("queue, reference, k=11", ref, A::LeakyBucketQueue, r, 11,
            "t = 1.100 s: leaky bucket (queue): water 9.90 of 10, 9 requests waiting -> dropped "
            "(1 more would overflow), retry in 0.900 s");
        // GCRA: T = 1 s, tau = 9 s. Request k >= 1 finds TAT = k s, backlog 0.9k s: k = 10 is
        // exactly at the tolerance (admitted), k = 11 is 0.9 s over it.
        row("gcra, reference, k=0", ref, A::Gcra, r, 0,
            "t = 0.000 s: GCRA: no TAT yet, backlog 0.000 s <= tolerance 9.000 s -> admitted, TAT now 1.000 s");
        row("gcra, reference, k=10", ref, A::Gcra, r, 10,
            "t = 1.000 s: GCRA: TAT 10.000 s, backlog 9.000 s <= tolerance 9.000 s -> admitted, TAT now 11.000 s");
        row("gcra, reference, k=11", ref, A::Gcra, r, 11,
            "t = 1.100 s: GCRA: TAT 11.000 s, backlog 9.900 s > tolerance 9.000 s -> denied, retry in 0.900 s");

        // 3 per 7 s (C = 3, r = 3/7 per s, T = 7/3 s), four requests at t = 0. The queue's
        // second request waits 1 / r = 7/3 s, reported rounded up; the third 14/3 s; the fourth
        // overflows by 1 and may retry after 7/3 s. GCRA: tau = 14/3 s, so the third request is
        // exactly at the tolerance and the fourth 7 - 14/3 = 7/3 s over it.
        const LimiterConfig thirds = config(3, sec(7));
        const Arrivals burst(4, 0);
        row("queue, 3 per 7 s, k=1", thirds, A::LeakyBucketQueue, burst, 1,
            "t = 0.000 s: leaky bucket (queue): water 1.00 of 3, 0 requests waiting -> admitted, waits 2.333333334 s "
            "(leaves at 2.333333334 s)");
        row("queue, 3 per 7 s, k=2", thirds, A::LeakyBucketQueue, burst, 2,
            "t = 0.000 s: leaky bucket (queue): water 2.00 of 3, 1 request waiting -> admitted, waits 4.666666667 s "
            "(leaves at 4.666666667 s)");
        row("queue, 3 per 7 s, k=3", thirds, A::LeakyBucketQueue, burst, 3,
            "t = 0.000 s: leaky bucket (queue): water 3.00 of 3, 2 requests waiting -> dropped "
            "(1 more would overflow), retry in 2.333333334 s");
        row("gcra, 3 per 7 s, k=2", thirds, A::Gcra, burst, 2,
            "t = 0.000 s: GCRA: TAT 4.666666667 s, backlog 4.666666667 s <= tolerance 4.666666667 s -> admitted, "
            "TAT now 7.000 s");
        row("gcra, 3 per 7 s, k=3", thirds, A::Gcra, burst, 3,
            "t = 0.000 s: GCRA: TAT 7.000 s, backlog 7.000 s > tolerance 4.666666667 s -> denied, "
            "retry in 2.333333334 s");

        // L = 2, W = 10 s (C = 2, r = 0.2/s, T = 5 s), requests at 0, 5, 9.5, 10, 10.5, 15 s.
        const LimiterConfig two = config(2, sec(10));
        // Fixed: [0, 10) is full after 5 s; the boundary at 10 s resets the count.
        row("fixed, boundary, k=2", two, A::FixedWindow, kEdges, 2,
            "t = 9.500 s: fixed window: 2 of 2 used in window [0 s, 10 s) -> denied, retry in 0.500 s "
            "when window [10 s, 20 s) opens");
        row("fixed, boundary, k=3", two, A::FixedWindow, kEdges, 3,
            "t = 10.000 s: fixed window: 0 of 2 used in window [10 s, 20 s) -> admitted, 1 left");
        // Counter across the boundary. 9.5 s: E = cur = 2, and cur >= L: at 10 s prev = 2 still
        // counts in full, so the retry is 0.5 s + 1 ns. 10 s: prev 2, e = 0, E = 2, denied; the
        // weight falls below 1 one ns later. 10.5 s: E = 2 x 0.95 = 1.90 < 2, admitted; one more
        // would make 2.90. 15 s: E = 2 x 0.5 + 1 = 2, denied for 1 ns.
        row("counter, boundary, k=2", two, A::SlidingWindowCounter, kEdges, 2,
            "t = 9.500 s: sliding window counter: 9.500 s into window [0 s, 10 s): prev 0 x weight 0.05 + cur 2 "
            "= estimate 2.00 >= limit 2 -> denied, retry in 0.500000001 s");
        row("counter, boundary, k=3", two, A::SlidingWindowCounter, kEdges, 3,
            "t = 10.000 s: sliding window counter: 0.000 s into window [10 s, 20 s): prev 2 x weight 1.00 + cur 0 "
            "= estimate 2.00 >= limit 2 -> denied, retry in 0.000000001 s");
        row("counter, boundary, k=4", two, A::SlidingWindowCounter, kEdges, 4,
            "t = 10.500 s: sliding window counter: 0.500 s into window [10 s, 20 s): prev 2 x weight 0.95 + cur 0 "
            "= estimate 1.90 < limit 2 -> admitted, 0 left");
        row("counter, boundary, k=5", two, A::SlidingWindowCounter, kEdges, 5,
            "t = 15.000 s: sliding window counter: 5.000 s into window [10 s, 20 s): prev 2 x weight 0.50 + cur 1 "
            "= estimate 2.00 >= limit 2 -> denied, retry in 0.000000001 s");
        // A window with no requests in between: at 25 s the previous window [10, 20) is empty.
        row("counter, skipped window", two, A::SlidingWindowCounter, Arrivals{0, 0, sec(25)}, 2,
            "t = 25.000 s: sliding window counter: 5.000 s into window [20 s, 30 s): prev 0 x weight 0.50 + cur 0 "
            "= estimate 0.00 < limit 2 -> admitted, 1 left");
        // Log at expiry: the entry of 0 s is inside at 9.5 s and gone at exactly 10 s (0 > 10 - 10
        // fails); the entry of 5 s goes at exactly 15 s.
        row("log, expiry, k=2", two, A::SlidingWindowLog, kEdges, 2,
            "t = 9.500 s: sliding window log: 2 of 2 entries in the last 10 s (oldest 0.000 s, expires at 10.000 s) "
            "-> denied, retry in 0.500 s when the oldest expires");
        row("log, expiry, k=3", two, A::SlidingWindowLog, kEdges, 3,
            "t = 10.000 s: sliding window log: 1 of 2 entries in the last 10 s (1 expired since the last request; "
            "oldest 5.000 s, expires at 15.000 s) -> admitted, 0 left");
        row("log, expiry, k=5", two, A::SlidingWindowLog, kEdges, 5,
            "t = 15.000 s: sliding window log: 1 of 2 entries in the last 10 s (1 expired since the last request; "
            "oldest 10.000 s, expires at 20.000 s) -> admitted, 0 left");
        // One ns before expiry: denied for exactly 1 ns, which must not read "0.000 s".
        const Arrivals nsEdge = {0, 0, sec(10) - 1, sec(10)};
        row("log, 1 ns before expiry", two, A::SlidingWindowLog, nsEdge, 2,
            "t = 9.999999999 s: sliding window log: 2 of 2 entries in the last 10 s (oldest 0.000 s, expires at "
            "10.000 s) -> denied, retry in 0.000000001 s when the oldest expires");
        row("log, at expiry", two, A::SlidingWindowLog, nsEdge, 3,
            "t = 10.000 s: sliding window log: 0 of 2 entries in the last 10 s (2 expired since the last request) "
            "-> admitted, 1 left");
        // Buckets: after 5 s the token bucket is full again (1 token used, 5 s x 0.2 refilled) and
        // the meter empty; the singular is for exactly 1.00.
        row("token, refilled to full", two, A::TokenBucket, kEdges, 1,
            "t = 5.000 s: token bucket: had 2.00 tokens (refilled 1.00 since the last request, full) -> admitted, "
            "1.00 left");
        row("leaky, drained to empty", two, A::LeakyBucket, kEdges, 1,
            "t = 5.000 s: leaky bucket (meter): water 0.00 of 2 (drained 1.00 since the last request, empty) "
            "-> admitted (1 more fits), water now 1.00");
        // GCRA with TAT = t: nothing ahead, backlog 0.
        row("gcra, TAT reached", two, A::Gcra, kEdges, 1,
            "t = 5.000 s: GCRA: TAT 5.000 s not ahead of t, backlog 0.000 s <= tolerance 5.000 s -> admitted, "
            "TAT now 10.000 s");

        // Rounding never contradicts the decision: 1 ns before the 11th token is due the bucket
        // holds 0.999999999 tokens, shown rounded down (0.99, denied), and the meter 9.000000001,
        // shown rounded up (9.01, does not fit 10).
        Arrivals early(r.begin(), r.begin() + 10);
        early.push_back(sec(1) - 1);
        row("token, 1 ns short of a token", ref, A::TokenBucket, early, 10,
            "t = 0.999999999 s: token bucket: had 0.99 tokens (refilled 0.09 since the last request) -> denied, "
            "1 token needed, retry in 0.000000001 s");
        row("leaky, 1 ns short of room", ref, A::LeakyBucket, early, 10,
            "t = 0.999999999 s: leaky bucket (meter): water 9.01 of 10 (drained 0.09 since the last request) "
            "-> denied (1 more would overflow), retry in 0.000000001 s");
    }

    void sentences()
    {
        QFETCH(LimiterConfig, config);
        QFETCH(Algorithm, algorithm);
        QFETCH(Arrivals, arrivals);
        QFETCH(int, index);
        QFETCH(QString, sentence);
        QCOMPARE(QString::fromStdString(explainOne(config, algorithm, arrivals, std::size_t(index))), sentence);
    }

    // For random traces, every explanation of every algorithm agrees with its decision: it says
    // "admitted" exactly when the request was, names the retry time when it was not, the queue's
    // delay when there was one, and shows numbers on the right side of the rule.
    void agreesWithDecisions()
    {
        const std::uint64_t seeds = 200;
        std::size_t checked = 0, denied = 0, delayed = 0;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            Rng rng(seed * 0x9E3779B97F4A7C15ull);
            const LimiterConfig c = randomConfig(rng);
            const Trace trace = traceOf(c, kAllAlgorithms, randomArrivals(rng, c));
            for (std::size_t row = 0; row < trace.results.size(); ++row) {
                const Algorithm a = trace.results[row].algorithm;
                for (std::size_t i = 0; i < trace.arrivals.size(); ++i) {
                    const Decision& d = trace.results[row].decisions[i];
                    const std::string s = explain(trace, row, i);
                    const QByteArray where = QStringLiteral("seed %1, %2, request %3: %4")
                                                 .arg(seed).arg(QString::fromUtf8(algorithmId(a).data()))
                                                 .arg(i).arg(QString::fromStdString(s)).toUtf8();
                    const std::string t = explainSeconds(trace.arrivals[i]);
                    QVERIFY2(s.rfind("t = " + t + " s: ", 0) == 0, where.constData());
                    QVERIFY2(contains(s, "admitted") == d.allowed, where.constData());
                    QVERIFY2(contains(s, "retry in") == !d.allowed, where.constData());
                    if (!d.allowed)
                        QVERIFY2(contains(s, "retry in " + explainSeconds(d.retryAfter) + " s"), where.constData());
                    if (a == Algorithm::LeakyBucketQueue && d.allowed)
                        QVERIFY2(d.delay == 0 ? contains(s, "admitted at once")
                                              : contains(s, "waits " + explainSeconds(d.delay) + " s (leaves at "
                                                                + explainSeconds(trace.arrivals[i] + d.delay) + " s)"),
                                 where.constData());
                    if (a == Algorithm::SlidingWindowCounter)
                        QVERIFY2(contains(s, " < limit ") == d.allowed, where.constData());
                    if (a == Algorithm::Gcra)
                        QVERIFY2(contains(s, " <= tolerance ") == d.allowed, where.constData());
                    if (a == Algorithm::TokenBucket) // shown rounded down: >= 1.00 iff admitted
                        QVERIFY2((shownAmount(s, "had ") >= 0.995) == d.allowed, where.constData());
                    if (a == Algorithm::LeakyBucket) // shown rounded up: + 1 fits iff admitted
                        QVERIFY2((shownAmount(s, "water ") + 1 <= double(c.capacity()) + 0.005) == d.allowed,
                                 where.constData());
                    ++checked;
                    denied += !d.allowed;
                    delayed += d.delay > 0;
                }
            }
        }
        // The traces exercise both verdicts and the queue's delays, not just one path.
        QVERIFY(checked > 10'000);
        QVERIFY(denied > checked / 10);
        QVERIFY(delayed > 100);
    }

    void outOfRange()
    {
        const Algorithm one[] = {Algorithm::TokenBucket};
        const Trace trace = traceOf(LimiterConfig{}, one, reference());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, explain(trace, 1, 0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, explain(trace, 0, 15));
    }

    // A trace whose decision does not follow from its config and arrivals is refused, not
    // explained with numbers that contradict it.
    void refusesADecisionTheReplayDisagreesWith()
    {
        for (Algorithm a : kAllAlgorithms) {
            const Algorithm one[] = {a};
            Trace trace = traceOf(LimiterConfig{}, one, reference());
            Decision& d = trace.results[0].decisions[11];
            d.allowed = !d.allowed;
            QVERIFY_THROWS_EXCEPTION(std::logic_error, explain(trace, 0, 11));
            QVERIFY(!explain(trace, 0, 10).empty()); // earlier requests are still explained
        }
    }
};

QTEST_APPLESS_MAIN(TestExplain)
#include "tst_explain.moc"
