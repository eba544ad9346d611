// Round tick steps shared by the level axes and the time axis, so labels and grid agree.
#pragma once

#include <cmath>

namespace ratelab::ui {

// niceStep returns a 1-2-5 step that splits span into about `ticks` parts; with `quarters`, 2.5
// too (a level of tokens may be fractional; a count of requests read off "2.5, 5, 7.5" is not).
inline double niceStep(double span, int ticks, bool quarters = true)
{
    if (!(span > 0) || ticks < 1)
        return 1;
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if ((quarters || m != 2.5) && m * magnitude >= raw)
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

// kDaySeconds is a calendar day, in the time axis's unit.
inline constexpr double kDaySeconds = 86400;

// timeStep is the time axis's step in seconds: niceStep, or on a calendar axis spanning two days
// or more, whole days (1, 2, 7 or 14, then multiples of 28), so that its ticks, anchored at 0
// (1970-01-01T00:00Z, where the calendar products count from), fall on midnights and read as dates.
inline double timeStep(double span, int ticks, bool calendar)
{
    if (!calendar || !(span >= 2 * kDaySeconds) || ticks < 1)
        return niceStep(span, ticks);
    const double raw = span / ticks / kDaySeconds;
    for (double days : {1.0, 2.0, 7.0, 14.0})
        if (days >= raw)
            return days * kDaySeconds;
    return std::ceil(raw / 28) * 28 * kDaySeconds;
}

} // namespace ratelab::ui
