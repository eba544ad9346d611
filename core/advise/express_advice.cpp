#include "advise/express_advice.h"

#include "limiters/products/express_rate_limit.h"

#include <algorithm>

namespace ratelab {

namespace {


LimiterConfig expressConfig(std::int64_t windowMs, std::int64_t limit)
{
    return LimiterConfig{}.withProductOptions({{"windowMs", std::to_string(windowMs)}, {"limit", std::to_string(limit)}});
}

} // namespace

std::int64_t expressWindowMost(KeyTrace trace, std::int64_t windowMs)
{
    std::int64_t most = 0, hits = 0, resetMs = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        const std::int64_t now = trace.times[i] / kNanosPerMs;
        if (i == 0 || resetMs <= now) { // MemoryStore's increment: a new window
            hits = 0;
            resetMs = now + windowMs;
        }
        hits += trace.cost(i);
        most = std::max(most, hits);
    }
    return most;
}

std::int64_t expressDenied(KeyTrace trace, std::int64_t windowMs, std::int64_t limit)
{
    ExpressRateLimit express(expressConfig(windowMs, limit));
    return deniedOn(express, trace);
}

std::vector<WindowRowModel> expressRowModels(const ExpressAdvice& e)
{
    std::vector<WindowRowModel> out;
    for (const ExpressPoint& w : e.windows) // a key's windows are its own, each from its first request after the last ended
        out.push_back(windowRowModel([w] { return ExpressRateLimit(expressConfig(w.windowMs, w.limit)); }, false,
                                     {{w.windowMs * kNanosPerMs, w.limit}}));
    return out;
}

ExpressAdvice adviseExpress(const KeyedTraces& traces, std::int64_t keep)
{
    if (keep <= 0 || keep > kPercentUnit)
        throw InputError("advise: keep must be in (0, 100] %");
    ExpressAdvice out;
    keepKeys(traces, keep, out.keys);
    for (std::size_t w = 0; w < std::size(kExpressWindowsMs); ++w) {
        const std::int64_t windowMs = kExpressWindowsMs[w];
        std::int64_t least = 0;
        for (std::size_t k = 0; k < traces.keys(); ++k)
            if (out.keys.kept[k])
                least = std::max(least, expressWindowMost(traces.trace(k), windowMs));
        const DenialCount d = countDenials(
            traces, out.keys.kept, [&](KeyTrace trace) { return expressDenied(trace, windowMs, least); },
            w == kExpressRecommended ? &out.deniedPerKey : nullptr);
        out.windows.push_back({windowMs, least, d});
    }
    return out;
}

std::string expressAdviceConfig(std::int64_t windowMs, std::int64_t limit)
{
    return "{windowMs: " + std::to_string(windowMs) + ", limit: " + std::to_string(limit) + "}\n";
}

} // namespace ratelab
