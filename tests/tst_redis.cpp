// The Redis backend against a real redis-server this test starts itself (never one that happens
// to run): every algorithm's script gives exactly the decisions of coordination `shared` on random
// scenarios inside the exact domain, and a scenario outside it is refused naming 2^53.
//
// redis-server missing is a failure, not a skip: CI installs it (apt-get install redis-server).
#include "engine_helpers.h"
#include "property_seeds.h"
#include "presets.h"
#include "redis_check.h"
#include "redis_store.h"

#include <QTest>

#include <hiredis/hiredis.h>

#include <cmath>
#include <random>

using namespace ratelab;
using namespace ratelab::io;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;
constexpr Nanos kMilli = 1'000'000;

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
    bool chance(int percent) { return in(0, 99) < percent; }
    double unit() { return double(g() >> 11) * 0x1.0p-53; }
};

struct Case {
    std::uint64_t seed = 0;
    LimiterConfig config;
    ClusterConfig cluster;
    std::vector<Nanos> arrivals;
};

// makeCase draws configs with rates that are not decimals (3/7 per s), any-ns windows, bursts,
// boundaries, and up to 4 nodes with skew; times stay far inside the domain.
Case makeCase(std::uint64_t seed)
{
    Rng r(seed * 0x9E3779B97F4A7C15ull + 11);
    Case c;
    c.seed = seed;
    const std::int64_t limit = r.in(1, 10);
    const Nanos window = r.chance(50) ? r.in(1, 20) * kSecond : r.in(kMilli, 5 * kSecond);
    std::optional<std::int64_t> capacity;
    if (r.chance(50))
        capacity = r.in(1, 10);
    std::optional<Rate> rate;
    if (r.chance(60))
        rate = Rate{r.in(1, 20), r.chance(50) ? r.in(1, 20) * kSecond : r.in(kMilli, 5 * kSecond)};
    c.config = LimiterConfig::make(limit, window, capacity, rate);
    ClusterConfig::Options o;
    o.nodes = int(r.in(1, 4));
    o.balancer = kAllBalancers[std::size_t(r.in(0, 2))];
    o.seed = std::uint64_t(r.in(0, 100));
    o.coordination = Coordination::Shared;
    o.skewNanos = r.chance(50) ? 0 : r.in(0, window);
    c.cluster = ClusterConfig::make(o);
    const Nanos w = c.config.windowNanos();
    const auto n = std::size_t(r.in(10, 60));
    Nanos t = r.chance(20) ? r.in(0, 3 * w) : 0;
    while (c.arrivals.size() < n) {
        switch (r.in(0, 5)) {
        case 0: case 1: t += std::llround(-std::log1p(-r.unit()) * double(w / limit)); break;
        case 2:
            for (std::int64_t k = r.in(1, 8); k > 0 && c.arrivals.size() + 1 < n; --k)
                c.arrivals.push_back(t);
            break;
        case 3: t += r.chance(50) ? 1 : w; break;
        case 4: t = (t / w + 1) * w - (r.chance(50) ? 1 : 0); break;
        default: break;
        }
        c.arrivals.push_back(t);
    }
    return c;
}

QString describe(const Case& c)
{
    return QStringLiteral("seed %1: L=%2 W=%3ns C=%4 r=%5/%6ns, %7 requests, %8 nodes, skew %9ns")
        .arg(c.seed).arg(c.config.limit()).arg(c.config.windowNanos()).arg(c.config.capacity())
        .arg(c.config.rate().tokens).arg(c.config.rate().perNanos).arg(c.arrivals.size()).arg(c.cluster.nodes())
        .arg(c.cluster.skewNanos());
}

// firstDifference names the first request whose decisions differ in any field, or is empty.
QString firstDifference(const std::vector<Decision>& redis, const std::vector<Decision>& sim)
{
    if (redis.size() != sim.size())
        return QStringLiteral("%1 decisions from Redis, %2 simulated").arg(redis.size()).arg(sim.size());
    for (std::size_t i = 0; i < sim.size(); ++i) {
        const Decision &a = redis[i], &b = sim[i];
        if (a.allowed != b.allowed || a.remaining != b.remaining || a.retryAfter != b.retryAfter || a.delay != b.delay
            || a.level != b.level)
            return QStringLiteral("request %1: redis allowed=%2 remaining=%3 retry_after=%4 delay=%5 level=%6, "
                                  "simulated allowed=%7 remaining=%8 retry_after=%9 delay=%10 level=%11")
                .arg(i).arg(a.allowed).arg(a.remaining).arg(a.retryAfter).arg(a.delay).arg(a.level)
                .arg(b.allowed).arg(b.remaining).arg(b.retryAfter).arg(b.delay).arg(b.level);
    }
    return {};
}

