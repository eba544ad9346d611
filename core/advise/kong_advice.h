// Kong's rate-limiting plugin (policy local) advised from a log: not a BurstFamily (advise.h),
// for its limits are no (rate, burst) but counts in fixed windows (limiters/products/kong.h): a
// second, a minute, an hour, a day..., each starting on its boundary, and a request passes iff
// every configured window's count leaves room for it. A denied request is counted in none
// (kong/plugins/rate-limiting/handler.lua at Kong commit 22246ef28c16: access() returns the
// 429 before the timer that increments), so under a limit the counts are what passed, not what
// came.
//
// The least limit of one window size that admits every request of a key: with every request
// passing, each window's count is what arrived in it, whatever the limits, so the limits admit
// them all iff each period's limit is at least the most its windows ever hold: one pass per key
// and period, each period independent of the others. A higher limit admits all whenever a lower
// one does (the property test checks both against a brute-force search on Kong's model).
//
// The recommendation, as an SRE puts a limit in front of users: a per-minute limit, the most
// requests any kept key sent in one minute (what a user may do in a minute), and under it a
// per-second cap, the most any kept key sent in one second, so that a key cannot spend its whole
// minute in one second. The cap is written only below the minute's limit: at or above it, it
// never binds (a second's window lies inside its minute's, both on the clock), and Kong's schema
// refuses a minute below the second (schema.lua validate_periods_order). Hours and days are
// shown, not recommended: on a log of a day they are the kept keys' totals, the choice of keys
// itself (a goal may still choose one: window_goals.h).
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "advise/window_goals.h"
#include "limiters/config.h"
#include "limiters/products/kong.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ratelab {

// KongLimits is one limit per Kong period (second, minute, hour, day, month, year), 0 for none.
using KongLimits = std::array<std::int64_t, Kong::kPeriods>;

// kKongShownPeriods: the periods whose least limit the advice shows, second to day.
inline constexpr int kKongShownPeriods = 4;

// KongPoint is a set of limits and what it does on the log.
struct KongPoint {
    KongLimits limits{};
    DenialCount denied;
};

struct KongAdvice {
    KeptKeys keys;
    std::vector<KongPoint> windows; // per shown period: its least limit alone
    KongPoint recommended;
    std::vector<std::int64_t> deniedPerKey; // per key, at the recommendation
};

// Every function below takes `clock`, the log's start since 1970 (Traffic::startEpochNanos), which
// it adds to the trace's times: Kong's windows are the clock's, as the dry run replays them.

// kongWindowMost is the most cost one window of `period` holds in the trace.
std::int64_t kongWindowMost(KeyTrace trace, int period, Nanos clock);

// kongConfig is the limits as the plugin's config gives them to the model.
LimiterConfig kongConfig(const KongLimits& limits);

// kongDenied is how many of the trace's requests Kong with these limits denies.
std::int64_t kongDenied(KeyTrace trace, const KongLimits& limits, Nanos clock);

// adviseKong keeps the keys, measures each shown period's least limit and recommends the minute's
// with the second's cap below it, Kong's windows on the log's clock (traces.clock). It throws
// InputError when no key is limited.
KongAdvice adviseKong(const KeyedTraces& traces, std::int64_t keep);

// kongRows is the advice's rows as they are shown: each shown period alone, then the
// recommendation where it is none of them (a minute with a second under it); kongRecommendedRow
// is the recommendation's.
std::vector<KongPoint> kongRows(const KongAdvice& k);
std::size_t kongRecommendedRow(const KongAdvice& k);

// kongRowModels is each of kongRows as the advice measures it, on the clock (window_goals.h);
// consumer: keyed by the consumer, whose basic-auth answers a request without a user 401.
std::vector<WindowRowModel> kongRowModels(const KongAdvice& k, bool consumer);

// KongLimitBy is how the plugin is keyed by the log's key: its config lines (indented for the
// plugin's config), and whether it needs a plugin that identifies consumers (the log's user).
struct KongLimitBy {
    std::string lines;
    bool consumer = false;
};

// kongLimitBy: "ip" is limit_by ip, "user" limit_by consumer (the log's user, set by basic-auth),
// http_NAME limit_by header; nullopt for a key Kong cannot count by.
std::optional<KongLimitBy> kongLimitBy(const std::string& logKey);

// kongLimitsText is the limits as the plugin's config names them: "second 10, minute 120".
std::string kongLimitsText(const KongLimits& limits);

// kongAdviceConfig is the decK file `advise` writes: a placeholder service and a route for every
// path (Kong needs one to run a plugin), and the plugin, global, with basic-auth before it when
// it counts consumers. With letBy (a path), a route of its regex before it (a regex path is tried
// before a prefix), and the plugins on the route for every path only.
std::string kongAdviceConfig(const KongLimits& limits, const KongLimitBy& limitBy, const LetBy& letBy = {});

} // namespace ratelab
