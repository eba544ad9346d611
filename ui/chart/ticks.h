// Round tick steps shared by the level axes and the time axis, so labels and grid agree.
#pragma once

#include <cmath>

namespace ratelab::ui {

// niceStep returns a 1-2-5 step that splits span into about `ticks` parts.
inline double niceStep(double span, int ticks)
{
    if (!(span > 0) || ticks < 1)
        return 1;
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw)
            return m * magnitude;
    return 10 * magnitude;
}

// niceCeiling rounds up to a number whose half is also round, for a 3-tick level axis.
inline double niceCeiling(double v)
{
    if (!(v > 0))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 1.2, 1.6, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
        if (m * magnitude >= v * (1 - 1e-12))
            return m * magnitude;
    return 10 * magnitude;
}

} // namespace ratelab::ui
