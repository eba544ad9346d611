// One config document (io/config_document.h): a file is parsed once into one tree, by one loader
// with one node cap, one rule for several YAML documents and each product's own rule for the
// case of its keys, and recognised by one detector; `ratelab import` (importConfiguration) and
// `replay --config` (dryRunConfigText / dryRunConfigFile) both start from it. Each row below is a
// file the two old loaders read differently; each now has one answer for both commands.
#include "cli_run.h"
#include "error_of.h"

#include "config_document.h"
#include "config_dry_run.h"
#include "config_import.h"

#include "arithmetic/decimal.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using clitest::data;
using clitest::runRatelab;

namespace {

// option is the value of a product option in a config, "(none)" when it has none.
std::string option(const LimiterConfig& config, const std::string& name)
{
    for (const ProductOption& o : config.productOptions())
        if (o.name == name)
            return o.value;
    return "(none)";
}

bool holds(const std::vector<std::string>& lines, const std::string& part)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// excludedIPs is a Traefik rateLimit middleware whose ipStrategy excludes `items` addresses, in
// flow style. Its nodes, counted by hand: the root map, the maps under http, middlewares, api,
// rateLimit, sourceCriterion and ipStrategy (6), the value 5 of average, the list excludedIPs:
// 9, plus one a list item.
QByteArray excludedIPs(int items)
{
    QByteArray list;
    list.reserve(items * 2);
    for (int i = 0; i < items; ++i)
        list += i ? ",0" : "0";
    return "http:\n  middlewares:\n    api:\n      rateLimit:\n        average: 5\n        sourceCriterion:\n"
           "          ipStrategy:\n            excludedIPs: [" + list + "]\n";
}

QString write(QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        return {};
    return f.fileName();
}

const QByteArray kLog = "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /api HTTP/1.1\" 200 1 \"-\" \"x\"\n";

} // namespace

class TestConfigDocument : public QObject {
    Q_OBJECT
private slots:
    // Kong reads a declarative file with lyaml.load (kong/db/declarative: `pcall(lyaml.load,
    // contents)`), which returns the first YAML document. So the plugin of the second document
    // (minute: 100) is not Kong's: both commands model minute 5 and name the second document by
    // its line (13, where its `---` stands). The old import read every document and named the
    // second plugin "#2"; the old dry run read the first only.
    void twoDocumentsReadAsKongDoes()
    {
        const QByteArray kong = "_format_version: \"3.0\"\n" // 1
                                "services:\n"                // 2
                                "- name: api\n"              // 3
                                "  url: http://backend\n"    // 4
                                "  routes:\n"                // 5
                                "  - name: api\n"            // 6
                                "    paths: [/api]\n"        // 7
                                "plugins:\n"                 // 8
                                "- name: rate-limiting\n"    // 9
                                "  config:\n"                // 10
                                "    minute: 5\n"            // 11
                                "    policy: local\n"        // 12
                                "---\n"                      // 13
                                "plugins:\n"
                                "- name: rate-limiting\n"
                                "  config:\n"
                                "    minute: 100\n";
        const std::string unread = "the YAML document at line 13: not read: Kong's declarative loader reads the first document";
        const io::ConfigDocument doc = io::readConfigDocument(kong);
        QCOMPARE(doc.product, io::ConfigProduct::Kong);
        const io::ImportedConfig imported = io::importConfiguration(doc);
        QCOMPARE(option(imported.scenario.config, "minute"), std::string("5"));
        QVERIFY(holds(imported.notModelled, unread));
        QVERIFY(!holds(imported.notModelled, "(#2)"));
        const DryRunConfig dry = io::dryRunConfigText(kong, "ip");
        QCOMPARE(dry.product, std::string("Kong"));
        QCOMPARE(dry.rules.size(), std::size_t(1)); // the first document's one plugin
        QVERIFY(holds(dry.notReplayed, unread));

        // An empty first document (a file that starts "---" twice) is the configuration Kong
        // reads: no limit, and the refusal says which document was read and where the next starts.
        const QByteArray emptyFirst = "---\n---\nplugins:\n- name: rate-limiting\n  config:\n    minute: 5\n";
        const std::string none = errorOf([&] { (void)io::importConfiguration(emptyFirst); });
        QVERIFY2(none.starts_with("no rate limit found: "), none.c_str());
        QVERIFY2(none.ends_with(" in the file's first YAML document, the one read (the next starts at line 2)"), none.c_str());
        QCOMPARE(errorOf([&] { (void)io::dryRunConfigText(emptyFirst, "ip"); }), none);
    }