std::vector<Decision> simulatedShared(Algorithm a, const LimiterConfig& config, const ClusterConfig& cluster,
                                      const std::vector<Nanos>& arrivals)
{
    return test::decisionsOf(test::runCluster(config, cluster, a, arrivals));
}

} // namespace

Q_DECLARE_METATYPE(ratelab::LimiterConfig)

class TestRedis : public QObject {
    Q_OBJECT
    std::unique_ptr<PrivateRedis> m_redis;
    std::unique_ptr<RedisStore> m_store;

private slots:
    void initTestCase()
    {
        try {
            m_redis = std::make_unique<PrivateRedis>();
            m_store = std::make_unique<RedisStore>(m_redis->address());
        } catch (const RedisError& e) {
            QFAIL(qPrintable(QStringLiteral("cannot start a private redis-server (install it: apt-get install "
                                            "redis-server): %1").arg(QString::fromUtf8(e.what()))));
        }
    }

    void cleanupTestCase()
    {
        m_store.reset();
        if (m_redis)
            m_redis->stop();
    }

    void everyScriptStatesItsDomain()
    {
        for (Algorithm a : kAllAlgorithms) {
            const std::string s = luaScript(a);
            QVERIFY2(s.rfind("-- RateLab " + std::string(algorithmId(a)), 0) == 0, algorithmId(a).data());
            QVERIFY(s.find("2^53 = 9007199254740992") != std::string::npos);
            QVERIFY(s.find("{ratelab:KEY}:" + std::string(algorithmId(a))) != std::string::npos);
            QVERIFY(s.find("PEXPIRE") != std::string::npos);
        }
    }

    // The semantics page's reference case, through Redis: 15 requests 0.1 s apart admit 10 with
    // the window limiters and 11 with the buckets (the 11th token is due at exactly 1.0 s).
    // File > Check against Redis: the presets a class would check agree, on this server.
    void checkAgainstRedisAgreesOnThePresets_data()
    {
        QTest::addColumn<QString>("preset");
        for (const char* id : {"edge-burst", "token-vs-leaky", "two-servers-local", "racing-read-write"})
            QTest::newRow(id) << id;
    }

    void checkAgainstRedisAgreesOnThePresets()
    {
        QFETCH(QString, preset);
        const LoadResult p = loadPreset(preset);
        QVERIFY(p.scenario);
        const RedisCheck r = checkAgainstRedis(*p.scenario, m_redis->address());
        QVERIFY2(r.agreed, qPrintable(r.summary));
        QVERIFY2(r.summary.contains("Every decision agreed"), qPrintable(r.summary));
        // Redis models one shared store: for local or racy nodes the check says it checked the
        // shared variant, not the chart on screen (a racy chart admits more than Redis would).
        const bool shared = !p.scenario->cluster || p.scenario->cluster->coordination() == Coordination::Shared;
        QCOMPARE(r.summary.contains("checked the shared variant"), !shared);
    }

    // A check follows its progress, decision by decision, and stops when cancelled: the
    // default 15 requests x 7 algorithms are 105 decisions; cancelled from the start, the first
    // decision is the last.
    void checkAgainstRedisReportsProgressAndCancels()
    {
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        QCOMPARE(redisDecisions(s), std::size_t(30));
        RedisProgress done;
        QVERIFY(checkAgainstRedis(s, m_redis->address(), &done).agreed);
        QCOMPARE(done.total.load(), std::size_t(30));
        QCOMPARE(done.done.load(), std::size_t(30));
        RedisProgress stopped;
        stopped.cancel = true;
        const RedisCheck r = checkAgainstRedis(s, m_redis->address(), &stopped);
        QVERIFY(!r.agreed);
        QCOMPARE(stopped.done.load(), std::size_t(1));
        QVERIFY2(r.summary == "Cancelled after 1 of 30 decisions.", qPrintable(r.summary));
    }

