// `ratelab import FILE`: each product's configuration, as its users write it (tests/data/import/),
// is read into its model with the values written, and the explanation names the surprise derived
// by hand from the product's rules. The YAML/TOML/JSON reader is checked on its own too.
#include "cli_run.h"
#include "error_of.h"

#include "config_import.h"
#include "arithmetic/decimal.h"
#include "scenariofile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using clitest::data;
using clitest::runRatelab;

namespace {

QByteArray fileText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// flat reads text as the one loader does and writes its tree as dotted paths.
io::FlatConfig flat(const QByteArray& text)
{
    return io::flattenTree(io::parseConfigTree(text).root);
}

std::string option(const io::ImportedConfig& c, const std::string& name)
{
    for (const ProductOption& o : c.scenario.config.productOptions())
        if (o.name == name)
            return o.value;
    return "(none)";
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT
private slots:
    void flatten()
    {
        // YAML: nested maps, "- " list items (compact style), quotes, comments.
        const auto yaml = flat("a:\n  b: 1 # one\n  c:\n  - name: x\n    args:\n      k.v: '2'\n  - name: y\n");
        const std::vector<std::pair<std::string, std::string>> want{
            {"a.b", "1"}, {"a.c.name", "x"}, {"a.c.args.k.v", "2"}, {"a.c.name", "y"}};
        QCOMPARE(yaml, want);
        const auto toml = flat("[http.m]\n  [http.m.x.rateLimit]\n    average = 6 # six\n    period = \"1m\"\n");
        const std::vector<std::pair<std::string, std::string>> tomlWant{{"http.m.x.rateLimit.average", "6"},
                                                                          {"http.m.x.rateLimit.period", "1m"}};
        QCOMPARE(toml, tomlWant);
        // TOML as TOML 1.0 reads it: each [[x]] starts a new table of the array x, and its items
        // flatten as a JSON array's do, each under x's path, in the file's order; so do an inline
        // array of inline tables and a list written over several lines. Tables named in any
        // order keep the file's order of values, and a quoted key is one key, dots and all.
        const auto tables = flat("[[tls.certificates]]\n"
                                              "  certFile = \"/a.crt\"\n"
                                              "  stores = [\n    \"default\", # a comment\n    'other',\n  ]\n"
                                              "[[tls.certificates]]\n"
                                              "  certFile = \"/b.crt\"\n"
                                              "[z]\n  \"x.y\" = 1.5\n"
                                              "[a]\n  b = true\n");
        const std::vector<std::pair<std::string, std::string>> tablesWant{
            {"tls.certificates.certFile", "/a.crt"}, {"tls.certificates.stores", "default"},
            {"tls.certificates.stores", "other"},     {"tls.certificates.certFile", "/b.crt"},
            {"z.x.y", "1.5"},                         {"a.b", "true"}};
        QCOMPARE(tables, tablesWant);
        const auto inlineArray = flat("tls = { certificates = [ { certFile = \"/a.crt\" }, { certFile = \"/b.crt\" } ] }\n");
        const std::vector<std::pair<std::string, std::string>> inlineWant{{"tls.certificates.certFile", "/a.crt"},
                                                                           {"tls.certificates.certFile", "/b.crt"}};
        QCOMPARE(inlineArray, inlineWant);
        // [x] after [[x]] redefines an array as a table: TOML refuses it, naming the line.
        QVERIFY(errorOf([] { flat("[[x]]\na = 1\n[x]\nb = 2\n"); }).starts_with("TOML line 3: "));
        // toml++ quotes the byte it stopped at: a control byte (here 0x01 after "t", a boolean
        // begun) is written as \x01, so the message stays one printable line.
        QCOMPARE(errorOf([] { flat("a = t\x01\n"); }),
                 std::string("TOML line 1: Error while parsing boolean: expected 'true', saw 't\\x01'"));
        const auto json = flat(R"({"a": {"b": [ {"c": 5} ], "d": "x"}})");
        const std::vector<std::pair<std::string, std::string>> jsonWant{{"a.b.c", "5"}, {"a.d", "x"}};
        QCOMPARE(json, jsonWant);
    }

    void products_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("algorithm");
        QTest::addColumn<QString>("surprise");
        // nginx 50r/s burst=8 nodelay: 27 requests 2 ms apart (0..52 ms); 2 ms drain 100/1000, so
        // after k accepted the excess is 900(k - 1): the 9th (16 ms) leaves 7200, the 10th at 18
        // ms would make 8100 > 8000; at 20 ms 7200 - 200 + 1000 = 8000 passes, then again only at
        // 40 ms (8000 - 1000 + 1000): 11 pass, 16 refused.
        QTest::newRow("nginx") << "nginx.conf" << "nginx_limit_req"
                               << "a page load of 27 requests gets 16 refused although you wrote 50 per second";
        // Envoy 3000 max, 15000 per 1 s fill: the fill is cut to 3000: 3000 per second.
        QTest::newRow("envoy") << "envoy.yaml" << "envoy_local"
                               << "you wrote 15000 per second, but at most 3000 per second pass";
        // Traefik 6 per 1m, burst 1: one every 10 s, one at once.
        QTest::newRow("traefik yaml") << "traefik.yaml" << "traefik"
                                      << "6 per 60 s is one every 10 s: 6 at once do not pass, only 1";
        QTest::newRow("traefik toml") << "traefik.toml" << "traefik"
                                      << "6 per 60 s is one every 10 s: 6 at once do not pass, only 1";
        // Spring burstCapacity 0: nothing ever fills the bucket.
        QTest::newRow("spring") << "spring.yml" << "spring_gateway"
                                << "a burst of 0 does not switch limiting off: every request is refused";
        // Kong minute=5 on the clock's minute: 1 at 0, 4 at 59.999, 5 at 60: 9 in 1 ms.
        QTest::newRow("kong yaml") << "kong.yaml" << "kong" << "9 requests pass within 1 ms across a window boundary, with a limit of 5";
        QTest::newRow("kong json") << "kong.json" << "kong" << "9 requests pass within 1 ms across a window boundary, with a limit of 5";
        // express 100 per 15 min from the first request: 1 + 99 before the end, 100 after.
        QTest::newRow("express") << "express.json" << "express_rate_limit"
                                 << "199 requests pass within 1 ms across a window boundary, with a limit of 100";
    }

