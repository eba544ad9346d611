#include "replay/dry_run.h"

#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include "arithmetic/nanos.h"
#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "replay/replay_memory.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace ratelab {

namespace {

// TextHash lets a map of strings be searched with a string_view.
struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

constexpr Nanos kHour = 3600 * kNanosPerSecond;
constexpr Nanos kMillis = 1'000'000; // nginx's clock: whole milliseconds

// Selector holds the locations' regexes compiled once.
class Selector {
public:
    explicit Selector(const DryRunConfig& config) : m_config(config)
    {
        for (const DryRunPlace& p : config.places) {
            const bool regex = p.match == DryRunMatch::Regex || p.match == DryRunMatch::RegexCaseless
                               || p.match == DryRunMatch::RegexStart || p.match == DryRunMatch::RegexFull;
            if (p.match == DryRunMatch::Pattern)
                checkSpringPattern(p.pattern);
            if (!regex) {
                m_regex.emplace_back(std::nullopt);
                continue;
            }
            // Envoy's safe_regex is RE2's; nginx's and Kong's are PCRE's.
            const RegexEngine engine = p.match == DryRunMatch::RegexFull ? RegexEngine::Re2 : RegexEngine::Pcre;
            const RegexSpan span = p.match == DryRunMatch::RegexFull    ? RegexSpan::Whole
                                   : p.match == DryRunMatch::RegexStart ? RegexSpan::Start
                                                                        : RegexSpan::Anywhere;
            try {
                m_regex.emplace_back(ProductRegex(p.pattern, engine, span, p.match == DryRunMatch::RegexCaseless));
            } catch (const InputError& e) {
                throw InputError(p.where + ": " + e.what());
            }
        }
    }

    // select returns the place for a logged path: with firstMatch the first that matches, else as
    // ngx_http_core_find_location: "=" wins at once, then the longest prefix (a "^~" one stops
    // there), then the regexes in file order, then that longest prefix.
    int select(std::string_view logged) const
    {
        const std::optional<std::string> normal = normalizedPath(logged, m_config.paths);
        if (!normal)
            return -2;
        const std::string_view path = *normal;
        if (m_config.firstMatch) {
            for (std::size_t i = 0; i < m_config.places.size(); ++i)
                if (matches(i, path, logged))
                    return int(i);
            return -1;
        }
        return nginxSelect(path, -1);
    }

    // nginxSelect is ngx_http_core_find_location among the places of `group` (-1: every place).
    int nginxSelect(std::string_view path, int group) const
    {
        int longest = -1;
        std::size_t longestSize = 0;
        for (std::size_t i = 0; i < m_config.places.size(); ++i) {
            const DryRunPlace& p = m_config.places[i];
            if (group >= 0 && p.group != group)
                continue;
            if (p.match == DryRunMatch::Exact && path == p.pattern)
                return int(i);
            if ((p.match == DryRunMatch::Prefix || p.match == DryRunMatch::PrefixStop) && path.starts_with(p.pattern)
                && (longest < 0 || p.pattern.size() > longestSize)) {
                longest = int(i);
                longestSize = p.pattern.size();
            }
        }
        if (longest >= 0 && m_config.places[std::size_t(longest)].match == DryRunMatch::PrefixStop)
            return longest;
        for (std::size_t i = 0; i < m_config.places.size(); ++i)
            if (m_config.places[i].match == DryRunMatch::Regex || m_config.places[i].match == DryRunMatch::RegexCaseless)
                if ((group < 0 || m_config.places[i].group == group) && m_regex[i]->matches(path))
                    return int(i);
        return longest;
    }

    // candidates returns, for a firstMatch config, every place whose path matches, in order, for
    // one with groups the place each group selects (-2 alone when the product refuses the path).
    std::vector<int> candidates(std::string_view logged) const
    {
        const std::optional<std::string> normal = normalizedPath(logged, m_config.paths);
        if (!normal)
            return {-2};
        std::vector<int> out;
        for (int g : m_config.groups) // nginx's servers: the location each would select
            out.push_back(nginxSelect(*normal, g));
        if (!m_config.groups.empty())
            return out;
        for (std::size_t i = 0; i < m_config.places.size(); ++i)
            if (matches(i, *normal, logged))
                out.push_back(int(i));
        return out;
    }

private:
    bool matches(std::size_t i, std::string_view path, std::string_view logged) const
    {
        const DryRunPlace& p = m_config.places[i];
        switch (p.match) {
        case DryRunMatch::Exact: return path == p.pattern;
        case DryRunMatch::Prefix:
        case DryRunMatch::PrefixStop: return path.starts_with(p.pattern);
        case DryRunMatch::PrefixRaw: return logged.starts_with(p.pattern);
        case DryRunMatch::SegmentPrefix:
            return path.starts_with(p.pattern) && (path.size() == p.pattern.size() || path[p.pattern.size()] == '/');
        case DryRunMatch::Regex:
        case DryRunMatch::RegexCaseless:
        case DryRunMatch::RegexStart:
        case DryRunMatch::RegexFull: return m_regex[i]->matches(path);
        case DryRunMatch::Pattern: return springPathMatches(p.pattern, logged, p.trailingSlash);
        }
        return false;
    }

