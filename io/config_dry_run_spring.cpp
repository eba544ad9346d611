// Spring Cloud Gateway's routes on a log (config_dry_run.h): spring.cloud.gateway.routes (or
// .server.webflux.routes), sorted by their order as RouteDefinitionRouteLocator sorts them, the
// first whose Path predicate matches (PathRoutePredicateFactory: PathPattern, matchTrailingSlash
// true by default) taking the request; each RequestRateLimiter among the default filters and the
// route's own is a rule of that route: RedisRateLimiter keys Redis by the resolved key and the
// route's id (getKeys(id, routeId), spring-cloud-gateway 0434c61), so each route counts apart.
// Beside Path, a route's Method, Host, Header, Query, RemoteAddr, XForwardedRemoteAddr, Cookie,
// After, Before and Between predicates are conditions on the log's fields, target and time, as
// spring-cloud-gateway 5227205c743d's predicate factories test them; Weight and the predicates
// reading what no log holds are named and taken to match; a KeyResolver bean is the
// application's code, named, and replayed with the log's key.
#include "config_dry_run_routes.h"
#include "config_dry_run_spring_values.h"
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"
#include "replay/product_regex.h"
#include "traffic/traffic_log.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <map>
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
    } else if (v.isArray()) { // a list argument (sources: [a, b]) as the binder's indexes
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            flatArgs(a[i], path + "." + std::to_string(i), out);
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
            if (k.starts_with("_genkey_") || k.starts_with("patterns") || k == "pattern" || k.starts_with("methods")
                || k.starts_with("sources"))
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

// Alternatives is what a route tests besides its paths: it matches when one list holds whole
// (XForwardedRemoteAddr makes two: by the header, or by the connection without it).
using Alternatives = std::vector<std::vector<DryRunCondition>>;

void addCondition(Alternatives& alternatives, const DryRunCondition& c)
{
    for (std::vector<DryRunCondition>& a : alternatives)
        a.push_back(c);
}

// noted names what a condition needs of the log until bindKeyFields binds its field.
DryRunCondition noted(DryRunCondition c, const std::string& text, DryRunConfig& out)
{
    out.notReplayed.push_back(text);
    c.note = int(out.notReplayed.size()) - 1;
    return c;
}

// addressPredicate reads RemoteAddr (the connection's address, the log's ip, in one of the
// sources: RemoteAddrRoutePredicateFactory) and XForwardedRemoteAddr (its entry maxTrustedIndex
// from the right, 1 by default, when X-Forwarded-For has one, else the connection's address:
// XForwardedRemoteAddrRoutePredicateFactory and XForwardedRemoteAddressResolver).
void addressPredicate(const Shortcut& p, const std::string& id, Alternatives& alternatives, DryRunConfig& out)
{
    const std::string where = "route " + id + ": its " + p.name + " predicate", sources = p.list.join(',').toStdString();
    DryRunCondition c{"ip"};
    for (const QString& source : p.list)
        c.addresses.push_back(nettyRange(source.toStdString(), where));
    const std::string lacksIp = " the client's address, which the log does not hold (no field ip): every request taken to match";
    if (p.name == "RemoteAddr") {
        if (c.addresses.empty())
            throw InputError("Spring: " + where + " has no sources: Spring refuses it (@NotEmpty sources)");
        addCondition(alternatives, noted(c, where + " (" + sources + ") reads" + lacksIp, out));
        return;
    }
    const std::string index = arg(p.args, "maxTrustedIndex");
    try {
        c.forwardedIndex = index.empty() ? 1 : int(parseIntegerIn(index, 1, std::numeric_limits<int>::max()));
    } catch (const InputError& e) {
        throw InputError("Spring: " + where + ": maxTrustedIndex: " + e.what() + " (Spring requires an index above 0)");
    }
    DryRunCondition header = noted(c, where + " (" + sources + ") reads X-Forwarded-For, which the log does not hold (no "
                                                                "field http_x_forwarded_for): every request taken to match",
                                   out);
    header.field = "http_x_forwarded_for";
    DryRunCondition noEntry = header; // the header has no entry: the connection's address decides
    noEntry.addresses.clear();
    noEntry.prefixes = {""};
    noEntry.negate = true;
    const DryRunCondition direct = noted(c, where + " (" + sources + ") reads, for a request without X-Forwarded-For," + lacksIp, out);
    Alternatives both;
    for (std::vector<DryRunCondition> a : alternatives) {
        both.push_back(a);
        both.back().push_back(header);
        a.push_back(noEntry);
        a.push_back(direct);
        both.push_back(std::move(a));
    }
    alternatives = std::move(both);
}

// timePredicate reads After, Before and Between: the instant the request is served
// (ZonedDateTime.now()), here its logged time, strictly after `datetime` (isAfter), strictly
// before it (isBefore), or strictly between datetime1 and datetime2, which Spring requires in
// that order (Assert.isTrue in BetweenRoutePredicateFactory.apply).
void timePredicate(const Shortcut& p, const std::string& id, Alternatives& alternatives, DryRunConfig& out)
{
    const std::string where = "route " + id + ": its " + p.name + " predicate";
    const auto value = [&](const char* name, qsizetype i) {
        std::string v = arg(p.args, name);
        if (v.empty() && p.list.size() > i)
            v = p.list[i].toStdString();
        if (v.empty())
            throw InputError("Spring: " + where + " has no " + name + ": Spring refuses it (@NotNull " + name + ")");
        return javaInstant(v, where);
    };
    DryRunCondition c;
    c.subject = DryRunCondition::Subject::Time;
    if (p.name == "After") {
        c.after = value("datetime", 0);
    } else if (p.name == "Before") {
        c.before = value("datetime", 0);
    } else {
        c.after = value("datetime1", 0);
        c.before = value("datetime2", 1);
        if (!(*c.after < *c.before))
            throw InputError("Spring: " + where + ": datetime1 must be before datetime2: Spring refuses it");
    }
    addCondition(alternatives, c);
    out.assumed.push_back(where + ": each request is taken to be served at its logged time");
}

// namedPredicate reads the predicates a log cannot decide: Cookie (CookieRoutePredicateFactory:
// a value of the cookie matching the Java regex whole; replayed on a log field cookie_NAME,
// nginx's $cookie_NAME), Weight (WeightRoutePredicateFactory: a random share of the group's
// requests), and those reading what no log holds. Each is taken to match, named.
void namedPredicate(const Shortcut& p, const std::string& id, Alternatives& alternatives, DryRunConfig& out,
                    std::map<std::string, std::string>& firstOfGroup)
{
    const std::string where = "route " + id + ": its " + p.name + " predicate";
    const auto argOr = [&](const char* name, const char* prefixed, qsizetype i) {
        const std::string a = !arg(p.args, name).empty() ? arg(p.args, name) : arg(p.args, prefixed);
        return !a.empty() || p.list.size() <= i ? a : p.list[i].toStdString();
    };
    if (p.name == "Cookie") {
        const std::string name = argOr("name", "name", 0), regexp = argOr("regexp", "regexp", 1);
        if (name.empty() || regexp.empty())
            throw InputError("Spring: " + where + " needs a name and a regexp: Spring refuses it (@NotEmpty)");
        DryRunCondition c{"cookie_" + name};
        javaRegex(c, regexp, where);
        addCondition(alternatives, noted(c, where + " (" + name + ", " + regexp + ") reads the cookie, which the log does not "
                                                 "hold (no field cookie_" + name + "): every request taken to match", out));
    } else if (p.name == "Weight") {
        const std::string group = argOr("group", "weight.group", 0), weight = argOr("weight", "weight.weight", 1);
        const std::string first = firstOfGroup.try_emplace(group, id).first->second;
        out.notReplayed.push_back(where + " (" + group + ", " + weight + ") sends it a random share of group " + group
                                  + "'s requests, which --config does not replay: it is taken to match, so route " + first
                                  + ", the group's first in order, takes every request of the group that its path takes");
    } else { // CloudFoundryRouteService, ReadBody, Version
        out.notReplayed.push_back(where + " reads what the log does not hold (Cloud Foundry's headers, the body, the API "
                                          "version), which --config does not evaluate: every request taken to match");
    }
}

// routeOrder is the routes' file indices in Spring's order: by `order` (0 when none), the file's
// among equals.
std::vector<std::size_t> routeOrder(const QJsonArray& routes)
{
    std::vector<std::pair<std::int64_t, std::size_t>> order; // (order, file index)
    for (qsizetype i = 0; i < routes.size(); ++i) {
        const std::string o = treeText(at(routes[i], "order"));
        order.emplace_back(o.empty() ? 0 : parseIntegerIn(o, -(std::int64_t(1) << 31), (std::int64_t(1) << 31) - 1), std::size_t(i));
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::size_t> indices;
    for (const auto& [unused, index] : order)
        indices.push_back(index);
    return indices;
}

// oneHost: every route has a Host predicate and all of them are the same patterns, which then
// decide nothing between the routes.
bool oneHost(const QJsonArray& routes)
{
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
    return everyHasHost && hosts.size() == 1;
}

// rateLimiterRules adds a rule for each RequestRateLimiter of route `id` (the default filters,
// then its own) and returns their indices.
std::vector<std::size_t> rateLimiterRules(const QJsonArray& filters, const std::string& id, const std::string& globalDeny,
                                          const std::string& logKey, DryRunConfig& out)
{
    std::vector<std::size_t> rules;
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
    return rules;
}

// RouteMatch is what a route's predicates match: its Path patterns (each with its
// matchTrailingSlash), and the alternatives of conditions the others make.
struct RouteMatch {
    std::vector<std::pair<std::string, bool>> patterns;
    Alternatives conditions{{}};
};

// addPathPredicate adds a Path predicate's patterns, each checked as Spring parses it.
void addPathPredicate(const Shortcut& p, RouteMatch& match)
{
    QStringList list = p.list;
    bool trailing = arg(p.args, "matchTrailingSlash") != "false";
    if (!list.isEmpty() && (list.back() == "true" || list.back() == "false")) // the shortcut's flag
        trailing = list.takeLast() == "true";
    for (const QString& pattern : list) {
        checkSpringPattern(pattern.toStdString());
        match.patterns.emplace_back(pattern.toStdString(), trailing);
    }
}

// RouteSettings is what the gateway's settings make of every route's predicates.
struct RouteSettings {
    bool oneHost = false;     // oneHost(routes)
    bool includePort = true;  // predicate.host.include-port
    std::map<std::string, std::string> firstOfGroup; // a Weight group and its first route in order
};

RouteMatch routeMatch(const QJsonObject& r, const std::string& id, RouteSettings& settings, DryRunConfig& out)
{
    RouteMatch match;
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
            addCondition(match.conditions, c);
        } else if (p.name == "Host" || p.name == "Header" || p.name == "Query") {
            addCondition(match.conditions, requestCondition(p, id, settings.oneHost, settings.includePort, out));
        } else if (p.name == "RemoteAddr" || p.name == "XForwardedRemoteAddr") {
            addressPredicate(p, id, match.conditions, out);
        } else if (p.name == "After" || p.name == "Before" || p.name == "Between") {
            timePredicate(p, id, match.conditions, out);
        } else if (p.name == "Cookie" || p.name == "Weight" || p.name == "CloudFoundryRouteService" || p.name == "ReadBody"
                   || p.name == "Version") {
            namedPredicate(p, id, match.conditions, out, settings.firstOfGroup);
        } else if (p.name != "Path") {
            throw InputError("Spring: route " + id + ": " + p.name + " is no predicate of Spring Cloud Gateway (its "
                             "RoutePredicateFactory classes at 5227205c743d): Spring refuses the route");
        } else {
            if (path)
                throw InputError("Spring: route " + id + ": a second Path predicate is past what --config reads");
            path = true;
            addPathPredicate(p, match);
        }
    }
    if (!path)
        match.patterns.emplace_back("/**", true); // no Path predicate: every path
    return match;
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
    const std::vector<std::size_t> order = routeOrder(routes);
    RouteSettings settings{oneHost(routes), includePort, {}};
    for (const std::size_t index : order) {
        const QJsonObject r = routes[qsizetype(index)].toObject();
        const std::string id = treeText(at(r, "id")).empty() ? "#" + std::to_string(index + 1) : treeText(at(r, "id"));
        QJsonArray filters = at(base, "default-filters").toArray();
        for (const QJsonValue& f : at(r, "filters").toArray())
            filters.append(f);
        const std::vector<std::size_t> rules = rateLimiterRules(filters, id, globalDeny, logKey, out);
        const RouteMatch match = routeMatch(r, id, settings, out);
        for (const auto& [pattern, trailing] : match.patterns)
            for (const std::vector<DryRunCondition>& alternative : match.conditions)
                out.places.push_back({"route " + id + " (Path=" + pattern + ")", DryRunMatch::Pattern, pattern, rules, trailing,
                                      alternative});
    }
    if (out.rules.empty())
        throw InputError("Spring: no route applies RequestRateLimiter: the config limits nothing");
    return out;
}

} // namespace ratelab::io
