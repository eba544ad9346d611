// Kong's declarative config (kong.yml) on a log (config_dry_run.h): its routes, tried as Kong's
// router orders them, select per request the rate-limiting plugin that applies.
//
// Kong 3.x's router (traditional_compatible, kong/router/transform.lua get_priority) tries a
// route's paths by a priority: the number of fields the route matches on (hosts, paths...), a
// host without a wildcard, a regex path ("~" first) above every prefix path, then among regexes
// their regex_priority and among prefixes their length, longest first; a regex is anchored at the
// path's start ("^" prepended). The path is first normalized (kong/router/utils.lua
// strip_uri_args -> kong/tools/uri.lua normalize(uri, true)). One instance of a plugin runs per
// request, the most specific: the route's, else its service's, else the global one
// (kong/runloop/plugins_iterator.lua); its counters are its own (the policies' keys carry the
// plugin's route_id and service_id, kong/plugins/rate-limiting/policies/init.lua).
#include "config_dry_run_routes.h"
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <map>
#include <tuple>

namespace ratelab::io {

namespace {

struct Plugin {
    QJsonObject config;
    std::string scope; // "route login", "service api", "global"
    bool enabled = true;
};

struct Route {
    std::string name, service;
    QJsonObject object;
};

// AuthPlugin is one instance of a plugin that identifies consumers: its name, where it applies,
// and whether it takes a request without credentials as an anonymous consumer (config.anonymous)
// instead of answering 401.
struct AuthPlugin {
    std::string name, scope;
    bool anonymous = false;
};

// The plugins that set a consumer (kong.client.authenticate, at Kong commit 22246ef28c16: each of
// kong/plugins/{basic-auth,hmac-auth,ldap-auth,oauth2,session}/access.lua,
// kong/plugins/{jwt,key-auth}/handler.lua). Each runs at a priority above rate-limiting's 910.
const char* const kAuthPlugins[] = {"basic-auth", "hmac-auth", "jwt", "key-auth", "ldap-auth", "oauth2", "session"};

std::string nameOf(const QJsonValue& ref)
{
    return ref.isObject() ? treeText(ref.toObject().value("name")).empty() ? treeText(ref.toObject().value("id"))
                                                                            : treeText(ref.toObject().value("name"))
                          : treeText(ref);
}

Layer kongLayer(const QJsonObject& c)
{
    std::vector<ProductOption> options;
    for (const char* unit : {"second", "minute", "hour", "day", "month", "year"})
        if (const std::string v = treeText(c.value(unit)); !v.empty() && v != "null")
            options.push_back({unit, v});
    if (options.empty())
        throw InputError("a rate-limiting plugin sets none of second, minute, hour, day, month, year");
    const LimiterConfig config = LimiterConfig{}.withProductOptions(std::move(options));
    const Algorithm a = Algorithm::Kong;
    checkProductOptions(config, std::span(&a, 1));
    return {a, config};
}

// Candidate is one path of one route, with Kong's priority.
struct Candidate {
    // weight, plain host, regex, headers, regex_priority, length (transform.lua get_priority's fields, in its order)
    std::tuple<int, int, int, std::int64_t, std::int64_t, std::int64_t> priority;
    DryRunPlace place;
    std::string route;
};

// routeConditions reads what a route matches on besides its paths (transform.lua get_expression,
// at Kong commit 22246ef28c16): `methods` (http.method equal to one), `hosts` (http.host equal
// to one, "*.x" by its end, "x.*" by its start), each of `headers` (a value equal to one,
// lower-cased). Each reads a log field: request_method (a request line holds it), host,
// http_NAME; one the log lacks is taken to hold, named (hosts: assumed) until the log binds it.
std::vector<DryRunCondition> routeConditions(const Route& r, DryRunConfig& out)
{
    std::vector<DryRunCondition> conditions;
    if (const QJsonArray methods = r.object.value("methods").toArray(); !methods.isEmpty()) {
        DryRunCondition c{"request_method"};
        std::string list;
        for (const QJsonValue& m : methods) {
            c.values.push_back(treeText(m));
            list += (list.empty() ? "" : ", ") + treeText(m);
        }
        out.notReplayed.push_back("route " + r.name + " matches on methods " + list + ", which the log does not hold "
                                  "(no request line nor request_method): every method taken to match");
        c.note = int(out.notReplayed.size()) - 1;
        conditions.push_back(std::move(c));
    }
    if (const QJsonArray hosts = r.object.value("hosts").toArray(); !hosts.isEmpty()) {
        DryRunCondition c{"host"};
        c.caseless = true;
        std::string list;
        for (const QJsonValue& hv : hosts) {
            std::string h = lowerAscii(treeText(hv));
            list += (list.empty() ? "" : ", ") + h;
            if (const auto colon = h.rfind(':'); colon != std::string::npos && h.find(']', colon) == std::string::npos) {
                out.assumed.push_back("route " + r.name + ": host " + h + " is matched by its name; its port is taken to "
                                      "be the one every logged request came to");
                h.resize(colon);
            }
            if (h.starts_with('*'))
                c.suffixes.push_back(h.substr(1));
            else if (h.ends_with('*'))
                c.prefixes.push_back(h.substr(0, h.size() - 1));
            else
                c.values.push_back(h);
        }
        out.assumed.push_back("route " + r.name + ": every logged request is taken to be for host " + list
                              + " (the log holds no host)");
        c.assumedNote = int(out.assumed.size()) - 1;
        conditions.push_back(std::move(c));
    }
    const QJsonObject headers = r.object.value("headers").toObject();
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        std::string field = "http_" + lowerAscii(it.key().toStdString());
        std::replace(field.begin(), field.end(), '-', '_');
        DryRunCondition c{field};
        c.caseless = true;
        const QJsonArray values = it.value().isArray() ? it.value().toArray() : QJsonArray{it.value()};
        for (const QJsonValue& v : values) {
            const std::string value = treeText(v);
            if (value.starts_with("~*"))
                throw InputError("Kong: route " + r.name + ": the header " + it.key().toStdString() + " is matched by the "
                                 "regex " + ratelab::quoted(value) + ": not modelled");
            c.values.push_back(lowerAscii(value));
        }
        out.notReplayed.push_back("route " + r.name + " matches on the header " + it.key().toStdString() + ", which the log "
                                  "does not hold (" + field + "): every request taken to match");
        c.note = int(out.notReplayed.size()) - 1;
        conditions.push_back(std::move(c));
    }
    return conditions;
}

// disjointMethods reports whether two places take no request in common by their methods, so that
// which one Kong tries first among equal priorities changes nothing.
bool disjointMethods(const DryRunPlace& a, const DryRunPlace& b)
{
    const auto methods = [](const DryRunPlace& p) -> const std::vector<std::string>* {
        for (const DryRunCondition& c : p.conditions)
            if (c.field == "request_method")
                return &c.values;
        return nullptr;
    };
    const std::vector<std::string>*x = methods(a), *y = methods(b);
    return x && y && std::none_of(x->begin(), x->end(), [&](const std::string& m) {
               return std::find(y->begin(), y->end(), m) != y->end();
           });
}

// KongDeclared is what a declarative config declares: its routes (a service's, then the top
// level's), its rate-limiting plugins and its authentication plugins, each with its scope.
struct KongDeclared {
    std::vector<Route> routes;
    std::vector<Plugin> plugins;
    std::vector<AuthPlugin> auths;

