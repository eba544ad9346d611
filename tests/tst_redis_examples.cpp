// `ratelab lua ALG --example LANG`: each caller runs against a private redis-server
// with its own client library, loads the server-clock script, and answers 200, 200, then 429 with
// Retry-After for a bucket of 2 refilled once a minute; a layered policy too. An error reply
// (WRONGTYPE) is an error, never a 429, and an ID with spaces is one key.
//
// The clients are peers installed by .ci/run (python3-redis from Debian, ioredis from npm into
// build/npm). Without RATELAB_PEERS=1 a missing client is a skip; with it (CI), a failure. Go's
// go-redis v9 is in neither registry the machine reaches (Debian ships only gopkg.in/redis.v5),
// so the Go caller is checked by gofmt's parser only.
#include "cli_run.h"
#include "redis_client.h"
#include "redis_store.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using namespace ratelab::io;
using clitest::Run;
using clitest::runRatelab;

namespace {

bool peersRequired() { return qEnvironmentVariable("RATELAB_PEERS") == "1"; }

QProcessEnvironment environment(const std::string& address, const QString& script)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("REDIS_URL", "unix://" + QString::fromStdString(address.substr(5)));
    env.insert("RATELAB_SCRIPT", script);
    if (!env.contains("NODE_PATH"))
        env.insert("NODE_PATH", QStringLiteral(RATELAB_NODE_PATH));
    return env;
}

