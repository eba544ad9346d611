// Peer test of the client throttles (issue 33): npm's bottleneck 2.19.5 and p-queue 10.0.0
// themselves (peers/throttle_peer.js, under @sinonjs/fake-timers) against simulateThrottle on
// the same seeded scenarios: random arrivals (runs at one instant, short and long gaps), service
// times, priorities and options; every call's start (or its drop) agrees. Registered as
// peer_throttles (label "peer"): a missing node or package skips, unless RATELAB_PEERS=1
// (.ci/run installs them).
#include "peer_node.h"
#include "engine/throttled_arrivals.h"

#include <QJsonDocument>
#include <QJsonObject>
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

} // namespace

class TestPeerThrottles : public QObject {
    Q_OBJECT
private slots:
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
            QByteArray input;
            for (std::size_t i = 0; i < s.arrivals.size(); ++i) {
                arrivals.push_back(s.arrivals[i] * kMs);
                service.push_back(s.service[i] * kMs);
                input += QByteArray::number(qint64(s.arrivals[i])) + ' ' + QByteArray::number(qint64(s.service[i])) + ' '
                    + QByteArray::number(s.priorities[i]) + '\n';
            }
            const std::vector<Nanos> mine = simulateThrottle(s.spec.toStdString(), arrivals, service, s.priorities);
            QString error;
            const QStringList theirs =
                node.run("throttle_peer.js", {kind, QString::fromUtf8(QJsonDocument(s.options).toJson(QJsonDocument::Compact))},
                         input, error);
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
