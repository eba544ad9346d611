// Deterministic logarithm and exponential: the same bits on every x86-64 and every libm, where
// glibc picks a log1p/exp by the CPU (its FMA variants round differently), so a seeded service time
// drawn through libm could differ between two machines. Plain IEEE double operations in a fixed
// order (no FMA: baseline x86-64, no -ffast-math), accurate to a few ulp. And the one fixed hash
// the balancer, the clients and the server draw with, the same on every platform.
#pragma once

#include <cmath>
#include <cstdint>

namespace ratelab::detmath {

inline constexpr double kLn2Hi = 6.93147180369123816490e-01; // fdlibm's split of ln 2
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;

// log returns ln(x) for a finite x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
// ln m = 2 atanh(z), z = (m - 1) / (m + 1), |z| < 0.172, by its series to z^27.
inline double log(double x)
{
    int e = 0;
    double m = std::frexp(x, &e); // exact: m in [0.5, 1)
    if (m < 0.70710678118654752440) {
        m *= 2;
        --e;
    }
    const double z = (m - 1) / (m + 1), z2 = z * z;
    double sum = 0;
    for (int k = 27; k >= 3; k -= 2)
        sum = (sum + 1.0 / k) * z2;
    return (e * kLn2Lo + 2 * z * (1 + sum)) + e * kLn2Hi;
}

// exp returns e^x for |x| < 700: x = k ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor series to r^20.
inline double exp(double x)
{
    const double k = std::floor(x * 1.44269504088896340736 + 0.5);
    const double r = (x - k * kLn2Hi) - k * kLn2Lo;
    double p = 1;
    for (int n = 20; n >= 1; --n)
        p = 1 + p * r / n;
    return std::ldexp(p, int(k)); // exact scaling
}

} // namespace ratelab::detmath

namespace ratelab {

// hashClient is the hash balancer's fixed, platform-independent hash of a client id (splitmix64's
// finaliser): client c goes to node hashClient(c) mod N. The server's and the clients' seeded
// draws hash with it too.
constexpr std::uint64_t hashClient(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

} // namespace ratelab
