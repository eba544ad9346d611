// Traffic patterns: generateArrivals for every kind, and every parameter it must refuse.
#include "arithmetic/decimal.h"
#include "traffic/pattern.h"

#include <QTest>

#include <algorithm>

Q_DECLARE_METATYPE(ratelab::Pattern)

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

Pattern uniform(std::int64_t n, Nanos delay, Nanos start = 0)
{
    Pattern p;
    p.kind = PatternKind::Uniform;
    p.count = n;
    p.delayNanos = delay;
    p.startNanos = start;
    return p;
}

Pattern burst(std::int64_t n, std::int64_t size, Nanos period, Nanos start = 0)
{
    Pattern p;
    p.kind = PatternKind::Burst;
    p.count = n;
    p.burstSize = size;
    p.periodNanos = period;
    p.startNanos = start;
    return p;
}

Pattern poisson(std::int64_t n, Rate lambda, std::uint64_t seed, Nanos start = 0)
{
    Pattern p;
    p.kind = PatternKind::Poisson;
    p.count = n;
    p.lambda = lambda;
    p.seed = seed;
    p.startNanos = start;
    return p;
}

Pattern edge(Nanos gap, Nanos start = 0)
{
    Pattern p;
    p.kind = PatternKind::Edge;
    p.gapNanos = gap;
    p.startNanos = start;
    return p;
}

std::vector<Nanos> repeated(std::int64_t n, Nanos t) { return std::vector<Nanos>(std::size_t(n), t); }

