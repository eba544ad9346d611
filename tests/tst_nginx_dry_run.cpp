// The real nginx agrees with replay --config (issue 32): a private nginx (Debian's nginx-light)
// with limit_req_dry_run on and $limit_req_status in a JSON access log is sent a seeded sequence
// of requests over loopback; the log it writes is replayed through the same config (dryRun) and
// every request's fate agrees: REJECTED_DRY_RUN iff the dry run denies it, and the zone nginx's
// error log names for each rejection is the zone of the rule the dry run names. The zones are
// keyed by a header ($http_x_client, mapped onto the log's field of that name) and count per minute,
// so a request's millisecond (nginx's monotonic clock, the log's wall clock) never changes a
// decision: k requests within a second give excess k*1000 less at most 16.
//
// The /login location asks login, then api: a request api rejects leaves login untouched, as
// nginx accounts its zones only once every limit admits; the layers' rule (login consumed) would
// have login reject some of them instead, which the zone names tell apart.
//
// Without nginx installed this is a skip; with RATELAB_PEERS=1 (CI) a failure.
#include "config_dry_run.h"
#include "replay/dry_run.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>

using namespace ratelab;

namespace {

const char* kLimits = "    limit_req_zone $http_x_client zone=api:1m rate=1r/m;\n"
                      "    limit_req_zone $http_x_client zone=login:1m rate=1r/m;\n"
                      "    limit_req_dry_run on;\n"
                      "    server {\n"
                      "        location /api/ { limit_req zone=api burst=5; }\n"
                      "        location = /login { limit_req zone=login burst=2; limit_req zone=api burst=1; }\n"
                      "        location ~ \\.php$ { limit_req zone=login burst=1 nodelay; }\n"
                      "        location / { }\n";

sockaddr_in loopback(quint16 port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

// freePort returns a loopback port nobody listens on now (bound to port 0, then given back).
quint16 freePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(0);
    socklen_t size = sizeof a;
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0
                    && getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0;
    close(fd);
    return ok ? ntohs(a.sin_port) : 0;
}

// get sends one request (an empty path: none, only a connection) and reads until nginx closes.
bool get(quint16 port, const QString& path, const QString& client)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const sockaddr_in a = loopback(port);
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    bool ok = true;
    if (!path.isEmpty()) {
        const QString header = client.isEmpty() ? QString() : "X-Client: " + client + "\r\n";
        const QByteArray request = ("GET " + path + " HTTP/1.0\r\n" + header + "\r\n").toUtf8();
        ok = write(fd, request.constData(), std::size_t(request.size())) == request.size();
        char buffer[4096];
        ssize_t n = 0;
        while (ok && (n = read(fd, buffer, sizeof buffer)) > 0) {
        }
        ok = ok && n == 0;
    }
    close(fd);
    return ok;
}

} // namespace

