// Dry runs by route (issue 32): a logged path as each product reads it (percent-decoding, slashes,
// dot segments), Spring's PathPattern, and Kong's, Spring Cloud Gateway's and Envoy's routes
// selecting per request the limits that apply, on hand-derived tables.
#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "replay/dry_run.h"
#include "replay/dry_run_path.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;

namespace {

std::string norm(const char* path, DryRunPaths rule)
{
    const std::optional<std::string> p = normalizedPath(path, rule);
    return p ? *p : std::string("(refused)");
}

std::vector<int> deniedBy(const DryRunResult& r) { return {r.deniedBy.begin(), r.deniedBy.end()}; }

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

std::string refusal(const QString& path, const std::string& key = "ip")
{
    try {
        (void)io::dryRunConfigFile(path, key);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

Traffic traffic(const char* csv)
{
    TrafficOptions o;
    o.keepPaths = true;
    o.emptyKeys = true;
    return parseTraffic(csv, o, "log.csv");
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
};

QTEST_GUILESS_MAIN(TestDryRunRoutes)
#include "tst_dry_run_routes.moc"
