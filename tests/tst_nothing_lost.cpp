// Nothing lost, nothing malformed. Every file the program writes is written whole or
// not at all, on a real full file system (a small tmpfs, mounted here where the test may mount:
// as root, as CI runs) and under a kill at any point; standard output is checked; every CSV the
// program writes parses with its header's field count (Python's csv module reads it).
#include "cli_run.h"
#include "chart/dashboard.h"
#include "deckfile.h"
#include "outputpath.h"
#include "arithmetic/text.h"
#include "window/handout.h"

#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <sys/mount.h>
#include <unistd.h>

using clitest::Run;
using clitest::runRatelab;

namespace {

const QByteArray kLog = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "192.0.2.1 - - [01/Jan/2000:00:00:01 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "198.51.100.7 - - [01/Jan/2000:00:00:01 +0000] \"GET /b HTTP/1.1\" 200 1 \"-\" \"x\"\n"
                        "192.0.2.1 - - [01/Jan/2000:00:00:02 +0000] \"GET /a HTTP/1.1\" 200 1 \"-\" \"x\"\n";
const QByteArray kNginx = "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n"
                          "server { location / { limit_req zone=one burst=2; } }\n";

void put(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.flush())
        qFatal("cannot write %s", qPrintable(path));
}

QByteArray get(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(missing)");
}

// The commands that write a file, each with the file's name last but one; small files and large.
struct Writer {
    const char* name;
    QStringList args; // %T is the target, %L the log, %C the nginx config
};

QList<Writer> writers()
{
    return {
        {"compare --save-scenario", {"compare", "--limit", "3", "--save-scenario", "%T"}},
        {"nginx --save-scenario", {"nginx", "--limit", "3", "--save-scenario", "%T"}},
        {"import --save-scenario", {"import", "%C", "--save-scenario", "%T"}},
        {"replay --per-key", {"replay", "%L", "--limit", "1", "--window", "1", "--per-key", "%T"}},
        {"sweep --svg", {"sweep", "%L", "--limit", "1:3:1", "--svg", "%T"}},
        {"sweep --png", {"sweep", "%L", "--limit", "1:3:1", "--png", "%T"}},
        {"export --png", {"export", "--preset", "edge-burst", "--png", "%T"}},
        {"deck --pdf", {"deck", "buckets-burst-now", "--pdf", "%T"}},
    };
}

QStringList filled(const QStringList& args, const QString& target, const QString& log, const QString& config)
{
    QStringList out;
    for (const QString& a : args)
        out << (a == "%T" ? target : a == "%L" ? log : a == "%C" ? config : a);
    return out;
}

} // namespace

