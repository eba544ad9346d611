// `ratelab import` reads an nginx configuration as nginx does: comments are not
// configuration, arguments come in any order, every zone and limit_req is modelled or named, a
// block inherits its parent's limit_req list only when it has none, and what nginx refuses is
// refused with its line. Every expectation is read off the configuration by hand.
#include "cli_run.h"

#include "config_import.h"
#include "config_import_nginx.h"
#include "arithmetic/decimal.h"
#include "limiters/any_limiter.h"
#include "scenariofile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using clitest::runRatelab;

namespace {

io::ImportedConfig import(const char* text) { return io::importConfiguration(QByteArray(text)); }

std::string refusal(const char* text)
{
    try {
        (void)io::importConfiguration(QByteArray(text));
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

bool mentions(const std::vector<std::string>& lines, const std::string& part)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

} // namespace

class TestImportNginx : public QObject {
    Q_OBJECT
private slots:
    // A commented-out limit_req_zone above the live one is not read: 1r/s, not 1000r/s. A '#'
    // after a directive on its line comments out the rest too.
    void commentsAreNotConfiguration()
    {
        const auto c = import("# limit_req_zone $binary_remote_addr zone=one:10m rate=1000r/s;\n"
                              "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s; # was 1000r/s\n"
                              "server { location / { limit_req zone=one; # burst=50\n } }\n");
        QCOMPARE(c.scenario.config.rate(), Rate::reduced(1, kNanosPerSecond));
        QCOMPARE(c.scenario.config.nginxBurst(), 0);
        QVERIFY(!c.scenario.config.nginx().nodelay);
        QCOMPARE(refusal("# limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n"),
                 std::string("nginx: no limit_req_zone directive found (a commented-out one is not configuration)"));
    }

    // nginx takes limit_req's parameters in any order, and limit_req_zone's zone= and rate=
    // in any order after the key.
    void argumentsInAnyOrder()
    {
        const auto a = import("limit_req_zone $binary_remote_addr zone=one:10m rate=50r/s;\n"
                              "server { location / { limit_req burst=5 zone=one nodelay; } }\n");
        QCOMPARE(a.scenario.config.nginxBurst(), 5);
        QVERIFY(a.scenario.config.nginx().nodelay);
        const auto b = import("limit_req_zone $binary_remote_addr rate=10r/s zone=one:10m;\n"
                              "server { location / { limit_req nodelay burst=3 zone=one; } }\n");
        QCOMPARE(b.scenario.config.rate(), Rate::reduced(10, kNanosPerSecond));
        QCOMPARE(b.scenario.config.nginxBurst(), 3);
        // delay= after nodelay wins, as the later word does in nginx.
        const auto d = import("limit_req_zone $k zone=one:10m rate=10r/s;\nlimit_req nodelay zone=one delay=2;\n");
        QVERIFY(!d.scenario.config.nginx().nodelay);
        QCOMPARE(d.scenario.config.nginx().delay, 2);
        QCOMPARE(d.modelledPlace, std::string("http"));
        // rate= absent is nginx's 1r/s; a per-minute rate is per 60 s.
        const auto m = import("limit_req_zone $k zone=one:32k rate=6r/m;\nlimit_req zone=one;\n");
        QCOMPARE(m.scenario.config.rate(), Rate::reduced(6, 60 * kNanosPerSecond));
    }

    // An api zone and a login zone at 1r/m: the first location with limits is modelled, the
    // other is named with its limits. A zone no limit_req applies is named too.
    void everyZoneIsModelledOrNamed()
    {
        const auto c = import("limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n"
                              "limit_req_zone $binary_remote_addr zone=login:10m rate=1r/m;\n"
                              "limit_req_zone $http_x_api_key zone=spare:10m rate=5r/s;\n"
                              "server {\n"
                              "  location /api/ { limit_req zone=api burst=20; }\n"
                              "  location = /login { limit_req zone=login; }\n"
                              "}\n");
        QCOMPARE(c.modelledPlace, std::string("location /api/"));
        QCOMPARE(c.scenario.config.rate(), Rate::reduced(10, kNanosPerSecond));
        QVERIFY(c.scenario.layers.empty());
        QCOMPARE(c.notModelled.size(), std::size_t(2));
        QCOMPARE(c.notModelled[0], std::string("location = /login (line 6): zone=login 1r/m per $binary_remote_addr (a "
                                               "scenario models one location's limits)"));
        QVERIFY(c.notModelled[1].starts_with("limit_req_zone spare (line 3, 5r/s per $http_x_api_key): no limit_req"));
        const std::string report = io::whatYouGet(c);
        QVERIFY(report.find("Not modelled in this scenario:\n  - location = /login") != std::string::npos);
    }

    // Two limit_req in one location are layers in the scenario import writes, each with its
    // own rate and burst, and the saved scenario reads back the same layers.
    void twoLimitsInOneLocationAreLayers()
    {
        const auto c = import("limit_req_zone $binary_remote_addr zone=ip:10m rate=10r/s;\n"
                              "limit_req_zone $http_x_api_key zone=key:10m rate=2r/m;\n"
                              "server { location /api/ { limit_req zone=ip burst=20 nodelay; limit_req zone=key burst=1 nodelay; } }\n");
        QCOMPARE(c.scenario.layers.size(), std::size_t(2));
        QCOMPARE(c.scenario.layers[0].config.rate(), Rate::reduced(10, kNanosPerSecond));
        QCOMPARE(c.scenario.layers[0].config.nginxBurst(), 20);
        QCOMPARE(c.scenario.layers[1].config.rate(), Rate::reduced(2, 60 * kNanosPerSecond));
        QCOMPARE(c.scenario.layers[1].config.nginxBurst(), 1);
        QVERIFY(c.notModelled.empty()); // both nodelay: the saved layers keep it
        QVERIFY(mentions(c.assumed, "nginx counts it in a zone only when all of them admit it"));
        // At once from idle: ip admits 21, key 2 (burst 1 + 1): 2 pass. In the long run key's
        // 2 per minute binds, as nginx holds it: 2 * 1000 / 60 = 33 thousandths a second, so one
        // request's 1000 drain in 1000 * 1000 / 33 = 30303.03 ms, whole ms: one every 30.304 s
        // (1 / 30.304 = 0.0329989 per second), short of the 30 s written: the first surprise.
        const std::string report = io::whatYouGet(c);
        QVERIFY2(report.find("burst      2 at once from idle") != std::string::npos, report.c_str());
        QVERIFY2(report.find("rate       0.0329989 per second (one every 30.304 s) once the burst is spent") != std::string::npos,
                 report.c_str());
        QVERIFY2(report.find("First surprise: you wrote 0.0333333 per second (one every 30 s), but at most 0.0329989") != std::string::npos,
                 report.c_str());
        const io::LoadResult back = io::parseScenario(io::serializeScenario(c.scenario));
        QVERIFY2(back.scenario, qPrintable(back.error));
        QCOMPARE(back.scenario->layers, c.scenario.layers);
    }

    // discourse_docker's web.ratelimited template: flood 12r/s burst=12 and bot 200r/m burst=100
    // on one location, both per $binary_remote_addr. nginx holds 12r/s as 12000 thousandths a
    // second and 200r/m as 200 * 1000 / 60 = 3333, so bot binds in the long run (3.333 a second,
    // not the 12 written first); at once flood binds: burst 12 + the first = 13. Neither is both,
    // so which refuses first depends on the traffic: a steady stream of r lets b * r / (r - R)
    // through a zone after the first; they are equal where 12 (r - 3333) = 100 (r - 12000), r =
    // (1200000 - 39996) / 88 = 13181.86 thousandths: 13.18 a second.
    void theBindingZoneIsNamed()
    {
        const auto c = import("limit_req_zone $binary_remote_addr zone=flood:10m rate=12r/s;\n"
                              "limit_req_zone $binary_remote_addr zone=bot:10m rate=200r/m;\n"
                              "server {\n"
                              "  location / { try_files $uri @discourse; }\n"
                              "  location @discourse {\n"
                              "    limit_req zone=flood burst=12 nodelay;\n"
                              "    limit_req zone=bot burst=100 nodelay;\n"
                              "  }\n"
                              "}\n");
        QCOMPARE(c.modelledPlace, std::string("location @discourse"));
        QCOMPARE(c.binds.size(), std::size_t(3));
        QCOMPARE(c.binds[0], std::string("in the long run zone bot binds: its 200r/m, which nginx holds as 3.333 a second, is the slowest"));
        QCOMPARE(c.binds[1], std::string("at once zone flood binds: 13 requests from idle (its burst=12 and the first, the fewest)"));
        QVERIFY2(c.binds[2].starts_with("which zone refuses first depends on the traffic: a client sending steadily from idle is "
                                        "refused first by zone bot between 3.333 and 13.18 a second, by zone flood above 13.18 "
                                        "a second ("),
                 c.binds[2].c_str());
        const std::string report = io::whatYouGet(c);
        QVERIFY2(report.find("  binds      in the long run zone bot binds") != std::string::npos, report.c_str());
        // The rate line is bot's, measured once bot's burst is spent (flood paces the client at
        // 12 a second until bot is full, about 10 s in), not flood's 12. Full, bot admits when
        // 1000 has drained: the excess e at 100000 needs ceil(1000 * 1000 / 3333) = 301 ms
        // (drains 3333 * 301 / 1000 = 1003: e = 99997), then ceil(997000 / 3333) = 300 (999:
        // 99998), 300 (99999), 300 (100000): 4 requests each 1201 ms. The measure spans a whole
        // number of requests, 311 = 77 cycles and 3 gaps of 900 or 901 ms: 311 / 93.377 =
        // 3.33059, 311 / 93.378 = 3.33055.
        QVERIFY2(report.find("rate       3.3305") != std::string::npos
                     && report.find(" per second once the burst is spent (you wrote 3.33333 per second)") != std::string::npos,
                 report.c_str());
        QVERIFY2(report.find("burst      13 at once from idle") != std::string::npos, report.c_str());
        // The model agrees on either side of 13.18: at 13 a second (76.9 ms apart) flood gains
        // 1000 - 12 * 76.9 = 77 a request and refuses after about 12000 / 77 = 156, bot gains
        // 1000 - 3.333 * 76.9 = 744 and refuses after about 100000 / 744 = 134: bot first. At 14
        // (71.4 ms) flood gains 143 (84 through), bot 762 (131): flood first.
        const auto firstRefused = [&](std::size_t layer, Nanos every) {
            AnyLimiter limiter = makeLimiter(Algorithm::NginxLimitReq, c.scenario.layers[layer].config);
            for (int i = 0; i < 1000; ++i)
                if (!limiter.decide(i * every).allowed)
                    return i;
            return -1;
        };
        QVERIFY(firstRefused(1, kNanosPerSecond / 13) < firstRefused(0, kNanosPerSecond / 13));
        QVERIFY(firstRefused(0, kNanosPerSecond / 14) < firstRefused(1, kNanosPerSecond / 14));
    }

    // One zone with both the slowest rate and the smallest burst binds on any traffic; zones
    // with different keys are said to hold for one client. a: 10r/s burst=5, b: 20r/s burst=10.
    // Three zones, z1 1r/s burst=50, z2 5r/s burst=10, z3 20r/s burst=2 (thousandths 1000, 5000,
    // 20000): the pairs let as many through at (b_i R_j - b_j R_i) / (b_i - b_j): z1,z2 (250000 -
    // 10000) / 40 = 6000; z1,z3 (1000000 - 2000) / 48 = 20791.7; z2,z3 (200000 - 10000) / 8 =
    // 23750. Between those, b r / (r - R) is least for: at 3500, z1 (70; z2, z3 never refuse);
    // at 13396, z2 (16.0 against z1's 54.0); at 22271, z2 (12.9 against z3's 19.6); at 35625, z3
    // (4.56 against z2's 11.6). So z1 to 6, z2 to 23.75 (20.79 changes nothing first), z3 above.
    void theBindingZoneOnAnyTraffic()
    {
        const auto two = import("limit_req_zone $binary_remote_addr zone=a:10m rate=10r/s;\n"
                                "limit_req_zone $server_name zone=b:10m rate=20r/s;\n"
                                "server { location / { limit_req zone=a burst=5; limit_req zone=b burst=10; } }\n");
        QCOMPARE(two.binds.size(), std::size_t(4));
        QCOMPARE(two.binds[2], std::string("zone a has both the slowest rate and the smallest burst, so it refuses first on any "
                                           "traffic: no other zone refuses a request it admits"));
        QVERIFY2(two.binds[3].starts_with("the zones count different keys (a per $binary_remote_addr, b per $server_name)"),
                 two.binds[3].c_str());
        const auto three = import("limit_req_zone $binary_remote_addr zone=z1:10m rate=1r/s;\n"
                                  "limit_req_zone $binary_remote_addr zone=z2:10m rate=5r/s;\n"
                                  "limit_req_zone $binary_remote_addr zone=z3:10m rate=20r/s;\n"
                                  "server { location / { limit_req zone=z1 burst=50; limit_req zone=z2 burst=10; "
                                  "limit_req zone=z3 burst=2; } }\n");
        QCOMPARE(three.binds.size(), std::size_t(3));
        QCOMPARE(three.binds[0], std::string("in the long run zone z1 binds: its 1r/s, which nginx holds as 1 a second, is the slowest"));
        QCOMPARE(three.binds[1], std::string("at once zone z3 binds: 3 requests from idle (its burst=2 and the first, the fewest)"));
        QVERIFY2(three.binds[2].find("refused first by zone z1 between 1 and 6 a second, by zone z2 between 6 and 23.75 a "
                                     "second, by zone z3 above 23.75 a second (")
                     != std::string::npos,
                 three.binds[2].c_str());
        QVERIFY(import("limit_req_zone $binary_remote_addr zone=a:10m rate=1r/s;\n"
                       "server { location / { limit_req zone=a burst=5; } }\n").binds.empty()); // one limit binds alone
    }

    // A block with no limit_req of its own inherits its parent's; one with its own does not.
    void inheritanceAsNginxMerges()
    {
        const io::NginxConfig n = io::readNginxConfig("limit_req_zone $k zone=a:10m rate=1r/s;\n"
                                                      "limit_req_zone $k zone=b:10m rate=2r/s;\n"
                                                      "http {\n"
                                                      "  limit_req zone=a;\n"
                                                      "  server {\n"
                                                      "    location /x { }\n"
                                                      "    location /y { limit_req zone=b burst=3; location /y/z { } }\n"
                                                      "  }\n"
                                                      "  server { limit_req_dry_run on; }\n"
                                                      "}\n");
        QCOMPARE(n.places.size(), std::size_t(4));
        QCOMPARE(n.places[0].where, std::string("location /x"));
        QCOMPARE(n.places[0].limits.size(), std::size_t(1));
        QCOMPARE(n.places[0].limits[0].zone, std::string("a"));
        QCOMPARE(n.places[1].limits.size(), std::size_t(1));
        QCOMPARE(n.places[1].limits[0].zone, std::string("b"));
        QCOMPARE(n.places[2].where, std::string("location /y/z"));
        QCOMPARE(n.places[2].limits[0].burst, std::int64_t(3));
        QCOMPARE(n.places[3].where, std::string("server"));
        QCOMPARE(n.places[3].limits[0].zone, std::string("a"));
        QVERIFY(n.places[3].dryRun);
    }

    // Words as ngx_conf_read_token cuts them (nginx commit 3f6f7824d4e2): after a closing quote a
    // ")" starts the next word, so Nominatim's `if ($args ~* "q=1")` is read; an unquoted word does
    // not end at "}" (`a}b` is one word: the block still closes at the lone "}"); "\;" is part of a
    // word. Each config below is one nginx -t accepts; the limit of line 4 is still read after them.
    void wordsAsNginxCutsThem()
    {
        const io::NginxConfig c = io::readNginxConfig("limit_req_zone $binary_remote_addr zone=one:10m rate=3r/s;\n"
                                                      "server {\n"
                                                      "    if ($args ~* \"q=1\") { return 418; }\n"
                                                      "    location / { set $a a}b; set $b x\\;y; limit_req zone=one burst=2; }\n"
                                                      "}\n");
        QCOMPARE(c.places.size(), std::size_t(1));
        QCOMPARE(c.places[0].where, std::string("location /"));
        QCOMPARE(c.places[0].limits.size(), std::size_t(1));
        QCOMPARE(c.places[0].limits[0].burst, 2);
        QCOMPARE(c.places[0].limits[0].line, 4);
        QCOMPARE(c.servers[0].ifReturns, std::vector<int>{3});
    }

    // nginx runs a location's return (rewrite phase) before limit_req (preaccess): the first
    // location with limits, /health, answers with return, so the one modelled is /api/ (zone
    // api, 5r/s, burst 10), and /health's limit is named as applying to nothing.
    void aLocationThatReturnsLimitsNothing()
    {
        const io::ImportedConfig c = import("limit_req_zone $binary_remote_addr zone=api:10m rate=5r/s;\n"
                                            "server {\n"
                                            "    location /health { limit_req zone=api; return 200; }\n"
                                            "    location /api/ { limit_req zone=api burst=10; }\n"
                                            "}\n");
        QCOMPARE(c.modelledPlace, std::string("location /api/"));
        QVERIFY(std::any_of(c.wrote.begin(), c.wrote.end(), [](const auto& w) { return w.first == "burst" && w.second == "10"; }));
        QVERIFY(mentions(c.notModelled, "location /health (line 3): zone=api 5r/s per $binary_remote_addr"));
        QVERIFY(mentions(c.notModelled, "apply to none of its requests: its return answers first"));
    }

    // Several server blocks: nginx picks one per request by listen and server_name, so each
    // location's limits are named under its server.
    // - Two virtual hosts: api.example.com (line 4) has /v1/ with zone api (10r/s burst 20
    //   nodelay), modelled as the first place with limits; shop.example.com (line 9) has its own
    //   /v1/ with zone shop (2r/s burst 4), named under its name, and its own limit_req zone=site
    //   (1r/s burst 5, line 11) that a request none of its locations takes meets (nginx's
    //   ngx_http_limit_req_merge_conf: /static/ has none of its own, so it inherits site too).
    //   The old import named both as "location /v1/" and never named the server-level limit.
    // - An HTTP-to-HTTPS redirect server (return 301) and the real one with the same name: the
    //   modelled place is /login of the 443 server; its server-level zone=site (10r/s burst 20)
    //   limits every other request of it. The old import said zone site was applied by no
    //   limit_req, so that nginx limits nothing with it.
    void severalServersEachNamed()
    {
        const io::ImportedConfig hosts = import("limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n"   // 1
                                                "limit_req_zone $binary_remote_addr zone=shop:10m rate=2r/s;\n"   // 2
                                                "limit_req_zone $binary_remote_addr zone=site:10m rate=1r/s;\n"   // 3
                                                "server {\n"                                                      // 4
                                                "    listen 80;\n"                                                // 5
                                                "    server_name api.example.com;\n"                              // 6
                                                "    location /v1/ { limit_req zone=api burst=20 nodelay; }\n"     // 7
                                                "}\n"                                                             // 8
                                                "server {\n"                                                      // 9
                                                "    listen 80; server_name shop.example.com;\n"                 // 10
                                                "    limit_req zone=site burst=5;\n"                              // 11
                                                "    location /v1/ { limit_req zone=shop burst=4; }\n"            // 12
                                                "    location /static/ { }\n"                                     // 13
                                                "}\n");
        QCOMPARE(hosts.modelledPlace, std::string("server api.example.com, listen 80 (line 4): location /v1/"));
        const std::vector<std::string> named{
            "server shop.example.com, listen 80 (line 9): location /v1/ (line 12): zone=shop 2r/s per $binary_remote_addr "
            "burst=4 (a scenario models one location's limits)",
            "server shop.example.com, listen 80 (line 9): location /static/ (line 13): zone=site 1r/s per "
            "$binary_remote_addr burst=5 (a scenario models one location's limits)",
            "server shop.example.com, listen 80 (line 9): its limit_req, for a request none of its locations takes "
            "(line 11): zone=site 1r/s per $binary_remote_addr burst=5 (a scenario models one location's limits)"};
        QCOMPARE(hosts.notModelled, named);

        const io::ImportedConfig redirect = import("limit_req_zone $binary_remote_addr zone=login:10m rate=1r/s;\n" // 1
                                                   "limit_req_zone $binary_remote_addr zone=site:10m rate=10r/s;\n" // 2
                                                   "server {\n"                                                     // 3
                                                   "    listen 80; server_name example.com;\n"                     // 4
                                                   "    return 301 https://$host$request_uri;\n"                    // 5
                                                   "}\n"                                                            // 6
                                                   "server {\n"                                                     // 7
                                                   "    listen 443 ssl; server_name example.com;\n"                // 8
                                                   "    limit_req zone=site burst=20;\n"                            // 9
                                                   "    location /login { limit_req zone=login burst=2; }\n"        // 10
                                                   "}\n");
        QCOMPARE(redirect.modelledPlace, std::string("server example.com, listen 443 (line 7): location /login"));
        const std::vector<std::string> rest{
            "server example.com, listen 443 (line 7): its limit_req, for a request none of its locations takes (line 9): "
            "zone=site 10r/s per $binary_remote_addr burst=20 (a scenario models one location's limits)"};
        QCOMPARE(redirect.notModelled, rest);
    }

    // A map block is read as its entries (not as directives: a key "include" or "limit_req" is a
    // key), in file order; `hostnames` is a flag; an include inside it is named, not followed.
    void mapsAreRead()
    {
        const io::NginxConfig c = io::readNginxConfig("map $http_x_api_key $limit_key {\n"
                                                      "    hostnames;\n"
                                                      "    default $binary_remote_addr;\n"
                                                      "    \"\" \"\";\n"
                                                      "    ~*^test- \"\";\n"
                                                      "    limit_req x;\n"
                                                      "    include keys.map;\n"
                                                      "}\n"
                                                      "limit_req_zone $limit_key zone=k:1m rate=1r/s;\n");
        QCOMPARE(c.maps.size(), std::size_t(1));
        QCOMPARE(c.maps[0].source, std::string("$http_x_api_key"));
        QCOMPARE(c.maps[0].name, std::string("$limit_key"));
        QVERIFY(c.maps[0].hostnames);
        QVERIFY(c.maps[0].includes);
        const std::vector<std::pair<std::string, std::string>> entries{
            {"default", "$binary_remote_addr"}, {"", ""}, {"~*^test-", ""}, {"limit_req", "x"}};
        QCOMPARE(c.maps[0].entries, entries);
        QCOMPARE(c.notFollowed.size(), std::size_t(1));
        QVERIFY(c.notFollowed[0].starts_with("include keys.map (line 7) in map $limit_key"));
    }

    // A zone keyed by a map is described per class of requests, in the order nginx's map looks
    // them up: the keys in file order ("" at line 3, partner at line 5), then the regexes
    // (~^test-), then the default; an empty value is a request the limit skips.
    void aMapKeyedZoneIsShownPerClass()
    {
        const io::ImportedConfig c = import("map $http_x_api_key $limit_key {\n"      // 1
                                            "    default $binary_remote_addr;\n"       // 2
                                            "    \"\" \"\";\n"                       // 3
                                            "    ~^test- \"\";\n"                      // 4
                                            "    partner partners;\n"                  // 5
                                            "}\n"
                                            "limit_req_zone $limit_key zone=api:10m rate=5r/s;\n"
                                            "server { location /api/ { limit_req zone=api; } }\n");
        QCOMPARE(c.modelledPlace, std::string("location /api/"));
        QVERIFY(mentions(c.assumed, "zone api counts per $limit_key, map $http_x_api_key (line 1) of each request: "
                                    "empty (no such value sent): not limited (an empty key: nginx skips the limit); "
                                    "\"partner\": one bucket \"partners\" for all of them; "
                                    "matching ~^test-: not limited (an empty key: nginx skips the limit); "
                                    "any other: per $binary_remote_addr; the scenario models one of these buckets"));
    }

    // What nginx refuses to start with is refused, naming the line.
    void refusals_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const char* zone = "limit_req_zone $k zone=one:10m rate=1r/s;\n";
        QTest::newRow("burst=0") << QString(zone) + "limit_req zone=one burst=0;\n"
                                 << "nginx: line 2: invalid burst value \"burst=0\" (nginx takes a burst of 1 or more; leave it out for none)";
        QTest::newRow("unknown zone") << QString(zone) + "server { location / { limit_req zone=two; } }\n"
                                      << "nginx: line 2: limit_req zone=two: no limit_req_zone defines zone \"two\"";
        QTest::newRow("key not first") << "limit_req_zone zone=one:10m $k rate=1r/s;\n"
                                       << "nginx: line 1: invalid parameter \"$k\" in \"limit_req_zone zone=one:10m $k rate=1r/s\": "
                                          "nginx takes the first argument, \"zone=one:10m\", as the key";
        QTest::newRow("bad rate") << "limit_req_zone $k zone=one:10m rate=5r/h;\n"
                                  << "nginx: line 1: invalid rate \"rate=5r/h\"";
        QTest::newRow("no size") << "limit_req_zone $k zone=one rate=5r/s;\n" << "nginx: line 1: invalid zone size \"zone=one\"";
        QTest::newRow("unclosed") << QString(zone) + "server {\n  location / { limit_req zone=one; }\n"
                                  << "nginx: line 2: the block opened here never closes (unexpected end of file, expecting \"}\")";
        QTest::newRow("stray brace") << QString(zone) + "}\n" << "nginx: line 2: unexpected \"}\"";
        QTest::newRow("duplicate") << QString(zone) + "limit_req zone=one;\nlimit_req zone=one burst=2;\n"
                                   << "nginx: line 3: limit_req zone=one is duplicate (line 2)";
        QTest::newRow("zone in location") << "server { location / { limit_req_zone $k zone=one:10m rate=1r/s; } }\n"
                                          << "nginx: line 1: \"limit_req_zone\" directive is not allowed here (only at the "
                                             "http level)";
        QTest::newRow("unknown parameter") << QString(zone) + "limit_req zone=one burst=2 fast;\n"
                                           << "nginx: line 2: invalid parameter \"fast\" in \"limit_req zone=one burst=2 fast\"";
        QTest::newRow("bound twice") << QString(zone) + "limit_req_zone $j zone=one:10m rate=2r/s;\n"
                                     << "nginx: line 2: limit_req_zone \"one\" is already bound to key \"$k\" (line 1)";
        // ngx_conf_read_token allows only a separator, ';', '{' or ')' after a closing quote.
        QTest::newRow("brace after quote") << QString(zone) + "server { location / { limit_req \"zone=one\"} }\n"
                                           << "nginx: line 2: unexpected \"}\" after a quoted word";
        // What a refusal quotes of the file is one printable line, whatever the bytes (a fuzzer's
        // input put a control byte there): \x05 in place of the byte.
        QTest::newRow("control byte after quote") << QString(zone) + "limit_req_zone \"global\"\x05 zone=all:1m rate=1r/s;\n"
                                                  << "nginx: line 2: unexpected \"\\x05\" after a quoted word";
        // ngx_http_map_block and ngx_http_map (ngx_http_map_module.c) refuse these at nginx -t.
        QTest::newRow("map two defaults") << QString(zone) + "map $a $b {\n default 1;\n default 2;\n}\n"
                                          << "nginx: line 4: duplicate default map parameter";
        QTest::newRow("map key twice") << QString(zone) + "map $a $b {\n X 1;\n x 2;\n}\n"
                                       << "nginx: line 4: conflicting parameter \"x\"";
        QTest::newRow("map entry of three") << QString(zone) + "map $a $b { a 1 2; }\n"
                                            << "nginx: line 2: invalid number of the map parameters";
        QTest::newRow("map into a name") << QString(zone) + "map $a b { }\n" << "nginx: line 2: invalid variable name \"b\"";
        QTest::newRow("open quote") << QString(zone) + "limit_req \"zone=one;\n" << "nginx: line 2: a quote that never closes";
    }

    void refusals()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(QString::fromStdString(refusal(text.toUtf8().constData())), message);
    }

    // The command: a refused configuration is one line on stderr, exit 2, nothing on stdout.
    void commandRefusesInOneLine()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("nginx.conf");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("limit_req_zone $k zone=one:10m rate=1r/s;\nlimit_req zone=one burst=0;\n");
        f.close();
        const auto r = runRatelab({"import", path});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        // The file named first, as replay --config names it.
        QVERIFY2(r.err.startsWith(("ratelab: import: " + path + ": nginx: line 2: invalid burst value").toUtf8()), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestImportNginx)
#include "tst_import_nginx.moc"