    void checkAgainstRedisSaysWhyNot()
    {
        Scenario cost;
        cost.cost = 2;
        QVERIFY2(checkAgainstRedis(cost, m_redis->address()).agreed, "a cost of 2 runs through the scripts too");
        Scenario nginx;
        nginx.algorithms = {Algorithm::NginxLimitReq};
        QVERIFY(checkAgainstRedis(nginx, m_redis->address()).summary.contains("no Lua script"));
        // Past the scripts' exact domain (2^53): refused, naming the bound.
        Scenario big;
        big.config = LimiterConfig::make(10, 9'000'000'000'000'000'000LL);
        big.algorithms = {Algorithm::FixedWindow};
        const RedisCheck r = checkAgainstRedis(big, m_redis->address());
        QVERIFY(!r.agreed);
        QVERIFY2(r.summary.startsWith("Not checked: ") && r.summary.contains("2^53"), qPrintable(r.summary));
        // A server that is not there: said, not hung.
        const RedisCheck gone = checkAgainstRedis(Scenario{}, "unix:/nonexistent/redis.sock");
        QVERIFY(!gone.agreed);
        QVERIFY2(gone.summary.contains("/nonexistent/redis.sock"), qPrintable(gone.summary));
    }

    void referenceCase()
    {
        std::vector<Nanos> t;
        for (int i = 0; i < 15; ++i)
            t.push_back(i * kSecond / 10);
        const std::int64_t want[] = {10, 10, 10, 11, 11, 11, 11};
        for (std::size_t k = 0; k < kAllAlgorithms.size(); ++k) {
            const auto d = m_store->run(kAllAlgorithms[k], LimiterConfig{}, ClusterConfig{}, t);
            const auto allowed = std::count_if(d.begin(), d.end(), [](const Decision& x) { return x.allowed; });
            QCOMPARE(std::int64_t(allowed), want[k]);
        }
        // The queue's second request waits 7/3 s, rounded up, at 3 per 7 s.
        const auto q = m_store->run(Algorithm::LeakyBucketQueue, LimiterConfig::make(3, 7 * kSecond), ClusterConfig{},
                                    std::vector<Nanos>{0, 0, 0});
        QCOMPARE(q[1].delay, Nanos(2'333'333'334));
        QCOMPARE(q[2].delay, Nanos(4'666'666'667));
    }

    void redisDecisionsEqualShared()
    {
        const std::uint64_t seeds = std::min<std::uint64_t>(propertySeeds(), 200);
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            const Case c = makeCase(seed);
            for (Algorithm a : kAllAlgorithms) {
                const auto redis = m_store->run(a, c.config, c.cluster, c.arrivals);
                const QString diff = firstDifference(redis, simulatedShared(a, c.config, c.cluster, c.arrivals));
                if (!diff.isEmpty())
                    QFAIL(qPrintable(QString::fromUtf8(algorithmId(a).data()) + ", " + describe(c) + ": " + diff));
            }
        }
    }

    // Right at the edge of the domain the scripts are still exact: the largest time and window
    // below 2^53.
    void edgeOfTheDomainIsExact()
    {
        const Nanos top = kLuaExactBound - 1;
        const LimiterConfig wide = LimiterConfig::make(2, top);
        const std::vector<Nanos> t{0, top - 1, top - 1, top};
        for (Algorithm a : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog}) {
            const QString diff = firstDifference(m_store->run(a, wide, ClusterConfig{}, t),
                                                 simulatedShared(a, wide, ClusterConfig{}, t));
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
        // A token bucket whose capacity in units is just below the bound: C * per + tokens < 2^53.
        const Nanos per = (kLuaExactBound - 2) / 4; // 4 tokens of per units, plus 1 for the numerator
        const LimiterConfig big = LimiterConfig::make(4, per, 4, Rate{1, per});
        const std::vector<Nanos> u{0, 0, 0, 0, 0, per / 3, per, per + 1};
        const QString diff = firstDifference(m_store->run(Algorithm::TokenBucket, big, ClusterConfig{}, u),
                                             simulatedShared(Algorithm::TokenBucket, big, ClusterConfig{}, u));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void outsideTheDomainIsRefused_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<LimiterConfig>("config");
        QTest::addColumn<Nanos>("last");
        const Nanos bound = kLuaExactBound;
        QTest::newRow("time at 2^53") << int(Algorithm::FixedWindow) << LimiterConfig{} << bound;
        QTest::newRow("window at 2^53") << int(Algorithm::SlidingWindowLog) << LimiterConfig::make(1, bound) << Nanos(0);
        QTest::newRow("counter (L + 1) * W") << int(Algorithm::SlidingWindowCounter)
                                             << LimiterConfig::make(1, bound / 2) << Nanos(0);
        QTest::newRow("token C * per") << int(Algorithm::TokenBucket)
                                       << LimiterConfig::make(1, kSecond, 1'000'000'000, Rate{1, bound / 1'000'000'000 + 1})
                                       << Nanos(0);
        QTest::newRow("leaky (C + 1) * per") << int(Algorithm::LeakyBucketQueue)
                                             << LimiterConfig::make(1, kSecond, 1, Rate{1, bound / 2}) << Nanos(0);
        // GCRA scales time by the rate's numerator: 3 per 7 s makes 3 * t, at 2^53 from t = 2^53 / 3.
        QTest::newRow("gcra time * tokens") << int(Algorithm::Gcra) << LimiterConfig::make(3, 7 * kSecond)
                                            << Nanos(bound / 3);
    }

    void outsideTheDomainIsRefused()
    {
        QFETCH(int, algorithm);
        QFETCH(LimiterConfig, config);
        QFETCH(Nanos, last);
        const auto a = static_cast<Algorithm>(algorithm);
        QString message;
        try {
            (void)m_store->run(a, config, ClusterConfig{}, std::vector<Nanos>{0, last});
        } catch (const InputError& e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.contains("2^53 = 9007199254740992"), qPrintable(message));
        QVERIFY2(message.contains(QString::fromUtf8(algorithmId(a).data())), qPrintable(message));
        QVERIFY(!message.contains('\n'));
    }

    void skewIsCountedInTheDomain()
    {
        // The last arrival is inside, but the last node's clock runs 1 ns past it.
        const ClusterConfig skewed = ClusterConfig::make({2, Balancer::RoundRobin, Coordination::Shared, 0, 0, 1, 1});
        QVERIFY_THROWS_EXCEPTION(InputError, m_store->run(Algorithm::FixedWindow, LimiterConfig{}, skewed,
                                                          std::vector<Nanos>{0, kLuaExactBound - 1}));
    }

    // A run's keys live under a prefix of its own and are gone when it ends.
    void runsLeaveNoKeys()
    {
        redisContext* c = redisConnectUnix(m_redis->address().substr(5).c_str());
        QVERIFY(c && !c->err);
        freeReplyObject(redisCommand(c, "FLUSHALL"));
        for (Algorithm a : kAllAlgorithms)
            (void)m_store->run(a, LimiterConfig{}, ClusterConfig{}, std::vector<Nanos>{0, 1, 2}, "gone");
        auto* r = static_cast<redisReply*>(redisCommand(c, "DBSIZE"));
        QVERIFY(r && r->type == REDIS_REPLY_INTEGER);
        QCOMPARE(r->integer, 0LL);
        freeReplyObject(r);
        redisFree(c);
    }

    void unreachableAddressesFailFastWithOneLine_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("problem");
        QTest::newRow("no socket") << "unix:/nonexistent/ratelab.sock" << "cannot connect";
        QTest::newRow("closed port") << "127.0.0.1:1" << "cannot connect";
        QTest::newRow("no port") << "localhost" << "not an address";
        QTest::newRow("bad port") << "localhost:99999" << "is not a port";
    }

    void unreachableAddressesFailFastWithOneLine()
    {
        QFETCH(QString, address);
        QFETCH(QString, problem);
        QString message;
        try {
            RedisStore store(address.toStdString(), {std::chrono::milliseconds(500), std::chrono::milliseconds(500)});
        } catch (const RedisError& e) {
            message = QString::fromUtf8(e.what());
        }
        QVERIFY2(message.startsWith("redis at " + address + ": "), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));
        QVERIFY(!message.contains('\n'));
    }
};

QTEST_GUILESS_MAIN(TestRedis)
#include "tst_redis.moc"
