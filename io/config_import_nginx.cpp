// readNginxConfig: nginx's configuration grammar and the limit_req module's directives, as nginx
// 1.22 reads them (ngx_conf_read_token, ngx_http_limit_req_zone, ngx_http_limit_req,
// ngx_http_limit_req_merge_conf).
#include "config_import_nginx.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"
#include "limiters/config.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <optional>

namespace ratelab::io {

namespace {

// refuse says why nginx would refuse the config, as one printable line: the words it quotes are
// the file's, whatever bytes those are.
[[noreturn]] void refuse(int line, const std::string& why)
{
    throw InputError("nginx: line " + std::to_string(line) + ": " + messageText(why, 4 * kMessageQuote));
}

// Directive is one directive: its words (the name first), its line, and its block when it has one.
struct Directive {
    QStringList words;
    int line = 0;
    bool block = false;
    std::vector<Directive> children;
};

// Tokens cuts the text into words, ';', '{' and '}' as ngx_conf_read_token does
// (src/core/ngx_conf_file.c, nginx commit 3f6f7824d4e2eb1ac37dec76683d525ac0ff521c): only space,
// tab, CR and LF separate; a '#' where a word would start comments out the rest of the line ('#'
// inside a word is part of it); a quote where a word would start groups it, and after its closing
// quote only a separator, ';', '{' or ')' may follow, ')' then starting the next word (so
// `if ($args ~* "q=1")` is the words "($args", "~*", "q=1", ")"); an unquoted word ends at a
// separator, ';' or '{' (but "${", a variable), never at '}' ("a}" is one word); '\' keeps the
// next character in the word, and \" \' \\ \t \r \n are unescaped, any other pair kept as written.
class Tokens {
public:
    enum Kind { Word, Semicolon, Open, Close, End };
    struct Token {
        Kind kind = End;
        QString text;
        int line = 0;
    };

    explicit Tokens(const QString& text) : m_s(text) {}

