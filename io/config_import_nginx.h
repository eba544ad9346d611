// Reading an nginx configuration's request limits as nginx's own parser reads them
// (ngx_conf_file.c, ngx_http_limit_req_module.c): `#` starts a comment where a word would start,
// words are split on spaces and `;`, `{`, `}`, quotes group; limit_req_zone takes its key first
// and zone= / rate= in any order; limit_req takes zone=, burst=, delay= and nodelay in any
// order; a block with no limit_req of its own inherits its parent's list, one with its own does
// not (ngx_http_limit_req_merge_conf).
#pragma once

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace ratelab::io {

// NginxZone is one limit_req_zone: its name, key ("$binary_remote_addr") and rate (`rate` per
// second, or per minute when perMinute), and the line it is on.
struct NginxZone {
    std::string name;
    std::string key;
    std::int64_t rate = 1; // nginx's default when rate= is absent: 1r/s
    bool perMinute = false;
    int line = 0;
};

// NginxLimit is one limit_req: its zone, burst (0 when absent), delay (0) or nodelay.
struct NginxLimit {
    std::string zone;
    std::int64_t burst = 0;
    std::int64_t delay = 0;
    bool nodelay = false;
    int line = 0;
};

// NginxPlace is where requests meet a list of limits: a location ("location /api/"), or a server
// or the http level when they hold no location. limits is the effective list (inherited when the
// block has none of its own); dryRun is limit_req_dry_run as it applies there.
struct NginxPlace {
    std::string where;  // "location /api/", "location = /login", "server", "http"
    std::string match;  // the location's path ("" for a server or http: every request)
    std::string modifier; // "", "=", "^~", "~", "~*"
    std::vector<NginxLimit> limits;
    bool dryRun = false;
    int line = 0;
    bool nested = false; // a location inside a location
    int server = -1;     // the index of its server block in NginxConfig::servers (-1: http level)
    // answers: a `return` directly in the block. nginx runs it in the (server) rewrite phase, before
    // the preaccess phase where limit_req runs, so no limit_req ever sees its requests.
    bool answers = false;
    // tryNamed: try_files's last argument when it is a named location ("@app"), where a request
    // no file or directory answers goes.
    std::string tryNamed{};
    std::vector<std::string> serverNames{}; // a server's server_name words
    std::vector<std::string> listens{};   // a server's listen addresses (their first word)
    bool defaultServer = false;           // a listen of the server says default_server (or default)
    std::vector<int> ifReturns{};          // the lines of its `if` blocks that hold a return: some requests answered first
};

// NginxMap is one `map SOURCE $NAME { ... }` block (ngx_http_map_module.c): its entries as
// written, in file order ("default" and the `~`/`~*` regexes among them), and its flags.
struct NginxMap {
    std::string source; // the value mapped, as written ("$http_x_api_key")
    std::string name;   // the variable it defines, "$" included ("$limit_key")
    int line = 0;
    bool hostnames = false; // `hostnames`: ".example.com", "*.example.com" and "www.example.*" keys are wildcards
    std::vector<std::pair<std::string, std::string>> entries{}; // (key, value), "default" included
    bool includes = false;  // an `include` in the block, not followed: its entries are unknown
};

// NginxConfig is what readNginxConfig found: the zones in file order, every place in file order
// (places without limits included), and what it read but does not follow (an include).
struct NginxConfig {
    std::vector<NginxMap> maps;
    std::vector<std::pair<std::string, int>> geos; // each geo block's variable ("$whitelist") and line
    std::vector<NginxZone> zones;
    std::vector<NginxPlace> places;
    std::vector<NginxPlace> servers; // every server block, its own limits: what a request matching no location meets
    std::vector<std::string> notFollowed;
};

// readNginxConfig reads the limit_req directives of an nginx configuration (a whole nginx.conf,
// or the http-level fragment people paste). It throws InputError, "nginx: line N: ...", for what
// nginx itself refuses: an unterminated block or quote, a limit_req_zone without a zone or with a
// bad rate, a key not first, an unknown parameter, burst=0, a zone bound twice, a limit_req whose
// zone no limit_req_zone defines, the same zone twice in one block.
NginxConfig readNginxConfig(const QString& text);

// nginxRateText writes a zone's rate as nginx does: "10r/s", "1r/m".
std::string nginxRateText(const NginxZone& zone);

struct ImportedConfig; // config_import.h

// nginxScenario imports an nginx configuration (config_import_nginx_scenario.cpp): the first
// place with limits modelled, which of its zones binds, every other place, zone and include named.
ImportedConfig nginxScenario(const QString& text);

} // namespace ratelab::io
