// Traefik's dynamic configuration on a log (config_dry_run.h): its routers, tried by priority,
// select per request the rateLimit middlewares that apply, each router its own buckets. The
// rules are read as Traefik v3 reads them (traefik/traefik at fd5a576df2, v3.7.9+28): the
// grammar of pkg/rules/parser.go, the matchers of pkg/muxer/http/matcher.go, their regexes with
// RE2 (Go's regexp has RE2's syntax and semantics), the priority of pkg/muxer/http/mux.go.
#include "config_dry_run.h"

#include "config_import.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "limiters/products/product.h"
#include "replay/product_regex.h"

#include <QScopeGuard>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

namespace ratelab::io {

namespace {

// Router is one http.routers entry as the file wrote it.
struct Router {
    std::string name, rule;
    std::int64_t priority = 0; // 0: Traefik's default, the rule's length
    std::vector<std::string> middlewares;
};

// Limit is one middleware's rateLimit: its options and its sourceCriterion.
struct Limit {
    std::vector<ProductOption> options;
    std::string header, depth, host, excluded;
};

// sourceField returns the log key a sourceCriterion is and how Traefik words it.
std::pair<std::string, std::string> sourceField(const Limit& l)
{
    if (!l.header.empty()) {
        std::string field = "http_" + QString::fromStdString(l.header).toLower().toStdString();
        std::replace(field.begin(), field.end(), '-', '_');
        return {field, "the header " + l.header + " (sourceCriterion.requestHeaderName)"};
    }
    if (l.host == "true")
        return {"host", "the request's host (sourceCriterion.requestHost)"};
    if ((!l.depth.empty() && l.depth != "0") || !l.excluded.empty())
        return {"", "an address taken from X-Forwarded-For (sourceCriterion.ipStrategy depth/excludedIPs)"};
    return {"ip", "the client's address (the default sourceCriterion, ipStrategy depth 0)"};
}

// The rule grammar of Traefik v3 (the default ruleSyntax; traefik fd5a576df2, pkg/rules/parser.go
// and pkg/muxer/http/{mux,matcher}.go): vulcand/predicate parses the rule as a Go expression, so
// matchers are calls whose arguments are Go string literals (`raw` or "interpreted"), joined by
// && (binding tighter) and ||, with ! and parentheses; a matcher's name may also be written in
// lower case, upper case or title case. invert() pushes each ! onto the matchers (De Morgan).
// A rule Traefik refuses leaves its router out of the routing table: it serves nothing.

// Matcher is one matcher call of a rule, with the "!" that reaches it.
struct Matcher {
    std::string name; // as Traefik registers it: "PathPrefix"
    std::vector<std::string> args;
    bool negated = false;
    std::string text() const
    {
        std::string out = (negated ? "!" : "") + name + "(";
        for (std::size_t i = 0; i < args.size(); ++i)
            out += (i ? ", `" : "`") + args[i] + "`";
        return out + ")";
    }
};

// Node is a rule's tree: a matcher, or && / || of its children.
struct Node {
    enum class Op { Leaf, And, Or };
    Op op = Op::Leaf;
    std::vector<Node> kids;
    Matcher leaf;
};

// BadRule is why Traefik refuses a rule.
struct BadRule : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// httpFuncs of matcher.go: each matcher and the argument counts expectNParameters allows.
const std::map<std::string, std::vector<std::size_t>>& matchers()
{
    static const std::map<std::string, std::vector<std::size_t>> m{
        {"ClientIP", {1}}, {"Method", {1}}, {"Host", {1}}, {"HostRegexp", {1}}, {"Path", {1}}, {"PathRegexp", {1}},
        {"PathPrefix", {1}}, {"Header", {2}}, {"HeaderRegexp", {2}}, {"Query", {1, 2}}, {"QueryRegexp", {1, 2}}};
    return m;
}

class RuleReader {
public:
    explicit RuleReader(std::string_view rule) : m_s(rule) {}

    Node read()
    {
        Node n = orExpr();
        skip();
        if (m_i != m_s.size())
            fail("unexpected " + ratelab::quoted(std::string(m_s.substr(m_i, 1))));
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& why) const { throw BadRule(why + " at offset " + std::to_string(m_i)); }

