// Fuzz target: the traffic-log reader (core/traffic/traffic_log.cpp, issue 22).
//
// Any bytes, read in any format (the first byte picks it and the options), must give either
// traffic whose arrays agree (times sorted from 0, one key id and at most one cost per request,
// every key id named, counts that add up), or one printable InputError. Strict reading refuses
// exactly the inputs with an unreadable line, and otherwise reads the same traffic.
#include "arithmetic/decimal.h"
#include "fuzz_check.h"
#include "traffic/traffic_log.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ratelab;

namespace {

struct Outcome {
    Traffic traffic;
    std::string error;
};

Outcome run(std::string_view text, const TrafficOptions& o)
{
    Outcome out;
    try {
        out.traffic = parseTraffic(text, o, "f");
    } catch (const InputError& e) {
        out.error = e.what();
    }
    return out;
}

} // namespace

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
    const Outcome loose = run(text, o);
    if (!loose.error.empty()) {
        fuzz::checkMessage(loose.error);
        return 0;
    }
    const Traffic& t = loose.traffic;
    const std::size_t n = t.times.size();
    FUZZ_CHECK(n > 0 && t.times.front() == 0, text);
    FUZZ_CHECK(std::is_sorted(t.times.begin(), t.times.end()), text);
    FUZZ_CHECK(t.keys.size() == n && (t.costs.empty() || t.costs.size() == n), text);
    FUZZ_CHECK(std::all_of(t.keys.begin(), t.keys.end(), [&](std::uint32_t k) { return k < t.keyNames.size(); }), text);
    FUZZ_CHECK(std::all_of(t.costs.begin(), t.costs.end(), [](std::int64_t c) { return c >= 1; }), text);
    FUZZ_CHECK(std::int64_t(n) + t.filtered + t.unreadable <= t.lines, text);
    FUZZ_CHECK(t.firstErrors.size() == std::min<std::size_t>(std::size_t(t.unreadable), o.errorsKept), text);
    for (const LineError& e : t.firstErrors) {
        FUZZ_CHECK(e.line >= 1 && e.line <= t.lines, text);
        fuzz::checkMessage(e.reason);
    }
    o.strict = true;
    const Outcome strict = run(text, o);
    FUZZ_CHECK(strict.error.empty() == (t.unreadable == 0), text);
    if (strict.error.empty())
        FUZZ_CHECK(strict.traffic.times == t.times && strict.traffic.keys == t.keys, text);
    else
        fuzz::checkMessage(strict.error);
    return 0;
}