    static bool separator(QChar c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

    Token next()
    {
        const qsizetype n = m_s.size();
        while (m_i < n) {
            const QChar c = m_s[m_i];
            if (c == '\n')
                ++m_line;
            if (c == '#') {
                while (m_i < n && m_s[m_i] != '\n')
                    ++m_i;
                continue;
            }
            if (!separator(c))
                break;
            ++m_i;
        }
        if (m_i >= n)
            return {End, {}, m_line};
        const QChar c = m_s[m_i];
        if (c == ';' || c == '{' || c == '}') {
            ++m_i;
            return {c == ';' ? Semicolon : c == '{' ? Open : Close, QString(c), m_line};
        }
        if (c == '"' || c == '\'')
            return quoted(c);
        Token t{Word, {}, m_line};
        QString raw;
        while (m_i < n) {
            const QChar w = m_s[m_i];
            if (w == '\\' && m_i + 1 < n) { // the next character is the word's, whatever it is
                raw += w;
                raw += m_s[m_i + 1];
                if (m_s[m_i + 1] == '\n')
                    ++m_line;
                m_i += 2;
                continue;
            }
            if (separator(w) || w == ';' || (w == '{' && !raw.endsWith('$')))
                break;
            raw += w;
            ++m_i;
        }
        t.text = unescaped(raw);
        return t;
    }

private:
    // unescaped copies a word as ngx_conf_read_token does: \" \' \\ lose the backslash, \t \r \n
    // are those characters, any other backslash stays.
    static QString unescaped(const QString& raw)
    {
        QString out;
        for (qsizetype i = 0; i < raw.size(); ++i) {
            if (raw[i] == '\\' && i + 1 < raw.size()) {
                const QChar e = raw[i + 1];
                if (e == '"' || e == '\'' || e == '\\') {
                    out += e;
                    ++i;
                    continue;
                }
                if (e == 't' || e == 'r' || e == 'n') {
                    out += e == 't' ? QChar('\t') : e == 'r' ? QChar('\r') : QChar('\n');
                    ++i;
                    continue;
                }
            }
            out += raw[i];
        }
        return out;
    }

    Token quoted(QChar quote)
    {
        Token t{Word, {}, m_line};
        const qsizetype n = m_s.size();
        QString raw;
        for (++m_i; m_i < n && m_s[m_i] != quote; ++m_i) {
            const QChar c = m_s[m_i];
            if (c == '\n')
                ++m_line;
            raw += c;
            if (c == '\\' && m_i + 1 < n) { // an escaped quote does not close
                raw += m_s[++m_i];
                if (m_s[m_i] == '\n')
                    ++m_line;
            }
        }
        if (m_i >= n)
            refuse(t.line, "a quote that never closes");
        ++m_i;
        t.text = unescaped(raw);
        if (m_i < n && !separator(m_s[m_i]) && m_s[m_i] != ';' && m_s[m_i] != '{' && m_s[m_i] != ')')
            refuse(m_line, std::string("unexpected \"") + QString(m_s[m_i]).toStdString() + "\" after a quoted word");
        return t;
    }

    const QString& m_s;
    qsizetype m_i = 0;
    int m_line = 1;
};

std::vector<Directive> parseBlock(Tokens& tokens, int depth, int openedAt)
{
    if (depth > 64)
        refuse(openedAt, "blocks nested more than 64 deep");
    std::vector<Directive> out;
    Directive current;
    for (;;) {
        const Tokens::Token t = tokens.next();
        switch (t.kind) {
        case Tokens::Word:
            if (current.words.empty())
                current.line = t.line;
            current.words.push_back(t.text);
            break;
        case Tokens::Semicolon:
            if (current.words.empty())
                refuse(t.line, "unexpected \";\"");
            out.push_back(std::move(current));
            current = {};
            break;
        case Tokens::Open:
            if (current.words.empty())
                refuse(t.line, "unexpected \"{\"");
            current.block = true;
            current.children = parseBlock(tokens, depth + 1, t.line);
            out.push_back(std::move(current));
            current = {};
            break;
        case Tokens::Close:
            if (!current.words.empty() || depth == 0)
                refuse(t.line, "unexpected \"}\"");
            return out;
        case Tokens::End:
            if (!current.words.empty())
                refuse(t.line, "unexpected end of file, expecting \";\" or \"}\"");
            if (depth > 0)
                refuse(openedAt, "the block opened here never closes (unexpected end of file, expecting \"}\")");
            return out;
        }
    }
}

std::string text(const QString& s) { return s.toStdString(); }

std::int64_t positive(const QString& digits, int line, const std::string& what)
{
    static const QRegularExpression number(R"(^\d+$)");
    if (!number.match(digits).hasMatch())
        refuse(line, "invalid " + what);
    std::int64_t v = 0;
    try {
        v = parseIntegerIn(text(digits), 0, LimiterConfig::kMaxLimit);
    } catch (const InputError& e) {
        refuse(line, "invalid " + what + ": " + e.what());
    }
    if (v <= 0)
        refuse(line, "invalid " + what);
    return v;
}

NginxZone readZone(const Directive& d)
{
    const std::string shown = "\"" + text(d.words.join(' ')) + "\"";
    if (d.words.size() != 4) // NGX_CONF_TAKE3
        refuse(d.line, "invalid number of arguments in " + shown + " (limit_req_zone KEY zone=NAME:SIZE rate=R)");
    NginxZone z;
    z.line = d.line;
    z.key = text(d.words[1]); // the key is always the first argument
    if (d.words[1].startsWith("zone=") || d.words[1].startsWith("rate="))
        refuse(d.line, "invalid parameter \"" + text(d.words[2]) + "\" in " + shown + ": nginx takes the first argument, \""
                           + z.key + "\", as the key");
    for (int i = 2; i < 4; ++i) {
        const QString& w = d.words[i];
        if (w.startsWith("zone=")) {
            const qsizetype colon = w.indexOf(':');
            static const QRegularExpression size(R"(^(\d+)([kKmMgG]?)$)");
            const auto m = size.match(colon < 0 ? QString() : w.mid(colon + 1));
            if (colon < 0 || !m.hasMatch())
                refuse(d.line, "invalid zone size \"" + text(w) + "\"");
            z.name = text(w.mid(5, colon - 5));
            const QString unit = m.captured(2).toLower();
            const double bytes = m.captured(1).toDouble() * (unit == "k" ? 1024.0 : unit == "m" ? 1048576.0 : unit == "g" ? 1073741824.0 : 1.0);
            if (bytes < 8 * 4096.0)
                refuse(d.line, "zone \"" + text(w) + "\" is too small");
        } else if (w.startsWith("rate=")) {
            QString r = w.mid(5);
            if (r.endsWith("r/s")) {
                r.chop(3);
            } else if (r.endsWith("r/m")) {
                r.chop(3);
                z.perMinute = true;
            }
            z.rate = positive(r, d.line, "rate \"" + text(w) + "\"");
        } else {
            refuse(d.line, "invalid parameter \"" + text(w) + "\" in " + shown);
        }
    }
    if (z.name.empty())
        refuse(d.line, shown + " must have \"zone\" parameter");
    return z;
}

NginxLimit readLimit(const Directive& d)
{
    const std::string shown = "\"" + text(d.words.join(' ')) + "\"";
    if (d.words.size() < 2 || d.words.size() > 4) // NGX_CONF_TAKE123
        refuse(d.line, "invalid number of arguments in " + shown);
    NginxLimit l;
    l.line = d.line;
    for (qsizetype i = 1; i < d.words.size(); ++i) {
        const QString& w = d.words[i];
        if (w.startsWith("zone=")) {
            l.zone = text(w.mid(5));
        } else if (w.startsWith("burst=")) {
            l.burst = positive(w.mid(6), d.line, "burst value \"" + text(w) + "\" (nginx takes a burst of 1 or more; leave it out for none)");
        } else if (w.startsWith("delay=")) {
            l.delay = positive(w.mid(6), d.line, "delay value \"" + text(w) + "\"");
            l.nodelay = false; // the last of delay= and nodelay wins, as in nginx
        } else if (w == "nodelay") {
            l.nodelay = true;
            l.delay = 0;
        } else {
            refuse(d.line, "invalid parameter \"" + text(w) + "\" in " + shown);
        }
    }
    if (l.zone.empty())
        refuse(d.line, shown + " must have \"zone\" parameter");
    return l;
}

// readMap reads a map block as ngx_http_map_block and ngx_http_map do (nginx commit
// 3f6f7824d4e2, src/http/modules/ngx_http_map_module.c): two words, the second a variable; each
// entry two words but `hostnames` and `volatile`; one `default`; an `include` is not followed.
NginxMap readMap(const Directive& d, NginxConfig& config)
{
    if (d.words.size() != 3)
        refuse(d.line, "invalid number of arguments in \"map\" directive");
    if (!d.words[2].startsWith('$'))
        refuse(d.line, "invalid variable name \"" + text(d.words[2]) + "\"");
    NginxMap m{text(d.words[1]), text(d.words[2]), d.line};
    bool haveDefault = false;
    QStringList exact;
    for (const Directive& e : d.children) {
        if (e.block)
            refuse(e.line, "unexpected \"{\" in map");
        if (e.words.size() == 1 && (e.words[0] == "hostnames" || e.words[0] == "volatile")) {
            m.hostnames = m.hostnames || e.words[0] == "hostnames";
            continue;
        }
        if (e.words.size() != 2)
            refuse(e.line, "invalid number of the map parameters");
        if (e.words[0] == "include") {
            m.includes = true;
            config.notFollowed.push_back("include " + text(e.words[1]) + " (line " + std::to_string(e.line)
                                         + ") in map " + m.name + ": not followed, its entries are not read");
            continue;
        }
        if (e.words[0] == "default") {
            if (haveDefault)
                refuse(e.line, "duplicate default map parameter");
            haveDefault = true;
        } else if (!e.words[0].startsWith('~')) { // ngx_hash_add_key: an exact key, lowercased, once
            const QString key = (e.words[0].startsWith('\\') ? e.words[0].mid(1) : e.words[0]).toLower();
            if (exact.contains(key))
                refuse(e.line, "conflicting parameter \"" + text(e.words[0]) + "\"");
            exact << key;
        }
        m.entries.emplace_back(text(e.words[0]), text(e.words[1]));
    }
    return m;
}

// Walker visits the blocks, keeping what a block inherits: the limit_req list and the dry run.
class Walker {
public:
    NginxConfig config;

