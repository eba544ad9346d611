// The nginx part of replay --config: a configuration read as nginx's phases and location
// selection take a request, onto a DryRunConfig.
#include "config_dry_run.h"
#include "config_dry_run_nginx_servers.h"

#include "config_import.h"
#include "config_import_nginx.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

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

// NginxDryRun builds the DryRunConfig of one nginx configuration for a log keyed by logKey: its
// zones, a rule per limit_req (made once however many places share it), the key maps its zones
// read, and the places of each server block.
struct NginxDryRun {
    const NginxConfig& nginx;
    const std::string& logKey;
    DryRunConfig out;
    std::map<std::string, std::size_t> zoneIndex;
    std::map<std::string, std::pair<int, std::string>> keyMapIndex; // a map's name -> its index, or -1 and why
    std::map<std::pair<int, std::string>, std::size_t> ruleIndex;   // a limit_req (its line, its zone) -> its rule

    NginxDryRun(const NginxConfig& config, const std::string& key) : nginx(config), logKey(key)
    {
        out.paths = DryRunPaths::Nginx; // $uri: decoded, slashes merged, dots resolved before locations
        for (const NginxZone& z : nginx.zones) {
            zoneIndex[z.name] = out.zones.size();
            out.zones.push_back({z.name, z.perMinute ? z.rate * 1000 / 60 : z.rate * 1000});
        }
    }

    // keyText reads one word of a map (its source or a value) onto what a request has: a
    // constant, the request target, or a log field; `why` says why not, when it is none of them.
    std::optional<DryRunKeyText> keyText(const std::string& word, std::string& why) const
    {
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
    }