    // Keys that differ in case from the product's own spelling, read as each product's loader
    // reads them:
    // - Traefik: paerser's findTypedField compares field names with strings.EqualFold, so
    //   RateLimit/Average is rateLimit/average: average 6, period 1m, burst 1 in both commands
    //   (the old dry run compared exactly and found no rateLimit).
    // - Spring: relaxed binding makes replenish-rate replenishRate: 10 and 20 in both commands
    //   (the old import found no replenishRate).
    // - Kong: Lua tables are exact, so Config is not config and no limit is set: both commands
    //   refuse with the same words (the old import read Config.Minute as config.minute).
    void keysReadWithEachProductsCase()
    {
        const QByteArray traefik = "http:\n  Middlewares:\n    api:\n      RateLimit:\n        Average: 6\n        Period: 1m\n"
                                   "        Burst: 1\n";
        const io::ImportedConfig t = io::importConfiguration(traefik);
        QCOMPARE(t.product, std::string("Traefik rateLimit"));
        QCOMPARE(option(t.scenario.config, "average"), std::string("6"));
        QCOMPARE(option(t.scenario.config, "period"), std::string("1m"));
        QCOMPARE(option(t.scenario.config, "burst"), std::string("1"));
        const DryRunConfig td = io::dryRunConfigText(traefik, "ip");
        QCOMPARE(td.rules.size(), std::size_t(1));
        QCOMPARE(option(td.rules[0].policy.at(0).config, "average"), std::string("6"));
        QCOMPARE(option(td.rules[0].policy.at(0).config, "period"), std::string("1m"));
        QCOMPARE(option(td.rules[0].policy.at(0).config, "burst"), std::string("1"));

        const QByteArray spring = "spring:\n  cloud:\n    gateway:\n      routes:\n      - id: api\n        uri: http://backend\n"
                                  "        predicates:\n        - Path=/api/**\n        filters:\n"
                                  "        - name: RequestRateLimiter\n          args:\n"
                                  "            redis-rate-limiter.replenish-rate: 10\n"
                                  "            redis-rate-limiter.burst-capacity: 20\n";
        const io::ImportedConfig s = io::importConfiguration(spring);
        QCOMPARE(s.product, std::string("Spring Cloud Gateway RedisRateLimiter"));
        QCOMPARE(option(s.scenario.config, "replenishRate"), std::string("10"));
        QCOMPARE(option(s.scenario.config, "burstCapacity"), std::string("20"));
        const DryRunConfig sd = io::dryRunConfigText(spring, "user");
        QCOMPARE(sd.product, std::string("Spring Cloud Gateway"));
        QCOMPARE(sd.rules.size(), std::size_t(1));
        QCOMPARE(option(sd.rules[0].policy.at(0).config, "replenishRate"), std::string("10"));
        QCOMPARE(option(sd.rules[0].policy.at(0).config, "burstCapacity"), std::string("20"));

        const QByteArray kong = "plugins:\n- name: rate-limiting\n  Config:\n    Minute: 5\n";
        const std::string refused = "Kong: the rate-limiting plugin sets none of config.second, minute, hour, day, month or "
                                    "year (Kong's keys are exact: Config or Minute is not its schema's)";
        QCOMPARE(errorOf([&] { (void)io::importConfiguration(kong); }), refused);
        QCOMPARE(errorOf([&] { (void)io::dryRunConfigText(kong, "ip"); }), refused);
    }

