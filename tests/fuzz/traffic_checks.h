// What the traffic-log fuzz targets (fuzz_traffic, fuzz_json_log) check alike: a read gives
// traffic whose arrays agree (times sorted from 0, one key id and at most one cost per request,
// every key id named, counts that add up, each unreadable line's reason one printable line), and
// strict reading refuses exactly the inputs with an unreadable line.
#pragma once

#include "arithmetic/decimal.h"
#include "fuzz_check.h"
#include "traffic/traffic_log.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace ratelab::fuzz {

struct Outcome {
    Traffic traffic;
    std::string error;
};

inline Outcome readTraffic(std::string_view text, const TrafficOptions& o)
{
    Outcome out;
    try {
        out.traffic = parseTraffic(text, o, "f");
    } catch (const InputError& e) {
        out.error = e.what();
    }
    return out;
}

// checkTraffic checks traffic t read loosely from text with o, and reads text strictly: it
// returns that strict reading.
inline Outcome checkTraffic(std::string_view text, TrafficOptions o, const Traffic& t)
{
    const std::size_t n = t.times.size();
    FUZZ_CHECK(n > 0 && t.times.front() >= 0 && t.times.front() < 1'000'000, text); // from the clock's ms at or before it
    FUZZ_CHECK(std::is_sorted(t.times.begin(), t.times.end()), text);
    FUZZ_CHECK(t.keys.size() == n && (t.costs.empty() || t.costs.size() == n), text);
    FUZZ_CHECK(std::all_of(t.keys.begin(), t.keys.end(), [&](std::uint32_t k) { return k < t.keyNames.size(); }), text);
    FUZZ_CHECK(std::int64_t(n) + t.filtered + t.unreadable <= t.lines, text);
    for (const LineError& e : t.firstErrors) {
        FUZZ_CHECK(e.line >= 1 && e.line <= t.lines, text);
        checkMessage(e.reason);
    }
    o.strict = true;
    Outcome strict = readTraffic(text, o);
    FUZZ_CHECK(strict.error.empty() == (t.unreadable == 0), text);
    if (!strict.error.empty())
        checkMessage(strict.error);
    return strict;
}

} // namespace ratelab::fuzz