    const DryRunConfig& m_config;
    std::vector<std::optional<ProductRegex>> m_regex; // per place: its regex, compiled once
};

// KeyMapper evaluates one DryRunKeyMap per request, the entry found cached per distinct source
// value (a log key id, or a path id for the request target), its regexes compiled once.
class KeyMapper {
public:
    KeyMapper(const DryRunKeyMap& map, const Traffic& traffic) : m_map(map), m_traffic(traffic)
    {
        for (const DryRunKeyMap::Entry& e : map.entries)
            if (e.kind == DryRunKeyMap::Entry::Kind::Regex || e.kind == DryRunKeyMap::Entry::Kind::RegexCaseless)
                m_regex.emplace_back(std::in_place, e.key, RegexEngine::Pcre, RegexSpan::Anywhere,
                                     e.kind == DryRunKeyMap::Entry::Kind::RegexCaseless);
            else
                m_regex.emplace_back(std::nullopt);
        const bool target = map.from.kind == DryRunKeyText::Kind::Target;
        m_found.assign(target ? traffic.pathNames.size() : traffic.keyNames.size(), kUnknown);
    }

    // value is the map's value for request i ("" when it maps to nothing).
    std::string_view value(std::size_t i)
    {
        const std::uint32_t id = sourceId(m_map.from, i);
        int& found = m_found[id];
        if (found == kUnknown)
            found = find(text(m_map.from, i));
        return text(found < 0 ? m_map.fallback : m_map.entries[std::size_t(found)].value, i);
    }

private:
    static constexpr int kUnknown = -2;

    std::uint32_t sourceId(const DryRunKeyText& t, std::size_t i) const
    {
        switch (t.kind) {
        case DryRunKeyText::Kind::Target: return m_traffic.paths[i];
        case DryRunKeyText::Kind::LogKey: return m_traffic.keys[i];
        case DryRunKeyText::Kind::Field: return m_traffic.fieldKeys[std::size_t(t.source)][i];
        case DryRunKeyText::Kind::Constant: break;
        }
        return 0;
    }

    std::string_view text(const DryRunKeyText& t, std::size_t i) const
    {
        if (t.kind == DryRunKeyText::Kind::Constant)
            return t.text;
        if (t.kind == DryRunKeyText::Kind::Target)
            return m_traffic.pathNames[m_traffic.paths[i]];
        const std::string& s = m_traffic.keyNames[sourceId(t, i)];
        return s == "-" ? std::string_view() : std::string_view(s); // nginx logs an empty value as "-"
    }

    // find returns the entry ngx_http_map_find finds for a source value, -1 for the default.
    int find(std::string_view value) const
    {
        if (m_map.hostnames && !value.empty() && value.back() == '.') // ngx_http_map_variable
            value.remove_suffix(1);
        std::string low(value);
        std::transform(low.begin(), low.end(), low.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; });
        using Kind = DryRunKeyMap::Entry::Kind;
        const auto& entries = m_map.entries;
        int head = -1, tail = -1;
        for (std::size_t e = 0; e < entries.size(); ++e) {
            const DryRunKeyMap::Entry& x = entries[e];
            if (x.kind == Kind::Exact && x.key == low)
                return int(e);
            if (x.kind == Kind::Head && x.bare && low == std::string_view(x.key).substr(1))
                return int(e); // ".example.com" is also the exact key "example.com" (ngx_hash_add_key)
            if (x.kind == Kind::Head && low.size() > x.key.size() && low.ends_with(x.key)
                && (head < 0 || x.key.size() > entries[std::size_t(head)].key.size()))
                head = int(e);
            if (x.kind == Kind::Tail && low.size() > x.key.size() && low.starts_with(x.key)
                && (tail < 0 || x.key.size() > entries[std::size_t(tail)].key.size()))
                tail = int(e);
        }
        if (head >= 0) // ngx_hash_find_combined: the exact hash, then wc_head, then wc_tail
            return head;
        if (tail >= 0)
            return tail;
        if (value.empty()) // ngx_http_map_find tries the regexes on a non-empty value only
            return -1;
        for (std::size_t e = 0; e < entries.size(); ++e)
            if (m_regex[e] && m_regex[e]->matches(value))
                return int(e);
        return -1;
    }

    const DryRunKeyMap& m_map;
    const Traffic& m_traffic;
    std::vector<std::optional<ProductRegex>> m_regex; // per entry
    std::vector<int> m_found;                         // per source id: the entry found, -1 the default
};

