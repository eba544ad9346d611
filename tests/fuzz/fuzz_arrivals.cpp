// Fuzz target: the arrivals-file parser (core/traffic/arrivals.cpp), whole and in pieces.
//
// Any bytes must give either sorted, non-negative times within the cap, or one InputError that
// names the line. Feeding the same bytes in two pieces, split at a point the input picks, must
// give exactly the same result or the same message: that is how files are read.
#include "traffic/arrivals.h"
#include "arithmetic/decimal.h"
#include "fuzz_check.h"
#include "traffic/pattern.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ratelab;

namespace {

struct Outcome {
    std::vector<Nanos> times;
    std::string error;
};

template <typename F>
Outcome run(F f)
{
    Outcome o;
    try {
        o.times = f();
    } catch (const InputError& e) {
        o.error = e.what();
    }
    return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const Outcome whole = run([&] { return parseArrivals(text, "f"); });
    if (whole.error.empty()) {
        FUZZ_CHECK(std::is_sorted(whole.times.begin(), whole.times.end()), text);
        FUZZ_CHECK(whole.times.empty() || whole.times.front() >= 0, text);
        FUZZ_CHECK(std::int64_t(whole.times.size()) <= kMaxArrivals, text);
        // Each time is written back exactly: a file of formatSeconds lines parses to the same.
        std::string again;
        for (const Nanos t : whole.times)
            again += formatSeconds(t) + "\n";
        FUZZ_CHECK(parseArrivals(again, "g") == whole.times, text);
    } else {
        fuzz::checkMessage(whole.error);
        FUZZ_CHECK(whole.error.starts_with("f:"), whole.error);
    }

    // The same bytes in pieces: the split point comes from the first byte, so the fuzzer
    // reaches splits inside a CRLF, a byte-order mark or a number.
    const std::size_t split = size == 0 ? 0 : std::size_t(data[0]) * size / 256;
    const Outcome pieces = run([&] {
        ArrivalsParser parser("f");
        parser.feed(text.substr(0, split));
        parser.feed(text.substr(split));
        return parser.finish();
    });
    // The binary sniff looks at the first piece only; past it the line check still refuses the
    // file, possibly on another line. Everything else must agree exactly.
    const bool sniffed = whole.error.find("binary data") != std::string::npos
        || pieces.error.find("binary data") != std::string::npos;
    if (!sniffed) {
        FUZZ_CHECK(pieces.error == whole.error, pieces.error + " | " + whole.error);
        FUZZ_CHECK(pieces.times == whole.times, text);
    } else {
        FUZZ_CHECK(!pieces.error.empty() && !whole.error.empty(), pieces.error + " | " + whole.error);
    }
    return 0;
}
