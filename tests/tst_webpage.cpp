// `ratelab export --html` and `ratelab deck --html`, run as real processes: one self-contained
// page, a row's SVG each, each mark's words beside it, and a veiled step's decisions nowhere in
// the page's text.
#include "cli_run.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using clitest::Run;
using clitest::runRatelab;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// between lists the texts between each `open` and the next `close`.
QStringList between(const QString& text, const QString& open, const QString& close)
{
    QStringList out;
    for (qsizetype at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
        const qsizetype from = at + open.size();
        out << text.mid(from, text.indexOf(close, from) - from);
    }
    return out;
}

// marksOf are the marks stored beside each row's picture, unpacked as the page's script does
// (base64, then inflated): [x, y, words] each.
std::vector<QJsonArray> marksOf(const QString& page)
{
    std::vector<QJsonArray> rows;
    for (const QString& data : between(page, "<script type=\"application/octet-stream\" class=\"marks\">", "</script>"))
        rows.push_back(QJsonDocument::fromJson(qUncompress(QByteArray::fromBase64(data.toLatin1()))).array());
    return rows;
}

// selfContained fails on whatever a browser would fetch: a stylesheet, a script or an image
// from elsewhere (data: URLs inside the SVG are part of the file).
void checkSelfContained(const QByteArray& page)
{
    static const QRegularExpression fetched(R"((src|href)\s*=\s*["']?\s*(https?:|//))", QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression link(R"(<link\b)", QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression script(R"(<script\b[^>]*\bsrc\s*=)", QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression import(R"(@import|url\(\s*["']?(https?:|//))", QRegularExpression::CaseInsensitiveOption);
    const QString text = QString::fromUtf8(page);
    QVERIFY2(!fetched.match(text).hasMatch(), qPrintable(fetched.match(text).captured(0)));
    QVERIFY(!link.match(text).hasMatch());
    QVERIFY(!script.match(text).hasMatch());
    QVERIFY(!import.match(text).hasMatch());
    QVERIFY(text.startsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
    QVERIFY(text.contains("<title>"));
    QVERIFY(text.contains("<h1>"));
}

// unseal decodes a step's sealed decisions as the page's script does: base64, XOR with the
// page's key, then inflated.
QString unseal(const QString& page, const QString& sealed)
{
    const QByteArray key = QByteArray::fromBase64(between(page, "data-key=\"", "\"").value(0).toLatin1());
    QByteArray bytes = QByteArray::fromBase64(sealed.toLatin1());
    for (qsizetype i = 0; i < bytes.size() && !key.isEmpty(); ++i)
        bytes[i] = char(bytes[i] ^ key[i % key.size()]);
    return QString::fromUtf8(qUncompress(bytes));
}

} // namespace

class TestWebPage : public QObject {
    Q_OBJECT
private slots:
    // checks a tiny scenario's page: a section and an SVG per row, and a mark per request with
    // What happened's words. By hand: 5 requests 0.1 s apart from 0 s against 3 per 10 s. The
    // fixed window counts all five in [0 s, 10 s): it admits the first 3 and denies the 4th
    // (3 of 3 used; the next window opens at 10 s, 10 - 0.3 = 9.7 s later) and the 5th. The token
    // bucket (capacity 3, 3 per 10 s = 0.3 a second) starts full: 3 -> 2, then 2.03 -> 1.03,
    // 1.06 -> 0.06 admitted; 0.09 and 0.12 tokens at 0.3 s and 0.4 s: both denied.
    void aScenarioPageHasARowSvgAndAMarkPerRequest()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("tiny.html");
        const Run r = runRatelab({"export", "--algorithms", "fixed_window,token_bucket", "--limit", "3", "--window", "10",
                                  "--n", "5", "--delay", "0.1", "--html", path});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QByteArray bytes = readAll(path);
        checkSelfContained(bytes);
        const QString page = QString::fromUtf8(bytes);
        const QStringList sections = between(page, "<section class=\"row\"", "</section>");
        QCOMPARE(sections.size(), 2);
        for (const QString& s : sections)
            QCOMPARE(s.count("<svg"), 1);
        const std::vector<QJsonArray> rows = marksOf(page);
        QCOMPARE(rows.size(), std::size_t(2));
        for (const QJsonArray& marks : rows) {
            QCOMPARE(marks.size(), 5);
            int admitted = 0, denied = 0;
            for (qsizetype i = 0; i < marks.size(); ++i) {
                const QString words = marks[i].toArray()[2].toString();
                QVERIFY(words.startsWith(QString("Request %1 of 5").arg(i + 1)));
                admitted += words.contains("-> admitted");
                denied += words.contains("-> denied");
                QCOMPARE(words.contains("-> admitted"), i < 3);
                if (i > 0) // a mark per request at its time, left to right
                    QVERIFY(marks[i].toArray()[0].toDouble() > marks[i - 1].toArray()[0].toDouble());
            }
            QCOMPARE(admitted, 3);
            QCOMPARE(denied, 2);
            // The denied lane is below the admitted one.
            QVERIFY(marks[3].toArray()[1].toDouble() > marks[0].toArray()[1].toDouble());
        }
        QVERIFY(rows[0][3].toArray()[2].toString().contains(
            "3 of 3 used in window [0 s, 10 s) -> denied, retry in 9.700 s when window [10 s, 20 s) opens"));
        // Keyboard: each row with marks is one Tab stop, its marks named to a screen reader.
        QCOMPARE(page.count("<div class=\"plot\" tabindex=\"0\""), 2);
    }

    // checks a row with more requests than room for a mark each: its explanations per pixel
    // column, whose counts add up to every request in view. By hand: 3000 requests 1 ms apart
    // from 0 s; the view ends after 2.999 s plus the recovery, so all 3000 are in it; 3000 is
    // more than a mark every 3 pixels on a 1280-pixel-wide page.
    void aCrowdedRowStoresCountsPerColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("crowd.html");
        const Run r = runRatelab({"export", "--algorithms", "fixed_window", "--limit", "100", "--window", "1", "--n", "3000",
                                  "--delay", "0.001", "--width", "1280", "--height", "720", "--html", path});
        QCOMPARE(r.code, 0);
        const QString page = QString::fromUtf8(readAll(path));
        const std::vector<QJsonArray> rows = marksOf(page);
        QCOMPARE(rows.size(), std::size_t(1));
        QVERIFY(rows[0].size() < 1280);
        static const QRegularExpression counts(R"(: (\d+) admitted at once, (\d+) delayed, (\d+) denied; the first:\n)");
        qint64 admitted = 0, all = 0;
        for (const QJsonValue& m : rows[0]) {
            const QRegularExpressionMatch c = counts.match(m.toArray()[2].toString());
            QVERIFY2(c.hasMatch(), qPrintable(m.toArray()[2].toString()));
            admitted += c.captured(1).toLongLong();
            all += c.captured(1).toLongLong() + c.captured(2).toLongLong() + c.captured(3).toLongLong();
        }
        QCOMPARE(all, 3000);
        // The first column starts with request 1 at 0 s, admitted: its words end with the 200.
        QVERIFY(rows[0][0].toArray()[2].toString().contains("Request 1 of 3000\nt = 0.000 s: fixed window: 0 of 100 used"));
        QVERIFY(rows[0][0].toArray()[2].toString().contains("HTTP/1.1 200 OK"));
        // 100 per second over the 3 windows [0 s, 1 s), [1 s, 2 s), [2 s, 3 s): 300 admitted.
        QCOMPARE(admitted, 300);
    }

    // checks the size a page may have: 100,000 requests in the seven rows of seed-compare, at
    // random (Poisson: its bars alternate the most), under 5 MB.
    void aHundredThousandRequestsFitInFiveMegabytes()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("big.html");
        QCOMPARE(runRatelab({"export", "--preset", "seed-compare", "--n", "100000", "--pattern", "poisson", "--html", path}).code, 0);
        const qint64 size = QFileInfo(path).size();
        qInfo("100,000 Poisson requests, seven rows: %lld bytes", size);
        QVERIFY(size > 0 && size < 5'000'000);
    }

    // checks that a veiled step's decisions are nowhere in the page until revealed. The deck's
    // first step asks how many of 32 requests a token bucket admits; its answer (worked out in
    // the deck: 4 + 3 + 6 x 2 = 19) is 19, so its row's counts read "19 admitted · 13 denied".
    void aDeckPageKeepsTheAnswerSealed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("deck.html");
        const Run r = runRatelab({"deck", "buckets-burst-now", "--html", path});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        const QByteArray bytes = readAll(path);
        checkSelfContained(bytes);
        const QString page = QString::fromUtf8(bytes);
        QCOMPARE(page.count("<section class=\"step\""), 4);
        QVERIFY(page.contains("How many of the 32 requests pass?"));
        for (const char* secret : {"19 admitted", "13 denied", "4 + 3 + 6 x 2 = 19", "24 admitted"})
            QVERIFY2(!bytes.contains(secret), secret);
        const QStringList sealed = between(page, "<script type=\"application/octet-stream\" class=\"sealed\">", "</script>");
        QCOMPARE(sealed.size(), 4); // every step from the first question on
        for (const QString& block : sealed) // not plain base64 either: a decoder site would show it
            QVERIFY(!QByteArray::fromBase64(block.toLatin1()).contains("19 admitted"));
        const QString first = unseal(page, sealed[0]);
        QVERIFY(first.contains("19 admitted · 13 denied"));
        QVERIFY(first.contains("4 + 3 + 6 x 2 = 19"));
        QVERIFY(unseal(page, sealed[3]).contains("24 admitted"));

        const QString questions = dir.filePath("questions.html");
        QCOMPARE(runRatelab({"deck", "buckets-burst-now", "--html", questions, "--no-answers"}).code, 0);
        const QByteArray asked = readAll(questions);
        checkSelfContained(asked);
        QVERIFY(asked.contains("How many of the 32 requests pass?"));
        QVERIFY(!asked.contains("class=\"sealed\""));
        for (const char* secret : {"19 admitted", "13 denied", "4 + 3 + 6 x 2 = 19", "24 admitted"})
            QVERIFY2(!asked.contains(secret), secret);
        const QStringList rows = between(QString::fromUtf8(asked), "<section class=\"row\"", "</section>");
        QVERIFY(!rows.isEmpty());
        for (const QString& row : rows)
            QVERIFY(row.contains("decisions hidden"));
    }

    // checks the refusals: exit 2, one line, nothing written.
    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("scale without png") << QStringList{"export", "--html", "@", "--scale", "2"}
                                           << "export: --scale is for --png; an --html page's charts are drawn as SVG";
        QTest::newRow("empty html") << QStringList{"export", "--html", ""} << "export: --html needs a file name";
        QTest::newRow("one file twice") << QStringList{"export", "--html", "@", "--png", "@"}
                                        << "export: --png and --html name the same file";
        QTest::newRow("deck, empty html") << QStringList{"deck", "fixed-window-2x", "--html", ""} << "deck: --html needs a file name";
        QTest::newRow("deck, one file twice") << QStringList{"deck", "fixed-window-2x", "--html", "@", "--pdf", "@"}
                                              << "deck: --pdf and --html name the same file";
    }
    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath("out");
        args.replaceInStrings(QRegularExpression("^@$"), out);
        const Run r = runRatelab(args);
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(QString::fromUtf8(r.err), "ratelab: " + message + "\n");
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestWebPage)
#include "tst_webpage.moc"