    void skip()
    {
        while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t' || m_s[m_i] == '\n' || m_s[m_i] == '\r'))
            ++m_i;
    }

    bool eat(std::string_view token)
    {
        skip();
        if (m_s.substr(m_i).starts_with(token)) {
            m_i += token.size();
            return true;
        }
        return false;
    }

    Node join(Node::Op op, Node first, std::string_view token, Node (RuleReader::*next)())
    {
        if (!eat(token))
            return first;
        Node n{op, {std::move(first)}, {}};
        do
            n.kids.push_back((this->*next)());
        while (eat(token));
        return n;
    }

    Node orExpr() { return join(Node::Op::Or, andExpr(), "||", &RuleReader::andExpr); }
    Node andExpr() { return join(Node::Op::And, unary(), "&&", &RuleReader::unary); }

    Node unary()
    {
        // Go's parser takes nesting up to 100,000 deep; reading that far would overflow the stack
        // here, and no real rule nests beyond a few levels.
        if (++m_depth > 1000)
            throw InputError("'(' and '!' nested more than 1,000 deep: not read");
        const auto up = qScopeGuard([this] { --m_depth; });
        if (eat("!")) {
            Node n = unary();
            negate(n);
            return n;
        }
        if (eat("(")) {
            Node n = orExpr();
            if (!eat(")"))
                fail("a missing )");
            return n;
        }
        return call();
    }

    static void negate(Node& n) // rules.invert: && and || swap, each matcher negated
    {
        n.op = n.op == Node::Op::And ? Node::Op::Or : n.op == Node::Op::Or ? Node::Op::And : Node::Op::Leaf;
        n.leaf.negated = !n.leaf.negated;
        for (Node& k : n.kids)
            negate(k);
    }

    Node call();
    std::string literal();

    std::string_view m_s;
    std::size_t m_i = 0;
    int m_depth = 0;
};

Node RuleReader::call()
{
    skip();
    const std::size_t start = m_i;
    while (m_i < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_i])) || m_s[m_i] == '_'))
        ++m_i;
    const std::string written(m_s.substr(start, m_i - start));
    if (written.empty())
        fail("a matcher expected");
    std::string name;
    for (const auto& [n, counts] : matchers()) { // NewParser: the name, lower, UPPER and Title case
        const std::string lower = lowerAscii(n);
        std::string upper = n, title = lower;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return char(std::toupper(c)); });
        title[0] = char(std::toupper(title[0]));
        if (written == n || written == lower || written == upper || written == title)
            name = n;
    }
    if (name.empty())
        fail(written + " is no matcher of Traefik v3's rule syntax"
             + std::string(written == "Headers" || written == "HeadersRegexp" || written == "HostHeader"
                               ? " (a v2 one: ruleSyntax v2, which --config does not read)" : ""));
    Node n;
    n.leaf.name = name;
    if (!eat("("))
        fail("( expected after " + written);
    if (!eat(")")) {
        for (;;) { // Go's call syntax: a comma may follow the last argument
            n.leaf.args.push_back(literal());
            if (!eat(","))
                break;
            skip();
            if (m_i < m_s.size() && m_s[m_i] == ')')
                break;
        }
        if (!eat(")"))
            fail(") expected");
    }
    const std::vector<std::size_t>& counts = matchers().at(name);
    if (std::find(counts.begin(), counts.end(), n.leaf.args.size()) == counts.end())
        fail(name + " takes " + std::to_string(counts.front()) + (counts.size() > 1 ? " or 2" : "") + " arguments, not "
             + std::to_string(n.leaf.args.size()));
    for (const std::string& a : n.leaf.args)
        if (a.empty()) // rules.CheckRule
            fail("an empty argument of " + name);
    return n;
}

