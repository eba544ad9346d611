// The fast paths: each limiter's 64-bit, branch-free decision of cost 1 (DecidePath::Fast)
// against the 128-bit path every cost takes (DecidePath::General), over seeded random configs
// and streams, from typical ones to those at the edge of what fits 64 bits.
//
// Every Decision must be equal, the level bit for bit, and so must what the limiter says
// afterwards (levelAt, remainingAt, waitFor, memory). Requests of cost 2 or 3 are mixed in, so
// state left by one path is read by the other. RATELAB_PROPERTY_SEEDS sets the number of seeds
// (default 200); a failure prints the seed, the config and the request.
#include "property_seeds.h"
#include "limiters/limiters.h"

#include <QTest>

#include <bit>
#include <random>

using namespace ratelab;

namespace {

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    // in returns a number in [lo, hi], 0 <= lo <= hi (hi may be the largest int64).
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % (std::uint64_t(hi - lo) + 1)); }
    bool chance(int percent) { return in(0, 99) < percent; }
};

// randomCount is a limit or capacity: mostly small, sometimes up to the cap of 1e9.
std::int64_t randomCount(Rng& r)
{
    return r.chance(70) ? r.in(1, 20) : r.in(1, LimiterConfig::kMaxLimit);
}

// randomNanos is a window or a rate's period: from 1 ns to past the 64-bit paths' bounds.
Nanos randomNanos(Rng& r)
{
    switch (r.in(0, 3)) {
    case 0: return r.in(1, 1000);
    case 1: return r.in(1, 20) * kNanosPerSecond;
    case 2: return r.in(1, 1'000'000'000'000);
    default: return r.in(1, kMaxNanos);
    }
}

LimiterConfig randomConfig(Rng& r)
{
    const std::int64_t limit = randomCount(r);
    const Nanos window = randomNanos(r);
    const std::optional<std::int64_t> capacity = r.chance(50) ? std::optional(randomCount(r)) : std::nullopt;
    std::optional<Rate> rate;
    if (r.chance(70))
        rate = Rate::reduced(r.chance(80) ? r.in(1, 20) : r.in(1, kMaxNanos), randomNanos(r));
    return LimiterConfig::make(limit, window, capacity, rate);
}

// nextTime steps a stream: the same instant, a few ns, about the limiter's interval, a long gap,
// or (rarely) most of the way to the end of time.
Nanos nextTime(Rng& r, Nanos t, const LimiterConfig& c)
{
    const Nanos interval = std::max<Nanos>(1, c.windowNanos() / c.limit());
    Nanos step = 0;
    switch (r.in(0, 9)) {
    case 0: case 1: step = 0; break;
    case 2: step = r.in(1, 10); break;
    case 3: step = r.in(1, 1'000'000'000'000); break;
    case 4: step = r.chance(5) ? r.in(0, (kMaxNanos - t) / 2) : r.in(0, 1000); break;
    default: step = r.in(0, interval < kMaxNanos / 3 ? 2 * interval : interval); break;
    }
    return step > kMaxNanos - t ? t : t + step;
}

QString describe(std::uint64_t seed, const LimiterConfig& c, int i)
{
    return QString("seed %1: limit %2, window %3 ns, capacity %4, rate %5/%6 ns, request %7")
        .arg(seed)
        .arg(c.limit())
        .arg(c.windowNanos())
        .arg(c.capacity())
        .arg(c.rate().tokens)
        .arg(c.rate().perNanos)
        .arg(i);
}

bool same(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.retryAfter == b.retryAfter &&
           a.remaining == b.remaining && std::bit_cast<std::uint64_t>(a.level) == std::bit_cast<std::uint64_t>(b.level);
}

QString show(const Decision& d)
{
    return QString("{allowed %1, delay %2, retry_after %3, remaining %4, level %5}")
        .arg(d.allowed)
        .arg(d.delay)
        .arg(d.retryAfter)
        .arg(d.remaining)
        .arg(d.level, 0, 'g', 17);
}

