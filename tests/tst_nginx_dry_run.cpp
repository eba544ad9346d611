// The real nginx agrees with replay --config: a private nginx (Debian's nginx-light)
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
// A second config is written as people write theirs (a redirect server, a quoted word before ")",
// try_files into a named location, $request_uri and constant keys, return before limit_req):
// nginx and the dry run agree on it the same way.
//
// Without nginx installed this is a skip; with RATELAB_PEERS=1 (CI) a failure.
#include "advise/let_by.h"
#include "advise/nginx_advice.h"
#include "config_dry_run.h"
#include "replay/dry_run.h"
#include "replay/log_keys.h"
#include "traffic/traffic_parse.h"

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

#include <map>
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
bool get(quint16 port, const QString& path, const QString& client, const QString& host = {})
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
        const QString header = (client.isEmpty() ? QString() : "X-Client: " + client + "\r\n")
                             + (host.isEmpty() ? QString() : "Host: " + host + "\r\n");
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

// nginxPath returns the nginx executable, or "" when it is not installed.
QString nginxPath()
{
    QString nginx = QStandardPaths::findExecutable("nginx");
    if (nginx.isEmpty())
        nginx = QStandardPaths::findExecutable("nginx", {"/usr/sbin", "/sbin"});
    return nginx;
}

// Served is what a private nginx wrote for a sequence of requests: its JSON access log (time,
// http_x_client, ip as $remote_addr, path as $request_uri, status as $limit_req_status) and the zones its error log
// names, one per rejection, in order.
// failure says what went wrong running nginx ("" when it served them all), for the test to fail with.
struct Served {
    QByteArray accessLog;
    QStringList rejectedZones;
    QString failure;
};

// serve runs nginx on `limits` (the http block's limit directives and its first server blocks,
// which the served server closes) and sends it the requests (path, X-Client) in order. What
// fails is returned in Served::failure, so that the test fails with it and the next one runs.
Served serve(const QString& nginx, const QString& limits, const std::vector<std::pair<QString, QString>>& requests,
             quint16 port, const QStringList& hosts = {})
{
    Served out;
    const auto failed = [&](const QString& why) {
        out.failure = "nginx: " + why;
        return out;
    };
    QTemporaryDir dir;
    if (!dir.isValid())
        return failed("no temporary folder");
    QDir(dir.path()).mkpath("www");
    QDir(dir.path()).mkpath("tmp");
    const QString conf = QString("daemon off;\nmaster_process off;\nworker_processes 1;\n"
                                 "error_log %1/error.log warn;\npid %1/nginx.pid;\n"
                                 "events { worker_connections 64; }\n"
                                 "http {\n"
                                 "    client_body_temp_path %1/tmp;\n"
                                 "    log_format dry escape=json '{\"time\":\"$msec\",\"http_x_client\":\"$http_x_client\","
                                 "\"ip\":\"$remote_addr\",\"host\":\"$host\",\"path\":\"$request_uri\",\"status\":\"$limit_req_status\"}';\n"
                                 "    access_log %1/access.log dry;\n")
                             .arg(dir.path())
                         + limits
                         + QString("        listen 127.0.0.1:%1;\n        root %2/www;\n"
                                   "        access_log %2/access.log dry;\n    }\n}\n")
                               .arg(port)
                               .arg(dir.path());
    QFile f(dir.filePath("nginx.conf"));
    if (!f.open(QIODevice::WriteOnly) || f.write(conf.toUtf8()) != conf.toUtf8().size())
        return failed("cannot write nginx.conf");
    f.close();
    QProcess server;
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start(nginx, {"-p", dir.path(), "-c", dir.filePath("nginx.conf")});
    if (!server.waitForStarted(5000))
        return failed("does not start: " + server.errorString());
    bool up = false;
    for (int i = 0; i < 100 && !up; ++i) { // until it listens: waits on nginx's exit, not a sleep
        up = get(port, {}, {});
        if (!up)
            server.waitForFinished(50);
        if (server.state() != QProcess::Running)
            return failed("stopped: " + QString::fromUtf8(server.readAll()));
    }
    if (!up)
        return failed("does not listen");
    for (std::size_t i = 0; i < requests.size(); ++i)
        if (!get(port, requests[i].first, requests[i].second, i < std::size_t(hosts.size()) ? hosts[qsizetype(i)] : QString()))
            return failed("no answer to " + requests[i].first);
    server.terminate();
    if (!server.waitForFinished(5000))
        return failed("does not stop");
    QFile access(dir.filePath("access.log"));
    if (!access.open(QIODevice::ReadOnly))
        return failed("no access log");
    out.accessLog = access.readAll();
    QFile errors(dir.filePath("error.log"));
    if (!errors.open(QIODevice::ReadOnly))
        return failed("no error log");
    const QRegularExpression rejection("limiting requests, dry run, excess: [0-9.]+ by zone \"([a-z]+)\"");
    for (const QByteArray& line : errors.readAll().split('\n'))
        if (const auto m = rejection.match(QString::fromUtf8(line)); m.hasMatch())
            out.rejectedZones << m.captured(1);
    return out;
}

