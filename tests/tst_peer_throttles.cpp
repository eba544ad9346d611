// Peer test of the client throttles: npm's bottleneck 2.19.5 and p-queue
// 10.0.0 themselves (peers/throttle_peer.js, under @sinonjs/fake-timers) against RateLab on the
// same calls; every call's start (or its drop) agrees.
// - throughCompare runs `ratelab compare --throttle`, the engine's own path (the throttle before
//   a server of unbounded workers, each call served in its arrivals file's time, behind a limit
//   nothing reaches): three cases of a call done at its start and seeded traffic with runs at
//   one instant and calls that take no time, each scenario with a drawn `priority=` key; and perCallPriorities
//   the same seeds with a priority per call in the arrivals file's priority column,
//   past each package's range and fractions too, beside the key they override.
// - throttles runs simulateThrottle (the engine's ThrottledArrivals, one client) with a priority
//   per call.
// Registered as peer_throttles (label "peer"): a missing node or package skips, unless
// RATELAB_PEERS=1 (.ci/run installs them).
#include "peer_node.h"
#include "engine/throttled_arrivals.h"

#include "arithmetic/decimal.h"
#include "cli_run.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using namespace ratelab;

namespace {

constexpr Nanos kMs = 1'000'000;

// Scenario is one run: the model's spec, the package's options, and the calls in ms.
struct Scenario {
    QString spec;
    QJsonObject options;
    std::vector<std::int64_t> arrivals, service;
    std::vector<int> priorities;
    QString packagePriority; // every call's, as typed, when the spec sets one
    QStringList callPriorities; // each call's, as typed in the arrivals file, over the above
};

std::int64_t draw(std::mt19937_64& random, std::int64_t lo, std::int64_t hi)
{
    return lo + std::int64_t(random() % std::uint64_t(hi - lo + 1));
}

// scenario draws the options of `kind` and n calls from the seed.
Scenario scenario(const QString& kind, std::uint64_t seed, int n)
{
    std::mt19937_64 random(seed);
    Scenario s;
    QStringList keys;
    const auto option = [&](const char* model, const char* package, std::int64_t value, bool ms) {
        keys << QStringLiteral("%1=%2%3").arg(model).arg(value).arg(ms ? "ms" : "");
        s.options.insert(package, qint64(value));
    };
    // The load varies from seed to seed: from a queue that never empties to one mostly idle,
    // where p-queue's windows stop and resume and Bottleneck's heartbeat beats on an empty queue.
    const std::int64_t shortGap = draw(random, 10, 300), longGap = draw(random, 300, 3000);
    std::int64_t maxService = draw(random, 5, 600);
    if (kind == QLatin1String("bottleneck")) {
        if (draw(random, 0, 3) > 0)
            option("max_concurrent", "maxConcurrent", draw(random, 1, 4), false);
        if (draw(random, 0, 1) == 1)
            option("min_time", "minTime", draw(random, 1, 120), true);
        switch (draw(random, 0, 3)) {
        case 1:
            option("reservoir", "reservoir", draw(random, 0, 6), false);
            option("reservoir_refresh_interval", "reservoirRefreshInterval", draw(random, 100, 1500), true);
            option("reservoir_refresh_amount", "reservoirRefreshAmount", draw(random, 1, 6), false);
            break;
        case 2:
            option("reservoir", "reservoir", draw(random, 0, 4), false);
            option("reservoir_increase_interval", "reservoirIncreaseInterval", draw(random, 100, 900), true);
            option("reservoir_increase_amount", "reservoirIncreaseAmount", draw(random, 1, 3), false);
            if (draw(random, 0, 1) == 1)
                option("reservoir_increase_maximum", "reservoirIncreaseMaximum", draw(random, 1, 8), false);
            break;
        case 3:
            option("reservoir", "reservoir", draw(random, 60, 140), false);
            break;
        }
        if (draw(random, 0, 2) > 0) {
            option("high_water", "highWater", draw(random, 0, 5), false);
            static const char* const strategies[][2] = {
                {"leak", "LEAK"}, {"overflow", "OVERFLOW"}, {"overflow_priority", "OVERFLOW_PRIORITY"}, {"block", "BLOCK"}};
            const auto& st = strategies[draw(random, 0, 3)];
            keys << QStringLiteral("strategy=%1").arg(st[0]);
            s.options.insert("strategy", st[1]);
            if (QLatin1String(st[0]) == QLatin1String("block") && draw(random, 0, 1) == 1)
                option("penalty", "penalty", draw(random, 50, 2000), true);
        }
    } else {
        if (draw(random, 0, 3) > 0)
            option("concurrency", "concurrency", draw(random, 1, 4), false);
        if (draw(random, 0, 3) > 0) {
            option("interval", "interval", draw(random, 50, 1000), true);
            option("interval_cap", "intervalCap", draw(random, 1, 5), false);
            if (draw(random, 0, 2) == 0) {
                keys << "strict=true";
                s.options.insert("strict", true);
            } else if (draw(random, 0, 1) == 1) {
                keys << "carryover_interval_count=true";
                s.options.insert("carryoverIntervalCount", true);
            }
        }
    }
    s.spec = kind + (keys.isEmpty() ? QString() : ":" + keys.join(','));
    std::int64_t t = draw(random, 0, 300);
    for (int i = 0; i < n; ++i) {
        const std::int64_t k = draw(random, 0, 9);
        t += k < 3 ? 0 : k < 8 ? draw(random, 0, shortGap) : draw(random, 0, longGap);
        s.arrivals.push_back(t);
        s.service.push_back(draw(random, 1, maxService));
        s.priorities.push_back(kind == QLatin1String("bottleneck") ? int(draw(random, -1, 10)) : int(draw(random, -2, 3)));
    }
    return s;
}

// compareStarts returns each call's start in ms (-1: dropped) as `ratelab compare` runs it: one
// client with the throttle `spec`, an unbounded server taking each call's service time (a call
// is done when it is served), a fixed window that admits them all. Empty, with `error` set, when
// the command fails.
QStringList compareStarts(const QString& spec, const std::vector<std::int64_t>& arrivals,
                           const std::vector<std::int64_t>& service, QString& error, const QStringList& priorities = {})
{
    QTemporaryDir dir;
    QFile f(dir.filePath("calls.csv"));
    if (!f.open(QIODevice::WriteOnly)) {
        error = "cannot write " + f.fileName();
        return {};
    }
    f.write(priorities.isEmpty() ? "t,service\n" : "t,service,priority\n");
    for (std::size_t i = 0; i < arrivals.size(); ++i)
        f.write(QByteArray::number(qint64(arrivals[i] / 1000)) + '.' + QByteArray::number(qint64(arrivals[i] % 1000)).rightJustified(3, '0')
                + ',' + QByteArray::number(qint64(service[i])) + "ms"
                + (priorities.isEmpty() ? QByteArray() : ',' + priorities[qsizetype(i)].toUtf8()) + '\n'); // t in seconds, exact
    f.close();
    const clitest::Run run = clitest::runRatelab(
        {"compare", "--arrivals", f.fileName(), "--clients", "1", "--throttle", spec, "--server",
         "workers=inf,service=file,queue=0,queue_timeout=none,timeout=none", "--algorithms", "fixed_window", "--limit",
         "1000000", "--window", "1", "--format", "csv"});
    if (run.code != 0) {
        error = "ratelab compare --throttle " + spec + " failed: " + QString::fromUtf8(run.err);
        return {};
    }
    QStringList starts(qsizetype(arrivals.size()), "-1");
    const QList<QByteArray> lines = run.out.split('\n');
    const QList<QByteArray> header = lines.value(0).split(',');
    const qsizetype request = header.indexOf("request"), attempt = header.indexOf("attempt"), t = header.indexOf("t");
    if (request < 0 || attempt < 0 || t < 0) {
        error = "compare's CSV has no request, attempt or t column: " + QString::fromUtf8(lines.value(0));
        return {};
    }
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cells = lines[i].split(',');
        if (cells.size() <= std::max({request, attempt, t}) || cells[attempt] != "0")
            continue;
        starts[cells[request].toLongLong()] = QString::number(parseSeconds(cells[t].toStdString()) / kMs);
    }
    return starts;
}

