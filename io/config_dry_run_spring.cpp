// Spring Cloud Gateway's routes on a log (config_dry_run.h): spring.cloud.gateway.routes (or
// .server.webflux.routes), sorted by their order as RouteDefinitionRouteLocator sorts them, the
// first whose Path predicate matches (PathRoutePredicateFactory: PathPattern, matchTrailingSlash
// true by default) taking the request; each RequestRateLimiter among the default filters and the
// route's own is a rule of that route: RedisRateLimiter keys Redis by the resolved key and the
// route's id (getKeys(id, routeId), spring-cloud-gateway 0434c61), so each route counts apart.
// Beside Path, a route's Method, Host, Header and Query predicates are conditions on the log's
// fields and target, as spring-cloud-gateway 5227205c743d's predicate factories test them; a
// KeyResolver bean is the application's code, named, and replayed with the log's key.
#include "config_dry_run_routes.h"
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"
#include "replay/product_regex.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <set>

namespace ratelab::io {

namespace {

// flatArgs writes a filter's args as dotted names ("redis-rate-limiter.replenishRate" -> "10").
void flatArgs(const QJsonValue& v, const std::string& path, std::vector<std::pair<std::string, std::string>>& out)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            flatArgs(it.value(), path.empty() ? it.key().toStdString() : path + "." + it.key().toStdString(), out);
    } else {
        out.emplace_back(path, treeText(v));
    }
}

// arg is a filter's argument as Spring Boot's binder finds it: by relaxed binding (keyMatchOf).
std::string arg(const std::vector<std::pair<std::string, std::string>>& args, const std::string& name)
{
    for (const auto& [k, v] : args)
        if (keyMatches(k, name, KeyMatch::Relaxed))
            return v;
    return "";
}

// at is an object's value for name as Spring Boot's binder finds it, by relaxed binding
// (replenishRate, replenish-rate and REPLENISH_RATE name one property; keyMatchOf).
QJsonValue at(const QJsonValue& v, const char* name)
{
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (keyMatches(it.key().toStdString(), name, KeyMatch::Relaxed))
            return it.value();
    return QJsonValue(QJsonValue::Undefined);
}

// Shortcut is a predicate or filter as written: its name and its arguments ("Path=/a/**,/b/**").
struct Shortcut {
    std::string name;
    std::vector<std::pair<std::string, std::string>> args;
    QStringList list; // the shortcut's comma-separated values
};

Shortcut shortcutOf(const QJsonValue& v)
{
    Shortcut s;
    if (v.isObject()) {
        s.name = treeText(at(v, "name"));
        flatArgs(at(v, "args"), "", s.args);
        for (const auto& [k, value] : s.args)
            if (k.starts_with("_genkey_") || k.starts_with("patterns") || k == "pattern" || k.starts_with("methods"))
                s.list.append(QString::fromStdString(value));
        return s;
    }
    const QString text = QString::fromStdString(treeText(v));
    const qsizetype eq = text.indexOf('=');
    s.name = text.left(eq < 0 ? text.size() : eq).trimmed().toStdString();
    if (eq >= 0)
        for (const QString& part : text.mid(eq + 1).split(','))
            s.list.append(part.trimmed());
    return s;
}


// antHost makes a Host predicate's pattern a regex over the whole host (HostRoutePredicateFactory
// at spring-cloud-gateway 5227205c743d: AntPathMatcher with '.' as its separator): "**" any number
// of labels, "*" and "{name}" any text within a label, "?" one character, "{name:regex}" the regex.
// By default (includePort) it matches the Host header as sent, its port included, so
// "**.example.org" does not take "a.example.org:8080"; with predicate.host.include-port false,
// the host's name alone.
std::string antHost(const std::string& pattern, bool includePort)
{
    const QStringList labels = QString::fromStdString(pattern).split('.', Qt::SkipEmptyParts);
    std::string re = "^";
    bool separator = false;
    for (qsizetype i = 0; i < labels.size(); ++i) {
        const std::string label = labels[i].toStdString();
        if (label == "**") {
            re += i + 1 < labels.size() ? std::string(separator ? "\\." : "") + "(?:[^.]*\\.)*"
                                        : separator ? "(?:\\.[^.]*)*" : ".*";
            separator = false;
            continue;
        }
        re += separator ? "\\." : "";
        separator = true;
        for (std::size_t c = 0; c < label.size(); ++c) {
            if (label[c] == '*') {
                re += "[^.]*";
            } else if (label[c] == '?') {
                re += "[^.]";
            } else if (label[c] == '{' && label.find('}', c) != std::string::npos) {
                const std::size_t close = label.find('}', c), colon = label.find(':', c);
                re += colon < close ? "(?:" + label.substr(colon + 1, close - colon - 1) + ")" : "[^.]*";
                c = close;
            } else {
                if (!std::isalnum(static_cast<unsigned char>(label[c])))
                    re += '\\';
                re += label[c];
            }
        }
    }
    return re + (includePort ? "$" : "(?::[0-9]+)?$");
}

