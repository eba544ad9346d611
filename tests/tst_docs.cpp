// The pages' examples are true: every command shown in a ```console block of README.md and
// docs/*.md is run through the ratelab of this build tree, and prints what the page shows.
//
// The marker (docs/testing.md, "Examples that are run"): inside a fenced block opened by
// ```console, a line "$ ratelab ARGS" is a command, split into words as a shell splits them (no
// pipes, no redirections), run from the repository root; the lines after it, up to the next "$ "
// line or the end of the block, are what it prints. A command that succeeds is compared on its
// standard output (warnings on stderr are not shown); one that exits with status 2 must print
// nothing on stdout and is compared on stderr, its one line. A line "..." stands for any number of
// lines (at most one per example). Trailing spaces and trailing empty lines are ignored.
//
// Every page that shows ratelab commands in a ```sh block must mark at least one example, so
// no page's commands go untested.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

namespace {

const QString kRoot = QStringLiteral(RATELAB_TESTDATA "/../..");

struct Example {
    QString page;
    int line = 0; // 1-based line of the "$ " command
    QString command;
    QStringList expected;
};

// pages returns README.md and every docs/*.md, as paths relative to the root.
QStringList pages()
{
    QStringList out{QStringLiteral("README.md")};
    const QStringList docs = QDir(kRoot + "/docs").entryList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    for (const QString& d : docs)
        out << "docs/" + d;
    return out;
}

QStringList readLines(const QString& page)
{
    QFile f(kRoot + "/" + page);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split('\n');
}

// examplesOf reads the console examples of one page; showsCommands says whether a ```sh block
// of the page has a line that runs ratelab.
QList<Example> examplesOf(const QString& page, bool* showsCommands)
{
    const QStringList lines = readLines(page);
    QList<Example> out;
    QString fence; // the open block's language, empty outside a block
    bool inBlock = false;
    qsizetype current = -1; // the example the block's lines belong to
    *showsCommands = false;
    for (int i = 0; i < lines.size(); ++i) {
        const QString line = lines[i];
        if (line.startsWith("```")) {
            inBlock = !inBlock;
            fence = inBlock ? line.mid(3).trimmed() : QString();
            current = -1;
            continue;
        }
        if (!inBlock)
            continue;
        if (fence == "sh" && line.trimmed().startsWith("ratelab "))
            *showsCommands = true;
        if (fence != "console")
            continue;
        if (line.startsWith("$ ")) {
            out.append({page, i + 1, line.mid(2), {}});
            current = out.size() - 1;
        } else if (current >= 0) {
            out[current].expected << line;
        }
    }
    return out;
}

QStringList trimmedLines(QString text)
{
    QStringList lines = text.replace("\r\n", "\n").split('\n');
    for (QString& l : lines) {
        while (l.endsWith(' '))
            l.chop(1);
    }
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// mismatch compares what was printed with what the page shows, "..." standing for any lines:
// the lines before it must open the output and those after it close it. Empty when they agree,
// else what differs.
QString mismatch(const QStringList& expected, const QStringList& actual)
{
    const qsizetype dots = expected.indexOf(QStringLiteral("..."));
    if (dots < 0) {
        if (expected == actual)
            return {};
        for (qsizetype i = 0; i < std::max(expected.size(), actual.size()); ++i) {
            const QString e = i < expected.size() ? expected[i] : QStringLiteral("(nothing)");
            const QString a = i < actual.size() ? actual[i] : QStringLiteral("(nothing)");
            if (e != a)
                return QString("output line %1: the page shows\n  %2\nbut ratelab printed\n  %3").arg(i + 1).arg(e, a);
        }
    }
    const QStringList head = expected.mid(0, dots);
    const QStringList tail = expected.mid(dots + 1);
    if (actual.size() < head.size() + tail.size())
        return QString("ratelab printed %1 lines, fewer than the %2 the page shows around '...'")
            .arg(actual.size())
            .arg(head.size() + tail.size());
    for (qsizetype i = 0; i < head.size(); ++i)
        if (head[i] != actual[i])
            return QString("output line %1: the page shows\n  %2\nbut ratelab printed\n  %3").arg(i + 1).arg(head[i], actual[i]);
    const qsizetype offset = actual.size() - tail.size();
    for (qsizetype i = 0; i < tail.size(); ++i)
        if (tail[i] != actual[offset + i])
            return QString("output line %1: the page shows\n  %2\nbut ratelab printed\n  %3")
                .arg(offset + i + 1)
                .arg(tail[i], actual[offset + i]);
    return {};
}

} // namespace

class TstDocs : public QObject {
    Q_OBJECT

private slots:
    // checks that the marker finds examples, and that each page with commands has one.
    void everyPageWithCommandsMarksAnExample()
    {
        int total = 0;
        for (const QString& page : pages()) {
            bool shows = false;
            const QList<Example> examples = examplesOf(page, &shows);
            total += int(examples.size());
            if (shows)
                QVERIFY2(!examples.isEmpty(),
                         qPrintable(page + " shows ratelab commands but marks none as a ```console example"));
            for (const Example& e : examples)
                QVERIFY2(e.command.startsWith("ratelab "),
                         qPrintable(QString("%1:%2: a console example runs ratelab, not '%3'").arg(e.page).arg(e.line).arg(e.command)));
        }
        QVERIFY2(total >= 10, qPrintable(QString("only %1 examples found").arg(total)));
        bool shows = false;
        QVERIFY2(!examplesOf(QStringLiteral("README.md"), &shows).isEmpty(), "README.md marks no example");
    }