    // A JSON number is the decimal written, in its shortest form: 0.3 is a double just under 3/10,
    // whose 17 digits (0.29999999999999999) no exact rate holds; the plan's throttle reads 0.3 a
    // second, as `advise --for aws-api-gateway` writes a rate of 18 a minute.
    void jsonNumbersAsWritten()
    {
        const QByteArray plan = "{\"name\": \"p\", \"throttle\": {\"burstLimit\": 4, \"rateLimit\": 0.3}}\n";
        const io::ImportedConfig p = io::importConfiguration(plan);
        QCOMPARE(option(p.scenario.config, "plan_rate"), std::string("0.3"));
        QCOMPARE(option(p.scenario.config, "plan_burst"), std::string("4"));
        const DryRunConfig d = io::dryRunConfigText(plan, "ip");
        QCOMPARE(d.rules.size(), std::size_t(1));
    }

    // The one node cap, counted by hand in excludedIPs: 9 + 199,991 items is 200,000 nodes, read
    // by both commands; one item more is refused by both, the cap named. (The old import stopped
    // at 100,000 values, the old dry run at 200,000 nodes.)
    void oneNodeCap()
    {
        const QByteArray atCap = excludedIPs(io::kMaxConfigNodes - 9);
        QCOMPARE(io::importConfiguration(atCap).product, std::string("Traefik rateLimit"));
        QCOMPARE(io::dryRunConfigText(atCap, "ip").rules.size(), std::size_t(1));
        const QByteArray over = excludedIPs(io::kMaxConfigNodes - 8);
        const std::string cap = "YAML: more than 200,000 nodes (every map, list and value, aliases expanded)";
        QCOMPARE(errorOf([&] { (void)io::importConfiguration(over); }), cap);
        QCOMPARE(errorOf([&] { (void)io::dryRunConfigText(over, "ip"); }), cap);

        // From the command line: exit 2, one line naming the file and the reason, nothing on stdout.
        QTemporaryDir dir;
        const QString file = write(dir, "over.yaml", over), log = write(dir, "access.log", kLog);
        const QByteArray line = ("ratelab: import: " + file.toStdString() + ": " + cap + "\n").c_str();
        const clitest::Run imported = runRatelab({"import", file});
        QCOMPARE(imported.code, 2);
        QVERIFY(imported.out.isEmpty());
        QCOMPARE(imported.err, line);
        const clitest::Run replayed = runRatelab({"replay", log, "--config", file});
        QCOMPARE(replayed.code, 2);
        QVERIFY(replayed.out.isEmpty());
        QCOMPARE(replayed.err, QByteArray(("ratelab: " + file.toStdString() + ": " + cap + "\n").c_str()));
    }

    // Anchors and merge keys in an import: the merged mapping's average 50 yields to the 7
    // written beside the merge, its burst 5 is taken; both commands read 7 and 5. A merge key
    // naming a scalar is not YAML's merge (a mapping or a list of mappings): both refuse, naming
    // the line (the old import skipped it silently). A key written twice in one mapping is
    // refused by both, as Traefik's yaml.v3 refuses it (the old import kept both values, the old
    // dry run the last).
    void mergeKeysAndRepeatedKeys()
    {
        const QByteArray merged = "x-limits: &limits\n  average: 50\n  burst: 5\nhttp:\n  middlewares:\n    api:\n"
                                  "      rateLimit:\n        <<: *limits\n        average: 7\n";
        const io::ImportedConfig imported = io::importConfiguration(merged);
        QCOMPARE(option(imported.scenario.config, "average"), std::string("7"));
        QCOMPARE(option(imported.scenario.config, "burst"), std::string("5"));
        const DryRunConfig dry = io::dryRunConfigText(merged, "ip");
        QCOMPARE(option(dry.rules.at(0).policy.at(0).config, "average"), std::string("7"));
        QCOMPARE(option(dry.rules.at(0).policy.at(0).config, "burst"), std::string("5"));

        const QByteArray scalarMerge = "x: &limits\n  average: 50\nhttp:\n  middlewares:\n    api:\n      rateLimit:\n"
                                       "        <<: [*limits, 5]\n";
        const std::string notMerge = "YAML line 7: a merge key (<<) takes a mapping or a list of mappings";
        QCOMPARE(errorOf([&] { (void)io::importConfiguration(scalarMerge); }), notMerge);
        QCOMPARE(errorOf([&] { (void)io::dryRunConfigText(scalarMerge, "ip"); }), notMerge);

        const QByteArray twice = "http:\n  middlewares:\n    api:\n      rateLimit:\n        average: 5\n        average: 50\n";
        const std::string repeated = "YAML line 6: the key 'average' a second time in one mapping";
        QCOMPARE(errorOf([&] { (void)io::importConfiguration(twice); }), repeated);
        QCOMPARE(errorOf([&] { (void)io::dryRunConfigText(twice, "ip"); }), repeated);
    }