// canonicalHost is a Host header as Traefik matches it (requestdecorator.go at traefik
// fd5a576df2: parseHost cuts the port, or an IPv6 address's brackets; types.CanonicalDomain trims
// the spaces and lower-cases it).
std::string canonicalHost(std::string_view h)
{
    if (const std::size_t colon = h.find(':'); colon != std::string_view::npos) {
        if (h.front() == '[') {
            const std::size_t close = h.find(']');
            if (close != std::string_view::npos && (close + 1 == h.size() || h[close + 1] == ':'))
                h = h.substr(1, close - 1);
        } else if (h.find(':', colon + 1) == std::string_view::npos) {
            h = h.substr(0, colon); // host:port; an IPv6 address without brackets stays whole
        }
    }
    while (!h.empty() && (h.front() == ' ' || h.front() == '\t'))
        h.remove_prefix(1);
    while (!h.empty() && (h.back() == ' ' || h.back() == '\t'))
        h.remove_suffix(1);
    std::string out(h);
    std::transform(out.begin(), out.end(), out.begin(), [](char c) { return c >= 'A' && c <= 'Z' ? char(c + 32) : c; });
    return out;
}

// queryUnescape is Go's url.QueryUnescape: '+' a space, %XX its byte; nullopt for a bad escape.
std::optional<std::string> queryUnescape(std::string_view s)
{
    const auto hex = [](char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    };
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] != '%') {
            out += s[i];
        } else {
            if (i + 2 >= s.size())
                return std::nullopt;
            const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
            if (hi < 0 || lo < 0)
                return std::nullopt;
            out += char(hi * 16 + lo);
            i += 2;
        }
    }
    return out;
}

// queryValues returns the values of the parameter `name` in a logged target's query string,
// none when the parameter is absent. Go's url.ParseQuery (net/url): pairs split at '&', one
// holding ';' or a bad escape dropped, each unescaped. Spring's initQueryParams
// (AbstractServerHttpRequest, the pattern ([^&=]+)(=?)([^&]+)? found along the query): a pair's
// leading '='s skipped, a name without '=' given no value (nullopt in the list), each URL-decoded.
std::optional<std::vector<std::optional<std::string>>> queryValues(std::string_view target, const std::string& name,
                                                                   DryRunCondition::QueryReader reader)
{
    const std::size_t q = target.find('?');
    if (q == std::string_view::npos)
        return std::nullopt;
    const bool go = reader == DryRunCondition::QueryReader::Go;
    std::string_view rest = target.substr(q + 1);
    std::optional<std::vector<std::optional<std::string>>> out;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (!go)
            pair.remove_prefix(std::min(pair.size(), pair.find_first_not_of('=')));
        if (pair.empty() || (go && pair.find(';') != std::string_view::npos))
            continue;
        const std::size_t eq = pair.find('=');
        const std::optional<std::string> key = queryUnescape(pair.substr(0, eq));
        std::optional<std::string> value = queryUnescape(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
        if (!key || !value || *key != name)
            continue;
        if (!out)
            out.emplace();
        out->push_back(!go && eq == std::string_view::npos ? std::nullopt : value);
    }
    return out;
}

// forwardedEntry is the X-Forwarded-For entry `index` from the right (the first when there are
// fewer), as XForwardedRemoteAddressResolver picks it (StringUtils.tokenizeToStringArray: split
// at ',', each trimmed, empty ones dropped); nullopt when the header ("-": not sent) has none.
std::optional<std::string> forwardedEntry(std::string_view header, int index)
{
    if (header == "-")
        return std::nullopt;
    std::vector<std::string_view> entries;
    while (true) {
        const std::size_t comma = header.find(',');
        std::string_view e = header.substr(0, comma);
        const std::size_t first = e.find_first_not_of(" \t\r\n\f\v"), last = e.find_last_not_of(" \t\r\n\f\v");
        if (first != std::string_view::npos)
            entries.push_back(e.substr(first, last - first + 1));
        if (comma == std::string_view::npos)
            break;
        header.remove_prefix(comma + 1);
    }
    if (entries.empty())
        return std::nullopt;
    return std::string(entries[entries.size() > std::size_t(index) ? entries.size() - std::size_t(index) : 0]);
}

// ConditionTester decides a place's condition on one text id (a key id for a log field, a path
// id for the path and the query), its regexes compiled once.
class ConditionTester {
public:
    ConditionTester(const DryRunConfig& config, const Traffic& traffic) : m_config(config), m_traffic(traffic)
    {
        m_regex.resize(config.places.size());
        for (std::size_t p = 0; p < config.places.size(); ++p)
            for (const DryRunCondition& c : config.places[p].conditions) {
                m_regex[p].emplace_back();
                for (const std::string& re : c.regexes)
                    m_regex[p].back().emplace_back(re, c.regexEngine, c.regexSpan);
            }
    }

