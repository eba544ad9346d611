// A gateway's config on a log (semantics.md, "A gateway's config on a log: dry runs"):
// every rule of the config with its own key and limiter, each logged request meeting the rules
// its path selects, as the product selects them.
//
// The product modelled is nginx: a rule is one limit_req line, its limiter the zone's leaky
// bucket as ngx_http_limit_req_module.c computes it (nginx_limit_req.h), its state the zone's, per
// key (two locations applying one zone count in one bucket per key). A request meets the limits
// of the one location nginx selects for its path (exact "=", else the longest prefix, which
// stops there when it is "^~", else the first regex in file order, else that longest prefix),
// or, matching none, the server's own. Within a location nginx asks the limits in order and
// stops at the first that rejects; a request counts in the zones only when every limit admits
// it (ngx_http_limit_req_handler: the limits before the last are only looked up, then accounted
// once all pass; a rejection unlocks them unchanged). That is nginx's rule, and it differs from
// the layers' ("a layer that admits has consumed"): an earlier zone of a denied request keeps
// nothing, as in nginx.
//
// Any other product (a RateLab scenario, express-rate-limit, Envoy, Kong...: config_dry_run.h)
// is one rule that every request meets: its policy (the product's algorithm, or the scenario's
// layers), one per key of the log (or one for every request, when the product keeps one), deciding
// as `replay` does; a policy counts a request as it decides it.
#pragma once

#include "engine/layered.h"
#include "replay/address_range.h"
#include "replay/dry_run_path.h"
#include "replay/product_regex.h"

#include "arithmetic/nanos.h"
#include "traffic/traffic_log.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// DryRunZone is one limit_req_zone: its name and its rate in thousandths of a request a second.
struct DryRunZone {
    std::string name;
    std::int64_t rate = 1000;
};

// DryRunRule is one limit_req line: its zone, burst and delay, and how it is shown.
struct DryRunRule {
    std::string name;       // "limit_req zone=api burst=5 nodelay (line 12)"
    std::size_t zone = 0;   // index in DryRunConfig::zones
    std::int64_t burst = 0; // requests
    std::int64_t delay = 0; // requests passed without waiting; -1: nodelay
    // policy, when not empty, decides instead of the zone (whose name then only names it): a
    // LayeredPolicy of these layers per key, or one for every request when shared. A config with
    // a policy rule has that one rule.
    std::vector<Layer> policy;
    bool shared = false;
    // denyEmptyKey: a request with an empty key is denied (Spring's deny-empty-key), not let through.
    bool denyEmptyKey = false;
    // keyField: the log field the rule keys by when it is not the log's key ("" otherwise), and
    // keyNote the notReplayed entry that says so (-1 none); bindKeyFields replays it by that field.
    std::string keyField = {};
    int keyNote = -1;
    int keySource = -1; // the key: -1 the log's (Traffic::keys), else Traffic::fieldKeys[keySource]
    // fallbackField: the log field a request is keyed by when its own key is empty ("" none): Kong
    // keys a request without a consumer, credential or header by its client IP. fallbackSource is
    // it as keySource is (-1 the log's key), -2 while no log field is bound to it, and
    // fallbackNote the notReplayed entry that says so (-1 none); bindKeyFields binds it.
    std::string fallbackField = {};
    int fallbackSource = -2;
    int fallbackNote = -1;
    // keyIs: what the zone's key is, when it is not a key of the log: one value for every request
    // (nginx's key without variables), or the request target as logged (nginx's $request_uri).
    // Mapped: the key is a map variable, evaluated per request (DryRunConfig::keyMaps[keyMap]).
    enum class Key { Logged, Constant, Target, Mapped };
    Key keyIs = Key::Logged;
    int keyMap = -1;
};

// DryRunKeyText is a text a request has: a constant, a log field's value (bound to
// Traffic::fieldKeys[source] by bindKeyFields; "-" is read as empty, as nginx logs an empty
// value), or the request target as logged (nginx's $request_uri).
struct DryRunKeyText {
    enum class Kind { Constant, LogKey, Field, Target }; // LogKey: the field is the log's key (Traffic::keys)
    Kind kind = Kind::Constant;
    std::string text; // the constant, or the field's name
    int source = -1;
};

