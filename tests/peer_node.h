// The peer tests' harness for products that run as programs of their own: where the npm packages
// are (RATELAB_PEERS_DIR/node_modules), node with NODE_PATH set to them, a peer script run on its
// input lines, and the skip (or, with RATELAB_PEERS=1, the failure) when a product cannot run
// here. Each test that includes it is compiled with RATELAB_PEERS_DIR and RATELAB_PEERS_SRC
// (tests/CMakeLists.txt).
#pragma once

#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include <initializer_list>

namespace ratelab::test {

// peersRequired returns whether RATELAB_PEERS=1 (.ci/run) makes a missing product a failure.
inline bool peersRequired() { return qEnvironmentVariable("RATELAB_PEERS") == QLatin1String("1"); }

// peersDir returns the folder the npm packages are installed into: RATELAB_PEERS_DIR from the
// environment, else the build tree's peers/.
inline QString peersDir()
{
    const QString env = qEnvironmentVariable("RATELAB_PEERS_DIR");
    return env.isEmpty() ? QStringLiteral(RATELAB_PEERS_DIR) : env;
}

// peerSource returns the path of a peer program in tests/peers/.
inline QString peerSource(const QString& file) { return QStringLiteral(RATELAB_PEERS_SRC) + "/" + file; }

// runPeer starts program with args, writes input, and returns its stdout lines; when it does not
// start, fails or takes over two minutes, it returns none and says why in `error`.
inline QStringList runPeer(const QString& program, const QStringList& args, const QByteArray& input, QString& error,
                           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForStarted(30000)) {
        error = program + " did not start";
        return {};
    }
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        error = program + " " + args.join(' ') + " failed: " + QString::fromUtf8(p.readAllStandardError()).left(2000);
        return {};
    }
    return QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

// NodePeers is node with the npm packages a peer test needs; `missing` says what is not here
// ("" when everything is).
struct NodePeers {
    QString node;
    QProcessEnvironment env;
    QString missing;

    // run runs the peer script tests/peers/<script> under node with args and input (runPeer).
    QStringList run(const QString& script, const QStringList& args, const QByteArray& input, QString& error) const
    {
        return runPeer(node, QStringList{peerSource(script)} + args, input, error, env);
    }
};

// findNode looks for node on the PATH and for each package in peersDir()/node_modules.
inline NodePeers findNode(std::initializer_list<const char*> packages)
{
    NodePeers out;
    out.node = QStandardPaths::findExecutable("node");
    if (out.node.isEmpty()) {
        out.missing = QStringLiteral("node is not installed");
        return out;
    }
    for (const char* package : packages)
        if (!QFileInfo::exists(peersDir() + "/node_modules/" + package + "/package.json")) {
            out.missing = QString(package) + " is not in " + peersDir() + "/node_modules";
            return out;
        }
    out.env = QProcessEnvironment::systemEnvironment();
    out.env.insert("NODE_PATH", peersDir() + "/node_modules");
    return out;
}

} // namespace ratelab::test

// PEER_MISSING skips the test function (or, with RATELAB_PEERS=1, fails it) when the product
// cannot run here.
#define PEER_MISSING(what)                                                                                             \
    do {                                                                                                               \
        const QString m = QString(what) + " (.ci/run installs it)";                                                    \
        if (ratelab::test::peersRequired())                                                                            \
            QFAIL(qPrintable("RATELAB_PEERS=1 but " + m));                                                             \
        QSKIP(qPrintable(m));                                                                                          \
    } while (false)
