// A logged path as each product reads it before it selects a route, and Spring's
// PathPattern. Each rule below is the product's own source, cited where it is implemented.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ratelab {

// DryRunPaths is how a product makes a request's path ready before it matches its routes.
enum class DryRunPaths {
    AsLogged,     // the path as logged, its query string left out
    Traefik,      // v3: sanitizePath's URL.JoinPath (dots, slashes), then the routing path: %XX decoded but reserved ones
    Nginx,        // ngx_http_parse_complex_uri: every %XX decoded, slashes merged, "." and ".." resolved
    Kong,         // kong/tools/uri.lua normalize(uri, true): %XX decoded but reserved ones, dots, slashes merged
    Envoy,        // Envoy without normalize_path or merge_slashes (its defaults): the path as sent
    EnvoyNormalize, // normalize_path: RFC 3986 (unreserved %XX decoded, dot segments removed)
    EnvoyMerge,   // merge_slashes alone
    EnvoyBoth,    // normalize_path and merge_slashes
    Spring,       // PathContainer: matched segment by segment, each decoded (a %2F stays inside its segment)
};

// normalizedPath returns `path` (as logged, query string included) as the product matches it,
// its query string left out, or nullopt when the product refuses the path before any route
// (nginx answers 400 to a bad %XX, a decoded NUL, or ".." above the root).
std::optional<std::string> normalizedPath(std::string_view path, DryRunPaths rule);

// springPathMatches returns whether Spring's PathPattern `pattern` (PathPatternParser: literal
// segments, '?', '*' within a segment, {var}, {var:regex}, and "**" or {*var} at the end)
// matches the path (as logged, its query string left out), each segment percent-decoded and its
// ";params" removed as PathContainer does; with trailingSlash a path ending in one '/' also
// matches a pattern without it (Spring Cloud Gateway's matchTrailingSlash). It throws InputError
// for a pattern PathPatternParser refuses or that is past what is read ("**" not at the end).
bool springPathMatches(std::string_view pattern, std::string_view path, bool trailingSlash);

// checkSpringPattern throws InputError, naming the pattern, for a pattern springPathMatches refuses.
void checkSpringPattern(std::string_view pattern);

} // namespace ratelab