// agreeing counts the requests nginx rejected while checking, request for request, that the dry
// run denies exactly those, by a rule of the zone nginx names; per zone, how many. The first
// disagreement is written to `failure` (left "" when they agree).
std::map<std::string, int> agreeing(const Served& served, const DryRunConfig& config, const DryRunResult& result,
                                    QString& failure)
{
    std::map<std::string, int> perZone;
    int i = 0, rejected = 0;
    for (const QByteArray& line : served.accessLog.split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString status = o["status"].toString();
        const bool nginxRejected = status == "REJECTED_DRY_RUN";
        if (std::size_t(i) >= result.deniedBy.size()) {
            failure = QString("nginx logged request %1, the dry run read %2 requests").arg(i).arg(result.deniedBy.size());
            return perZone;
        }
        const std::int32_t rule = result.deniedBy[std::size_t(i)];
        if (nginxRejected != (rule >= 0)) {
            failure = QString("request %1 (X-Client \"%2\", %3): nginx's $limit_req_status is \"%4\", the dry run %5")
                          .arg(i)
                          .arg(o["http_x_client"].toString(), o["path"].toString(), status,
                               rule >= 0 ? "denies it by " + QString::fromStdString(config.rules[std::size_t(rule)].name)
                                         : QString("admits it"));
            return perZone;
        }
        if (nginxRejected) {
            const std::string zone = config.zones[config.rules[std::size_t(rule)].zone].name;
            if (rejected >= served.rejectedZones.size() || QString::fromStdString(zone) != served.rejectedZones[rejected]) {
                failure = QString("request %1: the dry run names zone %2, nginx's error log %3")
                              .arg(i)
                              .arg(QString::fromStdString(zone),
                                   rejected < served.rejectedZones.size() ? "zone " + served.rejectedZones[rejected]
                                                                          : QString("no more rejections"));
                return perZone;
            }
            ++perZone[zone];
            ++rejected;
        }
        ++i;
    }
    if (rejected != served.rejectedZones.size())
        failure = QString("nginx's error log names %1 rejections, its access log %2").arg(served.rejectedZones.size()).arg(rejected);
    return perZone;
}

// trafficOf reads nginx's access log keyed by X-Client, with the fields a config's maps read.
Traffic trafficOf(const Served& served, const std::vector<std::string>& fields = {})
{
    TrafficOptions o;
    o.keyFields = fields;
    o.keepPaths = true;
    o.key = "http_x_client";
    o.emptyKeys = true;
    o.format = LogFormat::Json;
    return parseTraffic(std::string_view(served.accessLog.constData(), std::size_t(served.accessLog.size())), o, "access.log");
}

// clientsThenMallory is the advice tests' requests (path, X-Client): twenty clients c00..c19
// send 4 to /api each, round by round, then mallory sends `health` to /health and 30 to /api.
std::vector<std::pair<QString, QString>> clientsThenMallory(int health)
{
    std::vector<std::pair<QString, QString>> requests;
    for (int round = 0; round < 4; ++round)
        for (int c = 0; c < 20; ++c)
            requests.emplace_back("/api", QString("c%1").arg(c, 2, 10, QChar('0')));
    for (int i = 0; i < health; ++i)
        requests.emplace_back("/health", "mallory");
    for (int i = 0; i < 30; ++i)
        requests.emplace_back("/api", "mallory");
    return requests;
}

// plannedTraffic is those requests as a log keyed by X-Client, with their paths, 1 ms apart.
Traffic plannedTraffic(const std::vector<std::pair<QString, QString>>& requests)
{
    std::string log = "time,http_x_client,path\n";
    for (std::size_t i = 0; i < requests.size(); ++i)
        log += std::to_string(1795392000) + "." + (i < 10 ? "00" : i < 100 ? "0" : "") + std::to_string(i) + ","
             + requests[i].second.toStdString() + "," + requests[i].first.toStdString() + "\n";
    TrafficOptions options;
    options.key = "http_x_client";
    options.format = LogFormat::Csv;
    options.keepPaths = true;
    return parseTraffic(log, options, "planned.csv");
}

} // namespace

