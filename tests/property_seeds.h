// propertySeeds returns how many seeds each property test runs: RATELAB_PROPERTY_SEEDS (CI sets
// 20,000), or 200 when it is unset or not a positive number.
#pragma once

#include <QtGlobal>

#include <cstdint>

inline std::uint64_t propertySeeds()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("RATELAB_PROPERTY_SEEDS", &ok);
    return ok && n > 0 ? std::uint64_t(n) : 200;
}