    void products()
    {
        QFETCH(QString, file);
        QFETCH(QString, algorithm);
        QFETCH(QString, surprise);
        QTemporaryDir dir;
        const QString saved = dir.filePath("imported.ratelab.json");
        const auto r = runRatelab({"import", data(qPrintable("import/" + file)), "--save-scenario", saved});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        QVERIFY2(r.out.contains(("Modelled as " + algorithm + ".").toUtf8()), r.out.constData());
        QVERIFY2(r.out.contains(("First surprise: " + surprise).toUtf8()), r.out.constData());
        // The saved scenario runs the same model with the same options.
        const auto compare = runRatelab({"compare", "--scenario", saved, "--format", "csv"});
        QCOMPARE(compare.code, 0);
        QVERIFY(compare.out.contains(algorithm.toUtf8() + ","));
    }

    // What import does not model is listed, part by part: a Kong file's other plugins,
    // its rate-limiting plugins after the first and its routes; a Traefik file's routers and other
    // middlewares; an Envoy filter's descriptors and the other HTTP filters (the router, which
    // every listener ends with, aside). Each file is a shape public configs take: an
    // authentication plugin or middleware beside the limit, a descriptor beside the default bucket.
    void eachDroppedPartIsListed()
    {
        const io::ImportedConfig kong = io::importConfiguration("_format_version: \"3.0\"\n"
                                                                "services:\n- name: api\n  url: http://up\n"
                                                                "  routes:\n  - name: login\n    paths: [/login]\n"
                                                                "  plugins:\n  - name: key-auth\n"
                                                                "  - name: rate-limiting\n    config: {minute: 5}\n"
                                                                "plugins:\n- name: rate-limiting\n  config: {minute: 50}\n"
                                                                "- name: cors\n");
        QCOMPARE(option(kong, "minute"), std::string("5"));
        QCOMPARE(kong.notModelled,
                 (std::vector<std::string>{"the plugin key-auth (services.plugins.name): not modelled",
                                           "the rate-limiting plugin at plugins.name (#2): the scenario models the first one",
                                           "the plugin cors (plugins.name): not modelled",
                                           "1 services and 1 named routes: which requests the plugin meets is not modelled "
                                           "(replay --config selects by route)"}));
        const io::ImportedConfig traefik = io::importConfiguration("http:\n  routers:\n    api:\n      rule: PathPrefix(`/api`)\n"
                                                                   "      middlewares: [limit, auth]\n"
                                                                   "  middlewares:\n    limit:\n"
                                                                   "      rateLimit: {average: 6, period: 1m, burst: 1}\n"
                                                                   "    auth:\n      basicAuth:\n        users: [\"u:p\"]\n"
                                                                   "    strict:\n      rateLimit: {average: 1}\n");
        QCOMPARE(traefik.notModelled,
                 (std::vector<std::string>{"router api: which requests it takes is not modelled (replay --config selects by router)",
                                           "middleware auth (basicAuth): not modelled",
                                           "middleware strict (rateLimit): the scenario models the first rateLimit, limit"}));
        const io::ImportedConfig envoy = io::importConfiguration(
            "http_filters:\n- name: envoy.filters.http.local_ratelimit\n  typed_config:\n    stat_prefix: rl\n"
            "    token_bucket: {max_tokens: 10, tokens_per_fill: 10, fill_interval: 1s}\n"
            "    descriptors:\n    - entries:\n      - key: client_cluster\n        value: foo\n"
            "      token_bucket: {max_tokens: 1, tokens_per_fill: 1, fill_interval: 60s}\n"
            "- name: envoy.filters.http.jwt_authn\n- name: envoy.filters.http.router\n");
        QCOMPARE(option(envoy, "max_tokens"), std::string("10"));
        QCOMPARE(envoy.notModelled,
                 (std::vector<std::string>{"the HTTP filter envoy.filters.http.jwt_authn: not modelled",
                                           "1 descriptors, each a token bucket of its own for the requests whose descriptor "
                                           "entries match: not modelled (the scenario is the default bucket)"}));
    }

