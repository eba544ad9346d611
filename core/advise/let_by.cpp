#include "advise/let_by.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/dry_run_path.h"
#include "replay/product_regex.h"

#include <algorithm>
#include <optional>

namespace ratelab {

namespace {

// LetByRule is how a product's config matches the pattern: its regex engine, and how it reads a
// logged target (nginx's $request_uri as logged; the others' paths as they route them).
// unroutedCounted: a request no route takes still meets the limit (Envoy's filter runs before the
// router, with its own config where no route gives one), and the let-by route's regex is tried on
// any path ("*" too); Traefik and Kong limit on a route only, which a path not starting with '/'
// never meets.
struct LetByRule {
    RegexEngine engine = RegexEngine::Pcre;
    std::optional<DryRunPaths> paths;
    bool unroutedCounted = false;
};

LetByRule letByRule(const std::string& product)
{
    if (product == "traefik")
        return {RegexEngine::Re2, DryRunPaths::Traefik};
    if (product == "kong") // Rust's regex crate, through Kong 3's ATC router: RE2 is its like (dry_run_routing.cpp)
        return {RegexEngine::Re2, DryRunPaths::Kong};
    if (product == "envoy") // safe_regex: RE2 on the path as sent, without its query string
        return {RegexEngine::Re2, DryRunPaths::Envoy, true};
    return {};
}

// routedPath is a logged path as the product routes it, or nullopt when no route of its takes it
// (none logged, '*', a path the product refuses): a route's path begins with '/'.
std::optional<std::string> routedPath(const std::string& logged, DryRunPaths paths)
{
    std::optional<std::string> text = normalizedPath(logged, paths);
    return text && text->starts_with('/') ? text : std::nullopt;
}

} // namespace

std::string yamlQuoted(const std::string& text)
{
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string letByProblem(const LetBy& letBy)
{
    if (letBy.product == "traefik" && letBy.pattern().find('`') != std::string::npos)
        return "Traefik's rule quotes the regex in backquotes, which the pattern holds: write it without one";
    if (letBy.product == "kong" && letBy.pattern().find("//") != std::string::npos)
        return "Kong's schema refuses a path holding \"//\" (an empty segment), which the route's regex would";
    const bool routes = letBy.product == "kong" || letBy.product == "envoy";
    if (letBy.product == "nginx" || letBy.product == "traefik" || (routes && letBy.agent.empty()))
        return {};
    if (letBy.product == "kong")
        return "written for nginx and Traefik only: Kong would match the User-Agent by a header regex (\"~*\"), which "
               "RateLab's dry run of Kong does not model, so the written config could not be proved";
    if (letBy.product == "envoy")
        return "written for nginx and Traefik only: an Envoy route matching a header is not read by RateLab's dry run, so "
               "the written config could not be proved";
    return "written for nginx, Traefik, Kong and Envoy only (" + letBy.product
           + "'s config as advise writes it has no route or lookup that lets a request by)";
}

void checkLetBy(const LetBy& letBy)
{
    if (!letBy.path.empty() && !letBy.agent.empty())
        throw InputError("--pass-path and --pass-agent: give one (nginx would need two maps, one reading the other)");
    if (const std::string problem = letByProblem(letBy); !problem.empty())
        throw InputError(letBy.option() + ": " + problem);
    const RegexEngine engine = letByRule(letBy.product).engine;
    try { // the pattern alone first, so that a refusal's offset is in what was typed
        ProductRegex(letBy.pattern(), engine, RegexSpan::Anywhere);
        ProductRegex(letBy.written(), engine, RegexSpan::Anywhere);
    } catch (const InputError& e) {
        throw InputError(letBy.option() + ": " + e.what());
    }
}

namespace {

// matchedIds says of each of the names whether the pattern matches it (asked once per name), each
// read as `paths` says when given (a path the product refuses matches nothing). An empty value
// ("-" as logged: a header not sent) matches nothing: nginx's map tries its regexes on a
// non-empty value only, and gives the default; a route's header matcher needs the header.
std::vector<std::uint8_t> matchedIds(const std::vector<std::string>& names, const ProductRegex& re,
                                     std::optional<DryRunPaths> paths = {}, bool unroutedCounted = false)
{
    std::vector<std::uint8_t> out(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (paths) { // a path as the product routes it: one no route takes (none logged, '*') is not counted
            if (unroutedCounted) { // no route is no exemption (Envoy's): the regex is tried on whatever path there is
                const std::optional<std::string> text = normalizedPath(names[i], *paths);
                out[i] = text && re.matches(*text);
            } else {
                const std::optional<std::string> text = routedPath(names[i], *paths);
                out[i] = text ? std::uint8_t(re.matches(*text)) : kUnrouted;
            }
        } else {
            out[i] = !keylessName(names[i]) && re.matches(names[i]);
        }
    }
    return out;
}

} // namespace

namespace {

// unroutedOf marks the requests no route takes when the config always routes (Kong's, whose
// route for every path is "/"), none let by; empty when there are none or the log has no paths.
std::vector<std::uint8_t> unroutedOf(const Traffic& traffic, DryRunPaths paths)
{
    if (traffic.noPaths || traffic.paths.size() != traffic.times.size())
        return {};
    std::vector<std::uint8_t> unrouted(traffic.pathNames.size(), 0);
    bool any = false;
    for (std::size_t id = 0; id < traffic.pathNames.size(); ++id) {
        unrouted[id] = routedPath(traffic.pathNames[id], paths) ? 0 : kUnrouted;
        any = any || unrouted[id] != 0;
    }
    if (!any)
        return {};
    std::vector<std::uint8_t> out(traffic.times.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = unrouted[traffic.paths[i]];
    return out;
}

} // namespace

std::vector<std::uint8_t> letByOf(const Traffic& traffic, const LetBy& letBy)
{
    if (!letBy.any()) // Kong's written route for every path is "/", which a path not starting with it misses
        return letBy.product == "kong" ? unroutedOf(traffic, DryRunPaths::Kong) : std::vector<std::uint8_t>{};
    checkLetBy(letBy);
    const LetByRule rule = letByRule(letBy.product);
    const ProductRegex re(letBy.written(), rule.engine, RegexSpan::Anywhere);
    const std::size_t n = traffic.times.size();
    std::vector<std::uint8_t> out(n);
    if (!letBy.path.empty()) {
        if (traffic.noPaths)
            throw InputError("--pass-path: the log has no paths (a path or request field; --path-field names another)");
        if (traffic.pathIsUri) // the written config reads the target as sent, which the log does not hold
            throw InputError("--pass-path: the log's paths are nginx's $uri (decoded, without the query string), not the "
                             "target as sent that the written config reads: log $request or $request_uri");
        if (traffic.paths.size() != n)
            throw std::logic_error("letByOf: the traffic was read without its paths");
        const std::vector<std::uint8_t> matched = matchedIds(traffic.pathNames, re, rule.paths, rule.unroutedCounted);
        for (std::size_t i = 0; i < n; ++i)
            out[i] = matched[traffic.paths[i]];
    } else {
        const auto field = std::find(traffic.keyFields.begin(), traffic.keyFields.end(), kAgentField);
        const auto f = std::size_t(field - traffic.keyFields.begin());
        if (field == traffic.keyFields.end())
            throw std::logic_error("letByOf: the traffic was read without its User-Agent");
        if (traffic.fieldSeen[f] == 0)
            throw InputError("--pass-agent: the log has no User-Agent (a combined log's last field, a log_format's "
                             "$http_user_agent, or a JSON or CSV field " + std::string(kAgentField) + ")");
        const std::vector<std::uint8_t> matched = matchedIds(traffic.keyNames, re);
        for (std::size_t i = 0; i < n; ++i)
            out[i] = matched[traffic.fieldKeys[f][i]];
    }
    const auto let = std::count(out.begin(), out.end(), std::uint8_t(1)); // matched: unrouted ones are not
    const std::string what = letBy.path.empty() ? "User-Agent" : "path";
    const std::string read = letBy.path.empty() || !rule.paths ? " as logged must match" + std::string(letBy.path.empty() ? "" : ", its query string included")
                                                               : std::string(" as ") + (letBy.product == "traefik" ? "Traefik" : letBy.product == "kong" ? "Kong" : "Envoy")
                                                                     + " routes it must match, its query string left out";
    if (let == 0)
        throw InputError(letBy.option() + ": " + ratelab::quoted(letBy.pattern()) + " matches no request's " + what
                         + " (the whole " + what + read + ")");
    if (std::size_t(let + std::count(out.begin(), out.end(), kUnrouted)) == n)
        throw InputError(letBy.option() + ": " + ratelab::quoted(letBy.pattern()) + " matches every request's " + what
                         + ": no request is left to limit");
    return out;
}

} // namespace ratelab
