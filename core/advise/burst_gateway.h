// A gateway whose limiter is a rate and a burst: nginx, Envoy, Traefik, Spring Cloud Gateway and
// Amazon API Gateway. For each: the family its advice searches, how its key is written, and the
// config it runs for any point of the front. `ratelab advise` writes the recommendation's config;
// the app's advice window (File > Advise a Limit from the Log) that of whichever point is chosen.
#pragma once

#include "advise/advise.h"
#include "advise/let_by.h"
#include "arithmetic/nanos.h"
#include "traffic/traffic_log.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// BurstGatewayTerms is what a burst gateway's advice is asked for: the product (as `advise --for`
// names it), the log's key (--key), the goal (with --pass's pattern of the keys that must pass),
// and Envoy's fill_interval.
struct BurstGatewayTerms {
    std::string product = "nginx";
    std::string key = "ip";
    AdviceOptions options;
    Nanos fill = kNanosPerSecond;
    std::string pass;
    LetBy letBy; // the requests the config lets by uncounted: nginx (a map emptying the key), Traefik, Kong, Envoy (a route)
    std::vector<std::uint8_t> keptBy; // the keys kept in place of options.keep's percentile (KeyedTraces::keptBy)
};

// isBurstGateway: the product is one of the five (nginx, envoy, traefik, spring, aws-api-gateway).
bool isBurstGateway(std::string_view product);

// burstGatewayKeyProblem says why the gateway cannot be keyed by the log's key, as a refusal of
// --key ("" when it can). Envoy's filter keeps one bucket and API Gateway's key is the API key
// field given: any key does for both.
std::string burstGatewayKeyProblem(const std::string& product, const std::string& key);

// BurstGatewayAdvice is the advice on a log and what it takes to write any point's config.
class BurstGatewayAdvice {
public:
    // The advice on the log: the front, the recommendation and its cost. It throws InputError for a
    // key the gateway cannot be keyed by (burstGatewayKeyProblem), and when no key is limited.
    BurstGatewayAdvice(const BurstGatewayTerms& terms, const Traffic& traffic);
    BurstGatewayAdvice(BurstGatewayAdvice&&) noexcept;
    BurstGatewayAdvice& operator=(BurstGatewayAdvice&&) noexcept;
    ~BurstGatewayAdvice();

    const BurstFamily& family() const { return *m_family; }
    const KeyedTraces& traces() const { return m_traces; } // Envoy's: the log as one trace
    const Advice& advice() const { return m_advice; }
    // shared: one bucket for every request (Envoy's filter), not one per key.
    bool shared() const { return m_terms.product == "envoy"; }

    // config is the product's config for a point, in its dry-run form (burstGatewayConfig's).
    std::string config(const AdvicePoint& point) const;
    // deniedPerLogKey is each log key's denials at the recommendation: what the dry run of its
    // config must report key by key.
    std::vector<std::int64_t> deniedPerLogKey(const Traffic& traffic) const;
    // shownKey is the log key whose requests show a point's limit at work: the one it denies most
    // (DenialCount::mostDenied), or, when it denies none, the busiest limited key. None for one
    // bucket of every request (Envoy's): the whole log shows it.
    std::optional<std::size_t> shownKey(const AdvicePoint& point) const;

private:
    BurstGatewayTerms m_terms;
    std::unique_ptr<BurstFamily> m_family;
    KeyedTraces m_traces;
    std::vector<std::uint8_t> m_letBy; // letByOf the log: the requests the config lets by, those no route takes
    Advice m_advice;
    std::string m_keyed;                // nginx's variable, Traefik's sourceCriterion, Spring's KeyResolver
    std::int64_t m_zoneMegabytes = 1;   // nginx's zone
};

} // namespace ratelab
