// `ratelab bench --compare OLD.json NEW.json`, run as a real process on two saved runs: the
// ratios and verdicts derived by hand, and the one-line refusal of a bad file.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

namespace {

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

const QByteArray kOld = R"({"engine_ns": 100, "drag": {"frames_per_s": 10, "requests": 1000000, "settle_ms": 80},
                            "gone": 3, "redis": {"scripts": {"incr": {"redis_calls_per_s": 20000}}},
                            "replay_combined_lines_per_s": 1000000, "replay_combined_floor_ratio": 400})";
const QByteArray kNew = R"({"engine_ns": 80, "drag": {"frames_per_s": 10.5, "requests": 1000000, "settle_ms": 100},
                            "added": 2, "redis": {"scripts": {"incr": {"redis_calls_per_s": 15000}}},
                            "replay_combined_lines_per_s": 4000000, "replay_combined_floor_ratio": 100})";

} // namespace

class TestBenchCompare : public QObject {
    Q_OBJECT
private slots:
    void ratiosAndVerdicts()
    {
        QTemporaryDir dir;
        const Run r = runRatelab({"bench", "--compare", write(dir, "old.json", kOld), write(dir, "new.json", kNew), "--json"});
        QCOMPARE(r.err, QByteArray());
        QCOMPARE(r.code, 0);
        const QJsonObject doc = parseJson(r.out);
        const QJsonObject figures = doc.value("figures").toObject();
        // By hand: a cost falling 100 -> 80 is 0.8, past the 10% noise: faster. Frames a second
        // 10 -> 10.5 is 1.05, within it. A settle 80 -> 100 ms is 1.25: slower. Redis calls a
        // second 20,000 -> 15,000 is 0.75 of a higher-is-better figure: slower. The request
        // count is a parameter, equal in both: not a figure. Combined-log replay 1M -> 4M lines a
        // second is 4 of a higher-is-better figure, and its line 400 -> 100 floors 0.25 of a
        // cost: both faster.
        struct Row { const char* path; double ratio; const char* verdict; };
        const Row rows[] = {{"engine_ns", 0.8, "faster"}, {"drag.frames_per_s", 1.05, ""}, {"drag.settle_ms", 1.25, "slower"},
                            {"redis.scripts.incr.redis_calls_per_s", 0.75, "slower"},
                            {"replay_combined_lines_per_s", 4, "faster"}, {"replay_combined_floor_ratio", 0.25, "faster"}};
        for (const Row& row : rows) {
            const QJsonObject f = figures.value(row.path).toObject();
            QVERIFY2(!f.isEmpty(), row.path);
            QCOMPARE(f.value("ratio").toDouble(), row.ratio);
            QCOMPARE(f.value("verdict").toString(), QString(row.verdict));
        }
        QVERIFY(!figures.contains("drag.requests"));
        // A figure only one run has is shown with the other side null, and no ratio.
        QVERIFY(figures.value("gone").toObject().value("after").isNull());
        QCOMPARE(figures.value("gone").toObject().value("before").toDouble(), 3.0);
        QVERIFY(figures.value("added").toObject().value("ratio").isNull());
        QCOMPARE(figures.size(), 8);
        QCOMPARE(doc.value("differing_parameters").toArray().size(), 0);
    }

    void textTableAndDifferingParameters()
    {
        QTemporaryDir dir;
        QByteArray other = kNew;
        other.replace("\"requests\": 1000000", "\"requests\": 100000");
        const Run r = runRatelab({"bench", "--compare", write(dir, "old.json", kOld), write(dir, "new.json", other)});
        QCOMPARE(r.code, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(QRegularExpression(R"(\n100\s+80\s+0\.8\s+faster\s+engine_ns\n)")), r.out);
        QVERIFY2(text.contains(QRegularExpression(R"(\n3\s+-\s+-\s+gone\n)")), r.out);
        QVERIFY2(text.contains("Not comparable: drag.requests differs between the runs"), r.out);
    }

    // The targets are judged on the new run's figures. By hand, against docs/performance.md's
    // bounds: a frame of 2.0 floor units is at its bound of 2.0 (met: "within"); a settle of 2.6
    // units is past 2.5 (missed); the server's 8 frames a second is at its least of 8 (met); 8
    // nodes' 11.9 is under 12 (missed); the sliding log at 1.9 floors is within its 2 (met),
    // GCRA at 1.6 past its 1.5 (missed); an update with no frame to time (null) is missed too.
    // Seven figures judged, three met; the rest not measured.
    void targetsOfTheNewRun()
    {
        QTemporaryDir dir;
        const QByteArray run = R"({"drag": {"frame_floor_ratio": 2.0, "settle_floor_ratio": 2.6},
            "drag_server": {"frames_per_s": 8}, "drag_cluster8": {"frames_per_s": 11.9},
            "update_floor_ratio": {"1000000": null},
            "decide_floor_ratio": {"sliding_window_log": 1.9, "gcra": 1.6}})";
        const Run r = runRatelab({"bench", "--compare", write(dir, "old.json", run), write(dir, "new.json", run)});
        QCOMPARE(r.code, 0);
        const QString text = QString::fromUtf8(r.out);
        struct Row { const char* verdict; const char* value; const char* figure; };
        const Row rows[] = {{"met", "2 <= 2", "drag.frame_floor_ratio"},
                            {"MISSED", "2.6 <= 2.5", "drag.settle_floor_ratio"},
                            {"met", "8 >= 8", "drag_server.frames_per_s"},
                            {"MISSED", "11.9 >= 12", "drag_cluster8.frames_per_s"},
                            {"met", "1.9 <= 2", "decide_floor_ratio.sliding_window_log"},
                            {"MISSED", "1.6 <= 1.5", "decide_floor_ratio.gcra"},
                            {"MISSED", "none <= 2", "update_floor_ratio.1000000"},
                            {"not measured", "- <= 25", "engine_floor_ratio"}};
        for (const Row& row : rows) {
            const QRegularExpression line(QString("\\n  %1 +%2 +.*\\(%3\\)\\n")
                                              .arg(row.verdict, QRegularExpression::escape(row.value),
                                                   QRegularExpression::escape(row.figure)));
            QVERIFY2(text.contains(line), qPrintable(line.pattern() + "\n" + text));
        }
        QVERIFY2(text.endsWith("\n  3 of 7 met\n"), r.out);
    }

    void badInputIsOneLine_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << "missing" << "cannot read";
        QTest::newRow("not json") << "text" << "is not the JSON object";
        QTest::newRow("an array") << "array" << "is not the JSON object";
        QTest::newRow("a directory") << "dir" << "cannot read";
        QTest::newRow("two saved runs") << "extra" << "takes no arguments";
    }

    void badInputIsOneLine()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString good = write(dir, "good.json", kOld);
        QStringList args = {"bench", "--compare", good};
        if (what == "missing")
            args << dir.filePath("none.json");
        else if (what == "text")
            args << write(dir, "t.json", "engine_ns = 3\n");
        else if (what == "array")
            args << write(dir, "a.json", "[1, 2]");
        else if (what == "dir")
            args << dir.path();
        else
            args << good << good;
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(message.toUtf8()), r.err);
    }
};

QTEST_GUILESS_MAIN(TestBenchCompare)
#include "tst_bench_compare.moc"
