// Dry runs by route: a logged path as each product reads it (percent-decoding, slashes,
// dot segments), Spring's PathPattern, and Kong's, Spring Cloud Gateway's and Envoy's routes
// selecting per request the limits that apply, on hand-derived tables.
#include "dry_run_helpers.h"
#include "replay/dry_run_path.h"
#include "replay/product_regex.h"
#include "traffic/traffic_parse.h"

#include <QTest>

using namespace ratelab;
using test::deniedBy;
using test::refusal;
using test::write;

namespace {

std::string norm(const char* path, DryRunPaths rule)
{
    const std::optional<std::string> p = normalizedPath(path, rule);
    return p ? *p : std::string("(refused)");
}

Traffic traffic(const char* csv)
{
    TrafficOptions o;
    o.keepPaths = true;
    o.emptyKeys = true;
    return parseTraffic(csv, o, "log.csv");
}

// springConfig writes a Spring Cloud Gateway application.yml of these routes (each "- id: ..."
// entry's text, indented as a list item of routes) and reads it keyed by ip.
DryRunConfig springConfig(const QTemporaryDir& dir, const QByteArray& routes)
{
    return io::dryRunConfigFile(test::write(dir, "application.yml", "spring:\n  cloud:\n    gateway:\n      routes:\n" + routes), "ip");
}

// springRoute is one route: its id, predicates (one a line) and a RequestRateLimiter of 1 a
// second, burst 1, keyed by the ip resolver (taken as the log's key).
QByteArray springRoute(const char* id, std::initializer_list<const char*> predicates)
{
    QByteArray out = QByteArray("        - id: ") + id + "\n          uri: http://up\n          predicates:\n";
    for (const char* p : predicates)
        out += QByteArray("            - \"") + p + "\"\n";
    return out + "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                 "                key-resolver: \"#{@ipKeyResolver}\"\n"
                 "                redis-rate-limiter.replenishRate: 1\n"
                 "                redis-rate-limiter.burstCapacity: 1\n";
}

// ruleMet returns the rule that a log of the one request `line` (time,ip,path) meets, -1 none.
int ruleMet(const DryRunConfig& c, const char* line)
{
    const DryRunResult r = dryRun(traffic((std::string("time,ip,path\n") + line + "\n").c_str()), c);
    for (std::size_t k = 0; k < r.rules.size(); ++k)
        if (r.rules[k].requests == 1)
            return int(k);
    return -1;
}

} // namespace

class TestDryRunRoutes : public QObject {
    Q_OBJECT
private slots:
    // nginx (ngx_http_parse_complex_uri, merge_slashes on): the query string is not $uri; every
    // %XX is decoded (a decoded '/' or '.' counts as one), slashes merged, "." dropped, ".." takes
    // the segment before it; a bad %XX, a NUL or ".." above the root is a 400.
    void nginxPaths()
    {
        QCOMPARE(norm("/api/x?y=1", DryRunPaths::Nginx), std::string("/api/x"));
        QCOMPARE(norm("/%61pi/x", DryRunPaths::Nginx), std::string("/api/x"));
        QCOMPARE(norm("/a%2Fb", DryRunPaths::Nginx), std::string("/a/b"));
        QCOMPARE(norm("//api///x", DryRunPaths::Nginx), std::string("/api/x"));
        QCOMPARE(norm("/a/./b/../c", DryRunPaths::Nginx), std::string("/a/c"));
        QCOMPARE(norm("/a/..", DryRunPaths::Nginx), std::string("/"));
        QCOMPARE(norm("/a/b/..", DryRunPaths::Nginx), std::string("/a/"));
        QCOMPARE(norm("/a/%2e%2e/b", DryRunPaths::Nginx), std::string("/b"));
        QCOMPARE(norm("/a%25b", DryRunPaths::Nginx), std::string("/a%b"));
        QCOMPARE(norm("/%2e%2e/x", DryRunPaths::Nginx), std::string("(refused)"));
        QCOMPARE(norm("/a%zz", DryRunPaths::Nginx), std::string("(refused)"));
        QCOMPARE(norm("/a%00", DryRunPaths::Nginx), std::string("(refused)"));
    }

    // Kong (kong/tools/uri.lua normalize(uri, true), from the router's strip_uri_args): %XX
    // decoded unless reserved (!*'();:@&=+$,/?%#[], kept encoded in upper case), a bad %XX kept,
    // slashes merged, dot segments removed, ".." at the root staying there.
    void kongPaths()
    {
        QCOMPARE(norm("/%61pi?x", DryRunPaths::Kong), std::string("/api"));
        QCOMPARE(norm("/a%2fb", DryRunPaths::Kong), std::string("/a%2Fb"));
        QCOMPARE(norm("//api//x", DryRunPaths::Kong), std::string("/api/x"));
        QCOMPARE(norm("/../x", DryRunPaths::Kong), std::string("/x"));
        QCOMPARE(norm("/a/%2e%2e/b", DryRunPaths::Kong), std::string("/b"));
        QCOMPARE(norm("/a%zz", DryRunPaths::Kong), std::string("/a%zz"));
    }

    // Envoy: by default (normalize_path and merge_slashes false) the path as sent; normalize_path
    // is RFC 3986's (unreserved %XX decoded, others upper-cased, dot segments removed), then
    // merge_slashes. "/a//../b": normalized first, ".." takes the empty segment: "/a/b".
    void envoyPaths()
    {
        QCOMPARE(norm("//a/%2e/b?q", DryRunPaths::Envoy), std::string("//a/%2e/b"));
        QCOMPARE(norm("/a/%2e/b", DryRunPaths::EnvoyNormalize), std::string("/a/b"));
        QCOMPARE(norm("/%41%2f", DryRunPaths::EnvoyNormalize), std::string("/A%2F"));
        QCOMPARE(norm("/a//../b", DryRunPaths::EnvoyNormalize), std::string("/a/b"));
        QCOMPARE(norm("//x//y", DryRunPaths::EnvoyBoth), std::string("/x/y"));
        QCOMPARE(norm("/a//b/./c", DryRunPaths::EnvoyMerge), std::string("/a/b/./c"));
    }

    // Traefik v3: sanitizePath's URL.JoinPath cleans the escaped path as Go's path.Clean (slashes
    // merged, dot segments removed, ".." at the root staying there, a '/' kept only where the
    // path ended in one), then withRoutingPath decodes every %XX but a reserved one written in
    // upper case ("%2F" stays, "%2f" is decoded); a bad %XX is Go's 400.
    void traefikPaths()
    {
        QCOMPARE(norm("//api/./x?q", DryRunPaths::Traefik), std::string("/api/x"));
        QCOMPARE(norm("/a/b/..", DryRunPaths::Traefik), std::string("/a"));
        QCOMPARE(norm("/a/", DryRunPaths::Traefik), std::string("/a/"));
        QCOMPARE(norm("/../x", DryRunPaths::Traefik), std::string("/x"));
        QCOMPARE(norm("/%61pi%2Fx", DryRunPaths::Traefik), std::string("/api%2Fx"));
        QCOMPARE(norm("/a%2fb", DryRunPaths::Traefik), std::string("/a/b"));
        QCOMPARE(norm("/a/%2e%2e/b", DryRunPaths::Traefik), std::string("/a/../b"));
        QCOMPARE(norm("/a%zz", DryRunPaths::Traefik), std::string("(refused)"));
    }

    // Spring's PathPattern on PathContainer segments (decoded, ";params" removed): "**" is zero
    // or more segments at the end, '*' one segment (an empty one only at the end), {var} one
    // non-empty segment, a %2F stays inside its segment; matchTrailingSlash lets "/x/" match "/x".
    void springPatterns()
    {
        QVERIFY(springPathMatches("/api/**", "/api", true));
        QVERIFY(springPathMatches("/api/**", "/api/", true));
        QVERIFY(springPathMatches("/api/**", "/api/x/y?z=1", true));
        QVERIFY(!springPathMatches("/api/**", "/apix", true));
        QVERIFY(springPathMatches("/api/*", "/api/x", true));
        QVERIFY(springPathMatches("/api/*", "/api/", true));
        QVERIFY(!springPathMatches("/api/*", "/api", true));
        QVERIFY(!springPathMatches("/api/*", "/api/x/y", true));
        QVERIFY(springPathMatches("/users/{id}", "/users/42", true));
        QVERIFY(springPathMatches("/users/{id}", "/users/42/", true));
        QVERIFY(!springPathMatches("/users/{id}", "/users/42/", false));
        QVERIFY(!springPathMatches("/users/{id}", "/users/", true));
        QVERIFY(!springPathMatches("/users/{id}", "/users/42/x", true));
        QVERIFY(springPathMatches("/files/*.png", "/files/a.png", true));
        QVERIFY(!springPathMatches("/files/*.png", "/files/a.jpg", true));
        QVERIFY(springPathMatches("/{seg}/x", "/a%2Fb/x", true));
        QVERIFY(!springPathMatches("/a/b/x", "/a%2Fb/x", true));
        QVERIFY(springPathMatches("/items/{id:\\d+}", "/items/12", true));
        QVERIFY(!springPathMatches("/items/{id:\\d+}", "/items/ab", true));
        QVERIFY(springPathMatches("/api/x", "/api/x;jsessionid=1", true));
        QVERIFY(springPathMatches("/t?st", "/test", true));
        QVERIFY(!springPathMatches("/a/b", "/a//b", true));
        QVERIFY_THROWS_EXCEPTION(InputError, checkSpringPattern("/**/x"));
    }

