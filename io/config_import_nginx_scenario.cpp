// nginx's limit_req configuration as an imported scenario (config_import.h): which place is
// modelled, which of its zones binds, what else the file holds.
#include "config_import.h"
#include "config_import_nginx.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace ratelab::io {

namespace {

// limitsText words a place's limits: "zone=api 50r/s burst=8 nodelay; zone=login 1r/m".
std::string limitsText(const NginxConfig& nginx, const std::vector<NginxLimit>& limits)
{
    std::string out;
    for (const NginxLimit& l : limits) {
        const auto z = std::find_if(nginx.zones.begin(), nginx.zones.end(), [&](const NginxZone& x) { return x.name == l.zone; });
        out += (out.empty() ? "" : "; ") + std::string("zone=") + l.zone + " " + nginxRateText(*z) + " per " + z->key
             + (l.burst ? " burst=" + std::to_string(l.burst) : std::string()) + (l.nodelay ? " nodelay" : "")
             + (l.delay ? " delay=" + std::to_string(l.delay) : std::string());
    }
    return out;
}

// mapClasses words a zone keyed by a map variable per class of requests, in the order
// ngx_http_map_find looks them up (the keys, then the regexes in file order, then the default):
// which share one bucket, which are counted per a variable, which are not limited at all (an
// empty value: ngx_http_limit_req_handler skips a limit whose key is empty). "" when the zone's
// key is not a map.
std::string mapClasses(const NginxConfig& nginx, const NginxZone& z)
{
    const auto m = std::find_if(nginx.maps.begin(), nginx.maps.end(), [&](const NginxMap& x) { return x.name == z.key; });
    if (m == nginx.maps.end())
        return "";
    const auto limitedAs = [](const std::string& value) {
        if (value.empty())
            return std::string("not limited (an empty key: nginx skips the limit)");
        if (value.find('$') == std::string::npos)
            return "one bucket \"" + value + "\" for all of them";
        return "per " + value;
    };
    std::string out = "zone " + z.name + " counts per " + z.key + ", map " + m->source + " (line " + std::to_string(m->line)
                    + ") of each request: ";
    std::string classes, fallback = limitedAs("");
    for (int pass = 0; pass < 2; ++pass) // the keys, then the regexes
        for (const auto& [key, value] : m->entries) {
            if (key == "default") {
                fallback = limitedAs(value);
                continue;
            }
            if (key.starts_with("~") != (pass == 1))
                continue;
            const std::string which = pass == 1 ? "matching " + key
                                    : key.empty()  ? std::string("empty (no such value sent)")
                                                   : "\"" + key + "\"";
            classes += (classes.empty() ? "" : "; ") + which + ": " + limitedAs(value);
        }
    return out + classes + (classes.empty() ? "" : "; ") + "any other: " + fallback;
}

bool sameLimits(const std::vector<NginxLimit>& a, const std::vector<NginxLimit>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const NginxLimit& x, const NginxLimit& y) {
        return x.zone == y.zone && x.burst == y.burst && x.delay == y.delay && x.nodelay == y.nodelay;
    });
}

// ZoneLimit is one limit_req of a location as nginx holds it: the rate in thousandths of a request
// a second (ngx_http_limit_req_zone: rate * 1000 / scale, truncated), the burst in requests.
struct ZoneLimit {
    std::string zone, key, written; // written: the rate as the file writes it ("200r/m")
    std::int64_t rate = 0, burst = 0;
};

// thousandthsText writes thousandths as a decimal: 3333 is "3.333", 12000 "12".
std::string thousandthsText(std::int64_t t)
{
    std::string s = std::to_string(t / 1000);
    if (t % 1000 != 0) {
        std::string f = std::to_string(1000 + t % 1000).substr(1); // three digits
        while (f.back() == '0')
            f.pop_back();
        s += "." + f;
    }
    return s;
}

// firstToRefuse returns the index of the limit that refuses first a stream sent steadily at r
// thousandths a second from idle, -1 when none ever does. In ngx_http_limit_req_lookup a key's
// first request leaves excess 0 and each later one adds 1000 less rate * ms / 1000, refused once
// excess > burst * 1000: a zone of rate R lets burst * r / (r - R) requests after the first
// through (none refuses when r <= R). nginx asks the limits in order and stops at the first that
// refuses, so a tie goes to the earlier.
int firstToRefuse(const std::vector<ZoneLimit>& limits, double r)
{
    int first = -1;
    double least = 0;
    for (std::size_t i = 0; i < limits.size(); ++i) {
        if (r <= double(limits[i].rate))
            continue;
        const double through = double(limits[i].burst) * r / (r - double(limits[i].rate));
        if (first < 0 || through < least) {
            first = int(i);
            least = through;
        }
    }
    return first;
}

