// `ratelab compare` and `ratelab export`, run as real processes: the one-line refusal (exit 2,
// nothing on stdout) of every kind of bad input, with its exact message, and of results too
// large for 64-bit nanoseconds (the accepted runs are in tst_cli).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace clitest;

class TestCliRefusals : public QObject {
    Q_OBJECT
private slots:
    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("mentions");
        const auto row = [](const char* name, QStringList args, QStringList mentions) {
            QTest::newRow(name) << args << mentions;
        };
        row("unknown flag", {"compare", "--bogus"}, {"bogus"});
        row("flag without its value", {"compare", "--limit"}, {"--limit"});
        row("unknown algorithm", {"compare", "--algorithms", "token_bucket,nope"}, {"algorithm", "nope"});
        row("no algorithm", {"compare", "--algorithms", ","}, {"algorithms"});
        row("unknown command", {"frobnicate"}, {"frobnicate"});
        row("unknown format", {"compare", "--format", "xml"}, {"format", "xml"});
        row("unknown pattern", {"compare", "--pattern", "zigzag"}, {"pattern", "zigzag"});
        row("stray argument", {"compare", "extra"}, {"extra"});
        row("limit 1.5", {"compare", "--limit", "1.5"}, {"--limit", "whole number"});
        row("arrivals: a word", {"compare", "--arrivals", data("arrivals_word.txt")},
            {data("arrivals_word.txt") + ":4:", "later"});
        row("arrivals: negative", {"compare", "--arrivals", data("arrivals_negative.txt")},
            {data("arrivals_negative.txt") + ":3:", "negative"});
        row("arrivals: too large", {"compare", "--arrivals", data("arrivals_too_large.txt")},
            {data("arrivals_too_large.txt") + ":3:", "too large"});
        row("arrivals: back in time", {"compare", "--arrivals", data("arrivals_backwards.txt")},
            {data("arrivals_backwards.txt") + ":3:", "earlier"});
        row("arrivals: missing", {"compare", "--arrivals", data("no_such_file.txt")}, {data("no_such_file.txt")});
    }

    // checks that every bad input is refused with status 2, nothing on stdout and one line on
    // stderr that names what is wrong.
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, mentions);
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QVERIFY2(r.err.startsWith("ratelab: ") && r.err.endsWith('\n') && r.err.count('\n') == 1, r.err);
        for (const QString& m : mentions)
            QVERIFY2(QString::fromUtf8(r.err).contains(m), r.err);
    }

    void exactMessages_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message"); // the whole line on stderr, after "ratelab: "
        const auto row = [](const char* name, QStringList args, QString message) {
            QTest::newRow(name) << (QStringList{"compare"} + args) << message;
        };
        const QString maxTime = "9223372036.854775807 s, about 292 years";
        // Settings at 0, negative, not a number and absurdly large: every message names its flag.
        row("limit 0", {"--limit", "0"}, "--limit: must be at least 1 (got 0)");
        row("limit -1", {"--limit", "-1"}, "--limit: must be at least 1 (got -1)");
        row("limit abc", {"--limit", "abc"}, "--limit: 'abc' is not a number");
        row("limit empty", {"--limit", ""}, "--limit: '' is not a number");
        row("limit 1e30", {"--limit", "1e30"}, "--limit: must be at most 1000000000 (got 1e30)");
        row("limit just over", {"--limit", "1000000001"}, "--limit: must be at most 1000000000 (got 1000000001)");
        row("capacity 0", {"--capacity", "0"}, "--capacity: must be at least 1 (got 0)");
        row("capacity -3", {"--capacity", "-3"}, "--capacity: must be at least 1 (got -3)");
        row("capacity abc", {"--capacity", "abc"}, "--capacity: 'abc' is not a number");
        row("capacity 1e300", {"--capacity", "1e300"}, "--capacity: must be at most 1000000000 (got 1e300)");
        row("window 0", {"--window", "0"}, "--window: must be greater than 0 s (got 0)");
        row("window -1", {"--window", "-1"}, "--window: must be greater than 0 s (got -1)");
        row("window abc", {"--window", "abc"}, "--window: 'abc' is not a number");
        row("window 1e30", {"--window", "1e30"}, "--window: '1e30' is too large (at most " + maxTime + ")");
        row("window 0.1 ns", {"--window", "1e-10"}, "--window: '1e-10' is finer than one nanosecond");
        row("rate 0", {"--rate", "0"}, "--rate: must be greater than 0 (got 0)");
        row("rate -1", {"--rate", "-1"}, "--rate: must be greater than 0 (got -1)");
        row("rate abc", {"--rate", "abc"}, "--rate: 'abc' is not a number");
        row("rate 1e30", {"--rate", "1e30"}, "--rate: '1e30' is too large (at most 9223372036854775807 per nanosecond)");
        row("rate 1e-30", {"--rate", "1e-30"}, "--rate: '1e-30' is too small (at least 1 per 9223372036.854775807 s)");
        row("delay -1", {"--delay", "-1"}, "--delay: must not be negative (got -1)");
        row("delay abc", {"--delay", "abc"}, "--delay: 'abc' is not a number");
        row("delay 1e30", {"--delay", "1e30"}, "--delay: '1e30' is too large (at most " + maxTime + ")");
        row("n -5", {"--n", "-5"}, "--n: must be at least 0 (got -5)");
        row("n abc", {"--n", "abc"}, "--n: 'abc' is not a number");
        row("n 1e30", {"--n", "1e30"}, "--n: must be at most 5000000 (got 1e30)");
        row("n over the cap", {"--n", "5000001"}, "--n: must be at most 5000000 (got 5000001)");
        row("size 0", {"--size", "0"}, "--size: must be at least 1 (got 0)");
        row("period -1", {"--period", "-1"}, "--period: must not be negative (got -1)");
        row("start -0.5", {"--start", "-0.5"}, "--start: must not be negative (got -0.5)");
        row("gap -1", {"--gap", "-1"}, "--gap: must not be negative (got -1)");
        row("lambda 0", {"--lambda", "0"}, "--lambda: must be greater than 0 (got 0)");
        row("seed -1", {"--seed", "-1"}, "--seed: must be at least 0 (got -1)");
        row("seed 1.5", {"--seed", "1.5"}, "--seed: '1.5' is not a whole number");
        row("control bytes are not echoed", {"--limit", "1\x1b[2J"}, "--limit: '1?[2J' is not a number");
        // Values that are each fine but overflow together: the message states the cap.
        row("huge n and delay", {"--n", "5000000", "--delay", "1e9"},
            "--n, --delay, --start: the last request would come at start + (n - 1) * delay = 4999999000000000 s, "
            "past the largest time RateLab can represent (" + maxTime + ")");
        row("start near the end", {"--n", "3", "--delay", "1", "--start", "9223372035"},
            "--n, --delay, --start: the last request would come at start + (n - 1) * delay = 9223372037 s, "
            "past the largest time RateLab can represent (" + maxTime + ")");
        row("huge bursts", {"--pattern", "burst", "--n", "5000000", "--size", "1", "--period", "1e9"},
            "--n, --size, --period, --start: the last burst would come at start + floor((n - 1) / size) * period "
            "= 4999999000000000 s, past the largest time RateLab can represent (" + maxTime + ")");
        row("edge with a huge limit", {"--pattern", "edge", "--limit", "1e9"},
            "--pattern edge, --limit, --window, --gap, --start: the edge pattern sends 2 * limit = 2000000000 "
            "requests; at most 5000000 requests per scenario");
        row("edge past the end", {"--pattern", "edge", "--start", "9223372036", "--gap", "1"},
            "--pattern edge, --limit, --window, --gap, --start: the first window boundary at or after start + gap "
            "would be at 9223372040 s, past the largest time RateLab can represent (" + maxTime + ")");
        row("poisson past the end", {"--pattern", "poisson", "--lambda", "1e-9", "--n", "100"},
            "--n, --lambda, --start: the Poisson arrivals would run past the largest time RateLab can represent ("
            + maxTime + ") after 15 of 100 requests; raise lambda or lower n or start");
        // Arrivals files: each problem with the file and the line.
        const auto file = [&](const char* name, const char* fixture, QString message) {
            row(name, {"--arrivals", data(fixture)}, data(fixture) + message);
        };
        file("arrivals: a word", "arrivals_word.txt",
             ":4: 'later' is not a number (expected a time in seconds, such as 0.25 or 1e-3)");
        file("arrivals: empty number", "arrivals_empty_number.txt",
             ":2: '.' is not a number (expected a time in seconds, such as 0.25 or 1e-3)");
        file("arrivals: negative", "arrivals_negative.txt", ":3: time '-2' is negative");
        file("arrivals: too large", "arrivals_too_large.txt", ":3: '9223372037' is too large (at most " + maxTime + ")");
        file("arrivals: backwards", "arrivals_backwards.txt",
             ":3: time '4.999999999' is earlier than the line before (5 s); times must not go back");
        file("arrivals: binary", "arrivals_binary.png", ":2: binary data, not a list of times in seconds");
        file("arrivals: UTF-16", "arrivals_utf16.txt", ":1: UTF-16 text; save the file as UTF-8 (or ASCII)");
        file("arrivals: missing", "no_such_file.txt", ": cannot read arrivals file (No such file or directory)");
        row("arrivals: a directory", {"--arrivals", QStringLiteral(RATELAB_TESTDATA)},
            QStringLiteral(RATELAB_TESTDATA) + ": cannot read arrivals file (Is a directory)");
        row("arrivals: no name", {"--arrivals", ""}, "--arrivals: no file name given");
    }

    void exactMessages()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(QString::fromUtf8(r.err), "ratelab: " + message + "\n");
    }

    // checks that a deck the window cannot read is refused where nobody sees a dialog: on Qt's
    // offscreen platform (ctest's) it is one line and exit 2, not a modal dialog nobody can close.
    void anUnreadableDeckOffscreenIsRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"title\": \"x\",\n \"steps\": [}\n");
        f.close();
        const Run r = runRatelab({"--deck", path});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(QString::fromUtf8(r.err).count('\n'), 1);
        QVERIFY2(r.err.startsWith("ratelab: --deck: ") && r.err.contains("line 2"), r.err.constData());
    }

    // checks that a result too large for 64-bit nanoseconds is refused up front, never printed
    // clamped: a queue delay of (C - 1) / r = 99 * 10^8 s, a counter's retry_after of up to 2 W.
    void durationsPastTheEndOfTimeAreRefused()
    {
        Run r = runRatelab({"compare", "--algorithms", "leaky_bucket_queue", "--capacity", "100", "--rate", "1e-8",
                            "--delay", "0", "--n", "100"});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(QString::fromUtf8(r.err).count('\n'), 1);
        QVERIFY2(r.err.contains("capacity / rate") && r.err.contains("9223372036.854775807 s"), r.err.constData());
        // 100 per 10^8 s is 10^10 s to drain: refused; 92 per 10^8 s is 9.2 * 10^9 s: accepted.
        r = runRatelab({"compare", "--algorithms", "leaky_bucket_queue", "--capacity", "92", "--rate", "1e-8",
                        "--delay", "0", "--n", "100"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("\"delay\": 9100000000"));   // the 92nd request waits 91 * 10^8 s, exactly
        r = runRatelab({"compare", "--algorithms", "sliding_window_counter", "--window", "4611686018.427387905"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("at most 4611686018.427387904 s"), r.err.constData());
        r = runRatelab({"compare", "--algorithms", "sliding_window_counter", "--window", "4611686018.427387904"});
        QCOMPARE(r.code, 0);
    }

    void exportRefusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("a directory") << QStringList{"--png", QDir::tempPath()}
                                     << "cannot write " + QDir::tempPath() + ": it is a directory, not a regular file";
        QTest::newRow("no such directory") << QStringList{"--png", "/nonexistent-dir/x.png"}
                                           << "cannot write /nonexistent-dir/x.png: No such file or directory";
        QTest::newRow("no file") << QStringList{} << "export: --png FILE or --html FILE is required";
        QTest::newRow("width 0") << QStringList{"--width", "0"} << "--width: must be at least 320 (got 0)";
        QTest::newRow("height -5") << QStringList{"--height", "-5"} << "--height: must be at least 240 (got -5)";
        QTest::newRow("width 1e9") << QStringList{"--width", "1e9"} << "--width: must be at most 16000 (got 1e9)";
        QTest::newRow("scale nan") << QStringList{"--scale", "nan"} << "--scale: 'nan' is not a number";
        // One number grammar: what is not a whole number or has spaces is refused, and the
        // scale is exact (0.25 passes, a hair below it does not).
        QTest::newRow("width 1600.5") << QStringList{"--width", "1600.5"} << "--width: '1600.5' is not a whole number";
        QTest::newRow("width with a space") << QStringList{"--width", " 800"} << "--width: ' 800' is not a number";
        QTest::newRow("scale just below 1/4") << QStringList{"--scale", "0.2499999"} << "--scale: must be at least 0.25 (got 0.2499999)";
        QTest::newRow("scale 9") << QStringList{"--scale", "9"} << "--scale: must be at most 8 (got 9)";
        QTest::newRow("beyond what can be allocated") << QStringList{"--width", "16000", "--height", "16000"}
                                                      << "export: the image would have more than 200 million pixels; "
                                                         "lower --width, --height or --scale";
    }

    // checks that export refuses a path it cannot write and a size of 0 or beyond the cap.
    void exportRefusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QStringList all = {"export"};
        if (!args.contains("--png") && !QString(QTest::currentDataTag()).contains("no file"))
            all << "--png" << dir.filePath("out.png");
        const Run r = runRatelab(all + args);
        QCOMPARE(r.code, 2);
        QCOMPARE(QString::fromUtf8(r.err), "ratelab: " + message + "\n");
        QVERIFY(!QFile::exists(dir.filePath("out.png")));
    }
};

QTEST_GUILESS_MAIN(TestCliRefusals)
#include "tst_cli_refusals.moc"
