#include "config_dry_run.h"
#include "scenario/scenario_parts.h"

#include "config_dry_run_routes.h"
#include "config_import.h"
#include "config_import_nginx.h"
#include "scenariofile.h"

#include "arithmetic/decimal.h"
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

std::string ruleName(const NginxLimit& l)
{
    std::string out = "limit_req zone=" + l.zone;
    if (l.burst)
        out += " burst=" + std::to_string(l.burst);
    if (l.nodelay)
        out += " nodelay";
    else if (l.delay)
        out += " delay=" + std::to_string(l.delay);
    return out + " (line " + std::to_string(l.line) + ")";
}

DryRunMatch matchOf(const NginxPlace& p)
{
    if (p.modifier == "=")
        return DryRunMatch::Exact;
    if (p.modifier == "^~")
        return DryRunMatch::PrefixStop;
    if (p.modifier == "~")
        return DryRunMatch::Regex;
    if (p.modifier == "~*")
        return DryRunMatch::RegexCaseless;
    if (!p.modifier.empty())
        throw InputError("nginx: line " + std::to_string(p.line) + ": location modifier " + ratelab::quoted(p.modifier)
                         + " is not nginx's (=, ^~, ~, ~*)");
    return DryRunMatch::Prefix;
}

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
        out.assumed.push_back("the scenario's layers are its policy; its algorithm rows (compared beside them) are not replayed");
    return out;
}


// chooseServer returns the server block the log's requests reach. nginx picks a server by the
// connection's address (listen) and the Host header (server_name), and neither is in the log; but
// a server that answers every request with `return` (the usual HTTP-to-HTTPS redirect) never
// serves the application, so when all servers but one are such, the log is read as that one's.
int chooseServer(const NginxConfig& nginx, const std::vector<bool>& answersAll, DryRunConfig& out)
{
    if (nginx.servers.size() <= 1)
        return nginx.servers.empty() ? -1 : 0;
    std::vector<int> serving;
    for (std::size_t s = 0; s < nginx.servers.size(); ++s)
        if (!answersAll[s])
            serving.push_back(int(s));
    if (serving.empty())
        throw InputError("nginx: " + std::to_string(nginx.servers.size()) + " server blocks (lines "
                         + std::to_string(nginx.servers[0].line) + ", " + std::to_string(nginx.servers[1].line)
                         + "), every one answering each request with return: the config limits nothing");
    if (serving.size() > 1)
        return -2; // several serve: chosen per request by its Host (hostGroups)
    const NginxPlace& chosen = nginx.servers[std::size_t(serving.front())];
    for (std::size_t s = 0; s < nginx.servers.size(); ++s)
        if (int(s) != serving.front())
            out.assumed.push_back("the server at line " + std::to_string(nginx.servers[s].line)
                                  + " answers every request with return (a redirect) before any limit: the log is read "
                                    "as the requests of the server at line " + std::to_string(chosen.line)
                                  + ", the one that serves them");
    return serving.front();
}

// hostCondition is the condition on the log's host that a request reaches server s by: its
// server_name, exact names only (`names` holds those seen so far, each once).
DryRunCondition hostCondition(const NginxConfig& nginx, int s, std::map<std::string, int>& names)
{
    const NginxPlace& server = nginx.servers[std::size_t(s)];
    DryRunCondition c{"host", {}};
    c.caseless = true;
    for (const std::string& name : server.serverNames) {
        if (name.find('*') != std::string::npos || name.starts_with('.') || name.starts_with('~'))
            throw InputError("nginx: server_name " + name + " (the server at line " + std::to_string(server.line)
                             + "): wildcard and regex names are not modelled, so which server a request reaches is "
                               "not known; give one server's config");
        const std::string lower = lowerAscii(name);
        if (const auto [it, fresh] = names.emplace(lower, s); !fresh)
            throw InputError("nginx: server_name " + name + " is in the servers at lines "
                             + std::to_string(nginx.servers[std::size_t(it->second)].line) + " and "
                             + std::to_string(server.line) + " (nginx ignores the second)");
        if (!lower.empty())
            c.values.push_back(lower);
    }
    return c;
}

