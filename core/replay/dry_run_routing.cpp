// Which place (a location, a route) each request of a dry run goes to: the paths as each product
// matches them, and the conditions on a request's fields, hosts, query and time.
#include "replay/dry_run_parts.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab {

namespace dryrun {

namespace {

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

} // namespace

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

namespace {

// timeHolds says whether a request logged at epochNanos is strictly after the condition's
// `after` and strictly before its `before`.
bool timeHolds(const DryRunCondition& c, Nanos epochNanos)
{
    const Nanos second = 1'000'000'000;
    const std::int64_t s = epochNanos / second - (epochNanos % second < 0);
    const DryRunInstant t{s, std::int32_t(epochNanos - s * second)};
    return ((!c.after || t > *c.after) && (!c.before || t < *c.before)) != c.negate;
}

} // namespace

Selector::Selector(const DryRunConfig& config) : m_config(config)
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
        // Envoy's safe_regex is RE2's; nginx's is PCRE's. Kong 3's router (traditional_compatible,
        // its default) turns a "~" path into an ATC expression `http.path ~ "^..."`, which Rust's
        // regex crate matches (kong/router/transform.lua): RE2 is its like (no lookaround nor
        // backreference, '$' at the very end, UTF-8), where PCRE's '$' matches before a final newline.
        const RegexEngine engine = p.match == DryRunMatch::RegexFull || p.match == DryRunMatch::RegexStart ? RegexEngine::Re2
                                                                                                          : RegexEngine::Pcre;
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

int Selector::select(std::string_view logged) const
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

int Selector::nginxSelect(std::string_view path, int group) const
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

std::vector<int> Selector::candidates(std::string_view logged) const
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

bool Selector::matches(std::size_t i, std::string_view path, std::string_view logged) const
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

Router::Router(const DryRunConfig& config, const Traffic& traffic, std::vector<int>& places)
    : m_config(config), m_traffic(traffic), m_places(places)
{
    const Selector selector(config);
    places.resize(traffic.pathNames.size());
    for (std::size_t p = 0; p < traffic.pathNames.size(); ++p)
        places[p] = selector.select(traffic.pathNames[p]);
    m_conditional = !config.groups.empty()
                    || (config.firstMatch && std::any_of(config.places.begin(), config.places.end(),
                                                         [](const DryRunPlace& p) { return !p.conditions.empty(); }));
    m_holds.resize(config.places.size());
    if (m_conditional) {
        m_candidates.resize(traffic.pathNames.size());
        for (std::size_t p = 0; p < traffic.pathNames.size(); ++p)
            m_candidates[p] = selector.candidates(traffic.pathNames[p]);
        for (std::size_t p = 0; p < config.places.size(); ++p)
            for (const DryRunCondition& c : config.places[p].conditions)
                m_holds[p].emplace_back(c.subject == DryRunCondition::Subject::Field  ? traffic.keyNames.size()
                                        : c.subject == DryRunCondition::Subject::Time ? 0
                                                                                      : traffic.pathNames.size(),
                                        std::int8_t(-1));
    }
    m_tester = std::make_unique<const ConditionTester>(config, traffic);
}

Router::~Router() = default;

bool Router::conditionHolds(std::size_t p, std::size_t c, std::size_t request)
{
    const DryRunCondition& cond = m_config.places[p].conditions[c];
    const bool field = cond.subject == DryRunCondition::Subject::Field;
    if (field && cond.source < 0)
        return true;
    if (cond.subject == DryRunCondition::Subject::Time)
        return timeHolds(cond, m_traffic.startEpochNanos + m_traffic.times[request]);
    const std::uint32_t k = field ? m_traffic.fieldKeys[std::size_t(cond.source)][request] : m_traffic.paths[request];
    std::int8_t& known = m_holds[p][c][k];
    if (known < 0)
        known = m_tester->holds(p, c, k);
    return known == 1;
}

int Router::conditionalPlace(std::size_t request)
{
    for (int p : m_candidates[m_traffic.paths[request]]) {
        if (p < 0)
            return p;
        bool all = true;
        for (std::size_t c = 0; all && c < m_config.places[std::size_t(p)].conditions.size(); ++c)
            all = conditionHolds(std::size_t(p), c, request);
        if (all)
            return p;
    }
    return -1;
}

} // namespace dryrun

int selectPlace(const DryRunConfig& config, const std::string& path) { return dryrun::Selector(config).select(path); }

} // namespace ratelab