// literal reads a Go string literal: `raw`, or "interpreted" with its escapes.
std::string RuleReader::literal()
{
    skip();
    if (m_i >= m_s.size() || (m_s[m_i] != '`' && m_s[m_i] != '"'))
        fail("a string expected");
    const char quote = m_s[m_i++];
    std::string out;
    for (; m_i < m_s.size() && m_s[m_i] != quote; ++m_i) {
        if (quote == '`' || m_s[m_i] != '\\') {
            if (m_s[m_i] != '\r') // Go drops a raw string's carriage returns
                out += m_s[m_i];
            continue;
        }
        static const std::string_view from = "abfnrtv\\\"", to = "\a\b\f\n\r\t\v\\\"";
        const std::size_t e = ++m_i < m_s.size() ? from.find(m_s[m_i]) : std::string_view::npos;
        if (e == std::string_view::npos) // \x, \u, \U and octal are Go's too: not modelled, not refused
            throw InputError("the escape \\" + std::string(1, m_i < m_s.size() ? m_s[m_i] : ' ') + " in a string is not read");
        out += to[e];
    }
    if (m_i >= m_s.size())
        fail("an unterminated string");
    ++m_i;
    return out;
}

using Conjunct = std::vector<Matcher>;

// disjuncts returns the rule as an || of && of matchers (the router matches a request when one
// of them holds), at most 64 of them.
std::vector<Conjunct> disjuncts(const Node& n)
{
    if (n.op == Node::Op::Leaf)
        return {{n.leaf}};
    std::vector<Conjunct> out = n.op == Node::Op::Or ? std::vector<Conjunct>{} : std::vector<Conjunct>{{}};
    for (const Node& k : n.kids) {
        const std::vector<Conjunct> d = disjuncts(k);
        if (n.op == Node::Op::Or) {
            out.insert(out.end(), d.begin(), d.end());
        } else {
            std::vector<Conjunct> product;
            for (const Conjunct& a : out)
                for (const Conjunct& b : d) {
                    product.push_back(a);
                    product.back().insert(product.back().end(), b.begin(), b.end());
                }
            out = std::move(product);
        }
        if (out.size() > 64)
            throw InputError("more than 64 alternatives once its ! and || are expanded: not modelled");
    }
    return out;
}

// headerField is the log field that holds a header: http_ and its name, lower-cased, '-' as '_'.
std::string headerField(const std::string& header)
{
    std::string field = "http_" + lowerAscii(header);
    std::replace(field.begin(), field.end(), '-', '_');
    return field;
}

// RouterNotes says, once per router and matcher, what the log cannot decide: a condition whose
// field the log lacks is taken to hold, named until bindKeyFields binds the field.
struct RouterNotes {
    DryRunConfig& out;
    bool oneHost = false; // every Host of the file is one and the same: taking it is assumed, not a gap
    std::map<std::string, std::pair<int, int>> seen = {}; // router and matcher -> (note, assumed note)

    void note(const std::string& router, const Matcher& m, DryRunCondition& c, const std::string& lacks)
    {
        auto [it, fresh] = seen.try_emplace(router + '\n' + m.text(), -1, -1);
        if (fresh) {
            const std::string where = "router " + router;
            if (oneHost && (m.name == "Host" || m.name == "HostRegexp")) {
                out.assumed.push_back(where + ": every logged request is taken to match " + m.text() + " (the log holds no host)");
                it->second.second = int(out.assumed.size()) - 1;
            } else {
                out.notReplayed.push_back(where + " matches on " + m.text() + ", which " + lacks
                                          + ": every request taken to match it");
                it->second.first = int(out.notReplayed.size()) - 1;
            }
        }
        std::tie(c.note, c.assumedNote) = it->second;
    }
};