    bool holds(std::size_t p, std::size_t c, std::uint32_t id) const
    {
        const DryRunCondition& cond = m_config.places[p].conditions[c];
        bool pass = false;
        switch (cond.subject) {
        case DryRunCondition::Subject::Field: {
            const std::string& text = m_traffic.keyNames[id];
            if (cond.forwardedIndex > 0) {
                const std::optional<std::string> entry = forwardedEntry(text, cond.forwardedIndex);
                pass = entry && test(p, c, *entry);
            } else {
                pass = !text.empty() && text != "-" && test(p, c, text);
            }
            break;
        }
        case DryRunCondition::Subject::Path: {
            const std::optional<std::string> path = normalizedPath(m_traffic.pathNames[id], m_config.paths);
            pass = path && test(p, c, *path);
            break;
        }
        case DryRunCondition::Subject::Target: pass = test(p, c, m_traffic.pathNames[id]); break;
        case DryRunCondition::Subject::Time: break; // per request: timeHolds
        case DryRunCondition::Subject::Query:
            if (const auto values = queryValues(m_traffic.pathNames[id], cond.field, cond.queryReader))
                pass = std::any_of(values->begin(), values->end(), [&](const std::optional<std::string>& v) {
                    return v ? test(p, c, *v) : cond.values.empty() && cond.regexes.empty() && !cond.prefixes.empty();
                });
            break;
        }
        return pass != cond.negate;
    }

private:
    bool test(std::size_t p, std::size_t c, std::string value) const
    {
        const DryRunCondition& cond = m_config.places[p].conditions[c];
        if (cond.hostName)
            value = canonicalHost(value);
        else if (cond.caseless) // the reader lower-cased the condition's own texts
            std::transform(value.begin(), value.end(), value.begin(), [](char ch) {
                return ch >= 'A' && ch <= 'Z' ? char(ch - 'A' + 'a') : ch;
            });
        return std::find(cond.values.begin(), cond.values.end(), value) != cond.values.end()
               || std::any_of(cond.suffixes.begin(), cond.suffixes.end(), [&](const std::string& x) { return value.ends_with(x); })
               || std::any_of(cond.prefixes.begin(), cond.prefixes.end(), [&](const std::string& x) { return value.starts_with(x); })
               || std::any_of(m_regex[p][c].begin(), m_regex[p][c].end(), [&](const ProductRegex& r) { return r.matches(value); })
               || inAnyRange(cond.addresses, value, cond.forwardedIndex > 0);
    }

    static bool inAnyRange(const std::vector<DryRunAddressRange>& ranges, const std::string& text, bool literal)
    {
        if (ranges.empty())
            return false;
        const std::optional<IpAddress> a = literal ? parseIpLiteral(text) : loggedAddress(text);
        return a && std::any_of(ranges.begin(), ranges.end(), [&](const DryRunAddressRange& r) { return inRange(r, *a); });
    }

    const DryRunConfig& m_config;
    const Traffic& m_traffic;
    std::vector<std::vector<std::vector<ProductRegex>>> m_regex; // per place, condition
};

// timeHolds says whether a request logged at epochNanos is strictly after the condition's
// `after` and strictly before its `before`.
bool timeHolds(const DryRunCondition& c, Nanos epochNanos)
{
    const Nanos second = 1'000'000'000;
    const std::int64_t s = epochNanos / second - (epochNanos % second < 0);
    const DryRunInstant t{s, std::int32_t(epochNanos - s * second)};
    return ((!c.after || t > *c.after) && (!c.before || t < *c.before)) != c.negate;
}

// ZoneState is one zone's bucket per key, as nginx's node keeps it: excess (thousandths) and last (ms).
struct ZoneState {
    std::vector<std::int64_t> excess, last;
    std::vector<std::uint8_t> exists;
};

} // namespace

std::int64_t dryRunBytesPerKey(const DryRunConfig& config)
{
    std::int64_t bytes = std::int64_t(config.rules.size()) * 16 + std::int64_t(config.zones.size()) * 17;
    for (const DryRunRule& r : config.rules)
        if (!r.policy.empty() && !r.shared) {
            bytes += std::int64_t(sizeof(std::optional<LayeredPolicy>)) + 64;
            for (const Layer& l : r.policy)
                bytes += 320 + (l.algorithm == Algorithm::SlidingWindowLog ? kReplayLogBytesPerKey : 0);
        }
    return bytes;
}

int selectPlace(const DryRunConfig& config, const std::string& path) { return Selector(config).select(path); }

namespace {

// mapTexts is every text a map reads: its source and each value, the default's among them.
std::vector<DryRunKeyText*> mapTexts(DryRunKeyMap& m)
{
    std::vector<DryRunKeyText*> out{&m.from, &m.fallback};
    for (DryRunKeyMap::Entry& e : m.entries)
        out.push_back(&e.value);
    return out;
}

std::vector<const DryRunKeyText*> mapTexts(const DryRunKeyMap& m)
{
    std::vector<const DryRunKeyText*> out;
    for (DryRunKeyText* t : mapTexts(const_cast<DryRunKeyMap&>(m)))
        out.push_back(t);
    return out;
}

} // namespace

