// Dry runs: an nginx config on a log (replay --config) and two configs compared
// (--against), on hand-derived tables, and a seeded property: for random configs of several
// zones and locations, the dry run equals plain replay (nginx_limit_req with the zone's rate and
// the limit's burst) on the requests of each location, decision for decision.
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "dry_run_helpers.h"
#include "limiters/nginx_limit_req.h"
#include "property_seeds.h"
#include "replay/dry_run_diff.h"
#include "replay/replay.h"

#include <QTest>

#include <map>
#include <random>

using namespace ratelab;
using test::deniedBy;

namespace {

// Two zones, three locations; the login location applies both zones, login first.
const char* kCurrent = "http {\n"                                                        // 1
                       "    limit_req_zone $binary_remote_addr zone=api:10m rate=1r/s;\n"  // 2
                       "    limit_req_zone $binary_remote_addr zone=login:10m rate=1r/m;\n" // 3
                       "    server {\n"                                                      // 4
                       "        location /api/ { limit_req zone=api burst=1 nodelay; }\n"   // 5
                       "        location = /login {\n"                                       // 6
                       "            limit_req zone=login;\n"                                 // 7
                       "            limit_req zone=api burst=1;\n"                           // 8
                       "        }\n"                                                         // 9
                       "        location / { }\n"                                            // 10
                       "    }\n"
                       "}\n";

// The proposal: api at 2r/s, login with burst=2, and the api zone on every other path.
const char* kProposed = "http {\n"
                        "    limit_req_zone $binary_remote_addr zone=api:10m rate=2r/s;\n"
                        "    limit_req_zone $binary_remote_addr zone=login:10m rate=1r/m;\n"
                        "    server {\n"
                        "        location /api/ { limit_req zone=api burst=1 nodelay; }\n"
                        "        location = /login {\n"
                        "            limit_req zone=login burst=2;\n"
                        "            limit_req zone=api burst=1;\n"
                        "        }\n"
                        "        location / { limit_req zone=api; }\n" // line 10
                        "    }\n"
                        "}\n";

// A = 1.1.1.1, B = 2.2.2.2; times in ms from 2026-11-23T00:00:00Z.
const char* kLog = "time,ip,path\n"
                   "1795392000.000,1.1.1.1,/api/x\n"        // 1
                   "1795392000.100,1.1.1.1,/api/y\n"        // 2
                   "1795392000.200,1.1.1.1,/api/z\n"        // 3
                   "1795392000.300,1.1.1.1,/login\n"        // 4
                   "1795392001.300,1.1.1.1,/login\n"        // 5
                   "1795392002.300,1.1.1.1,/login\n"        // 6
                   "1795392002.300,2.2.2.2,/login\n"        // 7
                   "1795392002.400,2.2.2.2,/static/a.css\n" // 8
                   "1795392002.500,1.1.1.1,/api/q?x=1\n"    // 9
                   "1795392002.600,1.1.1.1,/loginx\n";      // 10

Traffic logTraffic()
{
    TrafficOptions o;
    o.keepPaths = true;
    return parseTraffic(kLog, o, "log.csv");
}

} // namespace