// goRange reads a ClientIP argument as ip.NewChecker does (pkg/ip/checker.go at fd5a576df2):
// net.ParseIP, else net.ParseCIDR (Go 1.26: netip.ParseAddr without a zone, then "/" and decimal
// digits up to the address's bit length, 32 for a dotted quad, 128 for any IPv6 text); nullopt
// for what it refuses. IPNet.Contains then tests a network whose masked address is IPv4-mapped
// as an IPv4 one (networkNumberAndMask: its mask's last 4 bytes), so "::ffff:10.0.0.0/104" is
// 10.0.0.0/8; an IP's Equal compares 16-byte forms, so an address is its /32 or /128.
std::optional<DryRunAddressRange> goRange(const std::string& arg)
{
    if (const std::optional<IpAddress> ip = parseIpLiteral(arg))
        return maskedRange(*ip, ip->v4 ? 32 : 128);
    const std::size_t slash = arg.find('/');
    const std::string digits = slash == std::string::npos ? "" : arg.substr(slash + 1);
    std::optional<IpAddress> ip = parseIpLiteral(std::string_view(arg).substr(0, slash));
    if (!ip || digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    int bits = 0; // dtoi: leading zeros taken, any value past 128 refused below
    for (const char d : digits)
        bits = std::min(bits * 10 + (d - '0'), 1000);
    const bool dotted = arg.find(':') > slash; // netip's BitLen: 32 for an IPv4 address, 128 for an IPv4-mapped one
    if (bits > (dotted ? 32 : 128))
        return std::nullopt;
    if (dotted)
        return maskedRange(*ip, bits);
    IpAddress v6 = *ip;
    v6.v4 = false; // masked over its 16 bytes, then its family decided by what is left
    DryRunAddressRange r = maskedRange(v6, bits);
    if (isIpv4Mapped(r.net))
        r = {r.net, std::max(0, bits - 96), true};
    return r;
}

// conditionOf makes a matcher a condition (matcher.go's semantics), but Host(`*`). ClientIP
// tests the log's client address ("ip") as clientIP tests the connection's (RemoteAddrStrategy:
// req.RemoteAddr, its port cut): an address ip.Checker cannot parse matches nothing.
DryRunCondition conditionOf(const std::string& router, const Matcher& m, RouterNotes& notes)
{
    using Subject = DryRunCondition::Subject;
    DryRunCondition c;
    c.negate = m.negated;
    const std::string& a = m.args[0];
    if (m.name == "Host" || m.name == "HostRegexp") {
        c.field = "host";
        c.hostName = true;
        if (m.name == "HostRegexp") {
            c.regexes = {a};
        } else {
            // DomainMatchHostExpression: equal ignoring case, or "*" + the host past its first
            // label; a trailing '.' of either side is dropped once.
            std::string h = lowerAscii(a);
            if (h.ends_with('.'))
                h.pop_back();
            if (!h.starts_with('*'))
                c.regexes = {"^" + re2Quote(h) + "\\.?$"};
            else if (h.size() == 1 || h[1] == '.')
                c.regexes = {"^[^.]*" + re2Quote(h.substr(1)) + "\\.?$"};
            // else "*x.com": no host has a first label followed by "x.com": it matches nothing
        }
        notes.note(router, m, c, "the log does not hold (no host field)");
    } else if (m.name == "Method") {
        c.field = "request_method";
        std::string upper = a;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](char ch) { return char(std::toupper(ch)); });
        c.values = {upper};
        notes.note(router, m, c, "the log does not hold (no request line nor request_method)");
    } else if (m.name == "Header" || m.name == "HeaderRegexp") {
        c.field = headerField(a);
        (m.name == "Header" ? c.values : c.regexes).push_back(m.args[1]);
        notes.note(router, m, c, "the log does not hold (no field " + c.field + ")");
    } else if (m.name == "Path" || m.name == "PathPrefix" || m.name == "PathRegexp") {
        c.subject = Subject::Path;
        (m.name == "Path" ? c.values : m.name == "PathPrefix" ? c.prefixes : c.regexes).push_back(a);
    } else if (m.name == "Query" || m.name == "QueryRegexp") {
        c.subject = Subject::Query;
        c.field = a; // one argument: the parameter with an empty value
        (m.name == "QueryRegexp" && m.args.size() == 2 ? c.regexes : c.values).push_back(m.args.size() == 2 ? m.args[1] : "");
    } else { // ClientIP, its argument checked by checkRule
        c.field = "ip";
        c.addresses = {*goRange(a)};
        notes.note(router, m, c, "the log does not hold (no client address field ip)");
    }
    return c;
}