// DryRunKeyMap is nginx's map (ngx_http_map_module.c): the source's value is looked up among the
// exact keys (case-insensitively), then, with `hostnames`, the wildcard keys (the longest
// "*.x"/".x" match, then the longest "x.*" match), then the regexes in order (a non-empty value
// only); the first found gives the value, else `fallback` (the default, "" when none). A zone
// keyed by it counts per value; an empty value skips the limit (nginx: "if (key.len == 0) continue").
struct DryRunKeyMap {
    std::string name; // "map $http_x_api_key $limit_key (line 3)"
    DryRunKeyText from;
    bool hostnames = false;
    struct Entry {
        enum class Kind { Exact, Head, Tail, Regex, RegexCaseless };
        Kind kind = Kind::Exact;
        // Exact: the key lowercased; Head: the suffix after "*" (".example.com"), with bare set when
        // the key was ".example.com" (it matches example.com too); Tail: the prefix before "*"; Regex:
        // the pattern, matched anywhere in the value by PCRE2.
        std::string key;
        bool bare = false;
        DryRunKeyText value;
    };
    std::vector<Entry> entries; // in file order
    DryRunKeyText fallback;
};

// DryRunMatch is how a location matches a path: nginx's modifiers, then the other products'.
// Each matches the path as DryRunConfig::paths makes it, but PrefixRaw, which matches the path
// as logged, its query string included (Envoy's prefix is matched on the whole :path header).
enum class DryRunMatch {
    Exact, Prefix, PrefixStop, Regex, RegexCaseless,
    RegexStart,    // Kong's "~" paths: the regex anchored at the path's start ("^" prefixed)
    RegexFull,     // Envoy's safe_regex: the whole path (its query string left out)
    SegmentPrefix, // Envoy's path_separated_prefix: the prefix, then the path's end or '/'
    PrefixRaw,     // Envoy's prefix
    Pattern,       // Spring's PathPattern (dry_run_path.h), with DryRunPlace::trailingSlash
};

// DryRunInstant is an instant: seconds since 1970-01-01T00:00:00Z and nanoseconds within the
// second, as Java's Instant holds one (a year past 2262 does not fit in Nanos).
struct DryRunInstant {
    std::int64_t seconds = 0;
    std::int32_t nanos = 0;
    auto operator<=>(const DryRunInstant&) const = default;
};

// DryRunCondition is what a request must have besides its path to match a place (a route's
// methods, hosts, a header): a text whose value is one of `values`, or ends with one of
// `suffixes`, or starts with one of `prefixes`, or holds a match of one of `regexes` (caseless:
// both lower-cased first), or is a client address in one of `addresses`. The text is a log field's value (a field logged "-" or empty, a header
// not sent, holds none), the path as the product matches it, or a query parameter's values in
// the logged target (the test holds when one of them passes; none when it is absent), or the
// target as logged, its query string included (Envoy's :path header).
struct DryRunCondition {
    // the log field ("request_method", "host", "http_x_version"), or, for Subject::Query, the
    // query parameter's name
    std::string field;
    std::vector<std::string> values = {}, suffixes = {}, prefixes = {};
    bool caseless = false;
    // source: Traffic::fieldKeys[source] once bindKeyFields binds the field (-1 until then: the
    // condition is taken to hold); note, assumedNote: the notReplayed or assumed entry that says
    // so (-1 none), dropped when it is bound. A Path or Query condition is always bound.
    int source = -1;
    int note = -1;
    int assumedNote = -1;
    // Subject::Time: the request's logged time, strictly after `after` and strictly before
    // `before`, each when set (Spring's After, Before and Between: isAfter and isBefore).
    enum class Subject { Field, Path, Query, Target, Time };
    Subject subject = Subject::Field;
    // regexes: by default RE2's, found anywhere in the text (Go's regexp.MatchString: Traefik's
    // *Regexp matchers); Spring's Java regexes are PCRE2's over the whole text
    std::vector<std::string> regexes{};
    RegexEngine regexEngine = RegexEngine::Re2;
    RegexSpan regexSpan = RegexSpan::Anywhere;
    // queryReader: how the query string is split into parameters: Go's url.ParseQuery (a pair
    // holding ';' dropped), or Spring's AbstractServerHttpRequest (a name without '=' has no
    // value, which no regex matches)
    enum class QueryReader { Go, Spring };
    QueryReader queryReader = QueryReader::Go;
    bool negate = false; // the condition holds when the test fails (Traefik's "!")
    // hostName: the field is a Host header, read as Traefik's canonical host (requestdecorator:
    // its port cut, spaces trimmed, lower-cased) before the test
    bool hostName = false;
    // addresses: the text read as a logged client address (loggedAddress), in one of these
    // networks (Traefik's ClientIP, Spring's RemoteAddr); a text that is no address is in none.
    std::vector<DryRunAddressRange> addresses = {};
    std::optional<DryRunInstant> after = {}, before = {};
    // forwardedIndex > 0: the field is X-Forwarded-For, and the text tested is its entry
    // forwardedIndex from the right (the first when it has fewer), as Spring's
    // XForwardedRemoteAddressResolver picks it: entries split at ',', trimmed, empty ones
    // dropped, an entry read as an IP literal (Java resolves a name by DNS: no address here). A
    // header without an entry fails every test.
    int forwardedIndex = 0;
};