std::vector<std::string> keyFieldsOf(const DryRunConfig& config)
{
    std::vector<std::string> out;
    const auto add = [&](const std::string& f) {
        if (!f.empty() && std::find(out.begin(), out.end(), f) == out.end())
            out.push_back(f);
    };
    for (const DryRunRule& r : config.rules) {
        add(r.keyField);
        if (r.fallbackSource == -2)
            add(r.fallbackField);
    }
    for (const DryRunPlace& p : config.places)
        for (const DryRunCondition& c : p.conditions)
            if (c.source < 0 && c.subject == DryRunCondition::Subject::Field)
                add(c.field);
    for (const DryRunKeyMap& m : config.keyMaps)
        for (const DryRunKeyText* t : mapTexts(m))
            if (t->kind == DryRunKeyText::Kind::Field)
                add(t->text);
    return out;
}

void bindKeyFields(DryRunConfig& config, const Traffic& traffic)
{
    const auto fieldOf = [&](const std::string& name) -> int {
        const auto it = std::find(traffic.keyFields.begin(), traffic.keyFields.end(), name);
        return name.empty() || it == traffic.keyFields.end() ? -1 : int(it - traffic.keyFields.begin());
    };
    std::vector<int> dropped;
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        DryRunRule& rule = config.rules[r];
        if (const int f = fieldOf(rule.fallbackField); rule.fallbackSource == -2 && f >= 0 && traffic.fieldSeen[std::size_t(f)] > 0) {
            rule.fallbackSource = f;
            if (rule.fallbackNote >= 0)
                dropped.push_back(rule.fallbackNote);
        }
        const int field = fieldOf(rule.keyField);
        if (field < 0 || config.mapped[r])
            continue;
        if (traffic.fieldSeen[std::size_t(field)] == 0 && rule.fallbackSource == -2) {
            if (rule.keyNote >= 0)
                config.notReplayed[std::size_t(rule.keyNote)] = rule.name + ": it keys by the log field " + rule.keyField
                                                                 + ", which no request of the log has: not replayed";
            continue;
        }
        if (traffic.fieldSeen[std::size_t(field)] == 0)
            config.assumed.push_back(rule.name + ": no request of the log has " + rule.keyField + ": each is keyed by its "
                                     + rule.fallbackField + ", as the product falls back");
        rule.keySource = field;
        config.mapped[r] = true;
        if (rule.keyNote >= 0)
            dropped.push_back(rule.keyNote);
    }
    // A map-keyed rule is replayed once every log field its map reads is bound; a field no
    // request of the log has leaves it named.
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        DryRunRule& rule = config.rules[r];
        if (rule.keyIs != DryRunRule::Key::Mapped || config.mapped[r] || rule.keyMap < 0)
            continue;
        DryRunKeyMap& map = config.keyMaps[std::size_t(rule.keyMap)];
        std::string missing;
        for (DryRunKeyText* t : mapTexts(map)) {
            if (t->kind != DryRunKeyText::Kind::Field)
                continue;
            const auto it = std::find(traffic.keyFields.begin(), traffic.keyFields.end(), t->text);
            if (it == traffic.keyFields.end() || traffic.fieldSeen[std::size_t(it - traffic.keyFields.begin())] == 0) {
                missing = t->text;
                break;
            }
            t->source = int(it - traffic.keyFields.begin());
        }
        if (!missing.empty()) {
            if (rule.keyNote >= 0)
                config.notReplayed[std::size_t(rule.keyNote)] = rule.name + ": its key is " + map.name + ", which reads the log field "
                                                                 + missing + ", which no request of the log has: not replayed";
            continue;
        }
        config.mapped[r] = true;
        if (rule.keyNote >= 0)
            dropped.push_back(rule.keyNote);
    }
    std::vector<int> droppedAssumed;
    for (DryRunPlace& p : config.places)
        for (DryRunCondition& c : p.conditions)
            if (const int f = fieldOf(c.field); c.subject == DryRunCondition::Subject::Field && c.source < 0 && f >= 0
                                                 && traffic.fieldSeen[std::size_t(f)] > 0) {
                c.source = f;
                if (c.note >= 0)
                    dropped.push_back(c.note);
                if (c.assumedNote >= 0)
                    droppedAssumed.push_back(c.assumedNote);
            }
    const auto drop = [](std::vector<std::string>& list, std::vector<int>& gone) {
        std::sort(gone.begin(), gone.end());
        gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
        for (auto d = gone.rbegin(); d != gone.rend(); ++d)
            list.erase(list.begin() + *d);
    };
    drop(config.notReplayed, dropped);
    drop(config.assumed, droppedAssumed);
    const auto renumber = [](int& note, const std::vector<int>& gone) { // the entries after a dropped one moved up
        if (note < 0)
            return;
        const bool isGone = std::binary_search(gone.begin(), gone.end(), note);
        note = isGone ? -1 : note - int(std::lower_bound(gone.begin(), gone.end(), note) - gone.begin());
    };
    for (DryRunRule& rule : config.rules) {
        renumber(rule.keyNote, dropped);
        renumber(rule.fallbackNote, dropped);
    }
    for (DryRunPlace& p : config.places)
        for (DryRunCondition& c : p.conditions) {
            renumber(c.note, dropped);
            renumber(c.assumedNote, droppedAssumed);
        }
}