class TestNothingLost : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;       // inputs, on the ordinary disk
    QTemporaryDir m_mountDir;  // the small tmpfs, when it could be mounted
    bool m_mounted = false;
    QString m_log, m_config;

    QString full(const QString& name) const { return m_mountDir.filePath(name); }

    // fill writes a filler file until the tmpfs refuses another byte; keep leaves that many
    // bytes of the filler's last block free again.
    void fill(const QString& name)
    {
        QFile f(full(name));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        const QByteArray block(4096, 'x');
        while (f.write(block) == block.size()) {
        }
        f.close();
        // Nothing more fits: not even one byte in a new file.
        QFile probe(full("probe"));
        QVERIFY(probe.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        QCOMPARE(probe.write("y", 1), qint64(-1));
        probe.close();
        QFile::remove(full("probe"));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid() && m_mountDir.isValid());
        m_log = m_dir.filePath("access.log");
        m_config = m_dir.filePath("nginx.conf");
        put(m_log, kLog);
        put(m_config, kNginx);
        // 1 MiB of tmpfs: room for the old files, then filled to the last page.
        m_mounted = ::mount("tmpfs", QFile::encodeName(m_mountDir.path()).constData(), "tmpfs", 0, "size=1m") == 0;
        if (!m_mounted && qEnvironmentVariableIsSet("CI"))
            QFAIL(qPrintable(QString("CI runs as root and mounts a tmpfs: %1").arg(std::strerror(errno))));
    }

    void cleanupTestCase()
    {
        if (m_mounted)
            ::umount(QFile::encodeName(m_mountDir.path()).constData());
    }

    // RFC 4180 by hand: quoted only where a comma, a quote, a CR or an LF would end the field.
    void csvFieldQuotesWhatEndsAField_data()
    {
        QTest::addColumn<QByteArray>("in");
        QTest::addColumn<QByteArray>("out");
        QTest::newRow("plain") << QByteArray("fixed_window") << QByteArray("fixed_window");
        QTest::newRow("empty") << QByteArray("") << QByteArray("");
        QTest::newRow("a gate's spec") << QByteArray("aimd:initial_limit=3,min_limit=1")
                                       << QByteArray("\"aimd:initial_limit=3,min_limit=1\"");
        QTest::newRow("quote") << QByteArray("say \"hi\"") << QByteArray("\"say \"\"hi\"\"\"");
        QTest::newRow("CR") << QByteArray("a\rb") << QByteArray("\"a\rb\"");
        QTest::newRow("LF") << QByteArray("a\nb") << QByteArray("\"a\nb\"");
        QTest::newRow("space and semicolon") << QByteArray(" a;b ") << QByteArray(" a;b ");
    }
    void csvFieldQuotesWhatEndsAField()
    {
        QFETCH(QByteArray, in);
        QFETCH(QByteArray, out);
        QCOMPARE(QByteArray::fromStdString(ratelab::csvField(in.toStdString())), out);
    }

    // Every shipped preset's CSV, read by Python's csv module (strict): each row has as many
    // fields as the header. Before, a concurrency row's name (its spec, with commas) was written
    // bare: aimd-sawtooth, gradient2-knee and gradient2-standing-queue had a field too many.
    void everyPresetsCsvParsesWithItsHeadersFieldCount()
    {
        const Run list = runRatelab({"presets"});
        QCOMPARE(list.code, 0);
        const QString checker = m_dir.filePath("fields.py");
        put(checker, "import csv, sys\n"
                     "rows = list(csv.reader(open(sys.argv[1], newline=''), strict=True))\n"
                     "bad = [i + 1 for i, r in enumerate(rows) if len(r) != len(rows[0])]\n"
                     "print(len(rows), 'rows', 'bad' if bad else 'ok', bad[:5])\n");
        int presets = 0;
        for (const QByteArray& line : list.out.split('\n')) {
            const QString id = QString::fromUtf8(line.left(line.indexOf(' ')));
            if (id.isEmpty())
                continue;
            const Run csv = runRatelab({"compare", "--preset", id, "--format", "csv"});
            QVERIFY2(csv.code == 0, qPrintable(id + ": " + csv.err));
            const QString file = m_dir.filePath(id + ".csv");
            put(file, csv.out);
            QProcess py;
            py.start(QFile::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3", {checker, file});
            QVERIFY2(py.waitForFinished(60'000) && py.exitCode() == 0, qPrintable(id + ": " + py.readAllStandardError()));
            const QByteArray said = py.readAllStandardOutput();
            QVERIFY2(said.contains(" rows ok "), qPrintable(id + ": " + said));
            ++presets;
        }
        QVERIFY2(presets >= 30, qPrintable(QString::number(presets))); // 35 when this was written
    }

    // A concurrency row, by hand: the header has 8 fields (algorithm,t,allowed,delay,remaining,
    // retry_after,level and the server's outcome columns follow); the spec's comma is inside quotes.
    void aConcurrencyRowsNameIsOneField()
    {
        const Run csv = runRatelab({"compare", "--preset", "aimd-sawtooth", "--format", "csv"});
        QCOMPARE(csv.code, 0);
        QVERIFY2(csv.out.contains("\n\"aimd:"), csv.out.left(400).constData());
    }

    // Every command that writes a file, on a full disk holding an older file: exit 2, one line
    // naming the file and the system's reason, and the old file byte for byte.
    void aFullDiskKeepsTheOldFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("suffix");
        for (const Writer& w : writers()) {
            const QString suffix = w.args.contains("--png") ? ".png" : w.args.contains("--svg") ? ".svg"
                                   : w.args.contains("--pdf")   ? ".pdf"
                                   : w.args.contains("--per-key") ? ".csv"
                                                                  : ".ratelab.json";
            QTest::newRow(w.name) << w.args << suffix;
        }
    }
    void aFullDiskKeepsTheOldFile()
    {
        if (!m_mounted)
            QSKIP("a tmpfs could not be mounted here (not root); CI mounts it");
        QFETCH(QStringList, args);
        QFETCH(QString, suffix);
        const QString target = full("old" + suffix);
        const QByteArray old = "the user's old file\n";
        put(target, old);
        fill("filler");
        const Run r = runRatelab(filled(args, target, m_log, m_config));
        QFile::remove(full("filler"));
        QCOMPARE(r.code, 2);
        const QString expected = "cannot write " + target + ": No space left on device\n";
        QVERIFY2(QString::fromUtf8(r.err).endsWith(expected) && r.err.count('\n') == 1, r.err.constData());
        QCOMPARE(get(target), old);
        QCOMPARE(QDir(m_mountDir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"old" + suffix});
        QFile::remove(target);
    }

    // A large file that starts to fit and then does not (16 KB free, a PNG of about 100 KB):
    // the write fails midway, and the old file is still whole.
    void aWriteThatFailsMidwayKeepsTheOldFile()
    {
        if (!m_mounted)
            QSKIP("a tmpfs could not be mounted here (not root); CI mounts it");
        const QString target = full("old.png");
        put(target, "old png\n");
        put(full("room"), QByteArray(16384, 'r')); // freed below: 16 KB of room
        fill("filler");
        QFile::remove(full("room"));
        const Run r = runRatelab({"export", "--preset", "edge-burst", "--png", target});
        QFile::remove(full("filler"));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.endsWith(": No space left on device\n") && r.err.count('\n') == 1, r.err.constData());
        QCOMPARE(get(target), QByteArray("old png\n"));
        QFile::remove(target);
    }

    // The app's exports write through the same functions: the dashboard's image, the handout,
    // a scenario and a deck, on the full disk.
    void theAppsExportsKeepTheOldFile()
    {
        if (!m_mounted)
            QSKIP("a tmpfs could not be mounted here (not root); CI mounts it");
        const QStringList names = {"a.png", "a.pdf", "a.ratelab.json", "a.csv"};
        for (const QString& n : names)
            put(full(n), "old " + n.toUtf8());
        fill("filler");
        const QImage image = QImage(200, 100, QImage::Format_ARGB32);
        QCOMPARE(ratelab::ui::writeImage(image, full("a.png")), "cannot write " + full("a.png") + ": No space left on device");
        const ratelab::io::DeckLoad deck = ratelab::io::loadDeckFile("buckets-burst-now");
        QVERIFY(deck.deck);
        QCOMPARE(ratelab::ui::writeHandout(*deck.deck, full("a.pdf")), "cannot write " + full("a.pdf") + ": No space left on device");
        QCOMPARE(ratelab::io::writeFileAtomically(full("a.csv"), "x,y\n"), "cannot write " + full("a.csv") + ": No space left on device");
        QFile::remove(full("filler"));
        for (const QString& n : names)
            QCOMPARE(get(full(n)), "old " + n.toUtf8());
        for (const QString& n : names)
            QFile::remove(full(n));
    }

    // Standard output that cannot be written (/dev/full): every command says so in one line and
    // exits 2. Before, `deck FILE > /dev/full` exited 0.
    void aFullStandardOutputIsAnError_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("compare") << QStringList{"compare"};
        QTest::newRow("compare csv") << QStringList{"compare", "--format", "csv"};
        QTest::newRow("presets") << QStringList{"presets"};
        QTest::newRow("nginx") << QStringList{"nginx"};
        QTest::newRow("memory") << QStringList{"memory", "--keys", "1000"};
        QTest::newRow("lua") << QStringList{"lua", "token_bucket"};
        QTest::newRow("replay") << QStringList{"replay", "%L", "--limit", "1"};
        QTest::newRow("replay --config") << QStringList{"replay", "%L", "--config", "%C"};
        QTest::newRow("sweep") << QStringList{"sweep", "%L", "--limit", "1:3:1"};
        QTest::newRow("import") << QStringList{"import", "%C"};
        QTest::newRow("deck outline") << QStringList{"deck", "buckets-burst-now"};
        QTest::newRow("--help") << QStringList{"--help"};
        QTest::newRow("compare --help") << QStringList{"compare", "--help"};
        QTest::newRow("--version") << QStringList{"--version"};
    }
    void aFullStandardOutputIsAnError()
    {
        QFETCH(QStringList, args);
        const Run r = runRatelab(filled(args, {}, m_log, m_config), {}, "/dev/full");
        QCOMPARE(r.code, 2);
        // The last line, and the only one but a replay's warning about the log's whole seconds.
        const QByteArray said = "ratelab: cannot write to standard output: No space left on device\n";
        QVERIFY2(r.err.endsWith(said) && r.err.count('\n') == 1 + r.err.count("warning:"), r.err.constData());
    }

    // compare saves its scenario only after its output was written whole: a full standard
    // output leaves the old scenario file as it was.
    void aFullStandardOutputSavesNoScenario()
    {
        const QString target = m_dir.filePath("kept.ratelab.json");
        put(target, "old\n");
        const Run r = runRatelab({"compare", "--save-scenario", target}, {}, "/dev/full");
        QCOMPARE(r.code, 2);
        QCOMPARE(get(target), QByteArray("old\n"));
    }

    // Killed at any point (SIGKILL, SIGINT), or ended by a closed pipe (SIGPIPE), a command
    // leaves its target as it was or whole, never cut, and no temporary beside it. Each command
    // is killed at random times over its run; what holds does not depend on when.
    void aKillNeverLeavesAPartialFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("signal");
        for (const Writer& w : writers()) {
            QTest::addRow("%s SIGKILL", w.name) << w.args << int(SIGKILL);
            QTest::addRow("%s SIGINT", w.name) << w.args << int(SIGINT);
        }
    }
    void aKillNeverLeavesAPartialFile()
    {
        QFETCH(QStringList, args);
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString target = dir.filePath("target");
        const QByteArray old = "old\n";
        // What a whole run writes, once, to compare with.
        const QString whole = dir.filePath("whole");
        const Run reference = runRatelab(filled(args, whole, m_log, m_config));
        QVERIFY2(reference.code == 0, reference.err.constData());
        const QByteArray wholeBytes = get(whole);
        QFile::remove(whole);
        auto* random = QRandomGenerator::global();
        for (int round = 0; round < 6; ++round) {
            put(target, old);
            QProcess p;
            p.setStandardOutputFile(QProcess::nullDevice());
            p.start(QStringLiteral(RATELAB_BIN), filled(args, target, m_log, m_config));
            QVERIFY(p.waitForStarted());
            // A random point of the run: the assertion below holds whenever the signal lands.
            p.waitForFinished(int(random->bounded(0, 400)));
            if (p.state() != QProcess::NotRunning) {
                ::kill(pid_t(p.processId()), signal);
                QVERIFY(p.waitForFinished(60'000));
            }
            const QByteArray now = get(target);
            // A PDF names its creation time: compare whole ones by their size and their end.
            const bool same = now == wholeBytes || (now.startsWith("%PDF") && now.endsWith("%%EOF\n") && wholeBytes.endsWith("%%EOF\n"));
            QVERIFY2(now == old || same, qPrintable(QString("round %1: %2 bytes, neither the old file nor a whole one (%3)")
                                                        .arg(round).arg(now.size()).arg(wholeBytes.size())));
            // SIGINT is held while the file is written, so nothing is left beside it. SIGKILL
            // cannot be held: between linking the new file to a temporary name and renaming it
            // over the target (Linux cannot link over a name), it leaves that temporary, whole.
            QStringList files = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
            files.removeOne("target");
            if (signal == SIGKILL && files.size() == 1 && files[0].startsWith("target.")) {
                const QByteArray left = get(dir.filePath(files[0]));
                QVERIFY2(left == wholeBytes || left.endsWith("%%EOF\n"), qPrintable(files[0]));
                QFile::remove(dir.filePath(files[0]));
                continue;
            }
            QVERIFY2(files.isEmpty(), qPrintable("round " + QString::number(round) + " left " + files.join(", ")));
        }
    }

    // The one moment a signal could leave a temporary: QSaveFile has linked the new file to
    // "target.XXXXXX" and not yet renamed it over the target. strace delivers the signal exactly
    // there (on return from the second linkat; the first fails, the target exists). The signal
    // waits for the rename, then ends the command as it would have: the target whole, nothing
    // beside it, the exit status the signal's.
    void aSignalBetweenLinkAndRenameWaitsForTheRename_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("number");
        QTest::newRow("SIGINT") << "SIGINT" << int(SIGINT);
        QTest::newRow("SIGTERM") << "SIGTERM" << int(SIGTERM);
        QTest::newRow("SIGHUP") << "SIGHUP" << int(SIGHUP);
    }
    void aSignalBetweenLinkAndRenameWaitsForTheRename()
    {
        QFETCH(QString, name);
        QFETCH(int, number);
        QTemporaryDir dir;
        const QString target = dir.filePath("target");
        put(target, "old\n");
        QProcess p;
        p.setStandardOutputFile(QProcess::nullDevice());
        p.start("strace", QStringList{"-f", "-qq", "-o", "/dev/null", "-e", "trace=linkat", "-e",
                                      "inject=linkat:signal=" + name + ":when=2", RATELAB_BIN, "import",
                                      m_config, "--save-scenario", target});
        if (!p.waitForStarted())
            QSKIP("strace is not installed (the README's test command installs it)");
        QVERIFY(p.waitForFinished(60'000));
        const QByteArray err = p.readAllStandardError();
        if (err.contains("ptrace"))
            QSKIP(qPrintable("strace cannot trace here: " + err));
        // strace ends as its tracee did: by the same signal.
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        QCOMPARE(p.exitCode(), number);
        QVERIFY2(get(target).startsWith("{\n  \"format\": \"ratelab-scenario\""), get(target).left(80).constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"target"});
    }

    // A closed pipe ends compare (SIGPIPE) before its scenario is saved: the old file stays.
    void aClosedPipeLeavesTheScenarioAsItWas()
    {
        QTemporaryDir dir;
        const QString target = dir.filePath("s.ratelab.json");
        put(target, "old\n");
        int fds[2];
        QVERIFY(::pipe(fds) == 0);
        ::close(fds[0]); // nobody reads
        QProcess p;
        p.setChildProcessModifier([fd = fds[1]] {
            ::dup2(fd, STDOUT_FILENO);
            std::signal(SIGPIPE, SIG_DFL); // as a shell starts a pipeline's commands
        });
        p.start(QStringLiteral(RATELAB_BIN), {"compare", "--n", "100000", "--save-scenario", target});
        QVERIFY(p.waitForFinished(60'000));
        ::close(fds[1]);
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by SIGPIPE, as a filter is
        QCOMPARE(get(target), QByteArray("old\n"));
    }
};

QTEST_MAIN(TestNothingLost)
#include "tst_nothing_lost.moc"