// steadyText says which limit refuses a steady stream first, per range of its rate: the ranges
// end where two limits let as many through (b_i * r / (r - R_i) = b_j * r / (r - R_j), so
// r = (b_i * R_j - b_j * R_i) / (b_i - b_j)).
std::string steadyText(const std::vector<ZoneLimit>& limits, std::int64_t slowest)
{
    std::vector<double> ends;
    for (std::size_t i = 0; i < limits.size(); ++i)
        for (std::size_t j = i + 1; j < limits.size(); ++j) {
            const auto &a = limits[i], &b = limits[j];
            if (a.burst == b.burst)
                continue;
            const double r = (double(a.burst) * double(b.rate) - double(b.burst) * double(a.rate)) / double(a.burst - b.burst);
            if (r > double(std::max({a.rate, b.rate, slowest})))
                ends.push_back(r);
        }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    const auto perSecond = [](double t) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", t / 1000);
        return std::string(buf);
    };
    // The limit that refuses first in each range between two ends (tried at its middle, the
    // last range at twice its start), ranges of the same limit merged.
    std::vector<std::pair<double, int>> ranges; // (start, limit)
    for (std::size_t k = 0; k <= ends.size(); ++k) {
        const double from = k == 0 ? double(slowest) : ends[k - 1], to = k < ends.size() ? ends[k] : 2 * from;
        const int limit = firstToRefuse(limits, (from + to) / 2);
        if (ranges.empty() || ranges.back().second != limit)
            ranges.emplace_back(from, limit);
    }
    std::string out;
    for (std::size_t k = 0; k < ranges.size(); ++k)
        out += (k == 0 ? "" : ", ") + std::string("by zone ") + limits[std::size_t(ranges[k].second)].zone
             + (k + 1 < ranges.size() ? " between " + perSecond(ranges[k].first) + " and " + perSecond(ranges[k + 1].first)
                                      : " above " + perSecond(ranges[k].first))
             + " a second";
    return out;
}

// bindsText says which of a location's limits binds. ngx_http_limit_req_handler (nginx commit
// 021a9df15b94, src/http/modules/ngx_http_limit_req_module.c) asks every limit in order and a
// request one refuses is refused, so in the long run the slowest rate binds, at once from idle
// the smallest burst (burst + 1 requests: the first leaves excess 0), and between the two, for a
// steady stream, whichever lets fewer requests through (firstToRefuse). A limit whose rate and
// burst are both the smallest refuses first on any traffic: its excess, charged with the same
// admitted requests and drained no faster, is never below another's.
std::vector<std::string> bindsText(const std::vector<ZoneLimit>& limits)
{
    std::size_t slow = 0, tight = 0;
    for (std::size_t i = 1; i < limits.size(); ++i) {
        slow = limits[i].rate < limits[slow].rate ? i : slow;
        tight = limits[i].burst < limits[tight].burst ? i : tight;
    }
    const ZoneLimit &s = limits[slow], &t = limits[tight];
    std::vector<std::string> out;
    out.push_back("in the long run zone " + s.zone + " binds: its " + s.written + ", which nginx holds as "
                  + thousandthsText(s.rate) + " a second, is the slowest");
    out.push_back("at once zone " + t.zone + " binds: " + std::to_string(t.burst + 1) + " requests from idle (its burst="
                  + std::to_string(t.burst) + " and the first, the fewest)");
    const auto both = std::find_if(limits.begin(), limits.end(), [&](const ZoneLimit& l) { return l.rate == s.rate && l.burst == t.burst; });
    if (both != limits.end())
        out.push_back("zone " + both->zone + " has both the slowest rate and the smallest burst, so it refuses first on any "
                      "traffic: no other zone refuses a request it admits");
    else
        out.push_back("which zone refuses first depends on the traffic: a client sending steadily from idle is refused first "
                      + steadyText(limits, s.rate) + " (a zone of rate R and burst b lets about b * r / (r - R) requests after "
                      "the first through a stream of r a second)");
    std::string keys;
    for (const ZoneLimit& l : limits)
        keys += (keys.empty() ? "" : ", ") + l.zone + " per " + l.key;
    if (std::any_of(limits.begin(), limits.end(), [&](const ZoneLimit& l) { return l.key != limits.front().key; }))
        out.push_back("the zones count different keys (" + keys + "): all this holds for the requests of one value of every "
                      "key (one client); a zone whose key several clients share counts all their requests and refuses sooner");
    return out;
}

