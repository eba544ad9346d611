// The parts a dry run is made of, each in its own file: which place a request goes to
// (dry_run_routing.cpp: locations, routes and their conditions) and what key a map gives it
// (dry_run_keys.cpp); dry_run.cpp runs the limits. Internal to the replay folder.
//
// What runs once per request (Router::placeOf, KeyMapper::value) is defined here, inline, so
// the replay loop calls it as cheaply as when it was all one file; what runs once per path or
// per distinct value is in the .cpp files.
#pragma once

#include "replay/dry_run.h"
#include "replay/product_regex.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace ratelab::dryrun {

// Selector holds the locations' regexes compiled once.
class Selector {
public:
    explicit Selector(const DryRunConfig& config);

    // select returns the place for a logged path: with firstMatch the first that matches, else as
    // ngx_http_core_find_location: "=" wins at once, then the longest prefix (a "^~" one stops
    // there), then the regexes in file order, then that longest prefix.
    int select(std::string_view logged) const;

    // candidates returns, for a firstMatch config, every place whose path matches, in order, for
    // one with groups the place each group selects (-2 alone when the product refuses the path).
    std::vector<int> candidates(std::string_view logged) const;

private:
    // nginxSelect is ngx_http_core_find_location among the places of `group` (-1: every place).
    int nginxSelect(std::string_view path, int group) const;
    bool matches(std::size_t i, std::string_view path, std::string_view logged) const;

    const DryRunConfig& m_config;
    std::vector<std::optional<ProductRegex>> m_regex; // per place: its regex, compiled once
};

class ConditionTester;

// Router gives each request its place (-1 none: the fallback's rules; -2 a path the product
// refuses). Without conditions that is its path's place; with them (a route's methods, hosts,
// headers) the first place whose path matches (per path, once) and whose conditions hold (per
// condition and value, once: a key id's text is fixed).
class Router {
public:
    // Router fills `places`, per path id the place its path selects (DryRunResult::place), and
    // reads it from then on.
    Router(const DryRunConfig& config, const Traffic& traffic, std::vector<int>& places);
    ~Router();

    int placeOf(std::size_t request)
    {
        return m_conditional ? conditionalPlace(request) : m_places[m_traffic.paths[request]];
    }

private:
    int conditionalPlace(std::size_t request);
    bool conditionHolds(std::size_t p, std::size_t c, std::size_t request);

    const DryRunConfig& m_config;
    const Traffic& m_traffic;
    const std::vector<int>& m_places;
    bool m_conditional = false;
    std::vector<std::vector<int>> m_candidates;                // per path id
    std::vector<std::vector<std::vector<std::int8_t>>> m_holds; // per place, condition, key id: -1 unknown
    std::unique_ptr<const ConditionTester> m_tester; // its regexes compiled once
};

// KeyMapper evaluates one DryRunKeyMap per request, the entry found cached per distinct source
// value (a log key id, or a path id for the request target), its regexes compiled once.
class KeyMapper {
public:
    KeyMapper(const DryRunKeyMap& map, const Traffic& traffic);

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

    int find(std::string_view value) const;

    const DryRunKeyMap& m_map;
    const Traffic& m_traffic;
    std::vector<std::optional<ProductRegex>> m_regex; // per entry
    std::vector<int> m_found;                         // per source id: the entry found, -1 the default
};

} // namespace ratelab::dryrun
