// The server block a logged request reaches in an nginx configuration
// (config_dry_run_nginx_servers.h).
#include "config_dry_run_nginx_servers.h"

#include "config_import.h"

#include "arithmetic/decimal.h"

#include <algorithm>
#include <map>
#include <string>

namespace ratelab::io {

namespace {

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

} // namespace

std::vector<bool> serversAnsweringAll(const NginxConfig& nginx)
{
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
    return answersAll;
}

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

} // namespace ratelab::io
