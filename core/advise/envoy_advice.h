// Envoy's local_ratelimit as a BurstFamily (advise.h), with its decisions EnvoyLocal's
// (limiters/products/envoy_local.h: the timer refill that model follows).
//
// One bucket for all: that local_ratelimit keeps one token bucket for every request the filter
// sees (its descriptors match fixed values only), so it caps what reaches the origin through one
// Envoy, not a key. Its advice is made on the log as one trace (sharedTraces), every request in
// it.
//
// The ladder: tokens_per_fill N = 1, 2, ... at one fill_interval (the family's, whole ms, at least
// 50 ms). Only the per-fill count may vary: at the same interval the fires come at the same times
// and a larger N takes at least as much off the deficit at each, whereas two intervals put their
// fires at different times, and a shorter interval at a higher rate can need the larger bucket (a
// fire at 1000 ms refills a bucket emptied at 999 ms; fires every 999 ms do not before 1998 ms).
//
// The least max_tokens at N, one pass: with d = max_tokens - tokens (the deficit), a fire makes
// d = max(0, d - N) (tokens = min(max_tokens, tokens + N)) and a request of cost c finding
// tokens >= c makes d = d + c, admitted iff the new d <= max_tokens. With every request admitted
// d does not depend on max_tokens, so the least that admits them all is the most d reaches
// (at least 1: Envoy refuses max_tokens 0); d after each fire is non-increasing in N.
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "limiters/config.h"

namespace ratelab {

class EnvoyBurstFamily final : public BurstFamily {
public:
    // kMaxTokens: Envoy keeps tokens in a uint32 and refuses a max_tokens + tokens_per_fill that
    // wraps (EnvoyLocal's check), so the ladder and the burst share 2^32 - 1.
    static constexpr std::int64_t kMaxTokens = 4'294'967'295;

    explicit EnvoyBurstFamily(Nanos fillInterval = kNanosPerSecond, std::int64_t topPerFill = LimiterConfig::kMaxLimit)
        : m_fill(fillInterval), m_top(topPerFill)
    {
    }

    std::string product() const override { return "Envoy"; }
    std::int64_t maxStep() const override { return m_top; }
    std::vector<std::int64_t> roundSteps() const override;
    Rate rate(std::int64_t step) const override { return Rate::reduced(step, m_fill); }
    std::string rateText(std::int64_t step) const override;
    std::int64_t burstNeeded(KeyTrace trace, std::int64_t step) const override;
    std::int64_t denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const override;
    void passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const override;
    // mostIn: max_tokens at the window's first instant, then min(tokens_per_fill, max_tokens) at
    // each fire inside it, of which an instants' span of T - 1 ns meets at most ceil((T - 1) / F)
    // (every count up to it, as the window falls): reached by spending every token at once.
    std::optional<std::int64_t> mostIn(std::int64_t step, std::int64_t burst, Nanos window) const override;

    Nanos fillInterval() const { return m_fill; }
    // config is the bucket as the written YAML gives it: max_tokens burst, tokens_per_fill step.
    LimiterConfig config(std::int64_t step, std::int64_t burst) const;

private:
    Nanos m_fill;
    std::int64_t m_top;
};

// envoyFillProblem says why a fill_interval cannot be written ("" when it can), as EnvoyLocal
// refuses it: Envoy reads it in whole milliseconds (PROTOBUF_GET_MS_REQUIRED) and refuses less
// than 50 ms.
std::string envoyFillProblem(Nanos fillInterval);

// sharedTraces is the log as one key holding every request (empty keys' too: the bucket counts
// every request the filter sees), in time order, but those letBy marks (letByOf): a route
// without the limit lets them by.
KeyedTraces sharedTraces(const Traffic& traffic, const std::vector<std::uint8_t>& letBy = {});

// envoySharedDenials runs the bucket over the log in time order (but the requests letBy marks)
// and returns each log key's denials: what a dry run of the written config reports per key.
std::vector<std::int64_t> envoySharedDenials(const Traffic& traffic, const EnvoyBurstFamily& family, std::int64_t step,
                                             std::int64_t burst, const std::vector<std::uint8_t>& letBy = {});

// envoyAdviceConfig is the http_filters entry `advise` writes for (step, burst): the
// local_ratelimit filter enabled for every request (filter_enabled 100%) and enforced on none
// (filter_enforced 0%), Envoy's dry run: it counts what it would deny in
// <stat_prefix>.http_local_rate_limit.rate_limited and lets every request through.
// With letBy (a path), the connection manager's http_filters (the entry, then the router) and a
// route_config of two routes: one of the regex (safe_regex, RE2 on the path without its query
// string) whose own local_ratelimit (which replaces the filter's whole) leaves filter_enabled at
// its default, 0%, and so neither counts nor limits (Envoy wants a token_bucket in a per-route
// config all the same), then one for every path, which the filter's limits.
std::string envoyAdviceConfig(const EnvoyBurstFamily& family, std::int64_t step, std::int64_t burst,
                              const LetBy& letBy = {});

} // namespace ratelab
