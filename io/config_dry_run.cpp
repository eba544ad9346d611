#include "config_dry_run.h"
#include "scenario/scenario_parts.h"

#include "config_dry_run_routes.h"
#include "config_import.h"
#include "config_import_nginx.h"
#include "scenariofile.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <optional>

namespace ratelab::io {

namespace {

// ProductKey is what a product keys its counters by, read onto the log's keys.
struct ProductKey {
    std::string field;      // the log key it is ("ip", "user", a field), "" when none or not the log's
    bool shared = false;    // one counter for every request
    bool appChosen = false; // the application names the key: the log's --key is taken as it
    std::string words;      // what the product keys by
    bool denyEmptyKey = false; // a request whose key is empty is denied
    std::string fallback = {}, fallbackWords = {}; // the key of a request whose own is empty (RuleKey's)
};

std::string wroteValue(const ImportedConfig& c, const std::string& name)
{
    for (const auto& [k, v] : c.wrote)
        if (k == name)
            return v;
    return "";
}

std::string flatValue(const ConfigDocument& doc, const std::string& suffix)
{
    return findConfigValue(doc.flat, suffix, keyMatchOf(doc.product)).value_or("");
}

// productKey returns what each product's own source keys by (its default when the file names none).
ProductKey productKey(const ImportedConfig& c, const ConfigDocument& text)
{
    const std::string& p = c.product;
    if (p == "express-rate-limit")
        return {"ip", false, false, "the request's IP (its default keyGenerator, req.ip)"};
    if (p == "rate-limiter-flexible")
        return {"", false, true, "the key the application passes to consume(key)"};
    if (p == "@upstash/ratelimit")
        return {"", false, true, "the identifier the application passes to limit(identifier)"};
    if (p == "Amazon API Gateway usage plan")
        return {"", false, true, "the API key each request carries"};
    if (p == "Envoy local_ratelimit")
        return {"", true, false, "one token bucket for every request the filter sees (no bucket per client)"};
    if (p == "Spring Cloud Gateway RedisRateLimiter") {
        // RequestRateLimiterGatewayFilterFactory answers 403 to an empty key unless deny-empty-key is false.
        const bool deny = flatValue(text, "deny-empty-key") != "false";
        const std::string resolver = flatValue(text, "key-resolver");
        if (!resolver.empty())
            return {"", false, true, "the key its KeyResolver " + resolver + " returns", deny};
        return {"user", false, false, "the principal's name (the default PrincipalNameKeyResolver)", deny};
    }
    if (p == "Kong rate-limiting") { // which authentication runs is not in a file of one plugin
        const RuleKey k = kongKey(flatValue(text, "config.limit_by").empty() ? "consumer" : flatValue(text, "config.limit_by"),
                                  flatValue(text, "config.header_name"), KongAuth::Unknown);
        ProductKey key{k.field, k.shared, false, k.words};
        key.fallback = k.fallback;
        key.fallbackWords = k.fallbackWords;
        return key;
    }
    if (p == "AWS WAF rate-based rule") {
        const std::string key = wroteValue(c, "RateBasedStatement.AggregateKeyType");
        if (key == "IP")
            return {"ip", false, false, "the client's IP (AggregateKeyType IP)"};
        if (key == "CONSTANT")
            return {"", true, false, "one counter for every request (AggregateKeyType CONSTANT)"};
        return {"", false, false, "AggregateKeyType " + key};
    }
    if (p == "Cloudflare rate limiting rule") {
        const std::string by = wroteValue(c, "ratelimit.characteristics");
        if (by == "cf.colo.id")
            return {"", true, false, "the data center only (cf.colo.id): one counter for every request"};
        if (by == "ip.src")
            return {"ip", false, false, "the client's IP (ip.src)"};
        return {"", false, false, "the characteristics " + by};
    }
    return {"", false, true, "the key the application chooses"};
}

std::string policyText(const std::vector<Layer>& layers)
{
    std::string out;
    for (const Layer& l : layers)
        out += (out.empty() ? "" : " + ") + std::string(algorithmId(l.algorithm));
    return out;
}

// policyConfig makes one rule of a policy that every request meets.
DryRunConfig policyConfig(const std::string& product, std::vector<Layer> layers, const ProductKey& key,
                          const std::string& logKey)
{
    DryRunConfig out;
    out.product = product;
    out.zones.push_back({policyText(layers), 0});
    DryRunRule rule{product, 0, 0, 0, std::move(layers), key.shared, key.denyEmptyKey};
    out.rules.push_back(std::move(rule));
    const bool mapped = key.shared || key.appChosen || key.field == logKey;
    out.mapped.push_back(mapped);
    out.fallback = {0};
    if (key.shared)
        out.assumed.push_back(product + " keys by " + key.words + ": every request of the log meets it");
    else if (key.appChosen)
        out.assumed.push_back(product + " keys by " + key.words + ": the log's key (" + logKey + ") is taken as that key");
    else if (!mapped) {
        out.notReplayed.push_back(product + ": it keys by " + key.words + ", not the log's key (" + logKey + ")"
                                  + (key.field.empty() ? ", nor a log field: not replayed"
                                                       : ": not replayed (--key " + key.field + " replays it)"));
        out.rules.back().keyField = key.field;
        out.rules.back().keyNote = int(out.notReplayed.size()) - 1;
    }
    bindFallback(out, key.fallback, key.fallbackWords, logKey);
    if (!key.fallback.empty())
        out.assumed.push_back(product + ": a request whose key is empty in the log is keyed by " + key.fallbackWords);
    return out;
}

// scenarioConfig reads a RateLab scenario's policy: its layers, or its one algorithm.
DryRunConfig scenarioConfig(const QByteArray& bytes, const std::string& logKey)
{
    const LoadResult loaded = parseScenario(bytes);
    if (!loaded.scenario)
        throw InputError(loaded.error.toStdString());
    const Scenario& s = *loaded.scenario;
    const std::string name = "RateLab scenario: ";
    takeScenario(s, ScenarioCommand::DryRun);
    // The scenario's cost is no part of the table (explicit arrivals' costs are traffic, which the
    // log replaces): replay weighs each request by it, a dry run counts requests as configs do.
    if (s.cost != 1)
        throw InputError("replay --config: the scenario's cost cannot be dry-run: a dry run counts each request once, "
                         "as the products' configs do; replay the log with --scenario for it");
    std::vector<Layer> layers = s.layers;
    if (layers.empty()) {
        if (s.algorithms.size() != 1) {
            std::string ids;
            for (Algorithm a : s.algorithms)
                ids += (ids.empty() ? "" : ", ") + std::string(algorithmId(a));
            throw InputError(name + "the scenario compares " + std::to_string(s.algorithms.size()) + " algorithms (" + ids
                             + ") and has no layers: a dry run replays one policy; keep one algorithm, or give layers");
        }
        layers.push_back({s.algorithms.front(), s.config});
    }
    DryRunConfig out = policyConfig("RateLab scenario", std::move(layers), {"", false, true, "the key it is run with"}, logKey);
    if (!s.layers.empty() && !s.algorithms.empty())
        out.assumed.emplace_back("the scenario's layers are its policy; its algorithm rows (compared beside them) are not replayed");
    return out;
}


} // namespace

namespace {

// routesConfig reads the routes of Kong, Spring Cloud Gateway and Envoy, nullopt for a file
// without them (its one policy is then every request's).
std::optional<DryRunConfig> routesConfig(const ConfigDocument& doc, const std::string& logKey)
{
    switch (doc.product) {
    case ConfigProduct::Kong: return kongDryRunConfig(doc.json, logKey);
    case ConfigProduct::Spring: return springDryRunConfig(doc.json, logKey);
    case ConfigProduct::Envoy: return envoyDryRunConfig(doc.json, logKey);
    default: return std::nullopt;
    }
}

// productConfig reads a product's routes where it has them, else its one policy as imported
// (whose report names the YAML documents not read, as this does for routes).
DryRunConfig productConfig(const ConfigDocument& doc, const std::string& logKey)
{
    std::optional<DryRunConfig> routes = routesConfig(doc, logKey);
    if (!routes && doc.product == ConfigProduct::Traefik)
        routes = traefikDryRunConfig(doc, logKey);
    if (routes) {
        for (std::string& unread : unreadDocumentsText(doc))
            routes->notReplayed.push_back(std::move(unread));
        return std::move(*routes);
    }
    const ImportedConfig imported = importConfiguration(doc);
    std::vector<Layer> layers = imported.scenario.layers;
    if (layers.empty())
        layers.push_back({imported.scenario.algorithms.front(), imported.scenario.config});
    DryRunConfig out = policyConfig(imported.product, std::move(layers), productKey(imported, doc), logKey);
    out.assumed.insert(out.assumed.end(), imported.assumed.begin(), imported.assumed.end());
    out.notReplayed.insert(out.notReplayed.end(), imported.notModelled.begin(), imported.notModelled.end());
    return out;
}

} // namespace

DryRunConfig dryRunConfigDocument(const ConfigDocument& doc, const std::string& logKey)
{
    // A refusal, and each note of what was not replayed or assumed, names the file's words (a
    // route's id, a predicate, a header, a rule) as written, and a word may hold a tab or a
    // newline: each goes out on one printable line.
    DryRunConfig out;
    try {
        out = doc.product == ConfigProduct::Scenario ? scenarioConfig(doc.text, logKey)
            : doc.product == ConfigProduct::Nginx    ? dryRunConfig(QString::fromUtf8(doc.text), logKey)
                                                     : productConfig(doc, logKey);
    } catch (const InputError& e) {
        throw InputError(messageText(e.what(), std::string::npos));
    }
    for (std::vector<std::string>* notes : {&out.notReplayed, &out.assumed})
        for (std::string& note : *notes)
            note = messageText(note, std::string::npos);
    return out;
}

DryRunConfig dryRunConfigText(const QByteArray& bytes, const std::string& logKey)
{
    return dryRunConfigDocument(readConfigDocument(bytes), logKey);
}

DryRunConfig dryRunConfigFile(const QString& path, const std::string& logKey)
{
    const ConfigDocument doc = readConfigFile(path);
    try {
        return dryRunConfigDocument(doc, logKey);
    } catch (const InputError& e) {
        throw InputError(path.toStdString() + ": " + e.what());
    }
}

} // namespace ratelab::io
