#include "replay/log_keys.h"

#include <algorithm>

namespace ratelab {

namespace {

bool variableName(std::string_view name)
{
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

} // namespace

bool keylessName(std::string_view key) { return key.empty() || key == "-"; }

std::string nginxKeyLogField(std::string_view zoneKey)
{
    if (zoneKey == "$binary_remote_addr" || zoneKey == "$remote_addr")
        return "ip";
    if (zoneKey == "$remote_user")
        return "user";
    return zoneKey.size() > 1 && zoneKey[0] == '$' && variableName(zoneKey.substr(1)) ? std::string(zoneKey.substr(1)) : "";
}

namespace {

// nginx's own variables of every request that a limit can key by (ngx_http_variables.c), checked
// with `nginx -t`; the address and the user are "ip" and "user". An unknown name fails `nginx -t`,
// and a name starting with a digit is a regex capture ($1abc is $1 then "abc").
constexpr std::string_view kNginxPlainKeys[] = {"host", "server_name", "server_addr", "server_port", "remote_port",
                                                "scheme", "request_method", "server_protocol", "uri", "document_uri",
                                                "request_uri", "args", "query_string", "content_type"};
// The variable families named by a request's header, cookie or argument, which exist (perhaps
// empty) for every name.
constexpr std::string_view kNginxKeyPrefixes[] = {"http_", "cookie_", "arg_"};

} // namespace

std::string nginxKeyVariable(std::string_view logKey)
{
    if (logKey == "ip")
        return "$binary_remote_addr";
    if (logKey == "user")
        return "$remote_user";
    for (std::string_view plain : kNginxPlainKeys)
        if (logKey == plain)
            return "$" + std::string(logKey);
    for (std::string_view prefix : kNginxKeyPrefixes)
        if (logKey.size() > prefix.size() && logKey.starts_with(prefix) && variableName(logKey.substr(prefix.size())))
            return "$" + std::string(logKey);
    return "";
}

std::string nginxKeysOffered()
{
    std::string out = "ip, user";
    for (std::string_view prefix : kNginxKeyPrefixes)
        out += ", " + std::string(prefix) + "NAME";
    for (std::string_view plain : kNginxPlainKeys)
        out += ", " + std::string(plain);
    return out;
}

} // namespace ratelab