// placesOf makes each alternative of a router's rule a place: its first Path or PathPrefix the
// place's own match, every other matcher a condition.
std::vector<DryRunPlace> placesOf(const std::string& router, const std::string& rule, const std::vector<Conjunct>& alternatives,
                                  RouterNotes& notes)
{
    std::vector<DryRunPlace> out;
    for (const Conjunct& alternative : alternatives) {
        DryRunPlace place{"router " + router + " (" + rule + ")", DryRunMatch::Prefix, "", {}};
        bool path = false, never = false;
        for (const Matcher& m : alternative) {
            if (!path && !m.negated && (m.name == "Path" || m.name == "PathPrefix")) {
                path = true;
                place.match = m.name == "Path" ? DryRunMatch::Exact : DryRunMatch::Prefix;
                place.pattern = m.args[0];
                continue;
            }
            if (m.name == "Host" && m.args[0] == "*") { // every host, an empty one too
                never = never || m.negated;
                continue;
            }
            place.conditions.push_back(conditionOf(router, m, notes));
        }
        if (!never)
            out.push_back(std::move(place));
    }
    return out;
}

// checkRule refuses what Traefik's matcher builders refuse (matcher.go): a path not starting with
// '/', a non-ASCII host, a regex Go's regexp (RE2's syntax) refuses, a ClientIP that is neither
// an IP nor a CIDR range.
void checkRule(const std::vector<Conjunct>& alternatives)
{
    for (const Conjunct& c : alternatives)
        for (const Matcher& m : c) {
            const std::string& a = m.args[0];
            if ((m.name == "Path" || m.name == "PathPrefix") && !a.starts_with('/'))
                throw BadRule("path " + ratelab::quoted(a) + " does not start with a '/'");
            if (m.name == "ClientIP" && !goRange(a))
                throw BadRule("initializing IP checker for ClientIP matcher: parsing CIDR trusted IPs: invalid CIDR address: " + a);
            if ((m.name == "Host" || m.name == "HostRegexp")
                && std::any_of(a.begin(), a.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; }))
                throw BadRule("non-ASCII characters in " + m.name);
            const std::string re = m.name == "HostRegexp" || m.name == "PathRegexp" ? a
                                   : m.name == "HeaderRegexp" || (m.name == "QueryRegexp" && m.args.size() == 2) ? m.args[1]
                                                                                                                 : "";
            if (!re.empty()) {
                try {
                    (void)ProductRegex(re, RegexEngine::Re2, RegexSpan::Anywhere);
                } catch (const InputError& e) {
                    throw BadRule(m.name + ": " + e.what());
                }
            }
        }
}

// routerPlaces reads each router's rule and returns the places of the routers Traefik builds,
// in the order it tries them: by priority, its own or its rule's length in bytes
// (GetRulePriority, mux.go), highest first. A rule Traefik refuses is named and its router left
// out, as Traefik leaves it out of the routing table; routers of equal priority are refused by
// name (routes.Less breaks no tie, and sort.Sort is not stable).
std::vector<std::pair<std::string, DryRunPlace>> routerPlaces(const std::map<std::string, Router>& routers,
                                                              const std::vector<std::string>& routerOrder, DryRunConfig& out)
{
    std::vector<const Router*> order;
    std::map<std::string, std::vector<Conjunct>> rules;
    std::set<std::string> hosts; // every Host and HostRegexp of the file, "!" included
    bool everyHasHost = true;    // every alternative of every router tests the host
    for (const std::string& name : routerOrder) {
        const Router& r = routers.at(name);
        try {
            std::vector<Conjunct> alternatives = disjuncts(RuleReader(r.rule).read());
            checkRule(alternatives);
            for (const Conjunct& c : alternatives) {
                bool host = false;
                for (const Matcher& m : c)
                    if (m.name == "Host" || m.name == "HostRegexp") {
                        hosts.insert(m.text());
                        host = true;
                    }
                everyHasHost = everyHasHost && host;
            }
            rules[name] = std::move(alternatives);
            order.push_back(&r);
        } catch (const BadRule& e) {
            out.notReplayed.push_back("router " + name + ": Traefik refuses its rule '" + messageText(r.rule) + "' (" + e.what()
                                      + "): it serves no request");
        } catch (const InputError& e) {
            throw InputError("Traefik: router " + name + ": the rule '" + messageText(r.rule) + "': " + e.what());
        }
    }
    const auto priority = [](const Router* r) { return r->priority ? r->priority : std::int64_t(r->rule.size()); };
    std::stable_sort(order.begin(), order.end(), [&](const Router* a, const Router* b) { return priority(a) > priority(b); });
    for (std::size_t i = 0; i + 1 < order.size(); ++i)
        if (priority(order[i]) == priority(order[i + 1]))
            throw InputError("Traefik: routers " + order[i]->name + " and " + order[i + 1]->name + " have the same priority ("
                             + std::to_string(priority(order[i])) + "): which one Traefik tries first is not modelled; "
                             "give one a priority");
    RouterNotes notes{out};
    // One host that every router tests decides nothing between them: it is assumed, not named.
    notes.oneHost = everyHasHost && hosts.size() == 1 && !hosts.begin()->starts_with('!');
    std::vector<std::pair<std::string, DryRunPlace>> places; // (router, place)
    for (const Router* r : order)
        for (DryRunPlace& p : placesOf(r->name, r->rule, rules.at(r->name), notes))
            places.emplace_back(r->name, std::move(p));
    return places;
}

