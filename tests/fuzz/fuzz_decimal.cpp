// Fuzz target: the exact decimal parsers (core/arithmetic/decimal.cpp): seconds, rates and integers.
//
// Any text must parse or throw one InputError with a one-line message. What parses must come
// back exactly through the formatters: formatSeconds and Rate::exactText.
#include "arithmetic/decimal.h"
#include "fuzz_check.h"

#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>

using namespace ratelab;

namespace {

template <typename F>
void refusedOrOk(F f)
{
    try {
        f();
    } catch (const InputError& e) {
        fuzz::checkMessage(e.what());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    refusedOrOk([&] {
        const Nanos t = parseSeconds(text);
        FUZZ_CHECK(t > std::numeric_limits<Nanos>::min(), text);
        FUZZ_CHECK(parseSeconds(formatSeconds(t)) == t, text);
    });
    refusedOrOk([&] {
        const Rate r = parseRate(text);
        FUZZ_CHECK(r.tokens > 0 && r.perNanos > 0, text);
        FUZZ_CHECK(std::gcd(r.tokens, r.perNanos) == 1, text);
        const std::string exact = r.exactText();
        if (exact.find('/') == std::string::npos) {
            const Rate back = parseRate(exact); // a finite decimal reads back as the same fraction
            FUZZ_CHECK(back == r, text);
        }
    });
    refusedOrOk([&] {
        const std::int64_t v = parseInteger(text);
        FUZZ_CHECK(parseInteger(std::to_string(v)) == v, text);
    });
    refusedOrOk([&] {
        const std::int64_t v = parseCount(text, 1'000'000'000);
        FUZZ_CHECK(v >= 0 && v <= 1'000'000'000, text);
    });
    refusedOrOk([&] {
        const std::int64_t v = parseIntegerIn(text, -5, 5'000'000);
        FUZZ_CHECK(v >= -5 && v <= 5'000'000, text);
    });
    return 0;
}