    // The values reach the model as the file wrote them, by the product's own names.
    void values()
    {
        const io::ImportedConfig spring = io::importConfiguration(fileText(data("import/spring.yml")));
        QCOMPARE(option(spring, "replenishRate"), std::string("10"));
        QCOMPARE(option(spring, "burstCapacity"), std::string("0"));
        const io::ImportedConfig express = io::importConfiguration(fileText(data("import/express.json")));
        QCOMPARE(option(express, "windowMs"), std::string("900000"));
        const io::ImportedConfig nginx = io::importConfiguration(fileText(data("import/nginx.conf")));
        QCOMPARE(nginx.scenario.config.nginxBurst(), 8);
        QVERIFY(nginx.scenario.config.nginx().nodelay);
        QCOMPARE(nginx.scenario.config.rate(), Rate::reduced(50, kNanosPerSecond)); // 50r/s
    }

    // YAML as YAML (libyaml): flow maps, anchors, aliases, a merge key whose keys yield to those
    // written beside it, a byte order mark; a file that is not YAML is refused naming its line.
    void yamlAsYaml()
    {
        const auto flow = flat("http:\n  middlewares:\n    a:\n      rateLimit: {average: 100, period: 1s}\n");
        const std::vector<std::pair<std::string, std::string>> flowWant{{"http.middlewares.a.rateLimit.average", "100"},
                                                                          {"http.middlewares.a.rateLimit.period", "1s"}};
        QCOMPARE(flow, flowWant);
        const auto merged = flat("\xEF\xBB\xBF" "base: &b {average: 50, burst: 5}\n"
                                              "rateLimit:\n  <<: *b\n  average: 7\nlist: [*b]\n");
        const std::vector<std::pair<std::string, std::string>> mergedWant{
            {"base.average", "50"}, {"base.burst", "5"}, {"rateLimit.average", "7"}, {"rateLimit.burst", "5"},
            {"list.average", "50"}, {"list.burst", "5"}};
        QCOMPARE(merged, mergedWant);
        const io::ImportedConfig traefik = io::importConfiguration("http:\n  middlewares:\n    a:\n      rateLimit: {average: 100}\n");
        QCOMPARE(option(traefik, "average"), std::string("100"));
        QVERIFY_THROWS_EXCEPTION(InputError, flat("x:\n\ty: 1\n"));
        try {
            flat("a: 1\nb:\n\tc: 2\n");
        } catch (const InputError& e) {
            QCOMPARE(std::string(e.what()).substr(0, 13), std::string("YAML line 3: "));
        }
    }

