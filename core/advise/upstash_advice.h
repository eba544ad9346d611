// @upstash/ratelimit advised from a log (limiters/products/upstash.h: the package's Lua scripts
// and TypeScript as version 2.2.0 computes them), its two window limiters: fixedWindow(tokens,
// window) and slidingWindow(tokens, window), on Date.now()'s clock (windows start at whole
// multiples of the window since 1970: the log's start since 1970 is added to its times).
//
// The least tokens that admit every request of a trace, from the model alone: the model's
// levelAt(t) is what its script weighs a request against before counting it, u = the current
// window's count, plus, for slidingWindow, the previous window's count weighted and rounded down
// (prevW). A request of cost c passes iff u + c <= tokens (slidingWindow also asks u < tokens,
// which that implies as c >= 1), and a passing request adds c to the current window whatever
// tokens is. So while every request passes, the counts, u and prevW at each request do not depend
// on tokens: run the model with tokens too large to deny any and the least is L = the most u + c
// over the trace. Monotone: with tokens T >= L every request passes (by induction, each meets the
// same u as at the large limit, and u + c <= L <= T); with T < L the requests before the first
// whose u + c = L pass as they did, so that one meets u + c > T and is denied. The ephemeral
// cache blocks only after a denial, so it plays no part while every request passes. The
// property test checks L against a brute-force search on the model, and that L - 1 denies.
//
// The recommendation: slidingWindow with a window of 10 s, the package's own example (limit()'s
// @example in src/ratelimit.ts, upstash/ratelimit-js e00d2224: Ratelimit.slidingWindow(10,
// "10 s")), with the least tokens the kept keys need in it; both
// limiters at 1 s, 10 s and 1 m are shown beside it. tokenBucket is not advised: it has a rate
// besides its size (refillRate per interval), a choice the windows' advice has no measure for.
#pragma once

#include "advise/advise.h"
#include "advise/window_goals.h"

#include <string>
#include <vector>

namespace ratelab {

// UpstashPoint is one limiter (slidingWindow or fixedWindow, a window) with its least tokens and
// what it does on the log.
struct UpstashPoint {
    bool sliding = true;
    std::int64_t windowMs = 0, tokens = 0;
    DenialCount denied;
};

// kUpstashWindows: the windows shown as ms() reads them, in milliseconds, and the recommended one.
inline constexpr std::int64_t kUpstashWindowsMs[] = {1'000, 10'000, 60'000};
inline constexpr std::size_t kUpstashRecommended = 1; // slidingWindow, 10 s: the first rows are sliding

struct UpstashAdvice {
    KeptKeys keys;                    // the kept keys (keepKeys)
    std::vector<UpstashPoint> limiters; // slidingWindow at each window, then fixedWindow at each
    std::vector<std::int64_t> deniedPerKey; // per key, at the recommendation
    std::size_t recommendedIndex = kUpstashRecommended; // another with an origin goal (window_goals.h)
    const UpstashPoint& recommended() const { return limiters[recommendedIndex]; }
};

// upstashWindowText is a window as the written snippet gives it to ms(): "10 s", "1 m", "250 ms".
std::string upstashWindowText(std::int64_t windowMs);

// upstashLeastTokens is the least tokens at which the limiter admits every request of the trace
// (clock: the log's start since 1970, added to each time). It throws InputError above what the
// model holds.
std::int64_t upstashLeastTokens(KeyTrace trace, bool sliding, std::int64_t windowMs, Nanos clock);

// upstashDenied is how many of the trace's requests the limiter denies, the ephemeral cache on
// (the package's default, and the written snippet's).
std::int64_t upstashDenied(KeyTrace trace, bool sliding, std::int64_t windowMs, std::int64_t tokens, Nanos clock);

// upstashRowModels is each limiter as the advice measures it, on the clock (window_goals.h).
std::vector<WindowRowModel> upstashRowModels(const UpstashAdvice& u);

// adviseUpstash keeps the keys and measures each shown limiter's least tokens, its windows on the
// log's clock (traces.clock). It throws InputError when no key is limited.
UpstashAdvice adviseUpstash(const KeyedTraces& traces, std::int64_t keep);

// upstashLimiterCall is the limiter as the snippet calls it: slidingWindow(12, "10 s").
std::string upstashLimiterCall(const UpstashPoint& p);

// upstashAdviceSnippet is the TypeScript `advise` writes: a Ratelimit of the limiter, which
// `import` and the dry run read.
std::string upstashAdviceSnippet(const UpstashPoint& p);

} // namespace ratelab
