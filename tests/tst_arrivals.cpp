// Reading arrival times from text: what is accepted, exactly, and where each error is reported.
#include "traffic/arrivals.h"
#include "arithmetic/decimal.h"
#include "traffic/pattern.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <csignal>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

std::vector<Nanos> parse(const std::string& text) { return parseArrivals(text, "times.txt"); }

// errorOf returns the InputError message f throws, or an empty string.
template <typename F>
QString errorOf(F f)
{
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// Feeder writes `piece` into a FIFO over and over, from a thread, until the reader closes it
// (or `limit` bytes, a safety stop): an input with no end, such as `yes 0 | ratelab`.
struct Feeder {
    std::string path;
    std::string piece;
    std::int64_t limit;
    std::atomic<std::int64_t> written{0};
    std::thread thread;

    Feeder(std::string fifo, std::string repeated, std::int64_t maxBytes)
        : path(std::move(fifo)), piece(std::move(repeated)), limit(maxBytes)
    {
        thread = std::thread([this] {
            const int fd = ::open(path.c_str(), O_WRONLY);
            if (fd < 0)
                return;
            while (written < limit) {
                const ssize_t n = ::write(fd, piece.data(), piece.size());
                if (n <= 0)
                    break; // EPIPE: the reader has stopped
                written += n;
            }
            ::close(fd);
        });
    }
    ~Feeder()
    {
        // A writer still blocked in open() (the reader failed before opening) needs a reader to
        // come and go; one already writing just sees EPIPE once this closes.
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
        if (fd >= 0)
            ::close(fd);
        thread.join();
    }
};

} // namespace