// compareScenario draws a scenario for compareStarts: scenario's options and traffic, but a
// call in four takes no time, and one priority for every call (the spec's `priority=`, drawn
// from the package's range and past it: Bottleneck clamps an integer into 0..9 and makes a
// fraction 5).
Scenario compareScenario(const QString& kind, std::uint64_t seed, int n)
{
    Scenario s = scenario(kind, seed, n);
    std::mt19937_64 random(seed * 7919 + 1);
    for (std::int64_t& x : s.service)
        if (draw(random, 0, 3) == 0)
            x = 0;
    static const char* const bottleneckPriorities[] = {"-1", "0", "3", "9", "12", "2.5"};
    static const char* const pQueuePriorities[] = {"-2", "0", "4"};
    const QString priority = kind == QLatin1String("bottleneck") ? bottleneckPriorities[draw(random, 0, 5)]
                                                                 : pQueuePriorities[draw(random, 0, 2)];
    s.spec += (s.spec.contains(':') ? "," : ":") + QStringLiteral("priority=") + priority;
    s.packagePriority = priority;
    return s;
}

// packageStarts runs the package on the calls (ms) with the options, each call scheduled with
// its priority, and returns each call's start in ms (-1: dropped).
QStringList packageStarts(const test::NodePeers& node, const QString& kind, const Scenario& s, QString& error)
{
    QByteArray input;
    for (std::size_t i = 0; i < s.arrivals.size(); ++i)
        input += QByteArray::number(qint64(s.arrivals[i])) + ' ' + QByteArray::number(qint64(s.service[i])) + ' '
            + (!s.callPriorities.isEmpty() ? s.callPriorities[qsizetype(i)].toUtf8()
               : s.packagePriority.isEmpty() ? QByteArray::number(s.priorities[i])
                                             : s.packagePriority.toUtf8())
            + '\n';
    return node.run("throttle_peer.js", {kind, QString::fromUtf8(QJsonDocument(s.options).toJson(QJsonDocument::Compact))},
                    input, error);
}

} // namespace

