// followsLimits: whether a config's capacity and rate are the ones its limit and window give
// (capacity L, rate L / W). The app's "Capacity and rate follow limit, window" box starts ticked
// for such a config, and a deck's change of limit or window moves them along (docs/decks.md).
#pragma once

#include "limiters/config.h"

namespace ratelab {

inline bool followsLimits(const LimiterConfig& c)
{
    return c.capacity() == c.limit() && c.rate() == Rate::reduced(c.limit(), c.windowNanos());
}

} // namespace ratelab