// serverLabel names a server block as its configuration does: its server_name words and its
// listen addresses, which nginx picks it by, and its line.
std::string serverLabel(const NginxPlace& s)
{
    std::string names, listens;
    for (const std::string& n : s.serverNames)
        names += (names.empty() ? "" : " ") + n;
    for (const std::string& l : s.listens)
        listens += (listens.empty() ? "" : " ") + l;
    return "server " + (names.empty() ? std::string("with no server_name") : names)
         + (listens.empty() ? std::string() : ", listen " + listens) + " (line " + std::to_string(s.line) + ")";
}

// placesOf lists where requests meet limits, each under its server's name when the file has
// several servers (nginx picks one per request by listen and server_name, so a location's limits
// are that server's): the places readNginxConfig found, then each server's own limits where it
// holds locations, which a request none of its locations takes meets.
std::vector<NginxPlace> placesOf(const NginxConfig& nginx)
{
    std::vector<NginxPlace> out = nginx.places;
    const bool several = nginx.servers.size() > 1;
    for (NginxPlace& p : out)
        if (several && p.server >= 0)
            p.where = serverLabel(nginx.servers[std::size_t(p.server)]) + ": " + p.where;
    for (std::size_t i = 0; i < nginx.servers.size(); ++i) {
        const NginxPlace& s = nginx.servers[i];
        const bool isPlace = std::any_of(nginx.places.begin(), nginx.places.end(),
                                         [&](const NginxPlace& p) { return p.server == int(i) && p.match.empty(); });
        if (isPlace || s.limits.empty())
            continue;
        NginxPlace rest = s;
        rest.server = int(i);
        rest.where = (several ? serverLabel(s) : "server (line " + std::to_string(s.line) + ")")
                   + ": its limit_req, for a request none of its locations takes";
        rest.line = s.limits.front().line;
        out.push_back(std::move(rest));
    }
    return out;
}

// answersFirst: a place whose `return` (or its server's) answers in the rewrite phase, before
// limit_req's preaccess phase, applies its limits to no request.
bool answersFirst(const NginxConfig& nginx, const NginxPlace& p)
{
    return p.answers || (p.server >= 0 && nginx.servers[std::size_t(p.server)].answers);
}

// nameTheRest names in `out` every place but the modelled one (nullptr: none has limits, and
// zone `assumed` is modelled as applied), every zone no limit_req applies, and what the reader
// did not follow.
void nameTheRest(ImportedConfig& out, const NginxConfig& nginx, const std::vector<NginxPlace>& places, const NginxPlace* modelled,
                 const std::string& assumed)
{
    std::set<std::string> used;
    for (const NginxPlace& p : places) {
        for (const NginxLimit& l : p.limits)
            used.insert(l.zone);
        const std::string at = p.where + " (line " + std::to_string(p.line) + ")";
        if (!p.limits.empty() && answersFirst(nginx, p)) {
            out.notModelled.push_back(at + ": " + limitsText(nginx, p.limits) + " apply to none of its requests: its return "
                                      "answers first (nginx runs return before limit_req)");
            continue;
        }
        if (!modelled || &p == modelled || p.limits.empty())
            continue;
        if (sameLimits(p.limits, modelled->limits))
            out.assumed.push_back(at + " applies the same limits, and the same zones count its requests: modelled too");
        else
            out.notModelled.push_back(at + ": " + limitsText(nginx, p.limits) + " (a scenario models one location's limits)");
    }
    for (const NginxZone& z : nginx.zones)
        if (!used.count(z.name) && !(!modelled && z.name == assumed))
            out.notModelled.push_back("limit_req_zone " + z.name + " (line " + std::to_string(z.line) + ", " + nginxRateText(z)
                                      + " per " + z.key + "): no limit_req applies it, so nginx limits nothing with it");
    for (const std::string& n : nginx.notFollowed)
        out.notModelled.push_back(n);
}

