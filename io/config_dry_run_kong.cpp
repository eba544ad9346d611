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

std::string nameOf(const QJsonValue& ref)
{
    return ref.isObject() ? treeText(ref.toObject().value("name")).empty() ? treeText(ref.toObject().value("id"))
                                                                            : treeText(ref.toObject().value("name"))
                          : treeText(ref);
}

// kongKey is what the plugin's limit_by keys by (kong/plugins/rate-limiting/handler.lua get_identifier).
RuleKey kongKey(const QJsonObject& c)
{
    const std::string by = treeText(c.value("limit_by")).empty() ? "consumer" : treeText(c.value("limit_by"));
    if (by == "ip")
        return {"ip", false, "the client's IP (limit_by: ip)"};
    if (by == "consumer" || by == "credential")
        return {"user", false, "the authenticated " + by + " (limit_by: " + by + "), read as the log's user"};
    if (by == "service")
        return {"", true, "the service (limit_by: service): one counter for the service's requests"};
    if (by == "header") {
        std::string field = "http_" + lowerAscii(treeText(c.value("header_name")));
        std::replace(field.begin(), field.end(), '-', '_');
        return {field, false, "the header " + treeText(c.value("header_name")) + " (limit_by: header)"};
    }
    if (by == "path")
        return {"", false, "the path " + treeText(c.value("path")) + " for that path, else the IP (limit_by: path)"};
    return {"", false, "limit_by: " + by};
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
    std::tuple<int, int, int, std::int64_t, std::int64_t> priority; // weight, plain host, regex, regex_priority, length
    DryRunPlace place;
    std::string route;
};

} // namespace