// canonicalLimitField writes a rateLimit field as Traefik's documentation spells it: paerser
// matches field names ignoring case, so "Average" and "sourcecriterion.requesthost" are these.
std::string canonicalLimitField(const std::string& written)
{
    static const char* const kNames[] = {"average", "period", "burst", "sourceCriterion", "requestHeaderName",
                                         "requestHost", "ipStrategy", "depth", "excludedIPs"};
    std::string out;
    for (const QString& part : QString::fromStdString(written).split('.')) {
        std::string name = part.toStdString();
        for (const char* known : kNames)
            if (keyMatches(name, known, KeyMatch::IgnoreCase))
                name = known;
        out += (out.empty() ? "" : ".") + name;
    }
    return out;
}

// TraefikFile is the routers and rateLimit middlewares of a file, each in the order written.
struct TraefikFile {
    std::map<std::string, Router> routers;
    std::map<std::string, Limit> limits;
    std::vector<std::string> routerOrder, limitOrder;
};

// readRouterField reads a router's field (http.routers.NAME.FIELD).
void readRouterField(TraefikFile& file, const std::string& name, const std::string& field, const std::string& value)
{
    if (!file.routers.count(name))
        file.routerOrder.push_back(name);
    Router& r = file.routers[name];
    r.name = name;
    const auto is = [&](const char* known) { return keyMatches(field, known, KeyMatch::IgnoreCase); };
    if (is("rule"))
        r.rule = value;
    else if (is("middlewares"))
        r.middlewares.push_back(value.substr(0, value.find('@'))); // "limit@file": the provider is not the name
    else if (is("priority"))
        r.priority = parseIntegerIn(value, 1, std::int64_t(1) << 62);
    else if (lowerAscii(field) == "rulesyntax" && lowerAscii(value) == "v2")
        throw InputError("Traefik: router " + name + ": ruleSyntax v2 is not read (--config reads Traefik v3's "
                         "rule syntax, its default)");
}

// readLimitField reads a rateLimit middleware's field (http.middlewares.NAME.rateLimit.FIELD).
void readLimitField(TraefikFile& file, const std::string& name, const std::string& written, const std::string& value)
{
    const std::string field = canonicalLimitField(written);
    if (!file.limits.count(name))
        file.limitOrder.push_back(name);
    Limit& l = file.limits[name];
    if (field == "average" || field == "period" || field == "burst")
        l.options.push_back({field, value});
    else if (field == "sourceCriterion.requestHeaderName")
        l.header = value;
    else if (field == "sourceCriterion.requestHost")
        l.host = value;
    else if (field == "sourceCriterion.ipStrategy.depth")
        l.depth = value;
    else if (field.starts_with("sourceCriterion.ipStrategy.excludedIPs"))
        l.excluded = value;
    else if (!field.starts_with("sourceCriterion"))
        throw InputError("Traefik: middleware " + name + ": rateLimit." + field + " is not modelled");
}

