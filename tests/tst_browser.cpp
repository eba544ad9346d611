// The pages of `ratelab export --html` and `ratelab deck --html` in real browsers: Debian's
// Chromium and Firefox ESR, headless, driven by tests/browser/page.mjs through npm's
// puppeteer-core (installed into the build tree, as .ci/run does). The page loads with no
// console error and no request leaving the file; the keyboard and the pointer show a mark's
// words; PageDown reveals a deck's step and goes on; a row drawn by the browser is the app's
// drawing of it, within a tolerance stated below; axe-core finds no WCAG 2.1 AA violation.
// Without a browser or the npm packages it skips, unless RATELAB_PEERS=1 (CI), where their
// absence fails.
#include "cli_run.h"
#include "preset_load.h"

#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "chart/rowchart.h"
#include "chart/theme.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <map>

using clitest::Run;
using clitest::runRatelab;

namespace {

const QString kModules = QStringLiteral(RATELAB_NODE_PATH);

// missing names what the browser test needs and this machine lacks (empty: nothing).
QString missing(const QString& browser)
{
    if (QStandardPaths::findExecutable(browser).isEmpty())
        return browser + " (apt-get install " + browser + ")";
    if (QStandardPaths::findExecutable("node").isEmpty())
        return "node";
    for (const char* module : {"puppeteer-core", "axe-core"})
        if (!QDir(kModules + "/" + module).exists())
            return QString("%1 in %2 (npm install --prefix build/npm puppeteer-core axe-core)").arg(module, kModules);
    return {};
}

// Visit is what a browser found on the three pages the tests look at, visited in one start of
// it: the tiny scenario's page, the deck's, and edge-burst's first row drawn at its own size.
struct Visit {
    QJsonObject scenario, deck, shot, report;
    QImage row;
};

// written writes text to path and returns path (a failure shows as the page's absence).
QString written(const QString& path, const QByteArray& text)
{
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path;
}

// visit makes the pages once (ratelab export, ratelab deck) and has page.mjs visit them in
// `browser`, once a run; a failure to run leaves the results empty, and the tests fail on them.
const Visit& visit(const QString& browser)
{
    static QTemporaryDir dir;
    static std::map<QString, Visit> visits;
    if (const auto it = visits.find(browser); it != visits.end())
        return it->second;
    const QString tiny = dir.filePath("tiny.html"), deck = dir.filePath("deck.html"), edge = dir.filePath("edge.html"),
                  report = dir.filePath("report.html");
    if (!QFile::exists(edge)) {
        // By hand (aScenarioPageShowsAMarksWords): 5 requests 0.1 s apart against 3 per 10 s.
        runRatelab({"export", "--algorithms", "fixed_window", "--limit", "3", "--window", "10", "--n", "5", "--delay", "0.1",
                    "--html", tiny});
        runRatelab({"deck", "buckets-burst-now", "--html", deck});
        runRatelab({"export", "--preset", "edge-burst", "--html", edge});
        // By hand (aReportSortsByItsHeaders): one key at 0, 0.5, 1, 1.999, 3 and 3.4 s.
        QByteArray log;
        for (const char* at : {"0.000", "0.500", "1.000", "1.999", "3.000", "3.400"})
            log += QByteArray("192.0.2.1 \"GET /a HTTP/1.1\" 200 0.004 94668480") + at + "\n";
        const QString conf = "limit_req_zone $binary_remote_addr zone=z:1m rate=%1r/s;\nserver { location / { limit_req zone=z; } }\n";
        runRatelab({"replay", written(dir.filePath("a.log"), log), "--config", written(dir.filePath("a.conf"), conf.arg(1).toUtf8()),
                    "--against", written(dir.filePath("b.conf"), conf.arg(2).toUtf8()), "--html", report});
    }
    const QString shot = dir.filePath(browser + "-row.png");
    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NODE_PATH", kModules);
    node.setProcessEnvironment(env);
    node.start(QStandardPaths::findExecutable("node"), {QStringLiteral(RATELAB_TESTDATA "/../browser/page.mjs"),
                                                        QStandardPaths::findExecutable(browser), "scenario", tiny, "-",
                                                        "deck", deck, "-", "shot", edge, shot, "report", report, "-"});
    if (!node.waitForFinished(50'000)) {
        node.kill();
        node.waitForFinished();
        qWarning("page.mjs did not end within 50 s");
    } else if (node.exitCode() != 0) {
        qWarning("page.mjs: %s", node.readAllStandardError().constData());
    }
    const QJsonArray found = QJsonDocument::fromJson(node.readAllStandardOutput()).array();
    return visits[browser] = {found.at(0).toObject(), found.at(1).toObject(), found.at(2).toObject(), found.at(3).toObject(),
                              QImage(shot)};
}

QStringList texts(const QJsonValue& v)
{
    QStringList out;
    for (const QJsonValue& e : v.toArray())
        out << (e.isArray() ? texts(e).join(",") : e.toString());
    return out;
}

void checkClean(const QJsonObject& found)
{
    QVERIFY(found.contains("axe"));
    QCOMPARE(texts(found["errors"]), QStringList());
    QCOMPARE(texts(found["requests"]), QStringList());
    QCOMPARE(texts(found["axe"]), QStringList());
}

} // namespace

// Difference is how far apart two images of one size are, in 4x4 blocks (averaged, so that a
// glyph drawn by another rasteriser a pixel aside weighs little): the mean difference of a
// block's channel, and the share of blocks whose largest channel differs by more than 48.
struct Difference {
    double mean = 255;
    double far = 1;
};

Difference difference(const QImage& a, const QImage& b)
{
    if (a.size() != b.size() || a.isNull())
        return {};
    const auto block = [](const QImage& image, int x, int y) {
        int sum[3] = {0, 0, 0};
        for (int dy = 0; dy < 4; ++dy)
            for (int dx = 0; dx < 4; ++dx) {
                const QRgb p = image.pixel(x + dx, y + dy);
                sum[0] += qRed(p), sum[1] += qGreen(p), sum[2] += qBlue(p);
            }
        return std::array<int, 3>{sum[0] / 16, sum[1] / 16, sum[2] / 16};
    };
    double total = 0;
    int blocks = 0, far = 0;
    for (int y = 0; y + 4 <= a.height(); y += 4)
        for (int x = 0; x + 4 <= a.width(); x += 4, ++blocks) {
            const auto p = block(a, x, y), q = block(b, x, y);
            int most = 0;
            for (int c = 0; c < 3; ++c) {
                total += std::abs(p[c] - q[c]) / 3.0;
                most = std::max(most, std::abs(p[c] - q[c]));
            }
            far += most > 48;
        }
    return {total / std::max(1, blocks), double(far) / std::max(1, blocks)};
}

class TestBrowser : public QObject {
    Q_OBJECT
    static void browsers()
    {
        QTest::addColumn<QString>("browser");
        QTest::newRow("chromium") << "chromium";
        QTest::newRow("firefox") << "firefox-esr";
    }
private slots:
    void aScenarioPageShowsAMarksWords_data() { browsers(); }
    void aDeckPageRevealsOnPageDown_data() { browsers(); }
    void aReportSortsByItsHeaders_data() { browsers(); }
    void init()
    {
        QFETCH(QString, browser);
        if (const QString lack = missing(browser); !lack.isEmpty()) {
            if (qEnvironmentVariable("RATELAB_PEERS") == "1")
                QFAIL(qPrintable("missing " + lack));
            QSKIP(qPrintable("missing " + lack));
        }
    }