    // addPlugins reads a plugins list; an empty scope (the top level's list) takes each plugin's
    // own consumer, route or service reference, else global.
    void addPlugins(const QJsonValue& list, const std::string& scope)
    {
        for (const QJsonValue& p : list.toArray()) {
            const QJsonObject o = p.toObject();
            const std::string name = treeText(o.value("name"));
            std::string s = scope;
            if (s.empty())
                s = o.contains("consumer") ? "consumer " + nameOf(o.value("consumer"))
                    : o.contains("route")  ? "route " + nameOf(o.value("route"))
                    : o.contains("service") ? "service " + nameOf(o.value("service"))
                                            : "global";
            const bool enabled = treeText(o.value("enabled")) != "false";
            if (std::find(std::begin(kAuthPlugins), std::end(kAuthPlugins), name) != std::end(kAuthPlugins) && enabled) {
                const std::string anonymous = treeText(o.value("config").toObject().value("anonymous"));
                auths.push_back({name, s, !anonymous.empty() && anonymous != "null"});
            }
            if (name == "rate-limiting")
                plugins.push_back({o.value("config").toObject(), s, enabled});
        }
    }
};

KongDeclared readDeclared(const QJsonObject& root)
{
    KongDeclared d;
    for (const QJsonValue& sv : root.value("services").toArray()) {
        const QJsonObject s = sv.toObject();
        const std::string service = nameOf(s);
        d.addPlugins(s.value("plugins"), "service " + service);
        for (const QJsonValue& rv : s.value("routes").toArray()) {
            d.routes.push_back({nameOf(rv), service, rv.toObject()});
            d.addPlugins(rv.toObject().value("plugins"), "route " + d.routes.back().name);
        }
    }
    for (const QJsonValue& rv : root.value("routes").toArray()) {
        d.routes.push_back({nameOf(rv), nameOf(rv.toObject().value("service")), rv.toObject()});
        d.addPlugins(rv.toObject().value("plugins"), "route " + d.routes.back().name);
    }
    d.addPlugins(root.value("plugins"), "");
    return d;
}

// authFor is what Kong's authentication makes of a route's requests: per plugin name the most
// specific instance runs (the route's, its service's, the global one).
KongAuth authFor(const Route& r, const std::vector<AuthPlugin>& auths)
{
    bool any = false, all = true;
    for (const char* name : kAuthPlugins) {
        const AuthPlugin* runs = nullptr;
        for (const std::string& scope : {"route " + r.name, "service " + r.service, std::string("global")})
            for (const AuthPlugin& a : auths)
                if (!runs && a.name == name && a.scope == scope)
                    runs = &a;
        if (runs) {
            any = true;
            all = all && runs->anonymous;
        }
    }
    return !any ? KongAuth::None : all ? KongAuth::Anonymous : KongAuth::Required;
}

// noteKeying says how a plugin's limit_by consumer or credential keys requests given the route's
// authentication, and what a policy other than local becomes.
void noteKeying(DryRunConfig& out, const std::string& id, const std::string& by, KongAuth auth, const Route& route,
                const Plugin& p)
{
    const bool byConsumer = by == "consumer" || by == "credential";
    if (byConsumer && auth == KongAuth::None)
        out.assumed.push_back("rate-limiting on " + id + ": no authentication plugin runs on route " + route.name
                              + ", so Kong identifies no consumer and keys each request by its client IP (limit_by: " + by
                              + " falls back to it)");
    else if (byConsumer && auth == KongAuth::Required)
        out.assumed.push_back("rate-limiting on " + id + ": the consumer is the log's user; a request without one was "
                              "answered 401 by the authentication plugin before any limit, so it meets none");
    else if (by == "consumer" && auth == KongAuth::Anonymous)
        out.notReplayed.push_back("rate-limiting on " + id + ": a request without credentials is the anonymous consumer's, "
                                  "one counter in Kong: such requests (no user in the log) are let through");
    std::string policy = treeText(p.config.value("policy"));
    if (!policy.empty() && policy != "local")
        out.assumed.push_back("rate-limiting on " + id + ": policy " + policy + " is replayed as local (one node's counters)");
}

// KongRules makes one rule per plugin instance (per service for a global limit_by service), the
// first time a route meets it.
struct KongRules {
    DryRunConfig& out;
    const std::vector<AuthPlugin>& auths;
    const std::string& logKey;
    std::map<std::string, std::size_t> ruleOf; // scope (and, for a global limit_by service, the service) -> rule
    std::map<std::string, std::pair<KongAuth, std::string>> authOf; // rule id -> its routes' authentication, the first route

