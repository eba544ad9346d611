// Which server block of an nginx configuration a logged request reaches, for replay --config
// (config_dry_run_nginx.cpp): the log holds neither the connection's address nor, often, the Host
// header that nginx chooses a server by. Internal to io.
#pragma once

#include "config_import_nginx.h"

#include "replay/dry_run.h"

#include <vector>

namespace ratelab::io {

// serversAnsweringAll says of each server whether it answers every request with return: with one
// of its own (the server rewrite phase answers before any location is selected), or when its
// locations all do and one of them is "location /", so that no request reaches its own limits.
std::vector<bool> serversAnsweringAll(const NginxConfig& nginx);

// chooseServer returns the server block the log's requests reach. nginx picks a server by the
// connection's address (listen) and the Host header (server_name), and neither is in the log; but
// a server that answers every request with `return` (the usual HTTP-to-HTTPS redirect) never
// serves the application, so when all servers but one are such, the log is read as that one's.
// It returns -1 for no server, -2 when several serve (hostGroups orders them).
int chooseServer(const NginxConfig& nginx, const std::vector<bool>& answersAll, DryRunConfig& out);

// hostGroups orders the server blocks a request may reach when several serve, as
// ngx_http_find_virtual_server picks one (src/http/ngx_http_core_module.c and
// ngx_http_request.c, nginx commit 021a9df15b94): among the servers of the request's address and
// port, the one whose server_name is the Host, else the default server of that port (the one
// whose listen says default_server, else the first). The log holds no port, so the servers that
// serve must share their listen addresses; and only exact names are read (a wildcard or regex
// name is refused by name). The default server comes last. `host` gets, per server, the
// condition its places meet (the default: none).
std::vector<int> hostGroups(const NginxConfig& nginx, const std::vector<bool>& answersAll,
                            std::vector<std::vector<DryRunCondition>>& host, DryRunConfig& out);

} // namespace ratelab::io
