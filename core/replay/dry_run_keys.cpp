// What key a dry run gives each request: the log fields a config's rules, maps and conditions
// read, bound to the fields the traffic read, and the values an nginx map gives.
#include "replay/dry_run_parts.h"

#include <algorithm>

namespace ratelab {

dryrun::KeyMapper::KeyMapper(const DryRunKeyMap& map, const Traffic& traffic) : m_map(map), m_traffic(traffic)
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

// find returns the entry ngx_http_map_find finds for a source value, -1 for the default.
int dryrun::KeyMapper::find(std::string_view value) const
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

namespace {

// fieldIndex is the log field `name`'s place in traffic.keyFields; -1 for none, or no name.
int fieldIndex(const Traffic& traffic, const std::string& name)
{
    const auto it = std::find(traffic.keyFields.begin(), traffic.keyFields.end(), name);
    return name.empty() || it == traffic.keyFields.end() ? -1 : int(it - traffic.keyFields.begin());
}

// bindRuleFields binds each rule's key field and fall-back field that some request of the log
// has; `dropped` gathers the notReplayed entries that no longer hold.
void bindRuleFields(DryRunConfig& config, const Traffic& traffic, std::vector<int>& dropped)
{
    for (std::size_t r = 0; r < config.rules.size(); ++r) {
        DryRunRule& rule = config.rules[r];
        if (const int f = fieldIndex(traffic, rule.fallbackField);
            rule.fallbackSource == -2 && f >= 0 && traffic.fieldSeen[std::size_t(f)] > 0) {
            rule.fallbackSource = f;
            if (rule.fallbackNote >= 0)
                dropped.push_back(rule.fallbackNote);
        }
        const int field = fieldIndex(traffic, rule.keyField);
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
}

// bindMapFields replays a map-keyed rule once every log field its map reads is bound; a field no
// request of the log has leaves it named.
void bindMapFields(DryRunConfig& config, const Traffic& traffic, std::vector<int>& dropped)
{
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
}

// bindConditionFields binds each condition on a log field that some request of the log has.
void bindConditionFields(DryRunConfig& config, const Traffic& traffic, std::vector<int>& dropped,
                         std::vector<int>& droppedAssumed)
{
    for (DryRunPlace& p : config.places)
        for (DryRunCondition& c : p.conditions)
            if (const int f = fieldIndex(traffic, c.field); c.subject == DryRunCondition::Subject::Field && c.source < 0
                                                             && f >= 0 && traffic.fieldSeen[std::size_t(f)] > 0) {
                c.source = f;
                if (c.note >= 0)
                    dropped.push_back(c.note);
                if (c.assumedNote >= 0)
                    droppedAssumed.push_back(c.assumedNote);
            }
}

// dropNotes removes the notReplayed and assumed entries a bound field answered, and renumbers
// the notes that point past them.
void dropNotes(DryRunConfig& config, std::vector<int>& dropped, std::vector<int>& droppedAssumed)
{
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

} // namespace

void bindKeyFields(DryRunConfig& config, const Traffic& traffic)
{
    std::vector<int> dropped, droppedAssumed;
    bindRuleFields(config, traffic, dropped);
    bindMapFields(config, traffic, dropped);
    bindConditionFields(config, traffic, dropped, droppedAssumed);
    dropNotes(config, dropped, droppedAssumed);
}

} // namespace ratelab