// headerFieldOf is the log field that holds a header: http_ and its name, lower-cased, '-' as '_'.
std::string headerFieldOf(const std::string& header)
{
    std::string field = "http_" + lowerAscii(header);
    std::replace(field.begin(), field.end(), '-', '_');
    return field;
}

// javaRegex makes a condition test a Java regex over the whole text (Pattern.matches), with
// PCRE2, the nearest engine; it throws InputError for one PCRE2 refuses.
void javaRegex(DryRunCondition& c, const std::string& regex, const std::string& where)
{
    try {
        (void)ProductRegex(regex, RegexEngine::Pcre, RegexSpan::Whole);
    } catch (const InputError& e) {
        throw InputError("Spring: " + where + ": " + e.what());
    }
    c.regexes = {regex};
    c.regexEngine = RegexEngine::Pcre;
    c.regexSpan = RegexSpan::Whole;
}

// requestCondition reads a Header, Query or Host predicate (HeaderRoutePredicateFactory: a
// value of the header matching the regexp whole, or the header sent; QueryRoutePredicateFactory:
// a value of the parameter matching it, or the parameter present; HostRoutePredicateFactory: the
// host matching one of the patterns). A header or host the log lacks is named until it is bound;
// `sharedHost`: every route's Host is this one, so it is only assumed.
DryRunCondition requestCondition(const Shortcut& p, const std::string& route, bool sharedHost, bool includePort,
                                 DryRunConfig& out)
{
    const auto argOr = [&](const char* name, qsizetype i) {
        const std::string a = arg(p.args, name);
        return !a.empty() || p.list.size() <= i ? a : p.list[i].toStdString();
    };
    const std::string where = "route " + route + ": its " + p.name + " predicate";
    DryRunCondition c;
    if (p.name == "Query") {
        c.subject = DryRunCondition::Subject::Query;
        c.queryReader = DryRunCondition::QueryReader::Spring;
        c.field = argOr("param", 0);
        const std::string regexp = argOr("regexp", 1);
        if (regexp.empty())
            c.prefixes = {""};
        else
            javaRegex(c, regexp, where);
        return c;
    }
    if (p.name == "Header") {
        const std::string header = argOr("header", 0), regexp = argOr("regexp", 1);
        c.field = headerFieldOf(header);
        if (regexp.empty())
            c.prefixes = {""};
        else
            javaRegex(c, regexp, where);
        out.notReplayed.push_back(where + " (" + header + (regexp.empty() ? "" : ", " + regexp) + ") reads the header, which "
                                  "the log does not hold (no field " + c.field + "): every request taken to match");
        c.note = int(out.notReplayed.size()) - 1;
        return c;
    }
    c.field = "host";
    std::vector<std::string> patterns; // any of them
    for (const QString& h : p.list) {
        javaRegex(c, antHost(h.toStdString(), includePort), where);
        patterns.push_back(c.regexes.front());
    }
    c.regexes = patterns;
    const std::string text = "route " + route + ": every logged request is taken to match Host=" + p.list.join(',').toStdString()
                             + " (the log holds no host)";
    (sharedHost ? out.assumed : out.notReplayed).push_back(text);
    (sharedHost ? c.assumedNote : c.note) = int((sharedHost ? out.assumed : out.notReplayed).size()) - 1;
    return c;
}

} // namespace

