// Property tests: every limiter over many seeded random arrival streams and random configs.
//
// Each property is checked for RATELAB_PROPERTY_SEEDS seeds (default 200). A failure prints the
// seed and the config, so it can be replayed: the streams come from std::mt19937_64 and our own
// integer/exponential transforms, which give the same numbers on every platform.
#include "property_seeds.h"
#include "limiters/any_limiter.h"
#include "limiters/token_bucket.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
    bool chance(int percent) { return in(0, 99) < percent; }
    double unit() { return double(g() >> 11) * 0x1.0p-53; } // [0, 1)
};

struct Case {
    std::uint64_t seed = 0;
    LimiterConfig config;
    std::vector<Nanos> arrivals;
};

LimiterConfig randomConfig(Rng& r)
{
    const std::int64_t limit = r.in(1, 20);
    Nanos window = 0;
    switch (r.in(0, 3)) {
    case 0: window = r.in(1, 20'000) * kMilli; break;     // whole ms, 1 ms .. 20 s
    case 1: window = r.in(kMilli, 20 * kSecond); break;    // any ns in 1 ms .. 20 s
    case 2: window = r.in(1, 20) * kSecond; break;
    default: window = 7 * kSecond; break;
    }
    std::optional<std::int64_t> capacity;
    if (r.chance(50))
        capacity = r.in(1, 20);
    std::optional<Rate> rate; // none: the default L / W, itself often not a decimal (3 per 7 s)
    switch (r.in(0, 3)) {
    case 0: break;
    case 1: rate = Rate{r.in(1, 20), r.in(1, 20) * kSecond}; break;      // a/b per s, e.g. 3/7
    case 2: rate = Rate{r.in(1, 20), r.in(1, 2'000) * kMilli}; break;    // a per b ms
    default: rate = Rate{r.in(1, 20), r.in(kMilli, 20 * kSecond)}; break; // a per any ns count
    }
    return LimiterConfig::make(limit, window, capacity, rate);
}

// makeCase mixes Poisson-like gaps, bursts at one instant, gaps of exactly W and of the refill
// interval (or its nearest whole ns), 1 ns steps, and arrivals at or just before a boundary.
Case makeCase(std::uint64_t seed)
{
    Rng r(seed * 0x9E3779B97F4A7C15ull + 1);
    Case c;
    c.seed = seed;
    c.config = randomConfig(r);
    const Nanos w = c.config.windowNanos();
    const Rate rate = c.config.rate();
    const Nanos refillFloor = rate.perNanos / rate.tokens; // 1/r, rounded down to the ns
    const Nanos refillCeil = refillFloor + (rate.perNanos % rate.tokens != 0 ? 1 : 0);
    const auto n = std::size_t(r.in(40, 250));
    Nanos t = r.chance(20) ? r.in(0, 3 * w) : 0;
    while (c.arrivals.size() < n) {
        switch (r.in(0, 9)) {
        case 0: case 1: case 2: { // exponential gap around W/L or 1/r
            const double mean = double(r.chance(50) ? w / c.config.limit() : refillFloor) * (0.2 + 2 * r.unit());
            t += std::llround(-std::log1p(-r.unit()) * mean);
            break;
        }
        case 3: // a burst at one instant
            for (std::int64_t k = r.in(1, 24); k > 0 && c.arrivals.size() + 1 < n; --k)
                c.arrivals.push_back(t);
            break;
        case 4: t += w; break;
        case 5: t += r.chance(40) ? refillFloor : r.chance(60) ? refillCeil : rate.perNanos; break;
        case 6: t += r.chance(50) ? 1 : r.chance(50) ? w - 1 : w + 1; break;
        case 7: t = (t / w + 1) * w - (r.chance(50) ? 1 : 0); break;
        case 8: break; // same instant as the last
        default: t += r.in(w, 3 * w); break;
        }
        c.arrivals.push_back(t);
    }
    return c;
}

QByteArray describe(const Case& c)
{
    return QStringLiteral("seed %1: L=%2 W=%3ns C=%4 r=%5/%6ns, %7 requests")
        .arg(c.seed).arg(c.config.limit()).arg(c.config.windowNanos()).arg(c.config.capacity())
        .arg(c.config.rate().tokens).arg(c.config.rate().perNanos).arg(c.arrivals.size()).toUtf8();
}

std::vector<Decision> run(Algorithm a, const Case& c)
{
    AnyLimiter l = makeLimiter(a, c.config);
    std::vector<Decision> out;
    for (Nanos t : c.arrivals)
        out.push_back(l.decide(t));
    return out;
}

bool same(const Decision& a, const Decision& b)
{
    return a.allowed == b.allowed && a.delay == b.delay && a.remaining == b.remaining
        && a.retryAfter == b.retryAfter && a.level == b.level;
}

// admittedIn counts admissions i < end with time in (from, to].
std::int64_t admittedIn(const Case& c, const std::vector<Decision>& d, std::size_t end, Nanos from, Nanos to)
{
    std::int64_t n = 0;
    for (std::size_t i = 0; i < end; ++i)
        n += d[i].allowed && c.arrivals[i] > from && c.arrivals[i] <= to ? 1 : 0;
    return n;
}

// bruteMaxInWindow: the most admissions in any (s - W, s]; the worst s is an admission time.
std::int64_t bruteMaxInWindow(const Case& c, const std::vector<Decision>& d)
{
    std::int64_t best = 0;
    for (std::size_t j = 0; j < d.size(); ++j)
        if (d[j].allowed) {
            const Nanos s = c.arrivals[j];
            best = std::max(best, admittedIn(c, d, d.size(), s - c.config.windowNanos(), s));
        }
    return best;
}

// forEachCase runs check over every seed and stops at the first failing one, naming it.
template <typename F>
void forEachCase(F check)
{
    const std::uint64_t seeds = propertySeeds();
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const Case c = makeCase(seed);
        check(c);
        if (QTest::currentTestFailed()) {
            qWarning("failing case: %s", describe(c).constData());
            return;
        }
    }
}

// CHECK is QVERIFY that names the request, and only builds its message when it fails.
#define CHECK(cond, i)                                                                                  \
    do {                                                                                                \
        if (!(cond))                                                                                    \
            QFAIL(qPrintable(QStringLiteral("'%1' is false for request %2 at t=%3ns")                  \
                                 .arg(#cond).arg(i).arg(c.arrivals[i])));                               \
    } while (false)

} // namespace

class TestProperties : public QObject {
    Q_OBJECT
private slots:
    void slidingLogHoldsTheLimitExactly()
    {
        forEachCase([](const Case& c) {
            const auto d = run(Algorithm::SlidingWindowLog, c);
            const std::int64_t limit = c.config.limit();
            QVERIFY(bruteMaxInWindow(c, d) <= limit);
            // And it is the definition, not just a bound: admitted iff fewer than L admissions
            // lie in (t - W, t] before this one (entries expire exactly W after admission).
            for (std::size_t i = 0; i < d.size(); ++i) {
                const Nanos t = c.arrivals[i];
                CHECK(d[i].allowed == (admittedIn(c, d, i, t - c.config.windowNanos(), t) < limit), i);
                CHECK(d[i].level == double(admittedIn(c, d, i + 1, t - c.config.windowNanos(), t)), i);
            }
        });
    }

    void windowCountersStayWithinTwiceTheLimit()
    {
        forEachCase([](const Case& c) {
            const Nanos w = c.config.windowNanos();
            const std::int64_t limit = c.config.limit();
            const auto fixed = run(Algorithm::FixedWindow, c);
            const auto counter = run(Algorithm::SlidingWindowCounter, c);
            // Any (s - W, s] meets at most two fixed windows, each admitting at most L.
            QVERIFY(bruteMaxInWindow(c, fixed) <= 2 * limit);
            QVERIFY(bruteMaxInWindow(c, counter) <= 2 * limit);
            for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                const Nanos t = c.arrivals[i], b = t / w;
                // fixed: admitted iff fewer than L admitted so far in [b*W, (b+1)*W).
                CHECK(fixed[i].allowed == (admittedIn(c, fixed, i, b * w - 1, t) < limit), i);
                // counter: prev*(W - e) + cur*W < L*W with prev, cur counted by brute force.
                const Int128 prev = b > 0 ? admittedIn(c, counter, i, (b - 1) * w - 1, b * w - 1) : 0;
                const Int128 cur = admittedIn(c, counter, i, b * w - 1, t);
                const Nanos e = t - b * w;
                CHECK(counter[i].allowed == (prev * (w - e) + cur * w < Int128(limit) * w), i);
                // Levels, after the request: the window's count, and E = (prev*(W - e) + cur*W)/W.
                CHECK(fixed[i].level == double(admittedIn(c, fixed, i + 1, b * w - 1, t)), i);
                const Int128 curAfter = cur + (counter[i].allowed ? 1 : 0);
                CHECK(counter[i].level == double(prev * (w - e) + curAfter * w) / double(w), i);
            }
        });
    }

    void bucketFamilyAdmitsTheSame()
    {
        forEachCase([](const Case& c) {
            const auto token = run(Algorithm::TokenBucket, c);
            const auto leaky = run(Algorithm::LeakyBucket, c);
            const auto queue = run(Algorithm::LeakyBucketQueue, c);
            const auto gcra = run(Algorithm::Gcra, c);
            const double capacity = double(c.config.capacity());
            const double perSecond = c.config.rate().perSecond();
            for (std::size_t i = 0; i < token.size(); ++i) {
                for (const auto* other : {&leaky, &queue, &gcra}) {
                    CHECK((*other)[i].allowed == token[i].allowed, i);
                    CHECK((*other)[i].remaining == token[i].remaining, i);
                    CHECK((*other)[i].retryAfter == token[i].retryAfter, i);
                }
                // Water is C - tokens exactly; the two doubles are each rounded once from exact
                // integers, so they agree to far better than 1e-9 of C.
                CHECK(std::abs(leaky[i].level - (capacity - token[i].level)) <= 1e-9 * capacity, i);
                // GCRA's backlog TAT - t is the time to drain that water: backlog * r == water.
                CHECK(std::abs(gcra[i].level * perSecond - leaky[i].level) <= 1e-9 * capacity, i);
            }
        });
    }

    void queueDeparturesAreSpacedByOneOverRate()
    {
        forEachCase([](const Case& c) {
            const auto d = run(Algorithm::LeakyBucketQueue, c);
            const Int128 k = c.config.rate().tokens, p = c.config.rate().perNanos; // r = k / p per ns
            // Exact departures, in units of 1/k ns: D = t + water_before / r. Water only drains
            // between requests, so D_next = max(t_next, D_prev + 1/r), i.e. m = max(t*k, m + p).
            Int128 m = -1;
            Nanos lastDeparture = -1;
            std::vector<Nanos> departures(d.size(), -1);
            for (std::size_t i = 0; i < d.size(); ++i) {
                const Nanos t = c.arrivals[i];
                CHECK(d[i].allowed || d[i].delay == 0, i);
                if (!d[i].allowed)
                    continue;
                m = std::max(Int128(t) * k, m < 0 ? m : m + p);
                // The reported delay is the exact one rounded up to the ns.
                CHECK(d[i].delay == Nanos(ceilDiv(m, k) - t), i);
                const Nanos departure = t + d[i].delay;
                // Exact departures D1 < D2 are at least p/k apart and both are multiples of 1/k:
                // D1 = m1/k, D2 >= (m1 + p)/k. Rounding up moves D1 by at most (k - 1)/k and D2
                // not down, so d2 - d1 >= (p - k + 1)/k, i.e. (d2 - d1) * k >= p - k + 1
                // (equivalently d2 - d1 >= floor(p / k)). This is tight: at 3 per 7 ns the
                // departures 0, 7/3, 14/3 are reported as 0, 3, 5.
                if (lastDeparture >= 0) {
                    CHECK(departure >= lastDeparture, i);
                    CHECK(Int128(departure - lastDeparture) * k >= p - k + 1, i);
                }
                lastDeparture = departures[i] = departure;
                // Level: admitted requests not yet left (departure after t, this one included).
                std::int64_t waiting = 0;
                for (std::size_t j = 0; j <= i; ++j)
                    waiting += departures[j] > t ? 1 : 0;
                CHECK(d[i].level == double(waiting), i);
            }
        });
    }

    void retryAfterIsTheLeastWait()
    {
        forEachCase([](const Case& c) {
            for (Algorithm a : kAllAlgorithms) {
                AnyLimiter l = makeLimiter(a, c.config);
                for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                    const Nanos t = c.arrivals[i];
                    const Decision d = l.decide(t);
                    if (d.allowed) {
                        CHECK(d.retryAfter == 0, i);
                        continue;
                    }
                    CHECK(d.retryAfter >= 1, i);
                    CHECK(AnyLimiter(l).decide(t + d.retryAfter).allowed, i);
                    CHECK(!AnyLimiter(l).decide(t + d.retryAfter - 1).allowed, i);
                }
            }
        });
    }

    void remainingIsExact()
    {
        forEachCase([](const Case& c) {
            for (Algorithm a : kAllAlgorithms) {
                AnyLimiter l = makeLimiter(a, c.config);
                for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                    const Nanos t = c.arrivals[i];
                    const Decision d = l.decide(t);
                    if (a != Algorithm::LeakyBucketQueue)
                        CHECK(d.delay == 0, i);
                    CHECK(d.remaining >= 0, i);
                    if (!d.allowed) {
                        CHECK(d.remaining == 0, i);
                        continue;
                    }
                    AnyLimiter copy = l;
                    for (std::int32_t k = 0; k < d.remaining; ++k)
                        CHECK(copy.decide(t).allowed, i);
                    CHECK(!copy.decide(t).allowed, i);
                }
            }
        });
    }

    // Near the end of the Nanos range (about 292 years) nothing may overflow: the retry and
    // remaining properties still hold wherever t + retry_after is representable.
    void extremeTimesStayExact()
    {
        const Nanos max = kMaxNanos;
        const std::vector<LimiterConfig> configs = {
            LimiterConfig::make(1, max), LimiterConfig::make(3, max / 2 + 1),
            LimiterConfig::make(2, max - 1, 5, Rate{1, max}), LimiterConfig::make(20, 3, 20, Rate{7, 3}),
        };
        const std::vector<Nanos> arrivals = {0, 0, 1, max / 3, max / 2, max / 2, max - 2, max - 1, max - 1, max};
        for (const LimiterConfig& config : configs)
            for (Algorithm a : kAllAlgorithms) {
                AnyLimiter l = makeLimiter(a, config);
                for (Nanos t : arrivals) {
                    const QByteArray where = QByteArray(algorithmId(a).data()) + " t=" + QByteArray::number(t);
                    const Decision d = l.decide(t);
                    QVERIFY2(d.retryAfter >= (d.allowed ? 0 : 1), where);
                    // A retry_after of max may be saturated (the least d does not fit): skip it.
                    if (!d.allowed && d.retryAfter < max && d.retryAfter <= max - t) {
                        QVERIFY2(AnyLimiter(l).decide(t + d.retryAfter).allowed, where);
                        QVERIFY2(!AnyLimiter(l).decide(t + d.retryAfter - 1).allowed, where);
                    }
                    AnyLimiter copy = l;
                    for (std::int32_t k = 0; k < d.remaining; ++k)
                        QVERIFY2(copy.decide(t).allowed, where);
                    QVERIFY2(!copy.decide(t).allowed, where);
                }
            }
    }

    void levelAtDoesNotChangeDecisions()
    {
        forEachCase([](const Case& c) {
            for (Algorithm a : kAllAlgorithms) {
                const auto plain = run(a, c);
                AnyLimiter l = makeLimiter(a, c.config);
                Nanos last = 0;
                for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                    const Nanos t = c.arrivals[i];
                    l.levelAt(last + (t - last) / 2);
                    l.levelAt(t);
                    const Decision d = l.decide(t);
                    CHECK(same(d, plain[i]), i);
                    // The level a decision reports is the level at its instant, after it.
                    CHECK(l.levelAt(t) == d.level, i);
                    last = t;
                }
            }
        });
    }

    // A view may start before time 0 (panned left) or before the state's last request: nothing
    // refills or drains backwards, so a fresh limiter shows its level at 0 at every earlier time
    // (these times overflowed the 64-bit token bucket's refill), and a token bucket the level its
    // last request left.
    void levelBeforeTheLastRequestIsTheLevelItLeft()
    {
        const Nanos earlier[] = {-1, -kSecond, -527'282'608'674'768'192, std::numeric_limits<Nanos>::min() / 2};
        forEachCase([&](const Case& c) {
            for (Algorithm a : kAllAlgorithms) {
                AnyLimiter l = makeLimiter(a, c.config);
                const double atZero = l.levelAt(0);
                for (Nanos t : earlier)
                    CHECK(l.levelAt(t) == atZero, std::size_t(0));
            }
            for (DecidePath path : {DecidePath::Fast, DecidePath::General}) {
                TokenBucket l(c.config, path);
                for (std::size_t i = 0; i < c.arrivals.size(); ++i) {
                    const Decision d = l.decide(c.arrivals[i]);
                    for (Nanos t : earlier)
                        CHECK(l.levelAt(c.arrivals[i] + t) == d.level, i);
                }
            }
        });
    }
};

QTEST_APPLESS_MAIN(TestProperties)
#include "tst_properties.moc"
