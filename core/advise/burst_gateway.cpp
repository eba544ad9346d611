#include "advise/burst_gateway.h"

#include "advise/aws_api_gateway_advice.h"
#include "advise/envoy_advice.h"
#include "advise/nginx_advice.h"
#include "advise/spring_advice.h"
#include "advise/traefik_advice.h"
#include "arithmetic/decimal.h"
#include "replay/log_keys.h"

#include <algorithm>

namespace ratelab {

namespace {

// zoneKeyBytes is the longest key an nginx zone holds: $binary_remote_addr is an address's 4 or
// 16 bytes, any other variable its value, as the log has it.
std::size_t zoneKeyBytes(const Traffic& traffic, const std::string& key)
{
    if (key == "ip")
        return 16;
    std::size_t most = 0;
    for (const std::string& name : traffic.keyNames)
        if (!keylessName(name))
            most = std::max(most, name.size());
    return most;
}

std::unique_ptr<BurstFamily> familyOf(const BurstGatewayTerms& t)
{
    if (t.product == "envoy")
        return std::make_unique<EnvoyBurstFamily>(t.fill);
    if (t.product == "traefik")
        return std::make_unique<TraefikBurstFamily>();
    if (t.product == "spring")
        return std::make_unique<SpringBurstFamily>();
    if (t.product == "aws-api-gateway")
        return std::make_unique<AwsApiGatewayBurstFamily>();
    return std::make_unique<NginxBurstFamily>();
}

} // namespace

bool isBurstGateway(std::string_view product)
{
    return product == "nginx" || product == "envoy" || product == "traefik" || product == "spring"
           || product == "aws-api-gateway";
}

std::string burstGatewayKeyProblem(const std::string& product, const std::string& key)
{
    if (product == "traefik" && !traefikSourceCriterion(key))
        return "Traefik's rateLimit has no sourceCriterion for " + ratelab::quoted(key) + " (it offers: ip, host, http_NAME)";
    if (product == "spring" && !springKeyResolver(key))
        return "RateLab writes no Spring KeyResolver for " + ratelab::quoted(key) + " (it writes: ip, host, user, http_NAME)";
    if (product == "nginx" && nginxKeyVariable(key).empty())
        return "nginx has no variable named " + ratelab::quoted(key) + " for every request to key a zone by (it offers: "
               + nginxKeysOffered() + ")";
    return {};
}

BurstGatewayAdvice::BurstGatewayAdvice(const BurstGatewayTerms& terms, const Traffic& traffic)
    : m_terms(terms)
    , m_family(familyOf(terms))
{
    if (!isBurstGateway(terms.product))
        throw InputError("advise: " + ratelab::quoted(terms.product) + " is no gateway of a rate and a burst");
    if (const std::string problem = burstGatewayKeyProblem(terms.product, terms.key); !problem.empty())
        throw InputError("--key: " + problem);
    if (terms.product == "traefik")
        m_keyed = *traefikSourceCriterion(terms.key);
    else if (terms.product == "spring")
        m_keyed = *springKeyResolver(terms.key);
    else if (terms.product == "nginx")
        m_keyed = nginxKeyVariable(terms.key);
    if (shared())
        m_terms.options.keep = kPercentUnit; // one bucket for every request: all of them are the goal
    if (shared() && !terms.pass.empty())
        throw InputError("--pass: Envoy's local_ratelimit keeps one token bucket for every request, not one per key: "
                         "every request is kept");
    LetBy letBy = terms.letBy;
    letBy.product = terms.product;
    if (const std::string problem = letByProblem(letBy); letBy.any() && !problem.empty())
        throw InputError(letBy.option() + ": " + problem);
    m_letBy = letByOf(traffic, letBy);
    m_traces = shared() ? sharedTraces(traffic, m_letBy) : keyedTraces(traffic, terms.pass, m_letBy);
    if (!shared())
        m_traces.keptBy = terms.keptBy;
    m_advice = advise(m_traces, *m_family, m_terms.options);
    if (terms.product == "nginx")
        m_zoneMegabytes = nginxZoneMegabytes(m_advice.limitedKeys, zoneKeyBytes(traffic, terms.key));
}

BurstGatewayAdvice::BurstGatewayAdvice(BurstGatewayAdvice&&) noexcept = default;
BurstGatewayAdvice& BurstGatewayAdvice::operator=(BurstGatewayAdvice&&) noexcept = default;
BurstGatewayAdvice::~BurstGatewayAdvice() = default;

std::string BurstGatewayAdvice::config(const AdvicePoint& p) const
{
    const std::string& product = m_terms.product;
    if (product == "envoy")
        return envoyAdviceConfig(static_cast<const EnvoyBurstFamily&>(*m_family), p.step, p.burst, m_terms.letBy);
    if (product == "traefik")
        return traefikAdviceConfig(p.step, p.burst, m_keyed, m_terms.letBy);
    if (product == "spring")
        return springAdviceConfig(p.step, p.burst, m_keyed);
    if (product == "aws-api-gateway")
        return awsUsagePlanJson(static_cast<const AwsApiGatewayBurstFamily&>(*m_family), p.step, p.burst);
    return nginxAdviceConfig(static_cast<const NginxBurstFamily&>(*m_family), p.step, p.burst, m_keyed, m_zoneMegabytes,
                             m_terms.letBy);
}

std::vector<std::int64_t> BurstGatewayAdvice::deniedPerLogKey(const Traffic& traffic) const
{
    if (!shared())
        return m_advice.deniedPerKey;
    const AdvicePoint& r = m_advice.recommended;
    return envoySharedDenials(traffic, static_cast<const EnvoyBurstFamily&>(*m_family), r.step, r.burst, m_letBy);
}

std::optional<std::size_t> BurstGatewayAdvice::shownKey(const AdvicePoint& point) const
{
    if (shared())
        return std::nullopt;
    return ratelab::shownKey(m_traces, point.denied);
}

} // namespace ratelab
