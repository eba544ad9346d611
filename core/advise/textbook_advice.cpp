#include "advise/textbook_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/config.h"
#include "limiters/limiters.h"

#include <algorithm>

namespace ratelab {

std::int64_t bucketCapacityNeeded(KeyTrace trace, Rate rate)
{
    Int128 deficit = 0, most = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        if (i > 0)
            deficit = std::max<Int128>(0, deficit - rate.unitsFromNanos(trace.times[i] - trace.times[i - 1]));
        deficit += rate.unitsFromTokens(trace.cost(i));
        most = std::max(most, deficit);
    }
    const Int128 capacity = std::max<Int128>(1, ceilDiv(most, rate.perNanos));
    if (capacity > LimiterConfig::kMaxLimit)
        throw InputError("advise: a key needs a token bucket above " + grouping(LimiterConfig::kMaxLimit)
                         + " tokens, more than the textbook limiters model");
    return std::int64_t(capacity);
}

std::vector<TextbookRow> textbookRows(const KeyedTraces& traces, const std::vector<std::uint8_t>& kept, Rate rate)
{
    std::int64_t capacity = 1;
    for (std::size_t k = 0; k < traces.keys(); ++k)
        if (kept[k])
            capacity = std::max(capacity, bucketCapacityNeeded(traces.trace(k), rate));
    const LimiterConfig config = LimiterConfig::make(capacity, rate.perNanos, capacity, rate);
    std::vector<TextbookRow> out;
    for (Algorithm a : {Algorithm::TokenBucket, Algorithm::Gcra}) {
        out.push_back({a, capacity, countDenials(traces, kept, [&](KeyTrace trace) {
                           return visitLimiter(a, config, [&](auto& limiter) { return deniedOn(limiter, trace); });
                       })});
    }
    return out;
}

} // namespace ratelab