    enum class Level { Http, Server, Location, Other };

    void walk(const std::vector<Directive>& ds, Level level, const std::vector<NginxLimit>& inherited, bool dryRun,
              NginxPlace* place)
    {
        std::vector<NginxLimit> own;
        for (const Directive& d : ds)
            if (!readLimitDirective(d, level, own, dryRun) && !readPlaceDirective(d, level, place))
                readHttpDirective(d, level);
        const std::vector<NginxLimit>& effective = own.empty() ? inherited : own;
        if (place) {
            place->limits = effective;
            place->dryRun = dryRun;
        }
        bool holdsPlaces = false;
        for (const Directive& d : ds) {
            if (!d.block)
                continue;
            const QString& name = d.words.front();
            if (name == "http" && level == Level::Http) {
                walk(d.children, Level::Http, effective, dryRun, nullptr);
                holdsPlaces = true;
            } else if (name == "server" && level == Level::Http) {
                walkServer(d, effective, dryRun);
                holdsPlaces = true;
            } else if ((name == "map" || name == "geo") && level == Level::Http) {
                // Their entries are keys and values, not directives: read above.
            } else if (name == "location" && (level == Level::Server || level == Level::Location)) {
                walkLocation(d, level, effective, dryRun);
                holdsPlaces = true;
            } else {
                walk(d.children, Level::Other, {}, dryRun, nullptr);
            }
        }
        if (level == Level::Http && !holdsPlaces && !effective.empty() && place == nullptr)
            config.places.push_back({"http", "", "", effective, dryRun, effective.front().line});
    }

private:
    // readLimitDirective reads limit_req_zone, limit_req and limit_req_dry_run; false for any other.
    bool readLimitDirective(const Directive& d, Level level, std::vector<NginxLimit>& own, bool& dryRun)
    {
        const QString& name = d.words.front();
        if (name == "limit_req_zone") {
            if (level != Level::Http || d.block)
                refuse(d.line, "\"limit_req_zone\" directive is not allowed here (only at the http level)");
            NginxZone z = readZone(d);
            for (const NginxZone& other : config.zones)
                if (other.name == z.name)
                    refuse(d.line, "limit_req_zone \"" + z.name + "\" is already bound to key \"" + other.key + "\" (line "
                                       + std::to_string(other.line) + ")");
            config.zones.push_back(std::move(z));
        } else if (name == "limit_req") {
            if (level == Level::Other)
                refuse(d.line, "\"limit_req\" directive is not allowed here");
            NginxLimit l = readLimit(d);
            for (const NginxLimit& other : own)
                if (other.zone == l.zone)
                    refuse(d.line, "limit_req zone=" + l.zone + " is duplicate (line " + std::to_string(other.line) + ")");
            own.push_back(std::move(l));
        } else if (name == "limit_req_dry_run") {
            if (d.words.size() != 2 || (d.words[1] != "on" && d.words[1] != "off"))
                refuse(d.line, "limit_req_dry_run takes on or off");
            dryRun = d.words[1] == "on";
        } else {
            return false;
        }
        return true;
    }