std::size_t replayedRules(const DryRunConfig& config)
{
    return std::size_t(std::count(config.mapped.begin(), config.mapped.end(), true));
}

namespace {

// notReplayedText says how many rules and parts were not replayed, and the first reason.
std::string notReplayedText(const DryRunConfig& config)
{
    const std::size_t rules = config.rules.size(), missing = rules - replayedRules(config);
    std::string out = grouping(std::int64_t(missing)) + " of " + counted(std::int64_t(rules), "rule") + " not replayed";
    if (!config.notReplayed.empty())
        out += ", " + counted(std::int64_t(config.notReplayed.size()), "part") + " named in not_replayed (the first: "
               + config.notReplayed.front() + ")";
    return out;
}

} // namespace

std::vector<std::uint32_t> topDeniedKeys(const DryRunRuleReport& rep, std::size_t top)
{
    std::vector<std::uint32_t> keys;
    for (std::size_t k = 0; k < rep.deniedPerKey.size(); ++k)
        if (rep.deniedPerKey[k] > 0)
            keys.push_back(std::uint32_t(k));
    const std::size_t m = std::min(top, keys.size());
    std::partial_sort(keys.begin(), keys.begin() + std::ptrdiff_t(m), keys.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (rep.deniedPerKey[a] != rep.deniedPerKey[b])
            return rep.deniedPerKey[a] > rep.deniedPerKey[b];
        if (rep.firstDenialPerKey[a] != rep.firstDenialPerKey[b])
            return rep.firstDenialPerKey[a] < rep.firstDenialPerKey[b];
        return a < b;
    });
    keys.resize(m);
    return keys;
}

bool dryRunComplete(const DryRunConfig& config)
{
    return config.notReplayed.empty() && replayedRules(config) == config.rules.size();
}

std::string dryRunHeadline(const DryRunConfig& config, const DryRunResult& result, std::int64_t requests)
{
    const std::string counts = "denied " + grouping(result.denied) + " of " + grouping(requests) + " requests";
    const std::size_t replayed = replayedRules(config);
    if (config.notReplayed.empty() && replayed == config.rules.size())
        return counts + "; every rule replayed";
    return "NOT COMPLETE: " + notReplayedText(config) + "; the " + counted(std::int64_t(replayed), "replayed rule") + " " + counts;
}

std::string dryRunRefusal(const DryRunConfig& config)
{
    if (replayedRules(config) > 0)
        return {};
    return "no rule of the config can be replayed on this log: " + notReplayedText(config);
}