// run runs a program and returns its exit code and output (-1: it did not start or end).
std::pair<int, QString> run(const QString& program, const QStringList& args, const QProcessEnvironment& env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForStarted(10000) || !p.waitForFinished(60000))
        return {-1, p.errorString()};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()) + QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestRedisExamples : public QObject {
    Q_OBJECT
    std::unique_ptr<PrivateRedis> m_redis;
    QTemporaryDir m_dir;
    int m_files = 0;

    // prepare writes the script and the caller of `language` for `policy` and names the program
    // that runs it; an empty result is the reason to skip (its client library is not installed).
    QString prepare(const QString& language, const QStringList& policy, QString* program, QString* script, QString* caller)
    {
        *program = language == "python" ? "python3" : language == "node" ? "node" : "sh";
        const QStringList probe = language == "python" ? QStringList{"-c", "import redis"}
                                  : language == "node" ? QStringList{"-e", "require('ioredis')"}
                                                       : QStringList{"-c", "command -v redis-cli"};
        const QProcessEnvironment env0 = environment(m_redis->address(), {});
        // Debian's python3-redis is for Debian's python3, which a pyenv on PATH may hide.
        if (language == "python" && run(*program, probe, env0).first != 0)
            *program = "/usr/bin/python3";
        if (run(*program, probe, env0).first != 0)
            return language + "'s Redis client is not installed (.ci/run installs it)";
        const QString tag = QString::number(++m_files) + language;
        *script = m_dir.filePath(tag + ".lua");
        *caller = m_dir.filePath(tag + ".example");
        const Run s = runRatelab(QStringList{"lua", "--server-clock"} + policy);
        const Run e = runRatelab(QStringList{"lua", "--example", language} + policy);
        if (s.code != 0 || e.code != 0)
            return {};
        for (const auto& [path, text] : {std::pair{*script, s.out}, std::pair{*caller, e.out}}) {
            QFile f(path);
            if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
                return {};
        }
        return QStringLiteral("ok");
    }

    static void languagesData()
    {
        QTest::addColumn<QString>("language");
        for (const char* language : {"python", "node", "shell"})
            QTest::newRow(language) << language;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        try {
            m_redis = std::make_unique<PrivateRedis>();
        } catch (const RedisError& e) {
            QFAIL(e.what());
        }
    }

    void cleanupTestCase() { m_redis.reset(); }

    void callerAnswersWithHeaders_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QStringList>("policy");
        for (const char* language : {"python", "node", "shell"}) {
            QTest::newRow(language) << language << QStringList{"token_bucket", "--capacity", "2", "--rate", "1/60"};
            QTest::newRow(qPrintable(QString(language) + " layered"))
                << language << QStringList{"--layer", "token_bucket:capacity=2,rate=1/60", "--layer",
                                           "sliding_window_log:limit=5,window=60"};
        }
    }

    void callerAnswersWithHeaders()
    {
        QFETCH(QString, language);
        QFETCH(QStringList, policy);
        QString program, script, caller;
        const QString ready = prepare(language, policy, &program, &script, &caller);
        if (ready != "ok") {
            if (ready.isEmpty() || peersRequired())
                QFAIL(qPrintable(ready.isEmpty() ? "cannot write the script or the caller" : ready));
            QSKIP(qPrintable(ready));
        }
        const QString tag = QString::number(m_files) + language;
        const auto [code, out] = run(program, {caller, "user-" + tag, "3"}, environment(m_redis->address(), script));
        QVERIFY2(code == 0, qPrintable(out));
        const QStringList responses = out.trimmed().split("\n\n");
        QCOMPARE(responses.size(), 3);
        const char* status[] = {"HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 429 Too Many Requests"};
        const char* remaining[] = {"X-RateLimit-Remaining: 1", "X-RateLimit-Remaining: 0", "X-RateLimit-Remaining: 0"};
        for (int i = 0; i < 3; ++i) {
            QVERIFY2(responses[i].startsWith(status[i]), qPrintable(responses[i]));
            QVERIFY2(responses[i].contains("X-RateLimit-Limit: 2\n"), qPrintable(responses[i]));
            QVERIFY2(responses[i].contains(remaining[i]), qPrintable(responses[i]));
            QVERIFY2(responses[i].contains("RateLimit: \"default\";r="), qPrintable(responses[i]));
            QCOMPARE(responses[i].contains("Retry-After: 60"), i == 2); // the next token, a minute on, rounded up
        }
    }

    // After a restart or failover the server has forgotten the script: the Python caller's
    // EVALSHA gets NOSCRIPT and it falls back to EVAL (imported as a module, the cache flushed).
    void pythonCallerFallsBackToEvalOnNoscript()
    {
        const QProcessEnvironment env0 = environment(m_redis->address(), {});
        QString python = "python3";
        if (run(python, {"-c", "import redis"}, env0).first != 0)
            python = "/usr/bin/python3";
        if (run(python, {"-c", "import redis"}, env0).first != 0) {
            if (peersRequired())
                QFAIL("python3-redis is not installed (.ci/run installs it)");
            QSKIP("python3-redis is not installed (.ci/run installs it)");
        }
        const QStringList policy{"fixed_window", "--limit", "1", "--window", "60"};
        const Run s = runRatelab(QStringList{"lua", "--server-clock"} + policy);
        const Run e = runRatelab(QStringList{"lua", "--example", "python"} + policy);
        QCOMPARE(s.code, 0);
        QCOMPARE(e.code, 0);
        const QString script = m_dir.filePath("noscript.lua"), caller = m_dir.filePath("noscript_caller.py");
        for (const auto& [path, text] : {std::pair{script, s.out}, std::pair{caller, e.out}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const QString program = QStringLiteral(
            "import importlib.util\n"
            "spec = importlib.util.spec_from_file_location('caller', '%1')\n"
            "m = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(m)\n"
            "m.r.script_flush()\n"
            "print(m.check('noscript')[0], m.check('noscript')[0], m.r.script_exists(m.sha)[0])\n").arg(caller);
        const auto [code, out] = run(python, {"-c", program}, environment(m_redis->address(), script));
        QVERIFY2(code == 0, qPrintable(out));
        QCOMPARE(out.trimmed(), QStringLiteral("200 429 True")); // EVAL ran it, and loaded it again
    }

    // A WRONGTYPE reply (the caller's key holds a list) is Redis's error: the caller exits
    // non-zero and prints no status line and no header made of the error's words.
    void callerReportsRedisErrors_data() { languagesData(); }
    void callerReportsRedisErrors()
    {
        QFETCH(QString, language);
        QString program, script, caller;
        const QString ready = prepare(language, {"token_bucket", "--capacity", "2", "--rate", "1/60"}, &program, &script, &caller);
        if (ready != "ok") {
            if (ready.isEmpty() || peersRequired())
                QFAIL(qPrintable(ready.isEmpty() ? "cannot write the script or the caller" : ready));
            QSKIP(qPrintable(ready));
        }
        const std::string id = "wrong " + language.toStdString();
        test::RedisClient redis(m_redis->address());
        QVERIFY(redis.ok());
        QCOMPARE(redis({"RPUSH", "rl:{" + id + "}", "not a bucket"}).integer, 1LL);
        const auto [code, out] = run(program, {caller, QString::fromStdString(id), "2"}, environment(m_redis->address(), script));
        QVERIFY2(code > 0, qPrintable(QString::number(code) + ": " + out));
        QVERIFY2(out.contains("WRONGTYPE"), qPrintable(out));
        QVERIFY2(!out.contains("HTTP/1.1") && !out.contains("X-RateLimit") && !out.contains("429"), qPrintable(out));
    }

    // An ID with spaces is one key, rl:{ID} whole, not a key per word.
    void callerPassesKeysWhole_data() { languagesData(); }
    void callerPassesKeysWhole()
    {
        QFETCH(QString, language);
        QString program, script, caller;
        const QString ready = prepare(language, {"token_bucket", "--capacity", "2", "--rate", "1/60"}, &program, &script, &caller);
        if (ready != "ok") {
            if (ready.isEmpty() || peersRequired())
                QFAIL(qPrintable(ready.isEmpty() ? "cannot write the script or the caller" : ready));
            QSKIP(qPrintable(ready));
        }
        const std::string id = "user 42 of " + language.toStdString();
        const auto [code, out] = run(program, {caller, QString::fromStdString(id), "3"}, environment(m_redis->address(), script));
        QVERIFY2(code == 0, qPrintable(out));
        const QStringList responses = out.trimmed().split("\n\n");
        QCOMPARE(responses.size(), 3);
        QVERIFY2(responses[2].startsWith("HTTP/1.1 429 Too Many Requests"), qPrintable(out)); // one bucket of 2
        test::RedisClient redis(m_redis->address());
        QVERIFY(redis.ok());
        QCOMPARE(redis({"EXISTS", "rl:{" + id + "}"}).integer, 1LL);
        QCOMPARE(redis({"EXISTS", "rl:{user"}).integer, 0LL);
    }

    void goCallerParses()
    {
        if (run("gofmt", {"-h"}, QProcessEnvironment::systemEnvironment()).first == -1) {
            if (peersRequired())
                QFAIL("gofmt is not installed (golang-go)");
            QSKIP("gofmt is not installed (golang-go)");
        }
        const Run e = runRatelab({"lua", "gcra", "--example", "go"});
        QCOMPARE(e.code, 0);
        const QString path = m_dir.filePath("caller.go");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(e.out);
        f.close();
        const auto [code, out] = run("gofmt", {"-l", "-e", path}, QProcessEnvironment::systemEnvironment());
        QVERIFY2(code == 0 && out.trimmed().isEmpty(), qPrintable(out)); // parses, and is gofmt'ed
    }
};

QTEST_GUILESS_MAIN(TestRedisExamples)
#include "tst_redis_examples.moc"
