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

std::string nginxKeyVariable(std::string_view logKey)
{
    if (logKey == "ip")
        return "$binary_remote_addr";
    if (logKey == "user")
        return "$remote_user";
    return variableName(logKey) ? "$" + std::string(logKey) : "";
}

} // namespace ratelab
