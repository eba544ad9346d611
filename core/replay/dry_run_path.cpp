#include "replay/dry_run_path.h"

#include "arithmetic/decimal.h"
#include "replay/product_regex.h"

#include <map>
#include <vector>

namespace ratelab {

namespace {

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = char(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'
           || c == '~';
}

enum class Decode { All, AllButReserved, Unreserved, Traefik };

// decode percent-decodes `in`: All as nginx (a bad %XX or a NUL: nullopt), AllButReserved as
// Kong's normalize_decode (a reserved character stays encoded, in upper case; a bad %XX stays),
// Unreserved as RFC 3986's normalization (others stay, in upper case).
std::optional<std::string> decode(std::string_view in, Decode how)
{
    static constexpr std::string_view kReserved = "!*'();:@&=+$,/?%#[]";
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out += in[i];
            continue;
        }
        const int hi = i + 2 < in.size() ? hexValue(in[i + 1]) : -1, lo = i + 2 < in.size() ? hexValue(in[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            if (how == Decode::All || how == Decode::Traefik) // Go's url parser refuses it too (400)
                return std::nullopt; // ngx_http_parse_complex_uri: NGX_HTTP_PARSE_INVALID_REQUEST
            out += in[i];
            continue;
        }
        const auto c = static_cast<unsigned char>(hi * 16 + lo);
        // Traefik's withRoutingPath keeps a reserved character's encoding as written in upper case
        // ("%2F"); "%2f" is not in its table, so it is decoded.
        const bool upper = !(in[i + 1] >= 'a' && in[i + 1] <= 'f') && !(in[i + 2] >= 'a' && in[i + 2] <= 'f');
        if (how == Decode::Traefik && upper && kReserved.find(char(c)) != std::string_view::npos) {
            out.append(in.substr(i, 3));
            i += 2;
            continue;
        }
        const bool keep = (how == Decode::AllButReserved && kReserved.find(char(c)) != std::string_view::npos)
                          || (how == Decode::Unreserved && !unreserved(c));
        if (how == Decode::All && c == 0)
            return std::nullopt;
        if (keep) {
            static constexpr char kHex[] = "0123456789ABCDEF";
            out += '%';
            out += kHex[hi];
            out += kHex[lo];
        } else {
            out += char(c);
        }
        i += 2;
    }
    return out;
}

std::string mergeSlashes(std::string_view in)
{
    std::string out;
    for (char c : in)
        if (c != '/' || out.empty() || out.back() != '/')
            out += c;
    return out;
}

// removeDots resolves "." and ".." segments (RFC 3986 5.2.4, nginx's sw_dot states); a ".."
// above the root is nullopt when refused (nginx), else stays at the root (Kong, Envoy). A last
// "." or ".." leaves a '/' at the end, but for Go's path.Clean (goClean), which leaves none.
std::optional<std::string> removeDots(const std::string& in, bool refuseAboveRoot, bool goClean = false)
{
    if (in.empty() || in[0] != '/')
        return in;
    std::vector<std::string_view> out;
    const std::string_view rest = std::string_view(in).substr(1);
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = rest.find('/', begin);
        const std::string_view seg = rest.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
        const bool last = end == std::string_view::npos;
        if (seg == "..") {
            if (out.empty() && refuseAboveRoot)
                return std::nullopt;
            if (!out.empty())
                out.pop_back();
            if (last && !goClean)
                out.emplace_back();
        } else if (seg == ".") {
            if (last && !goClean)
                out.emplace_back();
        } else {
            out.push_back(seg);
        }
        if (last)
            break;
        begin = end + 1;
    }
    std::string path = "/";
    for (std::size_t i = 0; i < out.size(); ++i)
        path.append(i ? "/" : "").append(out[i]);
    return path;
}

std::vector<std::string> split(std::string_view s)
{
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = s.find('/', begin);
        out.emplace_back(s.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
        if (end == std::string_view::npos)
            return out;
        begin = end + 1;
    }
}

bool restWildcard(const std::string& seg) { return seg == "**" || (seg.starts_with("{*") && seg.ends_with("}")); }

// segmentRegex turns a pattern segment holding '*', '?' or {var} into a regex (RegexPathElement:
// '*' any run, '?' one character, {var} "(.*)" or its own regex), matched on the whole segment.
// Compiled once a thread: a dry run asks it of every request that reaches the route.
const ProductRegex& segmentRegex(const std::string& seg)
{
    thread_local std::map<std::string, ProductRegex, std::less<>> compiled;
    if (const auto it = compiled.find(seg); it != compiled.end())
        return it->second;
    std::string re;
    for (std::size_t i = 0; i < seg.size(); ++i) {
        const char c = seg[i];
        if (c == '*') {
            re += ".*";
        } else if (c == '?') {
            re += '.';
        } else if (c == '{') {
            const std::size_t close = seg.find('}', i);
            if (close == std::string::npos)
                throw InputError("the pattern segment " + quoted(seg) + " has '{' without '}'");
            const std::string var = seg.substr(i + 1, close - i - 1);
            const std::size_t colon = var.find(':');
            re += "(" + (colon == std::string::npos ? std::string(".*") : var.substr(colon + 1)) + ")";
            i = close;
        } else {
            if (std::string_view("\\^$.|+()[]{}").find(c) != std::string_view::npos)
                re += '\\';
            re += c;
        }
    }
    try {
        return compiled.emplace(seg, ProductRegex(re, RegexEngine::Pcre, RegexSpan::Whole)).first->second;
    } catch (const InputError&) {
        throw InputError("the pattern segment " + quoted(seg) + " is past what RateLab reads of Java's regex syntax");
    }
}