    // A path of any length is matched by the product's own engine, never a crash: std::regex
    // recursed once a character and overflowed the stack near 40,000 (replay exited 139 on a
    // scanner's URL). PCRE2 keeps its backtracking on the heap and RE2 runs in linear time, so a
    // path of 1 MB is matched as a short one is.
    void longPathsMatchInTheProductsEngine()
    {
        const std::string mega = std::string(1'000'000, 'a');
        // nginx: `location ~ ^/api/(a|b)+$`, PCRE2 found anywhere (the pattern anchors itself).
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                "server {\n location ~ ^/api/(a|b)+$ {\n  limit_req zone=one;\n }\n}\n",
                                                "ip");
        QCOMPARE(selectPlace(c, "/api/" + mega), 0);
        QCOMPARE(selectPlace(c, "/api/" + mega + "c"), -1);
        QCOMPARE(selectPlace(c, "/x/api/ab"), -1);
        // PCRE's own syntax, which ECMAScript refused: a possessive quantifier and a named group,
        // under ~* (caseless).
        const DryRunConfig p = io::dryRunConfig("limit_req_zone $binary_remote_addr zone=one:1m rate=1r/s;\n"
                                                "server {\n location ~* ^/(?<v>v[0-9]++)/x {\n  limit_req zone=one;\n }\n}\n",
                                                "ip");
        QCOMPARE(selectPlace(p, "/V12/X"), 0);
        QCOMPARE(selectPlace(p, "/v/x"), -1);
        // RE2's reason quotes the pattern from where it failed, raw: "missing ): (a", then a
        // control byte and a newline. The message carries them as \x01 and \x0A (messageText's
        // upper-case hex), on one line.
        try {
            ProductRegex(std::string_view("(a\x01\n", 4), RegexEngine::Re2, RegexSpan::Whole);
            QFAIL("RE2 took an unclosed group");
        } catch (const InputError& e) {
            QVERIFY2(std::string_view(e.what()).ends_with(" is refused by RE2: missing ): (a\\x01\\x0A"), e.what());
        }
        // Each span and engine on 1 MB: Kong's ~ (PCRE2 from the start), Envoy's safe_regex (RE2,
        // the whole path), Spring's {id:[a]+} segment (PCRE2, the whole segment).
        QVERIFY(ProductRegex("(a|b)+", RegexEngine::Pcre, RegexSpan::Start).matches(mega + "/x"));
        QVERIFY(!ProductRegex("b", RegexEngine::Pcre, RegexSpan::Start).matches(mega + "b"));
        QVERIFY(ProductRegex("b", RegexEngine::Pcre, RegexSpan::Anywhere).matches(mega + "b"));
        QVERIFY(ProductRegex("(a|b)+", RegexEngine::Re2, RegexSpan::Whole).matches(mega));
        QVERIFY(!ProductRegex("(a|b)+", RegexEngine::Re2, RegexSpan::Whole).matches(mega + "/"));
        QVERIFY(springPathMatches("/items/{id:[a]+}", "/items/" + mega, true));
        // What the engine refuses is named with its reason.
        QVERIFY_THROWS_EXCEPTION(InputError, ProductRegex("(a", RegexEngine::Pcre, RegexSpan::Anywhere));
        QVERIFY_THROWS_EXCEPTION(InputError, ProductRegex("(?<=a+)b", RegexEngine::Re2, RegexSpan::Whole));
    }

    // One log field per zone: a config mixing an IP zone (perip, 1r/s burst=5) and a header zone
    // (perkey, $http_x_api_key at 1r/m = 16 thousandths a second, burst=1) replays each by its own
    // field of the log. Rules: 0 perip, 1 perkey; both in /api/, asked in that order.
    //  1 A K1   0 ms  perip[A] new: 0; perkey[K1] new: 0: admitted, both accounted
    //  2 B K1 100 ms  perip[B] new; perkey[K1] 0 - 16*100/1000 (1) + 1000 = 999 <= 1000: admitted
    //  3 A K1 200 ms  perip[A] 0 - 200 + 1000 = 800 <= 5000; perkey[K1] 999 - 1 + 1000 = 1998 > 1000:
    //                 denied by 1 (key K1); nothing accounted
    //  4 A -  300 ms  perip[A] 0 - 300 + 1000 = 700: admitted; no key header: perkey skipped
    //  5 C K2 400 ms  both new: admitted
    void oneLogFieldPerZone()
    {
        DryRunConfig c = io::dryRunConfig("limit_req_zone $binary_remote_addr zone=perip:1m rate=1r/s;\n"
                                          "limit_req_zone $http_x_api_key zone=perkey:1m rate=1r/m;\n"
                                          "server {\n location /api/ {\n  limit_req zone=perip burst=5;\n"
                                          "  limit_req zone=perkey burst=1;\n }\n}\n",
                                          "ip");
        QCOMPARE(c.mapped, (std::vector<bool>{true, false}));
        QCOMPARE(keyFieldsOf(c), std::vector<std::string>{"http_x_api_key"});
        DryRunConfig lacking = c;
        TrafficOptions o;
        o.keepPaths = true;
        o.emptyKeys = true;
        o.keyFields = keyFieldsOf(c);
        const Traffic t = parseTraffic(
            "{\"time\": \"1795392000.000\", \"ip\": \"1.1.1.1\", \"http_x_api_key\": \"K1\", \"path\": \"/api/a\"}\n"
            "{\"time\": \"1795392000.100\", \"ip\": \"2.2.2.2\", \"http_x_api_key\": \"K1\", \"path\": \"/api/b\"}\n"
            "{\"time\": \"1795392000.200\", \"ip\": \"1.1.1.1\", \"http_x_api_key\": \"K1\", \"path\": \"/api/c\"}\n"
            "{\"time\": \"1795392000.300\", \"ip\": \"1.1.1.1\", \"http_x_api_key\": \"-\", \"path\": \"/api/d\"}\n"
            "{\"time\": \"1795392000.400\", \"ip\": \"3.3.3.3\", \"http_x_api_key\": \"K2\", \"path\": \"/api/e\"}\n",
            o, "log.json");
        QCOMPARE(t.fieldSeen, std::vector<std::int64_t>{4});
        bindKeyFields(c, t);
        QCOMPARE(c.mapped, (std::vector<bool>{true, true}));
        QVERIFY(c.notReplayed.empty());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 1, -1, -1}));
        QCOMPARE(r.rules[1].requests, std::int64_t(4));
        QCOMPARE(r.rules[1].keysDenied, std::int64_t(1));
        const auto k1 = std::find(t.keyNames.begin(), t.keyNames.end(), "K1") - t.keyNames.begin();
        QCOMPARE(r.rules[1].deniedPerKey[std::size_t(k1)], std::int64_t(1));
        // A log without that field: the rule stays not replayed, and says the log lacks it.
        const Traffic csv = parseTraffic("time,ip,path\n1795392000,1.1.1.1,/api/a\n", o, "log.csv");
        bindKeyFields(lacking, csv);
        QCOMPARE(lacking.mapped, (std::vector<bool>{true, false}));
        QCOMPARE(lacking.notReplayed.size(), std::size_t(1));
        QVERIFY2(lacking.notReplayed[0].find("which no request of the log has") != std::string::npos,
                 lacking.notReplayed[0].c_str());
    }

    // An nginx config selects on the normalized path: "/%61pi/x" is /api/; "//login" and
    // "/x/../login" are "= /login"; "/%zz" is a 400 that meets no limit (-2), not the server's.
    void nginxSelectsTheNormalizedPath()
    {
        const DryRunConfig c = io::dryRunConfig("limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\n"
                                                "server {\n limit_req zone=a;\n"
                                                " location /api/ { limit_req zone=a burst=5; }\n"
                                                " location = /login { limit_req zone=a burst=1; }\n}\n",
                                                "ip");
        QCOMPARE(selectPlace(c, "/%61pi/x"), 0);
        QCOMPARE(selectPlace(c, "//login"), 1);
        QCOMPARE(selectPlace(c, "/x/../login"), 1);
        QCOMPARE(selectPlace(c, "/login?x=1"), 1);
        QCOMPARE(selectPlace(c, "/%zz"), -2);
        QCOMPARE(selectPlace(c, "/other"), -1);
        // Two requests of A at 0 ms: "/%zz" meets no limit (nginx's 400), "/other" the server's
        // burst 0: the first admitted, so A's third request, at the same ms, excess 1000 > 0: denied.
        const Traffic t = traffic("time,ip,path\n1795392000,1.1.1.1,/%zz\n1795392000,1.1.1.1,/other\n"
                                  "1795392000,1.1.1.1,/other\n");
        QCOMPARE(c.fallback.size(), std::size_t(1));
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, int(c.fallback[0])}));
    }
    // Kong 3.x: v1's regex path outranks every prefix (transform.lua's REGEX_URL_BIT), the prefixes
    // by length: v1 (~/api/v\d+/), login (/api/login, 10), static (/static, 7), all (/api, 4).
    // Plugins, the most specific: v1 and all the service's (rule 0: minute 2), login its own (rule
    // 1: minute 1), static (service web, no plugin) the global one (rule 2: second 1). Kong denies
    // when the window's count has reached the limit and does not count a denied request.
    //  1 A 0 s /api/v1/x      v1 -> 0: A 1 admitted
    //  2 A 1 s /api/v2/y      v1 -> 0: A 2 admitted
    //  3 A 2 s /api/other     all -> 0: 2 reached: denied by 0
    //  4 A 3 s /api/login     login -> 1: 1 admitted
    //  5 A 4 s /api//login    slashes merged: login -> 1: denied by 1
    //  6 A 5 s /static/a.css  static -> 2: second 5: 1 admitted
    //  7 A 5 s /static/b.css  static -> 2: denied by 2
    //  8 B 6 s /api/%6Cogin   decoded "l": login -> 1, B's count: admitted
    //  9 B 7 s /nothing       no route (Kong's 404): no limit
    // 10 A 8 s /api/V1/x      the regex is case-sensitive: all -> 0: denied by 0
    void kongRoutesByHand()
    {
        QTemporaryDir dir;
        const QString conf = write(dir, "kong.yml",
                                   "_format_version: \"3.0\"\n"
                                   "services:\n"
                                   "  - name: api\n    url: http://up\n"
                                   "    plugins:\n      - name: rate-limiting\n        config: {minute: 2, limit_by: ip, policy: local}\n"
                                   "    routes:\n"
                                   "      - name: v1\n        paths: [\"~/api/v\\\\d+/\"]\n        regex_priority: 5\n"
                                   "      - name: login\n        paths: [/api/login]\n"
                                   "        plugins:\n          - name: rate-limiting\n            config: {minute: 1, limit_by: ip}\n"
                                   "      - name: all\n        paths: [/api]\n"
                                   "  - name: web\n    url: http://web\n"
                                   "routes:\n  - name: static\n    service: web\n    paths: [/static]\n"
                                   "plugins:\n  - name: rate-limiting\n    config: {second: 1, limit_by: ip}\n");
        const DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.product, std::string("Kong"));
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[0].name, std::string("rate-limiting on service api"));
        QCOMPARE(c.rules[1].name, std::string("rate-limiting on route login"));
        QCOMPARE(c.rules[2].name, std::string("rate-limiting on global"));
        QCOMPARE(c.places.size(), std::size_t(4));
        QCOMPARE(c.places[0].where, std::string("route v1 (~/api/v\\d+/)"));
        QCOMPARE(c.places[3].where, std::string("route all (/api)"));
        const Traffic t = traffic("time,ip,path\n"
                                  "1795392000,1.1.1.1,/api/v1/x\n1795392001,1.1.1.1,/api/v2/y\n1795392002,1.1.1.1,/api/other\n"
                                  "1795392003,1.1.1.1,/api/login\n1795392004,1.1.1.1,/api//login\n"
                                  "1795392005,1.1.1.1,/static/a.css\n1795392005,1.1.1.1,/static/b.css\n"
                                  "1795392006,2.2.2.2,/api/%6Cogin\n1795392007,2.2.2.2,/nothing\n1795392008,1.1.1.1,/api/V1/x\n");
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 0, -1, 1, -1, 2, -1, -1, 0}));
        QCOMPARE(r.rules[0].requests, std::int64_t(4));
        QCOMPARE(r.rules[1].requests, std::int64_t(3));
        QCOMPARE(r.rules[2].requests, std::int64_t(2));
    }

    // Kong's limit_by onto the log, and what is refused by name.
    void kongKeysAndRefusals()
    {
        QTemporaryDir dir;
        const QString header = write(dir, "header.yml",
                                     "_format_version: \"3.0\"\nroutes:\n  - name: r\n    paths: [/]\n"
                                     "    plugins:\n      - name: rate-limiting\n"
                                     "        config: {minute: 5, limit_by: header, header_name: X-Api-Key}\n");
        const DryRunConfig c = io::dryRunConfigFile(header, "ip");
        QCOMPARE(c.mapped, std::vector<bool>{false});
        QVERIFY2(c.notReplayed.at(0).find("--key http_x_api_key replays it") != std::string::npos, c.notReplayed[0].c_str());
        QCOMPARE(io::dryRunConfigFile(header, "http_x_api_key").mapped, std::vector<bool>{true});
        const QString tie = write(dir, "tie.yml",
                                  "_format_version: \"3.0\"\nroutes:\n  - name: a\n    paths: [\"~/a\"]\n"
                                  "  - name: b\n    paths: [\"~/b\"]\n"
                                  "plugins:\n  - name: rate-limiting\n    config: {minute: 5, limit_by: ip}\n");
        QVERIFY2(refusal(tie).find("the same priority") != std::string::npos, refusal(tie).c_str());
        const QString snis = write(dir, "snis.yml",
                                   "_format_version: \"3.0\"\nroutes:\n  - name: a\n    paths: [/a]\n    snis: [a.example]\n"
                                   "plugins:\n  - name: rate-limiting\n    config: {minute: 5, limit_by: ip}\n");
        QVERIFY2(refusal(snis).find("matches on snis") != std::string::npos, refusal(snis).c_str());
        const QString regexHeader = write(dir, "regex.yml",
                                          "_format_version: \"3.0\"\nroutes:\n  - name: a\n    paths: [/a]\n"
                                          "    headers: {x-version: [\"~*v[0-9]\"]}\n"
                                          "plugins:\n  - name: rate-limiting\n    config: {minute: 5, limit_by: ip}\n");
        QVERIFY2(refusal(regexHeader).find("is matched by the regex") != std::string::npos, refusal(regexHeader).c_str());
    }

    // Kong's limit_by: consumer (its default) as get_identifier reads it (handler.lua: the consumer,
    // else the credential, else the forwarded IP), with what the routes' authentication makes of a
    // request without credentials. minute: 2, Kong's window of one minute from 0 s, a denied request
    // not counted. The log: A = 1.1.1.1, B = 2.2.2.2, user "-" none.
    //  no authentication plugin: Kong never identifies a consumer, every request is keyed by its IP
    //   1 A alice 0 s  A: 1 admitted        2 A bob 1 s  A: 2 admitted
    //   3 A -     2 s  A: 2 reached: denied 4 B alice 3 s  B: 1 admitted
    //  key-auth on the service (no anonymous): by the consumer, the log's user; a request without one
    //  was Kong's 401, before any limit. The same log: A alice 0 s: alice 1; A bob 1 s: bob 1;
    //  A - 2 s: no limit; B alice 3 s: alice 2, admitted. 3 requests met the rule, none denied.
    //  a file of the plugin alone (its authentication unknown): the user, else the IP
    //   1 A alice 0 s: alice 1; 2 A bob 1 s: bob 1; 3 A - 2 s: A 1; 4 B alice 3 s: alice 2: all
    //   admitted; a fifth, A - at 4 s: A 2; a sixth, A - at 5 s: A reached 2: denied
    void kongConsumerFallsBackAsKongDoes()
    {
        QTemporaryDir dir;
        const QByteArray routes = "_format_version: \"3.0\"\n"
                                  "services:\n  - name: api\n    url: http://up\n"
                                  "    routes:\n      - name: all\n        paths: [/]\n";
        const QByteArray limit = "plugins:\n  - name: rate-limiting\n    config: {minute: 2, policy: local}\n";
        const QString open = write(dir, "open.yml", routes + limit);
        const QString keyed = write(dir, "keyed.yml", routes + "    plugins:\n      - name: key-auth\n" + limit);
        const QString alone = write(dir, "alone.yml", limit);
        const char* log = "time,ip,user,path\n1795392000,1.1.1.1,alice,/a\n1795392001,1.1.1.1,bob,/a\n"
                          "1795392002,1.1.1.1,-,/a\n1795392003,2.2.2.2,alice,/a\n";
        const auto run = [](const QString& path, const char* csv) {
            DryRunConfig c = io::dryRunConfigFile(path, "ip");
            TrafficOptions o;
            o.keepPaths = true;
            o.emptyKeys = true;
            o.keyFields = keyFieldsOf(c);
            const Traffic t = parseTraffic(csv, o, "log.csv");
            bindKeyFields(c, t);
            return std::pair(c, dryRun(t, c));
        };
        const auto [openConfig, openRun] = run(open, log);
        QCOMPARE(openConfig.mapped, std::vector<bool>{true});
        QCOMPARE(deniedBy(openRun), (std::vector<int>{-1, -1, 0, -1}));
        QVERIFY(openConfig.notReplayed.empty());
        QVERIFY2(openConfig.assumed.at(0).find("no authentication plugin runs on route all") != std::string::npos,
                 openConfig.assumed.at(0).c_str());
        const auto [keyedConfig, keyedRun] = run(keyed, log);
        QCOMPARE(keyedConfig.mapped, std::vector<bool>{true});
        QCOMPARE(deniedBy(keyedRun), (std::vector<int>{-1, -1, -1, -1}));
        QCOMPARE(keyedRun.rules[0].requests, std::int64_t(3));
        const auto [aloneConfig, aloneRun] = run(alone, "time,ip,user,path\n1795392000,1.1.1.1,alice,/a\n"
                                                        "1795392001,1.1.1.1,bob,/a\n1795392002,1.1.1.1,-,/a\n"
                                                        "1795392003,2.2.2.2,alice,/a\n1795392004,1.1.1.1,-,/a\n"
                                                        "1795392005,1.1.1.1,-,/a\n");
        QCOMPARE(aloneConfig.mapped, std::vector<bool>{true});
        QCOMPARE(deniedBy(aloneRun), (std::vector<int>{-1, -1, -1, -1, -1, 0}));
        QCOMPARE(aloneRun.rules[0].requests, std::int64_t(6));
    }

    // limit_by: header falls back to the IP too: X-Api-Key K at 0 and 1 s, then two requests of
    // 1.1.1.1 without it at 2 and 3 s and a third at 4 s: minute 2 per key, so K's are admitted,
    // the IP's first two admitted and its third denied. With an anonymous key-auth, limit_by:
    // credential keys the anonymous consumer (no credential) by its IP as well; limit_by: consumer
    // keys it by the anonymous consumer, one counter the dry run does not keep: named.
    void kongHeaderAndAnonymousFallBack()
    {
        QTemporaryDir dir;
        const QString header = write(dir, "header.yml",
                                     "_format_version: \"3.0\"\nroutes:\n  - name: r\n    paths: [/]\n"
                                     "    plugins:\n      - name: rate-limiting\n"
                                     "        config: {minute: 2, limit_by: header, header_name: X-Api-Key}\n");
        DryRunConfig c = io::dryRunConfigFile(header, "http_x_api_key");
        TrafficOptions o;
        o.keepPaths = true;
        o.emptyKeys = true;
        o.key = "http_x_api_key";
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, std::vector<std::string>{"ip"});
        QCOMPARE(c.notReplayed.size(), std::size_t(1)); // the fall-back, until the log's ip is bound
        const Traffic t = parseTraffic("time,ip,http_x_api_key,path\n1795392000,1.1.1.1,K,/a\n1795392001,1.1.1.1,K,/a\n"
                                       "1795392002,1.1.1.1,,/a\n1795392003,1.1.1.1,,/a\n1795392004,1.1.1.1,,/a\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY(c.notReplayed.empty());
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, -1, -1, 0}));
        const QByteArray anonymous = "_format_version: \"3.0\"\nroutes:\n  - name: r\n    paths: [/]\n"
                                     "plugins:\n  - name: key-auth\n    config: {anonymous: guest}\n"
                                     "  - name: rate-limiting\n    config: {minute: 2, limit_by: ";
        const DryRunConfig credential = io::dryRunConfigFile(write(dir, "credential.yml", anonymous + "credential}\n"), "user");
        QCOMPARE(credential.rules[0].fallbackSource, -2); // the IP, bound from the log
        QCOMPARE(credential.rules[0].fallbackField, std::string("ip"));
        const DryRunConfig consumer = io::dryRunConfigFile(write(dir, "consumer.yml", anonymous + "consumer}\n"), "user");
        QCOMPARE(consumer.mapped, std::vector<bool>{true});
        QVERIFY2(consumer.notReplayed.at(0).find("the anonymous consumer's, one counter") != std::string::npos,
                 consumer.notReplayed.at(0).c_str());
    }

    // Kong routes by method and host (a route shape of public gateway configs: methods, hosts and
    // paths beside each other, one rate-limiting each). public (GET, minute 2) and write (POST,
    // minute 1) have the same priority (transform.lua get_priority: weight 3, a plain host, the
    // same path) and no method in common, so their order changes nothing. A combined log holds the
    // method in its request line, not the host (assumed). A = 1.1.1.1, each minute from 0 s:
    //  1 GET    0 s  public -> 0: A 1 admitted
    //  2 POST   1 s  write  -> 1: A 1 admitted
    //  3 GET    2 s  public -> 0: A 2 admitted
    //  4 POST   3 s  write  -> 1: 1 reached: denied by 1
    //  5 GET    4 s  public -> 0: 2 reached: denied by 0
    //  6 DELETE 5 s  no route (Kong's 404): no limit
    void kongRoutesByMethodAndHost()
    {
        QTemporaryDir dir;
        const QString conf = write(dir, "kong.yml",
                                   "_format_version: \"3.0\"\nservices:\n  - name: gateway\n    url: http://up\n    routes:\n"
                                   "      - name: public\n        methods: [GET]\n        hosts: [api.example.gov]\n"
                                   "        paths: [/api/service/Communication]\n        strip_path: false\n"
                                   "        plugins:\n          - name: rate-limiting\n"
                                   "            config: {fault_tolerant: true, limit_by: ip, minute: 2}\n"
                                   "      - name: write\n        methods: [POST]\n        hosts: [api.example.gov]\n"
                                   "        paths: [/api/service/Communication]\n"
                                   "        plugins:\n          - name: rate-limiting\n            config: {limit_by: ip, minute: 1}\n");
        DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.notReplayed.size(), std::size_t(2)); // each route's methods, until the log gives them
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"request_method", "host"}));
        QByteArray log;
        int second = 0;
        for (const char* method : {"GET", "POST", "GET", "POST", "GET", "DELETE"})
            log += QString("1.1.1.1 - - [01/Jan/2000:00:00:0%1 +0000] \"%2 /api/service/Communication HTTP/1.1\" 200 1 \"-\" \"-\"\n")
                       .arg(second++)
                       .arg(method)
                       .toUtf8();
        const Traffic t = parseTraffic(log.toStdString(), o, "access.log");
        bindKeyFields(c, t);
        QVERIFY2(c.notReplayed.empty(), c.notReplayed.empty() ? "" : c.notReplayed[0].c_str());
        QVERIFY(std::find(c.assumed.begin(), c.assumed.end(),
                          "route public: every logged request is taken to be for host api.example.gov (the log holds no host)")
                != c.assumed.end());
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, -1, 1, 0, -1}));
        QCOMPARE(r.rules[0].requests, std::int64_t(3));
        QCOMPARE(r.rules[1].requests, std::int64_t(2));
        // A log with the host: "*.example.com" takes any name ending ".example.com", in any case,
        // not example.com itself. minute 2 by IP: a (0 s) 1, example.com (1 s) no route, B.Example.COM
        // (2 s) 2, b (3 s) reached: denied by 0.
        const QString wild = write(dir, "wild.yml",
                                   "_format_version: \"3.0\"\nroutes:\n  - name: w\n    hosts: [\"*.example.com\"]\n"
                                   "    paths: [/]\nplugins:\n  - name: rate-limiting\n    config: {limit_by: ip, minute: 2}\n");
        DryRunConfig w = io::dryRunConfigFile(wild, "ip");
        o.keyFields = keyFieldsOf(w);
        const Traffic h = parseTraffic("{\"time\": 946684800, \"ip\": \"1.1.1.1\", \"host\": \"a.example.com\", \"path\": \"/x\"}\n"
                                       "{\"time\": 946684801, \"ip\": \"1.1.1.1\", \"host\": \"example.com\", \"path\": \"/x\"}\n"
                                       "{\"time\": 946684802, \"ip\": \"1.1.1.1\", \"host\": \"B.Example.COM\", \"path\": \"/x\"}\n"
                                       "{\"time\": 946684803, \"ip\": \"1.1.1.1\", \"host\": \"b.example.com\", \"path\": \"/x\"}\n",
                                       o, "log.json");
        bindKeyFields(w, h);
        QVERIFY(w.assumed.empty());
        QCOMPARE(deniedBy(dryRun(h, w)), (std::vector<int>{-1, -1, -1, 0}));
    }

    // Spring Cloud Gateway's Method predicate beside Path (a route for reads, one for the rest of
    // /api/**): reads (GET, 1/s, burst 1) and writes (every method, 1/s, burst 2), both order 0,
    // so in file order; keyed by the named KeyResolver, taken as the log's key (ip). A combined
    // log's request line gives each method; all of A's requests in one second, no refill:
    //  1 GET    /api/a  reads  -> 0: 1 -> 0 admitted
    //  2 POST   /api/a  writes -> 1: 2 -> 1 admitted (reads takes GET only)
    //  3 GET    /api/b  reads  -> 0: 0 tokens: denied by 0
    //  4 POST   /api/b  writes -> 1: 1 -> 0 admitted
    //  5 DELETE /api/c  writes -> 1: 0 tokens: denied by 1
    void springMethodPredicate()
    {
        QTemporaryDir dir;
        const QByteArray limiter = "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                   "                redis-rate-limiter.replenishRate: 1\n"
                                   "                redis-rate-limiter.burstCapacity: ";
        const QString conf = write(dir, "application.yml",
                                   "spring:\n  cloud:\n    gateway:\n      routes:\n"
                                   "        - id: reads\n          uri: http://up\n"
                                   "          predicates:\n            - Path=/api/**\n            - Method=GET\n"
                                   + limiter + "1\n                key-resolver: \"#{@ipKeyResolver}\"\n"
                                   "        - id: writes\n          uri: http://up\n"
                                   "          predicates:\n            - Path=/api/**\n"
                                   + limiter + "2\n                key-resolver: \"#{@ipKeyResolver}\"\n");
        DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        // The method, until the log gives it, and each route's KeyResolver, whose code is the application's.
        QCOMPARE(c.notReplayed.size(), std::size_t(3));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, std::vector<std::string>{"request_method"});
        QByteArray log;
        for (const char* request : {"GET /api/a", "POST /api/a", "GET /api/b", "POST /api/b", "DELETE /api/c"})
            log += QString("1.1.1.1 - - [01/Jan/2000:00:00:00 +0000] \"%1 HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(request).toUtf8();
        const Traffic t = parseTraffic(log.toStdString(), o, "access.log");
        bindKeyFields(c, t);
        QCOMPARE(c.notReplayed.size(), std::size_t(2));
        QCOMPARE(c.notReplayed[0], std::string("route reads: its KeyResolver #{@ipKeyResolver} is the application's code, "
                                               "which --config cannot evaluate: replayed with the log's key (ip) as its key"));
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, 0, -1, 1}));
    }

    // Spring Cloud Gateway's Header, Query and Host predicates as its documentation writes them
    // (Header=X-Request-Id, \d+; Query=green, gree.; Host=**.somehost.org,**.anotherhost.org),
    // each route a RequestRateLimiter by the ip resolver: header (burst 1, rule 0), query (2,
    // rule 1), host (1, rule 2), order 0 each, so in file order. Java regexes match the whole
    // value; Host is AntPathMatcher's, '.' its separator, case-sensitive, on the Host header as sent
    // (include-port is true by default, so a port is part of the last label). All in
    // one second (no refill), A; host, X-Request-Id, target:
    //  1 a.somehost.org       123  /red/x              header: 1 -> 0 admitted
    //  2 a.somehost.org       12a  /red/x              \d+ not whole; no green; host: 1 -> 0 admitted
    //  3 a.somehost.org       -    /red/x?green=greet  query (gree. takes greet): 2 -> 1 admitted
    //  4 x.y.anotherhost.org  -    /red/x?green=gree   gree. needs 5 characters; host: denied by 2
    //  5 somehost.org         -    /blue               ** takes no label too: host: denied by 2
    //  6 other.org            456  /red/y              header: denied by 0
    //  7 other.org            -    /red/y?green        green without a value: no regex matches; none
    //  8 other.org            -    /red/y?green=green  query: 1 -> 0 admitted
    //  9 SomeHost.ORG:8080    -    /a                  the case differs: none
    // 10 a.somehost.org:8080  -    /z                  "org:8080" is not "org": none
    void springRequestPredicates()
    {
        QTemporaryDir dir;
        const QByteArray limiter = "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                   "                key-resolver: \"#{@ipKeyResolver}\"\n"
                                   "                redis-rate-limiter.replenishRate: 1\n"
                                   "                redis-rate-limiter.burstCapacity: ";
        DryRunConfig c = io::dryRunConfigFile(
            write(dir, "application.yml",
                  "spring:\n  cloud:\n    gateway:\n      routes:\n"
                  "        - id: header_route\n          uri: https://example.org\n"
                  "          predicates:\n            - Path=/red/{segment}\n            - Header=X-Request-Id, \\d+\n"
                  + limiter + "1\n"
                  "        - id: query_route\n          uri: https://example.org\n"
                  "          predicates:\n            - Path=/red/**\n            - Query=green, gree.\n"
                  + limiter + "2\n"
                  "        - id: host_route\n          uri: https://example.org\n"
                  "          predicates:\n            - Host=**.somehost.org,**.anotherhost.org\n"
                  + limiter + "1\n"),
            "ip");
        QCOMPARE(c.rules.size(), std::size_t(3));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"http_x_request_id", "host"}));
        const Traffic t = parseTraffic("time,ip,host,http_x_request_id,path\n"
                                       "1795392000,1.1.1.1,a.somehost.org,123,/red/x\n"
                                       "1795392000,1.1.1.1,a.somehost.org,12a,/red/x\n"
                                       "1795392000,1.1.1.1,a.somehost.org,-,/red/x?green=greet\n"
                                       "1795392000,1.1.1.1,x.y.anotherhost.org,-,/red/x?green=gree\n"
                                       "1795392000,1.1.1.1,somehost.org,-,/blue\n"
                                       "1795392000,1.1.1.1,other.org,456,/red/y\n"
                                       "1795392000,1.1.1.1,other.org,-,/red/y?green\n"
                                       "1795392000,1.1.1.1,other.org,-,/red/y?green=green\n"
                                       "1795392000,1.1.1.1,SomeHost.ORG:8080,-,/a\n"
                                       "1795392000,1.1.1.1,a.somehost.org:8080,-,/z\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QCOMPARE(c.notReplayed.size(), std::size_t(3)); // the three KeyResolvers; the header and the host are bound
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, -1, -1, 2, 2, 0, -1, -1, -1, -1}));
    }

    // A predicate's list written as a YAML list in args (methods: [GET, HEAD], sources: [...]) is
    // read element by element, as Spring's binder reads it. Rules: 0 reads (Method GET or HEAD,
    // /api/**), 1 inside (RemoteAddr 10.0.0.0/8, /x); each key's bucket 1 token, one second:
    //  1 1.1.1.1  GET  /api/a  reads: admitted
    //  2 1.1.1.1  HEAD /api/a  reads: denied by 0
    //  3 1.1.1.1  POST /api/a  neither method: none (reads would deny it)
    //  4 10.1.1.1 GET  /x      inside: admitted
    //  5 10.1.1.1 GET  /x      inside: denied by 1
    //  6 1.1.1.1  GET  /x      outside 10.0.0.0/8: none
    //  7 1.1.1.1  GET  /x      none (had 6 met inside, denied by 1)
    void springListArguments()
    {
        QTemporaryDir dir;
        const QByteArray limiter = "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                   "                key-resolver: \"#{@ipKeyResolver}\"\n"
                                   "                redis-rate-limiter.replenishRate: 1\n"
                                   "                redis-rate-limiter.burstCapacity: 1\n";
        DryRunConfig c = springConfig(dir, "        - id: reads\n          uri: http://up\n          predicates:\n"
                                           "            - Path=/api/**\n            - name: Method\n              args:\n"
                                           "                methods: [GET, HEAD]\n"
                                           + limiter
                                           + "        - id: inside\n          uri: http://up\n          predicates:\n"
                                             "            - Path=/x\n            - name: RemoteAddr\n              args:\n"
                                             "                sources: [10.0.0.0/8]\n"
                                           + limiter);
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QByteArray log;
        for (const char* request : {"1.1.1.1 GET /api/a", "1.1.1.1 HEAD /api/a", "1.1.1.1 POST /api/a", "10.1.1.1 GET /x",
                                    "10.1.1.1 GET /x", "1.1.1.1 GET /x", "1.1.1.1 GET /x"}) {
            const QStringList w = QString(request).split(' ');
            log += QString("%1 - - [01/Jan/2000:00:00:00 +0000] \"%2 %3 HTTP/1.1\" 200 1 \"-\" \"-\"\n").arg(w[0], w[1], w[2]).toUtf8();
        }
        const Traffic t = parseTraffic(log.toStdString(), o, "access.log");
        bindKeyFields(c, t);
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1, -1, 1, -1, -1}));
    }

    // Spring's After, Before and Between on the request's logged time, each strict (isAfter,
    // isBefore). B = 1795392000 = 2026-11-23T00:00:00Z. Rules in file order: 0 early
    // (Before=B written 02:00 at +02:00 with its region), 1 window (Between=B+10 s as epoch
    // milliseconds and B+20 s as ISO with a fraction), 2 late (After=B+60 s, no seconds written).
    // Time of one request -> the rule it meets:
    //  B-0.001 -> 0 (before B);  B -> none (not strictly before);  B+0.001 -> none
    //  B+9.999 -> none;  B+10 -> none (not strictly after);  B+10.001 -> 1;  B+19.999 -> 1;  B+20 -> none
    //  B+60 -> none;  B+60.001 -> 2
    void springTimePredicates()
    {
        QTemporaryDir dir;
        const DryRunConfig c = springConfig(dir, springRoute("early", {"Path=/t", "Before=2026-11-23T02:00:00+02:00[Europe/Athens]"})
                                                     + springRoute("window", {"Path=/t", "Between=1795392010000, 2026-11-23T00:00:20.000Z"})
                                                     + springRoute("late", {"Path=/t", "After=2026-11-23T00:01Z"}));
        QVERIFY(c.notReplayed.size() == 3); // the three KeyResolvers: the time is the log's own
        const std::vector<std::pair<const char*, int>> table{
            {"1795391999.999", 0}, {"1795392000", -1},     {"1795392000.001", -1}, {"1795392009.999", -1}, {"1795392010", -1},
            {"1795392010.001", 1}, {"1795392019.999", 1},  {"1795392020", -1},     {"1795392060", -1},     {"1795392060.001", 2}};
        for (const auto& [time, rule] : table)
            QVERIFY2(ruleMet(c, (std::string(time) + ",1.1.1.1,/t").c_str()) == rule, time);
        // What ZonedDateTime.parse or the factories refuse is refused, with the route's name.
        for (const char* bad : {"After=2026-11-23T00:00:00", "After=2026-02-29T00:00:00Z", "After=2026-11-23 00:00:00Z",
                                "After=2026-11-23T00:00:00+19:00", "After=2026-11-23T00:00:00Z[Nowhere/Atlantis]",
                                "Between=1795392020000, 1795392010000"}) {
            const std::string why = test::refusal(test::write(dir, "bad.yml",
                                                              "spring:\n  cloud:\n    gateway:\n      routes:\n"
                                                                  + springRoute("r", {"Path=/t", bad})));
            QVERIFY2(why.find("route r: its ") != std::string::npos, (std::string(bad) + ": " + why).c_str());
        }
    }

    // The date-time forms Spring's StringToZonedDateTimeConverter accepts, each an After whose
    // instant T is worked out by hand (B = 1795392000 = 2026-11-23T00:00:00Z): a request at T
    // meets no route (isAfter is strict), one at T + 1 ns meets it.
    void springDateForms_data()
    {
        QTest::addColumn<QString>("datetime");
        QTest::addColumn<QString>("instant"); // T in seconds since 1970
        // 01:00 at +01 (an offset of hours alone, lenient appendOffsetId) is 00:00Z: B.
        QTest::newRow("+HH") << "2026-11-23T01:00+01" << "1795392000";
        QTest::newRow("one digit") << "2026-11-23T00:00:00.5Z" << "1795392000.5";
        QTest::newRow("nine digits") << "2026-11-23T00:00:00.123456789Z" << "1795392000.123456789";
        // A '.' with no digit is a fraction of 0 (appendFraction's minimum width is 0); 17:00 at
        // -07:00 is 24:00Z: B. Denver's own offset in November is -07:00 too.
        QTest::newRow("bare point, Denver") << "2026-11-22T17:00:00.-07:00[America/Denver]" << "1795392000";
        QTest::newRow("Kolkata") << "2026-11-23T05:30:00+05:30[Asia/Kolkata]" << "1795392000";
        // The offset decides, whatever the region: 02:00 at +02:00 is B, though Denver is -07:00.
        QTest::newRow("offset over region") << "2026-11-23T02:00:00+02:00[America/Denver]" << "1795392000";
        QTest::newRow("[UTC]") << "2026-11-23T00:00:00+00:00[UTC]" << "1795392000";
        QTest::newRow("[+02:00]") << "2026-11-23T02:00:00+02:00[+02:00]" << "1795392000";
        QTest::newRow("[GMT+02:00]") << "2026-11-23T02:00:00+02:00[GMT+02:00]" << "1795392000";
        // 00:00:30.000000001 at +00:00:30 (an offset with seconds) is B + 1 ns.
        QTest::newRow("offset seconds") << "2026-11-23T00:00:30.000000001+00:00:30" << "1795392000.000000001";
        QTest::newRow("z, t") << "2026-11-23t00:00:00z" << "1795392000";
        QTest::newRow("epoch ms") << "1795392000250" << "1795392000.25";
    }

    void springDateForms()
    {
        QFETCH(QString, datetime);
        QFETCH(QString, instant);
        QTemporaryDir dir;
        const std::string after = "After=" + datetime.toStdString();
        const DryRunConfig c = springConfig(dir, springRoute("late", {"Path=/t", after.c_str()}));
        Nanos t = 0;
        bool fraction = false;
        QVERIFY(detail::parseDecimalSeconds(instant.toStdString(), t, fraction));
        const auto at = [](Nanos n) {
            const std::string digits = std::to_string(n % kNanosPerSecond + kNanosPerSecond).substr(1);
            return std::to_string(n / kNanosPerSecond) + "." + digits + ",1.1.1.1,/t";
        };
        QCOMPARE(ruleMet(c, at(t).c_str()), -1);
        QCOMPARE(ruleMet(c, at(t + 1).c_str()), 0);
    }

    // What ZonedDateTime.parse refuses is refused, each by its reason.
    void springDateRefusals_data()
    {
        QTest::addColumn<QString>("datetime");
        QTest::addColumn<QString>("why");
        const QString noOffset = "has no offset: Spring refuses it (ZonedDateTime.parse's ISO_ZONED_DATE_TIME needs the offset";
        QTest::newRow("region alone") << "2017-01-20T17:42:47.789[America/Denver]" << noOffset;
        QTest::newRow("nothing") << "2017-01-20T17:42:47" << noOffset;
        QTest::newRow("+HHMM") << "2017-01-20T17:42:47+0100" << "is neither milliseconds";
        QTest::newRow("ten digits") << "2017-01-20T17:42:47.1234567890Z" << "is neither milliseconds";
        QTest::newRow("hour 24") << "2017-01-20T17:42:47+24" << "is neither milliseconds";
        QTest::newRow("unknown region") << "2017-01-20T17:42:47Z[Nowhere/Atlantis]" << ": a zone in brackets must be";
    }

    void springDateRefusals()
    {
        QFETCH(QString, datetime);
        QFETCH(QString, why);
        QTemporaryDir dir;
        const std::string before = "Before=" + datetime.toStdString();
        const std::string refusal = test::refusal(test::write(dir, "bad.yml", "spring:\n  cloud:\n    gateway:\n      routes:\n"
                                                                                  + springRoute("r", {"Path=/t", before.c_str()})));
        const std::string space = why.startsWith(':') ? "" : " ";
        QVERIFY2(refusal.find("route r: its Before predicate: '" + datetime.toStdString() + "'" + space + why.toStdString()) != std::string::npos,
                 refusal.c_str());
    }

    // RemoteAddr and XForwardedRemoteAddr. Rules: 0 office (RemoteAddr=192.168.1.0/24, and
    // 2001:db8::1, to which addSource appends "/32", so all of 2001:db8::/32), 1 proxied
    // (XForwardedRemoteAddr=10.0.0.0/8, the rightmost X-Forwarded-For entry, or the connection
    // without one). Each key's bucket holds 1 token; all in one second, no refill. ip, XFF, path:
    //  1 192.168.1.5        -                     /r/a  office: admitted
    //  2 192.168.1.5        -                     /r/b  office: denied by 0
    //  3 192.168.2.5        -                     /r/a  outside both: none
    //  4 192.168.2.5        -                     /r/a  none (had 3 met office, denied by 0)
    //  5 2001:db8:ffff::9   -                     /r/a  in 2001:db8::/32: office, admitted
    //  6 2001:db8:ffff::9   -                     /r/a  denied by 0
    //  7 1.1.1.1            "10.1.1.1, 2.2.2.2"   /x    the rightmost, 2.2.2.2: none
    //  8 1.1.1.1            "2.2.2.2, 10.1.1.1"   /x    10.1.1.1: proxied, admitted (so 7 met nothing)
    //  9 1.1.1.1            "10.2.2.2"            /x    proxied: denied by 1
    // 10 10.3.3.3           -                     /x    no header: the connection, 10.3.3.3: proxied, admitted
    // 11 10.3.3.3           " , "                 /x    no entry: the connection: denied by 1
    // 12 5.5.5.5            -                     /x    5.5.5.5: none
    // 13 5.5.5.5            -                     /x    none (had 12 met proxied, denied by 1)
    void springAddressPredicates()
    {
        QTemporaryDir dir;
        DryRunConfig c = springConfig(dir, springRoute("office", {"Path=/r/**", "RemoteAddr=192.168.1.0/24, 2001:db8::1"})
                                               + springRoute("proxied", {"Path=/x", "XForwardedRemoteAddr=10.0.0.0/8"}));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"ip", "http_x_forwarded_for"}));
        const auto line = [](const char* ip, const char* xff, const char* path) {
            return std::string("{\"time\": 1795392000, \"ip\": \"") + ip + "\", \"http_x_forwarded_for\": \"" + xff
                   + "\", \"path\": \"" + path + "\"}\n";
        };
        const Traffic t = parseTraffic(line("192.168.1.5", "-", "/r/a") + line("192.168.1.5", "-", "/r/b")
                                           + line("192.168.2.5", "-", "/r/a") + line("192.168.2.5", "-", "/r/a")
                                           + line("2001:db8:ffff::9", "-", "/r/a") + line("2001:db8:ffff::9", "-", "/r/a")
                                           + line("1.1.1.1", "10.1.1.1, 2.2.2.2", "/x") + line("1.1.1.1", "2.2.2.2, 10.1.1.1", "/x")
                                           + line("1.1.1.1", "10.2.2.2", "/x") + line("10.3.3.3", "-", "/x")
                                           + line("10.3.3.3", " , ", "/x") + line("5.5.5.5", "-", "/x") + line("5.5.5.5", "-", "/x"),
                                       o, "log.json");
        bindKeyFields(c, t);
        QCOMPARE(c.notReplayed.size(), std::size_t(2)); // the KeyResolvers: the address and the header are bound
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 0, -1, -1, -1, 0, -1, -1, 1, -1, 1, -1, -1}));
        // A log without X-Forwarded-For: the predicate is named, taken to match.
        DryRunConfig noHeader = springConfig(dir, springRoute("proxied", {"Path=/x", "XForwardedRemoteAddr=10.0.0.0/8"}));
        o.keyFields = keyFieldsOf(noHeader);
        bindKeyFields(noHeader, parseTraffic(line("1.1.1.1", "-", "/x"), o, "log.json"));
        QVERIFY(std::find(noHeader.notReplayed.begin(), noHeader.notReplayed.end(),
                          "route proxied: its XForwardedRemoteAddr predicate (10.0.0.0/8) reads X-Forwarded-For, which the log "
                          "does not hold (no field http_x_forwarded_for): every request taken to match")
                != noHeader.notReplayed.end());
        // Netty's IpSubnetFilterRule refuses a prefix past 32 for IPv4; a host name is not read.
        for (const char* bad : {"RemoteAddr=10.0.0.0/33", "RemoteAddr=gateway.internal", "RemoteAddr=10.0.0.0/x"}) {
            const std::string why = test::refusal(test::write(dir, "bad.yml", "spring:\n  cloud:\n    gateway:\n      routes:\n"
                                                                                  + springRoute("r", {"Path=/t", bad})));
            QVERIFY2(why.find("route r: its RemoteAddr predicate") != std::string::npos, why.c_str());
        }
    }

    // Cookie on a log field cookie_NAME (nginx's $cookie_NAME), its Java regex whole; Weight
    // named, its group's first route taking the group. Rules: 0 sweet (Cookie=chocolate, ch.p),
    // 1 high and 2 low (Weight=group1 8 and 2, both /w/**). A, all in one second:
    //  1 chips /c    ch.p is not the whole value: none
    //  2 chip  /c    sweet: admitted
    //  3 chop  /c    sweet: denied by 0 (so sweet met 2 requests: 2 and 3)
    //  4 -     /w/x  high (taken to match, first of group1): admitted
    //  5 -     /w/y  high: denied by 1; low meets none
    void springCookieAndWeight()
    {
        QTemporaryDir dir;
        DryRunConfig c = springConfig(dir, springRoute("sweet", {"Path=/c", "Cookie=chocolate, ch.p"})
                                               + springRoute("high", {"Path=/w/**", "Weight=group1, 8"})
                                               + springRoute("low", {"Path=/w/**", "Weight=group1, 2"}));
        const auto has = [&](const std::string& text) {
            return std::find(c.notReplayed.begin(), c.notReplayed.end(), text) != c.notReplayed.end();
        };
        QVERIFY(has("route sweet: its Cookie predicate (chocolate, ch.p) reads the cookie, which the log does not hold (no field "
                    "cookie_chocolate): every request taken to match"));
        QVERIFY(has("route low: its Weight predicate (group1, 2) sends it a random share of group group1's requests, which "
                    "--config does not replay: it is taken to match, so route high, the group's first in order, takes every "
                    "request of the group that its path takes"));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        const Traffic t = parseTraffic("time,ip,cookie_chocolate,path\n1795392000,1.1.1.1,chips,/c\n1795392000,1.1.1.1,chip,/c\n"
                                       "1795392000,1.1.1.1,chop,/c\n1795392000,1.1.1.1,-,/w/x\n1795392000,1.1.1.1,-,/w/y\n",
                                       o, "log.csv");
        bindKeyFields(c, t);
        QVERIFY(!has("route sweet: its Cookie predicate (chocolate, ch.p) reads the cookie, which the log does not hold (no "
                     "field cookie_chocolate): every request taken to match"));
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 0, -1, 1}));
        QCOMPARE(r.rules[0].requests, std::int64_t(2));
        QCOMPARE(r.rules[2].requests, std::int64_t(0));
    }

    // Spring Cloud Gateway: routes sorted by order (users -1 first), the first whose Path matches.
    // RedisRateLimiter per route and key (the ip, the KeyResolver's, taken as the log's key): a
    // bucket of burstCapacity refilled replenishRate a second in whole seconds, a request taking one
    // token, a denied one none. Rules: 0 users (1/s, 1), 1 api (1/s, 2); rest has none.
    //  1 A 0 /api/users/42    users -> 0: 1 -> 0 admitted
    //  2 A 0 /api/users/42/   matchTrailingSlash: users -> 0: 0 tokens: denied by 0
    //  3 A 0 /api/orders      api -> 1: 2 -> 1 admitted
    //  4 A 0 /api             "/api/**" takes "/api": 1 -> 0 admitted
    //  5 A 0 /api/x/y         api: 0: denied by 1
    //  6 A 1 /api/x           api: refilled 1: admitted
    //  7 A 1 /static          rest: no limiter
    //  8 B 1 /api/users/%34%32  the segment decoded, "42": users, B's bucket: admitted
    //  9 A 1 /api/users/      {id} takes no empty segment: api -> 1: 0 tokens: denied by 1
    void springRoutesByHand()
    {
        QTemporaryDir dir;
        const QString conf = write(dir, "application.yml",
                                   "spring:\n  cloud:\n    gateway:\n      routes:\n"
                                   "        - id: api\n          uri: http://a\n          predicates:\n            - Path=/api/**\n"
                                   "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                   "                redis-rate-limiter:\n                  replenishRate: 1\n"
                                   "                  burstCapacity: 2\n                key-resolver: \"#{@ipKeyResolver}\"\n"
                                   "        - id: rest\n          uri: http://r\n          predicates:\n            - Path=/**\n"
                                   "        - id: users\n          uri: http://u\n          order: -1\n"
                                   "          predicates:\n            - Path=/api/users/{id}\n"
                                   "          filters:\n            - name: RequestRateLimiter\n              args:\n"
                                   "                redis-rate-limiter.replenishRate: 1\n"
                                   "                redis-rate-limiter.burstCapacity: 1\n"
                                   "                key-resolver: \"#{@ipKeyResolver}\"\n");
        const DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.product, std::string("Spring Cloud Gateway"));
        QCOMPARE(c.rules.size(), std::size_t(2));
        QCOMPARE(c.rules[0].name, std::string("route users: RequestRateLimiter"));
        QCOMPARE(c.places.size(), std::size_t(3));
        QCOMPARE(c.places[0].where, std::string("route users (Path=/api/users/{id})"));
        QCOMPARE(c.places[2].where, std::string("route rest (Path=/**)"));
        const Traffic t = traffic("time,ip,path\n"
                                  "1795392000,1.1.1.1,/api/users/42\n1795392000,1.1.1.1,/api/users/42/\n"
                                  "1795392000,1.1.1.1,/api/orders\n1795392000,1.1.1.1,/api\n1795392000,1.1.1.1,/api/x/y\n"
                                  "1795392001,1.1.1.1,/api/x\n1795392001,1.1.1.1,/static\n"
                                  "1795392001,2.2.2.2,/api/users/%34%32\n1795392001,1.1.1.1,/api/users/\n");
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, 0, -1, -1, 1, -1, -1, -1, 1}));
        QCOMPARE(r.rules[0].requests, std::int64_t(3));
        QCOMPARE(r.rules[1].requests, std::int64_t(5));
        const QString header = write(dir, "header.yml",
                                     "spring:\n  cloud:\n    gateway:\n      routes:\n        - id: a\n          uri: http://a\n"
                                     "          predicates: [Path=/a, \"Cookies=chocolate, ch.p\"]\n");
        // A predicate Spring has no factory for fails the route in Spring: refused by its name.
        QVERIFY2(refusal(header).find("route a: Cookies is no predicate of Spring Cloud Gateway") != std::string::npos,
                 refusal(header).c_str());
        // The file's words are named as written, on one printable line: a tab in a predicate's name
        // and a newline in a route's id come out as \x09 and \x0A.
        const QString tabbed = write(dir, "tabbed.yml",
                                     "spring:\n  cloud:\n    gateway:\n      routes:\n        - id: \"a\\nb\"\n"
                                     "          uri: http://a\n          predicates: [\"Hea\\td-Xr=X-Tenant\"]\n");
        const std::string expected = "route a\\x0Ab: Hea\\x09d-Xr is no predicate of Spring Cloud Gateway";
        QVERIFY2(refusal(tabbed).find(expected) != std::string::npos, refusal(tabbed).c_str());
    }

    // Envoy: routes in order, merge_slashes on. Rules: 0 the filter's own bucket (2 tokens a
    // minute, for every request without a route config, and those matching no route), 1 login's
    // (1 a minute); each one bucket for all clients; no refill within the first 60 s.
    //  1 A 0 /login        path /login -> 1: 1 -> 0 admitted
    //  2 B 1 //login       merged: /login -> 1: 0: denied by 1
    //  3 A 2 /login?x=1    path matches without the query: denied by 1
    //  4 A 3 /api/v1/x     safe_regex /api/v[0-9]+/.* -> 0: 2 -> 1 admitted
    //  5 B 4 /api/v1       the regex needs the whole path: prefix /api -> 0: 1 -> 0 admitted
    //  6 A 5 /other        no route: the filter's -> 0: denied by 0
    //  7 A 6 /apix         prefix "/api" is a string prefix: -> 0: denied by 0
    void envoyRoutesByHand()
    {
        QTemporaryDir dir;
        const QByteArray bucket = "filter_enabled: {default_value: {numerator: 100, denominator: HUNDRED}}\n"
                                  "                    filter_enforced: {default_value: {numerator: 100}}\n";
        const QString conf = write(dir, "envoy.yaml",
                                   "static_resources:\n  listeners:\n  - name: l\n    filter_chains:\n    - filters:\n"
                                   "      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n"
                                   "          stat_prefix: http\n          merge_slashes: true\n          route_config:\n"
                                   "            virtual_hosts:\n            - name: api\n              domains: [\"*\"]\n"
                                   "              routes:\n"
                                   "              - name: login\n                match: {path: /login}\n                route: {cluster: c}\n"
                                   "                typed_per_filter_config:\n                  envoy.filters.http.local_ratelimit:\n"
                                   "                    stat_prefix: login\n"
                                   "                    token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n"
                                   "                    " + bucket +
                                   "              - name: versioned\n                match: {safe_regex: {regex: \"/api/v[0-9]+/.*\"}}\n"
                                   "                route: {cluster: c}\n"
                                   "              - name: api\n                match: {prefix: /api}\n                route: {cluster: c}\n"
                                   "          http_filters:\n          - name: envoy.filters.http.local_ratelimit\n"
                                   "            typed_config:\n                    stat_prefix: all\n"
                                   "                    token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 60s}\n"
                                   "                    " + bucket +
                                   "          - name: envoy.filters.http.router\n");
        const DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        QCOMPARE(c.product, std::string("Envoy"));
        QCOMPARE(c.rules.size(), std::size_t(2));
        QCOMPARE(c.rules[0].name, std::string("local_ratelimit of the filter (http_filters)"));
        QCOMPARE(c.rules[1].name, std::string("local_ratelimit of route login"));
        QCOMPARE(c.paths, DryRunPaths::EnvoyMerge);
        const Traffic t = traffic("time,ip,path\n"
                                  "1795392000,1.1.1.1,/login\n1795392001,2.2.2.2,//login\n1795392002,1.1.1.1,/login?x=1\n"
                                  "1795392003,1.1.1.1,/api/v1/x\n1795392004,2.2.2.2,/api/v1\n1795392005,1.1.1.1,/other\n"
                                  "1795392006,1.1.1.1,/apix\n");
        const DryRunResult r = dryRun(t, c);
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, 1, 1, -1, -1, 0, 0}));
        QCOMPARE(r.rules[0].requests, std::int64_t(4));
        QCOMPARE(r.rules[1].requests, std::int64_t(3));
        // Without filter_enabled, Envoy's default is 0%: the filter's bucket limits nothing, and
        // says so; the login route's own config (which replaces the filter's whole there) makes
        // the filter do nothing on that route: no rule of it.
        QFile f(conf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QByteArray off = text;
        off.replace("                    " + bucket, "");
        const DryRunConfig d = io::dryRunConfigFile(write(dir, "off.yaml", off), "ip");
        QCOMPARE(d.mapped, (std::vector<bool>{false}));
        QVERIFY2(d.notReplayed.at(0).find("filter_enabled is 0%") != std::string::npos, d.notReplayed[0].c_str());
        // The login route's own config off alone (no filter_enabled there): its three requests
        // meet no limit; the rest is as above, the filter's bucket denying /other and /apix.
        QByteArray loginOff = text;
        loginOff.replace("fill_interval: 60s}\n                    " + bucket + "              - name: versioned",
                         "fill_interval: 60s}\n              - name: versioned");
        const DryRunConfig e = io::dryRunConfigFile(write(dir, "login-off.yaml", loginOff), "ip");
        QCOMPARE(e.rules.size(), std::size_t(1));
        QCOMPARE(deniedBy(dryRun(t, e)), (std::vector<int>{-1, -1, -1, -1, -1, 0, 0}));
        // A FilterConfig wrapper: disabled, the same; its config inside, that config.
        QByteArray disabled = text;
        disabled.replace("                  envoy.filters.http.local_ratelimit:\n                    stat_prefix: login\n",
                         "                  envoy.filters.http.local_ratelimit:\n"
                         "                    \"@type\": type.googleapis.com/envoy.config.route.v3.FilterConfig\n"
                         "                    disabled: true\n                    config:\n"
                         "                     stat_prefix: login\n");
        QVERIFY(disabled != text);
        // (the bucket's lines stay at the old indent: inside `config` they would be one deeper; a
        // disabled filter reads none of them)
        const DryRunConfig g = io::dryRunConfigFile(write(dir, "disabled.yaml", disabled), "ip");
        QCOMPARE(deniedBy(dryRun(t, g)), (std::vector<int>{-1, -1, -1, -1, -1, 0, 0}));
        // A route's own config without a token_bucket is one Envoy refuses to load.
        QByteArray noBucket = text;
        noBucket.replace("                    token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n", "");
        QVERIFY(noBucket != text);
        try {
            io::dryRunConfigFile(write(dir, "nobucket.yaml", noBucket), "ip");
            QFAIL("refused by Envoy");
        } catch (const InputError& x) {
            QVERIFY2(std::string(x.what()).find("route login: its own local_ratelimit has no token_bucket") != std::string::npos, x.what());
        }
    }


    // Envoy's local_ratelimit descriptors, on the file of Envoy's own documentation
    // (docs/root/configuration/http/http_filters/_include/local-rate-limit-with-descriptors.yaml)
    // with its buckets made small: route /foo's rate_limits make a request's descriptor
    // (client_cluster = the x-envoy-downstream-service-cluster header, path = :path, the target as
    // sent, query included); the route's config keeps a default bucket (4 a minute, rule 0) and one
    // per descriptor: foo,/foo/bar (2, rule 1), foo,/foo/bar2 (3, rule 2). A request consumes its
    // matched descriptor's bucket, then the default (always_consume_default_token_bucket); a
    // refusal stops there. No refill within the minute. Header, target:
    //  1 foo /foo/bar        rule 1: 2 -> 1, default 4 -> 3: admitted
    //  2 foo /foo/bar        rule 1: 1 -> 0, default 3 -> 2: admitted
    //  3 foo /foo/bar        rule 1 empty: denied by 1 (the default keeps 2)
    //  4 bar /foo/bar        no descriptor: default 2 -> 1
    //  5 foo /foo/bar2       rule 2: 3 -> 2, default 1 -> 0: admitted
    //  6 foo /foo/bar2       rule 2: 2 -> 1, default empty: denied by 0 (rule 2 keeps its token taken)
    //  7 -   /foo/bar?x=1    no header, no descriptor: default empty: denied by 0
    //  8 foo /foo/bar?x=1    :path is not /foo/bar: default: denied by 0
    //  9 foo /other          route "/": no limit
    // 10 foo /foo/bar2       rule 2: 1 -> 0, default empty: denied by 0
    // With always_consume_default_token_bucket false a matched descriptor is the only bucket:
    // 3 denied by 1; 4, 7, 8 take the default's 4 -> 1; 5, 6, 10 rule 2's 3 -> 0: only 3 denied.
    void envoyDescriptorsByHand()
    {
        QTemporaryDir dir;
        const QByteArray conf =
            "static_resources:\n  listeners:\n  - address:\n      socket_address: {address: 0.0.0.0, port_value: 8000}\n"
            "    filter_chains:\n    - filters:\n      - name: envoy.filters.network.http_connection_manager\n"
            "        typed_config:\n          stat_prefix: ingress_http\n          http_filters:\n"
            "          - name: envoy.filters.http.local_ratelimit\n            typed_config:\n"
            "              stat_prefix: http_local_rate_limiter\n          - name: envoy.filters.http.router\n"
            "          route_config:\n            name: local_route\n            virtual_hosts:\n"
            "            - name: local_service\n              domains: [\"*\"]\n              routes:\n"
            "              - match: {prefix: \"/foo\"}\n                route:\n"
            "                  cluster: service_protected_by_rate_limit\n                  rate_limits:\n"
            "                  - actions:  # any actions in here\n                    - request_headers:\n"
            "                        header_name: x-envoy-downstream-service-cluster\n"
            "                        descriptor_key: client_cluster\n                    - request_headers:\n"
            "                        header_name: \":path\"\n                        descriptor_key: path\n"
            "                typed_per_filter_config:\n                  envoy.filters.http.local_ratelimit:\n"
            "                    stat_prefix: test\n"
            "                    token_bucket: {max_tokens: 4, tokens_per_fill: 4, fill_interval: 60s}\n"
            "                    filter_enabled: {runtime_key: test_enabled, default_value: {numerator: 100, denominator: HUNDRED}}\n"
            "                    filter_enforced: {runtime_key: test_enforced, default_value: {numerator: 100, denominator: HUNDRED}}\n"
            "CONSUME"
            "                    descriptors:\n"
            "                    - entries:\n                      - {key: client_cluster, value: foo}\n"
            "                      - {key: path, value: /foo/bar}\n"
            "                      token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 60s}\n"
            "                    - entries:\n                      - {key: client_cluster, value: foo}\n"
            "                      - {key: path, value: /foo/bar2}\n"
            "                      token_bucket: {max_tokens: 3, tokens_per_fill: 3, fill_interval: 60s}\n"
            "              - match: {prefix: \"/\"}\n                route: {cluster: default_service}\n";
        const char* log = "time,ip,http_x_envoy_downstream_service_cluster,path\n"
                          "1795392000,1.1.1.1,foo,/foo/bar\n1795392001,1.1.1.1,foo,/foo/bar\n1795392002,1.1.1.1,foo,/foo/bar\n"
                          "1795392003,1.1.1.1,bar,/foo/bar\n1795392004,1.1.1.1,foo,/foo/bar2\n1795392005,1.1.1.1,foo,/foo/bar2\n"
                          "1795392006,1.1.1.1,-,/foo/bar?x=1\n1795392007,1.1.1.1,foo,/foo/bar?x=1\n"
                          "1795392008,1.1.1.1,foo,/other\n1795392009,1.1.1.1,foo,/foo/bar2\n";
        const auto run = [&](const QByteArray& consume) {
            DryRunConfig c = io::dryRunConfigFile(write(dir, "envoy.yaml", QByteArray(conf).replace("CONSUME", consume)), "ip");
            TrafficOptions o;
            o.keepPaths = true;
            o.keyFields = keyFieldsOf(c);
            const Traffic t = parseTraffic(log, o, "log.csv");
            bindKeyFields(c, t);
            return std::pair{c, dryRun(t, c)};
        };
        const auto [c, r] = run("");
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[1].name, std::string("local_ratelimit of route #1: descriptor client_cluster=foo, path=/foo/bar"));
        QVERIFY2(c.notReplayed.empty(), c.notReplayed.empty() ? "" : c.notReplayed[0].c_str());
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, -1, 1, -1, -1, 0, 0, 0, -1, 0}));
        QCOMPARE(r.rules[0].requests, std::int64_t(8));
        QCOMPARE(r.rules[1].requests, std::int64_t(3));
        QCOMPARE(r.rules[2].requests, std::int64_t(3));
        const DryRunResult alone = run("                    always_consume_default_token_bucket: false\n").second;
        QCOMPARE(deniedBy(alone), (std::vector<int>{-1, -1, 1, -1, -1, -1, -1, -1, -1, -1}));
        // A log without the header: its descriptors are taken to be made, and named.
        DryRunConfig bare = io::dryRunConfigFile(write(dir, "bare.yaml", QByteArray(conf).replace("CONSUME", "")), "ip");
        QCOMPARE(bare.notReplayed.size(), std::size_t(2));
        QVERIFY2(bare.notReplayed[0].starts_with("route #1: the descriptor client_cluster=foo, path=/foo/bar reads "
                                                 "http_x_envoy_downstream_service_cluster, which the log does not hold"),
                 bare.notReplayed[0].c_str());
    }

    // The filter's own rate_limits (read instead of any route's) with remote_address, generic_key
    // and header_value_match: descriptors remote_address=1.1.1.1 (1 a minute, rule 1) and
    // generic_key=api, header_match=post (a POST; 2 a minute, rule 2), the default 3 (rule 0). A
    // request matching both meets the slower-filling first (rule 1). Combined log, A = 1.1.1.1:
    //  1 A GET  rule 1: 1 -> 0, default 3 -> 2
    //  2 A GET  rule 1 empty: denied by 1
    //  3 B POST rule 2: 2 -> 1, default 2 -> 1
    //  4 B POST rule 2: 1 -> 0, default 1 -> 0
    //  5 B POST rule 2 empty: denied by 2
    //  6 B GET  default empty: denied by 0
    //  7 A POST rule 1 first, empty: denied by 1
    void envoyActionsByHand()
    {
        QTemporaryDir dir;
        const QString conf = write(
            dir, "envoy.yaml",
            "static_resources:\n  listeners:\n  - name: l\n    filter_chains:\n    - filters:\n"
            "      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n"
            "          stat_prefix: http\n          route_config:\n            virtual_hosts:\n"
            "            - name: api\n              domains: [\"*\"]\n              routes:\n"
            "              - match: {prefix: /api}\n                route: {cluster: c}\n"
            "          http_filters:\n          - name: envoy.filters.http.local_ratelimit\n            typed_config:\n"
            "              stat_prefix: all\n"
            "              token_bucket: {max_tokens: 3, tokens_per_fill: 3, fill_interval: 60s}\n"
            "              filter_enabled: {default_value: {numerator: 100}}\n"
            "              filter_enforced: {default_value: {numerator: 100}}\n"
            "              descriptors:\n"
            "              - entries: [{key: remote_address, value: 1.1.1.1}]\n"
            "                token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n"
            "              - entries: [{key: generic_key, value: api}, {key: header_match, value: post}]\n"
            "                token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 60s}\n"
            "              rate_limits:\n"
            "              - actions: [{remote_address: {}}]\n"
            "              - actions:\n                - generic_key: {descriptor_value: api}\n"
            "                - header_value_match:\n                    descriptor_value: post\n"
            "                    headers: [{name: \":method\", string_match: {exact: POST}}]\n"
            "          - name: envoy.filters.http.router\n");
        DryRunConfig c = io::dryRunConfigFile(conf, "ip");
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(c);
        QCOMPARE(o.keyFields, (std::vector<std::string>{"ip", "request_method"}));
        QByteArray log;
        int second = 0;
        for (const char* request : {"1.1.1.1 GET", "1.1.1.1 GET", "2.2.2.2 POST", "2.2.2.2 POST", "2.2.2.2 POST", "2.2.2.2 GET",
                                    "1.1.1.1 POST"}) {
            const QStringList parts = QString(request).split(' ');
            log += QString("%1 - - [01/Jan/2000:00:00:0%2 +0000] \"%3 /api/x HTTP/1.1\" 200 1 \"-\" \"-\"\n")
                       .arg(parts[0])
                       .arg(second++)
                       .arg(parts[1])
                       .toUtf8();
        }
        const Traffic t = parseTraffic(log.toStdString(), o, "access.log");
        bindKeyFields(c, t);
        // What stays named: a request matching no route meets the default bucket alone.
        QCOMPARE(c.notReplayed.size(), std::size_t(1));
        QVERIFY2(c.notReplayed[0].find("matches no route") != std::string::npos, c.notReplayed[0].c_str());
        QCOMPARE(deniedBy(dryRun(t, c)), (std::vector<int>{-1, 1, -1, -1, 2, 0, 1}));
    }

    // request_headers with skip_if_absent (router_ratelimit.cc): an absent header adds no entry
    // and the other actions go on, so the filter's rate_limits [generic_key api, request_headers
    // x-user -> user] make (generic_key=api) without the header, (generic_key=api, user=NAME) with
    // it. Descriptors: generic_key=api (1 a minute, rule 1), generic_key=api, user=alice (2, rule
    // 2); the default 3 (rule 0). No refill within the minute. x-user:
    //  1 -      rule 1: 1 -> 0, default 3 -> 2
    //  2 -      rule 1 empty: denied by 1
    //  3 alice  rule 2: 2 -> 1, default 2 -> 1
    //  4 bob    (generic_key=api, user=bob) is no descriptor: default 1 -> 0
    //  5 alice  rule 2: 1 -> 0, default empty: denied by 0
    //  6 -      rule 1 empty: denied by 1
    // Without skip_if_absent an absent header makes no descriptor at all: 1, 2 take the default
    // (3 -> 1), 3 rule 2 (2 -> 1) and the default (1 -> 0), and 4, 5, 6 find it empty.
    void envoySkipIfAbsentByHand()
    {
        QTemporaryDir dir;
        const QByteArray conf =
            "static_resources:\n  listeners:\n  - name: l\n    filter_chains:\n    - filters:\n"
            "      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n"
            "          stat_prefix: http\n          route_config:\n            virtual_hosts:\n"
            "            - name: api\n              domains: [\"*\"]\n              routes:\n"
            "              - match: {prefix: /api}\n                route: {cluster: c}\n"
            "          http_filters:\n          - name: envoy.filters.http.local_ratelimit\n            typed_config:\n"
            "              stat_prefix: all\n"
            "              token_bucket: {max_tokens: 3, tokens_per_fill: 3, fill_interval: 60s}\n"
            "              filter_enabled: {default_value: {numerator: 100}}\n"
            "              filter_enforced: {default_value: {numerator: 100}}\n"
            "              descriptors:\n"
            "              - entries: [{key: generic_key, value: api}]\n"
            "                token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n"
            "              - entries: [{key: generic_key, value: api}, {key: user, value: alice}]\n"
            "                token_bucket: {max_tokens: 2, tokens_per_fill: 2, fill_interval: 60s}\n"
            "              rate_limits:\n"
            "              - actions:\n                - generic_key: {descriptor_value: api}\n"
            "                - request_headers: {header_name: x-user, descriptor_key: user SKIP}\n"
            "          - name: envoy.filters.http.router\n";
        const char* log = "time,ip,http_x_user,path\n"
                          "1795392000,1.1.1.1,-,/api/x\n1795392001,1.1.1.1,-,/api/x\n1795392002,1.1.1.1,alice,/api/x\n"
                          "1795392003,1.1.1.1,bob,/api/x\n1795392004,1.1.1.1,alice,/api/x\n1795392005,1.1.1.1,-,/api/x\n";
        const auto run = [&](const char* skip) {
            DryRunConfig c = io::dryRunConfigFile(write(dir, "envoy.yaml", QByteArray(conf).replace("SKIP", skip)), "ip");
            TrafficOptions o;
            o.keepPaths = true;
            o.keyFields = keyFieldsOf(c);
            const Traffic t = parseTraffic(log, o, "log.csv");
            bindKeyFields(c, t);
            return std::pair{c, dryRun(t, c)};
        };
        const auto [c, r] = run(", skip_if_absent: true");
        QCOMPARE(c.rules.size(), std::size_t(3));
        QCOMPARE(c.rules[1].name, std::string("local_ratelimit of the filter (http_filters): descriptor generic_key=api"));
        QCOMPARE(c.notReplayed.size(), std::size_t(1)); // a request matching no route: the default bucket alone
        QCOMPARE(deniedBy(r), (std::vector<int>{-1, 1, -1, -1, 0, 1}));
        QCOMPARE(deniedBy(run("").second), (std::vector<int>{-1, -1, -1, 0, 0, 0}));
        // A descriptor entry without a value (user=) is a bucket per value met in an LRU list of
        // max_dynamic_descriptors: named, not replayed, and the other buckets decide as above.
        const QByteArray dynamic = QByteArray(conf).replace("SKIP", ", skip_if_absent: true")
                                       .replace("              descriptors:\n",
                                                "              max_dynamic_descriptors: 5\n              descriptors:\n"
                                                "              - entries: [{key: user, value: \"\"}]\n"
                                                "                token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n");
        DryRunConfig d = io::dryRunConfigFile(write(dir, "dynamic.yaml", dynamic), "ip");
        QCOMPARE(d.rules.size(), std::size_t(3));
        QCOMPARE(d.notReplayed[0], std::string("local_ratelimit of the filter (http_filters): descriptor user=: an entry without "
                                               "a value is a bucket per value met, at most 5 kept (max_dynamic_descriptors), the "
                                               "least recently used dropped with its tokens: not replayed, its requests meet the "
                                               "other buckets as if it matched none"));
        TrafficOptions o;
        o.keepPaths = true;
        o.keyFields = keyFieldsOf(d);
        const Traffic t = parseTraffic(log, o, "log.csv");
        bindKeyFields(d, t);
        QCOMPARE(d.notReplayed.size(), std::size_t(2)); // and a request matching no route, as above
        QCOMPARE(deniedBy(dryRun(t, d)), (std::vector<int>{-1, 1, -1, -1, 0, 1}));
    }
};

QTEST_GUILESS_MAIN(TestDryRunRoutes)
#include "tst_dry_run_routes.moc"
