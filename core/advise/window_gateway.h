// A gateway whose limit is a count in a window: Kong's rate-limiting, express-rate-limit,
// Cloudflare's rate limiting rule, AWS WAF's rate-based rule and @upstash/ratelimit. Their advice
// is no front of (rate, burst) but, for each window the product offers, the least limit at which
// every request of the kept keys passes (kong_advice.h, express_advice.h, managed_advice.h,
// upstash_advice.h derive each): this file gives those rows one shape, with any row's config, for
// the app's advice window (File > Advise a Limit from the Log) as `ratelab advise` reads them.
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "advise/window_goals.h"
#include "traffic/traffic_log.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// WindowGatewayTerms is what a window gateway's advice is asked for: the product (as `advise
// --for` names it), the log's key (--key), the share of keys kept (--keep, in kPercentUnit) and
// the pattern of the keys that must pass (--pass).
struct WindowGatewayTerms {
    std::string product = "kong";
    std::string key = "ip";
    std::int64_t keep = kPercentUnit / 100 * 99;
    std::string pass;
    std::vector<std::uint8_t> keptBy; // the keys kept in place of the percentile (KeyedTraces::keptBy)
    std::optional<OriginGoal> origin = {}; // `advise --origin`: chooses the row (window_goals.h)
    std::optional<WindowCap> cap = {};     // `advise --cap`: chooses the row too
    LetBy letBy = {};                      // `advise --pass-path`: Kong's only (letByProblem)
};

// isWindowGateway: the product is one of the five (kong, express, cloudflare, aws-waf, upstash).
bool isWindowGateway(std::string_view product);

// windowGatewayName is the product as a report names it: "Kong", "express-rate-limit",
// "Cloudflare", "AWS WAF", "@upstash/ratelimit".
std::string windowGatewayName(std::string_view product);

// capProblem says why `--cap` cannot be held to for the product ("" when it can): Traefik serves
// late and counts in floating point, AWS WAF lets a key's burst through until a check sees it.
std::string capProblem(std::string_view product);

// windowGatewayKeyProblem says why the gateway cannot be keyed by the log's key, as a refusal of
// --key ("" when it can): express-rate-limit's default keyGenerator and the managed rules count
// by IP; Kong offers ip, the consumer and a header; @upstash/ratelimit's identifier is the
// application's, any key.
std::string windowGatewayKeyProblem(const std::string& product, const std::string& key);

// kongUnkeyedProblem says why Kong cannot be advised by a header key when `unlimited` of the log's
// requests lack it ("" when it can): Kong counts those by their client IP, which the advice on
// the header's keys does not measure.
std::string kongUnkeyedProblem(const std::string& key, bool consumer, std::int64_t unlimited);

// WindowRow is one offered window with its least limit, in the product's terms, and what that
// limit denies: window "minute", limit "120"; `point` is the whole limit as the product is given
// it ("minute 120, second 10", "windowMs 60000, limit 12", "slidingWindow(12, \"10 s\")").
struct WindowRow {
    std::string window, limit, point;
    DenialCount denied;
    std::optional<std::int64_t> mostIn = {}; // with a cap: the most one key gets through in its window
    std::optional<std::int64_t> origin = {}; // with an origin goal: the most that reach the origin in its window
};

// WindowGatewayAdvice is the advice on a log: a row per offered window (Kong: the second, the
// minute, the hour and the day alone, then its recommendation, a minute with a second under it,
// where it differs from them), the recommended row, and any row's config in its dry-run form.
class WindowGatewayAdvice {
public:
    // It throws InputError for a key the gateway cannot be keyed by (windowGatewayKeyProblem,
    // kongUnkeyedProblem), a pass pattern RE2 refuses or that matches no limited key, when no
    // key is limited, for a cap it cannot meet (capProblem) and when no row meets
    // the goals (chooseWindow).
    WindowGatewayAdvice(const WindowGatewayTerms& terms, const Traffic& traffic);

    const std::string& product() const { return m_product; }
    const KeptKeys& keys() const { return m_keys; }
    const std::vector<WindowRow>& rows() const { return m_rows; }
    std::size_t recommended() const { return m_recommended; }
    bool movedByGoals() const { return m_movedByGoals; } // the cap or the origin goal chose the recommendation
    // windowName and limitName are the product's own words for a row's two values ("windowMs",
    // "limit"; "period", "requests_per_period").
    const std::string& windowName() const { return m_windowName; }
    const std::string& limitName() const { return m_limitName; }
    // config is a row's config as `advise --for PRODUCT` writes the recommendation's.
    const std::string& config(std::size_t row) const { return m_configs.at(row); }
    // shownKey is the log key whose requests show a row's limit at work: the one it denies most,
    // or, when it denies none, the busiest limited key.
    std::optional<std::size_t> shownKey(std::size_t row) const;

private:
    void fromKong(const WindowGatewayTerms& terms);
    void fromExpress(const WindowGatewayTerms& terms);
    void fromManaged(const WindowGatewayTerms& terms);
    void fromUpstash(const WindowGatewayTerms& terms);

    std::string m_product, m_windowName, m_limitName;
    KeyedTraces m_traces;
    KeptKeys m_keys;
    std::vector<WindowRow> m_rows;
    std::vector<std::string> m_configs;
    std::vector<WindowRowModel> m_models; // per row
    std::size_t m_recommended = 0;
    bool m_movedByGoals = false;
};

} // namespace ratelab