    // The rate line is the long-run rate, measured once the burst is spent by a client that
    // sends the moment it may, over whole cycles.
    void rateLineIsTheLongRun_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("rate");
        // 100r/s: after the 201 at once, each request waits for 1000 thousandths to drain at
        // 100 a millisecond: one every 10 ms.
        QTest::newRow("nginx 100r/s burst=200 nodelay")
            << QByteArray("limit_req_zone $binary_remote_addr zone=one:10m rate=100r/s;\nlimit_req zone=one burst=200 nodelay;\n")
            << "rate       100 per second once the burst is spent (you wrote 100 per second)";
        // 1000r/s: one a millisecond after the 1001 at once.
        QTest::newRow("nginx 1000r/s burst=1000")
            << QByteArray("limit_req_zone $binary_remote_addr zone=one:10m rate=1000r/s;\nlimit_req zone=one burst=1000;\n")
            << "rate       1000 per second once the burst is spent (you wrote 1000 per second)";
        // Kong minute 5, hour 100: 5 a minute for 20 minutes, then nothing until the next hour:
        // 100 per 3600 s, one every 36 s (the hour binds; 5 a minute would be one every 12 s).
        QTest::newRow("kong minute 5 hour 100")
            << QByteArray("plugins:\n- name: rate-limiting\n  config: {minute: 5, hour: 100}\n")
            << "rate       0.0277778 per second (one every 36 s) once the burst is spent (you wrote 0.0277778 per second "
               "(one every 36 s))";
        // Kong second 1000, year 10^8: the year binds only after 10^5 s, past the 4,000,000
        // decisions: 1001 a second (1000 admitted, one denied), so the budget ends 4 decisions
        // into second 3996; counted from second 1, the line says how far it got.
        QTest::newRow("kong year past the budget")
            << QByteArray("plugins:\n- name: rate-limiting\n  config: {second: 1000, year: 100000000}\n")
            << "rate       1000 per second over the 3995 s measured (4,000,000 requests; a longer period may bind later)";
        // Traefik average 6 per minute, burst 1: one every 10 s.
        QTest::newRow("traefik") << fileText(data("import/traefik.yaml"))
                                 << "rate       0.1 per second (one every 10 s) once the burst is spent";
        // Envoy: 3000 at each 1 s fill (15000 cut to max_tokens 3000).
        QTest::newRow("envoy") << fileText(data("import/envoy.yaml"))
                               << "rate       3000 per second once the burst is spent (you wrote 15000 per second)";
    }

    void rateLineIsTheLongRun()
    {
        QFETCH(QByteArray, config);
        QFETCH(QString, rate);
        const std::string report = io::whatYouGet(io::importConfiguration(config));
        QVERIFY2(report.find(rate.toStdString()) != std::string::npos, report.c_str());
    }

    // points and duration are rate-limiter-flexible's only where they are plainly its options:
    // at the top of the file or under a key naming a rate limiter, beside nothing but its
    // option names. Any other file with those words is refused, not guessed.
    void flexibleOnlyWherePlain()
    {
        const io::ImportedConfig top = io::importConfiguration(R"({"points": 10, "duration": 60, "blockDuration": 5})");
        QCOMPARE(top.scenario.algorithms.front(), Algorithm::RateLimiterFlexible);
        QCOMPARE(option(top, "blockDuration"), std::string("5"));
        const io::ImportedConfig nested = io::importConfiguration(R"({"app": {"rateLimiter": {"points": 3, "duration": 1}}})");
        QCOMPARE(option(nested, "points"), std::string("3"));
        QVERIFY_THROWS_EXCEPTION(InputError, io::importConfiguration(R"({"game": {"points": 10, "duration": 60}})"));
        QVERIFY_THROWS_EXCEPTION(InputError, io::importConfiguration(R"({"points": 10, "duration": 60, "title": "quiz"})"));
        QTemporaryDir dir;
        const QString path = dir.filePath("game.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"level": {"points": 10, "duration": 60}})");
        f.close();
        const auto r = runRatelab({"import", path});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("points and duration at 'level' are not plainly rate-limiter-flexible's options"), r.err.constData());
    }

    void refusals()
    {
        QVERIFY_THROWS_EXCEPTION(InputError, io::importConfiguration("just: text\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, io::importConfiguration("token_bucket:\n  max_tokens: 5\n  fill_interval: 10ms\n"));
        const auto r = runRatelab({"import", data("import/does-not-exist.yaml")});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