    std::size_t ruleFor(const Plugin& p, const Route& route)
    {
        const std::string by = treeText(p.config.value("limit_by")).empty() ? "consumer" : treeText(p.config.value("limit_by"));
        const KongAuth auth = authFor(route, auths);
        const RuleKey key = kongKey(by, treeText(p.config.value("header_name")), auth);
        const bool perService = key.shared && p.scope == "global";
        const std::string id = p.scope + (perService ? " (service " + route.service + ")" : "");
        const bool byConsumer = by == "consumer" || by == "credential";
        if (const auto it = ruleOf.find(id); it != ruleOf.end()) {
            // One plugin's counters hold consumers on an authenticated route and addresses on another:
            // which requests share a counter then depends on ids the log does not hold.
            if (byConsumer && authOf[id].first != auth)
                throw InputError("Kong: rate-limiting on " + id + " (limit_by: " + by + ") applies to route " + authOf[id].second
                                 + " and route " + route.name + ", which differ in authentication: not modelled");
            return it->second;
        }
        authOf[id] = {auth, route.name};
        noteKeying(out, id, by, auth, route, p);
        return ruleOf[id] = addPolicyRule(out, "rate-limiting on " + id, id, kongLayer(p.config), key, logKey);
    }
};

// refuseUnreadFields refuses a route that matches on what a log does not hold.
void refuseUnreadFields(const Route& r)
{
    for (const char* field : {"snis", "sources", "destinations", "expression"})
        if (r.object.contains(field) && !r.object.value(field).isNull()
            && !(r.object.value(field).isArray() && r.object.value(field).toArray().isEmpty()))
            throw InputError("Kong: route " + r.name + " matches on " + field + ", which a log does not hold: not modelled");
}

// mostSpecificPlugin is the enabled plugin that runs on a route: the route's, its service's, the
// global one.
const Plugin* mostSpecificPlugin(const Route& r, const std::vector<Plugin>& plugins)
{
    const Plugin* plugin = nullptr;
    for (const std::string& scope : {"route " + r.name, "service " + r.service, std::string("global")})
        for (const Plugin& p : plugins)
            if (!plugin && p.enabled && p.scope == scope)
                plugin = &p;
    return plugin;
}

// addCandidates adds one candidate per path of a route (one for every path when it has none), with
// get_priority's fields.
void addCandidates(std::vector<Candidate>& candidates, const Route& r, const std::vector<DryRunCondition>& conditions,
                   const std::vector<std::size_t>& rules)
{
    const QJsonArray hosts = r.object.value("hosts").toArray();
    bool plainHost = !hosts.isEmpty();
    for (const QJsonValue& h : hosts)
        plainHost = plainHost && treeText(h).find('*') == std::string::npos;
    const bool methods = !r.object.value("methods").toArray().isEmpty();
    const auto headers = std::int64_t(r.object.value("headers").toObject().size());
    QJsonArray paths = r.object.value("paths").toArray();
    if (paths.isEmpty())
        paths.append(QString()); // no paths: every path
    const std::int64_t regexPriority = parseIntegerIn(treeText(r.object.value("regex_priority")).empty()
                                                          ? "0" : treeText(r.object.value("regex_priority")),
                                                      -(std::int64_t(1) << 40), std::int64_t(1) << 40);
    for (const QJsonValue& pv : paths) {
        const std::string path = treeText(pv);
        // Kong 3's schema (typedefs.router_path): a path starts "/" or "~/" and has no "//".
        if (!path.empty() && !path.starts_with('/') && !path.starts_with("~/"))
            throw InputError("Kong: route " + r.name + ": the path " + ratelab::quoted(path)
                             + " should start with: / (fixed path) or ~/ (regex path)");
        if (path.find("//") != std::string::npos)
            throw InputError("Kong: route " + r.name + ": the path " + ratelab::quoted(path) + " must not have empty segments");
        const bool regex = path.starts_with('~');
        const int weight = (hosts.isEmpty() ? 0 : 1) + (path.empty() ? 0 : 1) + (methods ? 1 : 0) + (headers ? 1 : 0);
        DryRunPlace place{"route " + r.name + " (" + (path.empty() ? "every path" : path) + ")",
                          regex ? DryRunMatch::RegexStart : DryRunMatch::Prefix, regex ? path.substr(1) : path, rules};
        place.conditions = conditions;
        candidates.push_back({{weight, plainHost, regex, std::min<std::int64_t>(headers, 255), regex ? regexPriority : 0,
                               regex ? 0 : std::int64_t(path.size())},
                              std::move(place), r.name});
    }
}

// orderCandidates sorts the candidates as Kong tries them and refuses two of equal priority whose
// order would matter.
void orderCandidates(std::vector<Candidate>& candidates)
{
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.priority > b.priority; });
    for (std::size_t i = 0; i + 1 < candidates.size(); ++i) {
        const Candidate &a = candidates[i], &b = candidates[i + 1];
        if (a.priority == b.priority && (std::get<2>(a.priority) || a.place.pattern == b.place.pattern)
            && !disjointMethods(a.place, b.place))
            throw InputError("Kong: " + a.place.where + " and " + b.place.where + " have the same priority: which one "
                             "Kong tries first is not modelled; give one a regex_priority");
    }
}