// compareOn runs both paths of L over one random stream for config and fails at the first difference.
template <typename L>
void compareOn(const LimiterConfig& config, std::uint64_t seed)
{
    Rng r(seed);
    L fast(config, DecidePath::Fast);
    L general(config, DecidePath::General);
    Nanos t = r.chance(10) ? r.in(0, kMaxNanos) : r.in(0, 1000);
    for (int i = 0; i < 400; ++i) {
        t = nextTime(r, t, config);
        const std::int64_t cost = r.chance(10) ? r.in(2, 3) : 1;
        const Decision a = fast.decide(t, cost);
        const Decision b = general.decide(t, cost);
        if (!same(a, b))
            QFAIL(qPrintable(describe(seed, config, i) + QString(", cost %1 at %2 ns: fast ").arg(cost).arg(t) +
                             show(a) + ", general " + show(b)));
    }
    const Nanos later = nextTime(r, t, config);
    const QString where = describe(seed, config, 400) + " (after the stream)";
    QVERIFY2(std::bit_cast<std::uint64_t>(fast.levelAt(later)) == std::bit_cast<std::uint64_t>(general.levelAt(later)),
             qPrintable(where));
    QVERIFY2(fast.remainingAt(later) == general.remainingAt(later), qPrintable(where));
    QVERIFY2(fast.waitFor(later, 1) == general.waitFor(later, 1), qPrintable(where));
    QVERIFY2(fast.memory().bytes == general.memory().bytes && fast.memory().entries == general.memory().entries,
             qPrintable(where));
}

template <typename L>
void checkAgainstGeneral()
{
    for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
        Rng r(seed ^ 0x9e3779b97f4a7c15);
        LimiterConfig config;
        try {
            config = randomConfig(r);
        } catch (const std::exception&) {
            continue; // a combination make refuses: nothing to compare
        }
        compareOn<L>(config, seed);
        if (QTest::currentTestFailed())
            return;
    }
}

// checkAtTheBounds compares both paths on configs whose scaled integers sit just below and just
// above what the 64-bit paths take (C * perNanos and (L + 1) * W near 2^61 and 2^62).
template <typename L>
void checkAtTheBounds()
{
    for (std::int64_t count : {1LL, 7LL, 1'000'000'000LL}) {
        for (Nanos delta : {-2, -1, 0, 1, 2}) {
            const Nanos per = (Nanos(1) << 61) / count + delta;
            const Nanos window = (Nanos(1) << 62) / (count + 1) + delta;
            for (std::int64_t tokens : {1LL, 3LL}) {
                const LimiterConfig config = LimiterConfig::make(count, window, count, Rate::reduced(tokens, per));
                for (std::uint64_t seed = 1; seed <= 5; ++seed) {
                    compareOn<L>(config, seed);
                    if (QTest::currentTestFailed())
                        return;
                }
            }
        }
    }
}

} // namespace

class TestFastPaths : public QObject {
    Q_OBJECT

private slots:
    void tokenBucket() { checkAgainstGeneral<TokenBucket>(); }
    void leakyBucket() { checkAgainstGeneral<LeakyBucket>(); }
    void leakyBucketQueue() { checkAgainstGeneral<LeakyBucketQueue>(); }
    void gcra() { checkAgainstGeneral<Gcra>(); }
    void slidingWindowCounter() { checkAgainstGeneral<SlidingWindowCounter>(); }
    void slidingWindowLog() { checkAgainstGeneral<SlidingWindowLog>(); }

    void tokenBucketAtTheBounds() { checkAtTheBounds<TokenBucket>(); }
    void leakyBucketAtTheBounds() { checkAtTheBounds<LeakyBucket>(); }
    void leakyBucketQueueAtTheBounds() { checkAtTheBounds<LeakyBucketQueue>(); }
    void gcraAtTheBounds() { checkAtTheBounds<Gcra>(); }
    void slidingWindowCounterAtTheBounds() { checkAtTheBounds<SlidingWindowCounter>(); }
};

QTEST_GUILESS_MAIN(TestFastPaths)
#include "tst_fast_paths.moc"
