// `ratelab import FILE`: each product's configuration, as its users write it (tests/data/import/),
// is read into its model with the values written, and the explanation names the surprise derived
// by hand from the product's rules. The YAML/TOML/JSON reader is checked on its own too.
#include "cli_run.h"

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
        const auto yaml = io::flattenConfig("a:\n  b: 1 # one\n  c:\n  - name: x\n    args:\n      k.v: '2'\n  - name: y\n");
        const std::vector<std::pair<std::string, std::string>> want{
            {"a.b", "1"}, {"a.c.name", "x"}, {"a.c.args.k.v", "2"}, {"a.c.name", "y"}};
        QCOMPARE(yaml, want);
        const auto toml = io::flattenConfig("[http.m]\n  [http.m.x.rateLimit]\n    average = 6 # six\n    period = \"1m\"\n");
        const std::vector<std::pair<std::string, std::string>> tomlWant{{"http.m.x.rateLimit.average", "6"},
                                                                          {"http.m.x.rateLimit.period", "1m"}};
        QCOMPARE(toml, tomlWant);
        const auto json = io::flattenConfig(R"({"a": {"b": [ {"c": 5} ], "d": "x"}})");
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
