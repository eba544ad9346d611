// Fuzz target: the traffic-log reader (core/traffic/traffic_log.cpp).
//
// Any bytes, read in any format (the first byte picks it and the options), must give either
// traffic whose arrays agree (times sorted from 0, one key id and at most one cost per request,
// every key id named, counts that add up), or one printable InputError. Strict reading refuses
// exactly the inputs with an unreadable line, and otherwise reads the same traffic.
#include "traffic_checks.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ratelab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    TrafficOptions o;
    const std::uint8_t pick = data[0];
    o.format = LogFormat(pick % 6);
    if (pick & 0x08)
        o.key = "user";
    if (pick & 0x10)
        o.costField = "cost";
    if (pick & 0x20)
        o.pathPrefix = "/a";
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const fuzz::Outcome loose = fuzz::readTraffic(text, o);
    if (!loose.error.empty()) {
        fuzz::checkMessage(loose.error);
        return 0;
    }
    const Traffic& t = loose.traffic;
    FUZZ_CHECK(std::all_of(t.costs.begin(), t.costs.end(), [](std::int64_t c) { return c >= 1; }), text);
    FUZZ_CHECK(t.firstErrors.size() == std::min<std::size_t>(std::size_t(t.unreadable), o.errorsKept), text);
    const fuzz::Outcome strict = fuzz::checkTraffic(text, o, t);
    if (strict.error.empty())
        FUZZ_CHECK(strict.traffic.times == t.times && strict.traffic.keys == t.keys, text);
    return 0;
}