    // Envoy's loader is protobuf's JSON parser, which takes a field by its proto name or its
    // lowerCamelCase JSON name: the same config written both ways imports and replays the same
    // (the file's name aside). By hand: the route /api's own local_ratelimit (the most specific)
    // holds 2 tokens and refills 1 a minute, so of 4 requests of one client within a second the
    // first 2 are admitted and the last 2 denied: "denied 2 of 4". A field written both ways in
    // one message is refused, as protobuf refuses it ("has already been set").
    void envoyLowerCamelNamesReadAsProtoNames()
    {
        const auto config = [](bool camel) {
            QByteArray t = "static_resources:\n  listeners:\n  - name: l\n    filter_chains:\n    - filters:\n"
                           "      - name: envoy.filters.network.http_connection_manager\n        typed_config:\n"
                           "          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\n"
                           "          stat_prefix: http\n          route_config:\n            virtual_hosts:\n"
                           "            - name: api\n              domains: [\"*\"]\n              routes:\n"
                           "              - match: {prefix: /api}\n                route: {cluster: c}\n"
                           "                typed_per_filter_config:\n                  envoy.filters.http.local_ratelimit:\n"
                           "                    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
                           "                    stat_prefix: api\n"
                           "                    token_bucket: {max_tokens: 2, tokens_per_fill: 1, fill_interval: 60s}\n"
                           "                    filter_enabled: {runtime_key: on, default_value: {numerator: 100, denominator: HUNDRED}}\n"
                           "                    filter_enforced: {runtime_key: enforced, default_value: {numerator: 100}}\n"
                           "          http_filters:\n          - name: envoy.filters.http.local_ratelimit\n            typed_config:\n"
                           "              \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
                           "              stat_prefix: all\n"
                           "              token_bucket: {max_tokens: 5, tokens_per_fill: 5, fill_interval: 60s}\n"
                           "              filter_enabled: {default_value: {numerator: 100}}\n"
                           "              filter_enforced: {default_value: {numerator: 100}}\n"
                           "          - name: envoy.filters.http.router\n";
            if (camel) // written by hand, each name as protoc's JSON name
                for (const auto& [snake, json] : std::vector<std::pair<const char*, const char*>>{
                         {"static_resources", "staticResources"}, {"filter_chains", "filterChains"}, {"typed_config", "typedConfig"},
                         {"stat_prefix", "statPrefix"}, {"route_config", "routeConfig"}, {"virtual_hosts", "virtualHosts"},
                         {"typed_per_filter_config", "typedPerFilterConfig"}, {"token_bucket", "tokenBucket"},
                         {"max_tokens", "maxTokens"}, {"tokens_per_fill", "tokensPerFill"}, {"fill_interval", "fillInterval"},
                         {"filter_enabled", "filterEnabled"}, {"filter_enforced", "filterEnforced"}, {"runtime_key", "runtimeKey"},
                         {"default_value", "defaultValue"}, {"http_filters", "httpFilters"}})
                    t.replace(QByteArray(snake) + ":", QByteArray(json) + ":");
            return t;
        };
        QVERIFY(config(true).contains("maxTokens: 2") && !config(true).contains("max_tokens"));
        QTemporaryDir dir;
        const QString snake = write(dir, "snake.yaml", config(false)), camel = write(dir, "camel.yaml", config(true));
        QByteArray log;
        for (int i = 0; i < 4; ++i)
            log += "192.0.2.1 - - [01/Jan/2000:00:00:00 +0000] \"GET /api/x HTTP/1.1\" 200 1 \"-\" \"x\"\n";
        const QString logFile = write(dir, "access.log", log);
        const clitest::Run replaySnake = runRatelab({"replay", logFile, "--config", snake});
        const clitest::Run replayCamel = runRatelab({"replay", logFile, "--config", camel});
        QCOMPARE(replaySnake.code, 0);
        QVERIFY2(replaySnake.out.contains("denied 2 of 4"), replaySnake.out.constData());
        QCOMPARE(replayCamel.code, 0);
        QCOMPARE(QByteArray(replayCamel.out).replace("camel.yaml", "snake.yaml"), replaySnake.out);
        const clitest::Run importSnake = runRatelab({"import", snake}), importCamel = runRatelab({"import", camel});
        QCOMPARE(importSnake.code, 0);
        QCOMPARE(importCamel.code, 0);
        QCOMPARE(QByteArray(importCamel.out).replace("camel.yaml", "snake.yaml"), importSnake.out);

        // A bare maxTokens is no Envoy field here: Spring AI's is an LLM's, and the file Spring's.
        const QByteArray springAi = "spring:\n  ai:\n    openai:\n      chat:\n        options:\n          maxTokens: 100\n"
                                    "  cloud:\n    gateway:\n      routes:\n      - id: api\n        uri: http://b\n"
                                    "        predicates:\n        - Path=/api/**\n";
        QCOMPARE(int(io::readConfigDocument(springAi).product), int(io::ConfigProduct::Spring));

        const QString twice = write(dir, "twice.yaml", QByteArray(config(false)).replace("max_tokens: 2,", "max_tokens: 2, maxTokens: 3,"));
        for (const QStringList& args : {QStringList{"import", twice}, QStringList{"replay", logFile, "--config", twice}}) {
            const clitest::Run r = runRatelab(args);
            QCOMPARE(r.code, 2);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.contains("'max_tokens' and 'maxTokens' are one field written twice"), r.err.constData());
        }
    }

    // Every fixture of tests/data/import is recognised once, and `import` and `replay --config`
    // name the same product: the detector's, as each file plainly is (an Envoy token_bucket, an
    // express windowMs, a Kong rate-limiting plugin, an nginx limit_req_zone, a Spring
    // redis-rate-limiter, a Traefik rateLimit). The dry run names a product by its routes where it
    // reads them (Spring's), else by the import's policy.
    void fixturesAreOneProductForBoth_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("product");
        QTest::addColumn<QString>("imported");
        QTest::addColumn<QString>("replayed");
        using P = io::ConfigProduct;
        QTest::newRow("envoy") << "envoy.yaml" << int(P::Envoy) << "Envoy local_ratelimit" << "Envoy local_ratelimit";
        QTest::newRow("express") << "express.json" << int(P::Express) << "express-rate-limit" << "express-rate-limit";
        QTest::newRow("kong json") << "kong.json" << int(P::Kong) << "Kong rate-limiting" << "Kong rate-limiting";
        QTest::newRow("kong yaml") << "kong.yaml" << int(P::Kong) << "Kong rate-limiting" << "Kong rate-limiting";
        QTest::newRow("nginx") << "nginx.conf" << int(P::Nginx) << "nginx limit_req" << "nginx";
        QTest::newRow("spring") << "spring.yml" << int(P::Spring) << "Spring Cloud Gateway RedisRateLimiter"
                                << "Spring Cloud Gateway";
        QTest::newRow("traefik toml") << "traefik.toml" << int(P::Traefik) << "Traefik rateLimit" << "Traefik";
        QTest::newRow("traefik yaml") << "traefik.yaml" << int(P::Traefik) << "Traefik rateLimit" << "Traefik";
    }

    void fixturesAreOneProductForBoth()
    {
        QFETCH(QString, file);
        QFETCH(int, product);
        QFETCH(QString, imported);
        QFETCH(QString, replayed);
        const QString path = data(("import/" + file).toUtf8().constData());
        QCOMPARE(int(io::readConfigFile(path).product), product);
        QCOMPARE(QString::fromStdString(io::importConfigurationFile(path).product), imported);
        QCOMPARE(QString::fromStdString(io::dryRunConfigFile(path, "ip").product), replayed);
    }
};

QTEST_GUILESS_MAIN(TestConfigDocument)
#include "tst_config_document.moc"