    // checks a scenario's page in each browser. By hand (as tst_webpage): 5 requests 0.1 s apart
    // against a fixed window of 3 per 10 s; Tab reaches the row and shows request 1's words
    // (admitted, 0 of 3 used); three Rights reach request 4, denied with 3 of 3 used until the
    // window [10 s, 20 s) opens 9.7 s later; leaving the row hides the words, and the pointer on
    // that mark shows them again.
    void aScenarioPageShowsAMarksWords()
    {
        QFETCH(QString, browser);
        const QJsonObject& found = visit(browser).scenario;
        checkClean(found);
        const QStringList shown = texts(found["shown"]);
        QCOMPARE(shown.size(), 4);
        QVERIFY2(shown[0].startsWith("Request 1 of 5") && shown[0].contains("0 of 3 used in window [0 s, 10 s) -> admitted, 2 left"),
                 qPrintable(shown[0]));
        QVERIFY2(shown[1].startsWith("Request 4 of 5") && shown[1].contains("-> denied, retry in 9.700 s"), qPrintable(shown[1]));
        QCOMPARE(shown[2], QString());
        QCOMPARE(shown[3], shown[1]);
    }

    void aRowLooksAsTheAppDrawsIt_data() { browsers(); }
    // checks that a row of the page is the app's picture: edge-burst's first row, drawn by the
    // browser from the page's SVG at its own size, against the same row laid out as `ratelab
    // export` lays it out and drawn by Qt. Fonts are rasterised apart and lines antialiased
    // apart, so the tolerance is on 4x4 blocks: a mean channel difference under 4 levels, and
    // under 2% of the blocks off by more than 48 (a mark or a line missing or moved would be
    // a whole block of a colour apart).
    void aRowLooksAsTheAppDrawsIt()
    {
        QFETCH(QString, browser);
        const Visit& found = visit(browser);
        checkClean(found.shot);
        ratelab::ui::applyTheme(ratelab::ui::Theme::Light); // as the command draws
        ratelab::ui::Dashboard dashboard;
        ratelab::ui::layoutForExport(dashboard, preset("edge-burst"), QSize(1280, 720)); // a page alone's size
        const QImage app = dashboard.charts()->row(0)->grab().toImage().convertToFormat(QImage::Format_RGB32);
        const QImage page = found.row.convertToFormat(QImage::Format_RGB32);
        QCOMPARE(page.size(), app.size());
        const Difference d = difference(page, app);
        qInfo("%s: mean %.2f levels, %.2f%% of the blocks far", qPrintable(browser), d.mean, 100 * d.far);
        QVERIFY(d.mean < 4);
        QVERIFY(d.far < 0.02);
    }

