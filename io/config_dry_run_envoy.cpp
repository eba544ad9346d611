// Envoy's routes on a log (config_dry_run.h): a route_config's virtual host, its routes tried in
// order, the first whose match takes the path (prefix on the whole :path, path and safe_regex on
// the path without its query string, path_separated_prefix up to a '/'), after the connection
// manager's normalize_path and merge_slashes (both false by default). The local_ratelimit that
// applies is the most specific config: the route's typed_per_filter_config, else its virtual
// host's, else the filter's own in http_filters (a request matching no route meets that one); each
// config keeps one token bucket for every request it sees (no descriptors: not per client).
#include "config_dry_run_routes.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"

#include <QJsonArray>
#include <QJsonObject>

#include <map>

namespace ratelab::io {

namespace {

constexpr const char* kFilter = "envoy.filters.http.local_ratelimit";

// collect appends every object of the tree holding `key`.
void collect(const QJsonValue& v, const QString& key, std::vector<QJsonObject>& out)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        if (o.contains(key))
            out.push_back(o);
        for (auto it = o.begin(); it != o.end(); ++it)
            collect(it.value(), key, out);
    } else if (v.isArray()) {
        for (const QJsonValue& x : v.toArray())
            collect(x, key, out);
    }
}

// percent reads a RuntimeFractionalPercent's default_value as a percentage (0 when absent).
double percent(const QJsonValue& fraction)
{
    const QJsonObject d = fraction.toObject().value("default_value").toObject();
    if (d.isEmpty())
        return 0;
    const std::string n = treeText(d.value("numerator")), den = treeText(d.value("denominator"));
    const double denominator = den == "TEN_THOUSAND" ? 10'000 : den == "MILLION" ? 1'000'000 : 100;
    return (n.empty() ? 0 : std::stod(n)) * 100 / denominator;
}

} // namespace

