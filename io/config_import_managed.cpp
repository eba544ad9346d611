#include "config_import_managed.h"

#include "limiters/products/product.h"
#include "limiters/products/upstash.h"

#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <cctype>

namespace ratelab::io {

namespace {

using Flat = FlatConfig;

// all returns every value whose path ends with suffix (a list's items).
std::vector<std::string> all(const Flat& flat, const std::string& suffix)
{
    std::vector<std::string> out;
    for (const auto& kv : flat)
        if (findConfigValue(Flat{kv}, suffix))
            out.push_back(kv.second);
    return out;
}

// Builder collects what the file wrote as the model's options.
struct Builder {
    ImportedConfig out;
    std::vector<ProductOption> options;

    void take(const Flat& flat, const std::string& path, const std::string& option)
    {
        if (const auto v = findConfigValue(flat, path)) {
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

ImportedConfig apiGateway(const Flat& flat)
{
    Builder b;
    b.out.product = "Amazon API Gateway usage plan";
    const auto level = [&](const std::string& rate, const std::string& burst, const std::string& name) {
        if (const auto r = findConfigValue(flat, rate)) {
            b.out.wrote.emplace_back(rate, *r);
            b.options.push_back({name + "_rate", *r});
        }
        if (const auto v = findConfigValue(flat, burst)) {
            b.out.wrote.emplace_back(burst, *v);
            b.options.push_back({name + "_burst", wholeNumber(*v)});
        }
    };
    level("throttle.rateLimit", "throttle.burstLimit", "plan");
    level("MethodSettings.ThrottlingRateLimit", "MethodSettings.ThrottlingBurstLimit", "stage");
    level("defaultRouteSettings.throttlingRateLimit", "defaultRouteSettings.throttlingBurstLimit", "stage");
    if (const auto limit = findConfigValue(flat, "quota.limit")) {
        b.out.wrote.emplace_back("quota.limit", *limit);
        b.options.push_back({"quota_limit", wholeNumber(*limit)});
        const std::string period = findConfigValue(flat, "quota.period").value_or("DAY");
        b.out.wrote.emplace_back("quota.period", period);
        b.options.push_back({"quota_period", period});
        if (const auto offset = findConfigValue(flat, "quota.offset")) {
            b.out.wrote.emplace_back("quota.offset", *offset);
            b.options.push_back({"quota_offset", wholeNumber(*offset)});
        }
    }
    b.out.assumed.push_back("the account's own throttle in the Region (10,000 requests per second, burst 5,000) applies "
                            "too, as AWS documents");
    b.out.assumed.push_back("quota periods start on the UTC calendar (a day at midnight, a week on Sunday, a month on the "
                            "1st) and a throttled request counts against no quota");
    if (!all(flat, "apiStages.throttle").empty() || findConfigValue(flat, "apiStages.apiId"))
        b.out.notModelled.push_back("the usage plan's API stages and per-method throttles (apiStages): the plan's own "
                                    "throttle is modelled for every method");
    b.out.notModelled.push_back("which API key a request carries: run the scenario with one client per key");
    return b.done(Algorithm::AwsApiGateway);
}

ImportedConfig waf(const Flat& flat)
{
    Builder b;
    b.out.product = "AWS WAF rate-based rule";
    b.take(flat, "RateBasedStatement.Limit", "Limit");
    b.take(flat, "RateBasedStatement.EvaluationWindowSec", "EvaluationWindowSec");
    if (!findConfigValue(flat, "RateBasedStatement.EvaluationWindowSec"))
        b.out.assumed.push_back("no EvaluationWindowSec: AWS's default, 300 seconds");
    const std::string key = findConfigValue(flat, "RateBasedStatement.AggregateKeyType").value_or("IP");
    b.out.wrote.emplace_back("RateBasedStatement.AggregateKeyType", key);
    b.out.assumed.push_back("the rate is checked every 10 seconds and a verdict takes effect 30 seconds later (AWS: checks "
                            "\"about every 10 seconds\", a delay \"usually below 30 seconds\"); product options "
                            "rate_check_interval and detection_delay change them");
    b.out.assumed.push_back("AggregateKeyType " + key + " is the scenario's key: one counter per client (CONSTANT: run "
                            "with key=global)");
    if (findConfigValue(flat, "RateBasedStatement.ScopeDownStatement") || std::any_of(flat.begin(), flat.end(), [](const auto& kv) {
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
    if (const auto e = findConfigValue(flat, "expression"); e && *e != "true")
        b.out.notModelled.push_back("the expression " + ratelab::quoted(*e) + ": every request is taken to match it");
    if (findConfigValue(flat, "ratelimit.counting_expression"))
        b.out.notModelled.push_back("the counting_expression: every request that matches is counted");
    return b.done(Algorithm::CloudflareRate);
}

// upstash reads `Ratelimit.slidingWindow(10, "10 s")` (or fixedWindow, tokenBucket,
// cachedFixedWindow) and `ephemeralCache: false` from a TypeScript/JavaScript snippet.
std::optional<ImportedConfig> upstash(const QString& text)
{
    static const QRegularExpression call(
        R"(Ratelimit\s*\.\s*(fixedWindow|slidingWindow|tokenBucket|cachedFixedWindow)\s*\(([^()]*)\))");
    const QRegularExpressionMatch m = call.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    Builder b;
    b.out.product = "@upstash/ratelimit";
    const std::string kind = m.captured(1).toStdString();
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
    b.out.assumed.push_back("one process and one Redis (a Ratelimit, not a MultiRegionRatelimit); a request's `rate` is its "
                            "cost");
    return b.done(Algorithm::UpstashRatelimit);
}

} // namespace

std::optional<ImportedConfig> importManaged(const QByteArray& text)
{
    if (auto u = upstash(QString::fromUtf8(text)))
        return u;
    if (!text.trimmed().startsWith('{') && !text.contains("AWS::ApiGateway") && !text.contains("RateBasedStatement"))
        return std::nullopt; // the managed services' configurations here are JSON or CloudFormation
    Flat flat;
    try {
        flat = flattenConfig(text);
    } catch (const InputError&) {
        return std::nullopt; // not JSON or YAML: importConfiguration says what it expected
    }
    if (findConfigValue(flat, "RateBasedStatement.Limit"))
        return waf(flat);
    if (findConfigValue(flat, "ratelimit.requests_per_period") || findConfigValue(flat, "ratelimit.period"))
        return cloudflare(flat);
    if (findConfigValue(flat, "throttle.rateLimit") || findConfigValue(flat, "throttle.burstLimit") || findConfigValue(flat, "quota.limit")
        || findConfigValue(flat, "MethodSettings.ThrottlingRateLimit"))
        return apiGateway(flat);
    return std::nullopt;
}

} // namespace ratelab::io