    // checks the "..." matching on hand-made outputs.
    void ellipsisStandsForAnyLines()
    {
        QVERIFY(mismatch({"a", "b"}, {"a", "b"}).isEmpty());
        QVERIFY(!mismatch({"a", "b"}, {"a", "c"}).isEmpty());
        QVERIFY(!mismatch({"a"}, {"a", "b"}).isEmpty());
        QVERIFY(mismatch({"a", "...", "z"}, {"a", "b", "c", "z"}).isEmpty());
        QVERIFY(mismatch({"a", "...", "z"}, {"a", "z"}).isEmpty());
        QVERIFY(mismatch({"a", "..."}, {"a", "b"}).isEmpty());
        QVERIFY(!mismatch({"a", "...", "z"}, {"a", "b", "y"}).isEmpty());
        QVERIFY(!mismatch({"a", "...", "a"}, {"a"}).isEmpty()); // the head and tail do not overlap
    }

    void examplePrintsWhatThePageShows_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("expected");
        for (const QString& page : pages()) {
            bool shows = false;
            for (const Example& e : examplesOf(page, &shows))
                QTest::addRow("%s:%d", qPrintable(e.page), e.line) << e.command << e.expected;
        }
    }

    // checks each example: run, and its output compared with the page.
    void examplePrintsWhatThePageShows()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, expected);
        QStringList args = QProcess::splitCommand(command);
        QVERIFY(!args.isEmpty());
        args.removeFirst(); // "ratelab": the one of this build tree
        QProcess p;
        p.setWorkingDirectory(kRoot);
        p.start(QStringLiteral(RATELAB_BIN), args);
        QVERIFY2(p.waitForFinished(60000), qPrintable("did not finish: " + command));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QStringList actual;
        if (p.exitCode() == 0) {
            actual = trimmedLines(out);
        } else {
            QVERIFY2(p.exitCode() == 2, qPrintable(QString("exit status %1: %2").arg(p.exitCode()).arg(err)));
            QVERIFY2(out.isEmpty(), qPrintable("a refusal printed on stdout: " + out));
            actual = trimmedLines(err);
        }
        const QString why = mismatch(trimmedLines(expected.join('\n')), actual);
        QVERIFY2(why.isEmpty(), qPrintable(command + "\n" + why));
    }
};

QTEST_GUILESS_MAIN(TstDocs)
#include "tst_docs.moc"
