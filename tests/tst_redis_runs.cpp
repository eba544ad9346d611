// The injected-time scripts (the ones the simulation and `--backend redis` run) and the runs
// through them, on a real redis-server the test starts itself: every bad
// argument or out-of-domain time is an error reply that writes nothing; requests of any cost
// decide as the simulation does; two runs sharing one server both get the right answer; a
// SIGTERM'd `ratelab compare --backend redis` leaves no redis-server and no temporary directory.
#include "limiters/any_limiter.h"
#include "redis_client.h"
#include "redis_test.h"
#include "redis_store.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTest>
#include <QThread>

#include <csignal>
#include <random>
#include <thread>

using namespace ratelab;
using namespace ratelab::io;
using ratelab::test::RedisClient;
using ratelab::test::RedisReply;

namespace {

// goodArgs returns valid arguments for an algorithm's script: now, its config, ttl, [cost].
QStringList goodArgs(Algorithm a)
{
    if (isWindowAlgorithm(a))
        return {"1000", "10", "10000000000", "60000"};
    return {"1000", "10", "1", "1000000000", "60000"};
}

QString differs(const std::vector<Decision>& got, const std::vector<Decision>& want)
{
    if (got.size() != want.size())
        return QStringLiteral("%1 decisions, %2 expected").arg(got.size()).arg(want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const Decision &a = got[i], &b = want[i];
        if (a.allowed != b.allowed || a.remaining != b.remaining || a.retryAfter != b.retryAfter || a.delay != b.delay
            || a.level != b.level)
            return QStringLiteral("request %1: redis %2/%3/%4/%5/%6, simulated %7/%8/%9/%10/%11")
                .arg(i).arg(a.allowed).arg(a.remaining).arg(a.retryAfter).arg(a.delay).arg(a.level)
                .arg(b.allowed).arg(b.remaining).arg(b.retryAfter).arg(b.delay).arg(b.level);
    }
    return {};
}

std::vector<Decision> simulated(Algorithm a, const LimiterConfig& c, const std::vector<Nanos>& t,
                                const std::vector<std::int64_t>& costs)
{
    AnyLimiter limiter = makeLimiter(a, c);
    std::vector<Decision> out;
    for (std::size_t i = 0; i < t.size(); ++i)
        out.push_back(limiter.decide(t[i], costs.empty() ? 1 : costs[i]));
    return out;
}

// childrenOf lists the pids whose parent is `parent` (from /proc).
std::vector<qint64> childrenOf(qint64 parent)
{
    std::vector<qint64> out;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        if (!ok)
            continue;
        QFile stat("/proc/" + entry + "/stat");
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QString text = QString::fromLatin1(stat.readAll());
        const QStringList fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1].toLongLong() == parent)
            out.push_back(pid);
    }
    return out;
}

} // namespace

class TestRedisRuns : public RedisTest {
    Q_OBJECT

private slots:
    void initTestCase() { startRedis(); }
    void cleanupTestCase() { stopRedis(); }

