// Envoy's routes on a log (config_dry_run.h): a route_config's virtual host, its routes tried in
// order, the first whose match takes the path (prefix on the whole :path, path and safe_regex on
// the path without its query string, path_separated_prefix up to a '/'), after the connection
// manager's normalize_path and merge_slashes (both false by default). The local_ratelimit that
// applies is the most specific config: the route's typed_per_filter_config, else its virtual
// host's, else the filter's own in http_filters (a request matching no route meets that one); each
// config keeps its default token bucket for every request it sees, and one bucket per descriptor,
// met by the requests whose descriptors (made by the rate_limits actions from the request's
// headers, address and constants) equal its entries.
#include "config_dry_run_routes.h"
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"
#include "replay/product_regex.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cctype>
#include <map>
#include <string_view>

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

// bucketLayer reads a TokenBucket as Envoy's local rate limit keeps it.
Layer bucketLayer(const QJsonObject& bucket)
{
    std::vector<ProductOption> options;
    for (const char* name : {"max_tokens", "tokens_per_fill", "fill_interval"})
        if (const std::string v = treeText(bucket.value(name)); !v.empty())
            options.push_back({name, v});
    const LimiterConfig config = LimiterConfig{}.withProductOptions(std::move(options));
    const Algorithm a = Algorithm::EnvoyLocal;
    checkProductOptions(config, std::span(&a, 1));
    return {a, config};
}

// seconds reads a Duration ("60s", "0.5s") as seconds, 0 when absent.
double seconds(const QJsonValue& v)
{
    std::string text = treeText(v);
    if (text.ends_with('s'))
        text.pop_back();
    return text.empty() ? 0 : std::stod(text);
}

// LocalLimit is one LocalRateLimit config made rules: its default bucket and each descriptor's.
struct LocalLimit {
    QJsonObject config;
    std::size_t rule = 0; // the default bucket
    bool alwaysDefault = true;
    struct Descriptor {
        EnvoyEntries entries;
        std::string text; // "client_cluster=foo, path=/foo/bar"
        std::size_t rule;
        double fillRate; // tokens a second
    };
    std::vector<Descriptor> descriptors = {};
};

// routePlace reads a route's match: prefix on the whole :path, path and safe_regex on the path
// without its query string, path_separated_prefix up to a '/'.
DryRunPlace routePlace(const QJsonObject& route, const std::string& name)
{
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
    return place;
}

