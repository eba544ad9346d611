// import of the managed services' configurations (io/config_import_managed.cpp): an API
// Gateway usage plan (get-usage-plan JSON and CloudFormation), an AWS WAF rate-based statement,
// a Cloudflare rate limiting rule and an Upstash Ratelimit snippet, each into its model with what
// it wrote, what is assumed and what is not modelled; the decisions on a burst at t = 0 are worked
// out by hand from each model's documented rule.
#include "limiters/any_limiter.h"
#include "config_import.h"

#include "engine/layered.h"
#include "limiters/products/product.h"

#include <QTest>

using namespace ratelab;
using namespace ratelab::io;

namespace {

// admittedAtOnce is how many of n requests at t = 0 the imported scenario admits.
int admittedAtOnce(const ImportedConfig& c, int n)
{
    AnyLimiter l = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    int admitted = 0;
    for (int i = 0; i < n; ++i)
        admitted += l.decide(0).allowed ? 1 : 0;
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

bool has(const std::vector<std::string>& lines, const std::string& line)
{
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// reportLine is the report's line that starts with `start`, or "" when none does.
std::string reportLine(const std::string& report, const std::string& start)
{
    for (std::size_t at = 0; at < report.size();) {
        const std::size_t end = std::min(report.find('\n', at), report.size());
        if (report.compare(at, start.size(), start) == 0)
            return report.substr(at, end - at);
        at = end + 1;
    }
    return "";
}

// decisions is the imported model's admissions of requests at `times` (ns), each of `cost`.
std::vector<bool> decisions(const ImportedConfig& c, const std::vector<Nanos>& times, std::int64_t cost = 1)
{
    AnyLimiter l = makeLimiter(c.scenario.algorithms.front(), c.scenario.config);
    std::vector<bool> out;
    for (Nanos t : times)
        out.push_back(l.decide(t, cost).allowed);
    return out;
}

constexpr Nanos kS = kNanosPerSecond;

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

    // A usage plan's per-method throttles (apiStages[].throttle, keyed "RESOURCE/METHOD"): each
    // named with its method and numbers, "/pets/GET" GET /pets 5 a second burst 10, "//POST" the
    // root's POST 1 a second burst 2, the CloudFormation form's ApiStages/Throttle alike. The
    // plan's own throttle (10 a second, burst 20) stays the model: 21 at once, 20 pass.
    void usagePlanMethodThrottles()
    {
        const ImportedConfig c = importConfiguration("{\"id\": \"u1\", \"name\": \"Basic\",\n"
                                                     " \"apiStages\": [{\"apiId\": \"a1\", \"stage\": \"prod\",\n"
                                                     "  \"throttle\": {\"/pets/GET\": {\"burstLimit\": 10, \"rateLimit\": 5.0},\n"
                                                     "   \"//POST\": {\"burstLimit\": 2, \"rateLimit\": 1.0}}}],\n"
                                                     " \"throttle\": {\"burstLimit\": 20, \"rateLimit\": 10.0}}");
        QCOMPARE(admittedAtOnce(c, 21), 20);
        QVERIFY(has(c.notModelled, "apiStages: API a1 stage prod, GET /pets (throttle key /pets/GET): 5 per second, burst 10, "
                                   "a throttle of each API key's requests to that method alone; the scenario models the plan's "
                                   "own throttle for every method"));
        QVERIFY(mentions(c.notModelled, "apiStages: API a1 stage prod, POST / (throttle key //POST): 1 per second, burst 2,"));
        const ImportedConfig cf = importConfiguration("Resources:\n  Plan:\n    Type: AWS::ApiGateway::UsagePlan\n"
                                                      "    Properties:\n      ApiStages:\n      - ApiId: a1\n        Stage: prod\n"
                                                      "        Throttle:\n          /pets/GET:\n            RateLimit: 5\n"
                                                      "            BurstLimit: 10\n      Throttle:\n        RateLimit: 10\n"
                                                      "        BurstLimit: 20\n");
        QVERIFY(mentions(cf.notModelled, "apiStages: API a1 stage prod, GET /pets (throttle key /pets/GET): 5 per second, burst 10,"));
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

    // A usage plan whose quota the rate written spends: 100 per second, burst 200, 5000 a MONTH.
    // At 100 a second 5000 take 5000 / 100 = 50 s; the model refuses every request after them
    // until the next month, which from t = 0 (1970-01-01, a Thursday, in January) starts on
    // 1970-02-01 00:00 UTC, 31 days in: 2,678,400 s.
    void usagePlanQuotaSpent()
    {
        const ImportedConfig c = importConfiguration(R"({"id": "u2", "name": "Monthly",
            "throttle": {"rateLimit": 100, "burstLimit": 200},
            "quota": {"limit": 5000, "period": "MONTH", "offset": 0}})");
        QCOMPARE(option(c, "quota_limit"), QString("5000"));
        // The model: 5000 at the written rate (one every 10 ms from 0) pass, the 5001st at 50 s does
        // not, nor one just before February; one at February's first instant does.
        std::vector<Nanos> times;
        for (int i = 0; i <= 5000; ++i)
            times.push_back(Nanos(i) * 10'000'000);
        times.push_back(2'678'400 * kS - 1);
        times.push_back(2'678'400 * kS);
        const std::vector<bool> d = decisions(c, times);
        QCOMPARE(std::count(d.begin(), d.begin() + 5000, true), 5000);
        QVERIFY(!d[5000]);
        QVERIFY(!d[5001]);
        QVERIFY(d[5002]);
        const std::string got = whatYouGet(c);
        QCOMPARE(reportLine(got, "  rate"), std::string("  rate       100 per second once the burst is spent, until the quota "
                                                          "is spent (you wrote 100 per second)"));
        QCOMPARE(reportLine(got, "  quota"),
                 std::string("  quota      5000 a month (periods on the UTC calendar: months from the 1st, 00:00 UTC)"));
        QCOMPARE(reportLine(got, "First surprise"),
                 std::string("First surprise: at the rate you wrote (100 per second) the quota of 5000 a month is spent in "
                             "50 s; after it every request is refused until the next month starts (the 1st, 00:00 UTC)."));
        // An offset takes from the first period only: 5000 - 1000 = 4000, spent in 40 s.
        const ImportedConfig offset = importConfiguration(
            R"({"throttle": {"rateLimit": 100, "burstLimit": 200}, "quota": {"limit": 5000, "period": "WEEK", "offset": 1000}})");
        const std::string week = whatYouGet(offset);
        QCOMPARE(reportLine(week, "  quota"), std::string("  quota      5000 a week (periods on the UTC calendar: weeks from "
                                                           "Sunday 00:00 UTC), 4000 in the first (offset 1000)"));
        QCOMPARE(reportLine(week, "First surprise"),
                 std::string("First surprise: at the rate you wrote (100 per second) the quota of 4000 in the first week is "
                             "spent in 40 s; after it every request is refused until the next week starts (Sunday, 00:00 UTC)."));
        // 1 per second for a DAY of 100000: 100000 s is more than a day (86400 s), never spent.
        const ImportedConfig roomy = importConfiguration(
            R"({"throttle": {"rateLimit": 1, "burstLimit": 1}, "quota": {"limit": 100000, "period": "DAY"}})");
        QVERIFY(whatYouGet(roomy).find("is spent in") == std::string::npos);
    }

    // A CloudFormation stage with two MethodSettings: every method (/*, *) at 10/s burst 20, and
    // GET /pets (written /~1pets) at 2/s burst 4, which AWS applies to GET /pets instead. The
    // scenario models the default, the stage level (burst 20: 21 at once, 20 pass), and names the
    // other entry with its method, path and numbers.
    void methodSettings()
    {
        const std::string stage = "Resources:\n  Prod:\n    Type: AWS::ApiGateway::Stage\n    Properties:\n"
                                  "      StageName: prod\n      RestApiId: !Ref Api\n      DeploymentId: !Ref Deployment\n"
                                  "      MethodSettings:\n";
        const std::string all = "        - ResourcePath: \"/*\"\n          HttpMethod: \"*\"\n"
                                "          ThrottlingRateLimit: 10\n          ThrottlingBurstLimit: 20\n";
        const std::string pets = "        - ResourcePath: \"/~1pets\"\n          HttpMethod: GET\n"
                                 "          ThrottlingRateLimit: 2\n          ThrottlingBurstLimit: 4\n          MetricsEnabled: true\n";
        const std::string dropped = "MethodSettings GET /pets (ResourcePath /~1pets): 2 per second, burst 4, which AWS applies "
                                    "to GET /pets instead of the stage's default (10 per second, burst 20); the scenario models "
                                    "the default, every other method's";
        for (const std::string& file : {stage + all + pets, stage + pets + all}) { // in either order
            const ImportedConfig c = importConfiguration(QByteArray::fromStdString(file));
            QCOMPARE(c.scenario.algorithms.front(), Algorithm::AwsApiGateway);
            QCOMPARE(option(c, "stage_rate"), QString("10"));
            QCOMPARE(option(c, "stage_burst"), QString("20"));
            QCOMPARE(option(c, "method_rate"), QString("(none)"));
            QCOMPARE(admittedAtOnce(c, 21), 20);
            QVERIFY(c.modelledPlace.empty());
            std::string named = file;
            for (const std::string& n : c.notModelled)
                named += "\nnot modelled: " + n;
            QVERIFY2(has(c.notModelled, dropped), named.c_str());
            QVERIFY(whatYouGet(c).find("MethodSettings * /* 10 per second, burst 20;") != std::string::npos);
        }
        // Only the method's own entry: it is modelled, as the method level, for GET /pets (burst 4).
        const ImportedConfig own = importConfiguration(QByteArray::fromStdString(stage + pets));
        QCOMPARE(option(own, "method_rate"), QString("2"));
        QCOMPARE(option(own, "method_burst"), QString("4"));
        QCOMPARE(own.modelledPlace, std::string("GET /pets (ResourcePath /~1pets)"));
        QCOMPARE(admittedAtOnce(own, 5), 4);
        QVERIFY(own.notModelled.empty());
        QVERIFY(has(own.assumed, "a stage's throttling counts every client's requests together: run the scenario with "
                                 "key=global"));
    }

    // A WAF rule limits although a burst passes: Limit 100 over 300 s. 101 requests at t = 0 all
    // pass; the check at 10 s counts them (101 > 100) and blocks from 10 + 30 = 40 s: a request at
    // 39.999999999 s passes, one at 40 s does not. The rate line says so, not "no limit".
    void wafRateLimits()
    {
        const char* rule = R"({"Name": "per-ip", "Priority": 1, "Action": {"%1": {}},
            "Statement": {"RateBasedStatement": {"Limit": 100, "AggregateKeyType": "IP"}},
            "VisibilityConfig": {"SampledRequestsEnabled": true, "CloudWatchMetricsEnabled": true, "MetricName": "per-ip"}})";
        const ImportedConfig block = importConfiguration(QString(rule).arg("Block").toUtf8());
        std::vector<Nanos> times(101, 0);
        times.push_back(40 * kS - 1);
        times.push_back(40 * kS);
        std::vector<bool> d = decisions(block, times);
        QCOMPARE(std::count(d.begin(), d.begin() + 102, true), 102);
        QVERIFY(!d[102]);
        const std::string got = whatYouGet(block);
        QCOMPARE(reportLine(got, "  rate"),
                 std::string("  rate       at most 100 per 300 s in the long run: a check (every 10 s) that finds more than "
                             "100 in the 300 s before it blocks every request from 30 s later until a check finds 100 or "
                             "fewer; blocked requests count too, so a client that keeps sending over the limit stays blocked "
                             "(you wrote 0.333333 per second (one every 3 s))"));
        QVERIFY(has(block.assumed, "AggregateKeyType IP is one counter per source IP address: the scenario's key=client, one "
                                   "client per address"));

        // Count only counts: the same requests all pass, the one at 40 s too.
        const ImportedConfig count = importConfiguration(QString(rule).arg("Count").toUtf8());
        QCOMPARE(option(count, "action"), QString("Count"));
        d = decisions(count, times);
        QCOMPARE(std::count(d.begin(), d.end(), true), 103);
        const std::string counted = whatYouGet(count);
        QCOMPARE(reportLine(counted, "  rate"), std::string("  rate       no limit: the action is Count, which blocks nothing "
                                                             "(you wrote 0.333333 per second (one every 3 s))"));
        QCOMPARE(reportLine(counted, "First surprise"),
                 std::string("First surprise: the action is Count: WAF counts the requests over the limit and blocks none."));
        // OverrideAction (a rule group reference's) is not the rule's action.
        QCOMPARE(option(importConfiguration(R"({"OverrideAction": {"Count": {}}, "Action": {"Block": {}},
            "Statement": {"RateBasedStatement": {"Limit": 100}}})"), "action"), QString("(none)"));

        // CONSTANT: one counter for every request, not one per client.
        const ImportedConfig constant = importConfiguration(
            R"({"Action": {"Block": {}}, "Statement": {"RateBasedStatement": {"Limit": 100, "AggregateKeyType": "CONSTANT"}}})");
        QVERIFY(has(constant.assumed, "AggregateKeyType CONSTANT is one counter for all the requests the rule sees, whoever "
                                      "sends them: run the scenario with key=global (with key=client each client would get a "
                                      "counter of its own)"));
        QVERIFY(!mentions(constant.assumed, "one counter per"));
    }

    // A Cloudflare ruleset (the rulesets API's JSON) whose rule challenges rather than blocks and
    // counts only requests that reach the origin: both named.
    void cloudflareChallengeOrigin()
    {
        const ImportedConfig c = importConfiguration(
            "{\"result\": {\"name\": \"default\", \"kind\": \"zone\", \"phase\": \"http_ratelimit\",\n"
            " \"rules\": [{\"action\": \"managed_challenge\", \"description\": \"api\",\n"
            "  \"expression\": \"(http.request.uri.path wildcard \\\"/api/*\\\")\",\n"
            "  \"ratelimit\": {\"characteristics\": [\"cf.colo.id\", \"ip.src\"], \"period\": 60,\n"
            "   \"requests_per_period\": 100, \"mitigation_timeout\": 600, \"requests_to_origin\": true}}]}}");
        QCOMPARE(c.product, std::string("Cloudflare rate limiting rule"));
        QCOMPARE(admittedAtOnce(c, 101), 100);
        QVERIFY(has(c.assumed, "the action is managed_challenge, a challenge, not a block: over the limit a visitor is shown "
                               "a challenge page, and one that passes it (a browser, usually) gets through; the model counts "
                               "every challenged request as refused, as a client that cannot solve it sees it"));
        QVERIFY(has(c.notModelled, "requests_to_origin: Cloudflare counts only the requests that reach the origin, not those "
                                   "its cache answers; the scenario counts every request, as if none were cached"));
        const std::string got = whatYouGet(c);
        QVERIFY2(got.find(" action managed_challenge;") != std::string::npos, got.c_str());
        QVERIFY2(got.find(" ratelimit.requests_to_origin true;") != std::string::npos, got.c_str());
    }

    // A ruleset of five rate limiting rules. Cloudflare evaluates them in order; a block or a
    // challenge that acts ends the evaluation, log does not (waf/concepts, "Rule execution order"):
    //  1 /api/* 10 per 60 s per ip.src, block: modelled
    //  2 /api/* 3 per 10 s per ip.src, block: the same requests and counters, asked while 1
    //    admits: a layer after it
    //  3 /login 5 per 60 s per ip.src: another expression, other requests: named
    //  4 enabled false: Cloudflare skips it: named
    //  5 /api/* 100 per 60 s per ip.src, log: refuses nothing: named
    // At once from idle: rule 1 would pass 10, rule 2 passes 3 (a 4th is over its 3): 3 of 4
    // pass, where rule 1 alone passes all 4.
    void cloudflareRulesetEveryRule()
    {
        const auto rule = [](const char* description, const char* path, int n, int period, const char* action,
                             const char* extra) {
            return QString("{\"description\": \"%1\", \"action\": \"%2\", \"expression\": \"(http.request.uri.path "
                           "wildcard \\\"%3\\\")\", %4\"ratelimit\": {\"characteristics\": [\"cf.colo.id\", \"ip.src\"], "
                           "\"period\": %5, \"requests_per_period\": %6, \"mitigation_timeout\": 60}}")
                .arg(description, action, path, extra)
                .arg(period)
                .arg(n);
        };
        const QString rules = rule("api", "/api/*", 10, 60, "block", "") + ", " + rule("api burst", "/api/*", 3, 10, "block", "")
                            + ", " + rule("login", "/login", 5, 60, "block", "") + ", "
                            + rule("old", "/api/*", 1, 60, "block", "\"enabled\": false, ") + ", "
                            + rule("watch", "/api/*", 100, 60, "log", "");
        const ImportedConfig c = importConfiguration(
            ("{\"result\": {\"kind\": \"zone\", \"phase\": \"http_ratelimit\", \"rules\": [" + rules + "]}}").toUtf8());
        QCOMPARE(c.modelledPlace, std::string("rule 1 (api)"));
        QCOMPARE(c.scenario.layers.size(), std::size_t(2));
        LayeredPolicy policy(c.scenario.layers);
        int passed = 0;
        for (int i = 0; i < 4; ++i)
            passed += policy.decide(0).allowed ? 1 : 0;
        QCOMPARE(passed, 3);
        QCOMPARE(admittedAtOnce(c, 4), 4); // rule 1 alone
        QVERIFY(has(c.assumed, "rule 2 (api burst): 3 requests per 10 s per ip.src, action block, expression "
                               "'(http.request.uri.path wildcard \"/api/*\"...': the same requests and counters as "
                               "rule 1 (api), so a layer after it: Cloudflare evaluates it for each request the rules "
                               "before it do not refuse"));
        QVERIFY(mentions(c.notModelled, "rule 3 (login): 5 requests per 60 s per ip.src, action block, expression"));
        QVERIFY(mentions(c.notModelled, "': not modelled: its expression differs from rule 1 (api)'s, so it counts other requests"));
        QVERIFY(mentions(c.notModelled, "rule 4 (old): 1 requests per 60 s per ip.src, action block"));
        QVERIFY(mentions(c.notModelled, "': enabled is false, so Cloudflare does not evaluate it"));
        QVERIFY(mentions(c.notModelled, "': not modelled: its action is log: it refuses nothing"));
        // The report believes the fewest and the slowest of the two: rule 2's 3 at once, no surprise there.
        const std::string got = whatYouGet(c);
        QVERIFY2(got.find("burst      3 at once from idle") != std::string::npos, got.c_str());
        QVERIFY2(got.find("you wrote a burst of 10") == std::string::npos, got.c_str());
    }

    // tokenBucket(5, "1 m", 20) refills 5 at each whole minute from the bucket's first request
    // (upstash.h, from src/lua-scripts/single.ts), never in between: 20 at 0, none at
    // 59.999 s, 5 at 60 s. limit(id, { rate: 2 }) takes 2 a request: 20 / 2 = 10 at once.
    // With the ephemeral cache (the default) a denial at 0 blocks the identifier until the reset
    // it was told, 60 s, that millisecond included; without it the refill shows itself.
    void upstashWholeIntervalsAndRate()
    {
        const ImportedConfig c = importConfiguration(
            "const ratelimit = new Ratelimit({ redis: Redis.fromEnv(), limiter: Ratelimit.tokenBucket(5, \"1 m\", 20) });\n"
            "const { success } = await ratelimit.limit(ip, { rate: 2 });\n");
        QCOMPARE(c.scenario.cost, std::int64_t(2));
        std::vector<Nanos> times(21, 0);
        times.push_back(60 * kS - 1'000'000);
        for (int i = 0; i < 6; ++i)
            times.push_back(60 * kS);
        const std::vector<bool> d = decisions(c, times, 2);
        QCOMPARE(std::count(d.begin(), d.begin() + 21, true), 10);
        const ImportedConfig noCache = importConfiguration(
            "new Ratelimit({ redis, limiter: Ratelimit.tokenBucket(5, '1 m', 20), ephemeralCache: false })");
        const std::vector<bool> e = decisions(noCache, times);
        QCOMPARE(std::count(e.begin(), e.begin() + 21, true), 20);
        QVERIFY(!e[21]);
        QCOMPARE(std::count(e.begin() + 22, e.end(), true), 5);
        const std::string got = whatYouGet(c);
        QCOMPARE(reportLine(got, "  burst"), std::string("  burst      10 at once from idle"));
        QCOMPARE(reportLine(got, "  boundary burst"),
                 std::string("  boundary burst: no window (the bucket refills 5 at each whole interval of 60 s, none in between)"));
        QCOMPARE(reportLine(got, "First surprise"),
                 std::string("First surprise: you wrote a burst of 20, but 10 pass at once (each request costs 2)."));
        QVERIFY(got.find("limit() rate 2;") != std::string::npos);
        QVERIFY(has(c.assumed, "every request costs 2 (limit()'s rate): it takes 2 tokens, so the report's numbers are "
                               "requests of that cost"));
        // The package takes rate 0 as 1 (incrementBy = rate ? Math.max(1, rate) : 1).
        const ImportedConfig zero = importConfiguration(
            "const r = new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(10, '10 s') });\nawait r.limit(id, { rate: 0 });");
        QCOMPARE(zero.scenario.cost, std::int64_t(1));
        QVERIFY(has(zero.assumed, "every request costs 1 (limit()'s rate 0: the package takes at least 1): it adds 1 to the "
                                  "window's count, so the report's numbers are requests of that cost"));
        // A rate the file does not give as a number is named, and costs 1.
        const ImportedConfig named = importConfiguration(
            "const r = new Ratelimit({ redis, limiter: Ratelimit.fixedWindow(10, '10 s') });\nawait r.limit(id, { rate: weight });");
        QCOMPARE(named.scenario.cost, std::int64_t(1));
        QVERIFY(mentions(named.notModelled, "limit()'s rate") && mentions(named.notModelled, "weight"));
    }
};

QTEST_GUILESS_MAIN(TestImportManaged)
#include "tst_import_managed.moc"
