// A configuration file read once (config_document.h): the loader's front, the product
// detector, and how each product's loader matches its keys.
#include "config_document.h"

#include "config_import_managed.h"
#include "scenariofile.h"

#include "arithmetic/decimal.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <map>

namespace ratelab::io {

namespace {

std::vector<std::string> components(const std::string& path)
{
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t dot; (dot = path.find('.', from)) != std::string::npos; from = dot + 1)
        out.push_back(path.substr(from, dot - from));
    out.push_back(path.substr(from));
    return out;
}

// relaxed is a name as Spring Boot's binder compares it: its letters and digits, in lower case.
std::string relaxed(const std::string& name)
{
    std::string out;
    for (const char c : name)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// protoName is a field's proto name: a lowerCamelCase JSON name (a lower-case letter, then
// letters and digits, an upper-case one among them) with each upper-case letter made '_' and its
// lower case, as protoc derives the JSON name the other way (tokens_per_fill: tokensPerFill).
// Any other name is returned as it is.
std::string protoName(const std::string& name)
{
    const bool camel = !name.empty() && std::islower(static_cast<unsigned char>(name[0]))
                       && std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })
                       && std::any_of(name.begin(), name.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
    if (!camel)
        return name;
    std::string out;
    for (const char c : name) {
        if (std::isupper(static_cast<unsigned char>(c)))
            out += '_';
        out += char(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool sameComponent(const std::string& a, const std::string& b, KeyMatch m)
{
    switch (m) {
    case KeyMatch::Exact: return a == b;
    case KeyMatch::IgnoreCase:
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
               });
    case KeyMatch::Relaxed: return relaxed(a) == relaxed(b);
    case KeyMatch::Proto: return protoName(a) == protoName(b);
    }
    return false;
}

} // namespace

bool pathEndsWith(const std::string& path, const std::string& suffix, KeyMatch m)
{
    const std::vector<std::string> p = components(path), s = components(suffix);
    if (s.size() > p.size())
        return false;
    return std::equal(s.begin(), s.end(), p.end() - std::ptrdiff_t(s.size()),
                      [m](const std::string& want, const std::string& have) { return sameComponent(have, want, m); });
}

namespace {

bool has(const ConfigDocument& doc, ConfigProduct p, std::initializer_list<const char*> suffixes)
{
    return std::any_of(suffixes.begin(), suffixes.end(),
                       [&](const char* s) { return findConfigValue(doc.flat, s, keyMatchOf(p)).has_value(); });
}

bool scenarioFile(const ConfigDocument& doc)
{
    const ConfigNode* format = doc.tree.root.find("format");
    return format && format->text == kScenarioFormat;
}

// managedFile: the managed services' configurations here are JSON, or CloudFormation in YAML.
bool managedFile(const ConfigDocument& doc)
{
    return doc.text.trimmed().startsWith('{') || doc.text.contains("AWS::ApiGateway") || doc.text.contains("RateBasedStatement");
}

// springRoutes is whether the tree holds Spring Cloud Gateway's routes, which `replay --config`
// reads (and names what limits them) even without a redis-rate-limiter.
bool springRoutes(const ConfigDocument& doc)
{
    for (const char* at : {"spring.cloud.gateway.routes.id", "spring.cloud.gateway.server.webflux.routes.id"})
        if (std::any_of(doc.flat.begin(), doc.flat.end(), [&](const auto& kv) { return keyMatches(kv.first, at, KeyMatch::Relaxed); }))
            return true;
    return false;
}

ConfigProduct treeProduct(const ConfigDocument& doc)
{
    using P = ConfigProduct;
    if (managedFile(doc)) {
        if (has(doc, P::AwsWaf, {"RateBasedStatement.Limit"}))
            return P::AwsWaf;
        if (has(doc, P::Cloudflare, {"ratelimit.requests_per_period", "ratelimit.period"}))
            return P::Cloudflare;
        if (has(doc, P::ApiGateway, {"throttle.rateLimit", "throttle.burstLimit", "quota.limit", "MethodSettings.ThrottlingRateLimit",
                                     "MethodSettings.ThrottlingBurstLimit"}))
            return P::ApiGateway;
    }
    // A bare maxTokens is an LLM client's setting as often (Spring AI's options.maxTokens): only
    // max_tokens as written, or tokenBucket.maxTokens, says Envoy.
    if (has(doc, P::Envoy, {"token_bucket.max_tokens", "virtual_hosts.name", "virtual_hosts.domains"})
        || findConfigValue(doc.flat, "max_tokens").has_value())
        return P::Envoy;
    if (has(doc, P::Traefik, {"rateLimit.average", "rateLimit.burst"}))
        return P::Traefik;
    if (has(doc, P::Spring, {"replenishRate"}) || springRoutes(doc))
        return P::Spring;
    if (std::any_of(doc.flat.begin(), doc.flat.end(), [](const auto& kv) { return kv.second == "rate-limiting"; }))
        return P::Kong;
    if (has(doc, P::Express, {"windowMs"}))
        return P::Express;
    if (has(doc, P::Flexible, {"points"}) && has(doc, P::Flexible, {"duration"}))
        return P::Flexible;
    return P::None;
}

} // namespace

bool keyMatches(const std::string& a, const std::string& b, KeyMatch m)
{
    const std::vector<std::string> x = components(a), y = components(b);
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [m](const std::string& p, const std::string& q) { return sameComponent(p, q, m); });
}

