#include "config_import_managed.h"
#include "config_dry_run_routes.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"
#include "limiters/products/upstash.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <cctype>

namespace ratelab::io {

namespace {

using Flat = FlatConfig;

// managedValue finds a setting as the managed services' files spell it (keyMatchOf).
std::optional<std::string> managedValue(const Flat& flat, const std::string& suffix)
{
    return findConfigValue(flat, suffix, keyMatchOf(ConfigProduct::ApiGateway));
}

const QRegularExpression& upstashCall()
{
    static const QRegularExpression call(
        R"(Ratelimit\s*\.\s*(fixedWindow|slidingWindow|tokenBucket|cachedFixedWindow)\s*\(([^()]*)\))");
    return call;
}

// all returns every value whose path ends with suffix (a list's items).
std::vector<std::string> all(const Flat& flat, const std::string& suffix)
{
    std::vector<std::string> out;
    for (const auto& kv : flat)
        if (managedValue(Flat{kv}, suffix))
            out.push_back(kv.second);
    return out;
}

// Builder collects what the file wrote as the model's options.
struct Builder {
    ImportedConfig out;
    std::vector<ProductOption> options;

    void take(const Flat& flat, const std::string& path, const std::string& option)
    {
        if (const auto v = managedValue(flat, path)) {
            out.wrote.emplace_back(path, *v);
            options.push_back({option, *v});
        }
    }
    ImportedConfig done(Algorithm a)
    {
        out.scenario.algorithms = {a};
        out.scenario.config = LimiterConfig{}.withProductOptions(std::move(options));
        checkProductOptions(out.scenario.config, out.scenario.algorithms); // the model refuses bad values
        return std::move(out);
    }
};

// wholeNumber writes a JSON number the way the model reads it: "10.0" is 10.
std::string wholeNumber(const std::string& v)
{
    const std::size_t dot = v.find('.');
    if (dot != std::string::npos && v.find_first_not_of('0', dot + 1) == std::string::npos)
        return v.substr(0, dot);
    return v;
}

// MethodSetting is one entry of a stage's MethodSettings (CloudFormation AWS::ApiGateway::Stage).
struct MethodSetting {
    std::string path, method;
    std::optional<std::string> rate, burst;
    bool stageDefault() const { return path == "/*" && method == "*"; }
    // request names the method as a request meets it. CloudFormation's MethodSetting.ResourcePath
    // writes a path's slashes as ~1 after an initial slash: /~1pets is /pets, / alone the root
    // (and ~0 a tilde, as in the JSON Pointer of the stage's patch paths). "/*" is every path.
    std::string request() const
    {
        if (path == "/*" || !path.starts_with('/'))
            return method + " " + path;
        std::string p;
        for (std::size_t i = 1; i < path.size(); ++i) {
            if (path[i] == '~' && i + 1 < path.size() && (path[i + 1] == '1' || path[i + 1] == '0')) {
                p += path[++i] == '1' ? '/' : '~';
                continue;
            }
            p += path[i];
        }
        return method + " " + (p.empty() ? "/" : p);
    }
    // where is request() with the path as written when it differs.
    std::string where() const
    {
        const std::string r = request();
        return r + (r == method + " " + path ? "" : " (ResourcePath " + path + ")");
    }
};

// methodSettings reads the MethodSettings list's entries in file order. The flattened file holds
// list items without an index, so an entry ends where a key it already has comes again.
std::vector<MethodSetting> methodSettings(const Flat& flat)
{
    std::vector<MethodSetting> out;
    std::vector<std::string> seen;
    for (const auto& [path, value] : flat) {
        const std::string p = lowerAscii(path);
        const std::size_t at = p.rfind("methodsettings.");
        if (at == std::string::npos || (at > 0 && p[at - 1] != '.'))
            continue;
        const std::string key = p.substr(at + 15);
        if (out.empty() || std::find(seen.begin(), seen.end(), key) != seen.end()) {
            out.emplace_back();
            seen.clear();
        }
        seen.push_back(key);
        MethodSetting& m = out.back();
        if (key == "resourcepath")
            m.path = value;
        else if (key == "httpmethod")
            m.method = value;
        else if (key == "throttlingratelimit")
            m.rate = value;
        else if (key == "throttlingburstlimit")
            m.burst = value;
    }
    return out;
}

// stageThrottles words each per-method throttle of a usage plan's API stages: apiStages[].throttle
// in get-usage-plan's JSON, ApiStages[].Throttle in CloudFormation, a map from "RESOURCE/METHOD"
// ("/pets/GET", the path of update-usage-plan's /apiStages/API:STAGE/throttle/RESOURCE/METHOD
// patches) to a ThrottleSettings (the API Gateway API reference, ApiStage): one line each.
std::vector<std::string> stageThrottles(const QJsonValue& tree)
{
    std::vector<std::string> out;
    const auto field = [](const QJsonObject& o, const char* name) -> QJsonValue {
        for (auto it = o.begin(); it != o.end(); ++it)
            if (it.key().compare(QLatin1String(name), Qt::CaseInsensitive) == 0)
                return it.value();
        return QJsonValue();
    };
    const auto visit = [&](const auto& self, const QJsonValue& v) -> void {
        if (v.isArray())
            for (const QJsonValue& x : v.toArray())
                self(self, x);
        if (!v.isObject())
            return;
        const QJsonObject o = v.toObject();
        for (const QJsonValue& stage : field(o, "apiStages").toArray()) {
            const QJsonObject st = stage.toObject();
            const QJsonObject throttle = field(st, "throttle").toObject();
            for (auto it = throttle.begin(); it != throttle.end(); ++it) {
                const QString key = it.key();
                const qsizetype slash = key.lastIndexOf('/');
                const QString path = slash <= 0 ? QString("/") : key.left(slash), method = key.mid(slash + 1);
                const QJsonObject t = it.value().toObject();
                const std::string rate = treeText(field(t, "rateLimit")), burst = treeText(field(t, "burstLimit"));
                out.push_back("apiStages: API " + treeText(field(st, "apiId")) + " stage " + treeText(field(st, "stage")) + ", "
                              + method.toStdString() + " " + path.toStdString() + " (throttle key " + key.toStdString() + "): "
                              + (rate.empty() ? std::string("no rate") : wholeNumber(rate) + " per second")
                              + (burst.empty() ? std::string(", no burst") : ", burst " + wholeNumber(burst))
                              + ", a throttle of each API key's requests to that method alone; the scenario models the "
                                "plan's own throttle for every method");
            }
        }
        for (const QJsonValue& x : o)
            self(self, x);
    };
    visit(visit, tree);
    return out;
}

// readThrottle reads one level's rate and burst (plan, stage) as its options.
void readThrottle(Builder& b, const Flat& flat, const std::string& rate, const std::string& burst, const std::string& name)
{
    if (const auto r = managedValue(flat, rate)) {
        b.out.wrote.emplace_back(rate, *r);
        b.options.push_back({name + "_rate", *r});
    }
    if (const auto v = managedValue(flat, burst)) {
        b.out.wrote.emplace_back(burst, *v);
        b.options.push_back({name + "_burst", wholeNumber(*v)});
    }
}

// throttleNumbers words a MethodSettings entry's rate and burst.
std::string throttleNumbers(const MethodSetting& m)
{
    return (m.rate ? wholeNumber(*m.rate) + " per second" : std::string("no rate"))
         + (m.burst ? ", burst " + wholeNumber(*m.burst) : std::string(", no burst"));
}

// readMethodSettings reads a stage's MethodSettings: the entry for every method (ResourcePath /*,
// HttpMethod *) is the stage's default, and a method's own entry overrides it for that method
// (the API Gateway Developer Guide, "How throttling limit settings are applied"). A scenario is
// one set of requests, so one entry is modelled: the default, else the first with a throttle;
// each other is named.
void readMethodSettings(Builder& b, const Flat& flat)
{
    std::vector<MethodSetting> settings = methodSettings(flat);
    std::erase_if(settings, [](const MethodSetting& m) { return !m.rate && !m.burst; });
    const auto modelled = std::find_if(settings.begin(), settings.end(), [](const MethodSetting& m) { return m.stageDefault(); });
    const MethodSetting* chosen = modelled != settings.end() ? &*modelled : settings.empty() ? nullptr : &settings.front();
    if (!chosen)
        return;
    const std::string level = chosen->stageDefault() ? "stage" : "method";
    b.out.wrote.emplace_back("MethodSettings " + chosen->where(), throttleNumbers(*chosen));
    if (chosen->rate)
        b.options.push_back({level + "_rate", *chosen->rate});
    if (chosen->burst)
        b.options.push_back({level + "_burst", wholeNumber(*chosen->burst)});
    if (!chosen->stageDefault())
        b.out.modelledPlace = chosen->where();
    for (const MethodSetting& m : settings)
        if (&m != chosen)
            b.out.notModelled.push_back(
                "MethodSettings " + m.where() + ": " + throttleNumbers(m) + ", which AWS applies to " + m.request()
                + (chosen->stageDefault() ? " instead of the stage's default (" + throttleNumbers(*chosen)
                                                + "); the scenario models the default, every other method's"
                                          : "; the scenario models " + chosen->request() + "'s"));
}

void readQuota(Builder& b, const Flat& flat)
{
    if (const auto limit = managedValue(flat, "quota.limit")) {
        b.out.wrote.emplace_back("quota.limit", *limit);
        b.options.push_back({"quota_limit", wholeNumber(*limit)});
        const std::string period = managedValue(flat, "quota.period").value_or("DAY");
        b.out.wrote.emplace_back("quota.period", period);
        b.options.push_back({"quota_period", period});
        if (const auto offset = managedValue(flat, "quota.offset")) {
            b.out.wrote.emplace_back("quota.offset", *offset);
            b.options.push_back({"quota_offset", wholeNumber(*offset)});
        }
    }
}

// noteGatewayLimits says what else limits the requests (the account's throttle, the quota's
// calendar) and what the scenario leaves out (the API stages, the API keys).
void noteGatewayLimits(Builder& b, const Flat& flat, const QJsonValue& tree, bool plan)
{
    b.out.assumed.push_back("the account's own throttle in the Region (10,000 requests per second, burst 5,000) applies "
                            "too, as AWS documents");
    if (plan)
        b.out.assumed.push_back("quota periods start on the UTC calendar (a day at midnight, a week on Sunday, a month on the "
                                "1st) and a throttled request counts against no quota");
    else
        b.out.assumed.push_back("a stage's throttling counts every client's requests together: run the scenario with "
                                "key=global");
    if (!all(flat, "apiStages.throttle").empty() || managedValue(flat, "apiStages.apiId"))
        b.out.notModelled.push_back("the usage plan's API stages (apiStages): which API and stage a request reaches is "
                                    "not in the scenario, the plan's own throttle is modelled for every method");
    for (std::string& t : stageThrottles(tree))
        b.out.notModelled.push_back(std::move(t));
    if (plan)
        b.out.notModelled.push_back("which API key a request carries: run the scenario with one client per key");
}

ImportedConfig apiGateway(const Flat& flat, const QJsonValue& tree)
{
    Builder b;
    b.out.product = "Amazon API Gateway usage plan";
    readThrottle(b, flat, "throttle.rateLimit", "throttle.burstLimit", "plan");
    readMethodSettings(b, flat);
    readThrottle(b, flat, "defaultRouteSettings.throttlingRateLimit", "defaultRouteSettings.throttlingBurstLimit", "stage");
    const bool plan = managedValue(flat, "throttle.rateLimit") || managedValue(flat, "throttle.burstLimit")
                   || managedValue(flat, "quota.limit");
    if (!plan)
        b.out.product = "Amazon API Gateway stage"; // a stage's throttling, no usage plan
    readQuota(b, flat);
    noteGatewayLimits(b, flat, tree, plan);
    return b.done(Algorithm::AwsApiGateway);
}

// wafAction reads the rule's Action ({"Block": {}}, {"Count": {}}, ...) from the text itself: its
// value is an empty object, which the flattened file does not hold. OverrideAction (a rule
// group's) is not the rule's action.
std::string wafAction(const QString& text)
{
    static const QRegularExpression action(R"((?<![A-Za-z])Action"?\s*:\s*\{?\s*"?(Allow|Block|Count|Captcha|Challenge)\b)");
    const QRegularExpressionMatch m = action.match(text);
    return m.hasMatch() ? m.captured(1).toStdString() : "";
}

ImportedConfig waf(const Flat& flat, const QString& text)
{
    Builder b;
    b.out.product = "AWS WAF rate-based rule";
    b.take(flat, "RateBasedStatement.Limit", "Limit");
    b.take(flat, "RateBasedStatement.EvaluationWindowSec", "EvaluationWindowSec");
    if (!managedValue(flat, "RateBasedStatement.EvaluationWindowSec"))
        b.out.assumed.push_back("no EvaluationWindowSec: AWS's default, 300 seconds");
    const std::string action = wafAction(text);
    b.out.wrote.emplace_back("Action", action.empty() ? "(not found: Block assumed)" : action);
    // AWS WAF Developer Guide, waf-rule-action: Count "counts the request but doesn't determine
    // whether to allow it or block it"; CAPTCHA and Challenge answer a request without a valid
    // token with a puzzle or a silent challenge instead of passing it on.
    if (action == "Count") {
        b.options.push_back({"action", "Count"});
        b.out.assumed.push_back("the action is Count: WAF counts the requests and labels them, and blocks none; the model "
                                "admits every request (product option action=Block shows what blocking would do)");
    } else if (action == "Captcha" || action == "Challenge") {
        b.out.assumed.push_back("the action is " + action + ": over the limit a request without a valid token gets "
                                + (action == "Captcha" ? std::string("a CAPTCHA puzzle (HTTP 405)") : "a silent browser challenge (HTTP 202)")
                                + " instead of reaching the origin; modelled as Block, so a client that solves it (a browser "
                                  "does) is counted as refused");
    } else if (action == "Allow") {
        b.options.push_back({"action", "Count"});
        b.out.assumed.push_back("the action is Allow: over the limit WAF allows the request and stops evaluating the web "
                                "ACL's rules; the model admits every request, as for Count");
    }
    const std::string key = managedValue(flat, "RateBasedStatement.AggregateKeyType").value_or("IP");
    b.out.wrote.emplace_back("RateBasedStatement.AggregateKeyType", key);
    b.out.assumed.push_back("the rate is checked every 10 seconds and a verdict takes effect 30 seconds later (AWS: checks "
                            "\"about every 10 seconds\", a delay \"usually below 30 seconds\"); product options "
                            "rate_check_interval and detection_delay change them");
    // WAFV2 API reference, RateBasedStatement.AggregateKeyType: CONSTANT counts and limits "the
    // requests that match the rate-based rule's scope-down statement" together, without keys.
    if (key == "CONSTANT")
        b.out.assumed.push_back("AggregateKeyType CONSTANT is one counter for all the requests the rule sees, whoever sends "
                                "them: run the scenario with key=global (with key=client each client would get a counter of "
                                "its own)");
    else if (key == "IP")
        b.out.assumed.push_back("AggregateKeyType IP is one counter per source IP address: the scenario's key=client, one "
                                "client per address");
    else
        b.out.assumed.push_back("AggregateKeyType " + key + " is one counter per value of its key"
                                + (key == "FORWARDED_IP" ? std::string(" (the IP in the forwarded-IP header)")
                                                         : std::string(" (CUSTOM_KEYS: per combination of the keys)"))
                                + ": the scenario's key=client, one client per value");
    if (managedValue(flat, "RateBasedStatement.ScopeDownStatement") || std::any_of(flat.begin(), flat.end(), [](const auto& kv) {
            return lowerAscii(kv.first).find("scopedownstatement") != std::string::npos;
        }))
        b.out.notModelled.push_back("the ScopeDownStatement: every request of the scenario is taken to match it");
    return b.done(Algorithm::AwsWafRate);
}

ImportedConfig cloudflare(const Flat& flat)
{
    Builder b;
    b.out.product = "Cloudflare rate limiting rule";
    b.take(flat, "ratelimit.period", "period");
    b.take(flat, "ratelimit.requests_per_period", "requests_per_period");
    b.take(flat, "ratelimit.mitigation_timeout", "mitigation_timeout");
    std::string by;
    for (const std::string& c : all(flat, "ratelimit.characteristics"))
        if (c != "cf.colo.id")
            by += (by.empty() ? "" : " and ") + c;
    b.out.wrote.emplace_back("ratelimit.characteristics", by.empty() ? "cf.colo.id" : by);
    b.out.assumed.push_back("counted as Cloudflare published (2017): the previous period weighted by its overlap plus this "
                            "one; product option counting=fixed counts this period only");
    b.out.assumed.push_back("one data center (cf.colo.id), and " + (by.empty() ? std::string("no other characteristic: run "
                            "with key=global") : by + " as the scenario's key: one counter per client"));
    // The rule's action (rulesets API: block, managed_challenge, js_challenge, challenge, log):
    // the model refuses while over the limit, which is what block does and no other action.
    const std::string action = managedValue(flat, "action").value_or("");
    b.out.wrote.emplace_back("action", action.empty() ? "(not given: block assumed)" : action);
    if (action == "managed_challenge" || action == "js_challenge" || action == "challenge")
        b.out.assumed.push_back("the action is " + action + ", a challenge, not a block: over the limit a visitor is shown "
                                "a challenge page, and one that passes it (a browser, usually) gets through; the model "
                                "counts every challenged request as refused, as a client that cannot solve it sees it");
    else if (action == "log")
        b.out.assumed.push_back("the action is log: Cloudflare only logs the requests over the limit and refuses none; the "
                                "model shows which it would refuse");
    else if (!action.empty() && action != "block")
        b.out.assumed.push_back("the action is " + action + ": modelled as block");
    // requests_to_origin: "only requests that reach the origin" count (parameters/), so a cached
    // response counts nothing.
    if (const auto origin = managedValue(flat, "ratelimit.requests_to_origin")) {
        b.out.wrote.emplace_back("ratelimit.requests_to_origin", *origin);
        if (*origin == "true")
            b.out.notModelled.push_back("requests_to_origin: Cloudflare counts only the requests that reach the origin, not "
                                        "those its cache answers; the scenario counts every request, as if none were "
                                        "cached");
    }
    if (const auto e = managedValue(flat, "expression"); e && *e != "true")
        b.out.notModelled.push_back("the expression " + ratelab::quoted(*e) + ": every request is taken to match it");
    if (managedValue(flat, "ratelimit.counting_expression"))
        b.out.notModelled.push_back("the counting_expression: every request that matches is counted");
    return b.done(Algorithm::CloudflareRate);
}

// ratelimitRules returns the objects of a file that hold a `ratelimit` object: a rulesets API
// answer's rate limiting rules, or the one rule, in file order.
std::vector<const ConfigNode*> ratelimitRules(const ConfigNode& tree)
{
    std::vector<const ConfigNode*> out;
    const auto visit = [&](const auto& self, const ConfigNode& n) -> void {
        if (const ConfigNode* r = n.find("ratelimit"); r && r->kind == ConfigNode::Kind::Map) {
            out.push_back(&n);
            return;
        }
        for (const auto& [k, v] : n.items)
            self(self, v);
    };
    visit(visit, tree);
    return out;
}

// ruleName names a rule by its place and description: "rule 2 (api)".
std::string ruleName(const QJsonObject& rule, std::size_t index)
{
    const std::string description = treeText(rule.value("description"));
    return "rule " + std::to_string(index + 1) + (description.empty() ? "" : " (" + description + ")");
}

// ruleText words a rule as written: "rule 2 (api): 10 requests per 10 s per ip.src, action block".
std::string ruleText(const QJsonObject& rule, std::size_t index)
{
    const QJsonObject r = rule.value("ratelimit").toObject();
    const auto text = [](const QJsonValue& v) { return treeText(v); };
    std::string by;
    for (const QJsonValue& c : r.value("characteristics").toArray())
        if (c.toString() != "cf.colo.id")
            by += (by.empty() ? "" : " and ") + c.toString().toStdString();
    const std::string expression = text(rule.value("expression"));
    return ruleName(rule, index) + ": " + text(r.value("requests_per_period")) + " requests per " + text(r.value("period")) + " s per "
         + (by.empty() ? std::string("data center") : by) + ", action "
         + (rule.contains("action") ? text(rule.value("action")) : std::string("block"))
         + (expression.empty() || expression == "true" ? std::string() : ", expression " + ratelab::quoted(expression));
}

// laterRuleGap says why a later rule is not a layer after the first ("" when it is one): a layer
// meets the same requests with the same counters, after a first rule whose refusal ends the
// evaluation, and refuses in turn.
std::string laterRuleGap(const QJsonObject& first, const std::string& firstName, const QJsonObject& rule)
{
    const auto action = [](const QJsonObject& r) { return r.value("action").toString("block"); };
    const QJsonObject a = first.value("ratelimit").toObject(), b = rule.value("ratelimit").toObject();
    if (action(first) == "log")
        return firstName + "'s action is log, which ends no evaluation: this rule counts and refuses on its own, and the "
               "scenario shows only what " + firstName + " would refuse";
    if (action(rule) == "log")
        return "its action is log: it refuses nothing";
    if (rule.value("expression") != first.value("expression"))
        return "its expression differs from " + firstName + "'s, so it counts other requests";
    for (const char* k : {"characteristics", "counting_expression", "requests_to_origin"})
        if (a.value(k) != b.value(k))
            return std::string("its ") + k + " differs from " + firstName + "'s, so it keeps other counters";
    return "";
}

// cloudflareRuleset models a ruleset's rate limiting rules. Cloudflare evaluates the rules in
// order, and a rule with a terminating action (block, the challenges) that acts ends the
// evaluation, while log does not (Cloudflare's WAF docs, "Rule execution order" in waf/concepts,
// and ruleset-engine/rules-language/actions). So the first enabled rule is modelled, and a later
// rule with the same expression and counters is a layer after it (asked only while the ones
// before admit, as layers are); any other rule is named with what keeps it out.
ImportedConfig cloudflareRuleset(const ConfigNode& tree, const Flat& flat)
{
    const std::vector<const ConfigNode*> nodes = ratelimitRules(tree);
    if (nodes.size() <= 1)
        return cloudflare(flat);
    std::vector<QJsonObject> rules;
    for (const ConfigNode* n : nodes)
        rules.push_back(jsonOf(*n).toObject());
    const auto enabled = [](const QJsonObject& r) { return treeText(r.value("enabled")) != "false"; };
    const auto first = std::find_if(rules.begin(), rules.end(), enabled);
    if (first == rules.end())
        throw InputError("Cloudflare: every rate limiting rule of the ruleset is disabled (enabled: false): it limits nothing");
    // A rule's own settings, as dotted paths under it: the tree's, not the file read again.
    const auto flatOf = [&](const QJsonObject& r) { return flattenTree(*nodes[std::size_t(&r - rules.data())]); };
    ImportedConfig out = cloudflare(flatOf(*first));
    std::vector<Layer> layers{{Algorithm::CloudflareRate, out.scenario.config}};
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string rule = ruleText(rules[i], i);
        if (&rules[i] == &*first)
            out.modelledPlace = ruleName(rules[i], i);
        else if (!enabled(rules[i]))
            out.notModelled.push_back(rule + ": enabled is false, so Cloudflare does not evaluate it");
        else if (const std::string gap = laterRuleGap(*first, out.modelledPlace, rules[i]); !gap.empty())
            out.notModelled.push_back(rule + ": not modelled: " + gap);
        else {
            layers.push_back({Algorithm::CloudflareRate, cloudflare(flatOf(rules[i])).scenario.config});
            out.wrote.emplace_back(ruleName(rules[i], i), rule.substr(ruleName(rules[i], i).size() + 2));
            out.assumed.push_back(rule + ": the same requests and counters as " + out.modelledPlace + ", so a layer "
                                  "after it: Cloudflare evaluates it for each request the rules before it do not refuse");
        }
    }
    if (layers.size() > 1)
        out.scenario.layers = std::move(layers);
    return out;
}

// upstashLimiter reads the Ratelimit.KIND(...) call's arguments as the limiter's options.
void upstashLimiter(Builder& b, const QRegularExpressionMatch& m, const std::string& kind)
{
    QStringList args = m.captured(2).split(',');
    for (QString& a : args) {
        a = a.trimmed();
        if (a.size() >= 2 && (a.front() == '"' || a.front() == '\'' || a.front() == '`') && a.back() == a.front())
            a = a.mid(1, a.size() - 2);
    }
    b.out.wrote.emplace_back("limiter", m.captured(0).toStdString());
    const std::size_t want = kind == "tokenBucket" ? 3 : 2;
    if (std::size_t(args.size()) != want)
        throw InputError("@upstash/ratelimit: Ratelimit." + kind + " takes " + std::to_string(want) + " arguments (got "
                         + ratelab::quoted(m.captured(0).toStdString()) + ")");
    if (kind == "tokenBucket") {
        b.options = {{"limiter", "tokenBucket"},
                     {"refillRate", args[0].toStdString()},
                     {"interval", args[1].toStdString()},
                     {"maxTokens", args[2].toStdString()}};
    } else {
        b.options = {{"limiter", kind == "slidingWindow" ? "slidingWindow" : "fixedWindow"},
                     {"tokens", args[0].toStdString()},
                     {"window", args[1].toStdString()}};
    }
}

// upstashCost reads limit(identifier, { rate: k }), which takes k tokens (or counts k) per
// request: src/single.ts (upstash/ratelimit-js e00d2224) hands each script
// `incrementBy = rate ? Math.max(1, rate) : 1`. That is the scenario's cost; a rate of 0 is 1.
void upstashCost(Builder& b, const QString& text, const std::string& kind)
{
    static const QRegularExpression limitCall(R"(\.limit\s*\(\s*[^,()]+,\s*\{([^{}]*)\})");
    static const QRegularExpression rateOption(R"((?<![\w$])rate\s*:\s*([^,\s}]+))");
    const QRegularExpressionMatch call = limitCall.match(text);
    if (!call.hasMatch())
        return;
    const QRegularExpressionMatch r = rateOption.match(call.captured(1));
    if (!r.hasMatch())
        return;
    const std::string rate = r.captured(1).toStdString();
    b.out.wrote.emplace_back("limit() rate", rate);
    try {
        b.out.scenario.cost = std::max<std::int64_t>(1, parseIntegerIn(rate, 0, kMaxCost));
        const std::string k = std::to_string(b.out.scenario.cost);
        b.out.assumed.push_back("every request costs " + k + " (limit()'s rate"
                                + (k == rate ? "" : " " + rate + ": the package takes at least 1") + "): it "
                                + (kind == "tokenBucket" ? "takes " + k + " tokens" : "adds " + k + " to the window's count")
                                + ", so the report's numbers are requests of that cost");
    } catch (const InputError&) {
        b.out.notModelled.push_back("limit()'s rate " + ratelab::quoted(rate) + ", not a whole number in the file: "
                                    "every request costs 1 here (--cost sets another)");
    }
}

// upstash reads `Ratelimit.slidingWindow(10, "10 s")` (or fixedWindow, tokenBucket,
// cachedFixedWindow) and `ephemeralCache: false` from a TypeScript/JavaScript snippet.
std::optional<ImportedConfig> upstash(const QString& text)
{
    const QRegularExpressionMatch m = upstashCall().match(text);
    if (!m.hasMatch())
        return std::nullopt;
    Builder b;
    b.out.product = "@upstash/ratelimit";
    const std::string kind = m.captured(1).toStdString();
    upstashLimiter(b, m, kind);
    static const QRegularExpression noCache(R"(ephemeralCache\s*:\s*false)");
    const bool cache = kind != "cachedFixedWindow" && !text.contains(noCache);
    b.options.push_back({"ephemeralCache", cache ? "true" : "false"});
    b.out.wrote.emplace_back("ephemeralCache", text.contains(noCache) ? "false" : "(not given: on)");
    if (kind == "cachedFixedWindow")
        b.out.assumed.push_back("cachedFixedWindow decides as fixedWindow without the ephemeral cache on one process (its "
                                "local count only runs ahead of Redis on several)");
    else if (cache)
        b.out.assumed.push_back("the ephemeral cache is on (the package's default): a denied identifier stays denied until "
                                "the reset it was told, that millisecond included, without asking Redis");
    b.out.assumed.push_back("one process and one Redis (a Ratelimit, not a MultiRegionRatelimit)");
    upstashCost(b, text, kind);
    return b.done(Algorithm::UpstashRatelimit);
}

} // namespace

bool isManaged(ConfigProduct p)
{
    return p == ConfigProduct::Upstash || p == ConfigProduct::AwsWaf || p == ConfigProduct::Cloudflare
        || p == ConfigProduct::ApiGateway;
}

bool isUpstashSnippet(const QByteArray& text)
{
    return upstashCall().match(QString::fromUtf8(text)).hasMatch();
}

ImportedConfig importManaged(const ConfigDocument& doc)
{
    switch (doc.product) {
    case ConfigProduct::Upstash: return *upstash(QString::fromUtf8(doc.text));
    case ConfigProduct::AwsWaf: return waf(doc.flat, QString::fromUtf8(doc.text));
    case ConfigProduct::Cloudflare: return cloudflareRuleset(doc.tree.root, doc.flat);
    case ConfigProduct::ApiGateway: return apiGateway(doc.flat, doc.json);
    default: break;
    }
    throw InputError("not a managed service's configuration");
}

} // namespace ratelab::io