class TestDryRun : public QObject {
    Q_OBJECT
private slots:
    // nginx's excess in thousandths: e = max(0, e - rate*ms/1000 + 1000), rejected iff e > burst*1000,
    // and a request counts in its zones only when every limit of its location admits it.
    // Rules: 0 = api burst=1 nodelay (line 5), 1 = login (line 7), 2 = api burst=1 (line 8).
    //  1 A /api/x   0 ms: /api/, api new -> 0: admitted; api[A] = 0 @0
    //  2 A /api/y 100 ms: api 0 - 100 + 1000 = 900 <= 1000: admitted; api[A] = 900 @100
    //  3 A /api/z 200 ms: api 900 - 100 + 1000 = 1800 > 1000: denied by rule 0
    //  4 A /login 300 ms: "= /login": login new -> 0 <= 0; api 900 - 200 + 1000 = 1700: denied by
    //    rule 2, and login keeps nothing (the layers' rule would have consumed it)
    //  5 A /login 1300 ms: login new -> 0; api 900 - 1200 + 1000 = 700: admitted; login[A] = 0 @1300
    //  6 A /login 2300 ms: login 0 - 1000*16/1000 + 1000 = 984 > 0 (1r/m is 16 thousandths): denied by rule 1
    //  7 B /login 2300 ms: both new: admitted
    //  8 B /static/a.css: "location /", no limits: admitted
    //  9 A /api/q?x=1 2500 ms: the query string is not the path: /api/, api 700 - 1200 + 1000 = 500: admitted
    // 10 A /loginx: not "= /login", "/" is its longest prefix: admitted
    void currentByHand()
    {
        const Traffic t = logTraffic();
        const DryRunConfig c = io::dryRunConfig(kCurrent, "ip");
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("limit_req zone=api burst=1 nodelay (line 5)"));
        QCOMPARE(c.rules[1].name, std::string("limit_req zone=login (line 7)"));
        QCOMPARE(c.rules[2].name, std::string("limit_req zone=api burst=1 (line 8)"));
        QVERIFY(c.notReplayed.empty());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 0, 2, -1, 1, -1, -1, -1, -1}));
        QCOMPARE(r.denied, 3);
        const std::int64_t requests[] = {4, 4, 3}; // 1,2,3,9 / 4,5,6,7 / 4,5,7 (6 stopped at login)
        const Nanos first[] = {200'000'000, 2'300'000'000, 300'000'000};
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(r.rules[i].requests, requests[i]);
            QCOMPARE(r.rules[i].denied, 1);
            QCOMPARE(r.rules[i].keysDenied, 1);
            QCOMPARE(r.rules[i].firstDenialPerKey[0], first[i]); // key 0 is 1.1.1.1
            QCOMPARE(r.rules[i].worstHour, 1795392000 / 3600);
        }
    }

    // Under the proposal (api 2r/s = 2000 a second drained, login burst=2, api on "/"):
    //  1 admitted (api[A] 0 @0); 2 0 - 200 + 1000 = 800: admitted; 3 800 - 200 + 1000 = 1600: denied (rule 0)
    //  4 login 0; api 800 - 400 + 1000 = 1400: denied (rule 2); 5 login 0, api max(0, 800 - 2400 + 1000) = 0: admitted
    //  6 login 0 - 16 + 1000 = 984 <= 2000, api 0 - 2000 + 1000 -> 0: admitted (the current denied it: rule 1)
    //  7 admitted, api[B] 0 @2300; 8 "/": api[B] 0 - 200 + 1000 = 800 > 0: denied (rule 3, line 10)
    //  9 api[A] 0 - 400 + 1000 = 600 @2500: admitted; 10 "/": api[A] 600 - 200 + 1000 = 1400 > 0: denied (rule 3)
    // Both deny 3 and 4 (A); only the current 6 (A, its rule 1); only the proposal 8 (B) and 10 (A).
    void diffByHand()
    {
        const Traffic t = logTraffic();
        const DryRunConfig c = io::dryRunConfig(kCurrent, "ip"), p = io::dryRunConfig(kProposed, "ip");
        const DryRunResult a = dryRun(t, c), b = dryRun(t, p);
        QCOMPARE(deniedBy(b), (std::vector<int>{-1, -1, 0, 2, -1, -1, -1, 3, -1, 3}));
        const DryRunDiff d = diffDryRuns(t, c, a, p, b);
        QCOMPARE(d.admittedByBoth.requests, 5); // 1, 2, 5, 7, 9
        QCOMPARE(d.admittedByBoth.keys, 2);
        QCOMPARE(d.deniedByBoth.requests, 2);
        QCOMPARE(d.deniedByBoth.keys, 1);
        QCOMPARE(d.onlyCurrent.requests, 1);
        QCOMPARE(d.onlyCurrent.keys, 1);
        QCOMPARE(d.onlyProposed.requests, 2);
        QCOMPARE(d.onlyProposed.keys, 2);
        QCOMPARE(d.byCurrentRule.size(), std::size_t(1));
        QCOMPARE(d.byCurrentRule[0].what, std::string("limit_req zone=login (line 7)"));
        QCOMPARE(d.byCurrentRule[0].onlyCurrent, 1);
        QCOMPARE(d.byProposedRule.size(), std::size_t(1));
        QCOMPARE(d.byProposedRule[0].what, std::string("limit_req zone=api (line 10)"));
        QCOMPARE(d.byProposedRule[0].onlyProposed, 2);
        QCOMPARE(d.byHour.size(), std::size_t(1));
        QCOMPARE(d.byHour[0].what, std::string("2026-11-23T00:00:00Z"));
        QCOMPARE(d.byHour[0].onlyCurrent + 10 * d.byHour[0].onlyProposed, 21);
        QCOMPARE(diffSummary(t, d), std::string("your change denies 2 more requests of 2 keys and admits 1 it denied, of 1 key; "
                                                "the 2 most affected: 1.1.1.1 (+1 -1), 2.2.2.2 (+1)"));
        // A key logged empty (a header a request did not send) is named as what it is.
        Traffic unnamed = t;
        *std::find(unnamed.keyNames.begin(), unnamed.keyNames.end(), "2.2.2.2") = "";
        QVERIFY(diffSummary(unnamed, d).ends_with("1.1.1.1 (+1 -1), the requests with no key (+1)"));
    }

    // nginx's selection order: "=" at once, the longest prefix ("^~" stops there), the regexes in
    // file order, then the longest prefix; none: the server's own limits.
    void locationsAsNginxSelects()
    {
        const char* conf = "limit_req_zone $binary_remote_addr zone=z:10m rate=1r/s;\n"
                           "server {\n"
                           "  limit_req zone=z;\n"                       // the server's own: line 3
                           "  location /a/ { }\n"                        // 0
                           "  location /a/b/ { }\n"                      // 1
                           "  location ^~ /img/ { }\n"                   // 2
                           "  location ~ \\.php$ { }\n"                  // 3
                           "  location ~* \\.(PNG|gif)$ { }\n"           // 4
                           "  location = /a/ { }\n"                      // 5
                           "}\n";
        const DryRunConfig c = io::dryRunConfig(conf, "ip");
        QCOMPARE(c.places.size(), std::size_t(6));
        const std::pair<const char*, int> cases[] = {
            {"/a/", 5},        {"/a/x", 0},       {"/a/b/c", 1},  {"/a/b/c.php", 3}, {"/img/x.php", 2},
            {"/img/x.png", 2}, {"/other.png", 4}, {"/x.PHP", -1}, {"/b", -1},        {"/a/x.php?y=1", 3},
        };
        for (const auto& [path, place] : cases)
            QVERIFY2(selectPlace(c, path) == place, path);
        QCOMPARE(c.fallback.size(), std::size_t(1)); // a path no location matches meets the server's limit
        QCOMPARE(c.places[0].rules, c.fallback); // a location with no limit_req of its own inherits the server's
    }

    // A zone whose key is not the log's key is named, not dropped; what is not modelled is refused by name.
    void unmappedNamedAndUnmodelledRefused()
    {
        const char* conf = "limit_req_zone $http_x_api_key zone=key:10m rate=5r/s;\n"
                           "limit_req_zone $binary_remote_addr zone=ip:10m rate=5r/s;\n"
                           "limit_req_zone $binary_remote_addr$uri zone=both:10m rate=5r/s;\n"
                           "server { location / { limit_req zone=key; limit_req zone=ip; limit_req zone=both; } }\n";
        const DryRunConfig c = io::dryRunConfig(conf, "ip");
        QCOMPARE(c.mapped, (std::vector<bool>{false, true, false}));
        QCOMPARE(c.notReplayed.size(), std::size_t(2));
        QCOMPARE(c.notReplayed[0], std::string("limit_req zone=key (line 4): its zone's key $http_x_api_key is not the "
                                               "log's key (ip): not replayed (--key http_x_api_key replays it)"));
        QVERIFY(c.notReplayed[1].find("nor a log field") != std::string::npos);
        const DryRunConfig byKey = io::dryRunConfig(conf, "http_x_api_key");
        QCOMPARE(byKey.mapped, (std::vector<bool>{true, false, false}));
        const auto refused = [](const char* text, const char* start) {
            try {
                io::dryRunConfig(text, "ip");
            } catch (const InputError& e) {
                return std::string(e.what()).starts_with(start);
            }
            return false;
        };
        QVERIFY(refused("limit_req_zone $binary_remote_addr zone=z:10m rate=1r/s;\nserver { listen 80; }\n"
                        "server { listen 8080; }\n",
                        "nginx: the server blocks at lines 2 and 3 listen on different addresses"));
        QVERIFY(refused("limit_req_zone $binary_remote_addr zone=z:10m rate=1r/s;\nserver { server_name *.a.org; }\n"
                        "server { }\n",
                        "nginx: server_name *.a.org (the server at line 2): wildcard and regex names are not modelled"));
        QVERIFY(refused("limit_req_zone $binary_remote_addr zone=z:10m rate=1r/s;\nserver { server_name a.org; }\n"
                        "server { server_name A.org; }\n",
                        "nginx: server_name A.org is in the servers at lines 2 and 3"));
        QVERIFY(refused("limit_req_zone $binary_remote_addr zone=z:10m rate=1r/s;\nserver { location /a/ { location /a/b/ "
                        "{ limit_req zone=z; } } }\n",
                        "nginx: line 2: location /a/b/ is inside another location"));
        QVERIFY(refused("server { location / { } }\n", "nginx: no limit_req_zone"));
    }

    // A config as people write it (the shapes of Nominatim's and discourse_docker's): a redirect
    // server, a quoted word before ")" in an if, the app behind try_files in a named location, a
    // $request_uri zone, a constant-key zone, and a location that answers with return. All zones
    // 1r/m (16 thousandths drained a second: nothing within these 11 ms), so excess only grows by
    // 1000 a request: a limit with burst b admits b+1 requests of a key, then denies.
    //  1 A /index.html  "/" has no limit; try_files -> @app: ip[A] new, 0: admitted
    //  2 A /x           @app: ip[A] 1000 <= 1000 (burst=1): admitted
    //  3 A /y           @app: ip[A] 2000 > 1000: denied by rule 0 (line 13)
    //  4 B /y           @app: ip[B] new: admitted
    //  5 A /search?q=a  uri["/search?q=a"] new: admitted
    //  6 B /search?q=a  the same target, whoever sends it: 1000 > 0: denied by rule 1 (line 14)
    //  7 A /search?q=b  another target: new: admitted
    //  8 A /status      return runs before limit_req: no limit: admitted
    //  9 B /status      likewise admitted (counted, zone all's burst=0 would deny it)
    // 10 A /api/a       all["global"] new: admitted
    // 11 B /api/b       the one global key: 1000 <= 1000 (burst=1): admitted
    // 12 A /api/c       2000 > 1000: denied by rule 2 (line 16)
    void configsAsWritten()
    {
        const char* conf = "limit_req_zone $binary_remote_addr zone=ip:10m rate=1r/m;\n"   // 1
                           "limit_req_zone \"global\" zone=all:10m rate=1r/m;\n"           // 2
                           "limit_req_zone $request_uri zone=uri:10m rate=1r/m;\n"         // 3
                           "server {\n"                                                    // 4
                           "    listen 80;\n"                                              // 5
                           "    server_name example.org;\n"                                // 6
                           "    return 301 https://$host$request_uri;\n"                  // 7
                           "}\n"                                                           // 8
                           "server {\n"                                                    // 9
                           "    listen 443 ssl;\n"                                         // 10
                           "    if ($args ~* \"q=1\") { return 418; }\n"                   // 11
                           "    location / { try_files $uri $uri/ @app; }\n"               // 12
                           "    location @app { limit_req zone=ip burst=1; }\n"            // 13
                           "    location /search { limit_req zone=uri; }\n"                // 14
                           "    location /status { limit_req zone=all; return 200; }\n"    // 15
                           "    location /api/ { limit_req zone=all burst=1; }\n"          // 16
                           "}\n";
        const DryRunConfig c = io::dryRunConfig(conf, "ip");
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("limit_req zone=ip burst=1 (line 13)"));
        QCOMPARE(c.rules[1].name, std::string("limit_req zone=uri (line 14)"));
        QCOMPARE(c.rules[2].name, std::string("limit_req zone=all burst=1 (line 16)"));
        QCOMPARE(c.mapped, (std::vector<bool>{true, true, true}));
        QVERIFY(c.notReplayed.empty());
        QCOMPARE(c.assumed.size(), std::size_t(4)); // the redirect server, the if, try_files, the return
        QVERIFY(c.assumed[0].starts_with("the server at line 4 answers every request with return"));
        QVERIFY(c.assumed[1].starts_with("if (line 11) in server (line 9) returns before limit_req"));
        QVERIFY(c.assumed[2].starts_with("location / (line 12): try_files ends in @app"));
        QVERIFY(c.assumed[3].starts_with("location /status (line 15) answers with return"));
        TrafficOptions o;
        o.keepPaths = true;
        const Traffic t = parseTraffic("time,ip,path\n"
                                       "1795392000.000,1.1.1.1,/index.html\n"
                                       "1795392000.001,1.1.1.1,/x\n"
                                       "1795392000.002,1.1.1.1,/y\n"
                                       "1795392000.003,2.2.2.2,/y\n"
                                       "1795392000.004,1.1.1.1,/search?q=a\n"
                                       "1795392000.005,2.2.2.2,/search?q=a\n"
                                       "1795392000.006,1.1.1.1,/search?q=b\n"
                                       "1795392000.007,1.1.1.1,/status\n"
                                       "1795392000.008,2.2.2.2,/status\n"
                                       "1795392000.009,1.1.1.1,/api/a\n"
                                       "1795392000.010,2.2.2.2,/api/b\n"
                                       "1795392000.011,1.1.1.1,/api/c\n",
                                       o, "log.csv");
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 0, -1, -1, 1, -1, -1, -1, -1, -1, 2}));
        QCOMPARE(r.rules[0].requests, 4); // 1-4
        QCOMPARE(r.rules[1].requests, 3); // 5-7
        QCOMPARE(r.rules[2].requests, 3); // 10-12
        QCOMPARE(r.rules[1].deniedPerKey[1], 1); // request 6's sender, B (key 1), is the one denied
    }

    // Several servers on one address: nginx picks the one whose server_name is the request's Host,
    // else the default server (ngx_http_find_virtual_server); the log's host ($host) says which.
    // Zones a, b, c, all 1r/m (nothing drains within these ms): burst b admits b + 1 of a key.
    // Server 1 (line 3, a.example): location / applies a (rule 0). Server 2 (line 8,
    // default_server, b.example): location /api/ applies b (rule 1); a path no location takes
    // meets the server's own limit_req, c burst=1 (rule 2).
    //  1 A a.example /x       server 1, /: a[A] new: admitted
    //  2 A a.example /y       a[A] 1000 > 0: denied by 0
    //  3 A b.example /api/1   server 2, /api/: b[A] new: admitted
    //  4 A other.org /api/2   no server's name: the default, server 2: b[A] 1000 > 0: denied by 1
    //  5 A -         /z       no Host: server 2, no location: c[A] new: admitted
    //  6 A b.example /z       c[A] 1000 <= 1000: admitted
    //  7 A b.example /w       c[A] 2000 > 1000: denied by 2
    //  8 B a.example /x       server 1: a[B] new: admitted
    void serversChosenByHost()
    {
        const char* conf = "limit_req_zone $binary_remote_addr zone=a:10m rate=1r/m;\n" // 1
                           "limit_req_zone $binary_remote_addr zone=b:10m rate=1r/m;\n" // 2
                           "server {\n"                                                 // 3
                           "    listen 80;\n"                                           // 4
                           "    server_name a.example;\n"                               // 5
                           "    location / { limit_req zone=a; }\n"                     // 6
                           "}\n"                                                        // 7
                           "server {\n"                                                 // 8
                           "    listen 80 default_server;\n"                            // 9
                           "    server_name b.example;\n"                               // 10
                           "    limit_req zone=c burst=1;\n"                            // 11
                           "    location /api/ { limit_req zone=b; }\n"                 // 12
                           "}\n"                                                        // 13
                           "limit_req_zone $binary_remote_addr zone=c:10m rate=1r/m;\n"; // 14
        DryRunConfig c = io::dryRunConfig(conf, "ip");
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("limit_req zone=a (line 6)"));
        QCOMPARE(c.rules[1].name, std::string("limit_req zone=b (line 12)"));
        QCOMPARE(c.rules[2].name, std::string("limit_req zone=c burst=1 (line 11)"));
        QCOMPARE(c.groups, (std::vector<int>{0, 1}));
        QVERIFY(c.assumed.back().ends_with("else the default server, the one at line 8"));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"host"}));
        const char* log = "time,ip,host,path\n"
                          "1795392000.000,1.1.1.1,a.example,/x\n1795392000.001,1.1.1.1,a.example,/y\n"
                          "1795392000.002,1.1.1.1,b.example,/api/1\n1795392000.003,1.1.1.1,other.org,/api/2\n"
                          "1795392000.004,1.1.1.1,-,/z\n1795392000.005,1.1.1.1,b.example,/z\n"
                          "1795392000.006,1.1.1.1,b.example,/w\n1795392000.007,2.2.2.2,a.example,/x\n";
        const Traffic t = parseTraffic(log, o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY2(c.notReplayed.empty(), c.notReplayed.empty() ? "" : c.notReplayed[0].c_str());
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1, 1, -1, -1, 2, -1}));
        // A log without the host: which server is not known, and said so.
        DryRunConfig bare = io::dryRunConfig(conf, "ip");
        TrafficOptions p;
        p.keepPaths = true;
        p.keyFields = keyFieldsOf(bare);
        bindKeyFields(bare, parseTraffic("time,ip,path\n1795392000,1.1.1.1,/x\n", p, "log.csv"));
        QCOMPARE(bare.notReplayed.size(), std::size_t(1));
        QCOMPARE(bare.notReplayed[0], std::string("which server block a request reaches is chosen by its Host, read from the "
                                                  "log's host field ($host); the log does not hold it: every request is "
                                                  "taken to reach the server at line 3"));
    }

    // ngx_http_limit_req_handler runs only while no limit has decided the request: a location
    // with its own limit keeps a request from @app's when its key is set, and passes it on when
    // every key of its limits is empty. "/" applies h (keyed by $k, the log's key, 1r/m), @app
    // applies g (the constant key "all", 1r/m); both without burst.
    //  1 k=a: "/" h[a] new: admitted; @app is not reached
    //  2 k=a: h[a] 1000 > 0: denied by rule 0
    //  3 k=-: h skipped (empty key): @app: g new: admitted
    //  4 k=-: @app: g 1000 > 0: denied by rule 1
    // A zone keyed by a map variable counts per value the map gives each request
    // (ngx_http_map_module.c): the exact keys case-insensitively, then the regexes in order, then
    // the default; an empty value skips the limit. Zone k 1r/m burst=1 (nothing drains within
    // these 15 ms): a bucket admits 2 requests, then denies. $binary_remote_addr is the log's key (ip).
    //  1-3 ip 1, key "-" (none sent): the map's "" entry gives "": no limit (3 admitted)
    //  4 ip 1 "Partner"  exact "partner" (lowercased both sides): bucket "partners" new: admitted
    //  5 ip 2 "partner"  "partners" 1000 <= 1000: admitted
    //  6 ip 3 "PARTNER"  "partners" 2000 > 1000: denied
    //  7-9 "TEST-1", "test-2", "test-3": ~*^test- gives "": no limit
    // 10 ip 1 "k-1"      ~^k- gives $http_x_api_key, "k-1": new: admitted
    // 11 ip 2 "k-1"      1000: admitted
    // 12 ip 3 "k-1"      2000: denied
    // 13 ip 1 "K-1"      ~^k- is case-sensitive: no entry: default $binary_remote_addr, "1.1.1.1": admitted
    // 14 ip 1 "other"    default "1.1.1.1": 1000: admitted
    // 15 ip 1 "x"        default "1.1.1.1": 2000: denied
    // 16 ip 4 "k-2"      bucket "k-2" new: admitted
    // The rule met 10 requests (4-6, 10-16): a request whose key is empty does not meet it.
    void aZoneKeyedByAMap()
    {
        DryRunConfig c = io::dryRunConfig("map $http_x_api_key $limit_key {\n"
                                          "    default $binary_remote_addr;\n"
                                          "    \"\" \"\";\n"
                                          "    PARTNER partners;\n"
                                          "    ~*^test- \"\";\n"
                                          "    ~^k- $http_x_api_key;\n"
                                          "}\n"
                                          "limit_req_zone $limit_key zone=k:1m rate=1r/m;\n"
                                          "server { location / { limit_req zone=k burst=1; } }\n",
                                          "ip");
        QCOMPARE(c.mapped, std::vector<bool>{false}); // until the log's field is read
        QCOMPARE(keyFieldsOf(c), std::vector<std::string>{"http_x_api_key"});
        QCOMPARE(c.notReplayed.size(), std::size_t(1));
        QVERIFY(c.notReplayed[0].find("reads the log fields http_x_api_key") != std::string::npos);
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        const Traffic t = parseTraffic("time,ip,http_x_api_key,path\n"
                                       "1795392000.000,1.1.1.1,-,/x\n"
                                       "1795392000.001,1.1.1.1,-,/x\n"
                                       "1795392000.002,1.1.1.1,-,/x\n"
                                       "1795392000.003,1.1.1.1,Partner,/x\n"
                                       "1795392000.004,2.2.2.2,partner,/x\n"
                                       "1795392000.005,3.3.3.3,PARTNER,/x\n"
                                       "1795392000.006,1.1.1.1,TEST-1,/x\n"
                                       "1795392000.007,1.1.1.1,test-2,/x\n"
                                       "1795392000.008,1.1.1.1,test-3,/x\n"
                                       "1795392000.009,1.1.1.1,k-1,/x\n"
                                       "1795392000.010,2.2.2.2,k-1,/x\n"
                                       "1795392000.011,3.3.3.3,k-1,/x\n"
                                       "1795392000.012,1.1.1.1,K-1,/x\n"
                                       "1795392000.013,1.1.1.1,other,/x\n"
                                       "1795392000.014,1.1.1.1,x,/x\n"
                                       "1795392000.015,4.4.4.4,k-2,/x\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QCOMPARE(c.mapped, std::vector<bool>{true});
        QVERIFY(c.notReplayed.empty());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1, 0, -1, -1, 0, -1}));
        QCOMPARE(r.rules[0].requests, 10);
    }

    // A map with `hostnames` (ngx_hash_find_combined): exact keys, then the longest head wildcard
    // (".example.com" is also the exact key example.com; "*.shop.example.com" only subdomains),
    // then the tail wildcard "www.example.*"; a trailing dot is dropped first. Zone t 1r/m, no
    // burst: a bucket's first request is admitted, every later one denied. Keyed by $http_host.
    //  1 example.com         ".example.com" as exact: example (new): admitted
    //  2 a.example.com       head .example.com: example: denied
    //  3 x.shop.example.com  the longer head, .shop.example.com: shop (new): admitted
    //  4 shop.example.com    "*.shop..." needs a subdomain; .example.com: example: denied
    //  5 www.example.org     tail www.example.: www (new): admitted
    //  6 www.example.com     the head wildcard before the tail: example: denied
    //  7-8 other.org         default "": no limit
    //  9 EXAMPLE.COM.        dot dropped, lowercased: example: denied
    // 10 y.shop.example.com  shop: denied
    void aHostnamesMap()
    {
        DryRunConfig c = io::dryRunConfig("map $http_host $tenant {\n"
                                          "    hostnames;\n"
                                          "    default \"\";\n"
                                          "    .example.com example;\n"
                                          "    *.shop.example.com shop;\n"
                                          "    www.example.* www;\n"
                                          "}\n"
                                          "limit_req_zone $tenant zone=t:1m rate=1r/m;\n"
                                          "server { limit_req zone=t; }\n",
                                          "ip");
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        const Traffic t = parseTraffic("time,ip,http_host,path\n"
                                       "1795392000.000,1.1.1.1,example.com,/\n"
                                       "1795392000.001,1.1.1.1,a.example.com,/\n"
                                       "1795392000.002,1.1.1.1,x.shop.example.com,/\n"
                                       "1795392000.003,1.1.1.1,shop.example.com,/\n"
                                       "1795392000.004,1.1.1.1,www.example.org,/\n"
                                       "1795392000.005,1.1.1.1,www.example.com,/\n"
                                       "1795392000.006,1.1.1.1,other.org,/\n"
                                       "1795392000.007,1.1.1.1,other.org,/\n"
                                       "1795392000.008,1.1.1.1,EXAMPLE.COM.,/\n"
                                       "1795392000.009,1.1.1.1,y.shop.example.com,/\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QCOMPARE(c.mapped, std::vector<bool>{true});
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1, 0, -1, 0, -1, -1, 0, 0}));
    }

    // The whitelist shape: a map of a geo variable. geo is not evaluated, so the zone keyed by the
    // map is named, saying why, and the config still runs its other limits.
    void aMapOfAGeoIsNamed()
    {
        const DryRunConfig c = io::dryRunConfig("geo $whitelist { default 0; 10.0.0.0/8 1; }\n"
                                                "map $whitelist $limit_key { 0 $binary_remote_addr; 1 \"\"; }\n"
                                                "limit_req_zone $limit_key zone=k:1m rate=1r/s;\n"
                                                "limit_req_zone $binary_remote_addr zone=ip:1m rate=1r/s;\n"
                                                "server { location / { limit_req zone=k; limit_req zone=ip; } }\n",
                                                "ip");
        QCOMPARE(c.mapped, (std::vector<bool>{false, true}));
        QCOMPARE(c.notReplayed.size(), std::size_t(1));
        QCOMPARE(c.notReplayed[0], std::string("limit_req zone=k (line 5): its zone's key $limit_key is a map (line 2) not "
                                               "evaluated on the log: $whitelist is a geo variable (line 1), which is not "
                                               "evaluated: not replayed"));
    }

    void aNamedLocationOnlyWhenNoLimitDecided()
    {
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $k zone=h:1m rate=1r/m;\n"
                                                "limit_req_zone all zone=g:1m rate=1r/m;\n"
                                                "server {\n"
                                                "    location / { limit_req zone=h; try_files $uri @app; }\n"
                                                "    location @app { limit_req zone=g; }\n"
                                                "}\n",
                                                "k");
        TrafficOptions o;
        o.keepPaths = true;
        o.emptyKeys = true;
        o.key.assign(1, 'k'); // not = "k": GCC 12 inlines that into a memcpy it wrongly warns about (-Wstringop-overflow)
        const Traffic t = parseTraffic("time,k,path\n1795392000.000,a,/x\n1795392000.001,a,/x\n"
                                       "1795392000.002,-,/x\n1795392000.003,-,/x\n",
                                       o, "log.csv");
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1, 1}));
    }

    // A limit that is not replayed (its key, a header, is not in the log) is one nginx still looks
    // every request up in when the header is sent, so the named location's limit is not asked in
    // its stead. Zone g (one counter for all, 1r/m, no burst) would deny the 2nd and 3rd request
    // if it were asked; nothing is denied, and h is named as not replayed.
    void aNamedLocationIsNotAskedInsteadOfAnUnreplayedLimit()
    {
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $http_x_api_key zone=h:1m rate=1r/m;\n"
                                                "limit_req_zone all zone=g:1m rate=1r/m;\n"
                                                "server {\n"
                                                "    location / { limit_req zone=h; try_files $uri @app; }\n"
                                                "    location @app { limit_req zone=g; }\n"
                                                "}\n",
                                                "k");
        QVERIFY(!c.notReplayed.empty());
        TrafficOptions o;
        o.keepPaths = true;
        o.key = "k";
        const Traffic t = parseTraffic("time,k,path\n1795392000.000,a,/x\n1795392000.001,a,/x\n1795392000.002,b,/x\n",
                                       o, "log.csv");
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, -1}));
    }

    // nginx skips a limit whose key is empty (a header the request did not send); its log writes
    // "" (escape=json) or "-". Zone k, 1r/m, no burst: key "a" at 0, 1, 2 ms is admitted, then
    // denied twice (excess 1000 > 0); "" and "-" three times each meet no limit.
    void anEmptyKeyMeetsNoLimit()
    {
        TrafficOptions o;
        o.keepPaths = true;
        o.emptyKeys = true;
        o.key = "k";
        const Traffic t = parseTraffic("time,k,path\n1795392000.000,,/x\n1795392000.000,-,/x\n1795392000.000,a,/x\n"
                                       "1795392000.001,,/x\n1795392000.001,-,/x\n1795392000.001,a,/x\n"
                                       "1795392000.002,,/x\n1795392000.002,-,/x\n1795392000.002,a,/x\n",
                                       o, "log.csv");
        QCOMPARE(t.times.size(), std::size_t(9));
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $http_k zone=k:1m rate=1r/m;\nlimit_req zone=k;\n", "k");
        QVERIFY(c.notReplayed.empty() == false); // $http_k is not the log's field "k": named
        const DryRunConfig byField = io::dryRunConfig("limit_req_zone $k zone=k:1m rate=1r/m;\nlimit_req zone=k;\n", "k");
        QCOMPARE(deniedBy(dryRun(t, byField)), (std::vector<int>{-1, -1, -1, -1, -1, 0, -1, -1, 0}));
    }

    // nginx's clock is whole ms of the clock (ngx_current_msec), not of the time since the log's
    // first request. Key a at 0.0004 s, key b at 0.0010 and 0.0014 s: b's two share the clock's
    // ms 1. At 1000r/s (rate 1,000,000 thousandths, one request a ms) and no burst, b's second
    // finds ms = 1 - 1 = 0: excess 0 - 0 + 1000 = 1000 > 0, denied. Counted from a's 0.0004 they
    // would be 0.0006 and 0.0010, ms 0 and 1, and both pass.
    void wholeMillisecondsOfTheClock()
    {
        TrafficOptions o;
        o.keepPaths = true;
        o.key = "k";
        const Traffic t = parseTraffic("time,k,path\n0.0004,a,/x\n0.0010,b,/x\n0.0014,b,/x\n", o, "log.csv");
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $k zone=k:1m rate=1000r/s;\nlimit_req zone=k;\n", "k");
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, 0}));
    }

    // Random configs: 2-4 zones, each applied by one location (prefix or "="), some locations
    // without limits; a request's location is found here by nginx's rule for these (exact, else
    // the longest prefix), and its decisions are plain replay's of nginx_limit_req at the zone's
    // rate and the limit's burst (C = burst + 1) on that location's requests alone.
    void equalsPlainReplayPerLocation()
    {
        const std::vector<std::string> prefixes = {"/", "/a", "/a/b", "/c", "/c/d/e", "/login", "/api/", "/api/v2/"};
        const std::vector<std::string> paths = {"/", "/a", "/a/b/c", "/ab", "/c/d", "/c/d/e/f", "/login", "/login/x",
                                                "/api/", "/api/v2/items", "/api/v1", "/zzz", "/a/b"};
        std::int64_t compared = 0, denied = 0;
        for (std::uint64_t seed = 1; seed <= propertySeeds(); ++seed) {
            std::mt19937_64 rng(seed);
            const int zones = 2 + int(rng() % 3);
            std::string conf;
            std::vector<std::pair<std::int64_t, bool>> rates; // per zone: rate, per minute
            for (int z = 0; z < zones; ++z) {
                rates.push_back({1 + std::int64_t(rng() % 20), rng() % 4 == 0});
                conf += "limit_req_zone $binary_remote_addr zone=z" + std::to_string(z) + ":10m rate="
                        + std::to_string(rates.back().first) + (rates.back().second ? "r/m;\n" : "r/s;\n");
            }
            conf += "server {\n";
            struct Place { std::string prefix; bool exact; int zone; std::int64_t burst; };
            std::vector<Place> places;
            std::vector<std::string> pool = prefixes;
            std::shuffle(pool.begin(), pool.end(), rng);
            const int count = zones + int(rng() % 3);
            for (int i = 0; i < count; ++i) {
                const int zone = i < zones ? i : -1;
                places.push_back({pool[std::size_t(i)], rng() % 4 == 0, zone, std::int64_t(rng() % 4)});
                conf += "  location " + std::string(places.back().exact ? "= " : "") + places.back().prefix + " {";
                if (zone >= 0)
                    conf += " limit_req zone=z" + std::to_string(zone)
                            + (places.back().burst ? " burst=" + std::to_string(places.back().burst) : "")
                            + (rng() % 2 ? " nodelay" : "") + ";";
                conf += " }\n";
            }
            conf += "}\n";
            Traffic t;
            t.keyNames = {"k0", "k1", "k2"};
            t.pathNames = paths;
            Nanos now = 0;
            for (int i = 0; i < 300; ++i) {
                now += Nanos(rng() % 400) * 1'000'000 + (rng() % 3 == 0 ? Nanos(rng() % 1'000'000) : 0);
                t.times.push_back(now);
                t.keys.push_back(std::uint32_t(rng() % 3));
                t.paths.push_back(std::uint32_t(rng() % paths.size()));
            }
            const DryRunConfig c = io::dryRunConfig(QString::fromStdString(conf), "ip");
            const DryRunResult r = dryRun(t, c);
            const auto placeOf = [&](const std::string& path) {
                int best = -1;
                for (std::size_t i = 0; i < places.size(); ++i)
                    if (places[i].exact && path == places[i].prefix)
                        return int(i);
                for (std::size_t i = 0; i < places.size(); ++i)
                    if (!places[i].exact && path.starts_with(places[i].prefix)
                        && (best < 0 || places[i].prefix.size() > places[std::size_t(best)].prefix.size()))
                        best = int(i);
                return best;
            };
            for (std::size_t i = 0; i < t.times.size(); ++i)
                if (placeOf(paths[t.paths[i]]) < 0) { // no location and no server limit: nothing limits it
                    ++compared;
                    QCOMPARE(r.deniedBy[i], -1);
                }
            for (std::size_t pl = 0; pl < places.size(); ++pl) {
                Traffic sub;
                sub.keyNames = t.keyNames;
                std::vector<std::size_t> at;
                for (std::size_t i = 0; i < t.times.size(); ++i)
                    if (placeOf(paths[t.paths[i]]) == int(pl)) {
                        sub.times.push_back(t.times[i]);
                        sub.keys.push_back(t.keys[i]);
                        at.push_back(i);
                    }
                std::vector<std::uint8_t> admitted(at.size(), 1);
                if (places[pl].zone >= 0 && !at.empty()) {
                    const auto [rate, perMinute] = rates[std::size_t(places[pl].zone)];
                    const Nanos per = perMinute ? 60 * kNanosPerSecond : kNanosPerSecond;
                    const LimiterConfig lc = LimiterConfig::make(rate, per, places[pl].burst + 1, Rate::reduced(rate, per));
                    replayOne(sub, Algorithm::NginxLimitReq, lc, 1, &admitted);
                }
                compared += std::int64_t(at.size());
                denied += std::count(admitted.begin(), admitted.end(), 0);
                for (std::size_t j = 0; j < at.size(); ++j)
                    if ((r.deniedBy[at[j]] < 0) != bool(admitted[j]))
                        QFAIL(qPrintable(QString("seed %1, request %2 (%3): dry run %4, replay %5\n%6")
                                             .arg(seed).arg(at[j]).arg(QString::fromStdString(paths[t.paths[at[j]]]))
                                             .arg(r.deniedBy[at[j]]).arg(admitted[j]).arg(QString::fromStdString(conf))));
            }
        }
        QVERIFY(compared == std::int64_t(propertySeeds()) * 300); // every request, in one location or in none
        QVERIFY2(denied * 20 > compared, qPrintable(QString::number(denied))); // and not vacuous: over 5% denied
    }
};

QTEST_GUILESS_MAIN(TestDryRun)
#include "tst_dry_run.moc"
