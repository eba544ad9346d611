// The pages of `ratelab export --html` and `ratelab deck --html` in real browsers: Debian's
// Chromium and Firefox ESR, headless, driven by tests/browser/page.mjs through npm's
// puppeteer-core (installed into the build tree, as .ci/run does). The page loads with no console error and no request
// leaving the file; the keyboard and the pointer show a mark's words; PageDown reveals a deck's
// step and goes on; axe-core finds no WCAG 2.1 AA violation. Without a browser or the npm
// packages it skips, unless RATELAB_PEERS=1 (CI), where their absence fails.
#include "cli_run.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

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

// browse runs page.mjs over a page and returns what it found; a failure to run is a test failure.
QJsonObject browse(const QString& browser, const QString& kind, const QString& page)
{
    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NODE_PATH", kModules);
    node.setProcessEnvironment(env);
    node.start(QStandardPaths::findExecutable("node"), {QStringLiteral(RATELAB_TESTDATA "/../browser/page.mjs"), kind, page,
                                                        QStandardPaths::findExecutable(browser)});
    if (!node.waitForFinished(50'000)) {
        node.kill();
        node.waitForFinished();
        qWarning("page.mjs did not end within 50 s");
        return {};
    }
    if (node.exitCode() != 0)
        qWarning("page.mjs: %s", node.readAllStandardError().constData());
    return QJsonDocument::fromJson(node.readAllStandardOutput()).object();
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
        QTemporaryDir dir;
        const QString path = dir.filePath("tiny.html");
        QCOMPARE(runRatelab({"export", "--algorithms", "fixed_window", "--limit", "3", "--window", "10", "--n", "5", "--delay",
                             "0.1", "--html", path})
                     .code,
                 0);
        QFETCH(QString, browser);
        const QJsonObject found = browse(browser, "scenario", path);
        checkClean(found);
        const QStringList shown = texts(found["shown"]);
        QCOMPARE(shown.size(), 4);
        QVERIFY2(shown[0].startsWith("Request 1 of 5") && shown[0].contains("0 of 3 used in window [0 s, 10 s) -> admitted, 2 left"),
                 qPrintable(shown[0]));
        QVERIFY2(shown[1].startsWith("Request 4 of 5") && shown[1].contains("-> denied, retry in 9.700 s"), qPrintable(shown[1]));
        QCOMPARE(shown[2], QString());
        QCOMPARE(shown[3], shown[1]);
    }

    // checks a deck's page in each browser: its first step asks how many of 32 requests pass (19, as
    // the deck works out: 4 + 3 + 6 x 2); the answer and the counts "19 admitted · 13 denied" are
    // in the page only from the reveal (PageDown) until the step is left (PageDown to step 2,
    // which asks again), and PageUp comes back to step 1 asking again.
    void aDeckPageRevealsOnPageDown()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("deck.html");
        QCOMPARE(runRatelab({"deck", "buckets-burst-now", "--html", path}).code, 0);
        QFETCH(QString, browser);
        const QJsonObject found = browse(browser, "deck", path);
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
};

QTEST_GUILESS_MAIN(TestBrowser)
#include "tst_browser.moc"
