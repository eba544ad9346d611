// Traefik's routers on a log as Traefik v3 reads their rules: the grammar (&&, ||, !, parentheses,
// matcher names in any of the cases Traefik registers), the matchers on the logged fields and
// target, priority by the rule's length, RE2 regexes, and what cannot be decided named.
#include "dry_run_helpers.h"

#include <QTest>

#include <algorithm>

using namespace ratelab;
using test::deniedBy;
using test::refusal;
using test::write;

namespace {

// The routers of a gateway in front of an API, the Traefik dashboard's rule as Traefik's own
// documentation writes it (docs/content/operations/include-dashboard-examples.md), an API router
// by HostRegexp that leaves its health check out, writes by method and tenant header, and a
// search page by query. Each applies `one`: average 1 per minute, burst 1, by the client's
// address (Traefik builds it per router: each router its own bucket per IP).
const char* kRouters = "http:\n"
                       "  routers:\n"
                       "    dashboard:\n"
                       "      rule: Host(`traefik.example.com`) && (PathPrefix(`/api`) || PathPrefix(`/dashboard`))\n"
                       "      service: api@internal\n      middlewares: [one]\n"
                       "    api:\n"
                       "      rule: 'HostRegexp(`^[a-z]+\\.example\\.com$`) && PathPrefix(`/api`) && !PathPrefix(`/api/health`)'\n"
                       "      service: app\n      middlewares: [one@file]\n"
                       "    writes:\n"
                       "      rule: PathPrefix(`/api`) && (Method(`POST`) || Method(`PUT`)) && Header(`X-Tenant`, `acme`)\n"
                       "      service: app\n      middlewares: [one]\n"
                       "    search:\n"
                       "      rule: \"Path(`/search`) && Query(`page`, `1`)\"\n"
                       "      service: app\n      middlewares: [one]\n"
                       "  middlewares:\n"
                       "    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n"
                       "  services:\n"
                       "    app:\n      loadBalancer:\n        servers:\n          - url: http://app:8080\n";

} // namespace