std::optional<DryRunConfig> springDryRunConfig(const QJsonValue& tree, const std::string& logKey)
{
    const QJsonObject gateway = at(at(at(tree, "spring"), "cloud"), "gateway").toObject();
    const QJsonObject base = !at(gateway, "routes").isUndefined() ? gateway : at(at(gateway, "server"), "webflux").toObject();
    const QJsonArray routes = at(base, "routes").toArray();
    if (routes.isEmpty())
        return std::nullopt;
    // GatewayAutoConfiguration's hostRoutePredicateFactory: the property, nested or dotted.
    const QJsonObject webflux = at(at(gateway, "server"), "webflux").toObject();
    const QJsonValue portSetting = !at(webflux, "predicate.host.include-port").isUndefined()
                                       ? at(webflux, "predicate.host.include-port")
                                       : at(at(at(webflux, "predicate"), "host"), "include-port");
    const bool includePort = treeText(portSetting) != "false";
    const std::string globalDeny = treeText(at(at(at(gateway, "filter"), "request-rate-limiter"), "deny-empty-key"));
    DryRunConfig out;
    out.product = "Spring Cloud Gateway";
    out.firstMatch = true;
    out.paths = DryRunPaths::Spring;
    std::vector<std::pair<std::int64_t, std::size_t>> order; // (order, file index)
    for (qsizetype i = 0; i < routes.size(); ++i) {
        const std::string o = treeText(at(routes[i], "order"));
        order.emplace_back(o.empty() ? 0 : parseIntegerIn(o, -(std::int64_t(1) << 31), (std::int64_t(1) << 31) - 1), std::size_t(i));
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // Every Host predicate's patterns: one that every route has decides nothing between them.
    std::set<std::string> hosts;
    bool everyHasHost = true;
    for (const QJsonValue& r : routes) {
        bool host = false;
        for (const QJsonValue& pv : at(r, "predicates").toArray())
            if (const Shortcut p = shortcutOf(pv); p.name == "Host") {
                hosts.insert(p.list.join(',').toStdString());
                host = true;
            }
        everyHasHost = everyHasHost && host;
    }
    const bool oneHost = everyHasHost && hosts.size() == 1;
    for (const auto& [unused, index] : order) {
        const QJsonObject r = routes[qsizetype(index)].toObject();
        const std::string id = treeText(at(r, "id")).empty() ? "#" + std::to_string(index + 1) : treeText(at(r, "id"));
        std::vector<std::size_t> rules;
        QJsonArray filters = at(base, "default-filters").toArray();
        for (const QJsonValue& f : at(r, "filters").toArray())
            filters.append(f);
        for (const QJsonValue& fv : filters) {
            const Shortcut f = shortcutOf(fv);
            if (f.name != "RequestRateLimiter")
                continue;
            if (!fv.isObject())
                throw InputError("Spring: route " + id + ": RequestRateLimiter without args: its rates are not in the filter");
            std::vector<ProductOption> options;
            for (const char* name : {"replenishRate", "burstCapacity", "requestedTokens"})
                if (const std::string v = arg(f.args, std::string("redis-rate-limiter.") + name); !v.empty())
                    options.push_back({name, v});
            const LimiterConfig config = LimiterConfig{}.withProductOptions(std::move(options));
            const Algorithm a = Algorithm::SpringGateway;
            checkProductOptions(config, std::span(&a, 1));
            const std::string resolver = arg(f.args, "key-resolver");
            RuleKey key{"user", false, "the principal's name (the default PrincipalNameKeyResolver), read as the log's user"};
            if (!resolver.empty()) { // a bean of the application: its code is not in the file
                key = {logKey, false, "the key its KeyResolver " + resolver + " returns"};
                out.notReplayed.push_back("route " + id + ": its KeyResolver " + resolver + " is the application's code, which "
                                          "--config cannot evaluate: replayed with the log's key (" + logKey + ") as its key");
            }
            const std::string name = "route " + id + ": RequestRateLimiter";
            rules.push_back(addPolicyRule(out, name + (rules.empty() ? "" : " #" + std::to_string(rules.size() + 1)), name,
                                          {a, config}, key, logKey));
            const std::string deny = arg(f.args, "deny-empty-key").empty() ? globalDeny : arg(f.args, "deny-empty-key");
            out.rules.back().denyEmptyKey = deny != "false";
        }
        std::vector<std::pair<std::string, bool>> patterns; // (pattern, matchTrailingSlash)
        std::vector<DryRunCondition> conditions;
        bool path = false;
        for (const QJsonValue& pv : at(r, "predicates").toArray()) {
            const Shortcut p = shortcutOf(pv);
            // Method: the request's method is one of those written, exactly (MethodRoutePredicateFactory
            // compares HttpMethod constants, spring-cloud-gateway 31050f6b3c2e); a log's request line holds it.
            if (p.name == "Method") {
                DryRunCondition c{"request_method"};
                for (const QString& m : p.list)
                    c.values.push_back(m.toStdString());
                out.notReplayed.push_back("route " + id + ": its Method predicate (" + p.list.join(',').toStdString()
                                          + ") reads the request's method, which the log does not hold: every method "
                                            "taken to match");
                c.note = int(out.notReplayed.size()) - 1;
                conditions.push_back(std::move(c));
                continue;
            }
            if (p.name == "Host" || p.name == "Header" || p.name == "Query") {
                conditions.push_back(requestCondition(p, id, oneHost, includePort, out));
                continue;
            }
            if (p.name != "Path" || path)
                throw InputError("Spring: route " + id + ": the predicate " + p.name + (path ? " (a second Path)" : "")
                                 + " is past what --config reads (Path, with Method, Host, Header and Query beside it)");
            path = true;
            QStringList list = p.list;
            bool trailing = arg(p.args, "matchTrailingSlash") != "false";
            if (!list.isEmpty() && (list.back() == "true" || list.back() == "false")) // the shortcut's flag
                trailing = list.takeLast() == "true";
            for (const QString& pattern : list) {
                checkSpringPattern(pattern.toStdString());
                patterns.emplace_back(pattern.toStdString(), trailing);
            }
        }
        if (!path)
            patterns.emplace_back("/**", true); // no Path predicate: every path
        for (const auto& [pattern, trailing] : patterns)
            out.places.push_back({"route " + id + " (Path=" + pattern + ")", DryRunMatch::Pattern, pattern, rules, trailing, conditions});
    }
    if (out.rules.empty())
        throw InputError("Spring: no route applies RequestRateLimiter: the config limits nothing");
    return out;
}

} // namespace ratelab::io