DryRunResult dryRun(const Traffic& traffic, const DryRunConfig& config)
{
    if (traffic.paths.size() != traffic.times.size())
        throw InputError("a dry run needs each request's path");
    const Selector selector(config);
    DryRunResult out;
    out.place.resize(traffic.pathNames.size());
    for (std::size_t p = 0; p < traffic.pathNames.size(); ++p)
        out.place[p] = selector.select(traffic.pathNames[p]);
    // With conditions (a route's methods, hosts, headers) the place is the request's: the first
    // whose path matches (per path, once) and whose conditions hold (per condition and value,
    // once: a key id's text is fixed).
    const bool conditional = !config.groups.empty()
                             || (config.firstMatch && std::any_of(config.places.begin(), config.places.end(),
                                                                  [](const DryRunPlace& p) { return !p.conditions.empty(); }));
    std::vector<std::vector<int>> candidates;
    std::vector<std::vector<std::vector<std::int8_t>>> holds(config.places.size()); // per place, condition, key id: -1 unknown
    if (conditional) {
        candidates.resize(traffic.pathNames.size());
        for (std::size_t p = 0; p < traffic.pathNames.size(); ++p)
            candidates[p] = selector.candidates(traffic.pathNames[p]);
        for (std::size_t p = 0; p < config.places.size(); ++p)
            for (const DryRunCondition& c : config.places[p].conditions)
                holds[p].emplace_back(c.subject == DryRunCondition::Subject::Field  ? traffic.keyNames.size()
                                      : c.subject == DryRunCondition::Subject::Time ? 0
                                                                                    : traffic.pathNames.size(),
                                      std::int8_t(-1));
    }
    const ConditionTester conditions(config, traffic);
    const auto conditionHolds = [&](std::size_t p, std::size_t c, std::size_t request) {
        const DryRunCondition& cond = config.places[p].conditions[c];
        const bool field = cond.subject == DryRunCondition::Subject::Field;
        if (field && cond.source < 0)
            return true;
        if (cond.subject == DryRunCondition::Subject::Time)
            return timeHolds(cond, traffic.startEpochNanos + traffic.times[request]);
        const std::uint32_t k = field ? traffic.fieldKeys[std::size_t(cond.source)][request] : traffic.paths[request];
        std::int8_t& known = holds[p][c][k];
        if (known < 0)
            known = conditions.holds(p, c, k);
        return known == 1;
    };
    const auto placeOf = [&](std::size_t request) {
        if (!conditional)
            return out.place[traffic.paths[request]];
        for (int p : candidates[traffic.paths[request]]) {
            if (p < 0)
                return p;
            bool all = true;
            for (std::size_t c = 0; all && c < config.places[std::size_t(p)].conditions.size(); ++c)
                all = conditionHolds(std::size_t(p), c, request);
            if (all)
                return p;
        }
        return -1;
    };
    const std::size_t keys = traffic.keyNames.size(), n = traffic.times.size();
    // A zone keyed by the request target counts per path id, so its buckets are as many as the paths.
    const std::size_t zoneKeys = std::max<std::size_t>({keys, traffic.pathNames.size(), 1});
    std::vector<ZoneState> zones(config.zones.size());
    for (ZoneState& z : zones) {
        z.excess.assign(zoneKeys, 0);
        z.last.assign(zoneKeys, 0);
        z.exists.assign(zoneKeys, 0);
    }
    // A map-keyed zone counts per value the map gives: each value its bucket id, in its zone.
    std::vector<KeyMapper> mappers;
    for (const DryRunKeyMap& m : config.keyMaps)
        mappers.emplace_back(m, traffic);
    std::vector<std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>>> mappedIds(config.zones.size());
    constexpr std::uint32_t kNoKey = std::numeric_limits<std::uint32_t>::max(); // an empty value: no limit
    const auto mappedKey = [&](const DryRunRule& rule, std::size_t i) {
        const std::string_view v = mappers[std::size_t(rule.keyMap)].value(i);
        if (v.empty())
            return kNoKey;
        auto& ids = mappedIds[rule.zone];
        auto it = ids.find(v);
        if (it == ids.end()) {
            it = ids.emplace(std::string(v), std::uint32_t(ids.size())).first;
            ZoneState& z = zones[rule.zone];
            if (z.excess.size() <= it->second) {
                z.excess.resize(it->second + 1, 0);
                z.last.resize(it->second + 1, 0);
                z.exists.resize(it->second + 1, 0);
            }
        }
        return it->second;
    };
    out.rules.resize(config.rules.size());
    std::vector<std::vector<std::int64_t>> hours(config.rules.size()); // denials per hour since the log's first
    for (DryRunRuleReport& r : out.rules) {
        r.deniedPerKey.assign(keys, 0);
        r.firstDenialPerKey.assign(keys, -1);
    }
    out.deniedBy.assign(n, -1);
    std::vector<std::int64_t> candidate(config.rules.size());
    std::vector<std::vector<std::optional<LayeredPolicy>>> policies(config.rules.size()); // per policy rule, per key
    for (std::size_t r = 0; r < config.rules.size(); ++r)
        if (!config.rules[r].policy.empty())
            policies[r].resize(config.rules[r].shared ? 1 : keys);
    // An empty key (logged "" or "-": a header the request did not send) is skipped by every
    // limit keyed by it, as nginx skips a limit whose key is empty.
    std::vector<std::uint8_t> keylessKey(keys);
    for (std::size_t k = 0; k < keys; ++k)
        keylessKey[k] = keylessName(traffic.keyNames[k]);
    for (std::size_t i = 0; i < n; ++i) {
        static const std::vector<std::size_t> kNone;
        const int place = placeOf(i);
        const std::vector<std::size_t>& rules = place == -2 ? kNone
                                                : place < 0 ? config.fallback
                                                            : config.places[std::size_t(place)].rules;
        const std::uint32_t logKey = traffic.keys[i];
        const Nanos t = traffic.times[i];
        const std::int64_t now = t / kMillis;
        const std::int64_t cost = traffic.costs.empty() ? 1 : traffic.costs[i];
        // keyOf is a rule's key for this request: the log's, the field it keys by (when that is
        // empty, its fall-back's), the one constant key (0), the request target's path id, or the
        // map's value.
        const auto sourceKey = [&](int source) { return source < 0 ? logKey : traffic.fieldKeys[std::size_t(source)][i]; };
        const auto keyOf = [&](const DryRunRule& rule) -> std::uint32_t {
            switch (rule.keyIs) {
            case DryRunRule::Key::Constant: return 0;
            case DryRunRule::Key::Target: return traffic.paths[i];
            case DryRunRule::Key::Mapped: return mappedKey(rule, i);
            case DryRunRule::Key::Logged: break;
            }
            const std::uint32_t k = sourceKey(rule.keySource);
            return keylessKey[k] && rule.fallbackSource >= -1 ? sourceKey(rule.fallbackSource) : k;
        };
        const auto keylessFor = [&](const DryRunRule& rule, std::uint32_t k) {
            return rule.keyIs == DryRunRule::Key::Mapped ? k == kNoKey : rule.keyIs == DryRunRule::Key::Logged && keylessKey[k] != 0;
        };
        // reportKey is the log key a denial is counted against: the rule's own key when it is one
        // of the log's, else the request's log key.
        const auto reportKey = [&](const DryRunRule& rule, std::uint32_t k) {
            return rule.keyIs == DryRunRule::Key::Logged ? k : logKey;
        };
        // ask runs one location's limits as ngx_http_limit_req_handler does: the lookups in order
        // up to the first that rejects, then, when all admitted, each zone accounts the request.
        // It returns whether any limit looked the request up (nginx then sets limit_req_status and
        // no later location's limits run), and the rule that rejected it (-1 none).
        std::uint32_t deniedKey = logKey;
        const auto ask = [&](const std::vector<std::size_t>& asked, int& denier) {
            bool looked = false;
            for (std::size_t r : asked) {
                const DryRunRule& rule = config.rules[r];
                if (!config.mapped[r]) { // not replayed (named): taken to look the request up, so
                    looked = true;       // no later location's limits are asked in its stead
                    continue;
                }
                const std::uint32_t key = keyOf(rule);
                const bool keyless = keylessFor(rule, key);
                deniedKey = reportKey(rule, key);
                if (keyless && !rule.shared) {
                    if (!rule.denyEmptyKey)
                        continue;
                    ++out.rules[r].requests;
                    denier = int(r);
                    return true;
                }
                looked = true;
                if (!rule.policy.empty()) { // a product's policy decides and counts at once
                    ++out.rules[r].requests;
                    std::optional<LayeredPolicy>& policy = policies[r][rule.shared ? 0 : key];
                    if (!policy)
                        policy.emplace(rule.policy);
                    if (!policy->decide(t, cost).allowed) {
                        denier = int(r);
                        return true;
                    }
                    continue;
                }
                const ZoneState& z = zones[rule.zone];
                ++out.rules[r].requests;
                Int128 e = 0;
                if (z.exists[key]) {
                    e = Int128(z.excess[key]) - Int128(config.zones[rule.zone].rate) * (now - z.last[key]) / 1000 + 1000;
                    e = std::max<Int128>(e, 0);
                }
                e += Int128(cost - 1) * 1000;
                if (e > Int128(rule.burst) * 1000) {
                    denier = int(r);
                    return true;
                }
                candidate[r] = std::int64_t(e);
            }
            for (std::size_t r : asked) { // every limit admitted: each zone accounts it (ngx_http_limit_req_account)
                const DryRunRule& rule = config.rules[r];
                if (!config.mapped[r] || !rule.policy.empty())
                    continue;
                const std::uint32_t key = keyOf(rule);
                if (keylessFor(rule, key))
                    continue;
                ZoneState& z = zones[rule.zone];
                z.excess[key] = candidate[r];
                z.last[key] = now;
                z.exists[key] = 1;
            }
            return looked;
        };
        int denier = -1;
        if (!ask(rules, denier) && place >= 0 && !config.places[std::size_t(place)].then.empty())
            ask(config.places[std::size_t(place)].then, denier);
        if (denier >= 0) {
            out.deniedBy[i] = denier;
            ++out.denied;
            DryRunRuleReport& rep = out.rules[std::size_t(denier)];
            ++rep.denied;
            if (rep.deniedPerKey[deniedKey]++ == 0) {
                rep.firstDenialPerKey[deniedKey] = t;
                ++rep.keysDenied;
            }
            std::vector<std::int64_t>& h = hours[std::size_t(denier)];
            const auto hour = std::size_t((traffic.startEpochNanos % kHour + t) / kHour);
            if (h.size() <= hour)
                h.resize(hour + 1, 0);
            ++h[hour];
        }
    }
    for (std::size_t r = 0; r < hours.size(); ++r) {
        const auto worst = std::max_element(hours[r].begin(), hours[r].end()); // the earliest of equals
        if (worst != hours[r].end() && *worst > 0) {
            out.rules[r].worstHour = traffic.startEpochNanos / kHour + std::int64_t(worst - hours[r].begin());
            out.rules[r].worstHourDenied = *worst;
        }
        out.rules[r].deniedPerHour = std::move(hours[r]);
    }
    return out;
}

} // namespace ratelab