std::optional<DryRunConfig> envoyDryRunConfig(const QJsonValue& tree, const std::string& logKey)
{
    std::vector<QJsonObject> configs;
    collect(tree, "virtual_hosts", configs);
    if (configs.empty())
        return std::nullopt;
    if (configs.size() > 1)
        throw InputError("Envoy: " + std::to_string(configs.size()) + " route configurations: which one a request reaches "
                         "(its listener) is not in the log; give one");
    const QJsonArray hosts = configs[0].value("virtual_hosts").toArray();
    if (hosts.size() != 1)
        throw InputError("Envoy: " + std::to_string(hosts.size()) + " virtual hosts: which one a request reaches (its Host) "
                         "is not in the log; give one");
    DryRunConfig out;
    out.product = "Envoy";
    out.firstMatch = true;
    std::vector<QJsonObject> managers;
    collect(tree, "http_filters", managers);
    QJsonObject filterConfig;
    bool globalService = false;
    if (managers.size() == 1) {
        const QJsonObject& m = managers[0];
        const bool normalize = treeText(m.value("normalize_path")) == "true", merge = treeText(m.value("merge_slashes")) == "true";
        out.paths = normalize && merge ? DryRunPaths::EnvoyBoth : normalize ? DryRunPaths::EnvoyNormalize
                    : merge            ? DryRunPaths::EnvoyMerge
                                       : DryRunPaths::Envoy;
        for (const QJsonValue& f : m.value("http_filters").toArray()) {
            if (treeText(f.toObject().value("name")) == kFilter)
                filterConfig = f.toObject().value("typed_config").toObject();
            globalService |= treeText(f.toObject().value("name")) == "envoy.filters.http.ratelimit";
        }
    } else {
        out.paths = DryRunPaths::Envoy;
        out.assumed.push_back("no single http_connection_manager in the file: its paths are matched as sent (normalize_path "
                              "and merge_slashes false, Envoy's defaults)");
    }
    if (globalService)
        out.notReplayed.push_back("envoy.filters.http.ratelimit: its limits are in the rate limit service's configuration, "
                                  "not in Envoy's: not replayed");
    std::map<std::string, std::size_t> ruleOf;
    // ruleFor makes a LocalRateLimit config a rule (once), or nothing when it has no token bucket.
    const auto ruleFor = [&](const QJsonObject& c, const std::string& where) -> std::optional<std::size_t> {
        const QJsonObject bucket = c.value("token_bucket").toObject();
        if (bucket.isEmpty())
            return std::nullopt;
        if (const auto it = ruleOf.find(where); it != ruleOf.end())
            return it->second;
        std::vector<ProductOption> options;
        for (const char* name : {"max_tokens", "tokens_per_fill", "fill_interval"})
            if (const std::string v = treeText(bucket.value(name)); !v.empty())
                options.push_back({name, v});
        const LimiterConfig config = LimiterConfig{}.withProductOptions(std::move(options));
        const Algorithm a = Algorithm::EnvoyLocal;
        checkProductOptions(config, std::span(&a, 1));
        const std::string name = "local_ratelimit of " + where;
        const std::size_t r = ruleOf[where] = addPolicyRule(out, name, where, {a, config},
                                                             {"", true, "one token bucket for every request it sees"}, logKey);
        const double enabled = percent(c.value("filter_enabled")), enforced = percent(c.value("filter_enforced"));
        if (enabled <= 0) {
            out.mapped[r] = false;
            out.notReplayed.push_back(name + ": filter_enabled is 0% (its default when not set): Envoy neither counts nor "
                                             "limits a request with it");
        } else if (enforced < 100 || enabled < 100) {
            out.assumed.push_back(name + ": filter_enabled " + QString::number(enabled).toStdString() + "%, filter_enforced "
                                  + QString::number(enforced).toStdString() + "%: replayed as if both were 100% (what it "
                                  "would deny; Envoy enforces that share of it)");
        }
        if (c.contains("descriptors"))
            out.notReplayed.push_back(name + ": its descriptors (buckets per descriptor of the route's rate_limits) are not "
                                             "replayed; its token_bucket is");
        if (treeText(c.value("local_rate_limit_per_downstream_connection")) == "true")
            out.notReplayed.push_back(name + ": a bucket per downstream connection, which a log does not hold: replayed as one");
        return r;
    };
    const QJsonObject host = hosts[0].toObject();
    const std::optional<std::size_t> filterRule = ruleFor(filterConfig, "the filter (http_filters)");
    const std::optional<std::size_t> hostRule =
        ruleFor(host.value("typed_per_filter_config").toObject().value(kFilter).toObject().value("value").toObject().isEmpty()
                    ? host.value("typed_per_filter_config").toObject().value(kFilter).toObject()
                    : host.value("typed_per_filter_config").toObject().value(kFilter).toObject().value("value").toObject(),
                "virtual host " + treeText(host.value("name")));
    if (filterRule)
        out.fallback = {*filterRule};
    for (qsizetype i = 0; i < host.value("routes").toArray().size(); ++i) {
        const QJsonObject route = host.value("routes").toArray()[i].toObject();
        const std::string name = treeText(route.value("name")).empty() ? "#" + std::to_string(i + 1) : treeText(route.value("name"));
        const QJsonObject match = route.value("match").toObject();
        for (const char* field : {"headers", "query_parameters", "runtime_fraction", "grpc", "tls_context", "connect_matcher",
                                  "dynamic_metadata", "path_match_policy"})
            if (match.contains(field))
                throw InputError("Envoy: route " + name + " matches on " + field + ", which --config does not read");
        if (treeText(match.value("case_sensitive")) == "false")
            throw InputError("Envoy: route " + name + ": case_sensitive: false is not modelled");
        DryRunPlace place{"route " + name, DryRunMatch::PrefixRaw, "", {}};
        if (match.contains("prefix")) {
            place.pattern = treeText(match.value("prefix"));
        } else if (match.contains("path")) {
            place.match = DryRunMatch::Exact;
            place.pattern = treeText(match.value("path"));
        } else if (match.contains("safe_regex")) {
            place.match = DryRunMatch::RegexFull;
            place.pattern = treeText(match.value("safe_regex").toObject().value("regex"));
        } else if (match.contains("path_separated_prefix")) {
            place.match = DryRunMatch::SegmentPrefix;
            place.pattern = treeText(match.value("path_separated_prefix"));
        } else {
            throw InputError("Envoy: route " + name + " has no prefix, path, safe_regex or path_separated_prefix match");
        }
        place.where += " (" + std::string(match.contains("prefix") ? "prefix " : match.contains("path") ? "path " : "")
                       + place.pattern + ")";
        QJsonObject own = route.value("typed_per_filter_config").toObject().value(kFilter).toObject();
        if (own.contains("value")) // a TypedStruct or FilterConfig wrapper
            own = own.value("value").toObject();
        if (const std::optional<std::size_t> r = ruleFor(own, "route " + name))
            place.rules = {*r};
        else if (hostRule)
            place.rules = {*hostRule};
        else if (filterRule)
            place.rules = {*filterRule};
        if (route.contains("rate_limits") || route.value("route").toObject().contains("rate_limits"))
            out.notReplayed.push_back("route " + name + ": rate_limits (descriptors for a rate limit service or local "
                                      "descriptors) are not replayed");
        out.places.push_back(std::move(place));
    }
    if (out.rules.empty())
        throw InputError("Envoy: no local_ratelimit with a token_bucket applies to a route: the config limits nothing");
    return out;
}

} // namespace ratelab::io