// readLimit makes a LocalRateLimit config (with a token bucket) rules: its default bucket, one
// token bucket for every request it sees, then each descriptor's own bucket
// (LocalRateLimiterImpl's constructor at envoy 5a6c7aa8adbf,
// source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc).
LocalLimit readLimit(DryRunConfig& out, const QJsonObject& c, const std::string& where, const std::string& logKey)
{
    LocalLimit limit{c};
    const std::string name = "local_ratelimit of " + where;
    const RuleKey shared{"", true, "one token bucket for every request it sees"};
    limit.rule = addPolicyRule(out, name, where, bucketLayer(c.value("token_bucket").toObject()), shared, logKey);
    limit.alwaysDefault = treeText(c.value("always_consume_default_token_bucket")) != "false";
    const double enabled = percent(c.value("filter_enabled")), enforced = percent(c.value("filter_enforced"));
    if (enabled <= 0) {
        out.mapped[limit.rule] = false;
        out.notReplayed.push_back(name + ": filter_enabled is 0% (its default when not set): Envoy neither counts nor "
                                         "limits a request with it");
    } else if (enforced < 100 || enabled < 100) {
        out.assumed.push_back(name + ": filter_enabled " + QString::number(enabled).toStdString() + "%, filter_enforced "
                              + QString::number(enforced).toStdString() + "%: replayed as if both were 100% (what it "
                              "would deny; Envoy enforces that share of it)");
    }
    if (treeText(c.value("local_rate_limit_per_downstream_connection")) == "true")
        out.notReplayed.push_back(name + ": a bucket per downstream connection, which a log does not hold: replayed as one");
    const double interval = seconds(c.value("token_bucket").toObject().value("fill_interval"));
    for (const QJsonValue& dv : c.value("descriptors").toArray()) {
        const QJsonObject d = dv.toObject();
        EnvoyEntries entries;
        std::string text;
        bool dynamic = false;
        for (const QJsonValue& e : d.value("entries").toArray()) {
            entries.emplace_back(treeText(e.toObject().value("key")), treeText(e.toObject().value("value")));
            text += (text.empty() ? "" : ", ") + entries.back().first + "=" + entries.back().second;
            dynamic = dynamic || entries.back().second.empty();
        }
        if (std::any_of(limit.descriptors.begin(), limit.descriptors.end(), [&](const auto& x) { return x.entries == entries; }))
            throw InputError("Envoy: " + name + ": duplicate descriptor " + text + " (Envoy refuses it)");
        const std::string dname = name + ": descriptor " + text;
        if (dynamic) {
            // A token bucket per value met, in a least-recently-used list of max_dynamic_descriptors
            // (20 unless set) whose dropped buckets lose their tokens (DynamicDescriptor,
            // local_ratelimit_impl.h): no log key holds that.
            const std::string kept = treeText(c.value("max_dynamic_descriptors"));
            out.notReplayed.push_back(dname + ": an entry without a value is a bucket per value met, at most "
                                      + (kept.empty() ? std::string("20") : kept) + " kept (max_dynamic_descriptors), the "
                                      "least recently used dropped with its tokens: not replayed, its requests meet the "
                                      "other buckets as if it matched none");
            continue;
        }
        const QJsonObject bucket = d.value("token_bucket").toObject();
        const double every = seconds(bucket.value("fill_interval"));
        if (every <= 0)
            throw InputError("Envoy: " + dname + ": a token_bucket without a fill_interval is not modelled");
        if (interval > 0 && std::fmod(every * 1000, interval * 1000) != 0)
            throw InputError("Envoy: " + dname + ": its fill_interval is not a multiple of the token bucket's (Envoy refuses it)");
        const std::string perFill = treeText(bucket.value("tokens_per_fill"));
        const std::size_t r = addPolicyRule(out, dname, dname, bucketLayer(bucket), {"", true, "one token bucket for the descriptor"},
                                            logKey);
        out.mapped[r] = out.mapped[limit.rule];
        limit.descriptors.push_back({entries, text, r, (perFill.empty() ? 1.0 : std::stod(perFill)) / every});
    }
    return limit;
}

// requestDescriptors returns the rate_limits entries that make a request's descriptors for a
// config with descriptors (local_ratelimit.cc at envoy 673860c53463, Filter::decodeHeaders and
// populateDescriptors): the config's own rate_limits, else the route's of the config's stage
// (those with a disable_key left out) and the virtual host's as vh_rate_limits says (OVERRIDE,
// the default: only when the route has none; INCLUDE; IGNORE; include_vh_rate_limits: INCLUDE).
QJsonArray requestDescriptors(const LocalLimit& limit, const QJsonObject& route, const QJsonObject& host)
{
    if (limit.descriptors.empty())
        return {};
    if (const QJsonArray own = limit.config.value("rate_limits").toArray(); !own.isEmpty())
        return own;
    const std::string stage = treeText(limit.config.value("stage")).empty() ? "0" : treeText(limit.config.value("stage"));
    const auto applicable = [&](const QJsonArray& list) {
        QJsonArray out;
        for (const QJsonValue& r : list) {
            const std::string s = treeText(r.toObject().value("stage")).empty() ? "0" : treeText(r.toObject().value("stage"));
            if (s == stage && treeText(r.toObject().value("disable_key")).empty())
                out.append(r);
        }
        return out;
    };
    const QJsonObject action = route.value("route").toObject();
    const QJsonArray routeList = action.value("rate_limits").toArray();
    QJsonArray out = applicable(routeList);
    const std::string option = treeText(action.value("include_vh_rate_limits")) == "true"
                                   ? "INCLUDE"
                                   : treeText(limit.config.value("vh_rate_limits"));
    if (option == "INCLUDE" || (option != "IGNORE" && routeList.isEmpty()))
        for (const QJsonValue& r : applicable(host.value("rate_limits").toArray()))
            out.append(r);
    return out;
}