KeyMatch keyMatchOf(ConfigProduct p)
{
    switch (p) {
    case ConfigProduct::Traefik: return KeyMatch::IgnoreCase;
    case ConfigProduct::Spring: return KeyMatch::Relaxed;
    case ConfigProduct::Envoy: return KeyMatch::Proto;
    // The AWS CLI writes these names in camelCase (throttle.rateLimit) and CloudFormation in
    // PascalCase (Throttle.RateLimit): the managed importer reads both spellings of one name.
    case ConfigProduct::AwsWaf:
    case ConfigProduct::ApiGateway:
    case ConfigProduct::Cloudflare: return KeyMatch::IgnoreCase;
    default: return KeyMatch::Exact;
    }
}

std::optional<std::string> findConfigValue(const FlatConfig& flat, const std::string& suffix, KeyMatch m)
{
    for (const auto& [path, value] : flat)
        if (pathEndsWith(path, suffix, m))
            return value;
    return std::nullopt;
}

ConfigProduct detectProduct(const ConfigDocument& doc)
{
    static const QRegularExpression nginxWord(R"((^|[\s;{}])limit_req(_zone)?\s)");
    if (!doc.hasTree && QString::fromUtf8(doc.text).contains(nginxWord) && !doc.text.trimmed().startsWith('{'))
        return ConfigProduct::Nginx;
    if (doc.hasTree && scenarioFile(doc))
        return ConfigProduct::Scenario;
    if (isUpstashSnippet(doc.text))
        return ConfigProduct::Upstash;
    return doc.hasTree ? treeProduct(doc) : ConfigProduct::None;
}

void protoFieldNames(ConfigNode& node)
{
    if (node.kind == ConfigNode::Kind::List) {
        for (ConfigItem& item : node.items)
            protoFieldNames(item.value);
        return;
    }
    if (node.kind != ConfigNode::Kind::Map)
        return;
    std::map<std::string, std::string> written; // proto name -> the name as written
    for (ConfigItem& item : node.items) {
        const std::string name = protoName(item.key);
        const auto [at, fresh] = written.emplace(name, item.key);
        if (!fresh) // the loader refused a key written twice the same way
            throw InputError("Envoy: " + ratelab::quoted(at->second) + " and " + ratelab::quoted(item.key)
                             + " are one field written twice: Envoy refuses it (protobuf's JSON parser: "
                             + ratelab::quoted(item.key) + " has already been set)");
        item.key = name;
        if (name == "json_format" || name == "static_layer" || name == "filter_metadata")
            continue; // a google.protobuf.Struct: its keys are data
        if (name == "typed_per_filter_config" || name == "typed_filter_metadata") {
            for (ConfigItem& entry : item.value.items) // a map: its keys are filter names
                protoFieldNames(entry.value);
            continue;
        }
        protoFieldNames(item.value);
    }
}

ConfigDocument readConfigDocument(const QByteArray& input)
{
    ConfigDocument doc;
    doc.text = input;
    if (doc.text.startsWith("\xEF\xBB\xBF"))
        doc.text.remove(0, 3); // a UTF-8 byte order mark
    doc.product = detectProduct(doc); // nginx's grammar and Upstash's snippets are not trees
    if (doc.product == ConfigProduct::Nginx)
        return doc;
    try {
        doc.tree = parseConfigTree(doc.text);
    } catch (const InputError&) {
        if (doc.product == ConfigProduct::Upstash)
            return doc; // a TypeScript snippet
        throw;
    }
    doc.hasTree = true;
    doc.flat = flattenTree(doc.tree.root);
    doc.product = detectProduct(doc);
    if (doc.product == ConfigProduct::Envoy) {
        protoFieldNames(doc.tree.root);
        doc.flat = flattenTree(doc.tree.root);
    }
    doc.json = jsonOf(doc.tree.root);
    return doc;
}

ConfigDocument readConfigFile(const QString& path)
{
    constexpr qint64 kMaxBytes = 4 * 1024 * 1024;
    const std::string name = ratelab::quoted(path.toStdString());
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly))
        throw InputError("cannot read " + name);
    const QByteArray text = file.read(kMaxBytes + 1);
    if (text.size() > kMaxBytes)
        throw InputError(name + " is larger than 4 MiB");
    try {
        ConfigDocument doc = readConfigDocument(text);
        doc.name = path;
        return doc;
    } catch (const InputError& e) {
        throw InputError(path.toStdString() + ": " + e.what());
    }
}

std::vector<std::string> unreadDocumentsText(const ConfigDocument& doc)
{
    std::string why;
    switch (doc.product) {
    case ConfigProduct::Kong: why = "Kong's declarative loader reads the first document (lyaml.load)"; break;
    case ConfigProduct::Traefik: why = "Traefik's file provider reads the first document (paerser: yaml.v3 Unmarshal)"; break;
    case ConfigProduct::Envoy: why = "Envoy reads the first document (yaml-cpp YAML::Load)"; break;
    case ConfigProduct::Spring:
        why = "Spring Boot adds each later document as a property source over the earlier ones (where its "
              "spring.config.activate.on-profile is active); only the first is read here";
        break;
    default: why = "only the first document of a file is read"; break;
    }
    std::vector<std::string> out;
    for (const int line : doc.tree.unreadDocuments)
        out.push_back("the YAML document at line " + std::to_string(line) + ": not read: " + why);
    return out;
}

} // namespace ratelab::io
