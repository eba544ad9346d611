// Exact decimal parsing and formatting (decimal.h, nanos.h, rate.h) and LimiterConfig::make.
//
// Expected values are worked out by hand: seconds * 1e9 for nanoseconds, and a rate of m per
// second as the fraction m / 1e9 per ns reduced by the gcd (2.5/s = 25 / 1e10 = 1 / 4e8).
#include "limiters/config.h"
#include "arithmetic/decimal.h"

#include <QTest>

#include <optional>

using namespace ratelab;

namespace {

constexpr Nanos kSecond = kNanosPerSecond;

// errorOf runs f and returns the InputError message it throws, or an empty string.
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

// CHECK_REFUSED verifies that `call` throws an InputError whose message contains `fragment`.
#define CHECK_REFUSED(call, fragment)                                                                                \
    do {                                                                                                             \
        const QString message = errorOf([&] { (void)(call); });                                                      \
        QVERIFY2(!message.isEmpty(), "no InputError was thrown");                                                    \
        QVERIFY2(message.contains(fragment), qPrintable("message: " + message));                                     \
    } while (false)

} // namespace

class TestDecimal : public QObject {
    Q_OBJECT
private slots:
    void parseSeconds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Nanos>("nanos");
        QTest::newRow("0.1") << "0.1" << Nanos(100'000'000);
        QTest::newRow("9.5") << "9.5" << Nanos(9'500'000'000);
        QTest::newRow("1e-3") << "1e-3" << Nanos(1'000'000);
        QTest::newRow("2.5e3") << "2.5e3" << Nanos(2'500 * kSecond);
        QTest::newRow("2.5e+3") << "2.5e+3" << Nanos(2'500 * kSecond);
        QTest::newRow("25e-1") << "25e-1" << Nanos(2'500'000'000);
        QTest::newRow("1E3") << "1E3" << Nanos(1'000 * kSecond);
        QTest::newRow("+1") << "+1" << kSecond;
        QTest::newRow(".5") << ".5" << Nanos(500'000'000);
        QTest::newRow("1.") << "1." << kSecond;
        QTest::newRow("0") << "0" << Nanos(0);
        QTest::newRow("-0") << "-0" << Nanos(0);
        QTest::newRow("one ns") << "0.000000001" << Nanos(1);
        QTest::newRow("1e-9") << "1e-9" << Nanos(1);
        QTest::newRow("zeros past the ninth decimal") << "1.0000000000" << kSecond;
        QTest::newRow("0.0000000010") << "0.0000000010" << Nanos(1);
        QTest::newRow("leading zeros") << "00012.50" << Nanos(12'500'000'000);
        QTest::newRow("negative is returned as is") << "-1.5" << Nanos(-1'500'000'000);
        QTest::newRow("all nine decimals") << "123456789.123456789" << Nanos(123'456'789'123'456'789);
        QTest::newRow("largest") << "9223372036.854775807" << kMaxNanos;
    }

    // checks that decimal seconds become exact nanoseconds, never through a double.
    void parseSeconds()
    {
        QFETCH(QString, text);
        QFETCH(Nanos, nanos);
        QCOMPARE(ratelab::parseSeconds(text.toStdString()), nanos);
    }

    void parseSecondsRefuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        const QString fine = "finer than one nanosecond", nan = "is not a number", large = "too large";
        QTest::newRow("1.0000000001") << "1.0000000001" << fine;
        QTest::newRow("1e-10") << "1e-10" << fine;
        QTest::newRow("half a ns") << "0.0000000005" << fine;
        QTest::newRow("abc") << "abc" << nan;
        QTest::newRow("empty") << "" << nan;
        QTest::newRow("1e") << "1e" << nan;
        QTest::newRow("1e+") << "1e+" << nan;
        QTest::newRow("e3") << "e3" << nan;
        QTest::newRow("--1") << "--1" << nan;
        QTest::newRow("1..2") << "1..2" << nan;
        QTest::newRow(".") << "." << nan;
        QTest::newRow("leading space") << " 1" << nan;
        QTest::newRow("trailing space") << "1 " << nan;
        QTest::newRow("unit") << "1s" << nan;
        QTest::newRow("hex") << "0x10" << nan;
        QTest::newRow("inf") << "inf" << nan;
        QTest::newRow("1e20") << "1e20" << large;                    // 1e29 ns
        QTest::newRow("1e11") << "100000000000" << large;            // 1e20 ns
        QTest::newRow("1 ns past the largest") << "9223372036.854775808" << large;
        QTest::newRow("1e400") << "1e400" << large;
    }

    // checks that anything not a plain decimal, finer than 1 ns or beyond Nanos is refused.
    void parseSecondsRefuses()
    {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        CHECK_REFUSED(ratelab::parseSeconds(text.toStdString()), fragment);
    }

    void parseRate_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::int64_t>("tokens");
        QTest::addColumn<Nanos>("perNanos");
        QTest::newRow("1") << "1" << std::int64_t(1) << Nanos(1'000'000'000);
        QTest::newRow("2.5 = 25/1e10") << "2.5" << std::int64_t(1) << Nanos(400'000'000);
        QTest::newRow("0.1 = 1/1e10") << "0.1" << std::int64_t(1) << Nanos(10'000'000'000);
        QTest::newRow("1e-3 = 1/1e12") << "1e-3" << std::int64_t(1) << Nanos(1'000'000'000'000);
        QTest::newRow("10 = 10/1e9") << "10" << std::int64_t(1) << Nanos(100'000'000);
        QTest::newRow("3 = 3/1e9") << "3" << std::int64_t(3) << Nanos(1'000'000'000);
        QTest::newRow("0.75 = 75/1e11") << "0.75" << std::int64_t(3) << Nanos(4'000'000'000);
        QTest::newRow("7.000 = 7000/1e12") << "7.000" << std::int64_t(7) << Nanos(1'000'000'000);
        QTest::newRow("1e9 = 1/ns") << "1e9" << std::int64_t(1) << Nanos(1);
        QTest::newRow("2.5e9 = 25e8/1e9") << "2.5e9" << std::int64_t(5) << Nanos(2);
    }

    // checks that a rate is held exactly as tokens / perNanos in lowest terms.
    void parseRate()
    {
        QFETCH(QString, text);
        QFETCH(std::int64_t, tokens);
        QFETCH(Nanos, perNanos);
        const Rate r = ratelab::parseRate(text.toStdString());
        QCOMPARE(r.tokens, tokens);
        QCOMPARE(r.perNanos, perNanos);
    }

    void parseRateRefuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("0") << "0" << "must be greater than 0";
        QTest::newRow("0.0") << "0.0" << "must be greater than 0";
        QTest::newRow("-1") << "-1" << "must be greater than 0";
        QTest::newRow("-0.5") << "-0.5" << "must be greater than 0";
        QTest::newRow("abc") << "abc" << "is not a number";
        QTest::newRow("empty") << "" << "is not a number";
        QTest::newRow("1e-30") << "1e-30" << "too small";
        // 1e28 per s = 1e19 per ns: more tokens than an int64 holds.
        QTest::newRow("1e28") << "1e28" << "too large";
        // 10000000001 / 1e19 is already in lowest terms (no factor 2 or 5 on top): the
        // denominator 1e19 ns is beyond an int64.
        QTest::newRow("1.0000000001") << "1.0000000001" << "too finely divided";
    }

    // checks that a rate of 0, a negative rate or one that cannot be held exactly is refused.
    void parseRateRefuses()
    {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        CHECK_REFUSED(ratelab::parseRate(text.toStdString()), fragment);
    }

    // checks parseInteger (either sign) and parseCount (0 .. max) on values and refusals.
    void integers()
    {
        QCOMPARE(parseInteger("12"), std::int64_t(12));
        QCOMPARE(parseInteger("-3"), std::int64_t(-3));
        QCOMPARE(parseInteger("+7"), std::int64_t(7));
        QCOMPARE(parseInteger("1e3"), std::int64_t(1000));
        QCOMPARE(parseInteger("2.5e1"), std::int64_t(25));
        QCOMPARE(parseInteger("1.0"), std::int64_t(1));
        QCOMPARE(parseInteger("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
        QCOMPARE(parseInteger("-9223372036854775807"), -std::numeric_limits<std::int64_t>::max());
        CHECK_REFUSED(parseInteger("1.5"), "not a whole number");
        CHECK_REFUSED(parseInteger("1e-1"), "not a whole number");
        CHECK_REFUSED(parseInteger("x"), "not a number");
        CHECK_REFUSED(parseInteger(""), "not a number");
        CHECK_REFUSED(parseInteger("9223372036854775808"), "too large");
        CHECK_REFUSED(parseInteger("1e19"), "too large");

        QCOMPARE(parseCount("12", 100), std::int64_t(12));
        QCOMPARE(parseCount("0", 100), std::int64_t(0));
        QCOMPARE(parseCount("100", 100), std::int64_t(100));
        QCOMPARE(parseCount("1e2", 100), std::int64_t(100));
        QCOMPARE(parseCount("3.0", 5), std::int64_t(3));
        CHECK_REFUSED(parseCount("101", 100), "too large (at most 100)");
        CHECK_REFUSED(parseCount("1e30", 100), "too large");
        CHECK_REFUSED(parseCount("-1", 100), "must not be negative");
        CHECK_REFUSED(parseCount("2.5", 100), "not a whole number");
        CHECK_REFUSED(parseCount("x", 100), "not a number");
    }

    void formatSeconds_data()
    {
        QTest::addColumn<Nanos>("nanos");
        QTest::addColumn<QString>("text");
        QTest::newRow("0") << Nanos(0) << "0";
        QTest::newRow("0.1") << Nanos(100'000'000) << "0.1";
        QTest::newRow("1.23") << Nanos(1'230'000'000) << "1.23";
        QTest::newRow("10, no point") << 10 * kSecond << "10";
        QTest::newRow("120 keeps its zeros") << 120 * kSecond << "120";
        QTest::newRow("one ns") << Nanos(1) << "0.000000001";
        QTest::newRow("1.000000001") << Nanos(1'000'000'001) << "1.000000001";
        QTest::newRow("9.5") << Nanos(9'500'000'000) << "9.5";
        QTest::newRow("7/3 s rounded up") << Nanos(2'333'333'334) << "2.333333334";
        QTest::newRow("-1.5") << Nanos(-1'500'000'000) << "-1.5";
        QTest::newRow("-1 ns") << Nanos(-1) << "-0.000000001";
        QTest::newRow("largest") << kMaxNanos << "9223372036.854775807";
        QTest::newRow("most negative") << -kMaxNanos << "-9223372036.854775807";
    }

    // checks exact formatting with no trailing zeros, and that parseSeconds reads it back.
    void formatSeconds()
    {
        QFETCH(Nanos, nanos);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(ratelab::formatSeconds(nanos)), text);
        QCOMPARE(ratelab::parseSeconds(ratelab::formatSeconds(nanos)), nanos);
    }

    void exactText_data()
    {
        QTest::addColumn<std::int64_t>("tokens");
        QTest::addColumn<Nanos>("perNanos");
        QTest::addColumn<QString>("text");
        // tokens per perNanos ns = tokens * 1e9 / perNanos per second, reduced; a decimal when the
        // denominator has no prime factor but 2 and 5.
        QTest::newRow("3 per 7 s") << std::int64_t(3) << Nanos(7 * kSecond) << "3/7";
        QTest::newRow("7 per 3 s") << std::int64_t(7) << Nanos(3 * kSecond) << "7/3";
        QTest::newRow("1 per 6 s") << std::int64_t(1) << Nanos(6 * kSecond) << "1/6";
        QTest::newRow("1 per 3 ns") << std::int64_t(1) << Nanos(3) << "1000000000/3";
        QTest::newRow("1 per 0.4 s") << std::int64_t(1) << Nanos(400'000'000) << "2.5";
        QTest::newRow("1 per 1000 s") << std::int64_t(1) << Nanos(1000 * kSecond) << "0.001";
        QTest::newRow("1 per 10 s") << std::int64_t(1) << Nanos(10 * kSecond) << "0.1";
        QTest::newRow("1 per 8 s") << std::int64_t(1) << Nanos(8 * kSecond) << "0.125";
        QTest::newRow("3 per 4 s") << std::int64_t(3) << Nanos(4 * kSecond) << "0.75";
        QTest::newRow("1 per s") << std::int64_t(1) << kSecond << "1";
        QTest::newRow("10 per 10 s, unreduced") << std::int64_t(10) << Nanos(10 * kSecond) << "1";
        QTest::newRow("1 per ns") << std::int64_t(1) << Nanos(1) << "1000000000";
        QTest::newRow("5 per 2 ns") << std::int64_t(5) << Nanos(2) << "2500000000";
        // Long expansions. 1 per 2^48 ns: 1e9 / 2^48 = 5^9 / 2^39 = 5^48 / 10^39 per s, and
        // 5^48 = 3552713678800500929355621337890625 (34 digits, so 5 zeros after the point).
        QTest::newRow("1 per 2^48 ns") << std::int64_t(1) << (Nanos(1) << 48)
                                       << "0.000003552713678800500929355621337890625";
        // 999999999 per 2^47 ns = 999999999 * 5^9 / 2^38 per s = 1953124998046875 / 2^38: 38
        // decimals, and 1953124998046875 * 5^38 would not fit in 128 bits.
        QTest::newRow("999999999 per 2^47 ns") << std::int64_t(999'999'999) << (Nanos(1) << 47)
                                               << "7105.42735049557450111024081707000732421875";
    }

    // checks Rate::exactText: a decimal when there is one, else a fraction.
    void exactText()
    {
        QFETCH(std::int64_t, tokens);
        QFETCH(Nanos, perNanos);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(Rate{tokens, perNanos}.exactText()), text);
    }

    // checks exactText on rates as they are really made: by a config's default and by parseRate.
    void exactTextOfMadeRates()
    {
        QCOMPARE(LimiterConfig::make(3, 7 * kSecond).rate().exactText(), std::string("3/7"));
        QCOMPARE(ratelab::parseRate("2.5").exactText(), std::string("2.5"));
        QCOMPARE(ratelab::parseRate("0.001").exactText(), std::string("0.001"));
        QCOMPARE(ratelab::parseRate("1e-3").exactText(), std::string("0.001"));
    }

    void configDefaults_data()
    {
        QTest::addColumn<std::int64_t>("limit");
        QTest::addColumn<Nanos>("window");
        QTest::addColumn<std::int64_t>("capacity");
        QTest::addColumn<std::int64_t>("rateTokens");
        QTest::addColumn<Nanos>("ratePer");
        // rate = limit / window reduced by gcd(limit, window ns).
        QTest::newRow("10 per 10 s = 1/s") << std::int64_t(10) << 10 * kSecond << std::int64_t(10) << std::int64_t(1) << kSecond;
        QTest::newRow("3 per 7 s") << std::int64_t(3) << 7 * kSecond << std::int64_t(3) << std::int64_t(3) << 7 * kSecond;
        QTest::newRow("4 per 6 s = 1 per 1.5 s") << std::int64_t(4) << 6 * kSecond << std::int64_t(4) << std::int64_t(1)
                                                 << Nanos(1'500'000'000);
        QTest::newRow("1 per ns") << std::int64_t(1) << Nanos(1) << std::int64_t(1) << std::int64_t(1) << Nanos(1);
        QTest::newRow("kMaxLimit per s") << LimiterConfig::kMaxLimit << kSecond << LimiterConfig::kMaxLimit
                                         << std::int64_t(1) << Nanos(1);
    }

    // checks that make defaults capacity to limit and rate to limit / window, reduced.
    void configDefaults()
    {
        QFETCH(std::int64_t, limit);
        QFETCH(Nanos, window);
        QFETCH(std::int64_t, capacity);
        QFETCH(std::int64_t, rateTokens);
        QFETCH(Nanos, ratePer);
        const LimiterConfig c = LimiterConfig::make(limit, window);
        QCOMPARE(c.limit(), limit);
        QCOMPARE(c.windowNanos(), window);
        QCOMPARE(c.capacity(), capacity);
        QCOMPARE(c.rate().tokens, rateTokens);
        QCOMPARE(c.rate().perNanos, ratePer);
    }

    // checks explicit capacity and rate (the rate reduced), and the documented default config.
    void configExplicit()
    {
        const LimiterConfig c = LimiterConfig::make(10, 10 * kSecond, 5, Rate{2, 4 * kSecond});
        QCOMPARE(c.capacity(), std::int64_t(5));
        QCOMPARE(c.rate(), (Rate{1, 2 * kSecond}));
        QCOMPARE(LimiterConfig::make(10, 10 * kSecond, LimiterConfig::kMaxLimit).capacity(), LimiterConfig::kMaxLimit);
        QVERIFY(LimiterConfig() == LimiterConfig::make(10, 10 * kSecond));
    }

    // checks that every out-of-range value is refused with an InputError naming it.
    void configRefuses()
    {
        const std::int64_t max = LimiterConfig::kMaxLimit;
        CHECK_REFUSED(LimiterConfig::make(0, kSecond), "limit must be at least 1");
        CHECK_REFUSED(LimiterConfig::make(-1, kSecond), "limit must be at least 1");
        CHECK_REFUSED(LimiterConfig::make(max + 1, kSecond), "limit must be at most");
        CHECK_REFUSED(LimiterConfig::make(10, 0), "window must be greater than 0");
        CHECK_REFUSED(LimiterConfig::make(10, -kSecond), "window must be greater than 0");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, 0), "capacity must be at least 1");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, -3), "capacity must be at least 1");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, max + 1), "capacity must be at most");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, std::nullopt, Rate{0, kSecond}), "rate must be greater than 0");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, std::nullopt, Rate{-1, kSecond}), "rate must be greater than 0");
        CHECK_REFUSED(LimiterConfig::make(10, kSecond, std::nullopt, Rate{1, 0}), "rate must be greater than 0");
    }

    // checks parseIntegerIn: the value in range, and messages that state the bound and the value
    // as typed, however far out of range or malformed it is.
    void integerInRange_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("min");
        QTest::addColumn<qint64>("max");
        QTest::addColumn<QString>("result"); // the value, or the message
        const qint64 big = std::numeric_limits<qint64>::max();
        QTest::newRow("in range") << "7" << qint64(1) << qint64(10) << "7";
        QTest::newRow("min") << "1" << qint64(1) << qint64(10) << "1";
        QTest::newRow("max") << "1e1" << qint64(1) << qint64(10) << "10";
        QTest::newRow("1.0 is whole") << "1.0" << qint64(1) << qint64(10) << "1";
        QTest::newRow("-0") << "-0" << qint64(0) << qint64(10) << "0";
        QTest::newRow("0") << "0" << qint64(1) << qint64(10) << "must be at least 1 (got 0)";
        QTest::newRow("negative") << "-1" << qint64(1) << qint64(10) << "must be at least 1 (got -1)";
        QTest::newRow("too large") << "11" << qint64(1) << qint64(10) << "must be at most 10 (got 11)";
        QTest::newRow("1e30") << "1e30" << qint64(1) << qint64(1'000'000'000) << "must be at most 1000000000 (got 1e30)";
        QTest::newRow("-1e30") << "-1e30" << qint64(0) << qint64(10) << "must be at least 0 (got -1e30)";
        QTest::newRow("1e99999999") << "1e99999999" << qint64(0) << big
                                    << "must be at most 9223372036854775807 (got 1e99999999)";
        QTest::newRow("int64 max") << "9223372036854775807" << qint64(0) << big << "9223372036854775807";
        QTest::newRow("int64 max + 1") << "9223372036854775808" << qint64(0) << big
                                       << "must be at most 9223372036854775807";
        QTest::newRow("fraction") << "1.5" << qint64(1) << qint64(10) << "'1.5' is not a whole number";
        QTest::newRow("tiny fraction") << "1e-99999" << qint64(0) << qint64(10) << "'1e-99999' is not a whole number";
        QTest::newRow("word") << "ten" << qint64(1) << qint64(10) << "'ten' is not a number";
        QTest::newRow("empty") << "" << qint64(1) << qint64(10) << "'' is not a number";
    }

    void integerInRange()
    {
        QFETCH(QString, text);
        QFETCH(qint64, min);
        QFETCH(qint64, max);
        QFETCH(QString, result);
        const QString message = errorOf([&] { (void)parseIntegerIn(text.toStdString(), min, max); });
        if (message.isEmpty())
            QCOMPARE(QString::number(parseIntegerIn(text.toStdString(), min, max)), result);
        else
            QVERIFY2(message.contains(result), qPrintable(message));
    }

    // checks that "too large" and "too small" state the cap, so a user knows what is allowed.
    void messagesStateTheCap()
    {
        CHECK_REFUSED(ratelab::parseSeconds("1e30"), "'1e30' is too large (at most 9223372036.854775807 s, about 292 years)");
        CHECK_REFUSED(ratelab::parseRate("1e30"), "'1e30' is too large (at most 9223372036854775807 per nanosecond)");
        CHECK_REFUSED(ratelab::parseRate("1e-30"), "'1e-30' is too small (at least 1 per 9223372036.854775807 s)");
        CHECK_REFUSED(ratelab::parseRate("1e-11"), "too small (at least 1 per 9223372036.854775807 s)");
        CHECK_REFUSED(ratelab::parseRate("0"), "must be greater than 0 (got 0)");
        CHECK_REFUSED(ratelab::parseRate("-2.5"), "must be greater than 0 (got -2.5)");
        CHECK_REFUSED(parseCount("1e30", 100), "too large (at most 100)");
        CHECK_REFUSED(parseInteger("1e30"), "too large (at most 9223372036854775807");
    }

    // checks values at and past the edges of what the parser holds: huge exponents, long texts,
    // many zeros, and equal values spelled differently.
    void extremeSpellings()
    {
        // Trailing zeros do not count against the digits or the exponent: this is 1 per second.
        const Rate one = ratelab::parseRate("1000000000000000000000000000000e-30");
        QCOMPARE(one.tokens, std::int64_t(1));
        QCOMPARE(one.perNanos, kSecond);
        QCOMPARE(ratelab::parseSeconds("0e999999999"), Nanos(0));
        QCOMPARE(ratelab::parseSeconds("0.000000000000000000000000000000000000000000000001e48"), kSecond);
        QCOMPARE(ratelab::parseSeconds("100000000000000000000000000000000000000000e-41"), kSecond);
        CHECK_REFUSED(ratelab::parseSeconds("1e99999999999999999999"), "too large");
        CHECK_REFUSED(ratelab::parseSeconds("1e-99999999999999999999"), "finer than one nanosecond");
        CHECK_REFUSED(ratelab::parseSeconds("1234567890123456789012345678901234567"), "has too many digits");
        CHECK_REFUSED(ratelab::parseSeconds(std::string(1001, '1')), "too long to be a number");
        CHECK_REFUSED(ratelab::parseSeconds("1e+"), "is not a number");
        CHECK_REFUSED(ratelab::parseSeconds("1e-x"), "is not a number");
        CHECK_REFUSED(ratelab::parseSeconds("+"), "is not a number");
        CHECK_REFUSED(ratelab::parseSeconds("-"), "is not a number");
        CHECK_REFUSED(ratelab::parseSeconds(std::string("1\0", 2)), "is not a number");
        // The message shows a NUL or an escape as '?', never the byte itself.
        const QString message = errorOf([] { (void)ratelab::parseSeconds(std::string("\x1b[2J\0", 5)); });
        QVERIFY2(message.startsWith("'?[2J?' is not a number"), qPrintable(message));
        CHECK_REFUSED(ratelab::parseRate("1.0000000000000000000000000001"), "too finely divided");
        CHECK_REFUSED(ratelab::parseRate("1e-300"), "too small");
        CHECK_REFUSED(ratelab::parseRate("1e300"), "too large");
    }
};

QTEST_APPLESS_MAIN(TestDecimal)
#include "tst_decimal.moc"