// DryRunPlace is a location: its matcher and the rules (indexes) its requests meet, in order.
struct DryRunPlace {
    std::string where; // "location /api/ (line 9)"
    DryRunMatch match = DryRunMatch::Prefix;
    std::string pattern;
    std::vector<std::size_t> rules;
    bool trailingSlash = false; // Pattern: a path with one more '/' at its end matches too
    // conditions: each must hold besides the path (firstMatch configs: a request meets the first
    // place whose path and conditions match).
    std::vector<DryRunCondition> conditions = {};
    // then: the rules of the named location a request goes on to (nginx's try_files ... @name),
    // asked when none of `rules` looked the request up (none, or every key empty), as
    // ngx_http_limit_req_handler runs only while no limit_req decided the request.
    std::vector<std::size_t> then{};
    // group: the nginx server block the location is in when a config has several (-1: none).
    int group = -1;
};

// DryRunConfig is a config made ready for a log: zones, rules, locations and the rules a request
// matching no location meets, with the rules that could not be mapped onto the log named.
struct DryRunConfig {
    std::string product = "nginx";
    std::vector<DryRunZone> zones;
    std::vector<DryRunRule> rules;
    std::vector<DryRunPlace> places;
    std::vector<std::size_t> fallback;    // the rules of a request matching no location
    std::vector<DryRunKeyMap> keyMaps;    // the maps rules are keyed by (DryRunRule::keyMap)
    std::vector<bool> mapped;             // per rule: its zone's key is the log's key
    std::vector<std::string> notReplayed; // each rule or part not replayed, and why (one sentence each)
    std::vector<std::string> assumed;     // how a product's words were read onto the log (one sentence each)
    // firstMatch: a request meets the first place (in order) that matches it, as Traefik tries
    // its routers by priority, Kong its routes, Envoy and Spring theirs; else nginx's selection.
    bool firstMatch = false;
    // groups: nginx's server blocks when a request may reach several, in the order they are
    // tried: in each, the location nginx selects among that group's places is a candidate, met
    // when its conditions (the server's names, for the Host) hold; the last, the default server,
    // has none. Each group holds a place for every path (a prefix ""), its server's own limits.
    std::vector<int> groups = {};
    // paths: how the product makes a logged path ready before it selects (dry_run_path.h).
    DryRunPaths paths = DryRunPaths::AsLogged;
};

// DryRunRuleReport is what one rule did on the log.
struct DryRunRuleReport {
    std::int64_t requests = 0;   // requests that met it (asked it)
    std::int64_t denied = 0;     // requests it rejected (the first rule that rejected)
    std::int64_t keysDenied = 0; // keys it rejected at least once
    std::int64_t worstHour = -1; // the hour (since 1970, UTC) with most of its denials, -1 for none
    std::int64_t worstHourDenied = 0;
    // deniedPerHour: its denials per hour, from the log's first hour (Traffic::startEpochNanos's)
    // to the last hour it denied in
    std::vector<std::int64_t> deniedPerHour;
    std::vector<std::int64_t> deniedPerKey; // per key id
    std::vector<Nanos> firstDenialPerKey;   // per key id, -1 for none
};

