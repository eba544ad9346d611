// 16 concurrent clients of the server-clock scripts, each on its own connection and
// thread, on a real redis-server the test starts itself, on the wall clock: whatever the
// interleaving, no algorithm ever admits more than its limit in any window. Bounded in time and
// count (16 x 150 calls a policy); nothing sleeps.
#include "engine/layered.h"
#include "redis_client.h"
#include "redis_store.h"
#include "server_script.h"

#include <QTest>

#include <algorithm>
#include <numeric>
#include <thread>

using namespace ratelab;
using namespace ratelab::io;
using namespace ratelab::test;

namespace {

constexpr Nanos kMicro = 1000;

// Admission is one admitted call: when (us) and its cost.
struct Admission {
    long long nowUs;
    std::int64_t cost;
};

// overLimit checks the admissions (sorted by time) against what a layer promises on any clock:
// the window limiters at most L per fixed window (fixed, counter) or per sliding window (log);
// the buckets at most C + r * (t_j - t_i) between any two admissions. It returns the first
// excess, or empty.
QString overLimit(const Layer& l, const std::vector<Admission>& a)
{
    const LimiterConfig& c = l.config;
    const long long wUs = c.windowNanos() / kMicro;
    for (std::size_t j = 0; j < a.size(); ++j) {
        std::int64_t sum = 0;
        for (std::size_t i = j + 1; i-- > 0;) {
            sum += a[i].cost;
            bool over = false;
            switch (l.algorithm) {
            case Algorithm::FixedWindow:
            case Algorithm::SlidingWindowCounter:
                if (a[i].nowUs / wUs != a[j].nowUs / wUs)
                    i = 0;
                else
                    over = sum > c.limit();
                break;
            case Algorithm::SlidingWindowLog:
                if (a[i].nowUs <= a[j].nowUs - wUs)
                    i = 0;
                else
                    over = sum > c.limit();
                break;
            default: // (sum - C) * per <= tokens * (t_j - t_i) ns
                over = Int128(sum - c.capacity()) * c.rate().perNanos
                    > Int128(c.rate().tokens) * (a[j].nowUs - a[i].nowUs) * kMicro;
                break;
            }
            if (over)
                return QStringLiteral("%1: %2 admitted from %3 to %4 us").arg(QString::fromStdString(layerText(l)))
                    .arg(sum).arg(a[i].nowUs).arg(a[j].nowUs);
        }
    }
    return {};
}


} // namespace

class TestRedisConcurrency : public QObject {
    Q_OBJECT
    std::unique_ptr<PrivateRedis> m_redis;

private slots:
    void initTestCase()
    {
        std::string why;
        m_redis = ratelab::test::startPrivateRedis(&why);
        QVERIFY2(m_redis, why.c_str());
    }

    void cleanupTestCase() { m_redis.reset(); }

    // 16 clients, each on its own connection and thread, call one key as fast as they can on the
    // server's wall clock: whatever the interleaving, no window, and no stretch of a bucket, ever
    // holds more than the limit. Bounded: 16 x 150 calls a policy.
    void concurrentClientsNeverExceedTheLimit()
    {
        const LimiterConfig c = LimiterConfig::make(5, 2000 * kMicro, 5, Rate{5, 2000 * kMicro});
        std::vector<std::vector<Layer>> policies;
        for (Algorithm a : kAllAlgorithms)
            policies.push_back({Layer{a, c}});
        policies.push_back({Layer{Algorithm::TokenBucket, LimiterConfig::make(3, 500 * kMicro)},
                            Layer{Algorithm::SlidingWindowLog, LimiterConfig::make(8, 4000 * kMicro)}});
        constexpr int kClients = 16, kCalls = 150;
        for (std::size_t p = 0; p < policies.size(); ++p) {
            const std::string script = serverClockScript(policies[p]);
            const auto keys = keysFor("busy" + std::to_string(p), policies[p].size());
            std::vector<std::vector<Admission>> got(kClients);
            std::vector<int> errors(kClients, 0), denied(kClients, 0);
            std::vector<std::thread> threads;
            for (int k = 0; k < kClients; ++k)
                threads.emplace_back([&, k] {
                    RedisClient client(m_redis->address());
                    if (!client.ok()) {
                        errors[k] = kCalls;
                        return;
                    }
                    const std::string sha = sha1Of(client, script);
                    for (int i = 0; i < kCalls; ++i) {
                        const RedisReply r = evalsha(client, sha, keys, {});
                        if (r.error || r.elements.size() != kReplyFields)
                            ++errors[k];
                        else if (field(r, kReplyAllowed))
                            got[k].push_back({field(r, kReplyNowUs), 1});
                        else
                            ++denied[k];
                    }
                });
            for (std::thread& t : threads)
                t.join();
            std::vector<Admission> all;
            for (int k = 0; k < kClients; ++k) {
                QCOMPARE(errors[k], 0);
                all.insert(all.end(), got[k].begin(), got[k].end());
            }
            std::sort(all.begin(), all.end(), [](const Admission& x, const Admission& y) { return x.nowUs < y.nowUs; });
            // Not vacuous: the clients were denied, and admitted past one window's worth.
            QVERIFY2(all.size() > 10 && std::accumulate(denied.begin(), denied.end(), 0) > 100,
                     qPrintable(QStringLiteral("policy %1: %2 admitted").arg(p).arg(all.size())));
            for (const Layer& l : policies[p]) {
                const QString over = overLimit(l, all);
                QVERIFY2(over.isEmpty(), qPrintable(over));
            }
        }
    }

};

QTEST_GUILESS_MAIN(TestRedisConcurrency)
#include "tst_redis_concurrency.moc"
