// What every fuzz target checks besides "no crash, no sanitizer report": a refusal is one
// printable line (the CLI prints it as it is), and an invariant that fails aborts with a note.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ratelab::fuzz {

[[noreturn]] inline void fail(const char* what, std::string_view detail = {})
{
    std::fprintf(stderr, "fuzz invariant broken: %s: %.*s\n", what, int(detail.size()), detail.data());
    std::abort();
}

#define FUZZ_CHECK(condition, detail)                                                                              \
    do {                                                                                                           \
        if (!(condition))                                                                                          \
            ::ratelab::fuzz::fail(#condition, detail);                                                             \
    } while (false)

// checkMessage verifies an error message is one non-empty line of printable text (UTF-8 allowed).
inline void checkMessage(std::string_view message)
{
    FUZZ_CHECK(!message.empty(), message);
    for (const char c : message)
        FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, message);
    FUZZ_CHECK(message.size() < 1000, message);
}

} // namespace ratelab::fuzz
