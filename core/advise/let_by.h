// Requests a written config lets by uncounted (`advise --pass-path`, `--pass-agent`): a health
// check's path, a mobile app's User-Agent. A limit that counted them could promise they pass only
// by keeping every request of their keys (which --pass does): the requests a bucket admits are
// not monotone in its burst (a larger one can admit a request early and deny a later one the
// smaller admits), so no least burst admits a chosen part of a key's requests. Let by, they pass
// at any limit, and the rest of the log is what the limit is advised on, as the gateway will run it.
#pragma once

#include "traffic/traffic_log.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ratelab {

// LetBy is what a request is let by for: its target as logged or its User-Agent as logged, wholly
// matched by the pattern, as `product`'s config matches it (letByRule). One of them at most: the
// gateway's config says it with one lookup (nginx: one map that empties the zone's key; Traefik
// and Kong: a route without the limit, tried before the one with it).
struct LetBy {
    std::string path, agent;
    std::string product = "nginx";

    bool any() const { return !path.empty() || !agent.empty(); }
    // pattern is the one given, and written is it as the gateway's regex over the whole text:
    // "^(?:P)$", matched anywhere (nginx's map "~" keys, Traefik's *Regexp matchers, Kong's "~"
    // paths, which anchor it at the start besides).
    const std::string& pattern() const { return path.empty() ? agent : path; }
    std::string written() const { return "^(?:" + pattern() + ")$"; }
    // option is the command line's name for it, for messages ("--pass-path").
    std::string option() const { return path.empty() ? "--pass-agent" : "--pass-path"; }
};

// letByProblem says why `product`'s config cannot let by what letBy names ("" when it can):
// nginx lets by a path or an agent, Traefik a path (PathRegexp) or an agent (HeaderRegexp), Kong
// a path (a "~" route); the others' configs have no such lookup as `advise` writes them.
std::string letByProblem(const LetBy& letBy);

// kAgentField is the log field the User-Agent is read from (TrafficOptions::keyFields), as nginx
// names the variable: combined logs, log_format's $http_user_agent, JSON and CSV fields of that name.
inline constexpr const char* kAgentField = "http_user_agent";

// yamlQuoted is text as a YAML single-quoted scalar: in quotes, each quote doubled (the written
// routes' regexes, which hold backslashes a double-quoted scalar would read as escapes).
std::string yamlQuoted(const std::string& text);

// kUnrouted marks, in letByOf's answer, a request no route of the product takes (see there).
inline constexpr std::uint8_t kUnrouted = 2;

// checkLetBy throws InputError ("--pass-path: ...") when both are given, the product cannot let
// it by (letByProblem) or its regex engine refuses the pattern: a command refuses it before it
// reads the log.
void checkLetBy(const LetBy& letBy);

// letByOf marks the traffic's requests letBy lets by (empty when it is none, but Kong's unrouted
// ones, below, its written route for every path being "/"): nginx's map reads
// $request_uri (the target as logged) with PCRE2; Traefik's PathRegexp the path as it routes it
// (dry_run_path.h: no query string, %XX decoded but reserved ones, dots and slashes resolved)
// with RE2, its HeaderRegexp the header as sent; Kong's "~" path the path as it routes it, with
// RE2 (Rust's regex crate's like, which Kong 3's router matches it by). A product that routes
// lets by, besides, the requests no route of it takes (a path not starting with '/': a request
// line logged "-", "*"): marked 2, which its config counts no more than those let by, and which
// no message counts as matching the pattern. The traffic holds its paths (TrafficOptions::keepPaths) for a path, the kAgentField
// field for an agent. It throws
// InputError when the log lacks what the pattern is matched against, or when the pattern lets by
// none of the requests (a pattern that lets nothing by is a mistake, not a goal) or all of them.
std::vector<std::uint8_t> letByOf(const Traffic& traffic, const LetBy& letBy);

} // namespace ratelab
