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

// Six requests of 192.0.2.1 (an nginx log with $msec) at 0, 0.5, 1, 1.999, 3 and 3.4 s, all in
// the hour 2000-01-01T00 (946684800 s since 1970 is hour 262968).
const QByteArray kSixRequests = "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684800.000\n"
                                "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684800.500\n"
                                "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684801.000\n"
                                "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684801.999\n"
                                "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684803.000\n"
                                "192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 946684803.400\n";
const QByteArray kOnePerSecond = "limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s;\n"
                                 "server { location / { limit_req zone=z; } }\n";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(name));
    return f.fileName();
}

// reportPage runs `ratelab replay` with --html over the six requests and returns the page (empty
// when the command failed).
QString reportPage(const QTemporaryDir& dir, const QByteArray& conf, const QByteArray& against = {})
{
    const QString page = dir.filePath("report.html");
    QStringList args{"replay", writeFile(dir, "a.log", kSixRequests), "--config", writeFile(dir, "a.conf", conf), "--html", page};
    if (!against.isEmpty())
        args << "--against" << writeFile(dir, "b.conf", against);
    const Run r = runRatelab(args);
    if (r.code != 0 || !r.out.isEmpty())
        qWarning("replay --html: %d %s", r.code, r.err.constData());
    return r.code == 0 ? QString::fromUtf8(readAll(page)) : QString();
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

    // checks a dry run's page against nginx's rule (semantics.md, nginx_limit_req): rate 1r/s is
    // 1000 thousandths, burst 0, so a request is rejected iff excess = max(0, excess - 1000 * ms /
    // 1000 + 1000) > 0, and a rejected one changes nothing. 0 s: the first, excess 0, admitted;
    // 0.5 s: 500 ms after it, excess 500, denied; 1 s: 1000 ms, excess 0, admitted; 1.999 s: 999
    // ms, excess 1, denied; 3 s: 2000 ms, excess 0, admitted; 3.4 s: 400 ms, excess 600, denied.
    // So 3 of 6 denied, of the one key, first at 0.5 s, all in hour 262968: one bar.
    void aDryRunPageStatesTheCountsByHand()
    {
        QTemporaryDir dir;
        const QString page = reportPage(dir, kOnePerSecond);
        checkSelfContained(page.toUtf8());
        QVERIFY(page.contains("<p class=\"headline\"><strong>denied 3 of 6 requests; every rule replayed</strong></p>"));
        QVERIFY(!page.contains("not-replayed"));
        QVERIFY(page.contains("<tr><th scope=\"row\">limit_req zone=z (line 2)</th><td>yes</td><td data-v=\"6\">6</td>"
                              "<td data-v=\"3\">3</td><td data-v=\"1\">1</td><td data-v=\"262968\">2000-01-01T00:00:00Z</td>"
                              "<td data-v=\"3\">3</td></tr>"));
        QVERIFY(page.contains("<tr><th scope=\"row\">192.0.2.1</th><td data-v=\"3\">3</td><td data-v=\"500000000\">0.5</td></tr>")); // sorted in ns
        // One chart, one bar: the hour's 3 denials.
        const QStringList charts = between(page, "<figure><svg", "</svg>");
        QCOMPARE(charts.size(), 1);
        QCOMPARE(charts[0].count("<rect"), 1);
        QVERIFY(charts[0].contains("<title>2000-01-01T00:00:00Z: 3 denied</title>"));
        // Every column header is a button, its sort said for a screen reader.
        const QStringList heads = between(page, "<th scope=\"col\"", "</th>");
        QVERIFY(heads.size() >= 10);
        for (const QString& head : heads)
            QVERIFY2(head.contains(QRegularExpression(R"re(^ aria-sort="(none|descending)"><button type="button">)re")), qPrintable(head));
    }

    // checks a partial run: a second zone keyed by $http_x_api_key, a field the $msec log does not
    // have, is not replayed; the page says so before any count, and the zone z replayed alone
    // denies the same 3 of 6 as above.
    void aPartialDryRunSaysSoFirst()
    {
        QTemporaryDir dir;
        const QString page = reportPage(dir, "limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s;\n"
                                             "limit_req_zone $http_x_api_key zone=k:1m rate=1r/m;\n"
                                             "server { location / { limit_req zone=z; limit_req zone=k; } }\n");
        const qsizetype notReplayed = page.indexOf("<section id=\"not-replayed\"");
        QVERIFY(notReplayed > 0);
        QVERIFY(between(page, "<section id=\"not-replayed\"", "</section>").value(0).contains("limit_req zone=k (line 3)"));
        for (const char* count : {"<p class=\"headline\">", "<table", "<figure"})
            QVERIFY2(page.indexOf(count) > notReplayed, count);
        QVERIFY(page.contains("<p class=\"headline\"><strong>NOT COMPLETE: "));
        QVERIFY(page.contains("the 1 replayed rule denied 3 of 6 requests</strong>"));
    }

    // checks the diff against 2r/s (2000 thousandths: excess = max(0, excess - 2 * ms + 1000)):
    // 0 s admitted; 0.5 s, 500 ms: 0, admitted; 1 s, 500 ms: 0, admitted; 1.999 s: 0, admitted;
    // 3 s: admitted; 3.4 s, 400 ms: 200, denied. The current (above) denies 0.5, 1.999 and 3.4
    // s: denied by both 1 (3.4 s), only by the current 2, only by the proposed 0, admitted by
    // both 3 (0, 1, 3 s); one key each where there are any.
    void aDiffPageHasTheFourCounts()
    {
        QTemporaryDir dir;
        const QString page = reportPage(dir, kOnePerSecond, "limit_req_zone $binary_remote_addr zone=z:1m rate=2r/s;\n"
                                                            "server { location / { limit_req zone=z; } }\n");
        QVERIFY(page.contains("current: denied 3 of 6 requests; every rule replayed; proposed: denied 1 of 6 requests; "
                              "every rule replayed"));
        QVERIFY(page.contains("<tr><th scope=\"row\">Admitted by both</th><td data-v=\"3\">3</td><td data-v=\"1\">1</td></tr>"
                              "<tr><th scope=\"row\">Denied by both</th><td data-v=\"1\">1</td><td data-v=\"1\">1</td></tr>"
                              "<tr><th scope=\"row\">Denied only by the current</th><td data-v=\"2\">2</td><td data-v=\"1\">1</td></tr>"
                              "<tr><th scope=\"row\">Denied only by the proposed</th><td data-v=\"0\">0</td><td data-v=\"0\">0</td></tr>"));
    }

    // checks that a report holds aggregates only: a million requests over 30 days (one every 2.592
    // s), every other one from 198.51.100.1 (every 5.184 s, against 1r/m: denied in every hour)
    // and the others from 1,000 keys (every 2,592 s: none denied), make a page of 720 hourly bars
    // and the top key, under 2 MB.
    void aMillionLineLogMakesAPageUnderTwoMegabytes()
    {
        QTemporaryDir dir;
        QByteArray log;
        log.reserve(60'000'000);
        for (int i = 0; i < 1'000'000; ++i) {
            const qint64 ms = 946684800'000LL + qint64(i) * 2592;
            const QByteArray ip = i % 2 == 0 ? QByteArray("198.51.100.1")
                                             : "10.0." + QByteArray::number(i / 2 % 1000 / 250) + "." + QByteArray::number(i / 2 % 250);
            log += ip + " \"GET /a HTTP/1.1\" 200 0.004 "
                 + QByteArray::number(ms / 1000) + "." + QByteArray::number(ms % 1000).rightJustified(3, '0') + "\n";
        }
        const QString page = dir.filePath("big.html");
        const QString conf = writeFile(dir, "big.conf", "limit_req_zone $binary_remote_addr zone=z:10m rate=1r/m;\n"
                                                        "server { location / { limit_req zone=z; } }\n");
        const Run r = runRatelab({"replay", writeFile(dir, "big.log", log), "--config", conf, "--html", page});
        QCOMPARE(r.code, 0);
        QCOMPARE(between(QString::fromUtf8(readAll(page)), "<figure><svg", "</svg>").value(0).count("<rect"), 720);
        qInfo("a million requests over 30 days: %lld bytes", QFileInfo(page).size());
        QVERIFY(QFileInfo(page).size() < 2'000'000);
    }

    // checks that a dry run that fails (its config missing) leaves an old page as it was.
    void aFailedReportKeepsTheOldPage()
    {
        QTemporaryDir dir;
        const QString page = writeFile(dir, "report.html", "the old page");
        const Run r = runRatelab({"replay", writeFile(dir, "a.log", kSixRequests), "--config", dir.filePath("none.conf"), "--html", page});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QCOMPARE(readAll(page), QByteArray("the old page"));
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
        QTest::newRow("replay html without config") << QStringList{"replay", "x.log", "--html", "@"}
                                                    << "--html: a page is of a dry run: give --config FILE";
        QTest::newRow("replay html and format") << QStringList{"replay", "x.log", "--config", "x.conf", "--html", "@", "--format", "csv"}
                                                << "--format: the report goes to the --html page; give one of them";
        QTest::newRow("replay, empty html") << QStringList{"replay", "x.log", "--config", "x.conf", "--html", ""}
                                            << "--html: no file name given";
        QTest::newRow("replay html a directory") << QStringList{"replay", "x.log", "--config", "x.conf", "--html", "/"}
                                                 << "--html: cannot write /: it is a directory, not a regular file";
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