class TestArrivals : public QObject {
    Q_OBJECT
private slots:
    void exactNanoseconds_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<Nanos>("t");
        QTest::newRow("0") << QByteArray("0") << Nanos(0);
        QTest::newRow("0.1") << QByteArray("0.1") << Nanos(100'000'000);
        QTest::newRow("9.5") << QByteArray("9.5") << Nanos(9'500'000'000);
        QTest::newRow("1e-3") << QByteArray("1e-3") << Nanos(1'000'000);
        QTest::newRow("one ns") << QByteArray("0.000000001") << Nanos(1);
        QTest::newRow("1e-9") << QByteArray("1e-9") << Nanos(1);
        QTest::newRow("1 s + 1 ns") << QByteArray("1.000000001") << Nanos(1'000'000'001);
        QTest::newRow("2.5e3") << QByteArray("2.5e3") << 2'500 * kSecond;
        QTest::newRow("trailing zeros") << QByteArray("0.1000000000000") << Nanos(100'000'000);
        QTest::newRow("no leading digit") << QByteArray(".5") << kSecond / 2;
        QTest::newRow("largest") << QByteArray("9223372036.854775807") << kMaxNanos;
    }

    void exactNanoseconds()
    {
        QFETCH(QByteArray, text);
        QFETCH(Nanos, t);
        QCOMPARE(parse(text.toStdString()), std::vector<Nanos>{t});
    }

    void blankLinesAndComments()
    {
        const std::string text = "# arrivals for a test\n"
                                 "\n"
                                 "0\n"
                                 "   \t \n"
                                 "0.5   # half a second\n"
                                 "  0.5\n"
                                 "#1000\n"
                                 "10# no space before the comment\n"
                                 "\n";
        QCOMPARE(parse(text), (std::vector<Nanos>{0, kSecond / 2, kSecond / 2, 10 * kSecond}));
        QCOMPARE(parse(""), std::vector<Nanos>{});
        QCOMPARE(parse("\n\n# nothing\n"), std::vector<Nanos>{});
        QCOMPARE(parse("1\n2"), (std::vector<Nanos>{kSecond, 2 * kSecond})); // no final newline
    }

    void crlfLineEndings()
    {
        QCOMPARE(parse("0\r\n0.1\r\n\r\n# note\r\n0.2 # why\r\n"),
                 (std::vector<Nanos>{0, kSecond / 10, kSecond / 5}));
        // Line numbers still count CRLF lines: the word is on line 3.
        try {
            parse("0\r\n1\r\nsoon\r\n");
            QFAIL("no InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith("times.txt:3: "), e.what());
        }
    }

    void equalTimesAreFine()
    {
        QCOMPARE(parse("3\n3\n3.0\n3e0\n"), std::vector<Nanos>(4, 3 * kSecond));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("problem");
        QTest::newRow("a word") << QByteArray("0\n1\nsoon\n") << 3 << "'soon' is not a number";
        QTest::newRow("a word after comments") << QByteArray("# a\n\n# b\n0\nx1\n") << 5 << "'x1' is not a number";
        QTest::newRow("empty number") << QByteArray(".") << 1 << "'.' is not a number";
        QTest::newRow("bare exponent") << QByteArray("0\n1e\n") << 2 << "'1e' is not a number";
        QTest::newRow("two numbers") << QByteArray("1 2\n") << 1 << "'1 2' is not a number";
        QTest::newRow("a unit") << QByteArray("1\n2s\n") << 2 << "'2s' is not a number";
        QTest::newRow("finer than 1 ns") << QByteArray("0.0000000001\n") << 1 << "finer than one nanosecond";
        QTest::newRow("negative") << QByteArray("0\n-1\n") << 2 << "time '-1' is negative";
        QTest::newRow("negative first") << QByteArray("-0.5") << 1 << "time '-0.5' is negative";
        QTest::newRow("too large") << QByteArray("1\n1e300\n") << 2 << "'1e300' is too large";
        // One ns past the largest Nanos (9223372036.854775807 s).
        QTest::newRow("just too large") << QByteArray("9223372036.854775808") << 1 << "is too large";
        QTest::newRow("back in time") << QByteArray("0\n2\n\n1.5\n") << 4
                                      << "time '1.5' is earlier than the line before (2 s)";
        QTest::newRow("back by 1 ns") << QByteArray("1.000000001\n1\n") << 2 << "earlier than the line before";
        QTest::newRow("binary") << QByteArray("0\n1\n\x7f" "ELF\x02\x01\x01", 11) + QByteArray(4, '\0') << 3
                                << "binary data";
        QTest::newRow("NUL in a comment") << QByteArray("0 # a\0b\n", 8) << 1 << "binary data";
    }

    void errors()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, line);
        QFETCH(QString, problem);
        try {
            parseArrivals(std::string_view(text.constData(), std::size_t(text.size())), "in/times.txt");
            QFAIL("no InputError");
        } catch (const InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(QString("in/times.txt:%1: ").arg(line)), e.what());
            QVERIFY2(message.contains(problem), e.what());
            QVERIFY2(!message.contains('\n') && !message.contains(QChar(0)), e.what());
        }
    }

    void tooManyArrivals()
    {
        // kMaxArrivals lines are accepted; the next one is an error on line kMaxArrivals + 1.
        std::string text;
        text.reserve(std::size_t(kMaxArrivals + 1) * 2);
        for (std::int64_t i = 0; i < kMaxArrivals; ++i)
            text += "0\n";
        QCOMPARE(std::int64_t(parse(text).size()), kMaxArrivals);
        text += "0\n";
        try {
            parse(text);
            QFAIL("no InputError");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).startsWith(QString("times.txt:%1: more than").arg(kMaxArrivals + 1)), e.what());
        }
    }

    void readsAFile()
    {
        const std::string path = RATELAB_TESTDATA "/arrivals_ok.txt";
        // The fixture: a comment, three requests at 0, a blank line, 1 and 1.000000001 s.
        QCOMPARE(readArrivalsFile(path), (std::vector<Nanos>{0, 0, 0, kSecond, kSecond + 1}));
    }

    void fileErrorsNameTheFile()
    {
        const std::string path = RATELAB_TESTDATA "/arrivals_word.txt";
        try {
            readArrivalsFile(path);
            QFAIL("no InputError");
        } catch (const InputError& e) {
            // The fixture has the word "later" on line 4.
            QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(path + ":4: ")), e.what());
        }
    }

    void missingFile()
    {
        const std::string path = RATELAB_TESTDATA "/no_such_arrivals.txt";
        try {
            readArrivalsFile(path);
            QFAIL("no InputError");
        } catch (const InputError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(QString::fromStdString(path + ": ")), e.what());
            QVERIFY2(message.contains("cannot read"), e.what());
        }
    }

    void byteOrderMark()
    {
        // Editors on Windows start UTF-8 files with EF BB BF: accepted, and only there.
        QCOMPARE(parse("\xEF\xBB\xBF" "0\n0.5\n"), (std::vector<Nanos>{0, kSecond / 2}));
        QCOMPARE(parse("\xEF\xBB\xBF# comment\r\n1\r\n"), (std::vector<Nanos>{kSecond}));
        QCOMPARE(parse("\xEF\xBB\xBF"), std::vector<Nanos>{});
        QVERIFY(errorOf([] { parse("0\n\xEF\xBB\xBF" "1\n"); }).startsWith("times.txt:2: "));
        QCOMPARE(readArrivalsFile(RATELAB_TESTDATA "/arrivals_bom.txt"), (std::vector<Nanos>{0, kSecond / 10, kSecond}));
        // UTF-16 (Notepad's "Unicode") is named, not reported as a bad number.
        const QString utf16 = errorOf([] { readArrivalsFile(RATELAB_TESTDATA "/arrivals_utf16.txt"); });
        QVERIFY2(utf16.endsWith("arrivals_utf16.txt:1: UTF-16 text; save the file as UTF-8 (or ASCII)"), qPrintable(utf16));
    }

    void binaryFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("line");
        // A PNG's first line looks like text ("\x89PNG\r"); its control bytes show on line 2.
        QTest::newRow("png") << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << 2;
        QTest::newRow("elf") << QByteArray("\x7f" "ELF\x02\x01\x01\0\0", 9) << 1;
        QTest::newRow("gzip") << QByteArray("\x1f\x8b\x08\0", 4) << 1;
        QTest::newRow("NUL after good lines") << QByteArray("0\n1\n2\n\0", 7) << 4;
        QTest::newRow("escape sequence") << QByteArray("0\n\x1b[31m1\n") << 2;
        QTest::newRow("utf-16 without a mark") << QByteArray("0\0\n\0", 4) << 1;
        // Past the first 8 KiB the line check still finds it, on the right line.
        QTest::newRow("NUL after 8 KiB") << QByteArray(5000, '\n') + QByteArray("0\n") + QByteArray(5000, '\n')
                                                + QByteArray("\x01\n")
                                         << 10002;
    }

    // checks that a binary file is refused as binary, on the line of its first control byte.
    void binaryFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, line);
        const QString message = errorOf([&] { parseArrivals(std::string_view(bytes.constData(), bytes.size()), "f"); });
        QCOMPARE(message, QString("f:%1: binary data, not a list of times in seconds").arg(line));
    }

    void longLinesAreRefused()
    {
        // Longer than kMaxArrivalsLineBytes, with or without a line break, even as a comment.
        const std::string longNumber(kMaxArrivalsLineBytes + 1, '1');
        const QString expected = QString("times.txt:2: line longer than %1 bytes").arg(kMaxArrivalsLineBytes);
        QVERIFY(errorOf([&] { parse("0\n" + longNumber); }).startsWith(expected));
        QVERIFY(errorOf([&] { parse("0\n" + longNumber + "\n"); }).startsWith(expected));
        QVERIFY(errorOf([&] { parse("0\n#" + longNumber + "\n"); }).startsWith(expected));
        // Exactly at the cap is fine (here a comment).
        QCOMPARE(parse("#" + std::string(kMaxArrivalsLineBytes - 1, 'x') + "\n5\n"), std::vector<Nanos>{5 * kSecond});
    }

    // checks the caps through a file: the 5,000,001st time is refused with the file and line.
    void fileOverTheCap()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("many.txt");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const QByteArray block = QByteArray("0.5\n").repeated(100'000);
            for (std::int64_t i = 0; i < kMaxArrivals / 100'000; ++i)
                f.write(block);
            f.write("7\n");
        }
        const QString message = errorOf([&] { readArrivalsFile(path.toStdString()); });
        QCOMPARE(message, QString("%1:%2: more than %3 arrivals, the most one scenario may hold")
                              .arg(path)
                              .arg(kMaxArrivals + 1)
                              .arg(kMaxArrivals));
    }

    // checks that input with no end is refused at a cap while it streams in, never read to its
    // end: a pipe that sends "0\n" forever, one long line, and /dev/zero.
    void endlessInputStopsAtTheCap()
    {
        std::signal(SIGPIPE, SIG_IGN); // the feeder learns of the closed pipe from EPIPE
        QTemporaryDir dir;
        const std::string fifo = QDir(dir.path()).filePath("pipe").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::int64_t safety = std::int64_t(1) << 30; // a whole-input reader would get here
        {
            std::string zeros;
            for (int i = 0; i < 32 * 1024; ++i)
                zeros += "0\n";
            Feeder feeder(fifo, zeros, safety);
            const QString message = errorOf([&] { readArrivalsFile(fifo); });
            QVERIFY2(message.startsWith(QString::fromStdString(fifo) + ":5000001: more than 5000000 arrivals"),
                     qPrintable(message));
            QVERIFY(feeder.written < safety);
        }
        ::unlink(fifo.c_str());
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        {
            Feeder feeder(fifo, std::string(4096, '7'), safety);
            const QString message = errorOf([&] { readArrivalsFile(fifo); });
            QVERIFY2(message.startsWith(QString::fromStdString(fifo) + ":1: line longer than"), qPrintable(message));
            QVERIFY(feeder.written < safety);
        }
        const QString zero = errorOf([] { readArrivalsFile("/dev/zero"); });
        QCOMPARE(zero, QString("/dev/zero:1: binary data, not a list of times in seconds"));
    }

    void unreadableFiles()
    {
        // A directory opens but cannot be read: said so, with the path.
        const std::string dir = RATELAB_TESTDATA;
        QCOMPARE(errorOf([&] { readArrivalsFile(dir); }),
                 QString::fromStdString(dir + ": cannot read arrivals file (Is a directory)"));
        QCOMPARE(errorOf([] { readArrivalsFile(""); }), QString("no arrivals file name given"));
        QCOMPARE(errorOf([] { readArrivalsFile("/nonexistent-dir/times.txt"); }),
                 QString("/nonexistent-dir/times.txt: cannot read arrivals file (No such file or directory)"));
        // Without read permission (root reads anything, so only checked for other users).
        if (::geteuid() != 0) {
            QTemporaryDir tmp;
            const QString path = tmp.filePath("secret.txt");
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("1\n");
            f.close();
            QVERIFY(f.setPermissions(QFileDevice::Permissions{}));
            QCOMPARE(errorOf([&] { readArrivalsFile(path.toStdString()); }),
                     path + ": cannot read arrivals file (Permission denied)");
        }
    }

    // checks that reading in pieces gives what parsing the whole text gives, wherever a line
    // break, a CRLF or the byte-order mark falls between two reads.
    // One reader for t[,cost[,client]] (semantics.md, "Everything together"): the columns in that
    // order, or as a header line names them; a `t,cost` file stays a cost file with clients.
    void costAndClientColumns()
    {
        const Arrivals three = parseArrivalsWithCosts("\xEF\xBB\xBF# t,cost,client\n0.1, 2, 3\n\n0.25,1,0 # late\r\n", "f");
        QCOMPARE(three.times, (std::vector<Nanos>{kSecond / 10, kSecond / 4}));
        QCOMPARE(three.costs, (std::vector<std::int64_t>{2, 1}));
        QCOMPARE(three.clients, (std::vector<std::int64_t>{3, 0}));
        const Arrivals two = parseArrivalsWithCosts("0,4\n1,5\n", "f");
        QCOMPARE(two.costs, (std::vector<std::int64_t>{4, 5}));
        QVERIFY(two.clients.empty());
        const Arrivals named = parseArrivalsWithCosts("client,t\n7,0\n2,1e-3\n", "f");
        QCOMPARE(named.times, (std::vector<Nanos>{0, kSecond / 1000}));
        QCOMPARE(named.clients, (std::vector<std::int64_t>{7, 2}));
        QVERIFY(named.costs.empty());
        const Arrivals some = parseArrivalsWithCosts("0\n1,1,4\n", "f"); // a line without: round robin
        QCOMPARE(some.clients, (std::vector<std::int64_t>{-1, 4}));
        const auto error = [](const char* text) { return errorOf([&] { parseArrivalsWithCosts(text, "f"); }); };
        QVERIFY(error("0,1,x\n").startsWith("f:1: client 'x'"));
        QVERIFY(error("0,1,-1\n").startsWith("f:1: client must be at least 0"));
        QVERIFY(error("0,1,100000\n").startsWith("f:1: client must be at most 99999"));
        QVERIFY(error("0,1,2,3\n").startsWith("f:1: more than three columns"));
        QVERIFY(error("t,size\n").startsWith("f:1: unknown column 'size'"));
        QVERIFY(error("cost,client\n").startsWith("f:1: the header names no time column"));
        QVERIFY(error("t,t\n").startsWith("f:1: column 't' named twice"));
        QVERIFY(error("t\n0,1\n").startsWith("f:2: more columns than the header names"));
        QVERIFY(error("client,t\n0,1\n0,0.5\n").startsWith("f:3: time '0.5' is earlier"));
    }

    void piecesAgreeWithTheWhole()
    {
        QTemporaryDir dir;
        std::string text = "\xEF\xBB\xBF# header\r\n";
        for (int i = 0; i < 40'000; ++i)
            text += std::to_string(i) + "." + std::to_string(i % 1000) + (i % 7 == 0 ? " # note\r\n" : "\n");
        const QString path = dir.filePath("long.txt");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.data(), qint64(text.size()));
        f.close();
        const auto whole = parse(text);
        QCOMPARE(whole.size(), std::size_t(40'000));
        QCOMPARE(readArrivalsFile(path.toStdString()), whole);
    }
};

QTEST_APPLESS_MAIN(TestArrivals)
#include "tst_arrivals.moc"
