// splitmix64: the seeded draws of the server's gates (Netflix's and Envoy's jitter), the same
// sequence on every platform, where the products draw from their thread's random source.
#pragma once

#include <cstdint>

namespace ratelab {

// splitmix64 advances `state` and returns its next 64-bit draw (Steele, Lea and Flood, 2014).
constexpr std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace ratelab
