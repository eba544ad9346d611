// Dry runs of the other products: a RateLab scenario or a config `import` reads is one
// rule every request meets, keyed by the log's key where the product's key is it; the report and
// the diff as for nginx, on hand-derived tables, even across kinds (nginx against a scenario).
#include "dry_run_helpers.h"
#include "replay/dry_run_diff.h"
#include "scenariofile.h"

#include <QTest>

#include <algorithm>

using namespace ratelab;
using test::deniedBy;
using test::refusal;
using test::write;

namespace {

// A = 1.1.1.1, B = 2.2.2.2; seconds from 2026-11-23T00:00:00Z; every request has user "-".
const char* kLog = "time,ip,user,path\n"
                   "1795392000.000,1.1.1.1,-,/a\n"  // 1
                   "1795392001.000,1.1.1.1,-,/a\n"  // 2
                   "1795392002.000,2.2.2.2,-,/a\n"  // 3
                   "1795392003.000,1.1.1.1,-,/a\n"  // 4
                   "1795392059.999,1.1.1.1,-,/a\n"  // 5
                   "1795392060.000,1.1.1.1,-,/a\n"; // 6

Traffic logTraffic(const std::string& key = "ip")
{
    TrafficOptions o;
    o.keepPaths = true;
    o.key = key;
    return parseTraffic(kLog, o, "log.csv");
}

// namesOne: whether one of the notes holds `text`.
bool namesOne(const std::vector<std::string>& notes, const std::string& text)
{
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

} // namespace

class TestDryRunProducts : public QObject {
    Q_OBJECT
private slots:
    // express-rate-limit 8.7.5 (semantics.md's products table): per key a window of windowMs from
    // the key's first request, totalHits++ on every request (denied ones too), 429 iff totalHits
    // > limit; a new window once resetTime <= now. windowMs 60000, max 2, keyed by the IP:
    //  1 A    0 ms: A's window [0, 60000), hits 1 <= 2: admitted
    //  2 A 1000 ms: hits 2: admitted
    //  3 B 2000 ms: B's window [2000, 62000), hits 1: admitted
    //  4 A 3000 ms: hits 3 > 2: denied (the first denial of A)
    //  5 A 59999 ms: resetTime 60000 > 59999: hits 4 > 2: denied
    //  6 A 60000 ms: resetTime 60000 <= 60000: a new window, hits 1: admitted
    // With max 3: 4 is hits 3 <= 3, admitted; 5 hits 4 > 3, denied; 6 admitted.
    void expressOnALogByHand()
    {
        QTemporaryDir dir;
        const QString two = write(dir, "two.json", R"({"windowMs": 60000, "max": 2})");
        const QString three = write(dir, "three.json", R"({"windowMs": 60000, "max": 3})");
        const Traffic t = logTraffic();
        const DryRunConfig a = io::dryRunConfigFile(two, "ip");
        QCOMPARE(a.product, std::string("express-rate-limit"));
        QCOMPARE(a.rules.size(), std::size_t(1));
        QCOMPARE(a.rules[0].name, std::string("express-rate-limit"));
        QVERIFY(a.mapped[0]);
        QVERIFY(a.notReplayed.empty());
        const DryRunResult ra = dryRun(t, a);
        QCOMPARE(deniedBy(ra), (std::vector<int>{-1, -1, -1, 0, 0, -1}));
        QCOMPARE(ra.denied, std::int64_t(2));
        QCOMPARE(ra.rules[0].requests, std::int64_t(6));
        QCOMPARE(ra.rules[0].keysDenied, std::int64_t(1));
        QCOMPARE(ra.rules[0].firstDenialPerKey[t.keys[3]], Nanos(3 * kNanosPerSecond));

        // The diff of the two: only line 4 is denied by max 2 alone, line 5 by both.
        const DryRunConfig b = io::dryRunConfigFile(three, "ip");
        const DryRunResult rb = dryRun(t, b);
        QCOMPARE(deniedBy(rb), (std::vector<int>{-1, -1, -1, -1, 0, -1}));
        const DryRunDiff d = diffDryRuns(t, a, ra, b, rb);
        QCOMPARE(d.onlyCurrent.requests, std::int64_t(1));
        QCOMPARE(d.onlyCurrent.keys, std::int64_t(1));
        QCOMPARE(d.onlyProposed.requests, std::int64_t(0));
        QCOMPARE(d.deniedByBoth.requests, std::int64_t(1));
        QCOMPARE(d.admittedByBoth.requests, std::int64_t(4));
        QCOMPARE(d.byCurrentRule.size(), std::size_t(1));
        QCOMPARE(d.byCurrentRule[0].what, std::string("express-rate-limit"));
        QCOMPARE(d.byCurrentRule[0].onlyCurrent, std::int64_t(1));
    }

