// The server-clock scripts (`ratelab lua ALG --server-clock`) on a real redis-server the
// test starts itself: their decisions equal the simulation at the times they report (TIME in us,
// times 1000 ns), every bad argument is an error reply that writes nothing, a denial that changes
// nothing writes nothing, a key ahead of TIME keeps its clock, and a one-node Redis Cluster runs
// every script (16 concurrent clients: tst_redis_concurrency). No sleep decides anything: time
// passes as calls do.
//
// redis-server missing is a failure, not a skip: CI installs it (apt-get install redis-server).
#include "limiters/any_limiter.h"
#include "engine/layered.h"
#include "redis_client.h"
#include "redis_test.h"
#include "redis_store.h"
#include "server_script.h"

#include <QDeadlineTimer>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <random>

using namespace ratelab;
using namespace ratelab::io;
using namespace ratelab::test;

namespace {

constexpr Nanos kMicro = 1000;

struct Call {
    std::int64_t cost = 1;
    RedisReply reply;
};


Int128 ceilDivTest(Int128 a, Int128 b) { return a > 0 ? (a + b - 1) / b : a / b; }

// replayed decides the calls through the core limiters at the times the script reports, as
// semantics.md says a layered policy decides (layers in order, the first denial stops; retry_after
// the largest least wait; the headers from the layer with the least remaining), and returns the
// first field that differs, or empty.
QString firstDifference(const std::vector<Layer>& layers, const std::vector<Call>& calls)
{
    std::vector<std::optional<AnyLimiter>> ls;
    std::int64_t quota = INT64_MAX;
    for (const Layer& l : layers) {
        ls.push_back(makeLimiter(l.algorithm, l.config));
        quota = std::min(quota, ls.back()->quota());
    }
    LayeredPolicy policy(layers);
    long long lastNow = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const RedisReply& r = calls[i].reply;
        if (r.error || r.elements.size() != kReplyFields)
            return QStringLiteral("call %1: not %2 numbers: %3").arg(i).arg(int(kReplyFields)).arg(QString::fromStdString(r.text));
        const long long nowUs = field(r, kReplyNowUs);
        if (nowUs < lastNow)
            return QStringLiteral("call %1: time went back from %2 to %3 us").arg(i).arg(lastNow).arg(nowUs);
        lastNow = nowUs;
        const Nanos t = nowUs * kMicro;
        const std::int64_t cost = calls[i].cost;
        bool allowed = true;
        Nanos delay = 0;
        for (auto& l : ls) {
            const Decision d = l->decide(t, cost);
            if (!d.allowed) {
                allowed = false;
                break;
            }
            delay = std::max(delay, d.delay);
        }
        Nanos retry = 0;
        if (!allowed) {
            delay = 0;
            if (cost > quota)
                retry = -1;
            else
                for (auto& l : ls)
                    retry = std::max(retry, l->waitFor(t, cost));
        }
        std::size_t h = 0;
        for (std::size_t k = 1; k < ls.size(); ++k)
            if (ls[k]->remainingAt(t) < ls[h]->remainingAt(t))
                h = k;
        const long long remaining = ls[h]->remainingAt(t), reset = ls[h]->reset(t);
        const Decision p = policy.decide(t, cost); // the core's layered policy agrees with the oracle
        if (p.allowed != allowed || p.retryAfter != retry || p.remaining != remaining || p.delay != delay)
            return QStringLiteral("call %1: the oracle and LayeredPolicy disagree").arg(i);
        const long long want[][2] = {
            {field(r, kReplyAllowed), allowed},
            {field(r, kReplyRemaining), remaining},
            {field(r, kReplyRetryNs), retry},
            {field(r, kReplyResetNs), reset},
            {field(r, kReplyDelayNs), delay},
            {field(r, kReplyLimit), ls[h]->quota()},
            {field(r, kReplyRetryMs), retry > 0 ? (long long)ceilDivTest(retry, 1'000'000) : retry},
            {field(r, kReplyRetryS), retry > 0 ? (long long)ceilDivTest(retry, 1'000'000'000) : retry},
            {field(r, kReplyResetMs), (long long)ceilDivTest(reset, 1'000'000)},
            {field(r, kReplyResetS), (long long)ceilDivTest(reset, 1'000'000'000)},
            {field(r, kReplyResetAtS), (long long)ceilDivTest(Int128(t) + reset, 1'000'000'000)},
            {field(r, kReplyDelayMs), (long long)ceilDivTest(delay, 1'000'000)},
        };
        for (std::size_t f = 0; f < std::size(want); ++f)
            if (want[f][0] != want[f][1])
                return QStringLiteral("call %1 at %2 us, cost %3: check %4: the script says %5, the simulation %6")
                    .arg(i).arg(nowUs).arg(cost).arg(f).arg(want[f][0]).arg(want[f][1]);
    }
    return {};
}

struct Rng {
    std::mt19937_64 g;
    explicit Rng(std::uint64_t seed) : g(seed) {}
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); }
};

// randomLayer draws a config the calls' own pace (tens of us apart) crosses many times: windows
// of 0.05 to 3 ms in whole us, rates that are not decimals.
Layer randomLayer(Rng& r, Algorithm a)
{
    const std::int64_t limit = r.in(1, 8);
    const Nanos window = r.in(50, 3'000) * kMicro;
    const std::int64_t capacity = r.in(1, 8);
    const Rate rate = Rate::reduced(r.in(1, 7), r.in(20'000, 2'000'000) + r.in(0, 1) * 7);
    return Layer{a, LimiterConfig::make(limit, window, capacity, rate)};
}

} // namespace

class TestRedisServerClock : public RedisTest {
    Q_OBJECT

private slots:
    void initTestCase() { startRedis(); }
    void cleanupTestCase() { stopRedis(); }

    // Each algorithm alone, and layered policies of two or three, over calls with random costs
    // (some above the quota): every field equals the simulation at the time the script reports.
    void decisionsEqualTheSimulation()
    {
        Rng r(24);
        std::size_t policies = 0, admitted = 0, denied = 0, never = 0;
        for (int round = 0; round < 4; ++round) {
            std::vector<std::vector<Layer>> all;
            for (Algorithm a : kAllAlgorithms)
                all.push_back({randomLayer(r, a)});
            for (int k = 0; k < 3; ++k) {
                std::vector<Layer> layered;
                for (std::int64_t n = r.in(2, 3); n > 0; --n)
                    layered.push_back(randomLayer(r, kAllAlgorithms[std::size_t(r.in(0, 6))]));
                all.push_back(layered);
            }
            for (const auto& layers : all) {
                const std::string sha = sha1Of(*m_c, serverClockScript(layers));
                const auto keys = keysFor("eq" + std::to_string(policies++), layers.size());
                std::vector<Call> calls(300);
                for (Call& call : calls) {
                    call.cost = r.in(0, 19) < 15 ? 1 : r.in(0, 19) < 18 ? r.in(2, 4) : 9;
                    call.reply = evalsha(*m_c, sha, keys, {std::to_string(call.cost)});
                    if (!call.reply.error && call.reply.elements.size() == kReplyFields) {
                        admitted += field(call.reply, kReplyAllowed);
                        denied += 1 - field(call.reply, kReplyAllowed);
                        never += field(call.reply, kReplyRetryNs) == -1;
                    }
                }
                QString desc;
                for (const Layer& l : layers)
                    desc += QString::fromStdString(layerText(l)) + " ";
                const QString diff = firstDifference(layers, calls);
                QVERIFY2(diff.isEmpty(), qPrintable(desc + ": " + diff));
            }
        }
        // Production sizes near the domain's edge (10^5 per day, buckets of 10^6): waits in ns formed
        // from us-scaled counts, large costs.
        for (Algorithm a : kAllAlgorithms) {
            const std::int64_t limit = r.in(1'000, 100'000);
            const Nanos window = r.in(3'600, 86'400) * kNanosPerSecond;
            const std::int64_t sizes[] = {1'000, 10'000, 100'000, 1'000'000}; // rates as people write them: C per hours
            const std::int64_t capacity = sizes[r.in(0, 3)];
            const std::vector<Layer> layers{Layer{a, LimiterConfig::make(limit, window, capacity, Rate::reduced(capacity, r.in(1, 24) * 3'600 * kNanosPerSecond))}};
            const std::string sha = sha1Of(*m_c, serverClockScript(layers));
            const auto keys = keysFor("big" + std::to_string(policies++), 1);
            std::vector<Call> calls(200);
            const std::int64_t quota = isWindowAlgorithm(a) ? limit : capacity;
            for (Call& call : calls) {
                call.cost = r.in(1, quota / 25 + 1);
                call.reply = evalsha(*m_c, sha, keys, {std::to_string(call.cost)});
            }
            const QString diff = firstDifference(layers, calls);
            QVERIFY2(diff.isEmpty(), qPrintable(QString::fromStdString(layerText(layers[0])) + ": " + diff));
        }
        // Not vacuous: both verdicts and "never" were seen.
        QVERIFY2(admitted > 1000 && denied > 1000 && never > 10,
                 qPrintable(QStringLiteral("%1 admitted, %2 denied, %3 never").arg(admitted).arg(denied).arg(never)));
    }

    // Every bad argument is an error reply naming it, and no key is written.
    void badArgumentsAreRefusedAndWriteNothing_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<QStringList>("keys");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        const QStringList one{"rl:{a}"};
        QTest::newRow("no key") << 1 << QStringList{} << QStringList{} << "KEYS: expected 1";
        QTest::newRow("two keys") << 1 << QStringList{"rl:{a}", "rl:{b}"} << QStringList{} << "KEYS: expected 1";
        for (const char* bad : {"0", "-1", "1.5", "abc", "", "1000000001", "01", "1e3", " 1", "99999999999"})
            QTest::newRow(qPrintable(QStringLiteral("cost '%1'").arg(bad))) << 1 << one << QStringList{bad} << "ARGV[1] (cost)";
        QTest::newRow("two arguments") << 1 << one << QStringList{"1", "1"} << "ARGV: expected at most 1";
        QTest::newRow("layered, no tag") << 2 << QStringList{"a", "b"} << QStringList{} << "KEYS[1]";
        QTest::newRow("layered, two tags") << 2 << QStringList{"rl:{a}:1", "rl:{b}:2"} << QStringList{} << "KEYS[2]";
        QTest::newRow("layered, one key twice") << 2 << QStringList{"rl:{a}", "rl:{a}"} << QStringList{} << "KEYS[2]";
        QTest::newRow("layered, empty tag") << 2 << QStringList{"rl:{}:1", "rl:{}:2"} << QStringList{} << "KEYS[1]";
    }

    void badArgumentsAreRefusedAndWriteNothing()
    {
        QFETCH(int, layers);
        QFETCH(QStringList, keys);
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        for (Algorithm a : kAllAlgorithms) {
            std::vector<Layer> policy{Layer{a, LimiterConfig{}}};
            if (layers == 2)
                policy.push_back(Layer{Algorithm::SlidingWindowLog, LimiterConfig{}});
            (void)(*m_c)({"FLUSHALL"});
            std::vector<std::string> k, v;
            for (const QString& s : keys)
                k.push_back(s.toStdString());
            for (const QString& s : args)
                v.push_back(s.toStdString());
            std::vector<std::string> cmd{"EVAL", serverClockScript(policy), std::to_string(k.size())};
            cmd.insert(cmd.end(), k.begin(), k.end());
            cmd.insert(cmd.end(), v.begin(), v.end());
            const RedisReply r = (*m_c)(cmd);
            QVERIFY2(r.error, algorithmId(a).data());
            QVERIFY2(QString::fromStdString(r.text).contains(named), qPrintable(QString::fromStdString(r.text)));
            QCOMPARE((*m_c)({"DBSIZE"}).integer, 0LL);
        }
    }

    // A denial changes no state, so it writes nothing: no write command runs, every key's bytes
    // and expiry stay as they were. A request that can never pass creates no key.
    void denialsWriteNothing()
    {
        for (Algorithm a : kAllAlgorithms) {
            for (bool layered : {false, true}) {
                std::vector<Layer> policy{Layer{a, LimiterConfig::make(2, 60 * kNanosPerSecond, 2, Rate{1, 60 * kNanosPerSecond})}};
                if (layered) // a roomy first layer that admits (and so writes), then this one that denies
                    policy.insert(policy.begin(), Layer{Algorithm::TokenBucket, LimiterConfig::make(1000, kNanosPerSecond)});
                const std::string sha = sha1Of(*m_c, serverClockScript(policy));
                const auto keys = keysFor(std::string("quiet-") + algorithmId(a).data() + (layered ? "-l" : ""), policy.size());
                const std::string key = keys.back();
                // A cost above the quota on a fresh key: denied, never, nothing written.
                long long before = m_c->writes();
                RedisReply r = evalsha(*m_c, sha, keys, {"3"});
                QCOMPARE(field(r, kReplyAllowed), 0LL);
                QCOMPARE(field(r, kReplyRetryNs), -1LL);
                QCOMPARE((*m_c)({"EXISTS", key}).integer, 0LL);
                if (!layered)
                    QCOMPARE(m_c->writes(), before);
                QCOMPARE(field(evalsha(*m_c, sha, keys, {}), kReplyAllowed), 1LL);
                QCOMPARE(field(evalsha(*m_c, sha, keys, {}), kReplyAllowed), 1LL);
                const std::string dump = (*m_c)({"DUMP", key}).text;
                const long long expiry = (*m_c)({"PEXPIRETIME", key}).integer;
                QVERIFY2(expiry > 0, "every key written has an expiry");
                before = m_c->writes();
                for (int i = 0; i < 5; ++i) {
                    r = evalsha(*m_c, sha, keys, {});
                    QCOMPARE(field(r, kReplyAllowed), 0LL);
                    QVERIFY(field(r, kReplyRetryS) >= 1);
                }
                const long long wrote = m_c->writes() - before;
                // Layered: the first layer admitted each time and wrote (HSET + PEXPIREAT); this one did not.
                QCOMPARE(wrote, layered ? 10LL : 0LL);
                QCOMPARE((*m_c)({"DUMP", key}).text, dump);
                QCOMPARE((*m_c)({"PEXPIRETIME", key}).integer, expiry);
            }
        }
    }

    // A key never goes back in time: a key whose stored clock is ahead of TIME (written by a
    // master whose clock ran ahead, before a failover) is decided at its own clock, so what it
    // admitted is not admitted again. Every write sets the key to expire no earlier than the time
    // its state is as good as fresh (reset after now).
    void aKeyAheadOfTheServerClockIsDecidedAtItsOwnClock()
    {
        for (Algorithm a : kAllAlgorithms) {
            const std::vector<Layer> policy{Layer{a, LimiterConfig::make(2, 60 * kNanosPerSecond, 2, Rate{1, 30 * kNanosPerSecond})}};
            const std::string sha = sha1Of(*m_c, serverClockScript(policy));
            const auto keys = keysFor(std::string("ahead-") + algorithmId(a).data(), 1);
            RedisReply first = evalsha(*m_c, sha, keys, {});
            QCOMPARE(field(first, kReplyAllowed), 1LL);
            const long long expiry = (*m_c)({"PEXPIRETIME", keys[0]}).integer;
            const long long fresh = field(first, kReplyNowUs) * 1000 + field(first, kReplyResetNs); // ns
            QVERIFY2(expiry * 1'000'000 >= fresh, algorithmId(a).data());
            // Not much later either; the counter's state is fresh only after the next window (the
            // previous window's count still shapes `remaining`), later than its reset.
            if (a != Algorithm::SlidingWindowCounter)
                QVERIFY2(expiry * 1'000'000 <= fresh + 3'000'000, algorithmId(a).data());
            // Push the stored clock an hour ahead, as a clock-skewed master would have written it.
            const long long ahead = field(first, kReplyNowUs) + 3'600'000'000LL;
            if (a == Algorithm::SlidingWindowLog) {
                (void)(*m_c)({"DEL", keys[0]});
                (void)(*m_c)({"RPUSH", keys[0], std::to_string(ahead) + ":1:1"}); // time:running sum:cost
            } else {
                (void)(*m_c)({"HSET", keys[0], "c", std::to_string(ahead)});
            }
            std::vector<Call> calls(4);
            for (Call& call : calls)
                call.reply = evalsha(*m_c, sha, keys, {});
            for (const Call& call : calls)
                QCOMPARE(field(call.reply, kReplyNowUs), ahead); // TIME is an hour behind: the key's clock holds
        }
    }

    // A one-node Redis Cluster: every script (server-clock, one algorithm or layered; and the
    // injected-time ones with their documented keys) runs without CROSSSLOT, where keys without
    // a shared hash tag are refused by the cluster.
    void clusterRunsEveryScript()
    {
        std::unique_ptr<PrivateRedis> cluster;
        try {
            cluster = std::make_unique<PrivateRedis>(std::chrono::seconds(10),
                                                     std::vector<std::string>{"--cluster-enabled", "yes"});
        } catch (const RedisError& e) {
            QFAIL(e.what());
        }
        RedisClient c(cluster->address());
        QVERIFY(c.ok());
        const RedisReply added = c({"CLUSTER", "ADDSLOTSRANGE", "0", "16383"});
        QVERIFY2(!added.error, added.text.c_str());
        // The cluster turns ok once it has seen its own slots: start-up, not a decision.
        QDeadlineTimer deadline(10000);
        while (c({"CLUSTER", "INFO"}).text.find("cluster_state:ok") == std::string::npos) {
            QVERIFY2(!deadline.hasExpired(), "the one-node cluster never reported cluster_state:ok");
            QThread::msleep(20);
        }
        // The cluster does refuse keys of two slots: the test can fail.
        const RedisReply cross = c({"EVAL", "return redis.call('GET', KEYS[2])", "2", "a", "b"});
        QVERIFY2(cross.error && cross.text.find("CROSSSLOT") != std::string::npos, cross.text.c_str());
        for (Algorithm a : kAllAlgorithms) {
            for (const auto& policy : {std::vector<Layer>{Layer{a, LimiterConfig{}}},
                                       std::vector<Layer>{Layer{Algorithm::TokenBucket, LimiterConfig{}}, Layer{a, LimiterConfig{}},
                                                          Layer{Algorithm::SlidingWindowLog, LimiterConfig{}}}}) {
                const auto keys = keysFor(std::string("c-") + algorithmId(a).data(), policy.size());
                std::vector<std::string> cmd{"EVAL", serverClockScript(policy), std::to_string(keys.size())};
                cmd.insert(cmd.end(), keys.begin(), keys.end());
                for (int i = 0; i < 3; ++i) {
                    const RedisReply r = c(cmd);
                    QVERIFY2(!r.error && r.elements.size() == kReplyFields, r.text.c_str());
                }
            }
            // The injected-time script, with its keys as RedisStore names them.
            const std::string k = "{ratelab:c}:" + std::string(algorithmId(a));
            std::vector<std::string> cmd{"EVAL", luaScript(a), a == Algorithm::SlidingWindowLog ? "2" : "1", k};
            if (a == Algorithm::SlidingWindowLog)
                cmd.push_back(k + ":log");
            cmd.push_back("1000");
            if (isWindowAlgorithm(a))
                cmd.insert(cmd.end(), {"10", "10000000000"});
            else
                cmd.insert(cmd.end(), {"10", "1", "1000000000"});
            cmd.push_back("60000");
            const RedisReply r = c(cmd);
            QVERIFY2(!r.error, r.text.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestRedisServerClock)
#include "tst_redis_server_clock.moc"
