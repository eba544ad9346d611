// import of the managed services' configurations (io/config_import_managed.cpp): an API
// Gateway usage plan (get-usage-plan JSON and CloudFormation), an AWS WAF rate-based statement,
// a Cloudflare rate limiting rule and an Upstash Ratelimit snippet, each into its model with what
// it wrote, what is assumed and what is not modelled; the decisions on a burst at t = 0 are worked
// out by hand from each model's documented rule.
#include "config_import.h"

#include "limiters/products/product.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

// admittedAtOnce is how many of n requests at t = 0 the imported scenario admits.
int admittedAtOnce(const ImportedConfig& c, int n)
{
    const auto l = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    int admitted = 0;
    for (int i = 0; i < n; ++i)
        admitted += l->decide(0).allowed ? 1 : 0;
    return admitted;
}

QString option(const ImportedConfig& c, const char* name)
{
    return QString::fromStdString(productOptionText(c.scenario.algorithms.front(), c.scenario.config, name).value_or("(none)"));
}

bool mentions(const std::vector<std::string>& lines, const char* word)
{
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(word) != std::string::npos; });
}

} // namespace

class TestImportManaged : public QObject {
    Q_OBJECT
private slots:
    // `aws apigateway get-usage-plan`: throttle 10/s burst 20, quota 1000 a MONTH. 21 at once:
    // the plan's burst, 20.
    void usagePlan()
    {
        const ImportedConfig c = importConfiguration(R"({"id": "u1", "name": "Basic",
            "apiStages": [{"apiId": "a1", "stage": "prod"}],
            "throttle": {"burstLimit": 20, "rateLimit": 10.0},
            "quota": {"limit": 1000, "offset": 0, "period": "MONTH"}})");
        QCOMPARE(c.product, std::string("Amazon API Gateway usage plan"));
        QCOMPARE(c.scenario.algorithms.front(), Algorithm::AwsApiGateway);
        QCOMPARE(option(c, "plan_rate"), QString("10")); // the JSON reader writes the number 10.0 as 10
        QCOMPARE(option(c, "plan_burst"), QString("20"));
        QCOMPARE(option(c, "quota_period"), QString("MONTH"));
        QCOMPARE(admittedAtOnce(c, 21), 20);
        QVERIFY(mentions(c.notModelled, "apiStages"));
        QVERIFY(whatYouGet(c).find("throttle.burstLimit") != std::string::npos);
    }

    // CloudFormation's AWS::ApiGateway::UsagePlan in YAML: Throttle 5/s burst 10, Quota 100 a DAY:
    // 12 at once, 10.
    void cloudFormation()
    {
        const ImportedConfig c = importConfiguration("Resources:\n  Plan:\n    Type: AWS::ApiGateway::UsagePlan\n"
                                                     "    Properties:\n      Throttle:\n        RateLimit: 5\n"
                                                     "        BurstLimit: 10\n      Quota:\n        Limit: 100\n"
                                                     "        Period: DAY\n");
        QCOMPARE(c.scenario.algorithms.front(), Algorithm::AwsApiGateway);
        QCOMPARE(option(c, "quota_limit"), QString("100"));
        QCOMPARE(admittedAtOnce(c, 12), 10);
    }

    // A WAF rule as re:Post shows it (Limit 10 over 60 s, per IP, a scope-down): 150 requests at
    // once all pass, since no check has taken effect before 10 + 30 s.
    void wafRule()
    {
        const ImportedConfig c = importConfiguration(R"({"Name": "PreventDDOS", "Priority": 0,
            "Statement": {"RateBasedStatement": {"Limit": 10, "EvaluationWindowSec": 60, "AggregateKeyType": "IP",
              "ScopeDownStatement": {"ByteMatchStatement": {"SearchString": "/api/", "FieldToMatch": {"UriPath": {}},
                "TextTransformations": [{"Priority": 0, "Type": "LOWERCASE"}], "PositionalConstraint": "STARTS_WITH"}}}},
            "Action": {"Block": {}}})");
        QCOMPARE(c.product, std::string("AWS WAF rate-based rule"));
        QCOMPARE(option(c, "Limit"), QString("10"));
        QCOMPARE(option(c, "EvaluationWindowSec"), QString("60"));
        QCOMPARE(admittedAtOnce(c, 150), 150);
        QVERIFY(mentions(c.notModelled, "ScopeDownStatement"));
        QVERIFY(mentions(c.assumed, "30 seconds"));
        // A burst passes whole (no check has taken effect), but limiting is not off.
        const std::string got = whatYouGet(c);
        QVERIFY2(got.find("limiting is off") == std::string::npos, got.c_str());
        QVERIFY2(got.find("40 s at the earliest") != std::string::npos, got.c_str());
        QVERIFY_THROWS_EXCEPTION(InputError, importConfiguration(R"({"RateBasedStatement": {"Limit": 5}})"));
    }

    // A Cloudflare rule (rulesets API): 5 per 60 s per IP, blocking 600 s: 6 at once, 5 pass.
    void cloudflareRule()
    {
        const ImportedConfig c = importConfiguration(
            "{\"action\": \"block\", \"expression\": \"http.request.uri.path eq \\\"/login\\\"\",\n"
            " \"ratelimit\": {\"characteristics\": [\"cf.colo.id\", \"ip.src\"], \"period\": 60,\n"
            "  \"requests_per_period\": 5, \"mitigation_timeout\": 600}}");
        QCOMPARE(c.product, std::string("Cloudflare rate limiting rule"));
        QCOMPARE(option(c, "mitigation_timeout"), QString("600"));
        QCOMPARE(admittedAtOnce(c, 6), 5);
        QVERIFY(mentions(c.assumed, "ip.src"));
        QVERIFY(mentions(c.notModelled, "/login"));
        QVERIFY(!whatYouGet(c).empty());
    }

    // The README's snippet: slidingWindow(10, "10 s"), cache on by default: 11 at once, 10 pass.
    void upstashSnippet()
    {
        const ImportedConfig c = importConfiguration(
            "import { Ratelimit } from \"@upstash/ratelimit\";\nimport { Redis } from \"@upstash/redis\";\n"
            "const ratelimit = new Ratelimit({\n  redis: Redis.fromEnv(),\n"
            "  limiter: Ratelimit.slidingWindow(10, \"10 s\"),\n  analytics: true,\n});\n");
        QCOMPARE(c.product, std::string("@upstash/ratelimit"));
        QCOMPARE(option(c, "limiter"), QString("slidingWindow"));
        QCOMPARE(option(c, "window"), QString("10 s"));
        QCOMPARE(option(c, "ephemeralCache"), QString("true"));
        QCOMPARE(admittedAtOnce(c, 11), 10);
        const ImportedConfig bucket = importConfiguration(
            "new Ratelimit({ redis, limiter: Ratelimit.tokenBucket(5, '1 m', 20), ephemeralCache: false })");
        QCOMPARE(option(bucket, "maxTokens"), QString("20"));
        QCOMPARE(option(bucket, "ephemeralCache"), QString("false"));
        QCOMPARE(admittedAtOnce(bucket, 25), 20);
        QVERIFY(!whatYouGet(bucket).empty());
        QVERIFY_THROWS_EXCEPTION(InputError, importConfiguration("Ratelimit.slidingWindow(10)"));
        QVERIFY_THROWS_EXCEPTION(InputError, importConfiguration("Ratelimit.fixedWindow(10, \"10 seconds\")"));
    }
};

QTEST_GUILESS_MAIN(TestImportManaged)
#include "tst_import_managed.moc"