class TestDryRunTraefik : public QObject {
    Q_OBJECT
private slots:
    // Priorities are the rules' lengths in bytes (GetRulePriority): api 88, writes 85, dashboard
    // 79, search 37, so api takes the dashboard's /api (Traefik's own gotcha). Rules in that
    // order: 0 api, 1 writes, 2 dashboard, 3 search. `one` admits each bucket's first request and
    // then refills 1/60 a second: every later one within the minute would wait past maxDelay.
    // A = 1.1.1.1, one request a second; host, method, X-Tenant, target:
    //  1 traefik.example.com      GET  -     /dashboard/        dashboard: first -> admitted
    //  2 Traefik.Example.COM:443  GET  -     /dashboard/x       the canonical host: dashboard -> denied by 2
    //  3 traefik.example.com      GET  -     /api/overview      api (88 > 79): first -> admitted
    //  4 api.example.com          GET  -     /api/users         api -> denied by 0
    //  5 api.example.com          GET  -     /api/health        !PathPrefix leaves api; GET not writes: none
    //  6 api.example.com          POST acme  /api/health        writes: first -> admitted
    //  7 shop.example.org         PUT  acme  /api/orders        not api's host: writes -> denied by 1
    //  8 shop.example.org         POST other /api/orders        not acme: none
    //  9 a.b.example.com          GET  -     /api/x             [a-z]+ takes no '.': none
    // 10 x.example.com            GET  -     /search?page=1     search: first -> admitted
    // 11 x.example.com            GET  -     /search?page=2     not page 1: none
    // 12 x.example.com            GET  -     /search?x=1&page=1 search -> denied by 3
    // 13 x.example.com            GET  -     /search?page=1;x=2 Go's ParseQuery drops a pair with ';': none
    // 14 API.example.com          POST acme  /api/orders        api (88 > writes' 85) -> denied by 0
    // 15 traefik.example.com      GET  -     /api/../dashboard  the path cleaned to /dashboard: denied by 2
    // Denied: 2, 4, 7, 12, 14, 15 (6 of 15).
    void rulesOnTheLogsFields()
    {
        QTemporaryDir dir;
        DryRunConfig c = io::dryRunConfigFile(write(dir, "dynamic.yml", kRouters), "ip");
        QCOMPARE(c.rules.size(), std::size_t(4));
        QCOMPARE(c.rules[0].name, std::string("router api: rateLimit one"));
        QCOMPARE(c.rules[1].name, std::string("router writes: rateLimit one"));
        QCOMPARE(c.rules[2].name, std::string("router dashboard: rateLimit one"));
        QCOMPARE(c.rules[3].name, std::string("router search: rateLimit one"));
        QCOMPARE(c.places.size(), std::size_t(6)); // writes and dashboard have two alternatives each
        // Before the log: the hosts, the methods and the header are named (two hosts differ, so
        // neither is only assumed).
        QCOMPARE(c.notReplayed.size(), std::size_t(5));
        QCOMPARE(c.notReplayed[0], std::string("router api matches on HostRegexp(`^[a-z]+\\.example\\.com$`), which the log "
                                               "does not hold (no host field): every request taken to match it"));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"host", "request_method", "http_x_tenant"}));
        const Traffic t = parseTraffic("time,ip,host,request_method,http_x_tenant,path\n"
                                       "1795392000,1.1.1.1,traefik.example.com,GET,-,/dashboard/\n"
                                       "1795392001,1.1.1.1,Traefik.Example.COM:443,GET,-,/dashboard/x\n"
                                       "1795392002,1.1.1.1,traefik.example.com,GET,-,/api/overview\n"
                                       "1795392003,1.1.1.1,api.example.com,GET,-,/api/users\n"
                                       "1795392004,1.1.1.1,api.example.com,GET,-,/api/health\n"
                                       "1795392005,1.1.1.1,api.example.com,POST,acme,/api/health\n"
                                       "1795392006,1.1.1.1,shop.example.org,PUT,acme,/api/orders\n"
                                       "1795392007,1.1.1.1,shop.example.org,POST,other,/api/orders\n"
                                       "1795392008,1.1.1.1,a.b.example.com,GET,-,/api/x\n"
                                       "1795392009,1.1.1.1,x.example.com,GET,-,/search?page=1\n"
                                       "1795392010,1.1.1.1,x.example.com,GET,-,/search?page=2\n"
                                       "1795392011,1.1.1.1,x.example.com,GET,-,/search?x=1&page=1\n"
                                       "1795392012,1.1.1.1,x.example.com,GET,-,/search?page=1;x=2\n"
                                       "1795392013,1.1.1.1,API.example.com,POST,acme,/api/orders\n"
                                       "1795392014,1.1.1.1,traefik.example.com,GET,-,/api/../dashboard\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY2(c.notReplayed.empty(), c.notReplayed.empty() ? "" : c.notReplayed[0].c_str());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, 2, -1, 0, -1, -1, 1, -1, -1, -1, -1, 3, -1, 0, 2}));
        QCOMPARE(r.denied, std::int64_t(6));
        QCOMPARE(r.rules[0].requests, std::int64_t(3));
        QCOMPARE(r.rules[1].requests, std::int64_t(2));
        QCOMPARE(r.rules[2].requests, std::int64_t(3));
        QCOMPARE(r.rules[3].requests, std::int64_t(2));
        QCOMPARE(dryRunHeadline(c, r, 15), std::string("denied 6 of 15 requests; every rule replayed"));
    }

    // The same routers on a combined log, which holds each method (its request line) but no host
    // nor header: those matchers are taken to hold and stay named, so the run says it is not
    // complete. A, one request a second:
    //  1 GET  /dashboard/    dashboard (its Host taken): first -> admitted
    //  2 GET  /api/overview  api (its HostRegexp taken): first -> admitted
    //  3 POST /api/health    not api; writes (its header taken): first -> admitted
    //  4 POST /api/health    writes -> denied by 1
    //  5 GET  /api/health    not api nor writes; dashboard's /api with its Host taken -> denied by 2
    //                        (on the log with hosts above, api.example.com met no router)
    void unloggedFieldsNamed()
    {
        QTemporaryDir dir;
        DryRunConfig c = io::dryRunConfigFile(write(dir, "dynamic.yml", kRouters), "ip");
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QByteArray log;
        int second = 0;
        for (const char* request : {"GET /dashboard/", "GET /api/overview", "POST /api/health", "POST /api/health", "GET /api/health"})
            log += QString("1.1.1.1 - - [01/Jan/2000:00:00:0%1 +0000] \"%2 HTTP/1.1\" 200 1 \"-\" \"-\"\n")
                       .arg(second++)
                       .arg(request)
                       .toUtf8();
        const Traffic t = parseTraffic(log.toStdString(), o, "access.log");
        bindKeyFields(c, t);
        QCOMPARE(c.notReplayed.size(), std::size_t(3)); // the methods bound; HostRegexp, the header, Host named
        QVERIFY2(c.notReplayed[1].starts_with("router writes matches on Header(`X-Tenant`, `acme`), which the log does not "
                                              "hold (no field http_x_tenant)"),
                 c.notReplayed[1].c_str());
        QVERIFY2(c.notReplayed[2].starts_with("router dashboard matches on Host(`traefik.example.com`)"), c.notReplayed[2].c_str());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, -1, 1, 2}));
        const std::string headline = dryRunHeadline(c, r, 5);
        QVERIFY2(headline.starts_with("NOT COMPLETE: 0 of 4 rules not replayed, 3 parts named"), headline.c_str());
    }

    // One host shared by every router decides nothing between them: taking it is only assumed,
    // and the run is complete (the first router of the real config above, alone).
    void oneHostAssumed()
    {
        QTemporaryDir dir;
        const DryRunConfig c = io::dryRunConfigFile(
            write(dir, "one.yml",
                  "http:\n  routers:\n    dashboard:\n"
                  "      rule: Host(`traefik.example.com`) && (PathPrefix(`/api`) || PathPrefix(`/dashboard`))\n"
                  "      middlewares: [one]\n  middlewares:\n    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n"),
            "ip");
        QVERIFY(c.notReplayed.empty());
        QCOMPARE(c.assumed, std::vector<std::string>{"router dashboard: every logged request is taken to match "
                                                     "Host(`traefik.example.com`) (the log holds no host)"});
    }

    // The same host written once, but a router without it beside: the host decides which of the
    // two takes /api (the longer rule, web's, for a.example.com; api's for any other), so it is
    // a gap, named, and the run is not complete.
    void aHostNotEveryRouterTestsIsNamed()
    {
        QTemporaryDir dir;
        const DryRunConfig c = io::dryRunConfigFile(
            write(dir, "two.yml",
                  "http:\n  routers:\n    web:\n      rule: Host(`a.example.com`) && PathPrefix(`/api`)\n"
                  "      middlewares: [one]\n    api:\n      rule: PathPrefix(`/api`)\n      middlewares: [one]\n"
                  "  middlewares:\n    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n"),
            "ip");
        QVERIFY(c.assumed.empty());
        QCOMPARE(c.notReplayed.size(), std::size_t(1));
        QVERIFY2(c.notReplayed[0].starts_with("router web matches on Host(`a.example.com`)"), c.notReplayed[0].c_str());
    }

    // What Traefik v3 refuses leaves its router out, named; the next router takes its requests.
    // legacy is v2's Headers (v3's parser knows no such matcher), broken lacks its ')', mixed
    // writes a name in a case Traefik does not register; lower writes its matcher in lower case
    // (registered) and its ClientIP, never bound to the log's address here (no bindKeyFields), is
    // named and taken to hold. /v1/a and /v1/b (A, 1 s apart) both meet lower's `one`: admitted, then denied by 0.
    void refusedRulesNamed()
    {
        QTemporaryDir dir;
        DryRunConfig c = io::dryRunConfigFile(
            write(dir, "v2.yml",
                  "http:\n  routers:\n"
                  "    legacy:\n      rule: Headers(`X-Api`, `1`) && PathPrefix(`/v1`)\n      middlewares: [one]\n"
                  "    broken:\n      rule: PathPrefix(`/v1`\n      middlewares: [one]\n"
                  "    mixed:\n      rule: PathPREFIX(`/v1/a`)\n      middlewares: [one]\n"
                  "    lower:\n      rule: pathprefix(`/v1`) && !ClientIP(`10.0.0.0/8`)\n      middlewares: [one]\n"
                  "  middlewares:\n    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n"),
            "ip");
        QCOMPARE(c.rules.size(), std::size_t(1));
        QCOMPARE(c.rules[0].name, std::string("router lower: rateLimit one"));
        QCOMPARE(c.notReplayed.size(), std::size_t(4));
        QCOMPARE(c.notReplayed[0], std::string("router legacy: Traefik refuses its rule 'Headers(`X-Api`, `1`) && PathPrefix(`/v1`)' "
                                               "(Headers is no matcher of Traefik v3's rule syntax (a v2 one: ruleSyntax v2, "
                                               "which --config does not read) at offset 7): it serves no request"));
        QVERIFY2(c.notReplayed[1].starts_with("router broken: Traefik refuses its rule"), c.notReplayed[1].c_str());
        QVERIFY2(c.notReplayed[2].starts_with("router mixed: Traefik refuses its rule"), c.notReplayed[2].c_str());
        QVERIFY2(c.notReplayed[3].starts_with("router lower matches on !ClientIP(`10.0.0.0/8`), which the log does not hold (no client address field ip)"),
                 c.notReplayed[3].c_str());
        TrafficOptions o;
        o.keepPaths = true;
        const Traffic t = parseTraffic("time,ip,path\n1795392000,1.1.1.1,/v1/a\n1795392001,1.1.1.1,/v1/b\n", o, "log.csv");
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0}));
        // ruleSyntax v2 is another grammar (gorilla/mux paths, several values a matcher): refused.
        const std::string v2 = refusal(write(dir, "syntax.yml",
                                             "http:\n  routers:\n    a:\n      rule: PathPrefix(`/a`)\n      ruleSyntax: v2\n"
                                             "      middlewares: [one]\n  middlewares:\n    one:\n      rateLimit: {average: 1}\n"));
        QVERIFY2(v2.find("router a: ruleSyntax v2 is not read") != std::string::npos, v2.c_str());
        // A rule nested 5,000 deep is refused with a reason, not read until the stack runs out.
        const std::string deepRule = std::string(5000, '(') + "PathPrefix(`/a`)" + std::string(5000, ')');
        const std::string deep = refusal(write(dir, "deep.yml",
                                               QByteArray::fromStdString("http:\n  routers:\n    a:\n      rule: '" + deepRule
                                                                         + "'\n      middlewares: [one]\n  middlewares:\n"
                                                                           "    one:\n      rateLimit: {average: 1}\n")));
        QVERIFY2(deep.find("nested more than 1,000 deep: not read") != std::string::npos, deep.c_str());
        // A router's name and its refused rule are named as written, on one printable line: a tab
        // in either comes out as \x09 (the note is printed as it is, and shown in the app).
        const DryRunConfig tabbed = io::dryRunConfigFile(
            write(dir, "tab.yml",
                  "http:\n  routers:\n    \"a\\tb\":\n      rule: \"Headers(`X`,\\t`1`)\"\n      middlewares: [one]\n"
                  "    ok:\n      rule: PathPrefix(`/`)\n      middlewares: [one]\n"
                  "  middlewares:\n    one:\n      rateLimit: {average: 1}\n"),
            "ip");
        QCOMPARE(tabbed.notReplayed.size(), std::size_t(1));
        QVERIFY2(tabbed.notReplayed[0].starts_with("router a\\x09b: Traefik refuses its rule 'Headers(`X`,\\x09`1`)' ("),
                 tabbed.notReplayed[0].c_str());
        // Go's call syntax takes a comma after the last argument; an escape Go has and the reader
        // does not (\x41) is said so, not blamed on Traefik.
        const auto rule = [&](const char* name, const char* text) {
            return refusal(write(dir, name, QByteArray("http:\n  routers:\n    a:\n      rule: '") + text
                                                + "'\n      middlewares: [one]\n  middlewares:\n"
                                                  "    one:\n      rateLimit: {average: 1}\n"));
        };
        QCOMPARE(rule("comma.yml", "PathPrefix(`/a`,)"), std::string("(accepted)"));
        const std::string escape = rule("escape.yml", "PathPrefix(\"/\\x41\")");
        QVERIFY2(escape.find("the escape \\x in a string is not read") != std::string::npos, escape.c_str());
    }

    // Host as DomainMatchHostExpression matches it: "*." takes one first label, any case, a
    // trailing '.' on either side; !Host(`*`) matches nothing, so router p (priority 1, below w's
    // 21) is its Path alternative alone. Rules 0 w, 1 p; A, one request a second:
    //  1 a.example.com    /x  w: first -> admitted
    //  2 example.com      /x  no first label: not w; not /p: none
    //  3 B.EXAMPLE.com.   /x  w (lower-cased, the trailing '.' dropped) -> denied by 0
    //  4 a.b.example.com  /x  two labels before example.com: none
    //  5 a.b.example.com  /p  p: first -> admitted
    //  6 example.com      /p  p -> denied by 1
    void hostWildcards()
    {
        QTemporaryDir dir;
        DryRunConfig c = io::dryRunConfigFile(
            write(dir, "w.yml",
                  "http:\n  routers:\n    w:\n      rule: Host(`*.example.com`)\n      middlewares: [one]\n"
                  "    p:\n      rule: '!Host(`*`) || Path(`/p`)'\n      priority: 1\n      middlewares: [one]\n"
                  "  middlewares:\n    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n"),
            "ip");
        QCOMPARE(c.places.size(), std::size_t(2)); // !Host(`*`) is no alternative
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        const Traffic t = parseTraffic("time,ip,host,path\n1795392000,1.1.1.1,a.example.com,/x\n"
                                       "1795392001,1.1.1.1,example.com,/x\n1795392002,1.1.1.1,B.EXAMPLE.com.,/x\n"
                                       "1795392003,1.1.1.1,a.b.example.com,/x\n1795392004,1.1.1.1,a.b.example.com,/p\n"
                                       "1795392005,1.1.1.1,example.com,/p\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY(c.notReplayed.empty() && c.assumed.empty());
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, 0, -1, -1, 1}));
    }

    // ClientIP tests the logged client address as ip.Checker tests the connection's. Routers by
    // priority: v4 30, v6 20, neg 10, either 5; rules 0 v4, 1 v6, 2 neg, 3 either, each `one`
    // (the first request of a key admitted, the next within the minute denied). Keyed by ip,
    // one request a second; address, target:
    //  1 10.1.2.3          /a    in 10.1.0.0/16: v4, first -> admitted
    //  2 10.2.0.1          /a    not in it; not 2001:db8::1; not /b; neither 172.16.0.1 nor /c: none
    //  3 10.1.2.3          /a/x  v4 -> denied by 0
    //  4 2001:DB8:0:0::1   /a    an IPv6 address is in no IPv4 range; equal to 2001:db8::1: v6 -> admitted
    //  5 2001:db8::1       /a    the same address (its canonical form): v6 -> denied by 1
    //  6 2001:db8::2       /a    an IP is its /128: none
    //  7 192.168.0.7       /b    in 192.168.0.0/24, so !ClientIP fails: none
    //  8 192.168.1.7       /b    outside it: neg -> admitted
    //  9 192.168.1.7       /b    neg -> denied by 2
    // 10 172.16.0.1        /z    ClientIP holds, Path does not: either -> admitted
    // 11 172.16.0.1        /c    either -> denied by 3
    // 12 ::ffff:10.1.0.9   /a    IPv4-mapped: Go's To4 makes it 10.1.0.9, in 10.1.0.0/16: v4 -> admitted
    // 13 10.9.9.9          /d    ::ffff:10.0.0.0/104 is IPv4-mapped once masked: 10.0.0.0/8 -> mapped, admitted
    void clientAddresses()
    {
        QTemporaryDir dir;
        const QByteArray config = "http:\n  routers:\n"
                                  "    v4:\n      rule: PathPrefix(`/a`) && ClientIP(`10.1.0.0/16`)\n      priority: 30\n"
                                  "      middlewares: [one]\n"
                                  "    v6:\n      rule: PathPrefix(`/a`) && ClientIP(`2001:db8::1`)\n      priority: 20\n"
                                  "      middlewares: [one]\n"
                                  "    neg:\n      rule: PathPrefix(`/b`) && !ClientIP(`192.168.0.0/24`)\n      priority: 10\n"
                                  "      middlewares: [one]\n"
                                  "    either:\n      rule: ClientIP(`172.16.0.1`) || Path(`/c`)\n      priority: 5\n"
                                  "      middlewares: [one]\n"
                                  "    mapped:\n      rule: PathPrefix(`/d`) && ClientIP(`::ffff:10.0.0.0/104`)\n      priority: 1\n"
                                  "      middlewares: [one]\n"
                                  "  middlewares:\n    one:\n      rateLimit: {average: 1, period: 1m, burst: 1}\n";
        DryRunConfig c = io::dryRunConfigFile(write(dir, "ip.yml", config), "ip");
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"ip"}));
        const Traffic t = parseTraffic("time,ip,path\n1795392000,10.1.2.3,/a\n1795392001,10.2.0.1,/a\n"
                                       "1795392002,10.1.2.3,/a/x\n1795392003,2001:DB8:0:0::1,/a\n1795392004,2001:db8::1,/a\n"
                                       "1795392005,2001:db8::2,/a\n1795392006,192.168.0.7,/b\n1795392007,192.168.1.7,/b\n"
                                       "1795392008,192.168.1.7,/b\n1795392009,172.16.0.1,/z\n1795392010,172.16.0.1,/c\n"
                                       "1795392011,::ffff:10.1.0.9,/a\n1795392012,10.9.9.9,/d\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY2(c.notReplayed.empty(), c.notReplayed.empty() ? "" : c.notReplayed[0].c_str());
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, 0, -1, 1, -1, -1, -1, 2, -1, 3, -1, -1}));
        QCOMPARE(dryRun(t, c).rules[4].requests, std::int64_t(1)); // request 13 met `mapped`

        // A log without the client's address, `one` keyed by the header X-User instead: each
        // ClientIP is named, and taken to hold, negated or not, so /b from anyone meets neg:
        // admitted, then denied by 2.
        QByteArray byHeader = config;
        byHeader.replace("burst: 1}", "burst: 1, sourceCriterion: {requestHeaderName: X-User}}");
        DryRunConfig byUser = io::dryRunConfigFile(write(dir, "ip.yml", byHeader), "user");
        o.key = "user";
        o.keyFields = keyFieldsOf(byUser);
        const Traffic noIp = parseTraffic("time,user,http_x_user,path\n1795392000,u,u,/b\n1795392001,u,u,/b\n", o, "log.csv");
        bindKeyFields(byUser, noIp);
        QVERIFY(std::find(byUser.notReplayed.begin(), byUser.notReplayed.end(),
                          "router neg matches on !ClientIP(`192.168.0.0/24`), which the log does not hold (no client "
                          "address field ip): every request taken to match it")
                != byUser.notReplayed.end());
        QCOMPARE(deniedBy(dryRun(noIp, byUser)).back(), 2);

        // A log that holds the address, but not on every line: a line without one has an address
        // in no range, as Traefik's ClientIP fails on an address ip.Checker cannot parse, so
        // !ClientIP holds. Keyed by X-User u, path /b:
        //  1 192.168.0.7  in 192.168.0.0/24: neg fails; either neither: none
        //  2 (none)       !ClientIP holds: neg -> admitted
        //  3 (none)       neg -> denied by 2 (so 1 met nothing: had it met neg, 2 would be denied)
        DryRunConfig someIp = io::dryRunConfigFile(write(dir, "ip.yml", byHeader), "user");
        o.keyFields = keyFieldsOf(someIp);
        const Traffic partial = parseTraffic("time,user,ip,http_x_user,path\n1795392000,u,192.168.0.7,u,/b\n"
                                             "1795392001,u,,u,/b\n1795392002,u,-,u,/b\n",
                                             o, "log.csv");
        bindKeyFields(someIp, partial);
        QCOMPARE(deniedBy(dryRun(partial, someIp)), (std::vector<int>{-1, -1, 2}));

        // What ip.NewChecker refuses (net.ParseIP, then net.ParseCIDR) leaves the router out:
        // a prefix past 32, a leading zero (netip.ParseAddr), a zone, a host name.
        for (const char* bad : {"10.0.0.0/33", "010.0.0.1", "fe80::1%eth0", "localhost", "10.0.0.0/", "::1/129"}) {
            DryRunConfig r = io::dryRunConfigFile(
                write(dir, "bad.yml", QByteArray("http:\n  routers:\n    a:\n      rule: ClientIP(`") + bad
                                          + "`)\n      middlewares: [one]\n    b:\n      rule: PathPrefix(`/`)\n"
                                            "      middlewares: [one]\n  middlewares:\n    one:\n      rateLimit: {average: 1}\n"),
                "ip");
            QVERIFY2(!r.notReplayed.empty() && r.notReplayed[0].starts_with("router a: Traefik refuses its rule")
                         && r.notReplayed[0].find("parsing CIDR trusted IPs") != std::string::npos,
                     bad);
        }
    }
};

QTEST_GUILESS_MAIN(TestDryRunTraefik)
#include "tst_dry_run_traefik.moc"
