// Numbers and fields as text (arithmetic/text.h): the one rule every writer uses.
//
// Each expected text is worked out by hand: an Int128's digits from its value (2^127 - 1 =
// 170141183460469231731687303715884105727), seconds as nanos / 10^9 with the last nine digits
// after the point, hundredths as num / den times 100 rounded the way asked, a CSV field by RFC
// 4180 (quoted when it holds , " CR or LF; each " doubled inside).
#include "arithmetic/text.h"

#include <QTest>

#include <limits>
#include <string>

using namespace ratelab;

namespace {

constexpr Int128 kInt128Max = (Int128(1) << 126) - 1 + (Int128(1) << 126); // 2^127 - 1
constexpr Int128 kInt128Min = -kInt128Max - 1;                             // -2^127
constexpr Nanos kInt64Max = std::numeric_limits<Nanos>::max();
constexpr Nanos kInt64Min = std::numeric_limits<Nanos>::min();

QString q(const std::string& s) { return QString::fromStdString(s); }

} // namespace

Q_DECLARE_METATYPE(Int128)
Q_DECLARE_METATYPE(ratelab::Rounding)

class TestText : public QObject {
    Q_OBJECT

private slots:
    void integerText_data()
    {
        QTest::addColumn<Int128>("v");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << Int128(0) << "0";
        QTest::newRow("one digit") << Int128(7) << "7";
        QTest::newRow("negative") << Int128(-7) << "-7";
        QTest::newRow("ten: a second digit") << Int128(10) << "10";
        QTest::newRow("minus one") << Int128(-1) << "-1";
        QTest::newRow("int64 max") << Int128(kInt64Max) << "9223372036854775807";
        QTest::newRow("int64 min") << Int128(kInt64Min) << "-9223372036854775808";
        QTest::newRow("2^64: past 64 bits") << (Int128(1) << 64) << "18446744073709551616";
        QTest::newRow("int128 max") << kInt128Max << "170141183460469231731687303715884105727";
        // -2^127: its magnitude is no Int128, the case a text written by negating first gets wrong
        QTest::newRow("int128 min") << kInt128Min << "-170141183460469231731687303715884105728";
    }
    void integerText()
    {
        QFETCH(Int128, v);
        QFETCH(QString, text);
        QCOMPARE(q(ratelab::integerText(v)), text);
    }