    // readPlaceDirective reads what a server or location says of its own requests (return,
    // try_files, server_name, listen, an if that returns); false for any other.
    static bool readPlaceDirective(const Directive& d, Level level, NginxPlace* place)
    {
        const QString& name = d.words.front();
        if (name == "return" && place && (level == Level::Server || level == Level::Location)) {
            place->answers = true;
        } else if (name == "try_files" && place && level == Level::Location && d.words.size() >= 3
                   && d.words.back().startsWith('@')) {
            place->tryNamed = text(d.words.back());
        } else if (name == "server_name" && place && level == Level::Server) {
            for (qsizetype i = 1; i < d.words.size(); ++i)
                place->serverNames.push_back(text(d.words[i]));
        } else if (name == "listen" && place && level == Level::Server && d.words.size() >= 2) {
            place->listens.push_back(text(d.words[1]));
            place->defaultServer = place->defaultServer || d.words.contains("default_server") || d.words.contains("default");
        } else if (name == "if" && place && d.block
                   && std::any_of(d.children.begin(), d.children.end(), [](const Directive& c) { return c.words.front() == "return"; })) {
            place->ifReturns.push_back(d.line);
        } else {
            return false;
        }
        return true;
    }

    // readHttpDirective reads the http level's map and geo blocks and notes an include not followed.
    void readHttpDirective(const Directive& d, Level level)
    {
        const QString& name = d.words.front();
        if (name == "map" && level == Level::Http && d.block) {
            config.maps.push_back(readMap(d, config));
        } else if (name == "geo" && level == Level::Http && d.block && d.words.size() >= 2) {
            config.geos.emplace_back(text(d.words.back()), d.line); // geo [$address] $variable
        } else if (name == "include") {
            config.notFollowed.push_back("include " + text(d.words.mid(1).join(' ')) + " (line " + std::to_string(d.line)
                                         + "): not followed, its limits are not read");
        }
    }