std::optional<DryRunConfig> kongDryRunConfig(const QJsonValue& tree, const std::string& logKey)
{
    const QJsonObject root = tree.toObject();
    std::vector<Route> routes;
    std::vector<Plugin> plugins;
    const auto addPlugins = [&](const QJsonValue& list, const std::string& scope) {
        for (const QJsonValue& p : list.toArray()) {
            const QJsonObject o = p.toObject();
            if (treeText(o.value("name")) != "rate-limiting")
                continue;
            std::string s = scope;
            if (s.empty())
                s = o.contains("consumer") ? "consumer " + nameOf(o.value("consumer"))
                    : o.contains("route")  ? "route " + nameOf(o.value("route"))
                    : o.contains("service") ? "service " + nameOf(o.value("service"))
                                            : "global";
            plugins.push_back({o.value("config").toObject(), s, treeText(o.value("enabled")) != "false"});
        }
    };
    for (const QJsonValue& sv : root.value("services").toArray()) {
        const QJsonObject s = sv.toObject();
        const std::string service = nameOf(s);
        addPlugins(s.value("plugins"), "service " + service);
        for (const QJsonValue& rv : s.value("routes").toArray()) {
            routes.push_back({nameOf(rv), service, rv.toObject()});
            addPlugins(rv.toObject().value("plugins"), "route " + routes.back().name);
        }
    }
    for (const QJsonValue& rv : root.value("routes").toArray()) {
        routes.push_back({nameOf(rv), nameOf(rv.toObject().value("service")), rv.toObject()});
        addPlugins(rv.toObject().value("plugins"), "route " + routes.back().name);
    }
    addPlugins(root.value("plugins"), "");
    if (routes.empty() || plugins.empty())
        return std::nullopt;
    DryRunConfig out;
    out.product = "Kong";
    out.firstMatch = true;
    out.paths = DryRunPaths::Kong;
    std::map<std::string, std::size_t> ruleOf; // scope (and, for a global limit_by service, the service) -> rule
    const auto ruleFor = [&](const Plugin& p, const std::string& service) -> std::optional<std::size_t> {
        const RuleKey key = kongKey(p.config);
        const bool perService = key.shared && p.scope == "global";
        const std::string id = p.scope + (perService ? " (service " + service + ")" : "");
        if (const auto it = ruleOf.find(id); it != ruleOf.end())
            return it->second;
        std::string policy = treeText(p.config.value("policy"));
        if (!policy.empty() && policy != "local")
            out.assumed.push_back("rate-limiting on " + id + ": policy " + policy + " is replayed as local (one node's counters)");
        return ruleOf[id] = addPolicyRule(out, "rate-limiting on " + id, id, kongLayer(p.config), key, logKey);
    };
    std::vector<Candidate> candidates;
    std::map<std::string, bool> used;
    for (const Route& r : routes) {
        for (const char* field : {"methods", "headers", "snis", "sources", "destinations", "expression"})
            if (r.object.contains(field) && !r.object.value(field).isNull()
                && !(r.object.value(field).isArray() && r.object.value(field).toArray().isEmpty()))
                throw InputError("Kong: route " + r.name + " matches on " + field + ", which a log does not hold: not modelled");
        const Plugin* plugin = nullptr; // the most specific: the route's, its service's, the global one
        for (const std::string& scope : {"route " + r.name, "service " + r.service, std::string("global")})
            for (const Plugin& p : plugins)
                if (!plugin && p.enabled && p.scope == scope)
                    plugin = &p;
        std::vector<std::size_t> rules;
        if (plugin) {
            rules.push_back(*ruleFor(*plugin, r.service));
            used[plugin->scope] = true;
        }
        const QJsonArray hosts = r.object.value("hosts").toArray();
        bool plainHost = !hosts.isEmpty();
        for (const QJsonValue& h : hosts) {
            plainHost = plainHost && treeText(h).find('*') == std::string::npos;
            out.assumed.push_back("route " + r.name + ": every logged request is taken to be for host " + treeText(h)
                                  + " (a log holds no host)");
        }
        QJsonArray paths = r.object.value("paths").toArray();
        if (paths.isEmpty())
            paths.append(QString()); // no paths: every path
        const std::int64_t regexPriority = parseIntegerIn(treeText(r.object.value("regex_priority")).empty()
                                                              ? "0" : treeText(r.object.value("regex_priority")),
                                                          -(std::int64_t(1) << 40), std::int64_t(1) << 40);
        for (const QJsonValue& pv : paths) {
            const std::string path = treeText(pv);
            const bool regex = path.starts_with('~');
            const int weight = (hosts.isEmpty() ? 0 : 1) + (path.empty() ? 0 : 1);
            DryRunPlace place{"route " + r.name + " (" + (path.empty() ? "every path" : path) + ")",
                              regex ? DryRunMatch::RegexStart : DryRunMatch::Prefix, regex ? path.substr(1) : path, rules};
            candidates.push_back({{weight, plainHost, regex, regex ? regexPriority : 0, regex ? 0 : std::int64_t(path.size())},
                                  std::move(place), r.name});
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.priority > b.priority; });
    for (std::size_t i = 0; i + 1 < candidates.size(); ++i) {
        const Candidate &a = candidates[i], &b = candidates[i + 1];
        if (a.priority == b.priority && (std::get<2>(a.priority) || a.place.pattern == b.place.pattern))
            throw InputError("Kong: " + a.place.where + " and " + b.place.where + " have the same priority: which one "
                             "Kong tries first is not modelled; give one a regex_priority");
    }
    for (Candidate& c : candidates)
        out.places.push_back(std::move(c.place));
    for (const Plugin& p : plugins)
        if (!p.enabled)
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": enabled: false, so Kong runs it nowhere");
        else if (p.scope.starts_with("consumer"))
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": which requests are that consumer's is not in the log: not replayed");
        else if (!used[p.scope])
            out.notReplayed.push_back("rate-limiting on " + p.scope + ": a more specific plugin, or no route, leaves it no request");
    if (out.rules.empty())
        throw InputError("Kong: no route meets a rate-limiting plugin: the config limits nothing");
    return out;
}

} // namespace ratelab::io