// descriptorPlaces makes a route's place one place per set of the config's descriptors a request
// can match, the larger sets first, so that a request meets the set of every descriptor it
// matches (requestAllowed in local_ratelimit_impl.cc at envoy 5a6c7aa8adbf: each matched
// descriptor's bucket, the slowest-filling first, takes a token until one has none, which
// denies; then the default bucket, when none matched or always_consume_default_token_bucket,
// true by default). A config without descriptors is its default bucket alone.
std::vector<DryRunPlace> descriptorPlaces(DryRunConfig& config, const DryRunPlace& place, const LocalLimit& limit,
                                          const QJsonArray& rateLimits, const std::string& where)
{
    std::vector<std::size_t> always;                                       // descriptors every request makes
    std::vector<std::pair<std::size_t, std::vector<DryRunCondition>>> some; // descriptors some requests make
    for (std::size_t d = 0; d < limit.descriptors.size(); ++d) {
        EnvoyWays ways;
        for (const QJsonValue& r : rateLimits)
            for (auto& w : envoyDescriptorWays(r.toObject().value("actions").toArray(), limit.descriptors[d].entries, where))
                ways.push_back(std::move(w));
        if (std::any_of(ways.begin(), ways.end(), [](const auto& w) { return w.empty(); }))
            always.push_back(d);
        else if (ways.size() > 1)
            throw InputError("Envoy: " + where + ": two ways make the descriptor " + limit.descriptors[d].text
                             + " (two rate_limits entries, or headers with skip_if_absent sent or not): not modelled");
        else if (ways.size() == 1)
            some.emplace_back(d, std::move(ways.front()));
    }
    for (auto& [d, conditions] : some) // a field the log lacks: taken to hold, named until it is bound
        for (DryRunCondition& c : conditions)
            if (c.subject == DryRunCondition::Subject::Field) {
                config.notReplayed.push_back(where + ": the descriptor " + limit.descriptors[d].text + " reads " + c.field
                                             + ", which the log does not hold: every request taken to make it");
                c.note = int(config.notReplayed.size()) - 1;
            }
    if (some.size() > 6)
        throw InputError("Envoy: " + where + ": more than 6 descriptors that depend on the request: not modelled");
    std::vector<unsigned> masks(1u << some.size());
    for (unsigned m = 0; m < masks.size(); ++m)
        masks[m] = m;
    std::stable_sort(masks.begin(), masks.end(), [](unsigned a, unsigned b) { return std::popcount(a) > std::popcount(b); });
    std::vector<DryRunPlace> out;
    for (unsigned m : masks) {
        DryRunPlace p = place;
        std::vector<std::size_t> matched = always;
        for (std::size_t j = 0; j < some.size(); ++j)
            if (m & (1u << j)) {
                matched.push_back(some[j].first);
                p.conditions.insert(p.conditions.end(), some[j].second.begin(), some[j].second.end());
            }
        std::stable_sort(matched.begin(), matched.end(), [&](std::size_t a, std::size_t b) {
            return limit.descriptors[a].fillRate < limit.descriptors[b].fillRate;
        });
        for (std::size_t d : matched)
            p.rules.push_back(limit.descriptors[d].rule);
        if (matched.empty() || limit.alwaysDefault)
            p.rules.push_back(limit.rule);
        out.push_back(std::move(p));
    }
    return out;
}

// soleVirtualHost is the file's one virtual host (nullopt: no route configuration); a file with
// several, of which the log does not say which a request reached, is refused.
std::optional<QJsonObject> soleVirtualHost(const QJsonValue& tree)
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
    return hosts[0].toObject();
}

// readManager reads the http_connection_manager: how it normalizes paths, and its local_ratelimit
// filter's config, which it returns (empty: none).
QJsonObject readManager(const QJsonValue& tree, DryRunConfig& out)
{
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
    return filterConfig;
}