    // walkServer walks a server block as a place of its own and records it among the servers; a
    // server with locations leaves the places to them.
    void walkServer(const Directive& d, const std::vector<NginxLimit>& effective, bool dryRun)
    {
        const std::size_t at = config.places.size();
        config.places.push_back({"server", "", "", {}, false, d.line});
        m_server = int(config.servers.size());
        config.places.back().server = m_server;
        config.servers.push_back(config.places.back());
        walk(d.children, Level::Server, effective, dryRun, &config.places[at]);
        NginxPlace& server = config.servers[std::size_t(m_server)];
        const NginxPlace& walked = config.places[at];
        server.limits = walked.limits;
        server.dryRun = walked.dryRun;
        server.answers = walked.answers;
        server.serverNames = walked.serverNames;
        server.listens = walked.listens;
        server.defaultServer = walked.defaultServer;
        server.ifReturns = walked.ifReturns;
        m_server = -1;
        if (config.places.size() > at + 1) // a server with locations: its requests meet those
            config.places.erase(config.places.begin() + std::ptrdiff_t(at));
    }

    void walkLocation(const Directive& d, Level level, const std::vector<NginxLimit>& effective, bool dryRun)
    {
        NginxPlace p;
        p.line = d.line;
        p.nested = level == Level::Location;
        p.server = m_server;
        if (d.words.size() == 3) {
            p.modifier = text(d.words[1]);
            p.match = text(d.words[2]);
        } else if (d.words.size() == 2) {
            p.match = text(d.words[1]);
        } else {
            refuse(d.line, "invalid number of arguments in \"location\" directive");
        }
        p.where = "location " + (p.modifier.empty() ? "" : p.modifier + " ") + p.match;
        const std::size_t at = config.places.size();
        config.places.push_back(std::move(p));
        walk(d.children, Level::Location, effective, dryRun, &config.places[at]);
    }

    int m_server = -1; // the server block being walked
};

} // namespace

NginxConfig readNginxConfig(const QString& text)
{
    Tokens tokens(text);
    const std::vector<Directive> top = parseBlock(tokens, 0, 1);
    Walker w;
    w.walk(top, Walker::Level::Http, {}, false, nullptr);
    for (const NginxPlace& p : w.config.places)
        for (const NginxLimit& l : p.limits)
            if (std::none_of(w.config.zones.begin(), w.config.zones.end(), [&](const NginxZone& z) { return z.name == l.zone; }))
                refuse(l.line, "limit_req zone=" + l.zone + ": no limit_req_zone defines zone \"" + l.zone + "\"");
    return w.config;
}

std::string nginxRateText(const NginxZone& zone) { return std::to_string(zone.rate) + (zone.perMinute ? "r/m" : "r/s"); }

} // namespace ratelab::io