    // express-rate-limit keys by the IP: on a log read by user, it is named, not replayed, and
    // denies nothing; Envoy's local_ratelimit keeps one bucket for every request, whatever the key.
    void aKeyNotTheLogsIsNamed()
    {
        QTemporaryDir dir;
        const QString two = write(dir, "two.json", R"({"windowMs": 60000, "max": 2})");
        const DryRunConfig c = io::dryRunConfigFile(two, "user");
        QVERIFY(!c.mapped[0]);
        QCOMPARE(c.notReplayed.size(), std::size_t(1));
        QVERIFY2(c.notReplayed[0].find("not the log's key (user)") != std::string::npos
                     && c.notReplayed[0].find("--key ip replays it") != std::string::npos,
                 c.notReplayed[0].c_str());
        const DryRunResult r = dryRun(logTraffic("user"), c);
        QCOMPARE(r.denied, std::int64_t(0));
        QCOMPARE(r.rules[0].requests, std::int64_t(0));
    }

    // Spring's RequestRateLimiter keys by the principal (the log's user) and answers 403 to a
    // request whose key is empty (deny-empty-key, true unless set false): a logged user "-" is
    // denied by the rule, not let through; with deny-empty-key false it passes unlimited.
    // alice at 0 s and 10 s: a full bucket of burstCapacity 1, refilled at 1 a second: admitted.
    void springDeniesAnEmptyKey()
    {
        QTemporaryDir dir;
        const QByteArray spring = "spring:\n  cloud:\n    gateway:\n      routes:\n        - id: r\n          filters:\n"
                                  "            - name: RequestRateLimiter\n              args:\n"
                                  "                redis-rate-limiter.replenishRate: 1\n"
                                  "                redis-rate-limiter.burstCapacity: 1\n";
        const QString deny = write(dir, "deny.yml", spring);
        const QString let = write(dir, "let.yml", spring + "                deny-empty-key: false\n");
        TrafficOptions o;
        o.keepPaths = true;
        o.key = "user";
        const Traffic t = parseTraffic("time,user,path\n1795392000,alice,/a\n1795392001,-,/a\n1795392010,alice,/a\n", o, "log.csv");
        const DryRunConfig c = io::dryRunConfigFile(deny, "user");
        QCOMPARE(c.rules[0].name, std::string("route r: RequestRateLimiter")); // its routes read (tst_dry_run_routes)
        QVERIFY(c.mapped[0]);
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1}));
        QCOMPARE(deniedBy(dryRun(t, io::dryRunConfigFile(let, "user"))), (std::vector<int>{-1, -1, -1}));
    }

    // nginx now against a RateLab scenario proposed (express_rate_limit, windowMs 60000, max 2):
    // nginx's zone 1r/s burst=1 nodelay per IP admits all six (A's excess: 0 at 0 ms; at 1000,
    // 0 - 1000 + 1000 = 0; at 3000, max(0, 0 - 2000 + 1000) = 0; at 59999, 0; at 60000,
    // 0 - 1 + 1000 = 999 <= 1000), the scenario denies 4 and 5 as above: the proposal alone denies
    // 2 requests of 1 key, by its rule "RateLab scenario".
    void nginxAgainstAScenario()
    {
        QTemporaryDir dir;
        const QString nginx = write(dir, "nginx.conf", "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n"
                                                       "server { location / { limit_req zone=one burst=1 nodelay; } }\n");
        Scenario s;
        s.algorithms = {Algorithm::ExpressRateLimit};
        s.config = LimiterConfig{}.withProductOptions({{"windowMs", "60000"}, {"max", "2"}});
        const QString proposed = write(dir, "p.ratelab.json", io::serializeScenario(s));
        const Traffic t = logTraffic();
        const DryRunConfig a = io::dryRunConfigFile(nginx, "ip"), b = io::dryRunConfigFile(proposed, "ip");
        QCOMPARE(b.rules.size(), std::size_t(1));
        QCOMPARE(b.rules[0].name, std::string("RateLab scenario"));
        const DryRunResult ra = dryRun(t, a), rb = dryRun(t, b);
        QCOMPARE(deniedBy(ra), (std::vector<int>(6, -1)));
        QCOMPARE(deniedBy(rb), (std::vector<int>{-1, -1, -1, 0, 0, -1}));
        const DryRunDiff d = diffDryRuns(t, a, ra, b, rb);
        QCOMPARE(d.onlyProposed.requests, std::int64_t(2));
        QCOMPARE(d.onlyProposed.keys, std::int64_t(1));
        QCOMPARE(d.onlyCurrent.requests, std::int64_t(0));
        QCOMPARE(d.byProposedRule.size(), std::size_t(1));
        QCOMPARE(d.byProposedRule[0].what, std::string("RateLab scenario"));
    }

    // What a dry run cannot replay is refused by name: a scenario comparing algorithms (no one
    // policy), Traefik routers it cannot order, a rule too wide to expand.
    void refusedByName()
    {
        QTemporaryDir dir;
        Scenario s; // the default: several algorithms compared, no layers
        const QString many = write(dir, "many.ratelab.json", io::serializeScenario(s));
        const std::string e = refusal(many);
        QVERIFY2(e.starts_with(many.toStdString() + ": RateLab scenario: the scenario compares") && e.find("keep one algorithm") != std::string::npos,
                 e.c_str());
        // Traefik: two routers of the same priority (their rules' length, 18), a matcher not read.
        const QString tie = write(dir, "tie.yml", "http:\n  routers:\n    a:\n      rule: \"PathPrefix(`/api`)\"\n"
                                                  "      middlewares: [m]\n    b:\n      rule: \"PathPrefix(`/abc`)\"\n"
                                                  "  middlewares:\n    m:\n      rateLimit: {average: 1}\n");
        QVERIFY2(refusal(tie).find("Traefik: routers a and b have the same priority (18)") != std::string::npos, refusal(tie).c_str());
        // A rule whose ! and || expand to more alternatives than the dry run keeps (2^7 = 128 > 64).
        std::string wide;
        for (int i = 0; i < 7; ++i)
            wide += std::string(i ? " && " : "") + "(Method(`GET`) || Query(`q" + std::to_string(i) + "`))";
        const QString wideConf = write(dir, "wide.yml", QByteArray("http:\n  routers:\n    a:\n      rule: \"") + wide.c_str()
                                                        + "\"\n      middlewares: [m]\n  middlewares:\n    m:\n      rateLimit: {average: 1}\n");
        QVERIFY2(refusal(wideConf).find("Traefik: router a: the rule '(Method(`GET`) || Query(`q0`))") != std::string::npos
                     && refusal(wideConf).find("more than 64 alternatives") != std::string::npos,
                 refusal(wideConf).c_str());
    }

    // Traefik's routers select per path which rateLimit middlewares apply; each router builds its
    // own (in memory: its own buckets per source, traefik/traefik#13706). Routers are tried by
    // priority: login 100 (given), api 18 and rest 15 (their rules' length). slow: average 1 per
    // minute, burst 2 (x/time/rate: full at first, 1/60 token a second, a request that would wait
    // past maxDelay 500 ms is refused and its token given back); byuser keys by the header X-User,
    // not the log's key (ip): named, not replayed. Rules: 0 login's slow, 1 login's byuser, 2 api's slow.
    //  1 A   0 s /api/x      api: A's api-slow 2 -> 1 admitted
    //  2 A   1 s /api/y      api: 1 + 1/60 -> 0.017 admitted
    //  3 A   2 s /api/z      api: 0.033 < 1, a wait of ~58 s > 500 ms: denied by 2
    //  4 A   3 s /api/login  login (Path, priority 100): login's own slow, full: 2 -> 1 admitted
    //  5 A   4 s /api/login  login: 1.017 -> 0.017 admitted
    //  6 A   5 s /api/login  login: 0.033 < 1: denied by 0
    //  7 B   6 s /api/x      api: B's bucket, full: admitted
    //  8 A   7 s /static     rest: no middleware: admitted
    //  9 A   8 s /api/login?x=1  the query is not the path: login, 0.083 < 1: denied by 0
    // 10 A  70 s /api/x      api: 0.017 + 69/60 = 1.17 >= 1: admitted
    void traefikRoutersByHand()
    {
        QTemporaryDir dir;
        const QString conf = write(dir, "traefik.yml",
                                   "http:\n"
                                   "  routers:\n"
                                   "    api:\n      rule: \"PathPrefix(`/api`)\"\n      middlewares: [slow@file]\n      service: s\n"
                                   "    login:\n      rule: \"Host(`example.com`) && Path(`/api/login`)\"\n      priority: 100\n"
                                   "      middlewares: [slow, byuser]\n      service: s\n"
                                   "    rest:\n      rule: \"PathPrefix(`/`)\"\n      service: s\n"
                                   "  middlewares:\n"
                                   "    slow:\n      rateLimit: {average: 1, period: 1m, burst: 2}\n"
                                   "    byuser:\n      rateLimit:\n        average: 1\n        period: 1m\n        burst: 1\n"
                                   "        sourceCriterion: {requestHeaderName: X-User}\n");
        const DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.product, std::string("Traefik"));
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("router login: rateLimit slow"));
        QCOMPARE(c.rules[2].name, std::string("router api: rateLimit slow"));
        QCOMPARE(c.mapped, (std::vector<bool>{true, false, true}));
        // login's Host decides whether /api/login meets login's limits or api's (api and rest test
        // no host), and the log holds no host: named, each request taken to match it, not assumed.
        QCOMPARE(c.notReplayed.size(), std::size_t(2));
        QVERIFY2(namesOne(c.notReplayed, "--key http_x_user replays it"), c.notReplayed[0].c_str());
        QVERIFY2(namesOne(c.notReplayed, "router login matches on Host(`example.com`)"), c.notReplayed[1].c_str());
        QVERIFY(c.assumed.empty());
        TrafficOptions o;
        o.keepPaths = true;
        const Traffic t = parseTraffic("time,ip,path\n"
                                       "1795392000,1.1.1.1,/api/x\n1795392001,1.1.1.1,/api/y\n1795392002,1.1.1.1,/api/z\n"
                                       "1795392003,1.1.1.1,/api/login\n1795392004,1.1.1.1,/api/login\n"
                                       "1795392005,1.1.1.1,/api/login\n1795392006,2.2.2.2,/api/x\n"
                                       "1795392007,1.1.1.1,/static\n1795392008,1.1.1.1,/api/login?x=1\n"
                                       "1795392070,1.1.1.1,/api/x\n",
                                       o, "log.csv");
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 2, -1, -1, 0, -1, -1, 0, -1}));
        QCOMPARE(r.rules[0].requests, std::int64_t(4));
        QCOMPARE(r.rules[1].requests, std::int64_t(0));
        QCOMPARE(r.rules[2].requests, std::int64_t(5));
    }

    // The same routers and middlewares written as Traefik's TOML file provider writes them read
    // as the YAML above: a middlewares list over several lines, an inline table, a sub-table, and
    // the [[arrays of tables]] of the services' servers and of tls.certificates (TOML 1.0; each
    // [[x]] a new element), which name no router or middleware.
    void traefikTomlReadsAsTheYaml()
    {
        QTemporaryDir dir;
        const QString conf = write(dir, "traefik.toml",
                                   "[http.routers]\n"
                                   "  [http.routers.api]\n"
                                   "    rule = \"PathPrefix(`/api`)\"\n"
                                   "    middlewares = [\n      \"slow@file\", # the provider is not the name\n    ]\n"
                                   "    service = \"s\"\n"
                                   "  [http.routers.login]\n"
                                   "    rule = \"Host(`example.com`) && Path(`/api/login`)\"\n"
                                   "    priority = 100\n"
                                   "    middlewares = [\"slow\", \"byuser\"]\n"
                                   "    service = \"s\"\n"
                                   "  [http.routers.rest]\n"
                                   "    rule = 'PathPrefix(`/`)'\n"
                                   "    service = \"s\"\n"
                                   "[http.middlewares]\n"
                                   "  [http.middlewares.slow]\n"
                                   "    rateLimit = { average = 1, period = \"1m\", burst = 2 }\n"
                                   "  [http.middlewares.byuser.rateLimit]\n"
                                   "    average = 1\n    period = \"1m\"\n    burst = 1\n"
                                   "    [http.middlewares.byuser.rateLimit.sourceCriterion]\n"
                                   "      requestHeaderName = \"X-User\"\n"
                                   "[http.services]\n"
                                   "  [http.services.s.loadBalancer]\n"
                                   "    [[http.services.s.loadBalancer.servers]]\n      url = \"http://app-1:8080/\"\n"
                                   "    [[http.services.s.loadBalancer.servers]]\n      url = \"http://app-2:8080/\"\n"
                                   "[[tls.certificates]]\n"
                                   "  certFile = \"/etc/traefik/a.crt\"\n  keyFile = \"/etc/traefik/a.key\"\n  stores = [\"default\"]\n"
                                   "[[tls.certificates]]\n"
                                   "  certFile = \"/etc/traefik/b.crt\"\n  keyFile = \"/etc/traefik/b.key\"\n");
        const DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.product, std::string("Traefik"));
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("router login: rateLimit slow"));
        QCOMPARE(c.rules[1].name, std::string("router login: rateLimit byuser"));
        QCOMPARE(c.rules[2].name, std::string("router api: rateLimit slow"));
        QCOMPARE(c.mapped, (std::vector<bool>{true, false, true}));
        QCOMPARE(c.notReplayed.size(), std::size_t(2)); // the header's key and login's Host, as above
        QVERIFY2(namesOne(c.notReplayed, "--key http_x_user replays it"), c.notReplayed[0].c_str());
    }
};

QTEST_GUILESS_MAIN(TestDryRunProducts)
#include "tst_dry_run_products.moc"