class TestPeerThrottles : public QObject {
    Q_OBJECT
private slots:
    // Three cases of a call that starts and ends at one instant, which must free its slot at
    // once, not keep it until that instant's timers and later arrivals had run. The starts the
    // packages give, derived in tst_engine_throttle (the denial of the second case is a call that
    // takes no time here): all three at 0; all three at 500; the last five at 100.
    void throughCompare_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QJsonObject>("options");
        QTest::addColumn<QList<qint64>>("arrivals");
        QTest::addColumn<QList<qint64>>("service");
        QTest::addColumn<QStringList>("starts");
        const QList<qint64> atZero{0, 0, 0};
        for (const char* strategy : {"overflow", "leak"}) {
            const QJsonObject o{{"maxConcurrent", 1}, {"highWater", 1}, {"strategy", QString(strategy).toUpper()}};
            const QString spec = QStringLiteral("bottleneck:max_concurrent=1,high_water=1,strategy=") + strategy;
            QTest::addRow("no server, %s", strategy) << "bottleneck" << spec << o << atZero << QList<qint64>{0, 0, 0}
                                                     << QStringList{"0", "0", "0"};
            QTest::addRow("denied at once, %s", strategy)
                << "bottleneck" << spec << o << QList<qint64>{0, 500, 500, 500} << QList<qint64>{100, 0, 0, 0}
                << QStringList{"0", "500", "500", "500"};
        }
        QTest::addRow("p-queue zero time before the tick")
            << "p-queue" << "p-queue:concurrency=1,interval=100ms,interval_cap=3"
            << QJsonObject{{"concurrency", 1}, {"interval", 100}, {"intervalCap", 3}} << QList<qint64>(6, 0)
            << QList<qint64>{100, 0, 0, 0, 0, 0} << QStringList{"0", "100", "100", "100", "100", "100"};
        for (std::uint64_t seed = 1; seed <= 24; ++seed)
            for (const char* kind : {"bottleneck", "p-queue"}) {
                const Scenario s = compareScenario(kind, seed, 150);
                QTest::addRow("%s seed %d", kind, int(seed))
                    << kind << s.spec << s.options << QList<qint64>(s.arrivals.begin(), s.arrivals.end())
                    << QList<qint64>(s.service.begin(), s.service.end()) << QStringList{};
            }
    }

    void throughCompare()
    {
        QFETCH(QString, kind);
        QFETCH(QString, spec);
        QFETCH(QJsonObject, options);
        QFETCH(QList<qint64>, arrivals);
        QFETCH(QList<qint64>, service);
        QFETCH(QStringList, starts);
        const test::NodePeers node = test::findNode({"bottleneck", "p-queue", "@sinonjs/fake-timers"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        Scenario s;
        s.spec = spec;
        s.options = options;
        s.arrivals.assign(arrivals.begin(), arrivals.end());
        s.service.assign(service.begin(), service.end());
        s.priorities.assign(arrivals.size(), kind == QLatin1String("bottleneck") ? 5 : 0);
        if (const auto at = spec.indexOf("priority="); at >= 0)
            s.packagePriority = spec.mid(at + 9).section(',', 0, 0);
        QString error;
        const QStringList mine = compareStarts(spec, s.arrivals, s.service, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QStringList theirs = packageStarts(node, kind, s, error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(theirs.size(), mine.size());
        for (qsizetype i = 0; i < mine.size(); ++i)
            QVERIFY2(mine[i] == theirs[i],
                     qPrintable(QStringLiteral("%1: call %2 arriving at %3 ms taking %4 ms: compare starts it at %5, the package at %6")
                                    .arg(spec).arg(i).arg(arrivals[i]).arg(service[i]).arg(mine[i], theirs[i])));
        if (!starts.isEmpty())
            QCOMPARE(mine, starts);
    }

    // The arrivals file's priority column reaches each call: compareScenario's seeds, each call
    // with a priority drawn from the package's range and past it (Bottleneck makes a fraction or
    // an integer past 32 bits 5 and clamps the rest; p-queue orders any number), over the key.
    void perCallPriorities_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("bottleneck") << "bottleneck";
        QTest::newRow("p-queue") << "p-queue";
    }

    void perCallPriorities()
    {
        QFETCH(QString, kind);
        const test::NodePeers node = test::findNode({"bottleneck", "p-queue", "@sinonjs/fake-timers"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        static const QStringList bottleneckPriorities{"-1", "0", "3", "9", "12", "2.5", "1e10"};
        static const QStringList pQueuePriorities{"-2", "-0.5", "0", "1.5", "4"};
        const QStringList& drawn = kind == QLatin1String("bottleneck") ? bottleneckPriorities : pQueuePriorities;
        for (std::uint64_t seed = 1; seed <= 24; ++seed) {
            Scenario s = compareScenario(kind, seed, 150);
            std::mt19937_64 random(seed * 104729 + 3);
            for (std::size_t i = 0; i < s.arrivals.size(); ++i)
                s.callPriorities << drawn[qsizetype(draw(random, 0, drawn.size() - 1))];
            QString error;
            const QStringList mine = compareStarts(s.spec, s.arrivals, s.service, error, s.callPriorities);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const QStringList theirs = packageStarts(node, kind, s, error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(theirs.size(), mine.size());
            for (qsizetype i = 0; i < mine.size(); ++i)
                QVERIFY2(mine[i] == theirs[i],
                         qPrintable(QStringLiteral("%1 (seed %2): call %3 arriving at %4 ms with priority %5: compare "
                                                   "starts it at %6, the package at %7")
                                        .arg(s.spec).arg(seed).arg(i).arg(s.arrivals[std::size_t(i)])
                                        .arg(s.callPriorities[i], mine[i], theirs[i])));
        }
    }

    void throttles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("bottleneck") << "bottleneck";
        QTest::newRow("p-queue") << "p-queue";
    }

    void throttles()
    {
        QFETCH(QString, kind);
        const test::NodePeers node = test::findNode({"bottleneck", "p-queue", "@sinonjs/fake-timers"});
        if (!node.missing.isEmpty())
            PEER_MISSING(node.missing);
        for (std::uint64_t seed = 1; seed <= 24; ++seed) {
            const Scenario s = scenario(kind, seed, 150);
            std::vector<Nanos> arrivals, service;
            for (std::size_t i = 0; i < s.arrivals.size(); ++i) {
                arrivals.push_back(s.arrivals[i] * kMs);
                service.push_back(s.service[i] * kMs);
            }
            const std::vector<Nanos> mine = simulateThrottle(s.spec.toStdString(), arrivals, service,
                                                             std::vector<double>(s.priorities.begin(), s.priorities.end()));
            QString error;
            const QStringList theirs = packageStarts(node, kind, s, error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(theirs.size(), qsizetype(mine.size()));
            for (std::size_t i = 0; i < mine.size(); ++i) {
                const QString m = mine[i] == kNotStarted ? "-1" : QString::number(mine[i] / kMs);
                QVERIFY2(m == theirs[qsizetype(i)],
                         qPrintable(QStringLiteral("%1 (seed %2): call %3 arriving at %4 ms: model starts it at %5, the package at %6")
                                        .arg(s.spec).arg(seed).arg(i).arg(s.arrivals[i]).arg(m, theirs[qsizetype(i)])));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestPeerThrottles)
#include "tst_peer_throttles.moc"