// DryRunResult is every request's fate and every rule's report.
struct DryRunResult {
    std::vector<std::int32_t> deniedBy; // per request: the rule that rejected it, -1 admitted
    std::vector<std::uint8_t> met;      // per request: 1 when a replayed rule was asked about it (its location's, its
                                        // route's), whether or not its key let the rule look it up
    std::vector<std::int32_t> place;    // per path id: the location it selects, -1 none, -2 refused by the product (a 400);
                                        // with conditions, the first whose path matches (the request's own may be later)
    std::vector<DryRunRuleReport> rules;
    std::int64_t denied = 0;
};

// selectPlace returns the location the product selects for `path` (as logged: its query string
// is left out and the path normalized as config.paths says), -1 when none matches, -2 when the
// product refuses the path before selecting (nginx's 400 for a bad %XX). It throws InputError for
// a regex the product's engine (product_regex.h) refuses.
int selectPlace(const DryRunConfig& config, const std::string& path);

// dryRunBytesPerKey returns what a dry run of `config` holds per distinct key beyond the key
// itself: per rule its denials and first denial, per zone its bucket, per policy rule (not
// shared) a LayeredPolicy on the heap, at most 320 B a layer (the limiter, its metrics and the
// allocator's headers; sliding_window_log's entries beside).
std::int64_t dryRunBytesPerKey(const DryRunConfig& config);

// keyFieldsOf returns the log fields the config's rules key by besides the log's key, and those
// its places' conditions read, once each.
std::vector<std::string> keyFieldsOf(const DryRunConfig& config);

// bindKeyFields replays each rule keyed by a field the traffic read (TrafficOptions::keyFields)
// by that field, its notReplayed entry dropped; one whose field no request had stays not
// replayed, its entry saying the log lacks it, unless its fall-back is bound: then every request
// is keyed by the fall-back, as the product does (said in assumed). A fall-back field the traffic
// read is bound the same way, and so is each condition's field that some request has.
void bindKeyFields(DryRunConfig& config, const Traffic& traffic);

// replayedRules counts the config's rules that are replayed (DryRunConfig::mapped).
std::size_t replayedRules(const DryRunConfig& config);

// dryRunHeadline is the line a report says before any count, so that a partial result never
// reads as a complete one: "denied 3 of 1,000 requests; every rule replayed", or, when a rule
// or part is named in notReplayed, "NOT COMPLETE: 2 of 3 rules not replayed, 3 parts named in
// not_replayed (the first: ...); the 1 replayed rule denied 3 of 1,000 requests".
std::string dryRunHeadline(const DryRunConfig& config, const DryRunResult& result, std::int64_t requests);

// topDeniedKeys returns the `top` keys the rule denied most (ties: the earlier first denial, then
// the key's id), most first.
std::vector<std::uint32_t> topDeniedKeys(const DryRunRuleReport& report, std::size_t top);

// dryRunComplete: every rule of the config replayed and no part of it left out.
bool dryRunComplete(const DryRunConfig& config);

// dryRunRefusal is why a dry run in which no rule was replayed is refused (its counts would
// all read 0 denied): the number of rules and the first reason; "" when a rule is replayed.
std::string dryRunRefusal(const DryRunConfig& config);

// dryRunPathProblem is why the config cannot run on the traffic: the log has no path
// (Traffic::noPaths) and the config reads one: a place selecting by path (any but one that meets
// every path: a prefix "/", Spring's "/**"), a condition on the path or query, a key or map of
// the target; "" when it can.
std::string dryRunPathProblem(const DryRunConfig& config, const Traffic& traffic);

// dryRun decides every request of the traffic (which must hold paths) as the config would.
DryRunResult dryRun(const Traffic& traffic, const DryRunConfig& config);

} // namespace ratelab
