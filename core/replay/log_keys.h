// How a log's keys meet a gateway's keys: which logged keys no limit counts, and which nginx
// variable is which log key. The dry run reads a config's keys onto the log with these, and
// `advise` writes a config's key with them, so a written config reads back as the same key.
#pragma once

#include <string>
#include <string_view>

namespace ratelab {

// keylessName: a key logged "" or "-" (a header the request did not send). Every limit keyed by
// it skips the request, as nginx skips a limit whose key is empty.
bool keylessName(std::string_view key);

// nginxKeyLogField returns the log key an nginx zone's key is ("ip" for $binary_remote_addr and
// $remote_addr, "user" for $remote_user, FIELD for a plain variable $FIELD), or "" for none.
std::string nginxKeyLogField(std::string_view zoneKey);

// nginxKeyVariable returns the variable an nginx zone keys by for a log key (--key): the inverse
// of nginxKeyLogField ("ip": $binary_remote_addr, the address's 4 or 16 bytes, which a zone
// holds most compactly), or "" unless nginx has that variable for every request: "user", a
// header's, cookie's or argument's (http_NAME, cookie_NAME, arg_NAME) or one of nginx's own
// request variables (nginxKeysOffered lists them).
std::string nginxKeyVariable(std::string_view logKey);

// nginxKeysOffered is the log keys nginxKeyVariable accepts, for a message: "ip, user, http_NAME, ...".
std::string nginxKeysOffered();

} // namespace ratelab