    // checks a deck's page in each browser: its first step asks how many of 32 requests pass (19, as
    // the deck works out: 4 + 3 + 6 x 2); the answer and the counts "19 admitted · 13 denied" are
    // in the page only from the reveal (PageDown) until the step is left (PageDown to step 2,
    // which asks again), and PageUp comes back to step 1 asking again.
    void aDeckPageRevealsOnPageDown()
    {
        QFETCH(QString, browser);
        const QJsonObject& found = visit(browser).deck;
        checkClean(found);
        QCOMPARE(texts(found["steps"]), (QStringList{"s1", "s1", "s2", "s1"}));
        const QStringList pages = texts(found["pages"]);
        QCOMPARE(pages.size(), 4);
        const QList<bool> revealed{false, true, false, false};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(pages[i].contains("19 admitted · 13 denied"), revealed[i]);
            QCOMPARE(pages[i].contains("4 + 3 + 6 x 2 = 19"), revealed[i]);
        }
    }

    // checks a dry run's page in each browser: its counts table sorts by a click on a header and
    // by Enter and Space on it, saying how in aria-sort. By hand (tst_webpage's diff): the log's
    // six requests under 1r/s and 2r/s are admitted by both 3, denied by both 1, only by the
    // current 2 and only by the proposed 0. A click on Count sorts the numbers most first (3, 2,
    // 1, 0); Enter on it again least first; Space on Requests by name, A to Z.
    void aReportSortsByItsHeaders()
    {
        QFETCH(QString, browser);
        const QJsonObject& found = visit(browser).report;
        checkClean(found);
        const QString admitted = "Admitted by both", both = "Denied by both", current = "Denied only by the current",
                      proposed = "Denied only by the proposed";
        QCOMPARE(texts(found["sorts"]), (QStringList{
                                            QStringList{admitted, both, current, proposed}.join("|") + ",none,none,none",
                                            QStringList{admitted, current, both, proposed}.join("|") + ",none,descending,none",
                                            QStringList{proposed, both, current, admitted}.join("|") + ",none,ascending,none",
                                            QStringList{admitted, both, current, proposed}.join("|") + ",ascending,none,none",
                                        }));
    }
};

QTEST_MAIN(TestBrowser)
#include "tst_browser.moc"
