#include "advise/upstash_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/config.h"
#include "limiters/products/upstash.h"

#include <algorithm>

namespace ratelab {

namespace {

UpstashRatelimit upstashOf(bool sliding, std::int64_t windowMs, std::int64_t tokens)
{
    return UpstashRatelimit(LimiterConfig{}.withProductOptions({{"limiter", sliding ? "slidingWindow" : "fixedWindow"},
                                                                {"tokens", std::to_string(tokens)},
                                                                {"window", upstashWindowText(windowMs)}}));
}

} // namespace

std::string upstashWindowText(std::int64_t windowMs)
{
    if (windowMs % 60'000 == 0)
        return std::to_string(windowMs / 60'000) + " m";
    if (windowMs % 1'000 == 0)
        return std::to_string(windowMs / 1'000) + " s";
    return std::to_string(windowMs) + " ms";
}

std::int64_t upstashLeastTokens(KeyTrace trace, bool sliding, std::int64_t windowMs, Nanos clock)
{
    UpstashRatelimit upstash = upstashOf(sliding, windowMs, LimiterConfig::kMaxLimit);
    std::int64_t least = 1;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        const Nanos t = clock + trace.times[i];
        least = std::max(least, std::int64_t(upstash.levelAt(t)) + trace.cost(i));
        if (!upstash.decide(t, trace.cost(i)).allowed)
            throw InputError("advise: a key sends more than " + grouping(LimiterConfig::kMaxLimit) + " in a window of "
                             + upstashWindowText(windowMs) + ", more than the @upstash/ratelimit model holds");
    }
    return least;
}

std::int64_t upstashDenied(KeyTrace trace, bool sliding, std::int64_t windowMs, std::int64_t tokens, Nanos clock)
{
    UpstashRatelimit upstash = upstashOf(sliding, windowMs, tokens);
    return deniedOn(upstash, trace, clock);
}

std::vector<WindowRowModel> upstashRowModels(const UpstashAdvice& u)
{
    // Either limiter lets at most `tokens` through in each window of the clock (the sliding one
    // weighs the previous window's on top): the bound of a fixed window, reached by fixedWindow.
    std::vector<WindowRowModel> out;
    for (const UpstashPoint& p : u.limiters)
        out.push_back(windowRowModel([p] { return upstashOf(p.sliding, p.windowMs, p.tokens); }, true,
                                     {{p.windowMs * kNanosPerMs, p.tokens}}));
    return out;
}

UpstashAdvice adviseUpstash(const KeyedTraces& traces, std::int64_t keep)
{
    const Nanos clock = traces.clock;
    if (keep <= 0 || keep > kPercentUnit)
        throw InputError("advise: keep must be in (0, 100] %");
    UpstashAdvice out;
    keepKeys(traces, keep, out.keys);
    for (bool sliding : {true, false})
        for (std::int64_t windowMs : kUpstashWindowsMs) {
            std::int64_t least = 1;
            for (std::size_t k = 0; k < traces.keys(); ++k)
                if (out.keys.kept[k])
                    least = std::max(least, upstashLeastTokens(traces.trace(k), sliding, windowMs, clock));
            const bool recommended = out.limiters.size() == kUpstashRecommended;
            const DenialCount d = countDenials(
                traces, out.keys.kept,
                [&](KeyTrace trace) { return upstashDenied(trace, sliding, windowMs, least, clock); },
                recommended ? &out.deniedPerKey : nullptr);
            out.limiters.push_back({sliding, windowMs, least, d});
        }
    return out;
}

std::string upstashLimiterCall(const UpstashPoint& p)
{
    return std::string(p.sliding ? "slidingWindow" : "fixedWindow") + "(" + std::to_string(p.tokens) + ", \""
           + upstashWindowText(p.windowMs) + "\")";
}

std::string upstashAdviceSnippet(const UpstashPoint& p)
{
    return "import { Ratelimit } from \"@upstash/ratelimit\";\n"
           "import { Redis } from \"@upstash/redis\";\n"
           "\n"
           "export const ratelimit = new Ratelimit({\n"
           "  redis: Redis.fromEnv(),\n"
           "  limiter: Ratelimit." + upstashLimiterCall(p) + ",\n"
           "});\n";
}

} // namespace ratelab
