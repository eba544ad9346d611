// The small log the advice tests derive their figures from by hand, each test from its own view:
// 1.1.1.1 sends three requests at 0 ms, one at 500 ms and one at 1000 ms; 2.2.2.2 one at 0;
// 3.3.3.3 ten at 0. As one trace (Envoy's one bucket): 14 at 0, one at 500 ms, one at 1000 ms.
#pragma once

#include "traffic/traffic_log.h"

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

} // namespace advisetest
