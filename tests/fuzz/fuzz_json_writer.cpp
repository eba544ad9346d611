// Fuzz target: the JSON writer's strings (jsonString, core/arithmetic/decimal.cpp).
//
// Any bytes written by jsonString must be one JSON string by simdjson's parser; read back, it
// is the same bytes when they were UTF-8, and otherwise UTF-8 with a U+FFFD for each byte that
// was not.
#include "fuzz_check.h"
#include "arithmetic/decimal.h"

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::string written = ratelab::jsonString(input);
    simdjson::dom::parser parser;
    const simdjson::padded_string padded(written);
    std::string_view read;
    const simdjson::error_code e = parser.parse(padded).get_string().get(read);
    FUZZ_CHECK(e == simdjson::SUCCESS, written);
    FUZZ_CHECK(simdjson::validate_utf8(read.data(), read.size()), written);
    if (simdjson::validate_utf8(input.data(), input.size()))
        FUZZ_CHECK(read == input, written);
    else
        FUZZ_CHECK(read.find("\xEF\xBF\xBD") != std::string_view::npos && read.size() <= input.size() * 3, written);
    return 0;
}