    // Each bad argument (argument index, value) is an error reply naming it, and no key is
    // written: the defects such checks catch (a TTL of 0, window 0, tokens 0, a missing TTL, epoch
    // times in ns) among them.
    void badArgumentsAreRefused_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("named");
        for (Algorithm a : kAllAlgorithms) {
            const QString id = QString::fromUtf8(algorithmId(a).data());
            const bool w = isWindowAlgorithm(a);
            const int ttl = w ? 3 : 4, cost = w ? 4 : 5;
            auto row = [&](int index, const QString& value, const QString& named) {
                QTest::newRow(qPrintable(id + " ARGV[" + QString::number(index + 1) + "]=" + value))
                    << int(a) << index << value << named;
            };
            row(0, "9007199254740992", "now_ns");          // 2^53
            row(0, "1763900000000000000", "now_ns");       // epoch time in ns
            row(0, "-1", "now_ns");
            row(0, "1.5", "now_ns");
            row(1, "0", w ? "limit" : "capacity");
            row(2, "0", w ? "window_ns" : "tokens");
            if (!w)
                row(3, "0", "per_ns");
            row(ttl, "0", "ttl_ms");
            row(ttl, "", "ttl_ms");
            row(ttl, "soon", "ttl_ms");
            row(ttl, "<missing>", "ttl_ms");
            row(cost, "0", "cost");
            row(cost, "2.5", "cost");
            row(cost + 1, "1", "ARGV: expected at most");
        }
        QTest::newRow("sliding_window_log keys of two slots") << int(Algorithm::SlidingWindowLog) << -1 << "" << "KEYS[2]";
        QTest::newRow("gcra now * tokens past 2^53") << int(Algorithm::Gcra) << -2 << "" << "2^53";
        QTest::newRow("token capacity * per past 2^53") << int(Algorithm::TokenBucket) << -3 << "" << "2^53";
    }

    void badArgumentsAreRefused()
    {
        QFETCH(int, algorithm);
        QFETCH(int, index);
        QFETCH(QString, value);
        QFETCH(QString, named);
        const auto a = static_cast<Algorithm>(algorithm);
        QStringList args = goodArgs(a);
        QStringList keys{"{ratelab:t}:" + QString::fromUtf8(algorithmId(a).data())};
        if (a == Algorithm::SlidingWindowLog)
            keys << keys.first() + ":log";
        if (index == -1)
            keys[1] = "{other}:log";
        else if (index == -2)
            args = {"3100000000000000", "10", "3", "7000000000", "60000"};
        else if (index == -3)
            args = {"0", "1000000000", "1", "9007199254", "60000"};
        else if (value == "<missing>")
            args = args.mid(0, index);
        else {
            while (args.size() <= index)
                args << "1";
            args[index] = value;
        }
        (void)(*m_c)({"FLUSHALL"});
        std::vector<std::string> cmd{"EVAL", luaScript(a), std::to_string(keys.size())};
        for (const QString& s : keys + args)
            cmd.push_back(s.toStdString());
        const RedisReply r = (*m_c)(cmd);
        QVERIFY2(r.error, "an error reply");
        QVERIFY2(QString::fromStdString(r.text).contains(named), r.text.c_str());
        QCOMPARE((*m_c)({"DBSIZE"}).integer, 0LL);
        // The same call with good arguments works (the refusal was the argument's).
        if (index >= 0) {
            std::vector<std::string> good{"EVAL", luaScript(a), std::to_string(keys.size())};
            for (const QString& s : keys + goodArgs(a))
                good.push_back(s.toStdString());
            const RedisReply ok = (*m_c)(good);
            QVERIFY2(!ok.error, ok.text.c_str());
        }
    }

    // Requests of any cost (some above the quota: never) decide through the scripts as the
    // simulation decides them.
    void costsDecideAsSimulated()
    {
        RedisStore store(m_redis->address());
        std::mt19937_64 g(20);
        auto in = [&](std::int64_t lo, std::int64_t hi) { return lo + std::int64_t(g() % std::uint64_t(hi - lo + 1)); };
        for (int round = 0; round < 40; ++round) {
            const LimiterConfig c = LimiterConfig::make(in(1, 10), in(1, 20) * kNanosPerSecond / 10, in(1, 10),
                                                        Rate::reduced(in(1, 9), in(1, 20) * kNanosPerSecond / 7));
            std::vector<Nanos> t;
            std::vector<std::int64_t> costs;
            Nanos now = 0;
            for (int i = 0; i < 60; ++i) {
                now += in(0, 3) == 0 ? 0 : in(1, kNanosPerSecond);
                t.push_back(now);
                costs.push_back(in(0, 3) == 0 ? in(2, 12) : 1);
            }
            for (Algorithm a : kAllAlgorithms) {
                const QString diff = differs(store.run(a, c, ClusterConfig{}, t, "cost", {}, costs), simulated(a, c, t, costs));
                QVERIFY2(diff.isEmpty(), qPrintable(QString::fromUtf8(algorithmId(a).data()) + ": " + diff));
            }
        }
    }

    // Two runs on one server at once, same key names: each gets its own prefix and the right answer.
    void concurrentRunsDoNotShareKeys()
    {
        std::vector<Nanos> t;
        for (int i = 0; i < 400; ++i)
            t.push_back(Nanos(i) * kNanosPerSecond / 20);
        const LimiterConfig configs[2] = {LimiterConfig::make(5, kNanosPerSecond), LimiterConfig::make(3, 2 * kNanosPerSecond)};
        for (Algorithm a : kAllAlgorithms) {
            std::vector<Decision> got[2];
            std::string error[2];
            std::thread runs[2];
            for (int k = 0; k < 2; ++k)
                runs[k] = std::thread([&, k] {
                    try {
                        RedisStore store(m_redis->address());
                        got[k] = store.run(a, configs[k], ClusterConfig{}, t); // both on the default key
                    } catch (const std::exception& e) {
                        error[k] = e.what();
                    }
                });
            for (auto& r : runs)
                r.join();
            for (int k = 0; k < 2; ++k) {
                QVERIFY2(error[k].empty(), error[k].c_str());
                const QString diff = differs(got[k], simulated(a, configs[k], t, {}));
                QVERIFY2(diff.isEmpty(), qPrintable(QString::fromUtf8(algorithmId(a).data()) + ": " + diff));
            }
        }
        QCOMPARE((*m_c)({"DBSIZE"}).integer, 0LL);
    }

    // A Redis that stalls mid-run (SIGSTOP): the run ends saying it timed out and after how long
    // (hiredis 0.14 calls its timeout "Resource temporarily unavailable"), and the run's keys are
    // deleted however it ends: the DELs go out on a new connection before any reply is awaited,
    // so the stalled server runs them when it goes on. Before, the DELs went through the broken
    // connection and the keys were left behind.
    void aStalledRedisTimesOutAndLeavesNoKeys()
    {
        QCOMPARE((*m_c)({"DBSIZE"}).integer, 0LL);
        const std::string info = (*m_c)({"INFO", "server"}).text;
        const auto at = info.find("process_id:");
        QVERIFY(at != std::string::npos);
        const pid_t server = pid_t(std::stoll(info.substr(at + 11)));
        std::vector<Nanos> t;
        for (int i = 0; i < 2'000'000; ++i)
            t.push_back(Nanos(i) * kNanosPerSecond / 1000);
        std::string error;
        std::thread run([&] {
            try {
                RedisStore store(m_redis->address(), {std::chrono::milliseconds(2000), std::chrono::milliseconds(300)});
                store.run(Algorithm::TokenBucket, LimiterConfig::make(5, kNanosPerSecond), ClusterConfig{}, t);
            } catch (const std::exception& e) {
                error = e.what();
            }
        });
        // Once the run's key exists (its first decision is in), the server stops.
        QDeadlineTimer deadline(30000);
        while ((*m_c)({"DBSIZE"}).integer == 0 && !deadline.hasExpired())
            QThread::yieldCurrentThread();
        ::kill(server, SIGSTOP);
        run.join();
        ::kill(server, SIGCONT);
        QVERIFY2(error.find(": EVALSHA timed out: no reply within 300 ms") != std::string::npos, error.c_str());
        QDeadlineTimer cleaned(10000);
        while ((*m_c)({"DBSIZE"}).integer != 0 && !cleaned.hasExpired())
            QThread::yieldCurrentThread();
        QCOMPARE((*m_c)({"DBSIZE"}).integer, 0LL);
    }

    // SIGTERM to a long `compare --backend redis`: its private redis-server is stopped and the
    // server's temporary directory removed; the process ends by the signal.
    void sigtermStopsThePrivateServer()
    {
        QProcess p;
        p.start(QStringLiteral(RATELAB_BIN), {"compare", "--backend", "redis", "--n", "2000000", "--delay", "0.001",
                                              "--algorithms", "token_bucket,sliding_window_log"});
        QVERIFY(p.waitForStarted(10000));
        // Start-up: wait (bounded) for the private redis-server child to answer.
        QDeadlineTimer deadline(30000);
        qint64 server = 0;
        QString dir;
        while (!server || !QFile::exists(dir + "/redis.sock")) {
            QVERIFY2(!deadline.hasExpired(), "no private redis-server appeared");
            QVERIFY2(p.state() == QProcess::Running, qPrintable(QString::fromLocal8Bit(p.readAllStandardError())));
            for (qint64 child : childrenOf(p.processId())) {
                QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(child));
                if (!cmdline.open(QIODevice::ReadOnly))
                    continue;
                const QList<QByteArray> argv = cmdline.readAll().split('\0');
                if (argv.isEmpty() || !argv.first().contains("redis-server"))
                    continue;
                // redis-server retitles itself "redis-server unixsocket:DIR/redis.sock".
                const QByteArray title = argv.first();
                const auto at = title.indexOf("unixsocket:");
                if (at < 0)
                    continue;
                server = child;
                dir = QFileInfo(QString::fromLocal8Bit(title.mid(at + 11))).path();
            }
            QThread::msleep(20);
        }
        QVERIFY(!dir.isEmpty() && QDir(dir).exists());
        QThread::msleep(300); // let the run get under way (either phase must clean up)
        ::kill(pid_t(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by the signal, as a shell sees 143
        QDeadlineTimer gone(5000);
        while (QFile::exists(QStringLiteral("/proc/%1").arg(server)) && !gone.hasExpired())
            QThread::msleep(10);
        QVERIFY2(!QFile::exists(QStringLiteral("/proc/%1").arg(server)), "the private redis-server is still running");
        QVERIFY2(!QDir(dir).exists(), qPrintable("the temporary directory is left: " + dir));
    }
};

QTEST_GUILESS_MAIN(TestRedisRuns)
#include "tst_redis_runs.moc"