// SKIP_WITHOUT_NGINX ends a test that needs the real nginx when it is not installed: a skip, or a
// failure where the peers are required (RATELAB_PEERS=1, as CI runs them). A macro, since QSKIP
// and QFAIL end the test function they are written in.
#define SKIP_WITHOUT_NGINX(path)                                                                      \
    do {                                                                                              \
        if ((path).isEmpty()) {                                                                       \
            if (qEnvironmentVariable("RATELAB_PEERS") == "1")                                         \
                QFAIL("nginx is not installed (apt-get install nginx-light)");                        \
            QSKIP("nginx is not installed (apt-get install nginx-light)");                            \
        }                                                                                             \
    } while (false)

class TestNginxDryRun : public QObject {
    Q_OBJECT
private slots:
    void realNginxAgreesRequestForRequest()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort();
        QVERIFY(port != 0);
        std::mt19937_64 rng(32);
        // Paths nginx makes $uri of before it selects (merged slashes, %XX, dot segments), and a bad
        // %XX it answers 400 before any limit: the dry run reads them as nginx does.
        const QStringList paths = {"/api/a", "/api/b?x=1", "/login", "/login", "/index.php", "/other", "/login?next=/",
                                   "//login", "/%6Cogin", "/api/../login", "/%zz"};
        const QStringList clients = {"alice", "bob", "carol", ""}; // "": no header, so no limit keyed by it applies
        std::vector<std::pair<QString, QString>> requests;
        for (int i = 0; i < 90; ++i) {
            const QString path = paths[int(rng() % std::uint64_t(paths.size()))];
            requests.emplace_back(path, clients[int(rng() % 4)]);
        }
        const Served served = serve(nginx, kLimits, requests, port);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        const Traffic traffic = trafficOf(served);
        QCOMPARE(traffic.times.size(), std::size_t(90));
        QCOMPARE(traffic.outOfOrder, 0);
        const DryRunConfig config = io::dryRunConfig(QString("http {\n") + kLimits + "    }\n}\n", "http_x_client");
        QCOMPARE(config.mapped, std::vector<bool>(4, true)); // every zone's key is the log's field
        QVERIFY(config.notReplayed.empty());
        const DryRunResult result = dryRun(traffic, config);
        QString disagreement;
        const std::map<std::string, int> perZone = agreeing(served, config, result, disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        int rejected = 0, viaApiAtLogin = 0, keyless = 0;
        for (const auto& [zone, n] : perZone)
            rejected += n;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            keyless += requests[i].second.isEmpty();
            const std::int32_t rule = result.deniedBy[i];
            viaApiAtLogin += rule >= 0 && config.zones[config.rules[std::size_t(rule)].zone].name == "api"
                             && requests[i].first.startsWith("/login");
        }
        QVERIFY2(rejected >= 20, qPrintable(QString::number(rejected))); // the sequence is not vacuous
        QVERIFY(keyless >= 10); // requests without the header, which nginx let through every limit
        QVERIFY2(viaApiAtLogin > 0, "no /login request was rejected by api after login admitted it");
    }

    // A config as people write it (Nominatim's quoted if, discourse_docker's try_files into
    // @app), with a redirect server beside the one serving: the app zone per X-Client behind
    // try_files, a $request_uri zone, one constant-key zone for every client, and a location
    // whose return answers before its limit_req. www is empty, so try_files finds no file for
    // these paths ("/" itself, a directory there, is not sent) and every request of "/" reaches
    // @app, the dry run's assumption. No path has q=1, so the if never returns.
    void realConfigsAsWritten()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort(), redirect = freePort();
        QVERIFY(port != 0 && redirect != 0);
        const QString limits = QString("    limit_req_zone $http_x_client zone=app:1m rate=1r/m;\n"
                                       "    limit_req_zone \"global\" zone=all:1m rate=1r/m;\n"
                                       "    limit_req_zone $request_uri zone=uri:1m rate=1r/m;\n"
                                       "    limit_req_dry_run on;\n"
                                       "    server {\n"
                                       "        listen 127.0.0.1:%1;\n"
                                       "        access_log off;\n"
                                       "        return 301 https://$host$request_uri;\n"
                                       "    }\n"
                                       "    server {\n"
                                       "        if ($args ~* \"q=1\") { return 418; }\n"
                                       "        location / { try_files $uri $uri/ @app; }\n"
                                       "        location @app { limit_req zone=app burst=3; }\n"
                                       "        location /search { limit_req zone=uri burst=1; }\n"
                                       "        location /status { limit_req zone=all; return 200; }\n"
                                       "        location /api/ { limit_req zone=all burst=10; }\n")
                                   .arg(redirect);
        std::mt19937_64 rng(46);
        const QStringList paths = {"/a", "/b/c", "/index.html", "/search?q=a", "/search?q=b", "/status", "/api/x",
                                   "/api/y?q=2"};
        const QStringList clients = {"alice", "bob", "carol", ""};
        std::vector<std::pair<QString, QString>> requests;
        for (int i = 0; i < 90; ++i)
            requests.emplace_back(paths[int(rng() % std::uint64_t(paths.size()))], clients[int(rng() % 4)]);
        const Served served = serve(nginx, limits, requests, port);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        const Traffic traffic = trafficOf(served);
        QCOMPARE(traffic.times.size(), std::size_t(90));
        const DryRunConfig config = io::dryRunConfig("http {\n" + limits + "    }\n}\n", "http_x_client");
        QCOMPARE(config.mapped, std::vector<bool>(3, true));
        QVERIFY(config.notReplayed.empty());
        QString disagreement;
        const std::map<std::string, int> perZone = agreeing(served, config, dryRun(traffic, config), disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        // Each zone rejected some: the sequence is not vacuous for any of the shapes.
        QVERIFY2(perZone.count("app") && perZone.count("all") && perZone.count("uri"), "a zone rejected nothing");
        int statusRequests = 0;
        for (const auto& [path, client] : requests)
            statusRequests += path == "/status";
        QVERIFY(statusRequests >= 2); // answered by return, never rejected although zone all has no burst
    }

    // Two servers on one port, chosen by the Host: a.example's (the first, so the default server)
    // limits / by zone a, b.example's /api/ by zone b and its other paths by its own limit_req,
    // zone c. A request without a Host header, or with another name, reaches a.example's ($host
    // is then the default server's name, or the name sent); the log's $host routes each request
    // in the dry run as nginx did.
    void realServersByHost()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort();
        QVERIFY(port != 0);
        const QString limits = QString("    limit_req_zone $http_x_client zone=a:1m rate=1r/m;\n"
                                       "    limit_req_zone $http_x_client zone=b:1m rate=1r/m;\n"
                                       "    limit_req_zone $http_x_client zone=c:1m rate=1r/m;\n"
                                       "    limit_req_dry_run on;\n"
                                       "    server {\n"
                                       "        listen 127.0.0.1:%1;\n"
                                       "        server_name a.example;\n"
                                       "        location / { limit_req zone=a burst=1; }\n"
                                       "    }\n"
                                       "    server {\n"
                                       "        server_name b.example;\n"
                                       "        limit_req zone=c burst=1;\n"
                                       "        location /api/ { limit_req zone=b burst=1; }\n")
                                   .arg(port);
        std::mt19937_64 rng(4647);
        const QStringList paths = {"/x", "/api/1", "/y"}, clients = {"alice", "bob"},
                          names = {"a.example", "b.example", "other.org", ""};
        std::vector<std::pair<QString, QString>> requests;
        QStringList hosts;
        for (int i = 0; i < 60; ++i) {
            requests.emplace_back(paths[int(rng() % 3)], clients[int(rng() % 2)]);
            hosts << names[int(rng() % 4)];
        }
        const Served served = serve(nginx, limits, requests, port, hosts);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        DryRunConfig config = io::dryRunConfig(
            "http {\n" + limits + QString("        listen 127.0.0.1:%1;\n    }\n}\n").arg(port), "http_x_client");
        QCOMPARE(keyFieldsOf(config), std::vector<std::string>{"host"});
        const Traffic traffic = trafficOf(served, keyFieldsOf(config));
        QCOMPARE(traffic.times.size(), std::size_t(60));
        bindKeyFields(config, traffic);
        QVERIFY2(config.notReplayed.empty(), config.notReplayed.empty() ? "" : config.notReplayed[0].c_str());
        QString disagreement;
        const std::map<std::string, int> perZone = agreeing(served, config, dryRun(traffic, config), disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        QVERIFY2(perZone.count("a") && perZone.count("b") && perZone.count("c"), "a zone rejected nothing");
    }

    // A zone keyed by a map of X-Client, the shapes people write: no header ("") and the vip
    // clients are not limited (an empty key), the key "carol" in any case keeps the header as
    // sent (Carol and carol two buckets), dave and ERIN* (caseless regex) share one bucket, and
    // everyone else is limited per $remote_addr: alice and bob, both from 127.0.0.1, share that
    // one. The dry run evaluates the map on the logged fields as nginx did, request for request.
    void realMapKeys()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort();
        QVERIFY(port != 0);
        const QString limits = "    map $http_x_client $limit_key {\n"
                               "        default $remote_addr;\n"
                               "        \"\" \"\";\n"
                               "        ~^vip \"\";\n"
                               "        carol $http_x_client;\n"
                               "        dave shared;\n"
                               "        ~*^ERIN shared;\n"
                               "    }\n"
                               "    limit_req_zone $limit_key zone=mapped:1m rate=1r/m;\n"
                               "    limit_req_dry_run on;\n"
                               "    server {\n"
                               "        location / { limit_req zone=mapped burst=2; }\n";
        std::mt19937_64 rng(4646);
        const QStringList clients = {"alice", "bob", "Carol", "carol", "dave", "erin", "vip1", ""};
        std::vector<std::pair<QString, QString>> requests;
        for (int i = 0; i < 90; ++i)
            requests.emplace_back("/x", clients[int(rng() % std::uint64_t(clients.size()))]);
        const Served served = serve(nginx, limits, requests, port);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        DryRunConfig config = io::dryRunConfig("http {\n" + limits + "    }\n}\n", "http_x_client");
        QCOMPARE(keyFieldsOf(config), std::vector<std::string>{"ip"}); // $remote_addr; X-Client is the log's key
        const Traffic traffic = trafficOf(served, keyFieldsOf(config));
        QCOMPARE(traffic.times.size(), std::size_t(90));
        bindKeyFields(config, traffic);
        QCOMPARE(config.mapped, std::vector<bool>{true});
        QVERIFY(config.notReplayed.empty());
        const DryRunResult result = dryRun(traffic, config);
        QString disagreement;
        agreeing(served, config, result, disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        // Not vacuous: each bucket of three requests or more rejected, and the unlimited never.
        std::map<QString, int> denied;
        for (std::size_t i = 0; i < requests.size(); ++i)
            denied[requests[i].second] += result.deniedBy[i] >= 0;
        QVERIFY2(denied["alice"] + denied["bob"] > 0 && denied["dave"] + denied["erin"] > 0 && denied["carol"] > 0,
                 "a bucket rejected nothing");
        QCOMPARE(denied["vip1"] + denied[""], 0);
    }

    // What `advise --for nginx` writes, nginx runs as the advice said. The log: twenty clients
    // c00..c19 send 4 requests each, round by round, 1 ms apart (a client's own 20 ms apart), then
    // mallory sends 30. Keeping 95% of 21 clients keeps the 20th count, 4: mallory is not kept.
    // nginx's 1r/m is 16 in its integer units, which drains nothing in 20 ms, so 4 requests need
    // excess 3000, burst 3; the least rate at which burst 3 drains within 10 s is 0.3/s, 18r/m.
    // There a client's 4th request comes at 3000 less what has drained, admitted (nginx rejects
    // above burst * 1000); mallory's 5th at 4000 less under 1000 (that takes 3.3 s), rejected, and
    // every later one too, a rejection leaving the excess as it was: 26 rejected, all mallory's.
    // nginx runs the written lines unedited (it starts only on a config it accepts), and both
    // hold however long the requests take under 3 s, so its rejections are those 26.
    void advisedConfigAsRealNginxRunsIt()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort();
        QVERIFY(port != 0);
        const std::vector<std::pair<QString, QString>> requests = clientsThenMallory(0);
        const Traffic planned = plannedTraffic(requests);
        AdviceOptions goal;
        goal.keep = kPercentUnit / 100 * 95;
        const NginxBurstFamily family;
        const Advice advice = advise(keyedTraces(planned), family, goal);
        QCOMPARE(advice.keptKeys, std::int64_t(20));
        QCOMPARE(advice.recommended.step, std::int64_t(18)); // r/m
        QCOMPARE(advice.recommended.burst, std::int64_t(3));
        QCOMPARE(advice.recommended.denied.kept, std::int64_t(0));
        QCOMPARE(advice.recommended.denied.other, std::int64_t(26));
        const std::string written = nginxAdviceConfig(family, advice.recommended.step, advice.recommended.burst,
                                                      nginxKeyVariable("http_x_client"), 1);
        QCOMPARE(written, std::string("limit_req_zone $http_x_client zone=ratelab:1m rate=18r/m;\n"
                                      "limit_req zone=ratelab burst=3 nodelay;\nlimit_req_dry_run on;\n"));
        QString limits;
        for (const QString& line : QString::fromStdString(written).split('\n', Qt::SkipEmptyParts))
            limits += "    " + line + "\n";
        const Served served = serve(nginx, limits + "    server {\n", requests, port);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        const DryRunConfig config = io::dryRunConfigText(QByteArray::fromStdString(written), "http_x_client");
        const Traffic traffic = trafficOf(served);
        QCOMPARE(traffic.times.size(), requests.size());
        const DryRunResult result = dryRun(traffic, config);
        QString disagreement;
        const std::map<std::string, int> perZone = agreeing(served, config, result, disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        QCOMPARE(perZone, (std::map<std::string, int>{{"ratelab", 26}}));
        for (std::size_t i = 0; i < requests.size(); ++i)
            QVERIFY2((result.deniedBy[i] >= 0) == (i >= 84), qPrintable(QString::number(i)));
    }

    // advise --pass-path: the log above, with mallory sending 10 requests to /health first. Let
    // by, they leave the advice as it was (18r/m, burst 3, mallory's /api after its 4th
    // rejected: 26). Counted, they would take mallory's burst: its first 4 /health admitted, and
    // every later request of it rejected. The written map gives /health an empty key, which real
    // nginx does not count ($limit_req_status stays empty), and both agree request for request.
    void advisedLetByAsRealNginxRunsIt()
    {
        const QString nginx = nginxPath();
        SKIP_WITHOUT_NGINX(nginx);
        const quint16 port = freePort();
        QVERIFY(port != 0);
        const std::vector<std::pair<QString, QString>> requests = clientsThenMallory(10);
        const Traffic planned = plannedTraffic(requests);
        const LetBy health{"/health", ""};
        AdviceOptions goal;
        goal.keep = kPercentUnit / 100 * 95;
        const NginxBurstFamily family;
        const Advice advice = advise(keyedTraces(planned, {}, letByOf(planned, health)), family, goal);
        QCOMPARE(advice.letByRequests, std::int64_t(10));
        QCOMPARE(advice.recommended.step, std::int64_t(18)); // r/m
        QCOMPARE(advice.recommended.burst, std::int64_t(3));
        QCOMPARE(advice.recommended.denied.other, std::int64_t(26));
        QCOMPARE(family.denied(keyedTraces(planned).trace(20), 18, 3), std::int64_t(36)); // counted: 40 - 4
        const std::string written = nginxAdviceConfig(family, 18, 3, nginxKeyVariable("http_x_client"), 1, health);
        QCOMPARE(written, std::string("map $request_uri $ratelab_key {\n    \"~^(?:/health)$\" \"\";\n"
                                      "    default $http_x_client;\n}\n"
                                      "limit_req_zone $ratelab_key zone=ratelab:1m rate=18r/m;\n"
                                      "limit_req zone=ratelab burst=3 nodelay;\nlimit_req_dry_run on;\n"));
        QString limits;
        for (const QString& line : QString::fromStdString(written).split('\n', Qt::SkipEmptyParts))
            limits += "    " + line + "\n";
        const Served served = serve(nginx, limits + "    server {\n", requests, port);
        QVERIFY2(served.failure.isEmpty(), qPrintable(served.failure));
        DryRunConfig config = io::dryRunConfigText(QByteArray::fromStdString(written), "http_x_client");
        const Traffic traffic = trafficOf(served, keyFieldsOf(config));
        QCOMPARE(traffic.times.size(), requests.size());
        bindKeyFields(config, traffic);
        QCOMPARE(config.mapped, std::vector<bool>{true});
        const DryRunResult result = dryRun(traffic, config);
        QString disagreement;
        const std::map<std::string, int> perZone = agreeing(served, config, result, disagreement);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
        QCOMPARE(perZone, (std::map<std::string, int>{{"ratelab", 26}}));
        QCOMPARE(result.rules[0].requests, std::int64_t(110));
        for (std::size_t i = 0; i < requests.size(); ++i)
            QVERIFY2((result.deniedBy[i] >= 0) == (i >= 94), qPrintable(QString::number(i)));
    }
};

QTEST_GUILESS_MAIN(TestNginxDryRun)
#include "tst_nginx_dry_run.moc"