struct SpringMatcher {
    const std::vector<std::string>& pat;
    const std::vector<std::string>& path;
    std::size_t size; // path segments taken

    bool at(std::size_t pi, std::size_t si) const
    {
        if (pi == pat.size())
            return si == size;
        const std::string& p = pat[pi];
        if (restWildcard(p)) // "/**", "/{*var}": zero or more segments, the path's end (checked: last)
            return true;
        if (si == size)
            return false;
        const std::string& s = path[si];
        const bool lastPattern = pi + 1 == pat.size();
        if (p == "*") // WildcardPathElement: one segment, an empty one only at the pattern's end
            return (!s.empty() || lastPattern) && at(pi + 1, si + 1);
        if (p.find_first_of("*?{") == std::string::npos)
            return p == s && at(pi + 1, si + 1);
        if (s.empty())
            return false;
        if (p.front() == '{' && p.back() == '}' && p.find('}') == p.size() - 1 && p.find(':') == std::string::npos)
            return at(pi + 1, si + 1); // CaptureVariablePathElement: any non-empty segment
        return segmentRegex(p).matches(s) && at(pi + 1, si + 1);
    }
};

} // namespace

std::optional<std::string> normalizedPath(std::string_view path, DryRunPaths rule)
{
    const std::string_view noQuery = path.substr(0, path.find('?'));
    switch (rule) {
    case DryRunPaths::AsLogged:
    case DryRunPaths::Envoy:
    case DryRunPaths::Spring: return std::string(noQuery);
    case DryRunPaths::Nginx: { // decode, merge_slashes (on by default), then the dot segments
        const std::optional<std::string> decoded = decode(noQuery, Decode::All);
        return decoded ? removeDots(mergeSlashes(*decoded), true) : std::nullopt;
    }
    case DryRunPaths::Kong: // kong/router/utils.lua strip_uri_args -> normalize(uri, true)
        return removeDots(mergeSlashes(*decode(noQuery, Decode::AllButReserved)), false);
    case DryRunPaths::EnvoyNormalize:
    case DryRunPaths::EnvoyBoth: { // PathUtil::canonicalPath, then mergeSlashes (source/common/http/path_utility.cc)
        const std::string normal = *removeDots(*decode(noQuery, Decode::Unreserved), false);
        return rule == DryRunPaths::EnvoyBoth ? mergeSlashes(normal) : normal;
    }
    case DryRunPaths::EnvoyMerge: return mergeSlashes(noQuery);
    case DryRunPaths::Traefik: { // pkg/server/server_entrypoint_tcp.go sanitizePath, pkg/muxer/http/mux.go withRoutingPath
        const std::string clean = *removeDots(mergeSlashes(noQuery), false, true);
        return decode(clean, Decode::Traefik);
    }
    }
    return std::string(noQuery);
}

void checkSpringPattern(std::string_view pattern)
{
    const std::string p = pattern.starts_with('/') ? std::string(pattern) : "/" + std::string(pattern);
    const std::vector<std::string> segs = split(std::string_view(p).substr(1));
    for (std::size_t i = 0; i < segs.size(); ++i) {
        if (restWildcard(segs[i]) && i + 1 != segs.size())
            throw InputError("the Path pattern " + quoted(std::string(pattern)) + " has " + segs[i]
                             + " before its end: PathPatternParser takes it only at the end");
        if (!restWildcard(segs[i]) && segs[i].find_first_of("*?{") != std::string::npos && segs[i] != "*")
            (void)segmentRegex(segs[i]);
    }
}

bool springPathMatches(std::string_view pattern, std::string_view path, bool trailingSlash)
{
    checkSpringPattern(pattern);
    const std::string p = pattern.starts_with('/') ? std::string(pattern) : "/" + std::string(pattern);
    const std::vector<std::string> pat = split(std::string_view(p).substr(1));
    path = path.substr(0, path.find('?'));
    if (!path.starts_with('/'))
        return false;
    std::vector<std::string> segs = split(path.substr(1));
    for (std::string& s : segs) { // PathSegment.valueToMatch: ";params" removed, then decoded
        s = s.substr(0, s.find(';'));
        const std::optional<std::string> d = decode(s, Decode::All);
        if (!d)
            return false; // StringUtils.uriDecode refuses it: no route matches
        s = *d;
    }
    if (SpringMatcher{pat, segs, segs.size()}.at(0, 0))
        return true;
    return trailingSlash && segs.size() >= 2 && segs.back().empty() && !pat.back().empty()
           && SpringMatcher{pat, segs, segs.size() - 1}.at(0, 0);
}

} // namespace ratelab
