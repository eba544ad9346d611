#include "config_import.h"

#include "config_import_managed.h"
#include "config_import_nginx.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "limiters/products/product.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace ratelab::io {

std::string lowerAscii(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

namespace {

using Flat = FlatConfig;

bool endsWithPath(const std::string& path, const std::string& suffix)
{
    return pathEndsWith(path, suffix, KeyMatch::Exact); // Kong's, Envoy's and JavaScript's keys are exact
}


// product evaluates "15 * 60 * 1000" as express-rate-limit options are often written.
std::string product(const std::string& text)
{
    if (text.find('*') == std::string::npos)
        return text;
    Int128 total = 1;
    for (const QString& part : QString::fromStdString(text).split('*')) {
        total *= parseIntegerIn(part.trimmed().toStdString(), 0, LimiterConfig::kMaxLimit);
        if (total > Int128(kMaxNanos))
            throw InputError("the value " + ratelab::quoted(text) + " is too large");
    }
    return std::to_string(static_cast<long long>(total));
}

ImportedConfig productScenario(Algorithm a, std::string productName, const Flat& flat, KeyMatch match,
                               std::initializer_list<std::pair<const char*, const char*>> names)
{
    ImportedConfig out;
    out.product = std::move(productName);
    std::vector<ProductOption> options;
    for (const auto& [fileName, optionName] : names)
        if (const auto v = findConfigValue(flat, fileName, match)) {
            const std::string value = a == Algorithm::ExpressRateLimit ? product(*v) : *v;
            out.wrote.emplace_back(fileName, *v);
            options.push_back({optionName, value});
        }
    out.scenario.algorithms = {a};
    out.scenario.config = LimiterConfig{}.withProductOptions(std::move(options));
    checkProductOptions(out.scenario.config, out.scenario.algorithms); // the product refuses bad values
    return out;
}

// kFlexibleOptions are the option names rate-limiter-flexible's limiters take (11.4.0:
// RateLimiterAbstract, RateLimiterStoreAbstract and the store limiters' own).
const std::set<std::string> kFlexibleOptions = {
    "points", "duration", "blockduration", "keyprefix", "execevenly", "execevenlymindelayms", "inmemoryblockonconsumed",
    "inmemoryblockduration", "insurancelimiter", "storeclient", "storetype", "dbname", "tablename", "tablecreated",
    "clearexpiredbytimeout", "useredispackage", "useredis3andlowerpackage", "rejectifredisnotready", "customincrttlluascript"};

// flexibleOptionsAt returns the path of the object holding rate-limiter-flexible's options ("" for
// the top level). It throws InputError saying why the points and duration found are not plainly
// its options.
std::string flexibleOptionsAt(const Flat& flat)
{
    std::string parent;
    for (const auto& [path, value] : flat)
        if (endsWithPath(path, "points")) {
            parent = path.size() > 6 ? path.substr(0, path.size() - 7) : "";
            break;
        }
    const std::string where = parent.empty() ? "the top level" : ratelab::quoted(parent);
    const std::string last = lowerAscii(parent.substr(parent.rfind('.') == std::string::npos ? 0 : parent.rfind('.') + 1));
    static const QRegularExpression limiterName(R"(rate[-_ ]?limit)");
    if (!parent.empty() && !QString::fromStdString(last).contains(limiterName))
        throw InputError("points and duration at " + where + " are not plainly rate-limiter-flexible's options: its options "
                         "sit at the top of the file or under a key naming a rate limiter (rateLimiter, rate_limit, ...); "
                         "no product's configuration recognised");
    std::set<std::string> seen;
    for (const auto& [path, value] : flat) {
        if (!parent.empty() && !(path.size() > parent.size() && path.starts_with(parent) && path[parent.size()] == '.'))
            continue;
        const std::string rest = parent.empty() ? path : path.substr(parent.size() + 1);
        const std::string name = lowerAscii(rest.substr(0, rest.find('.')));
        seen.insert(name);
        if (!kFlexibleOptions.count(name))
            throw InputError("points and duration at " + where + " sit beside " + ratelab::quoted(rest.substr(0, rest.find('.')))
                             + ", which is not a rate-limiter-flexible option: not plainly its options; no product's "
                               "configuration recognised");
    }
    if (!seen.count("duration"))
        throw InputError("points at " + where + " without duration beside them: not rate-limiter-flexible's options");
    return parent;
}

// kongDropped names what a Kong file holds beside the one rate-limiting plugin the scenario models:
// every other plugin, the rate-limiting plugins after the first, and the routes and services (a
// scenario is one limit on every request; `replay --config` selects by route).
std::vector<std::string> kongDropped(const Flat& flat)
{
    std::vector<std::string> out;
    int limits = 0, routes = 0, services = 0;
    for (const auto& [path, value] : flat) {
        if (endsWithPath(path, "plugins.name") || path == "name" || endsWithPath(path, "plugin.name")) {
            if (value == "rate-limiting" && ++limits == 1)
                continue;
            out.push_back(value == "rate-limiting" ? "the rate-limiting plugin at " + path + " (#" + std::to_string(limits)
                                                         + "): the scenario models the first one"
                                                   : "the plugin " + value + " (" + path + "): not modelled");
        } else if (endsWithPath(path, "routes.name") || endsWithPath(path, "routes.paths")) {
            routes += endsWithPath(path, "routes.name");
        } else if (path == "services.name") {
            ++services;
        }
    }
    if (routes || services)
        out.push_back(std::to_string(services) + " services and " + std::to_string(routes) + " named routes: which "
                      "requests the plugin meets is not modelled (replay --config selects by route)");
    return out;
}

// traefikDropped names the routers and the middlewares other than the rateLimit the scenario models.
std::vector<std::string> traefikDropped(const Flat& flat)
{
    std::vector<std::string> out, routers, middlewares;
    std::string modelled;
    for (const auto& [path, value] : flat) {
        const QStringList parts = QString::fromStdString(path).split('.');
        const auto is = [&](qsizetype i, const char* name) { return keyMatches(parts[i].toStdString(), name, KeyMatch::IgnoreCase); };
        if (parts.size() >= 4 && is(0, "http") && is(1, "routers")) {
            const std::string name = parts[2].toStdString();
            if (std::find(routers.begin(), routers.end(), name) == routers.end()) {
                routers.push_back(name);
                out.push_back("router " + name + ": which requests it takes is not modelled (replay --config selects by router)");
            }
        } else if (parts.size() >= 4 && is(0, "http") && is(1, "middlewares")) {
            const std::string name = parts[2].toStdString(), type = parts[3].toStdString();
            if (is(3, "rateLimit") && (modelled.empty() || modelled == name)) {
                modelled = name;
                continue;
            }
            if (std::find(middlewares.begin(), middlewares.end(), name) == middlewares.end()) {
                middlewares.push_back(name);
                out.push_back("middleware " + name + " (" + type + ")"
                              + (is(3, "rateLimit") ? ": the scenario models the first rateLimit, " + modelled : ": not modelled"));
            }
        }
    }
    return out;
}

// envoyDropped names the descriptors, the routes' rate_limits and the HTTP filters beside the
// local_ratelimit the scenario models (its one token bucket).
std::vector<std::string> envoyDropped(const Flat& flat)
{
    std::vector<std::string> out;
    const std::string rateLimits = "the routes' rate_limits (the descriptor entries their actions make): not modelled";
    int descriptors = 0;
    for (const auto& [path, value] : flat) {
        descriptors += endsWithPath(path, "descriptors.token_bucket.max_tokens");
        if (path.find("rate_limits.actions.") != std::string::npos && std::find(out.begin(), out.end(), rateLimits) == out.end())
            out.push_back(rateLimits);
        if (endsWithPath(path, "http_filters.name") && value.find("local_ratelimit") == std::string::npos
            && value != "envoy.filters.http.router")
            out.push_back("the HTTP filter " + value + ": not modelled");
    }
    if (descriptors)
        out.push_back(std::to_string(descriptors) + " descriptors, each a token bucket of its own for the requests whose "
                      "descriptor entries match: not modelled (the scenario is the default bucket)");
    return out;
}

} // namespace

namespace {

ImportedConfig envoyScenario(const Flat& flat)
{
    ImportedConfig out = productScenario(Algorithm::EnvoyLocal, "Envoy local_ratelimit", flat, KeyMatch::Exact,
                                         {{"max_tokens", "max_tokens"}, {"tokens_per_fill", "tokens_per_fill"},
                                          {"fill_interval", "fill_interval"}});
    out.notModelled = envoyDropped(flat);
    return out;
}

ImportedConfig kongScenario(const Flat& flat)
{
    const char* const windows[] = {"config.second", "config.minute", "config.hour", "config.day", "config.month", "config.year"};
    if (std::none_of(std::begin(windows), std::end(windows), [&](const char* w) { return findConfigValue(flat, w).has_value(); }))
        throw InputError("Kong: the rate-limiting plugin sets none of config.second, minute, hour, day, month or year (Kong's "
                         "keys are exact: Config or Minute is not its schema's)");
    ImportedConfig out = productScenario(Algorithm::Kong, "Kong rate-limiting", flat, KeyMatch::Exact,
                                         {{"config.second", "second"}, {"config.minute", "minute"}, {"config.hour", "hour"},
                                          {"config.day", "day"}, {"config.month", "month"}, {"config.year", "year"}});
    if (const auto policy = findConfigValue(flat, "config.policy"); policy && *policy != "local")
        out.wrote.emplace_back("policy", *policy + " (modelled as local: one node's counters)");
    out.notModelled = kongDropped(flat);
    return out;
}

ImportedConfig flexibleScenario(const Flat& flat)
{
    const std::string at = flexibleOptionsAt(flat);
    const std::string prefix = at.empty() ? "" : at + ".";
    Flat options;
    for (const auto& [path, value] : flat)
        if (path.starts_with(prefix))
            options.emplace_back(path, value);
    return productScenario(Algorithm::RateLimiterFlexible, "rate-limiter-flexible", options, KeyMatch::Exact,
                           {{"points", "points"}, {"duration", "duration"}, {"blockDuration", "blockDuration"}});
}

// treeScenario imports the products read from a tree, as detectProduct recognised them.
ImportedConfig treeScenario(const ConfigDocument& doc)
{
    const Flat& flat = doc.flat;
    switch (doc.product) {
    case ConfigProduct::Envoy: return envoyScenario(flat);
    case ConfigProduct::Traefik: {
        ImportedConfig out = productScenario(Algorithm::Traefik, "Traefik rateLimit", flat, KeyMatch::IgnoreCase,
                                             {{"rateLimit.average", "average"}, {"rateLimit.period", "period"},
                                              {"rateLimit.burst", "burst"}});
        out.notModelled = traefikDropped(flat);
        return out;
    }
    case ConfigProduct::Spring:
        return productScenario(Algorithm::SpringGateway, "Spring Cloud Gateway RedisRateLimiter", flat, KeyMatch::Relaxed,
                               {{"replenishRate", "replenishRate"}, {"burstCapacity", "burstCapacity"},
                                {"requestedTokens", "requestedTokens"}});
    case ConfigProduct::Kong: return kongScenario(flat);
    case ConfigProduct::Express:
        return productScenario(Algorithm::ExpressRateLimit, "express-rate-limit", flat, KeyMatch::Exact,
                               {{"windowMs", "windowMs"}, {"max", "max"}, {"limit", "limit"}});
    case ConfigProduct::Flexible: return flexibleScenario(flat);
    default: break;
    }
    throw InputError("no rate limit found: expected an nginx limit_req_zone, an Envoy token_bucket, a Traefik rateLimit, a "
                     "Spring redis-rate-limiter, a Kong rate-limiting plugin, express-rate-limit options, rate-limiter-flexible "
                     "options, an API Gateway usage plan, a WAF RateBasedStatement, a Cloudflare ratelimit rule or an "
                     "Upstash Ratelimit.slidingWindow(...) snippet"
                     + (doc.tree.unreadDocuments.empty()
                            ? std::string()
                            : " in the file's first YAML document, the one read (the next starts at line "
                                  + std::to_string(doc.tree.unreadDocuments.front()) + ")"));
}

} // namespace

ImportedConfig importConfiguration(const ConfigDocument& doc)
{
    if (doc.product == ConfigProduct::Scenario)
        throw InputError("a RateLab scenario (.ratelab.json), not a product's configuration: `ratelab compare` runs it");
    ImportedConfig out = doc.product == ConfigProduct::Nginx ? nginxScenario(QString::fromUtf8(doc.text))
                       : isManaged(doc.product)               ? importManaged(doc)
                                                              : treeScenario(doc);
    for (std::string& unread : unreadDocumentsText(doc))
        out.notModelled.push_back(std::move(unread));
    return out;
}

ImportedConfig importConfiguration(const QByteArray& text)
{
    return importConfiguration(readConfigDocument(text));
}

ImportedConfig importConfigurationFile(const QString& path)
{
    const ConfigDocument doc = readConfigFile(path);
    ImportedConfig imported;
    try {
        imported = importConfiguration(doc);
    } catch (const InputError& e) {
        throw InputError(path.toStdString() + ": " + e.what()); // as replay --config names it
    }
    imported.scenario.title = "Imported: " + imported.product;
    std::vector<Nanos> page;
    for (int i = 0; i < 27; ++i)
        page.push_back(i * 2'000'000);
    imported.scenario.explicitArrivals = page; // the page load the explanation starts with
    imported.scenario.lesson = "Read from " + QFileInfo(path).fileName().toStdString() + ".\n\n" + whatYouGet(imported);
    return imported;
}

} // namespace ratelab::io