    void secondsText_data()
    {
        QTest::addColumn<Int128>("nanos");
        QTest::addColumn<int>("minDecimals");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << Int128(0) << 0 << "0";
        QTest::newRow("zero, three decimals") << Int128(0) << 3 << "0.000";
        QTest::newRow("1 ns") << Int128(1) << 0 << "0.000000001";
        QTest::newRow("-1 ns") << Int128(-1) << 0 << "-0.000000001";
        QTest::newRow("1.5 s") << Int128(1'500'000'000) << 0 << "1.5";
        QTest::newRow("1.5 s, three decimals") << Int128(1'500'000'000) << 3 << "1.500";
        QTest::newRow("-1.5 s, three decimals") << Int128(-1'500'000'000) << 3 << "-1.500";
        QTest::newRow("whole second") << Int128(1'000'000'000) << 0 << "1";
        QTest::newRow("whole second, three decimals") << Int128(1'000'000'000) << 3 << "1.000";
        QTest::newRow("more decimals than asked when exact needs them") << Int128(1'234'000'000) << 2 << "1.234";
        QTest::newRow("nine decimals kept") << Int128(100'000'000) << 9 << "0.100000000";
        QTest::newRow("10 s") << Int128(10'000'000'000) << 0 << "10";
        QTest::newRow("int64 max") << Int128(kInt64Max) << 0 << "9223372036.854775807";
        QTest::newRow("int64 min") << Int128(kInt64Min) << 0 << "-9223372036.854775808";
        // 2^127 - 1 ns: the last nine digits of 170141183460469231731687303715884105727 are the fraction
        QTest::newRow("int128 max") << kInt128Max << 0 << "170141183460469231731687303715.884105727";
        QTest::newRow("int128 min") << kInt128Min << 3 << "-170141183460469231731687303715.884105728";
        QTest::newRow("past int64, whole") << Int128(kInt64Max) * 1000 + 193 << 0 << "9223372036854.775807193";
    }
    void secondsText()
    {
        QFETCH(Int128, nanos);
        QFETCH(int, minDecimals);
        QFETCH(QString, text);
        QCOMPARE(q(ratelab::secondsText(nanos, minDecimals)), text);
    }

    // formatSeconds and secondsChars (what the stream writers append) are secondsText's rule for a Nanos.
    void formatSecondsIsSecondsText_data()
    {
        QTest::addColumn<qint64>("t");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0";
        QTest::newRow("0.1 s") << qint64(100'000'000) << "0.1";
        QTest::newRow("1.000000001 s") << qint64(1'000'000'001) << "1.000000001";
        QTest::newRow("-2.5 s") << qint64(-2'500'000'000) << "-2.5";
        QTest::newRow("int64 max") << qint64(kInt64Max) << "9223372036.854775807";
        QTest::newRow("int64 min") << qint64(kInt64Min) << "-9223372036.854775808";
    }
    void formatSecondsIsSecondsText()
    {
        QFETCH(qint64, t);
        QFETCH(QString, text);
        QCOMPARE(q(formatSeconds(t)), text);
        QCOMPARE(q(ratelab::secondsText(t)), text);
        char buffer[kSecondsChars + 1];
        buffer[kSecondsChars] = 'x'; // secondsChars keeps inside its room
        const char* end = secondsChars(buffer, t);
        QCOMPARE(q(std::string(buffer, std::size_t(end - buffer))), text);
        QCOMPARE(buffer[kSecondsChars], 'x');
    }

    void hundredthsText_data()
    {
        QTest::addColumn<Int128>("num");
        QTest::addColumn<Int128>("den");
        QTest::addColumn<Rounding>("rounding");
        QTest::addColumn<QString>("text");
        // 1/3 = 0.333...: down 0.33, up 0.34
        QTest::newRow("1/3 down") << Int128(1) << Int128(3) << Rounding::Down << "0.33";
        QTest::newRow("1/3 up") << Int128(1) << Int128(3) << Rounding::Up << "0.34";
        // -1/3 = -0.333...: down (toward -infinity) -0.34, up -0.33
        QTest::newRow("-1/3 down") << Int128(-1) << Int128(3) << Rounding::Down << "-0.34";
        QTest::newRow("-1/3 up") << Int128(-1) << Int128(3) << Rounding::Up << "-0.33";
        // exactly on a hundredth: both ways the same
        QTest::newRow("2/1 down") << Int128(2) << Int128(1) << Rounding::Down << "2.00";
        QTest::newRow("2/1 up") << Int128(2) << Int128(1) << Rounding::Up << "2.00";
        QTest::newRow("5/100: one cent") << Int128(5) << Int128(100) << Rounding::Down << "0.05";
        QTest::newRow("-7/2") << Int128(-7) << Int128(2) << Rounding::Up << "-3.50";
        // half a hundredth: 0.005 down 0.00, up 0.01
        QTest::newRow("1/200 down") << Int128(1) << Int128(200) << Rounding::Down << "0.00";
        QTest::newRow("1/200 up") << Int128(1) << Int128(200) << Rounding::Up << "0.01";
        // 0.995 up crosses to the next whole: 1.00
        QTest::newRow("199/200 up") << Int128(199) << Int128(200) << Rounding::Up << "1.00";
        QTest::newRow("199/200 down") << Int128(199) << Int128(200) << Rounding::Down << "0.99";
        // -0.005: down -0.01; up is zero, written without a sign
        QTest::newRow("-1/200 down") << Int128(-1) << Int128(200) << Rounding::Down << "-0.01";
        QTest::newRow("-1/200 up") << Int128(-1) << Int128(200) << Rounding::Up << "0.00";
        QTest::newRow("zero up") << Int128(0) << Int128(7) << Rounding::Up << "0.00";
        QTest::newRow("int64 max whole") << Int128(kInt64Max) << Int128(1) << Rounding::Down << "9223372036854775807.00";
        // the smallest positive fraction still shows as a hundredth going up
        QTest::newRow("1/int64 max up") << Int128(1) << Int128(kInt64Max) << Rounding::Up << "0.01";
        // num * 100 would pass 2^127; the split into whole and rest keeps it exact
        QTest::newRow("int128 max / 2^64")
            << kInt128Max << (Int128(1) << 64) << Rounding::Down << "9223372036854775807.99";
    }
    void hundredthsText()
    {
        QFETCH(Int128, num);
        QFETCH(Int128, den);
        QFETCH(Rounding, rounding);
        QFETCH(QString, text);
        QCOMPARE(q(ratelab::hundredthsText(num, den, rounding)), text);
    }

    // A count and its noun: singular for exactly 1, the number grouped in threes, an irregular
    // plural only when given.
    void counted()
    {
        using ratelab::counted;
        QCOMPARE(counted(1, "request"), std::string("1 request"));
        QCOMPARE(counted(0, "request"), std::string("0 requests"));
        QCOMPARE(counted(2, "replayed rule"), std::string("2 replayed rules"));
        QCOMPARE(counted(1234, "request"), std::string("1,234 requests"));
        QCOMPARE(counted(-1, "request"), std::string("-1 requests"));
        QCOMPARE(counted(1, "entry", "entries"), std::string("1 entry"));
        QCOMPARE(counted(1000000, "entry", "entries"), std::string("1,000,000 entries"));
    }

    void csvField_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "" << "";
        QTest::newRow("plain") << "token_bucket" << "token_bucket";
        QTest::newRow("spaces and a tab stay bare") << " a\tb " << " a\tb ";
        QTest::newRow("semicolon stays bare") << "a;b" << "a;b";
        QTest::newRow("comma") << "aimd:initial_limit=3,max=9" << "\"aimd:initial_limit=3,max=9\"";
        QTest::newRow("quote doubled") << "say \"hi\"" << "\"say \"\"hi\"\"\"";
        QTest::newRow("a lone quote") << "\"" << "\"\"\"\"";
        QTest::newRow("LF") << "a\nb" << "\"a\nb\"";
        QTest::newRow("CR") << "a\rb" << "\"a\rb\"";
    }
    void csvField()
    {
        QFETCH(QString, field);
        QFETCH(QString, text);
        const std::string f = field.toStdString();
        QCOMPARE(q(ratelab::csvField(f)), text);
        QCOMPARE(csvNeedsQuotes(f), text != field);
    }

    // What a message quotes of an input: control bytes written out, the rest as it is (UTF-8
    // too), cut after `most` bytes.
    void messageText()
    {
        using ratelab::messageText;
        QCOMPARE(messageText("zone=one"), std::string("zone=one"));
        QCOMPARE(messageText(std::string("a\nb\0c\x7f\x1f", 7)), std::string("a\\x0Ab\\x00c\\x7F\\x1F"));
        QCOMPARE(messageText("d\xc3\xa9j\xc3\xa0"), std::string("d\xc3\xa9j\xc3\xa0")); // "déjà"
        QCOMPARE(messageText("abcdef", 3), std::string("abc..."));
        QCOMPARE(messageText("abc", 3), std::string("abc"));
        QCOMPARE(messageText(std::string(500, 'x')).size(), ratelab::kMessageQuote + 3);
        QCOMPARE(messageText(std::string(3, '\0'), 8), std::string("\\x00\\x00...")); // never half an escape
    }
};

QTEST_GUILESS_MAIN(TestText)
#include "tst_text.moc"
