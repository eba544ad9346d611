// Running the real `ratelab` executable from a test, and reading what it printed.
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace clitest {

struct Run {
    int code = -1;
    QByteArray out, err;
};

// runRatelab runs the built executable with args and waits for it (code -1: it did not end).
// unset names environment variables to remove (DISPLAY, QT_QPA_PLATFORM: no display at all);
// stdoutFile, when given, takes its standard output instead of the pipe (/dev/full: always full).
inline Run runRatelab(const QStringList& args, const QStringList& unset = {}, const QString& stdoutFile = {})
{
    QProcess p;
    if (!stdoutFile.isEmpty())
        p.setStandardOutputFile(stdoutFile);
    if (!unset.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& name : unset)
            env.remove(name);
        p.setProcessEnvironment(env);
    }
    p.start(QStringLiteral(RATELAB_BIN), args);
    Run r;
    if (!p.waitForFinished(60'000) || p.exitStatus() != QProcess::NormalExit)
        return r;
    r.code = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// data is the path of a fixture in tests/data.
inline QString data(const char* name) { return QStringLiteral(RATELAB_TESTDATA "/") + name; }

// parseJson parses a command's stdout; an empty object when it is not JSON.
inline QJsonObject parseJson(const QByteArray& out)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(out, &error);
    return error.error == QJsonParseError::NoError ? doc.object() : QJsonObject{};
}

// rawValues returns the raw text of every `"key": value` in one algorithm's sequence, in order:
// what a script sees before any conversion to double.
inline QStringList rawValues(const QByteArray& out, const QString& algorithm, const QString& key)
{
    const QString text = QString::fromUtf8(out);
    const auto begin = text.indexOf("\"sequence\"", text.indexOf("\"" + algorithm + "\": {"));
    const auto end = text.indexOf("]}", begin);
    if (begin < 0 || end < 0)
        return {};
    QStringList values;
    const QRegularExpression re("\"" + key + "\": ([^,}\\s]+)");
    for (auto it = re.globalMatch(text.mid(begin, end - begin)); it.hasNext();)
        values << it.next().captured(1);
    return values;
}

} // namespace clitest
