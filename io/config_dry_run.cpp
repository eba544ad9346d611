#include "config_dry_run.h"

#include "config_import_nginx.h"

#include "arithmetic/decimal.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <map>

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

// logField returns the log key a zone's key maps onto ("ip", "user", a field), or "" for none.
std::string logField(const std::string& zoneKey)
{
    if (zoneKey == "$binary_remote_addr" || zoneKey == "$remote_addr")
        return "ip";
    if (zoneKey == "$remote_user")
        return "user";
    const bool plainVariable = zoneKey.size() > 1 && zoneKey[0] == '$'
                               && std::all_of(zoneKey.begin() + 1, zoneKey.end(), [](char c) {
                                      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
                                  });
    return plainVariable ? zoneKey.substr(1) : "";
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

} // namespace

DryRunConfig dryRunConfig(const QString& text, const std::string& logKey)
{
    const NginxConfig nginx = readNginxConfig(text);
    if (nginx.zones.empty())
        throw InputError("nginx: no limit_req_zone directive found (a commented-out one is not configuration)");
    if (nginx.servers.size() > 1)
        throw InputError("nginx: " + std::to_string(nginx.servers.size()) + " server blocks (lines "
                         + std::to_string(nginx.servers[0].line) + ", " + std::to_string(nginx.servers[1].line)
                         + "): which one a request reaches (listen, server_name) is not in the log; give one server's config");
    DryRunConfig out;
    std::map<std::string, std::size_t> zoneIndex;
    for (const NginxZone& z : nginx.zones) {
        zoneIndex[z.name] = out.zones.size();
        out.zones.push_back({z.name, z.perMinute ? z.rate * 1000 / 60 : z.rate * 1000});
    }
    std::map<std::pair<int, std::string>, std::size_t> ruleIndex; // a limit_req (its line, its zone) -> its rule
    const auto rulesOf = [&](const std::vector<NginxLimit>& limits) {
        std::vector<std::size_t> rules;
        for (const NginxLimit& l : limits) {
            auto [it, fresh] = ruleIndex.emplace(std::pair(l.line, l.zone), out.rules.size());
            if (fresh) {
                const NginxZone& z = nginx.zones[zoneIndex.at(l.zone)];
                const std::string field = logField(z.key);
                out.rules.push_back({ruleName(l), zoneIndex.at(l.zone), l.burst, l.nodelay ? -1 : l.delay});
                out.mapped.push_back(field == logKey);
                if (field != logKey)
                    out.notReplayed.push_back(ruleName(l) + ": its zone's key " + z.key + " is not the log's key ("
                                              + logKey + ")" + (field.empty() ? ", nor a log field: not replayed"
                                                                              : ": not replayed (--key " + field + " replays it)"));
            }
            rules.push_back(it->second);
        }
        return rules;
    };
    for (const NginxPlace& p : nginx.places) {
        if (p.where == "server" || p.where == "http") {
            out.fallback = rulesOf(p.limits);
            continue;
        }
        if (p.nested)
            throw InputError("nginx: line " + std::to_string(p.line) + ": " + p.where + " is inside another location: "
                             "nginx's selection among nested locations is not modelled");
        if (p.match.starts_with("@")) { // a named location: reached by a redirect, never by a path
            if (!p.limits.empty())
                out.notReplayed.push_back(p.where + " (line " + std::to_string(p.line) + "): a named location, reached "
                                          "by internal redirects, not by a logged path: its limits are not replayed");
            continue;
        }
        out.places.push_back({p.where + " (line " + std::to_string(p.line) + ")", matchOf(p), p.match, rulesOf(p.limits)});
    }
    if (!nginx.servers.empty())
        out.fallback = rulesOf(nginx.servers.front().limits);
    for (const NginxZone& z : nginx.zones)
        if (std::none_of(out.rules.begin(), out.rules.end(), [&](const DryRunRule& r) { return out.zones[r.zone].name == z.name; }))
            out.notReplayed.push_back("limit_req_zone " + z.name + " (line " + std::to_string(z.line)
                                      + "): no limit_req applies it, so nginx limits nothing with it");
    for (const std::string& n : nginx.notFollowed)
        out.notReplayed.push_back(n);
    if (out.rules.empty())
        throw InputError("nginx: no limit_req applies a zone: the config limits nothing");
    return out;
}

DryRunConfig dryRunConfigFile(const QString& path, const std::string& logKey)
{
    QFile f(path);
    if (!QFileInfo(path).isFile() || !f.open(QIODevice::ReadOnly))
        throw InputError("cannot read " + ratelab::quoted(path.toStdString()));
    if (f.size() > 4 * 1024 * 1024)
        throw InputError(ratelab::quoted(path.toStdString()) + " is larger than 4 MiB");
    try {
        return dryRunConfig(QString::fromUtf8(f.readAll()), logKey);
    } catch (const InputError& e) {
        throw InputError(path.toStdString() + ": " + e.what());
    }
}

} // namespace ratelab::io
