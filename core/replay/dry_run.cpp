// The replay of a dry run: each request through the limits of the place it goes to, decided as
// nginx's limit_req decides (a zone's excess per key) or by a product's own policy, and each
// denial counted per rule, key and hour. Where a request goes is dry_run_routing.cpp's, what key a
// map gives it dry_run_keys.cpp's.
#include "replay/dry_run_parts.h"

#include "replay/log_keys.h"
#include "replay/replay_memory.h"

#include "arithmetic/decimal.h"
#include "arithmetic/nanos.h"

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


constexpr std::uint32_t kNoKey = std::numeric_limits<std::uint32_t>::max(); // a map's empty value: no limit

// ZoneState is one zone's bucket per key, as nginx's node keeps it: excess (thousandths) and last (ms).
struct ZoneState {
    std::vector<std::int64_t> excess, last;
    std::vector<std::uint8_t> exists;

    void resize(std::size_t keys)
    {
        excess.resize(keys, 0);
        last.resize(keys, 0);
        exists.resize(keys, 0);
    }
};

// Request is what the limits read of one request, and the log key a denial of it is counted
// against (the last rule's that looked it up).
struct Request {
    std::size_t i;
    std::uint32_t logKey;
    Nanos t;
    std::int64_t now; // nginx's clock
    std::int64_t cost;
    std::uint32_t deniedKey;
};

// Replay runs the requests through the limits one at a time, counting what they deny into a
// DryRunResult.
class Replay {
public:
    Replay(const Traffic& traffic, const DryRunConfig& config, DryRunResult& out);

    // request runs request i through the limits of its place (-1 the fallback's, -2 none).
    void request(std::size_t i, int place);

    // finish gives each rule its denials per hour and its worst hour.
    void finish();

private:
    std::uint32_t mappedKey(const DryRunRule& rule, std::size_t i);
    std::uint32_t keyOf(const DryRunRule& rule, const Request& q);
    bool keylessFor(const DryRunRule& rule, std::uint32_t k) const;
    bool ask(const std::vector<std::size_t>& asked, Request& q, int& denier);
    bool admits(std::size_t r, const DryRunRule& rule, std::uint32_t key, const Request& q);
    void account(const std::vector<std::size_t>& asked, const Request& q);
    void countDenial(int denier, const Request& q);

    const Traffic& m_traffic;
    const DryRunConfig& m_config;
    DryRunResult& m_out;
    std::vector<ZoneState> m_zones;
    std::vector<dryrun::KeyMapper> m_mappers;
    std::vector<std::unordered_map<std::string, std::uint32_t, TextHash, std::equal_to<>>> m_mappedIds; // per zone
    std::vector<std::vector<std::int64_t>> m_hours; // per rule: denials per hour since the log's first
    std::vector<std::int64_t> m_candidate;          // per rule: the zone's excess should every limit admit
    std::vector<std::vector<std::optional<LayeredPolicy>>> m_policies; // per policy rule, per key
    std::vector<std::uint8_t> m_keyless;                               // per log key: keylessName
};

Replay::Replay(const Traffic& traffic, const DryRunConfig& config, DryRunResult& out)
    : m_traffic(traffic), m_config(config), m_out(out)
{
    const std::size_t keys = traffic.keyNames.size();
    // A zone keyed by the request target counts per path id, so its buckets are as many as the paths.
    const std::size_t zoneKeys = std::max<std::size_t>({keys, traffic.pathNames.size(), 1});
    m_zones.resize(config.zones.size());
    for (ZoneState& z : m_zones)
        z.resize(zoneKeys);
    // A map-keyed zone counts per value the map gives: each value its bucket id, in its zone.
    for (const DryRunKeyMap& m : config.keyMaps)
        m_mappers.emplace_back(m, traffic);
    m_mappedIds.resize(config.zones.size());
    out.rules.resize(config.rules.size());
    m_hours.resize(config.rules.size());
    for (DryRunRuleReport& r : out.rules) {
        r.deniedPerKey.assign(keys, 0);
        r.firstDenialPerKey.assign(keys, -1);
    }
    out.deniedBy.assign(traffic.times.size(), -1);
    out.met.assign(traffic.times.size(), 0);
    m_candidate.resize(config.rules.size());
    m_policies.resize(config.rules.size());
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        const std::vector<Layer>& policy = config.rules[r].policy;
        if (!policy.empty())
            m_policies[r].resize(config.rules[r].shared ? 1 : keys);
    }
    // An empty key (logged "" or "-": a header the request did not send) is skipped by every
    // limit keyed by it, as nginx skips a limit whose key is empty.
    m_keyless.resize(keys);
    for (std::size_t k = 0; k < keys; ++k)
        m_keyless[k] = keylessName(traffic.keyNames[k]);
}