TraefikFile readTraefik(const ConfigDocument& doc)
{
    TraefikFile file;
    // Traefik matches its field names ignoring case (keyMatchOf), the names of routers and
    // middlewares as written.
    const auto is = [](const QString& part, const char* name) { return keyMatches(part.toStdString(), name, KeyMatch::IgnoreCase); };
    for (const auto& [path, value] : doc.flat) {
        const QStringList parts = QString::fromStdString(path).split('.');
        if (parts.size() >= 4 && is(parts[0], "http") && is(parts[1], "routers"))
            readRouterField(file, parts[2].toStdString(), parts.mid(3).join('.').toStdString(), value);
        else if (parts.size() >= 5 && is(parts[0], "http") && is(parts[1], "middlewares") && is(parts[3], "rateLimit"))
            readLimitField(file, parts[2].toStdString(), parts.mid(4).join('.').toStdString(), value);
    }
    if (file.limits.empty())
        throw InputError("Traefik: no http.middlewares.NAME.rateLimit found");
    return file;
}

// addLimitRule adds middleware `name`'s limit as a rule of its own (its zone, its policy) and
// returns its index; a limit keyed by other than the log's key is named, not replayed.
std::size_t addLimitRule(DryRunConfig& out, const Limit& l, const std::string& where, const std::string& name,
                         const std::string& logKey)
{
    const LimiterConfig config = LimiterConfig{}.withProductOptions(l.options);
    const Algorithm a = Algorithm::Traefik;
    checkProductOptions(config, std::span(&a, 1));
    out.zones.push_back({name, 0});
    out.rules.push_back({where + "rateLimit " + name, out.zones.size() - 1, 0, 0, {{a, config}}, false, false});
    const auto [field, words] = sourceField(l);
    out.mapped.push_back(field == logKey);
    if (field != logKey) {
        out.notReplayed.push_back(out.rules.back().name + ": it keys by " + words + ", not the log's key (" + logKey + ")"
                                  + (field.empty() ? ", nor a log field: not replayed"
                                                   : ": not replayed (--key " + field + " replays it)"));
        out.rules.back().keyField = field;
        out.rules.back().keyNote = int(out.notReplayed.size()) - 1;
    }
    return out.rules.size() - 1;
}

} // namespace

DryRunConfig traefikDryRunConfig(const ConfigDocument& doc, const std::string& logKey)
{
    TraefikFile file = readTraefik(doc);
    DryRunConfig out;
    out.product = "Traefik";
    out.firstMatch = true;
    out.paths = DryRunPaths::Traefik;
    if (file.routers.empty()) { // the middlewares alone: the routers that apply them are elsewhere
        if (file.limits.size() > 1)
            throw InputError("Traefik: " + std::to_string(file.limits.size()) + " rateLimit middlewares and no http.routers: "
                             "which requests each limits is not in the file; give the routers");
        const std::string& only = file.limitOrder.front();
        out.fallback = {addLimitRule(out, file.limits.at(only), "", only, logKey)};
        out.assumed.push_back("no router in the file: every request is taken to pass middleware " + only);
        return out;
    }
    std::map<std::string, bool> used;
    for (auto& [router, place] : routerPlaces(file.routers, file.routerOrder, out)) {
        for (const std::string& m : file.routers.at(router).middlewares)
            if (file.limits.count(m)) { // each router builds its own middlewares: its own buckets (in memory)
                const std::string rule = "router " + router + ": rateLimit " + m;
                const auto it = std::find_if(out.rules.begin(), out.rules.end(), [&](const DryRunRule& r) { return r.name == rule; });
                place.rules.push_back(it != out.rules.end() ? std::size_t(it - out.rules.begin())
                                                            : addLimitRule(out, file.limits.at(m), "router " + router + ": ", m, logKey));
                used[m] = true;
            }
        out.places.push_back(std::move(place));
    }
    for (const std::string& name : file.limitOrder)
        if (!used[name])
            out.notReplayed.push_back("middleware " + name + ": no router of the file applies it, so it limits nothing here");
    if (out.rules.empty())
        throw InputError("Traefik: no router applies a rateLimit middleware: the config limits nothing");
    return out;
}

} // namespace ratelab::io