    // entryOf reads one key of a map as ngx_http_map_find matches it: a regex (compiled by the
    // engine nginx uses), a hostnames wildcard, or a word compared ignoring case.
    static DryRunKeyMap::Entry entryOf(const NginxMap& m, const std::string& key)
    {
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
            e.key = lowerAscii(key);
            e.bare = true;
        } else if (m.hostnames && key.size() > 2 && key.starts_with("*.")) {
            e.kind = Kind::Head;
            e.key = lowerAscii(key.substr(1));
        } else if (m.hostnames && key.size() > 2 && key.ends_with(".*")) {
            e.kind = Kind::Tail;
            e.key = lowerAscii(key.substr(0, key.size() - 1));
        } else {
            e.key = lowerAscii(key.starts_with("\\") ? key.substr(1) : key);
        }
        return e;
    }

    // keyMapOf reads a map as ngx_http_map_find looks it up (DryRunKeyMap); -1 with `why` when a
    // word of it is not on the log.
    int keyMapOf(const NginxMap& m, std::string& why)
    {
        if (const auto it = keyMapIndex.find(m.name); it != keyMapIndex.end()) {
            why = it->second.second;
            return it->second.first;
        }
        DryRunKeyMap km;
        km.name = "map " + m.source + " " + m.name + " (line " + std::to_string(m.line) + ")";
        km.hostnames = m.hostnames;
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
            DryRunKeyMap::Entry e = entryOf(m, key);
            give(value, e.value);
            km.entries.push_back(std::move(e));
        }
        if (why.empty()) {
            result = int(out.keyMaps.size());
            out.keyMaps.push_back(std::move(km));
        }
        keyMapIndex[m.name] = {result, why};
        return result;
    }

    // mapKeyRule keys the last rule by a map, evaluated per request from the fields it reads; the
    // rule is replayed once they are read (bindKeyFields), and named until then.
    void mapKeyRule(const NginxLimit& l, const NginxZone& z, const NginxMap& map)
    {
        std::string why;
        DryRunRule& rule = out.rules.back();
        rule.keyIs = DryRunRule::Key::Mapped;
        rule.keyMap = keyMapOf(map, why);
        if (rule.keyMap < 0) {
            out.mapped.push_back(false);
            out.notReplayed.push_back(ruleName(l) + ": its zone's key " + z.key + " is a map (line "
                                      + std::to_string(map.line) + ") not evaluated on the log: " + why
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
    }

    // keyRule says how the last rule's zone keys a request: by a map, a geo (not evaluated), a
    // constant, the request target or a log field; a key the log does not hold is named.
    void keyRule(const NginxLimit& l, const NginxZone& z)
    {
        // A key without a variable is the same text for every request: one bucket for all
        // (ngx_http_complex_value of a constant). $request_uri is the target as the request
        // line sent it, the log's path unchanged.
        const std::string field = nginxKeyLogField(z.key);
        const auto map = std::find_if(nginx.maps.begin(), nginx.maps.end(), [&](const NginxMap& m) { return m.name == z.key; });
        const auto geo = std::find_if(nginx.geos.begin(), nginx.geos.end(), [&](const auto& g) { return g.first == z.key; });
        if (map != nginx.maps.end()) {
            mapKeyRule(l, z, *map);
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

    // rulesOf returns the rules of a place's limit_req lines, making each the first time.
    std::vector<std::size_t> rulesOf(const std::vector<NginxLimit>& limits)
    {
        std::vector<std::size_t> rules;
        for (const NginxLimit& l : limits) {
            auto [it, fresh] = ruleIndex.emplace(std::pair(l.line, l.zone), out.rules.size());
            if (fresh) {
                const NginxZone& z = nginx.zones[zoneIndex.at(l.zone)];
                out.rules.push_back({ruleName(l), zoneIndex.at(l.zone), l.burst, l.nodelay ? -1 : l.delay, {}, false, false});
                keyRule(l, z);
            }
            rules.push_back(it->second);
        }
        return rules;
    }

    // answered: a place whose `return` answers before limit_req (the rewrite phase runs before
    // preaccess, ngx_http_core_module.c's phase order): its limits apply to nothing.
    void answered(const NginxPlace& p)
    {
        if (!p.limits.empty())
            out.assumed.push_back(p.where + " (line " + std::to_string(p.line) + ") answers with return, which nginx runs "
                                  "before limit_req: its limit_req lines apply to none of its requests");
    }

    // ifReturned: an `if` holding a return answers the requests its condition selects before
    // limit_req; the condition (ngx_http_rewrite_if_condition) is not evaluated on the log.
    void ifReturned(const NginxPlace& p)
    {
        for (int line : p.ifReturns)
            out.assumed.push_back("if (line " + std::to_string(line) + ") in " + p.where + " (line " + std::to_string(p.line)
                                  + ") returns before limit_req for the requests its condition selects; the condition is "
                                    "not evaluated on the log: every request there is read as not selected");
    }

    // addServer adds a server block's locations (group: its place among several, -1 alone; host:
    // the conditions its places meet).
    void addServer(int server, int group, const std::vector<DryRunCondition>& host)
    {
        std::map<std::string, const NginxPlace*> named;
        for (const NginxPlace& p : nginx.places)
            if (p.server == server && p.match.starts_with("@") && !p.nested)
                named[p.match] = &p;
        std::vector<std::string> reachedNamed;
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
        addUnreachedNamed(named, reachedNamed);
        addServerOwn(server, group, host);
    }

    // addUnreachedNamed names the named locations with limits that no try_files reaches.
    void addUnreachedNamed(const std::map<std::string, const NginxPlace*>& named, const std::vector<std::string>& reachedNamed)
    {
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
    }

    // addServerOwn adds the server's own limits, for a request none of its locations takes (or
    // the http block's, with no server).
    void addServerOwn(int server, int group, const std::vector<DryRunCondition>& host)
    {
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
    }

    // finish names the zones no limit_req applies and the includes not followed; a config whose
    // limits reach no request is refused.
    DryRunConfig finish()
    {
        for (const NginxZone& z : nginx.zones)
            if (std::none_of(out.rules.begin(), out.rules.end(), [&](const DryRunRule& r) { return out.zones[r.zone].name == z.name; }))
                out.notReplayed.push_back("limit_req_zone " + z.name + " (line " + std::to_string(z.line)
                                          + "): no limit_req applies it, so nginx limits nothing with it");
        for (const std::string& n : nginx.notFollowed)
            out.notReplayed.push_back(n);
        if (out.rules.empty())
            throw InputError("nginx: no limit_req applies a zone to a request: the config limits nothing"
                             + std::string(out.assumed.empty() ? "" : " (" + out.assumed.front() + ")"));
        return std::move(out);
    }
};

} // namespace

DryRunConfig dryRunConfig(const QString& text, const std::string& logKey)
{
    const NginxConfig nginx = readNginxConfig(text);
    if (nginx.zones.empty())
        throw InputError("nginx: no limit_req_zone directive found (a commented-out one is not configuration)");
    const std::vector<bool> answersAll = serversAnsweringAll(nginx);
    NginxDryRun run(nginx, logKey);
    const int server = chooseServer(nginx, answersAll, run.out);
    if (server != -2) {
        run.addServer(server, -1, {});
    } else {
        std::vector<std::vector<DryRunCondition>> host;
        run.out.groups = hostGroups(nginx, answersAll, host, run.out);
        for (int g : run.out.groups)
            run.addServer(g, g, host[std::size_t(g)]);
    }
    return run.finish();
}

} // namespace ratelab::io
