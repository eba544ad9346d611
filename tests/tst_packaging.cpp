// What the package installs beside the executables, checked against the executables themselves:
// every option of every command, as its --help lists it now, is in the command's man
// page and in the bash, zsh and fish completions (packaging/gendocs.sh writes them at build time);
// the bash completion completes; `--version` names the version and the commit.
#include "cli_run.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSet>
#include <QTest>

using namespace clitest;

namespace {

QString generated(const QString& path) { return QStringLiteral(RATELAB_GENERATED "/") + path; }

QString readText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// section returns the lines of a --help text under HEADING ("Options:") up to the blank line after.
QStringList section(const QByteArray& help, const QString& heading)
{
    const QStringList lines = QString::fromUtf8(help).split('\n');
    const auto start = lines.indexOf(heading);
    QStringList out;
    for (auto i = start < 0 ? lines.size() : start + 1; i < lines.size() && !lines[i].isEmpty(); ++i)
        out << lines[i];
    return out;
}

// firstColumn returns what starts each item of a help section (two spaces in, up to two spaces).
QStringList firstColumn(const QStringList& lines)
{
    QStringList items;
    for (const QString& line : lines)
        if (line.startsWith("  ") && line.size() > 2 && line[2] != ' ')
            items << line.mid(2).section("  ", 0, 0);
    return items;
}

// optionsOf returns every option name in a --help text: "-h", "--help", "--limit", ...
QStringList optionsOf(const QByteArray& help)
{
    QStringList names;
    for (const QString& item : firstColumn(section(help, "Options:")))
        for (const QString& name : item.split(", "))
            names << name.section(' ', 0, 0);
    return names;
}

QByteArray helpOf(const QStringList& args)
{
    const Run r = runRatelab(args);
    return r.code == 0 ? r.out : QByteArray();
}

QStringList commands() { return firstColumn(section(helpOf({"--help"}), "Commands:")); }

// roffOption is how a man page writes an option in bold: \fB\-\-limit\fR.
QString roffOption(QString name) { return "\\fB" + name.replace("-", "\\-") + "\\fR"; }

// bashWords returns the words the bash completion offers after `ratelab COMMAND` (or, for "",
// as the first word).
QSet<QString> bashWords(const QString& command)
{
    const QString script = readText(generated("completions/ratelab.bash"));
    const QString arm = command.isEmpty() ? QString("\\n        words=\"([^\"]*)\"")
                                          : "\\n        " + QRegularExpression::escape(command) + "\\) words=\"([^\"]*)\"";
    const QRegularExpressionMatch m = QRegularExpression(arm).match(script);
    const QStringList words = m.hasMatch() ? m.captured(1).split(' ', Qt::SkipEmptyParts) : QStringList();
    return {words.begin(), words.end()};
}

// zshArm returns the zsh completion's option list for COMMAND.
QString zshArm(const QString& command)
{
    const QString script = readText(generated("completions/_ratelab"));
    const auto begin = script.indexOf("\n    " + command + ") options=(\n");
    const auto end = script.indexOf("\n        ) ;;", begin);
    return begin < 0 || end < 0 ? QString() : script.mid(begin, end - begin);
}

// completeInBash runs the installed-style bash completion on a command line's words and returns
// what it offers for the last one.
QString completeInBash(const QStringList& words)
{
    QProcess bash;
    bash.start("bash", QStringList{"-c",
                                   "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _ratelab; "
                                   "echo \"${COMPREPLY[*]}\"",
                                   "bash", generated("completions/ratelab.bash")}
                           + words);
    if (!bash.waitForFinished(30'000) || bash.exitCode() != 0)
        return "(bash failed: " + QString::fromUtf8(bash.readAllStandardError()) + ")";
    return QString::fromUtf8(bash.readAllStandardOutput()).trimmed();
}

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT

private slots:
    // checks that --version names the version and the commit, the same from both executables.
    void versionNamesTheCommit()
    {
        const Run r = runRatelab({"--version"});
        QCOMPARE(r.code, 0);
        const QRegularExpressionMatch m =
            QRegularExpression(R"(^ratelab (\S+) \(commit ([0-9a-f]{7,40}(-dirty)?|unknown)\)\n$)").match(QString::fromUtf8(r.out));
        QVERIFY2(m.hasMatch(), r.out.constData());
        QCOMPARE(m.captured(1), QStringLiteral(PROJECT_VERSION));
        QProcess git; // a git checkout names its commit: "unknown" is for a tree without one
        git.start("git", {"-C", RATELAB_SOURCE, "rev-parse", "HEAD"});
        if (git.waitForFinished(10'000) && git.exitStatus() == QProcess::NormalExit && git.exitCode() == 0)
            QVERIFY2(m.captured(2) != "unknown", r.out.constData());

        QProcess gui;
        gui.start(QFileInfo(RATELAB_BIN).absolutePath() + "/ratelab-gui", {"--version"});
        QVERIFY(gui.waitForFinished(30'000));
        QCOMPARE(gui.readAllStandardOutput(), r.out);
    }

    // checks that ratelab(1) names every command and every option of `ratelab --help`, and that
    // each command has its own page.
    void everyCommandHasItsPage()
    {
        const QStringList names = commands();
        QVERIFY(names.contains("compare") && names.contains("export"));
        const QString top = readText(generated("man/ratelab.1"));
        QVERIFY(!top.isEmpty());
        for (const QString& c : names) {
            QVERIFY2(top.contains("\\fB" + c + "\\fR"), qPrintable(c));
            QVERIFY2(QFileInfo::exists(generated("man/ratelab-" + c + ".1")), qPrintable(c));
        }
        for (const QString& o : optionsOf(helpOf({"--help"})))
            QVERIFY2(top.contains(roffOption(o)), qPrintable(o));
        QVERIFY(QFileInfo::exists(generated("man/ratelab-gui.1")));
    }

    // checks that every man page is installed compressed (Debian policy): man-gz/PAGE.gz is
    // PAGE, gzip'd with no file name and no time inside (gzip -n), so a build is reproducible.
    void everyManPageIsCompressed()
    {
        const QStringList pages = QDir(generated("man")).entryList({"*.1"}, QDir::Files);
        QVERIFY(pages.contains("ratelab.1") && pages.contains("ratelab-compare.1"));
        QCOMPARE(QDir(generated("man-gz")).entryList({"*.gz"}, QDir::Files).size(), pages.size());
        for (const QString& page : pages) {
            QFile gz(generated("man-gz/" + page + ".gz"));
            QVERIFY2(gz.open(QIODevice::ReadOnly), qPrintable(page));
            const QByteArray head = gz.read(10);
            QVERIFY2(head.startsWith("\x1f\x8b"), qPrintable(page));
            QCOMPARE(int(head[3]) & 0x08, 0);   // FLG.FNAME: no file name
            QCOMPARE(head.mid(4, 4), QByteArray(4, '\0')); // MTIME 0
            QProcess gunzip;
            gunzip.start("gzip", {"-dc", gz.fileName()});
            QVERIFY(gunzip.waitForFinished(30'000));
            QFile plain(generated("man/" + page));
            QVERIFY(plain.open(QIODevice::ReadOnly));
            QVERIFY2(gunzip.readAllStandardOutput() == plain.readAll(), qPrintable(page));
        }
    }

    void everyOptionIsDocumentedAndCompleted_data()
    {
        QTest::addColumn<QString>("command");
        QTest::newRow("(none)") << QString();
        for (const QString& c : commands())
            QTest::newRow(qPrintable(c)) << c;
    }

    // checks that every option of COMMAND --help is in its man page and in the bash, zsh and fish
    // completions, and that bash offers no option the command does not have.
    void everyOptionIsDocumentedAndCompleted()
    {
        QFETCH(QString, command);
        const QStringList options = optionsOf(helpOf(command.isEmpty() ? QStringList{"--help"} : QStringList{command, "--help"}));
        QVERIFY(options.contains("--help"));
        const QString page = readText(generated(command.isEmpty() ? "man/ratelab.1" : "man/ratelab-" + command + ".1"));
        const QString zsh = command.isEmpty() ? readText(generated("completions/_ratelab")) : zshArm(command);
        const QString fish = readText(generated("completions/ratelab.fish"));
        const QString fishCondition = command.isEmpty() ? "__fish_use_subcommand" : "__fish_seen_subcommand_from " + command;
        QSet<QString> bash = bashWords(command);
        if (command.isEmpty())
            for (const QString& c : commands())
                QVERIFY2(bash.remove(c), qPrintable("bash: command " + c));
        for (const QString& o : options) {
            QVERIFY2(page.contains(roffOption(o)), qPrintable("man page: " + o));
            QVERIFY2(bash.remove(o), qPrintable("bash: " + o));
            QVERIFY2(zsh.contains("'" + o + ":"), qPrintable("zsh: " + o));
            const QString fishName = o.startsWith("--") ? "-l " + o.mid(2) : "-s " + o.mid(1);
            QVERIFY2(fish.contains("-n '" + fishCondition + "' " + fishName + " "), qPrintable("fish: " + o));
        }
        QVERIFY2(bash.isEmpty(), qPrintable("bash offers more: " + QStringList(bash.begin(), bash.end()).join(' ')));
    }

    // checks that the bash completion completes commands, options and preset ids.
    void bashCompletes()
    {
        const QString bin = QStringLiteral(RATELAB_BIN);
        QCOMPARE(completeInBash({bin, "com"}), QString("compare"));
        QCOMPARE(completeInBash({bin, "compare", "--retry-d"}), QString("--retry-delay"));
        QCOMPARE(completeInBash({bin, "export", "--pn"}), QString("--png"));
        QCOMPARE(completeInBash({bin, "compare", "--preset", "edge-b"}), QString("edge-burst"));
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "tst_packaging.moc"