class TestNginxDryRun : public QObject {
    Q_OBJECT
private slots:
    void realNginxAgreesRequestForRequest()
    {
        QString nginx = QStandardPaths::findExecutable("nginx");
        if (nginx.isEmpty())
            nginx = QStandardPaths::findExecutable("nginx", {"/usr/sbin", "/sbin"});
        if (nginx.isEmpty()) {
            if (qEnvironmentVariable("RATELAB_PEERS") == "1")
                QFAIL("nginx is not installed (apt-get install nginx-light)");
            QSKIP("nginx is not installed (apt-get install nginx-light)");
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const quint16 port = freePort();
        QVERIFY(port != 0);
        QDir(dir.path()).mkpath("www");
        QDir(dir.path()).mkpath("tmp");
        const QString conf = QString("daemon off;\nmaster_process off;\nworker_processes 1;\n"
                                     "error_log %1/error.log warn;\npid %1/nginx.pid;\n"
                                     "events { worker_connections 64; }\n"
                                     "http {\n"
                                     "    client_body_temp_path %1/tmp;\n"
                                     "    log_format dry escape=json '{\"time\":\"$msec\",\"http_x_client\":\"$http_x_client\","
                                     "\"path\":\"$request_uri\",\"status\":\"$limit_req_status\"}';\n")
                                 .arg(dir.path())
                             + kLimits
                             + QString("        listen 127.0.0.1:%1;\n        root %2/www;\n"
                                       "        access_log %2/access.log dry;\n    }\n}\n")
                                   .arg(port)
                                   .arg(dir.path());
        QFile f(dir.filePath("nginx.conf"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(conf.toUtf8());
        f.close();
        QProcess server;
        server.setProcessChannelMode(QProcess::MergedChannels);
        server.start(nginx, {"-p", dir.path(), "-c", dir.filePath("nginx.conf")});
        QVERIFY2(server.waitForStarted(5000), qPrintable(server.errorString()));
        bool up = false;
        for (int i = 0; i < 100 && !up; ++i) { // until it listens: waits on nginx's exit, not a sleep
            up = get(port, {}, {});
            if (!up)
                server.waitForFinished(50);
            QVERIFY2(server.state() == QProcess::Running, server.readAll().constData());
        }
        QVERIFY(up);
        std::mt19937_64 rng(32);
        // Paths nginx makes $uri of before it selects (merged slashes, %XX, dot segments), and a bad
        // %XX it answers 400 before any limit: the dry run reads them as nginx does.
        const QStringList paths = {"/api/a", "/api/b?x=1", "/login", "/login", "/index.php", "/other", "/login?next=/",
                                   "//login", "/%6Cogin", "/api/../login", "/%zz"};
        const QStringList clients = {"alice", "bob", "carol", ""}; // "": no header, so no limit keyed by it applies
        for (int i = 0; i < 90; ++i)
            QVERIFY(get(port, paths[int(rng() % std::uint64_t(paths.size()))], clients[int(rng() % 4)]));
        server.terminate();
        QVERIFY(server.waitForFinished(5000));

        QFile access(dir.filePath("access.log"));
        QVERIFY(access.open(QIODevice::ReadOnly));
        const QByteArray logText = access.readAll();
        TrafficOptions o;
        o.keepPaths = true;
        o.key = "http_x_client";
        o.emptyKeys = true;
        o.format = LogFormat::Json;
        const Traffic traffic = parseTraffic(std::string_view(logText.constData(), std::size_t(logText.size())), o, "access.log");
        QCOMPARE(traffic.times.size(), std::size_t(90));
        QCOMPARE(traffic.outOfOrder, 0);
        const DryRunConfig config = io::dryRunConfig(QString("http {\n") + kLimits + "    }\n}\n", "http_x_client");
        QCOMPARE(config.mapped, std::vector<bool>(4, true)); // every zone's key is the log's field
        QVERIFY(config.notReplayed.empty());
        const DryRunResult result = dryRun(traffic, config);

        QFile errors(dir.filePath("error.log"));
        QVERIFY(errors.open(QIODevice::ReadOnly));
        QStringList rejectedZones; // in order, one per rejection
        const QRegularExpression rejection("limiting requests, dry run, excess: [0-9.]+ by zone \"([a-z]+)\"");
        for (const QByteArray& line : errors.readAll().split('\n'))
            if (const auto m = rejection.match(QString::fromUtf8(line)); m.hasMatch())
                rejectedZones << m.captured(1);

        int i = 0, rejected = 0, viaApiAtLogin = 0, keyless = 0;
        for (const QByteArray& line : logText.split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            const QString status = o["status"].toString();
            const bool nginxRejected = status == "REJECTED_DRY_RUN";
            keyless += o["http_x_client"].toString().isEmpty();
            const std::int32_t rule = result.deniedBy[std::size_t(i)];
            QVERIFY2(nginxRejected == (rule >= 0), qPrintable(QString("request %1 (%2 %3): nginx %4, dry run %5")
                                                                   .arg(i).arg(o["http_x_client"].toString(), o["path"].toString(), status)
                                                                   .arg(rule)));
            if (nginxRejected) {
                QVERIFY(rejected < rejectedZones.size());
                const std::string zone = config.zones[config.rules[std::size_t(rule)].zone].name;
                QCOMPARE(QString::fromStdString(zone), rejectedZones[rejected]);
                viaApiAtLogin += zone == "api" && o["path"].toString().startsWith("/login");
                ++rejected;
            }
            ++i;
        }
        QCOMPARE(rejected, rejectedZones.size());
        QVERIFY2(rejected >= 20, qPrintable(QString::number(rejected))); // the sequence is not vacuous
        QVERIFY(keyless >= 10); // requests without the header, which nginx let through every limit
        QVERIFY2(viaApiAtLogin > 0, "no /login request was rejected by api after login admitted it");
    }
};

QTEST_GUILESS_MAIN(TestNginxDryRun)
#include "tst_nginx_dry_run.moc"
