// Fuzz target: the JSON-lines log reader (core/traffic/traffic_parse_json.cpp, simdjson's On
// Demand parser).
//
// Any bytes, read as JSON lines (the first byte picks the options), must give either traffic
// whose arrays agree, or one printable InputError; every unreadable line's reason is one
// printable line; every key read is UTF-8 (a surrogate pair decoded to one code point, never to
// the two halves); strict reading refuses exactly the inputs with an unreadable line. A log of
// one line that reads is one JSON document by simdjson's DOM parser too, which checks the whole
// text its own way.
#include "traffic_checks.h"

#include <simdjson.h>

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
    o.format = LogFormat::Json;
    const std::uint8_t pick = data[0];
    o.key = pick & 0x01 ? "user" : "ip";
    if (pick & 0x02)
        o.costField = "cost";
    if (pick & 0x04)
        o.pathPrefix = "/a";
    if (pick & 0x08)
        o.emptyKeys = true;
    if (pick & 0x10)
        o.keyFields = {"ip"};
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const fuzz::Outcome loose = fuzz::readTraffic(text, o);
    if (!loose.error.empty()) {
        fuzz::checkMessage(loose.error);
        return 0;
    }
    const Traffic& t = loose.traffic;
    for (const std::string& key : t.keyNames)
        FUZZ_CHECK(simdjson::validate_utf8(key.data(), key.size()), key);
    (void)fuzz::checkTraffic(text, o, t);
    if (t.lines == 1 && t.times.size() == 1) { // the one line read: it is JSON
        std::string_view line = text;
        if (line.starts_with("\xEF\xBB\xBF"))
            line.remove_prefix(3); // the byte order mark the reader skips
        simdjson::dom::parser dom;
        const simdjson::padded_string padded(line);
        const simdjson::error_code e = dom.parse(padded).error();
        // simdjson's DOM holds numbers as 64-bit values; a number past them is still JSON.
        FUZZ_CHECK(e == simdjson::SUCCESS || e == simdjson::NUMBER_ERROR, line);
    }
    return 0;
}