std::uint32_t Replay::mappedKey(const DryRunRule& rule, std::size_t i)
{
    const std::string_view v = m_mappers[std::size_t(rule.keyMap)].value(i);
    if (v.empty())
        return kNoKey;
    auto& ids = m_mappedIds[rule.zone];
    auto it = ids.find(v);
    if (it == ids.end()) {
        it = ids.emplace(std::string(v), std::uint32_t(ids.size())).first;
        ZoneState& z = m_zones[rule.zone];
        if (z.excess.size() <= it->second)
            z.resize(it->second + 1);
    }
    return it->second;
}

// keyOf is a rule's key for the request: the log's, the field it keys by (when that is empty, its
// fall-back's), the one constant key (0), the request target's path id, or the map's value.
std::uint32_t Replay::keyOf(const DryRunRule& rule, const Request& q)
{
    switch (rule.keyIs) {
    case DryRunRule::Key::Constant: return 0;
    case DryRunRule::Key::Target: return m_traffic.paths[q.i];
    case DryRunRule::Key::Mapped: return mappedKey(rule, q.i);
    case DryRunRule::Key::Logged: break;
    }
    const auto sourceKey = [&](int source) { return source < 0 ? q.logKey : m_traffic.fieldKeys[std::size_t(source)][q.i]; };
    const std::uint32_t k = sourceKey(rule.keySource);
    return m_keyless[k] && rule.fallbackSource >= -1 ? sourceKey(rule.fallbackSource) : k;
}

bool Replay::keylessFor(const DryRunRule& rule, std::uint32_t k) const
{
    return rule.keyIs == DryRunRule::Key::Mapped ? k == kNoKey : rule.keyIs == DryRunRule::Key::Logged && m_keyless[k] != 0;
}

// ask runs one location's limits as ngx_http_limit_req_handler does: the lookups in order up to
// the first that rejects, then, when all admitted, each zone accounts the request. It returns
// whether any limit looked the request up (nginx then sets limit_req_status and no later
// location's limits run), and sets denier to the rule that rejected it.
bool Replay::ask(const std::vector<std::size_t>& asked, Request& q, int& denier)
{
    bool looked = false;
    for (std::size_t r : asked) {
        const DryRunRule& rule = m_config.rules[r];
        if (!m_config.mapped[r]) { // not replayed (named): taken to look the request up, so
            looked = true;         // no later location's limits are asked in its stead
            continue;
        }
        m_out.met[q.i] = 1;
        const std::uint32_t key = keyOf(rule, q);
        // A denial is counted against the rule's own key when it is one of the log's, else
        // against the request's log key.
        q.deniedKey = rule.keyIs == DryRunRule::Key::Logged ? key : q.logKey;
        if (keylessFor(rule, key) && !rule.shared) {
            if (!rule.denyEmptyKey)
                continue;
            ++m_out.rules[r].requests;
            denier = int(r);
            return true;
        }
        looked = true;
        ++m_out.rules[r].requests;
        if (!admits(r, rule, key, q)) {
            denier = int(r);
            return true;
        }
    }
    account(asked, q);
    return looked;
}