// hostGroups orders the server blocks a request may reach when several serve, as
// ngx_http_find_virtual_server picks one (src/http/ngx_http_core_module.c and
// ngx_http_request.c, nginx commit 021a9df15b94): among the servers of the request's address and
// port, the one whose server_name is the Host, else the default server of that port (the one
// whose listen says default_server, else the first). The log holds no port, so the servers that
// serve must share their listen addresses; and only exact names are read (a wildcard or regex
// name is refused by name). The default server comes last. `host` gets, per server, the
// condition its places meet (the default: none).
std::vector<int> hostGroups(const NginxConfig& nginx, const std::vector<bool>& answersAll,
                            std::vector<std::vector<DryRunCondition>>& host, DryRunConfig& out)
{
    const auto listensOf = [&](std::size_t s) {
        std::vector<std::string> l = nginx.servers[s].listens;
        std::sort(l.begin(), l.end());
        return l;
    };
    // The servers on the serving ones' addresses, those that answer with return among them.
    std::vector<int> serving, order;
    std::size_t first = 0;
    while (answersAll[first])
        ++first;
    for (std::size_t s = 0; s < nginx.servers.size(); ++s) {
        if (listensOf(s) == listensOf(first))
            serving.push_back(int(s));
        else if (!answersAll[s])
            throw InputError("nginx: the server blocks at lines " + std::to_string(nginx.servers[first].line) + " and "
                             + std::to_string(nginx.servers[s].line) + " listen on different addresses: which one a "
                             "request reaches (its port) is not in the log; give one server's config");
        else
            out.assumed.push_back("the server at line " + std::to_string(nginx.servers[s].line) + " listens on other "
                                  "addresses and answers every request with return (a redirect) before any limit: the log "
                                  "is read as the requests of the others");
    }
    const auto fallback = std::find_if(serving.begin(), serving.end(), [&](int s) { return nginx.servers[std::size_t(s)].defaultServer; });
    const int chosen = fallback != serving.end() ? *fallback : serving.front();
    std::map<std::string, int> names;
    host.assign(nginx.servers.size(), {});
    out.notReplayed.emplace_back(); // said below, once the order is known
    const int note = int(out.notReplayed.size()) - 1;
    for (int s : serving) {
        DryRunCondition c = hostCondition(nginx, s, names);
        c.note = note;
        if (s != chosen) {
            host[std::size_t(s)].push_back(std::move(c));
            order.push_back(s);
        }
    }
    order.push_back(chosen);
    out.notReplayed[std::size_t(note)] = "which server block a request reaches is chosen by its Host, read from the log's host "
                                         "field ($host); the log does not hold it: every request is taken to reach the server "
                                         "at line " + std::to_string(nginx.servers[std::size_t(order.front())].line);
    out.assumed.push_back("several server blocks serve: a request reaches the one whose server_name is its host (the log's "
                          "$host), else the default server, the one at line " + std::to_string(nginx.servers[std::size_t(chosen)].line));
    return order;
}

} // namespace

