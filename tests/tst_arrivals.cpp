// Reading arrival times from text: what is accepted, exactly, and where each error is reported.
#include "arrivals.h"
#include "decimal.h"
#include "pattern.h"

#include <QTest>

#include <string>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

std::vector<Nanos> parse(const std::string& text) { return parseArrivals(text, "times.txt"); }

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
};

QTEST_APPLESS_MAIN(TestArrivals)
#include "tst_arrivals.moc"