std::vector<Nanos> concat(std::vector<Nanos> a, const std::vector<Nanos>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

class TestPattern : public QObject {
    Q_OBJECT
private slots:
    void ids()
    {
        for (PatternKind k : kAllPatterns)
            QCOMPARE(patternFromId(patternId(k)), std::optional<PatternKind>(k));
        QCOMPARE(patternId(PatternKind::Edge), std::string_view("edge"));
        QVERIFY(!patternFromId("Uniform"));
        QVERIFY(!patternFromId(""));
    }

    void uniformStream()
    {
        const LimiterConfig c;
        // 4 requests 0.25 s apart from 1.5 s: 1.5, 1.75, 2, 2.25.
        QCOMPARE(generateArrivals(uniform(4, kSecond / 4, 3 * kSecond / 2), c),
                 (std::vector<Nanos>{1'500'000'000, 1'750'000'000, 2'000'000'000, 2'250'000'000}));
        // The default pattern: 15 requests 0.1 s apart from 0; the 11th is at exactly 1 s.
        const auto d = generateArrivals(Pattern{}, c);
        QCOMPARE(d.size(), std::size_t(15));
        QCOMPARE(d[10], kSecond);
        QCOMPARE(d.back(), Nanos(1'400'000'000));
        QCOMPARE(generateArrivals(uniform(3, 0, 7), c), repeated(3, 7)); // delay 0: one instant
        QCOMPARE(generateArrivals(uniform(0, kSecond), c), std::vector<Nanos>{});
        QCOMPARE(generateArrivals(uniform(2, 1), c), (std::vector<Nanos>{0, 1})); // 1 ns apart
        // The last time may be exactly the largest Nanos.
        QCOMPARE(generateArrivals(uniform(2, kMaxNanos - 5, 5), c), (std::vector<Nanos>{5, kMaxNanos}));
    }

    void burstStream()
    {
        const LimiterConfig c;
        // 7 requests in groups of 3 every 2 s from 1 s: 3 at 1, 3 at 3, the last one at 5.
        QCOMPARE(generateArrivals(burst(7, 3, 2 * kSecond, kSecond), c),
                 concat(concat(repeated(3, kSecond), repeated(3, 3 * kSecond)), repeated(1, 5 * kSecond)));
        QCOMPARE(generateArrivals(burst(6, 3, kSecond), c), concat(repeated(3, 0), repeated(3, kSecond)));
        QCOMPARE(generateArrivals(burst(4, 1, kMilli), c), (std::vector<Nanos>{0, kMilli, 2 * kMilli, 3 * kMilli}));
        QCOMPARE(generateArrivals(burst(5, 10, kSecond), c), repeated(5, 0)); // fewer than one burst
        QCOMPARE(generateArrivals(burst(4, 2, 0), c), repeated(4, 0));        // period 0: one instant
        QCOMPARE(generateArrivals(burst(0, 2, kSecond), c), std::vector<Nanos>{});
    }

    void poissonIsReproducible()
    {
        const LimiterConfig c;
        const auto a = generateArrivals(poisson(500, Rate{2, kSecond}, 42), c);
        QCOMPARE(a.size(), std::size_t(500));
        QCOMPARE(generateArrivals(poisson(500, Rate{2, kSecond}, 42), c), a);
        QVERIFY(generateArrivals(poisson(500, Rate{2, kSecond}, 43), c) != a);
        QVERIFY(std::is_sorted(a.begin(), a.end()));
        QCOMPARE(a.front(), Nanos(0)); // the first request is at start
        QVERIFY(a.back() > 0);
        const auto shifted = generateArrivals(poisson(3, Rate{2, kSecond}, 42, 5 * kSecond), c);
        QCOMPARE(shifted.front(), 5 * kSecond);
        QVERIFY(std::is_sorted(shifted.begin(), shifted.end()));
        QCOMPARE(generateArrivals(poisson(0, Rate{2, kSecond}, 1), c), std::vector<Nanos>{});
        QCOMPARE(generateArrivals(poisson(1, Rate{2, kSecond}, 1, 9), c), std::vector<Nanos>{9});
    }

    void poissonIsOneStreamAtAnyLength()
    {
        // A stream is a prefix of every longer one with the same seed: request i's gap comes from
        // draw i alone. With Threads::Two a long stream makes its gaps on two threads, halves split
        // at its middle, and a short one on one: the first 65,535 of 80,000 (split at 40,000) are
        // those of a stream of 65,535, the first 1,000 of 1,000,000 those of a stream of 1,000,
        // and the 80,000 made on one thread are those made on two.
        const LimiterConfig c;
        const auto prefixOf = [](const std::vector<Nanos>& longer, const std::vector<Nanos>& shorter) {
            return longer.size() > shorter.size() && std::equal(shorter.begin(), shorter.end(), longer.begin());
        };
        const auto longStream = generateArrivals(poisson(80'000, Rate{200, kSecond}, 42, 3), c, Threads::Two);
        QVERIFY(prefixOf(longStream, generateArrivals(poisson(65'535, Rate{200, kSecond}, 42, 3), c, Threads::Two)));
        QVERIFY(std::is_sorted(longStream.begin(), longStream.end()));
        QCOMPARE(generateArrivals(poisson(80'000, Rate{200, kSecond}, 42, 3), c), longStream); // on one thread
        QVERIFY(prefixOf(generateArrivals(poisson(1'000'000, Rate{7, kSecond}, 5), c, Threads::Two),
                         generateArrivals(poisson(1'000, Rate{7, kSecond}, 5), c)));
    }

    void poissonKeepsTheStartExactAndGapsAtAnyStart()
    {
        // Times are integer nanoseconds summed exactly: a start that a double cannot hold
        // (10^16 + 1 ns) is the first arrival to the nanosecond.
        Pattern p;
        p.kind = PatternKind::Poisson;
        p.count = 1000;
        p.lambda = Rate{1, 1000}; // one per microsecond: gaps of about 1000 ns
        p.startNanos = 10'000'000'000'000'001;
        std::vector<Nanos> t = generateArrivals(p, LimiterConfig{});
        QCOMPARE(t.front(), Nanos(10'000'000'000'000'001));
        // Near the end of time gaps keep their size: they do not collapse onto the few doubles
        // there are at 9.2e18 ns (2048 ns apart).
        p.startNanos = kMaxNanos - 10'000'000; // 10 ms before the end: room for 1000 gaps of ~1 us
        t = generateArrivals(p, LimiterConfig{});
        QCOMPARE(t.front(), kMaxNanos - 10'000'000);
        QVERIFY(std::is_sorted(t.begin(), t.end()));
        std::int64_t small = 0; // gaps a 2048 ns grid of doubles could not show
        for (std::size_t i = 1; i < t.size(); ++i)
            small += t[i] - t[i - 1] > 0 && (t[i] - t[i - 1]) % 2048 != 0;
        QVERIFY2(small > 900, qPrintable(QString::number(small)));
        const Nanos mean = (t.back() - t.front()) / Nanos(t.size() - 1);
        QVERIFY2(mean > 800 && mean < 1250, qPrintable(QString::number(mean)));
        // A start at the very end is accepted for one request (uniform accepts it too), and a
        // stream that would run past it is refused with the cap in the message.
        p.count = 1;
        p.startNanos = kMaxNanos;
        QCOMPARE(generateArrivals(p, LimiterConfig{}), std::vector<Nanos>{kMaxNanos});
        p.count = 2;
        try {
            (void)generateArrivals(p, LimiterConfig{});
            QFAIL("a second request past the end of time was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("9223372036.854775807"), e.what());
        }
    }

    void poissonMeanGap()
    {
        // Exponential gaps with mean 1/lambda: over 100000 gaps the standard error of the mean
        // is 1/lambda / sqrt(1e5), about 0.3 %. A 3 % band is 9 standard errors wide.
        const LimiterConfig c;
        const std::int64_t n = 100'001;
        for (const Rate lambda : {Rate{2, kSecond}, Rate{3, 7 * kSecond}, Rate{1000, kSecond}}) {
            const auto a = generateArrivals(poisson(n, lambda, 7), c);
            const double meanGap = double(a.back() - a.front()) / double(n - 1);
            const double expected = double(lambda.perNanos) / double(lambda.tokens);
            QVERIFY2(std::abs(meanGap / expected - 1) < 0.03, qPrintable(QString::number(meanGap)));
        }
    }

    void edgeStraddlesTheFirstBoundary_data()
    {
        QTest::addColumn<std::int64_t>("limit");
        QTest::addColumn<Nanos>("window");
        QTest::addColumn<Nanos>("start");
        QTest::addColumn<Nanos>("gap");
        QTest::addColumn<Nanos>("boundary");
        // B is the first multiple of W at or after start + gap, and never 0.
        QTest::newRow("defaults") << std::int64_t(10) << 10 * kSecond << Nanos(0) << kMilli << 10 * kSecond;
        QTest::newRow("start mid-window") << std::int64_t(3) << 10 * kSecond << 5 * kSecond << kMilli << 10 * kSecond;
        QTest::newRow("start + gap on a boundary") << std::int64_t(2) << 10 * kSecond << 10 * kSecond - kMilli << kMilli
                                                   << 10 * kSecond;
        QTest::newRow("1 ns past a boundary") << std::int64_t(2) << 10 * kSecond << 10 * kSecond - kMilli + 1 << kMilli
                                              << 20 * kSecond;
        QTest::newRow("gap longer than a window") << std::int64_t(1) << 10 * kSecond << Nanos(0) << 15 * kSecond
                                                  << 20 * kSecond;
        QTest::newRow("gap of exactly W") << std::int64_t(4) << 7 * kSecond << Nanos(0) << 7 * kSecond << 7 * kSecond;
        QTest::newRow("gap 0 at 0: B > 0") << std::int64_t(2) << 7 * kSecond << Nanos(0) << Nanos(0) << 7 * kSecond;
        QTest::newRow("gap 0 on a boundary") << std::int64_t(2) << 7 * kSecond << 14 * kSecond << Nanos(0) << 14 * kSecond;
        QTest::newRow("odd window") << std::int64_t(5) << Nanos(3) << Nanos(4) << Nanos(1) << Nanos(6);
    }

    void edgeStraddlesTheFirstBoundary()
    {
        QFETCH(std::int64_t, limit);
        QFETCH(Nanos, window);
        QFETCH(Nanos, start);
        QFETCH(Nanos, gap);
        QFETCH(Nanos, boundary);
        const auto a = generateArrivals(edge(gap, start), LimiterConfig::make(limit, window));
        QCOMPARE(a, concat(repeated(limit, boundary - gap), repeated(limit, boundary)));
    }

    void refusals_data()
    {
        QTest::addColumn<Pattern>("pattern");
        QTest::addColumn<std::int64_t>("limit");
        QTest::addColumn<QString>("message");
        const std::int64_t L = 10;
        QTest::newRow("uniform n < 0") << uniform(-1, kSecond) << L << "number of requests must not be negative";
        QTest::newRow("burst n < 0") << burst(-5, 2, kSecond) << L << "number of requests must not be negative";
        QTest::newRow("poisson n < 0") << poisson(-1, Rate{2, kSecond}, 1) << L << "number of requests must not be negative";
        QTest::newRow("delay < 0") << uniform(3, -1) << L << "delay must not be negative";
        QTest::newRow("start < 0") << uniform(3, kSecond, -kSecond) << L << "start must not be negative";
        QTest::newRow("burst size 0") << burst(3, 0, kSecond) << L << "burst size must be at least 1";
        QTest::newRow("burst size < 0") << burst(3, -2, kSecond) << L << "burst size must be at least 1";
        QTest::newRow("period < 0") << burst(3, 1, -kMilli) << L << "period must not be negative";
        QTest::newRow("lambda 0") << poisson(3, Rate{0, kSecond}, 1) << L << "lambda must be greater than 0";
        QTest::newRow("edge gap < 0") << edge(-1) << L << "gap must not be negative";
        const QString tooMany = QString("at most %1 requests").arg(kMaxArrivals);
        QTest::newRow("uniform too many") << uniform(kMaxArrivals + 1, 0) << L << tooMany;
        QTest::newRow("burst too many") << burst(kMaxArrivals + 1, 100, 0) << L << tooMany;
        QTest::newRow("poisson too many") << poisson(kMaxArrivals + 1, Rate{2, kSecond}, 1) << L << tooMany;
        // The edge pattern sends 2L requests.
        QTest::newRow("edge too many") << edge(kMilli) << kMaxArrivals / 2 + 1 << tooMany;
        const QString overflow = "largest time";
        // 0 + 2 * (max/2 + 1) = max + 1 (max is odd: max/2 * 2 = max - 1).
        QTest::newRow("uniform past the range") << uniform(3, kMaxNanos / 2 + 1) << L << overflow;
        QTest::newRow("uniform start past the range") << uniform(2, 2, kMaxNanos - 1) << L << overflow;
        // Groups of 2: the 5th request is in group 2, at start + 2 * period.
        QTest::newRow("burst past the range") << burst(5, 2, kMaxNanos / 2 + 1) << L << overflow;
        // One request per 292 years on average: ten of them cannot all fit.
        QTest::newRow("poisson past the range") << poisson(10, Rate{1, kMaxNanos / 2}, 1) << L << overflow;
        // The first boundary after max - 5 is beyond the range.
        QTest::newRow("edge past the range") << edge(1, kMaxNanos - 5) << L << overflow;
    }

    void refusals()
    {
        QFETCH(Pattern, pattern);
        QFETCH(std::int64_t, limit);
        QFETCH(QString, message);
        try {
            generateArrivals(pattern, LimiterConfig::make(limit, 10 * kSecond));
            QFAIL("no InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QVERIFY(!QString(e.what()).contains('\n'));
        }
    }

    void largestCountIsAccepted()
    {
        // Exactly kMaxArrivals is allowed; one more is refused (refusals above).
        const auto a = generateArrivals(burst(kMaxArrivals, kMaxArrivals, kSecond), LimiterConfig{});
        QCOMPARE(std::int64_t(a.size()), kMaxArrivals);
        QCOMPARE(a.back(), Nanos(0));
    }
};

QTEST_APPLESS_MAIN(TestPattern)
#include "tst_pattern.moc"
