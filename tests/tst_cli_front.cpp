// The `ratelab` front end: Qt Core only, with or without a display, one line and exit 2 for
// every mistake; outputs written only over regular files; one number grammar.
#include "cli_run.h"

#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace clitest;

namespace {

const QStringList kNoDisplay = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};

bool isFifo(const QString& path)
{
    struct stat st {};
    return ::stat(path.toLocal8Bit().constData(), &st) == 0 && S_ISFIFO(st.st_mode);
}

} // namespace

class TestCliFront : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    // checks that --version, --help, compare and presets need no display, start no GUI platform
    // and print nothing on stderr.
    void worksWithoutADisplay()
    {
        Run r = runRatelab({"--version"}, kNoDisplay);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("ratelab " PROJECT_VERSION " (commit "), r.out.constData()); // tst_packaging: the rest
        QCOMPARE(r.err, QByteArray());
        r = runRatelab({"--help"}, kNoDisplay);
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("compare") && r.out.contains("--preset"));
        QCOMPARE(r.err, QByteArray());
        r = runRatelab({"compare", "--n", "3"}, kNoDisplay);
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, QByteArray());
        r = runRatelab({"presets"}, kNoDisplay);
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("edge-burst"));
        QCOMPARE(r.err, QByteArray());
    }

    // checks that the command-line binary does not link Qt Widgets, Gui or Charts at all.
    void linksQtCoreOnly()
    {
        QProcess ldd;
        ldd.start("ldd", {QStringLiteral(RATELAB_BIN)});
        QVERIFY(ldd.waitForFinished(20'000));
        const QByteArray libs = ldd.readAllStandardOutput();
        QVERIFY2(libs.contains("libQt6Core"), libs.constData());
        for (const char* gui : {"libQt6Gui", "libQt6Widgets", "libQt6Charts", "libGL"})
            QVERIFY2(!libs.contains(gui), gui);
    }

    // checks one line on stderr and exit 2 for a bad option or command, display or not, and for
    // the window with no display to open it on.
    void mistakesAreOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("bogus option") << QStringList{"--bogus"} << "ratelab: Unknown option 'bogus'. (see ratelab --help)";
        QTest::newRow("bogus command") << QStringList{"frobnicate"}
                                       << "ratelab: unknown command 'frobnicate' (commands: compare, presets, memory, lua, nginx, replay, sweep, import, advise, export, bench, deck)";
        QTest::newRow("the window, no display")
            << QStringList{} << "ratelab: no display to open the window on (DISPLAY is not set); the commands need none: ratelab --help";
        QTest::newRow("a bad preset before any display") << QStringList{"--preset", "nope"} << "ratelab: --preset: unknown preset 'nope'";
    }
    void mistakesAreOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runRatelab(args, kNoDisplay);
        QCOMPARE(r.code, 2);
        QCOMPARE(r.out, QByteArray());
        QCOMPARE(QString::fromUtf8(r.err).count('\n'), 1);
        QVERIFY2(QString::fromUtf8(r.err).startsWith(message), r.err.constData());
    }

    // checks that a rate may be written as the fraction the output writes, and means the same.
    void rateAsAFraction()
    {
        const Run json = runRatelab({"compare", "--rate", "3/7"});
        QCOMPARE(json.code, 0);
        QVERIFY(json.out.contains("\"rate_exact\": \"3/7\""));
        // 3 per 7 s is exactly 3/7 per s: typing the fraction gives the default's decisions.
        const Run exact = runRatelab({"compare", "--limit", "3", "--window", "7", "--algorithms", "token_bucket,gcra",
                                      "--format", "csv"});
        const Run typed = runRatelab({"compare", "--limit", "3", "--window", "7", "--rate", "3/7", "--algorithms",
                                      "token_bucket,gcra", "--format", "csv"});
        QCOMPARE(typed.code, 0);
        QCOMPARE(typed.out, exact.out);
        for (const char* bad : {"3/0", "0/7", "3/-7", "3.5/7", "/7", "3/"}) {
            const Run r = runRatelab({"compare", "--rate", bad});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.startsWith("ratelab: --rate: "), r.err.constData());
        }
    }

    // checks that outputs replace only regular files: a FIFO or a device node is refused with
    // exit 2, one line, and left as it was.
    void outputsOnlyOverRegularFiles()
    {
        const QString fifo = m_dir.filePath("pipe");
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        for (const QStringList& args : {QStringList{"export", "--png", fifo}, QStringList{"compare", "--n", "3", "--save-scenario", fifo}}) {
            const Run r = runRatelab(args);
            QCOMPARE(r.code, 2);
            QCOMPARE(QString::fromUtf8(r.err).count('\n'), 1);
            QVERIFY2(r.err.contains("is a FIFO (named pipe), not a regular file"), r.err.constData());
            QVERIFY(isFifo(fifo));
        }
        const Run r = runRatelab({"export", "--png", "/dev/null"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/dev/null: it is a device, not a regular file"), r.err.constData());
        QVERIFY(!QFileInfo("/dev/null").isFile());
    }

    // checks that the exported image is exactly the size asked, even below the dashboard's own
    // minimum height, and that what is rendered stays within the pixel cap.
    void exportIsTheSizeAsked()
    {
        const QString png = m_dir.filePath("small.png");
        Run r = runRatelab({"export", "--png", png, "--width", "320", "--height", "240", "--scale", "0.25"});
        QCOMPARE(r.code, 0);
        QCOMPARE(QImage(png).size(), QSize(80, 60));
        r = runRatelab({"export", "--png", png, "--width", "4000", "--height", "240", "--scale", "2"});
        QCOMPARE(r.code, 0);
        QCOMPARE(QImage(png).size(), QSize(8000, 480));
        r = runRatelab({"export", "--png", png, "--width", "16000", "--height", "16000", "--scale", "1"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("200 million pixels"));
    }
};

QTEST_MAIN(TestCliFront)
#include "tst_cli_front.moc"