// layersOf makes each limit of the modelled place a layer of nginx's model, and writes what
// the file wrote of it into out.
std::vector<Layer> layersOf(ImportedConfig& out, const NginxConfig& nginx, const std::vector<NginxLimit>& limits)
{
    std::vector<Layer> layers;
    for (const NginxLimit& l : limits) {
        const NginxZone& z = *std::find_if(nginx.zones.begin(), nginx.zones.end(), [&](const NginxZone& x) { return x.name == l.zone; });
        const Nanos per = z.perMinute ? 60 * kNanosPerSecond : kNanosPerSecond;
        NginxOptions options; // the burst is the capacity less one, so each layer keeps its own
        options.nodelay = l.nodelay;
        options.delay = l.delay;
        try {
            layers.push_back({Algorithm::NginxLimitReq,
                              LimiterConfig::make(z.rate, per, l.burst + 1, Rate::reduced(z.rate, per)).withNginx(options)});
            (void)nginxRateThousandths(layers.back().config.rate());
        } catch (const InputError& e) {
            throw InputError("nginx: line " + std::to_string(l.line) + ": limit_req zone=" + l.zone + " (" + nginxRateText(z)
                             + ", burst " + std::to_string(l.burst) + ") is past what the model holds: " + e.what());
        }
        out.wrote.emplace_back("zone", z.name);
        out.wrote.emplace_back("key", z.key);
        if (const std::string classes = mapClasses(nginx, z); !classes.empty())
            out.assumed.push_back(classes + "; the scenario models one of these buckets");
        out.wrote.emplace_back("rate", nginxRateText(z));
        if (l.burst)
            out.wrote.emplace_back("burst", std::to_string(l.burst));
        if (l.nodelay)
            out.wrote.emplace_back("nodelay", "");
        if (l.delay)
            out.wrote.emplace_back("delay", std::to_string(l.delay));
    }
    return layers;
}

} // namespace

// nginxScenario models the first place (in file order) that has limits: one limit_req is the
// nginx_limit_req algorithm, several are that algorithm for the first and all of them as layers.
// Every other place, zone and include is named in notModelled.
ImportedConfig nginxScenario(const QString& text)
{
    const NginxConfig nginx = readNginxConfig(text);
    if (nginx.zones.empty())
        throw InputError("nginx: no limit_req_zone directive found (a commented-out one is not configuration)");
    ImportedConfig out;
    out.product = "nginx limit_req";
    const auto answers = [&](const NginxPlace& p) { return answersFirst(nginx, p); };
    const std::vector<NginxPlace> places = placesOf(nginx);
    const auto modelled = std::find_if(places.begin(), places.end(),
                                       [&](const NginxPlace& p) { return !p.limits.empty() && !answers(p); });
    std::vector<NginxLimit> limits;
    if (modelled != places.end()) {
        limits = modelled->limits;
        out.modelledPlace = modelled->where;
        if (modelled->dryRun)
            out.assumed.push_back("limit_req_dry_run is on there: nginx denies nothing, it only logs; the model shows what it "
                                  "would deny");
    } else {
        limits.push_back({nginx.zones.front().name, 0, 0, false, nginx.zones.front().line});
        out.assumed.push_back("no limit_req applies zone " + limits.front().zone + ": modelled as \"limit_req zone="
                              + limits.front().zone + ";\" would apply it (no burst)");
    }
    const std::vector<Layer> layers = layersOf(out, nginx, limits);
    out.scenario.algorithms = {Algorithm::NginxLimitReq};
    out.scenario.config = layers.front().config;
    if (layers.size() > 1) {
        out.scenario.layers = layers;
        std::vector<ZoneLimit> held;
        for (std::size_t i = 0; i < limits.size(); ++i) {
            const NginxZone& z = *std::find_if(nginx.zones.begin(), nginx.zones.end(), [&](const NginxZone& x) { return x.name == limits[i].zone; });
            held.push_back({z.name, z.key, nginxRateText(z), nginxRateThousandths(layers[i].config.rate()), limits[i].burst});
        }
        out.binds = bindsText(held);
        out.assumed.push_back("the " + std::to_string(layers.size()) + " limit_req lines are layers, asked in order: a request "
                              "passes only if every zone admits it. nginx counts it in a zone only when all of them admit "
                              "it, the layers in every zone that admitted it, so after a later zone denies, an earlier "
                              "zone holds one request more than nginx's");
        for (std::size_t i = 1; i < layers.size(); ++i)
            if (layers[i].config.nginx() != layers.front().config.nginx())
                out.notModelled.push_back("limit_req zone=" + limits[i].zone + "'s nodelay/delay (line "
                                          + std::to_string(limits[i].line) + ") in a saved scenario: its layers take the "
                                          "first limit's; admissions do not depend on it, the delays do");
    }
    nameTheRest(out, nginx, places, modelled == places.end() ? nullptr : &*modelled, limits.front().zone);
    return out;
}

} // namespace ratelab::io