DryRunConfig dryRunConfig(const QString& text, const std::string& logKey)
{
    const NginxConfig nginx = readNginxConfig(text);
    if (nginx.zones.empty())
        throw InputError("nginx: no limit_req_zone directive found (a commented-out one is not configuration)");
    // A server answers every request with return when it has one of its own (the server rewrite
    // phase answers before any location is selected), or when its locations all do and one of
    // them is "location /", so that no request reaches the server's own limits.
    std::vector<bool> answersAll(nginx.servers.size());
    for (std::size_t s = 0; s < nginx.servers.size(); ++s) {
        bool any = false, all = true, root = false;
        for (const NginxPlace& p : nginx.places)
            if (p.server == int(s) && p.where != "server" && !p.nested && !p.match.starts_with("@")) {
                any = true;
                all = all && p.answers;
                root = root || (p.modifier.empty() && p.match == "/");
            }
        answersAll[s] = nginx.servers[s].answers || (any && all && root);
    }
    DryRunConfig out;
    const int server = chooseServer(nginx, answersAll, out);
    out.paths = DryRunPaths::Nginx; // $uri: decoded, slashes merged, dots resolved before locations
    std::map<std::string, std::size_t> zoneIndex;
    for (const NginxZone& z : nginx.zones) {
        zoneIndex[z.name] = out.zones.size();
        out.zones.push_back({z.name, z.perMinute ? z.rate * 1000 / 60 : z.rate * 1000});
    }
    // keyText reads one word of a map (its source or a value) onto what a request has: a constant,
    // the request target, or a log field; `why` says why not, when it is none of them.
    const auto keyText = [&](const std::string& word, std::string& why) -> std::optional<DryRunKeyText> {
        if (word.find('$') == std::string::npos)
            return DryRunKeyText{DryRunKeyText::Kind::Constant, word};
        if (word == "$request_uri")
            return DryRunKeyText{DryRunKeyText::Kind::Target, word};
        for (const auto& [geo, line] : nginx.geos)
            if (geo == word) {
                why = word + " is a geo variable (line " + std::to_string(line) + "), which is not evaluated";
                return std::nullopt;
            }
        for (const NginxMap& m : nginx.maps)
            if (m.name == word) {
                why = word + " is another map's (line " + std::to_string(m.line) + "), which is not evaluated in turn";
                return std::nullopt;
            }
        const std::string field = nginxKeyLogField(word);
        if (field.empty()) {
            why = word + " is not one variable a log field holds";
            return std::nullopt;
        }
        return DryRunKeyText{field == logKey ? DryRunKeyText::Kind::LogKey : DryRunKeyText::Kind::Field, field};
    };
    // keyMapOf reads a map as ngx_http_map_find looks it up (DryRunKeyMap), its regexes compiled
    // by the engine nginx uses; -1 with `why` when a word of it is not on the log.
    std::map<std::string, std::pair<int, std::string>> keyMapIndex; // a map's name -> its index, or -1 and why
    const auto keyMapOf = [&](const NginxMap& m, std::string& why) -> int {
        if (const auto it = keyMapIndex.find(m.name); it != keyMapIndex.end()) {
            why = it->second.second;
            return it->second.first;
        }
        DryRunKeyMap km;
        km.name = "map " + m.source + " " + m.name + " (line " + std::to_string(m.line) + ")";
        km.hostnames = m.hostnames;
        const auto lower = [](std::string t) {
            std::transform(t.begin(), t.end(), t.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; });
            return t;
        };
        int result = -1;
        const auto give = [&](const std::string& word, DryRunKeyText& into) {
            std::string reason;
            const auto t = keyText(word, reason);
            if (!t && why.empty())
                why = reason;
            if (t)
                into = *t;
        };
        if (m.includes)
            why = "its include is not followed";
        if (m.source == "$binary_remote_addr")
            why = "its source $binary_remote_addr is the address's bytes, which no log writes";
        give(m.source, km.from);
        for (const auto& [key, value] : m.entries) {
            if (key == "default") {
                give(value, km.fallback);
                continue;
            }
            DryRunKeyMap::Entry e;
            using Kind = DryRunKeyMap::Entry::Kind;
            if (key.starts_with("~")) {
                const bool caseless = key.starts_with("~*");
                e.kind = caseless ? Kind::RegexCaseless : Kind::Regex;
                e.key = key.substr(caseless ? 2 : 1);
                try {
                    ProductRegex(e.key, RegexEngine::Pcre, RegexSpan::Anywhere, caseless);
                } catch (const InputError& error) {
                    throw InputError("nginx: line " + std::to_string(m.line) + ": map " + m.name + ": " + error.what());
                }
            } else if (m.hostnames && key.size() > 1 && key[0] == '.') { // ngx_hash_add_key's wildcards
                e.kind = Kind::Head;
                e.key = lower(key);
                e.bare = true;
            } else if (m.hostnames && key.size() > 2 && key.starts_with("*.")) {
                e.kind = Kind::Head;
                e.key = lower(key.substr(1));
            } else if (m.hostnames && key.size() > 2 && key.ends_with(".*")) {
                e.kind = Kind::Tail;
                e.key = lower(key.substr(0, key.size() - 1));
            } else {
                e.key = lower(key.starts_with("\\") ? key.substr(1) : key);
            }
            give(value, e.value);
            km.entries.push_back(std::move(e));
        }
        if (why.empty()) {
            result = int(out.keyMaps.size());
            out.keyMaps.push_back(std::move(km));
        }
        keyMapIndex[m.name] = {result, why};
        return result;
    };
    std::map<std::pair<int, std::string>, std::size_t> ruleIndex; // a limit_req (its line, its zone) -> its rule
    const auto rulesOf = [&](const std::vector<NginxLimit>& limits) {
        std::vector<std::size_t> rules;
        for (const NginxLimit& l : limits) {
            auto [it, fresh] = ruleIndex.emplace(std::pair(l.line, l.zone), out.rules.size());
            if (fresh) {
                const NginxZone& z = nginx.zones[zoneIndex.at(l.zone)];
                out.rules.push_back({ruleName(l), zoneIndex.at(l.zone), l.burst, l.nodelay ? -1 : l.delay, {}, false, false});
                // A key without a variable is the same text for every request: one bucket for all
                // (ngx_http_complex_value of a constant). $request_uri is the target as the request
                // line sent it, the log's path unchanged.
                const std::string field = nginxKeyLogField(z.key);
                const auto map = std::find_if(nginx.maps.begin(), nginx.maps.end(), [&](const NginxMap& m) { return m.name == z.key; });
                const auto geo = std::find_if(nginx.geos.begin(), nginx.geos.end(), [&](const auto& g) { return g.first == z.key; });
                if (map != nginx.maps.end()) {
                    // A map is evaluated per request from the fields it reads; the rule is replayed
                    // once they are read (bindKeyFields), and named until then.
                    std::string why;
                    DryRunRule& rule = out.rules.back();
                    rule.keyIs = DryRunRule::Key::Mapped;
                    rule.keyMap = keyMapOf(*map, why);
                    if (rule.keyMap < 0) {
                        out.mapped.push_back(false);
                        out.notReplayed.push_back(ruleName(l) + ": its zone's key " + z.key + " is a map (line "
                                                  + std::to_string(map->line) + ") not evaluated on the log: " + why
                                                  + ": not replayed");
                    } else {
                        const DryRunKeyMap& km = out.keyMaps[std::size_t(rule.keyMap)];
                        std::string reads;
                        std::vector<const DryRunKeyText*> texts{&km.from, &km.fallback};
                        for (const DryRunKeyMap::Entry& e : km.entries)
                            texts.push_back(&e.value);
                        for (const DryRunKeyText* t : texts)
                            if (t->kind == DryRunKeyText::Kind::Field && (", " + reads + ",").find(", " + t->text + ",") == std::string::npos)
                                reads += (reads.empty() ? "" : ", ") + t->text;
                        out.mapped.push_back(reads.empty());
                        if (!reads.empty()) {
                            out.notReplayed.push_back(ruleName(l) + ": its key is " + km.name + ", which reads the log fields "
                                                      + reads + ": not replayed without them");
                            rule.keyNote = int(out.notReplayed.size()) - 1;
                        }
                    }
                } else if (geo != nginx.geos.end()) {
                    out.mapped.push_back(false);
                    out.notReplayed.push_back(ruleName(l) + ": its zone's key " + z.key + " is a geo variable (line "
                                              + std::to_string(geo->second) + "), which is not evaluated: not replayed");
                } else if (z.key.find('$') == std::string::npos) {
                    out.rules.back().keyIs = DryRunRule::Key::Constant;
                    out.mapped.push_back(!z.key.empty());
                    if (z.key.empty())
                        out.notReplayed.push_back(ruleName(l) + ": its zone's key is empty, so nginx skips the limit for "
                                                                "every request");
                } else if (z.key == "$request_uri") {
                    out.rules.back().keyIs = DryRunRule::Key::Target;
                    out.mapped.push_back(true);
                } else {
                    out.mapped.push_back(field == logKey);
                    if (field != logKey) {
                        out.notReplayed.push_back(ruleName(l) + ": its zone's key " + z.key + " is not the log's key ("
                                                  + logKey + ")" + (field.empty() ? ", nor a log field: not replayed"
                                                                                  : ": not replayed (--key " + field + " replays it)"));
                        out.rules.back().keyField = field;
                        out.rules.back().keyNote = int(out.notReplayed.size()) - 1;
                    }
                }
            }
            rules.push_back(it->second);
        }
        return rules;
    };
    // answered: a place whose `return` answers before limit_req (the rewrite phase runs before
    // preaccess, ngx_http_core_module.c's phase order): its limits apply to nothing.
    const auto answered = [&](const NginxPlace& p) {
        if (!p.limits.empty())
            out.assumed.push_back(p.where + " (line " + std::to_string(p.line) + ") answers with return, which nginx runs "
                                  "before limit_req: its limit_req lines apply to none of its requests");
    };
    // addServer adds a server block's locations (group: its place among several, -1 alone; host:
    // the conditions its places meet).
    const auto addServer = [&](int server, int group, const std::vector<DryRunCondition>& host) {
        std::map<std::string, const NginxPlace*> named;
        for (const NginxPlace& p : nginx.places)
            if (p.server == server && p.match.starts_with("@") && !p.nested)
                named[p.match] = &p;
        std::vector<std::string> reachedNamed;
        // ifReturned: an `if` holding a return answers the requests its condition selects before
        // limit_req; the condition (ngx_http_rewrite_if_condition) is not evaluated on the log.
        const auto ifReturned = [&](const NginxPlace& p) {
            for (int line : p.ifReturns)
                out.assumed.push_back("if (line " + std::to_string(line) + ") in " + p.where + " (line " + std::to_string(p.line)
                                      + ") returns before limit_req for the requests its condition selects; the condition is "
                                        "not evaluated on the log: every request there is read as not selected");
        };
        if (server >= 0)
            ifReturned(nginx.servers[std::size_t(server)]);
        for (const NginxPlace& p : nginx.places) {
            if (p.server != server)
                continue;
            if (p.where != "server" && p.where != "http" && !p.answers)
                ifReturned(p);
            if (p.where == "server" || p.where == "http")
                continue;
            if (p.nested)
                throw InputError("nginx: line " + std::to_string(p.line) + ": " + p.where + " is inside another location: "
                                 "nginx's selection among nested locations is not modelled");
            if (p.match.starts_with("@"))
                continue;
            DryRunPlace place{p.where + " (line " + std::to_string(p.line) + ")", matchOf(p), p.match, {}};
            if (p.answers || (server >= 0 && nginx.servers[std::size_t(server)].answers)) {
                answered(p);
            } else {
                place.rules = rulesOf(p.limits);
                const auto n = named.find(p.tryNamed);
                if (!p.tryNamed.empty() && n != named.end() && !n->second->answers && !n->second->limits.empty()) {
                    place.then = rulesOf(n->second->limits);
                    reachedNamed.push_back(p.tryNamed);
                    out.assumed.push_back(p.where + " (line " + std::to_string(p.line) + "): try_files ends in "
                                          + p.tryNamed + "; the dry run cannot see the files, so every request there is "
                                          "read as finding none and going on to location " + p.tryNamed);
                }
            }
            place.group = group;
            place.conditions = host;
            out.places.push_back(std::move(place));
        }
        for (const auto& [name, p] : named) {
            if (p->limits.empty() || std::find(reachedNamed.begin(), reachedNamed.end(), name) != reachedNamed.end())
                continue;
            if (p->answers)
                answered(*p);
            else
                out.notReplayed.push_back(p->where + " (line " + std::to_string(p->line) + "): a named location no "
                                          "try_files of the server reaches (an error_page or another redirect may): its limits "
                                          "are not replayed");
        }
        if (server >= 0) {
            const NginxPlace& s = nginx.servers[std::size_t(server)];
            if (s.answers)
                answered(s);
            std::vector<std::size_t> own = s.answers ? std::vector<std::size_t>{} : rulesOf(s.limits);
            if (group < 0) {
                out.fallback = std::move(own);
            } else { // a path no location of the server takes: the server's own limits
                out.places.push_back({"server (line " + std::to_string(s.line) + ")", DryRunMatch::Prefix, "", std::move(own)});
                out.places.back().group = group;
                out.places.back().conditions = host;
            }
        } else {
            for (const NginxPlace& p : nginx.places)
                if (p.where == "http")
                    out.fallback = rulesOf(p.limits);
        }
    };
    if (server != -2) {
        addServer(server, -1, {});
    } else {
        std::vector<std::vector<DryRunCondition>> host;
        out.groups = hostGroups(nginx, answersAll, host, out);
        for (int g : out.groups)
            addServer(g, g, host[std::size_t(g)]);
    }
    for (const NginxZone& z : nginx.zones)
        if (std::none_of(out.rules.begin(), out.rules.end(), [&](const DryRunRule& r) { return out.zones[r.zone].name == z.name; }))
            out.notReplayed.push_back("limit_req_zone " + z.name + " (line " + std::to_string(z.line)
                                      + "): no limit_req applies it, so nginx limits nothing with it");
    for (const std::string& n : nginx.notFollowed)
        out.notReplayed.push_back(n);
    if (out.rules.empty())
        throw InputError("nginx: no limit_req applies a zone to a request: the config limits nothing"
                         + std::string(out.assumed.empty() ? "" : " (" + out.assumed.front() + ")"));
    return out;
}

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
    if (doc.product == ConfigProduct::Scenario)
        return scenarioConfig(doc.text, logKey);
    if (doc.product == ConfigProduct::Nginx)
        return dryRunConfig(QString::fromUtf8(doc.text), logKey);
    return productConfig(doc, logKey);
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
