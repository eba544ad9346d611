#include "advise/envoy_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/products/envoy_local.h"

#include <algorithm>
#include <limits>

namespace ratelab {

std::vector<std::int64_t> EnvoyBurstFamily::roundSteps() const
{
    std::vector<std::int64_t> out;
    for (std::int64_t decade = 1; decade <= m_top; decade *= 10)
        for (std::int64_t m : {1, 2, 5})
            if (decade * m <= m_top)
                out.push_back(decade * m);
    return out;
}

std::string EnvoyBurstFamily::rateText(std::int64_t step) const
{
    return grouping(step) + " per " + formatSeconds(m_fill) + "s";
}

std::optional<std::int64_t> EnvoyBurstFamily::mostIn(std::int64_t step, std::int64_t burst, Nanos window) const
{
    const Int128 fires = ceilDiv(Int128(window) - 1, m_fill);
    const Int128 most = Int128(burst) + Int128(std::min(step, burst)) * fires;
    return most > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max() : std::int64_t(most);
}

LimiterConfig EnvoyBurstFamily::config(std::int64_t step, std::int64_t burst) const
{
    return LimiterConfig{}.withProductOptions({{"max_tokens", std::to_string(burst)},
                                               {"tokens_per_fill", std::to_string(step)},
                                               {"fill_interval", formatSeconds(m_fill) + "s"}});
}

std::int64_t EnvoyBurstFamily::burstNeeded(KeyTrace trace, std::int64_t step) const
{
    // The deficit after each request (envoy_advice.h); fires are due at k * fill from t = 0, as
    // EnvoyLocal has them, one due at t before a request at t.
    std::int64_t deficit = 0, most = 0, fires = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        const std::int64_t due = trace.times[i] / m_fill - fires;
        fires += due;
        if (due > 0)
            deficit = Int128(due) * step >= deficit ? 0 : deficit - due * step;
        deficit += trace.cost(i);
        most = std::max(most, deficit);
        if (most + step > kMaxTokens)
            throw InputError("advise: the log needs more than " + grouping(kMaxTokens - step) + " max_tokens at "
                             + rateText(step) + ", more than Envoy's uint32 holds");
    }
    return std::max<std::int64_t>(most, 1);
}

std::int64_t EnvoyBurstFamily::denied(KeyTrace trace, std::int64_t step, std::int64_t burst) const
{
    EnvoyLocal envoy(config(step, burst));
    return deniedOn(envoy, trace);
}

void EnvoyBurstFamily::passed(KeyTrace trace, std::int64_t step, std::int64_t burst, std::vector<Nanos>& out) const
{
    EnvoyLocal envoy(config(step, burst));
    passedOn(envoy, trace, out);
}

std::string envoyFillProblem(Nanos fillInterval)
{
    try { // EnvoyLocal holds the rule: the interval Envoy's own check refuses, it refuses
        [[maybe_unused]] const EnvoyLocal check(EnvoyBurstFamily(fillInterval, 1).config(1, 1));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

KeyedTraces sharedTraces(const Traffic& traffic, const std::vector<std::uint8_t>& letBy)
{
    if (letBy.empty()) {
        KeyedTraces out;
        out.start = {0, traffic.times.size()};
        out.times = traffic.times;
        out.costs = traffic.costs;
        out.limited = {1};
        out.clock = traffic.startEpochNanos;
        return out;
    }
    // One key: keyedTraces' grouping, with every request's key the same.
    Traffic one;
    one.times = traffic.times;
    one.costs = traffic.costs;
    one.keys.assign(traffic.times.size(), 0);
    one.keyNames = {"*"};
    one.startEpochNanos = traffic.startEpochNanos;
    KeyedTraces out = keyedTraces(one, {}, letBy);
    // who sends most of those let by: the log's keys, not the one bucket's
    std::vector<std::int64_t> perKey(traffic.keyNames.size(), 0);
    for (std::size_t i = 0; i < letBy.size(); ++i)
        perKey[traffic.keys[i]] += letBy[i] == 1;
    const auto most = std::max_element(perKey.begin(), perKey.end());
    out.letByMostKey = std::size_t(most - perKey.begin());
    out.letByMostRequests = *most;
    out.limited = {1};
    return out;
}

std::vector<std::int64_t> envoySharedDenials(const Traffic& traffic, const EnvoyBurstFamily& family, std::int64_t step,
                                             std::int64_t burst, const std::vector<std::uint8_t>& letBy)
{
    EnvoyLocal envoy(family.config(step, burst));
    std::vector<std::int64_t> out(traffic.keyNames.size(), 0);
    for (std::size_t i = 0; i < traffic.times.size(); ++i)
        if (letBy.empty() || letBy[i] == 0)
            out[traffic.keys[i]] += !envoy.decide(traffic.times[i], traffic.costs.empty() ? 1 : traffic.costs[i]).allowed;
    return out;
}

std::string envoyAdviceConfig(const EnvoyBurstFamily& family, std::int64_t step, std::int64_t burst, const LetBy& letBy)
{
    // A RuntimeFractionalPercent: its runtime key lets an operator turn enforcement on live.
    const auto percent = [](const std::string& field, const std::string& runtimeKey, int n) {
        return "    " + field + ":\n      runtime_key: " + runtimeKey + "\n      default_value:\n        numerator: "
               + std::to_string(n) + "\n        denominator: HUNDRED\n";
    };
    const std::string entry = "- name: envoy.filters.http.local_ratelimit\n"
           "  typed_config:\n"
           "    \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
           "    stat_prefix: ratelab\n"
           "    token_bucket:\n"
           "      max_tokens: " + std::to_string(burst) + "\n"
           "      tokens_per_fill: " + std::to_string(step) + "\n"
           "      fill_interval: " + formatSeconds(family.fillInterval()) + "s\n"
           + percent("filter_enabled", "local_rate_limit_enabled", 100)
           + percent("filter_enforced", "local_rate_limit_enforced", 0);
    if (!letBy.any())
        return entry;
    return "http_filters:\n" + entry
           + "- name: envoy.filters.http.router\n"
             "  typed_config:\n"
             "    \"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router\n"
             "route_config:\n"
             "  name: ratelab\n"
             "  virtual_hosts:\n"
             "  - name: ratelab\n"
             "    domains: [\"*\"]\n"
             "    routes:\n"
             "    - name: ratelab-let-by\n"
             "      match:\n"
             "        safe_regex:\n"
             "          regex: " + yamlQuoted(letBy.written()) + "\n"
             "      route:\n"
             "        cluster: ratelab-upstream\n"
             "      typed_per_filter_config:\n"
             "        envoy.filters.http.local_ratelimit:\n"
             "          \"@type\": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n"
             "          stat_prefix: ratelab_let_by\n"
             "          token_bucket:\n"
             "            max_tokens: 1\n"
             "            fill_interval: 1s\n"
             "    - name: ratelab-limited\n"
             "      match:\n"
             "        prefix: /\n"
             "      route:\n"
             "        cluster: ratelab-upstream\n";
}

} // namespace ratelab
