// The small log the advice tests derive their figures from by hand, each test from its own view:
// 1.1.1.1 sends three requests at 0 ms, one at 500 ms and one at 1000 ms; 2.2.2.2 one at 0;
// 3.3.3.3 ten at 0. As one trace (Envoy's one bucket): 14 at 0, one at 500 ms, one at 1000 ms.
#pragma once

#include "traffic/traffic_log.h"

#include <random>
#include <vector>

namespace advisetest {

inline const char* const kLog = "time,ip,path\n"
                                "1795392000.000,1.1.1.1,/\n1795392000.000,1.1.1.1,/\n1795392000.000,1.1.1.1,/\n"
                                "1795392000.000,2.2.2.2,/\n"
                                "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                                "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                                "1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n1795392000.000,3.3.3.3,/\n"
                                "1795392000.000,3.3.3.3,/\n"
                                "1795392000.500,1.1.1.1,/\n1795392001.000,1.1.1.1,/\n";

inline ratelab::Traffic smallLog()
{
    ratelab::TrafficOptions o;
    o.format = ratelab::LogFormat::Csv;
    o.keepPaths = true;
    return ratelab::parseTraffic(kLog, o, "small.csv");
}

// randomTrace is 1 to 25 requests of cost 1 to 3, in order, with gaps from none to a minute,
// sub-second parts included, so that whole seconds fall anywhere among them.
inline void randomTrace(std::mt19937_64& rng, std::vector<ratelab::Nanos>& times, std::vector<std::int64_t>& costs)
{
    using ratelab::Nanos;
    constexpr Nanos kMs = 1'000'000, kS = 1'000'000'000;
    times.clear();
    costs.clear();
    const auto n = std::uniform_int_distribution<int>(1, 25)(rng);
    const Nanos gaps[] = {0, kMs, 200 * kMs, 900 * kMs, kS, 1100 * kMs, 2 * kS, 7 * kS, 61 * kS};
    Nanos t = std::uniform_int_distribution<Nanos>(0, kS)(rng);
    for (int i = 0; i < n; ++i) {
        t += gaps[std::uniform_int_distribution<int>(0, 8)(rng)];
        times.push_back(t);
        costs.push_back(std::uniform_int_distribution<std::int64_t>(1, 3)(rng));
    }
}

} // namespace advisetest