// admits decides rule r for the request: a product's policy decides and counts at once; a
// zone's excess is worked out into m_candidate, for account to keep once every limit admitted.
bool Replay::admits(std::size_t r, const DryRunRule& rule, std::uint32_t key, const Request& q)
{
    if (!rule.policy.empty()) {
        std::optional<LayeredPolicy>& policy = m_policies[r][rule.shared ? 0 : key];
        if (!policy)
            policy.emplace(rule.policy, m_traffic.startEpochNanos); // a layer onTheClock sees the clock's time
        return policy->decide(q.t, q.cost).allowed;
    }
    const ZoneState& z = m_zones[rule.zone];
    Int128 e = 0;
    if (z.exists[key]) {
        e = Int128(z.excess[key]) - Int128(m_config.zones[rule.zone].rate) * (q.now - z.last[key]) / 1000 + 1000;
        e = std::max<Int128>(e, 0);
    }
    e += Int128(q.cost - 1) * 1000;
    if (e > Int128(rule.burst) * 1000)
        return false;
    m_candidate[r] = std::int64_t(e);
    return true;
}

// account: every limit admitted the request, so each zone keeps it (ngx_http_limit_req_account).
void Replay::account(const std::vector<std::size_t>& asked, const Request& q)
{
    for (std::size_t r : asked) {
        const DryRunRule& rule = m_config.rules[r];
        if (!m_config.mapped[r] || !rule.policy.empty())
            continue;
        const std::uint32_t key = keyOf(rule, q);
        if (keylessFor(rule, key))
            continue;
        ZoneState& z = m_zones[rule.zone];
        z.excess[key] = m_candidate[r];
        z.last[key] = q.now;
        z.exists[key] = 1;
    }
}

void Replay::request(std::size_t i, int place)
{
    static const std::vector<std::size_t> kNone;
    const std::vector<std::size_t>& rules = place == -2 ? kNone
                                            : place < 0 ? m_config.fallback
                                                        : m_config.places[std::size_t(place)].rules;
    const Nanos t = m_traffic.times[i];
    Request q{i, m_traffic.keys[i], t, t / kNanosPerMs, m_traffic.costs.empty() ? 1 : m_traffic.costs[i], m_traffic.keys[i]};
    int denier = -1;
    if (!ask(rules, q, denier) && place >= 0 && !m_config.places[std::size_t(place)].then.empty())
        ask(m_config.places[std::size_t(place)].then, q, denier);
    if (denier >= 0)
        countDenial(denier, q);
}

void Replay::countDenial(int denier, const Request& q)
{
    m_out.deniedBy[q.i] = denier;
    ++m_out.denied;
    DryRunRuleReport& rep = m_out.rules[std::size_t(denier)];
    ++rep.denied;
    if (rep.deniedPerKey[q.deniedKey]++ == 0) {
        rep.firstDenialPerKey[q.deniedKey] = q.t;
        ++rep.keysDenied;
    }
    std::vector<std::int64_t>& h = m_hours[std::size_t(denier)];
    const auto hour = std::size_t((m_traffic.startEpochNanos % kNanosPerHour + q.t) / kNanosPerHour);
    if (h.size() <= hour)
        h.resize(hour + 1, 0);
    ++h[hour];
}

void Replay::finish()
{
    for (std::size_t r = 0; r < m_hours.size(); ++r) {
        const auto worst = std::max_element(m_hours[r].begin(), m_hours[r].end()); // the earliest of equals
        if (worst != m_hours[r].end() && *worst > 0) {
            m_out.rules[r].worstHour = m_traffic.startEpochNanos / kNanosPerHour + std::int64_t(worst - m_hours[r].begin());
            m_out.rules[r].worstHourDenied = *worst;
        }
        m_out.rules[r].deniedPerHour = std::move(m_hours[r]);
    }
}

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

DryRunResult dryRun(const Traffic& traffic, const DryRunConfig& config)
{
    if (traffic.paths.size() != traffic.times.size())
        throw InputError("a dry run needs each request's path");
    DryRunResult out;
    dryrun::Router router(config, traffic, out.place);
    Replay replay(traffic, config, out);
    for (std::size_t i = 0; i < traffic.times.size(); ++i)
        replay.request(i, router.placeOf(i));
    replay.finish();
    return out;
}

} // namespace ratelab