// PerFilter is a host's or route's local_ratelimit config in typed_per_filter_config, unwrapped
// from a TypedStruct ("value") or a FilterConfig ("config", or none when it is `disabled`).
struct PerFilter {
    QJsonObject config;
    bool disabled = false; // FilterConfig{disabled: true}: the filter does nothing there
    bool any() const { return disabled || !config.isEmpty(); }
};

PerFilter perFilterConfig(const QJsonObject& o)
{
    QJsonObject config = o.value("typed_per_filter_config").toObject().value(kFilter).toObject();
    if (treeText(config.value("@type")).ends_with("envoy.config.route.v3.FilterConfig"))
        return {config.value("config").toObject(), treeText(config.value("disabled")) == "true"};
    if (config.contains("value")) // a TypedStruct
        config = config.value("value").toObject();
    return {config};
}

// LocalLimits makes a LocalRateLimit config's rules once per place that sets it.
struct LocalLimits {
    DryRunConfig& out;
    const std::string& logKey;
    std::map<std::string, LocalLimit> limits{};

    // limitFor is the config's rules, or nothing when it has no token bucket.
    const LocalLimit* limitFor(const QJsonObject& c, const std::string& where)
    {
        if (c.value("token_bucket").toObject().isEmpty())
            return nullptr;
        if (const auto it = limits.find(where); it != limits.end())
            return &it->second;
        return &(limits[where] = readLimit(out, c, where, logKey));
    }
};

} // namespace

std::optional<DryRunConfig> envoyDryRunConfig(const QJsonValue& tree, const std::string& logKey)
{
    const std::optional<QJsonObject> sole = soleVirtualHost(tree);
    if (!sole)
        return std::nullopt;
    const QJsonObject& host = *sole;
    DryRunConfig out;
    out.product = "Envoy";
    out.firstMatch = true;
    const QJsonObject filterConfig = readManager(tree, out);
    LocalLimits limits{out, logKey};
    const LocalLimit* filterLimit = limits.limitFor(filterConfig, "the filter (http_filters)");
    const LocalLimit* hostLimit = limits.limitFor(perFilterConfig(host).config, "virtual host " + treeText(host.value("name")));
    if (filterLimit) {
        out.fallback = {filterLimit->rule};
        if (!filterLimit->descriptors.empty() && !filterConfig.value("rate_limits").toArray().isEmpty())
            out.notReplayed.push_back("local_ratelimit of the filter (http_filters): its descriptors for a request that "
                                      "matches no route are not replayed (its default bucket is)");
    }
    for (qsizetype i = 0; i < host.value("routes").toArray().size(); ++i) {
        const QJsonObject route = host.value("routes").toArray()[i].toObject();
        const std::string name = treeText(route.value("name")).empty() ? "#" + std::to_string(i + 1) : treeText(route.value("name"));
        DryRunPlace place = routePlace(route, name);
        const PerFilter own = perFilterConfig(route);
        // The most specific config replaces the others whole (resolveMostSpecificPerFilterConfig);
        // one with filter_enabled 0% (its default) or disabled makes the filter do nothing there.
        if (own.any() && !own.disabled && own.config.value("token_bucket").toObject().isEmpty())
            throw InputError("Envoy: route " + name + ": its own local_ratelimit has no token_bucket, which Envoy refuses "
                             "in a per-route config");
        const bool off = own.disabled || (own.any() && percent(own.config.value("filter_enabled")) <= 0);
        const LocalLimit* limit = off ? nullptr : limits.limitFor(own.config, "route " + name);
        limit = off ? nullptr : limit ? limit : hostLimit ? hostLimit : filterLimit;
        if (!limit) {
            out.places.push_back(std::move(place));
            continue;
        }
        for (DryRunPlace& p : descriptorPlaces(out, place, *limit, requestDescriptors(*limit, route, host), "route " + name))
            out.places.push_back(std::move(p));
    }
    if (out.rules.empty())
        throw InputError("Envoy: no local_ratelimit with a token_bucket applies to a route: the config limits nothing");
    return out;
}

} // namespace ratelab::io