// noteIdlePlugins names the plugins no replayed request meets, and why.
void noteIdlePlugins(DryRunConfig& out, const std::vector<Plugin>& plugins, std::map<std::string, bool>& used)
{
    for (const Plugin& p : plugins)
        if (!p.enabled)
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": enabled: false, so Kong runs it nowhere");
        else if (p.scope.starts_with("consumer"))
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": which requests are that consumer's is not in the log: not replayed");
        else if (!used[p.scope])
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": a more specific plugin, or no route, leaves it no request");
}

} // namespace

RuleKey kongKey(const std::string& by, const std::string& headerName, KongAuth auth)
{
    // get_identifier (kong/plugins/rate-limiting/handler.lua at Kong commit 22246ef28c16): consumer
    // -> the consumer, else the credential; credential -> the credential; header -> the header;
    // path -> the path when it is conf.path; and whichever is missing, the forwarded client IP.
    const std::string ip = "the client's IP (get_identifier's fall-back)";
    if (by == "ip")
        return {"ip", false, "the client's IP (limit_by: ip)"};
    if (by == "consumer" || by == "credential") {
        if (auth == KongAuth::None) // no plugin sets a consumer or a credential: always the IP
            return {"ip", false, "the client's IP (limit_by: " + by + " with no authentication plugin: get_identifier's fall-back)"};
        RuleKey key{"user", false, "the authenticated " + by + " (limit_by: " + by + "), read as the log's user"};
        // The anonymous consumer has no credential, so limit_by: credential keys it by its IP.
        if (auth == KongAuth::Unknown || (auth == KongAuth::Anonymous && by == "credential")) {
            key.fallback = "ip";
            key.fallbackWords = ip;
        }
        return key;
    }
    if (by == "service")
        return {"", true, "the service (limit_by: service): one counter for the service's requests"};
    if (by == "header") {
        std::string field = "http_" + lowerAscii(headerName);
        std::replace(field.begin(), field.end(), '-', '_');
        return {field, false, "the header " + headerName + " (limit_by: header)", "ip", ip};
    }
    if (by == "path")
        return {"", false, "the path, for requests to config.path, else the IP (limit_by: path)"};
    return {"", false, "limit_by: " + by};
}

