// The managed edges advised from a log: a Cloudflare rate limiting rule and an AWS WAF rate-based
// rule (limiters/products/cloudflare.h, aws_waf.h: their models, from each product's
// documentation, with what is assumed named there). Neither is a BurstFamily (advise.h): each
// counts requests over a period or window the product offers, so, as for Kong and express, the
// advice is each offered window's least limit for the kept keys, on the product's own model.
//
// Cloudflare (the model's sliding count): a request at e into period w of P passes iff
// prev * (P - e) + (cur + cost) * P <= limit * P, prev and cur the counts of periods w - 1 and w.
// While every request passes, nothing is blocked or refused, so the counts are what arrived,
// whatever the limit: the least limit that passes all is the most any request needs,
// cur + cost + ceil(prev * (P - e) / P), one pass per key and period. It is exact both ways: at a
// limit L at or above it every request passes (by induction, the counts stay the arrivals'); below
// it the first request needing more than L meets the arrivals' counts and is refused. The periods
// are the clock's (KeyTrace::clock added), as Cloudflare counts them and the dry run replays them.
//
// AWS WAF: a check at T counts the requests of [T - window, T), blocked ones too, and its verdict
// holds from T + the detection delay, so no count depends on the limit at all: a request is
// blocked iff the count of the check in force at it is over the limit, and the least limit that
// blocks none is the most count any request meets, one pass per key and window (two pointers:
// the check in force only moves forward). AWS's least Limit is 10, so the limit written is at
// least 10, and measured as written. The check interval and the delay are the model's defaults,
// which the written rule is replayed with.
//
// A higher limit passes every request whenever a lower one does: the property test checks it and
// the least against a brute-force search on each model.
#pragma once

#include "advise/advise.h"
#include "advise/window_goals.h"
#include "limiters/products/aws_waf.h"

#include <string>
#include <vector>

namespace ratelab {

// WindowPoint is one offered window (seconds) and its limit: the least the kept keys need, the
// limit the product can be given (WAF's at least 10), and what that limit denies.
struct WindowPoint {
    std::int64_t window = 0, least = 0, limit = 0;
    DenialCount denied;
};

struct WindowAdvice {
    KeptKeys keys;
    std::vector<WindowPoint> windows; // per offered window
    std::size_t recommendedIndex = 0;
    std::vector<std::int64_t> deniedPerKey; // per key, at the recommendation
    const WindowPoint& recommended() const { return windows[recommendedIndex]; }
};

// Cloudflare's periods (its parameters page) and the one recommended: a minute.
inline constexpr std::int64_t kCloudflarePeriods[] = {10, 60, 120, 300, 600, 3600};
inline constexpr std::size_t kCloudflareRecommended = 1;

// cloudflareLeast is the least requests_per_period at which the rule passes every request of the
// trace (at least 1, Cloudflare's least).
std::int64_t cloudflareLeast(KeyTrace trace, std::int64_t period);
// cloudflareDenied is how many of the trace's requests the rule written for (period, limit) denies.
std::int64_t cloudflareDenied(KeyTrace trace, std::int64_t period, std::int64_t limit);
WindowAdvice adviseCloudflare(const KeyedTraces& traces, std::int64_t keep);
// managedRowModels is each window's written rule (Cloudflare's, else AWS WAF's) as the advice
// measures it, on the clock (window_goals.h).
std::vector<WindowRowModel> managedRowModels(const WindowAdvice& w, bool cloudflare);
// cloudflareAdviceConfig is a rulesets API request body: one rule keyed by ip.src, action block,
// blocking for one period once over (mitigation_timeout = period).
std::string cloudflareAdviceConfig(std::int64_t period, std::int64_t limit);

// AWS WAF's EvaluationWindowSec values, the one recommended (AWS's default, 300) and its least Limit.
inline constexpr std::int64_t kWafWindows[] = {60, 120, 300, 600};
inline constexpr std::size_t kWafRecommended = 2;
inline constexpr std::int64_t kWafMinLimit = 10;

// wafMostCount is the most count a check in force at one of the trace's requests saw: the least
// limit that blocks none, before AWS's least Limit.
std::int64_t wafMostCount(KeyTrace trace, std::int64_t windowSec);
std::int64_t wafDenied(KeyTrace trace, std::int64_t windowSec, std::int64_t limit);
// wafRule is the model of the written rule: its check interval and delay the model's defaults.
AwsWafRate wafRule(std::int64_t windowSec, std::int64_t limit);
WindowAdvice adviseAwsWaf(const KeyedTraces& traces, std::int64_t keep);
// wafAdviceConfig is a WAFV2 rule: a RateBasedStatement by IP, action Block.
std::string wafAdviceConfig(std::int64_t windowSec, std::int64_t limit);

} // namespace ratelab
