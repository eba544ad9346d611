// Traefik's dynamic configuration on a log (config_dry_run.h): its routers, tried by priority,
// select per request path the rateLimit middlewares that apply, each router its own buckets.
#include "config_dry_run.h"

#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"

#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <map>

namespace ratelab::io {

namespace {

// Router is one http.routers entry as the file wrote it.
struct Router {
    std::string name, rule;
    std::int64_t priority = 0; // 0: Traefik's default, the rule's length
    std::vector<std::string> middlewares;
};

// Limit is one middleware's rateLimit: its options and its sourceCriterion.
struct Limit {
    std::vector<ProductOption> options;
    std::string header, depth, host, excluded;
};

// sourceField returns the log key a sourceCriterion is and how Traefik words it.
std::pair<std::string, std::string> sourceField(const Limit& l)
{
    if (!l.header.empty()) {
        std::string field = "http_" + QString::fromStdString(l.header).toLower().toStdString();
        std::replace(field.begin(), field.end(), '-', '_');
        return {field, "the header " + l.header + " (sourceCriterion.requestHeaderName)"};
    }
    if (l.host == "true")
        return {"host", "the request's host (sourceCriterion.requestHost)"};
    if ((!l.depth.empty() && l.depth != "0") || !l.excluded.empty())
        return {"", "an address taken from X-Forwarded-For (sourceCriterion.ipStrategy depth/excludedIPs)"};
    return {"ip", "the client's address (the default sourceCriterion, ipStrategy depth 0)"};
}

// placeOf reads a router's rule: Path(`p`) or PathPrefix(`p`), with any Host(`h`) beside them by
// && (a log holds no host); anything else is refused by name.
DryRunPlace placeOf(const Router& r, std::vector<std::string>& assumed)
{
    static const QRegularExpression matcher(R"(^\s*(Path|PathPrefix|Host)\s*\(\s*`([^`]*)`\s*\)\s*$)");
    DryRunPlace place{"router " + r.name + " (" + r.rule + ")", DryRunMatch::Prefix, "", {}};
    bool path = false;
    for (const QString& part : QString::fromStdString(r.rule).split("&&")) {
        const QRegularExpressionMatch m = matcher.match(part);
        if (!m.hasMatch() || (m.captured(1) != "Host" && path))
            throw InputError("Traefik: router " + r.name + ": the rule " + ratelab::quoted(r.rule) + " is past what --config "
                             "reads (Path or PathPrefix of one path, with Host beside it by &&)");
        if (m.captured(1) == "Host") {
            assumed.push_back("router " + r.name + ": every logged request is taken to be for Host " + m.captured(2).toStdString()
                              + " (a log holds no host)");
            continue;
        }
        path = true;
        place.match = m.captured(1) == "Path" ? DryRunMatch::Exact : DryRunMatch::Prefix;
        place.pattern = m.captured(2).toStdString();
    }
    return place;
}

} // namespace

DryRunConfig traefikDryRunConfig(const QByteArray& text, const std::string& logKey)
{
    std::map<std::string, Router> routers;
    std::map<std::string, Limit> limits;
    std::vector<std::string> routerOrder, limitOrder;
    for (const auto& [path, value] : flattenConfig(text)) {
        const QStringList parts = QString::fromStdString(path).split('.');
        if (parts.size() >= 4 && parts[0] == "http" && parts[1] == "routers") {
            const std::string name = parts[2].toStdString(), field = parts.mid(3).join('.').toStdString();
            if (!routers.count(name))
                routerOrder.push_back(name);
            Router& r = routers[name];
            r.name = name;
            if (field == "rule")
                r.rule = value;
            else if (field == "middlewares")
                r.middlewares.push_back(value.substr(0, value.find('@'))); // "limit@file": the provider is not the name
            else if (field == "priority")
                r.priority = parseIntegerIn(value, 1, std::int64_t(1) << 62);
        } else if (parts.size() >= 5 && parts[0] == "http" && parts[1] == "middlewares" && parts[3] == "rateLimit") {
            const std::string name = parts[2].toStdString(), field = parts.mid(4).join('.').toStdString();
            if (!limits.count(name))
                limitOrder.push_back(name);
            Limit& l = limits[name];
            if (field == "average" || field == "period" || field == "burst")
                l.options.push_back({field, value});
            else if (field == "sourceCriterion.requestHeaderName")
                l.header = value;
            else if (field == "sourceCriterion.requestHost")
                l.host = value;
            else if (field == "sourceCriterion.ipStrategy.depth")
                l.depth = value;
            else if (field.starts_with("sourceCriterion.ipStrategy.excludedIPs"))
                l.excluded = value;
            else if (!field.starts_with("sourceCriterion"))
                throw InputError("Traefik: middleware " + name + ": rateLimit." + field + " is not modelled");
        }
    }
    if (limits.empty())
        throw InputError("Traefik: no http.middlewares.NAME.rateLimit found");
    DryRunConfig out;
    out.product = "Traefik";
    out.firstMatch = true;
    out.paths = DryRunPaths::Traefik;
    const auto ruleOf = [&](const std::string& where, const std::string& name) {
        const Limit& l = limits.at(name);
        const LimiterConfig config = LimiterConfig{}.withProductOptions(l.options);
        const Algorithm a = Algorithm::Traefik;
        checkProductOptions(config, std::span(&a, 1));
        out.zones.push_back({name, 0});
        out.rules.push_back({where + "rateLimit " + name, out.zones.size() - 1, 0, 0, {{a, config}}, false, false});
        const auto [field, words] = sourceField(l);
        out.mapped.push_back(field == logKey);
        if (field != logKey) {
            out.notReplayed.push_back(out.rules.back().name + ": it keys by " + words + ", not the log's key (" + logKey + ")"
                                      + (field.empty() ? ", nor a log field: not replayed"
                                                       : ": not replayed (--key " + field + " replays it)"));
            out.rules.back().keyField = field;
            out.rules.back().keyNote = int(out.notReplayed.size()) - 1;
        }
        return out.rules.size() - 1;
    };
    if (routers.empty()) { // the middlewares alone: the routers that apply them are elsewhere
        if (limits.size() > 1)
            throw InputError("Traefik: " + std::to_string(limits.size()) + " rateLimit middlewares and no http.routers: "
                             "which requests each limits is not in the file; give the routers");
        out.fallback = {ruleOf("", limitOrder.front())};
        out.assumed.push_back("no router in the file: every request is taken to pass middleware " + limitOrder.front());
        return out;
    }
    std::vector<const Router*> order;
    for (const std::string& name : routerOrder)
        order.push_back(&routers.at(name));
    const auto priority = [](const Router* r) { return r->priority ? r->priority : std::int64_t(r->rule.size()); };
    std::stable_sort(order.begin(), order.end(), [&](const Router* a, const Router* b) { return priority(a) > priority(b); });
    for (std::size_t i = 0; i + 1 < order.size(); ++i)
        if (priority(order[i]) == priority(order[i + 1]))
            throw InputError("Traefik: routers " + order[i]->name + " and " + order[i + 1]->name + " have the same priority ("
                             + std::to_string(priority(order[i])) + "): which one Traefik tries first is not modelled; "
                             "give one a priority");
    std::map<std::string, bool> used;
    for (const Router* r : order) {
        DryRunPlace place = placeOf(*r, out.assumed);
        for (const std::string& m : r->middlewares)
            if (limits.count(m)) { // each router builds its own middlewares: its own buckets (in memory)
                place.rules.push_back(ruleOf("router " + r->name + ": ", m));
                used[m] = true;
            }
        out.places.push_back(std::move(place));
    }
    for (const std::string& name : limitOrder)
        if (!used[name])
            out.notReplayed.push_back("middleware " + name + ": no router of the file applies it, so it limits nothing here");
    if (out.rules.empty())
        throw InputError("Traefik: no router applies a rateLimit middleware: the config limits nothing");
    return out;
}

} // namespace ratelab::io