std::optional<DryRunConfig> kongDryRunConfig(const QJsonValue& tree, const std::string& logKey)
{
    const KongDeclared declared = readDeclared(tree.toObject());
    if (declared.routes.empty() || declared.plugins.empty())
        return std::nullopt;
    DryRunConfig out;
    out.product = "Kong";
    out.firstMatch = true;
    out.paths = DryRunPaths::Kong;
    KongRules rules{out, declared.auths, logKey, {}, {}};
    std::vector<Candidate> candidates;
    std::map<std::string, bool> used;
    for (const Route& r : declared.routes) {
        refuseUnreadFields(r);
        const std::vector<DryRunCondition> conditions = routeConditions(r, out);
        std::vector<std::size_t> routeRules;
        if (const Plugin* plugin = mostSpecificPlugin(r, declared.plugins)) {
            routeRules.push_back(rules.ruleFor(*plugin, r));
            used[plugin->scope] = true;
        }
        addCandidates(candidates, r, conditions, routeRules);
    }
    orderCandidates(candidates);
    for (Candidate& c : candidates)
        out.places.push_back(std::move(c.place));
    noteIdlePlugins(out, declared.plugins, used);
    if (out.rules.empty())
        throw InputError("Kong: no route meets a rate-limiting plugin: the config limits nothing");
    return out;
}

} // namespace ratelab::io
