// express-rate-limit's MemoryStore advised from a log (limiters/products/express_rate_limit.h,
// from express-rate-limit's source/memory-store.ts and source/rate-limit.ts at commit
// 3828a5b61c90): per key `totalHits` in a window of windowMs that starts at the key's first
// request after its last window ended (resetTime <= now, Date.now()'s whole ms), not at a clock
// boundary, and a request denied iff totalHits > limit after it is counted: a denied request
// counts.
//
// So where a key's windows start depends on its times alone, never on the limit, and a limit L
// admits every request iff no window holds more than L hits: the least limit is the most one
// window holds, one pass, and any higher limit admits all too (the property test checks both on
// the model). The times since the log's start serve: the log starts on a whole ms.
//
// The recommendation: express's own default window, a minute (windowMs 60000), with the least
// limit the kept keys need in it; a second, 15 minutes (the window of express-rate-limit's own
// example) and an hour are shown beside it. One window per middleware: a per-second cap is a
// second middleware, not written.
#pragma once

#include "advise/advise.h"
#include "advise/window_goals.h"

#include <string>
#include <vector>

namespace ratelab {

// kExpressWindowsMs: the windows shown, and which of them is recommended.
inline constexpr std::int64_t kExpressWindowsMs[] = {1'000, 60'000, 900'000, 3'600'000};
inline constexpr std::size_t kExpressRecommended = 1;

// ExpressPoint is one (windowMs, limit) and what it does on the log.
struct ExpressPoint {
    std::int64_t windowMs = 0, limit = 0;
    DenialCount denied;
};

struct ExpressAdvice {
    KeptKeys keys;
    std::vector<ExpressPoint> windows; // per shown window: its least limit
    std::vector<std::int64_t> deniedPerKey; // per key, at the recommendation
    std::size_t recommendedIndex = kExpressRecommended; // another with an origin goal (window_goals.h)
    const ExpressPoint& recommended() const { return windows[recommendedIndex]; }
};

// expressWindowMost is the most hits one of the trace's windows of windowMs holds.
std::int64_t expressWindowMost(KeyTrace trace, std::int64_t windowMs);

// expressDenied is how many of the trace's requests express-rate-limit denies at (windowMs, limit).
std::int64_t expressDenied(KeyTrace trace, std::int64_t windowMs, std::int64_t limit);

// expressRowModels is each window's row as the advice measures it (window_goals.h).
std::vector<WindowRowModel> expressRowModels(const ExpressAdvice& e);

// adviseExpress keeps the keys and measures each shown window's least limit. It throws
// InputError when no key is limited.
ExpressAdvice adviseExpress(const KeyedTraces& traces, std::int64_t keep);

// expressAdviceConfig is the options object `advise` writes for rateLimit(...): JavaScript, and
// a YAML flow mapping, which `import` and the dry run read.
std::string expressAdviceConfig(std::int64_t windowMs, std::int64_t limit);

} // namespace ratelab
