#include "advise/managed_advice.h"

#include "arithmetic/decimal.h"
#include "limiters/config.h"
#include "limiters/products/cloudflare.h"

#include <algorithm>
#include <functional>

namespace ratelab {

namespace {

LimiterConfig cloudflareConfig(std::int64_t period, std::int64_t limit)
{
    return LimiterConfig{}.withProductOptions({{"period", std::to_string(period)},
                                               {"requests_per_period", std::to_string(limit)},
                                               {"mitigation_timeout", std::to_string(period)}});
}

// adviseWindows keeps the keys and, per offered window, takes the kept keys' most need, makes it a
// limit the product takes, and measures that limit on every limited key.
WindowAdvice adviseWindows(const KeyedTraces& traces, std::int64_t keep, std::span<const std::int64_t> windows,
                           std::size_t recommended, const std::function<std::int64_t(KeyTrace, std::int64_t)>& need,
                           const std::function<std::int64_t(std::int64_t)>& limitOf,
                           const std::function<std::int64_t(KeyTrace, std::int64_t, std::int64_t)>& denied)
{
    if (keep <= 0 || keep > kPercentUnit)
        throw InputError("advise: keep must be in (0, 100] %");
    WindowAdvice out;
    out.recommendedIndex = recommended;
    keepKeys(traces, keep, out.keys);
    for (std::size_t w = 0; w < windows.size(); ++w) {
        WindowPoint p;
        p.window = windows[w];
        for (std::size_t k = 0; k < traces.keys(); ++k)
            if (out.keys.kept[k])
                p.least = std::max(p.least, need(traces.trace(k), p.window));
        p.limit = limitOf(p.least);
        p.denied = countDenials(
            traces, out.keys.kept, [&](KeyTrace trace) { return denied(trace, p.window, p.limit); },
            w == recommended ? &out.deniedPerKey : nullptr);
        out.windows.push_back(p);
    }
    return out;
}

} // namespace

std::int64_t cloudflareLeast(KeyTrace trace, std::int64_t period)
{
    const Nanos p = period * kNanosPerSecond;
    std::int64_t most = 1, window = -1, cur = 0, prev = 0;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        const Nanos t = trace.clock + trace.times[i]; // the clock's periods (floor(now / period))
        if (t / p != window) { // the counts roll as the model's do: the last period, or none
            prev = t / p == window + 1 ? cur : 0;
            cur = 0;
            window = t / p;
        }
        const Nanos e = t - window * p;
        const auto need = Int128(cur + trace.cost(i)) + ceilDiv(Int128(prev) * (p - e), p);
        if (need > LimiterConfig::kMaxLimit)
            throw InputError("advise: a key needs more than " + grouping(LimiterConfig::kMaxLimit)
                             + " requests per period, more than RateLab's Cloudflare model holds");
        most = std::max(most, std::int64_t(need));
        cur += trace.cost(i);
    }
    return most;
}

std::int64_t cloudflareDenied(KeyTrace trace, std::int64_t period, std::int64_t limit)
{
    CloudflareRate rule(cloudflareConfig(period, limit));
    return deniedOn(rule, trace, trace.clock);
}

std::vector<WindowRowModel> managedRowModels(const WindowAdvice& w, bool cloudflare)
{
    std::vector<WindowRowModel> out;
    for (const WindowPoint& p : w.windows)
        if (cloudflare) // at most `limit` pass in each period of the clock (the previous period's weight only adds)
            out.push_back(windowRowModel([p] { return CloudflareRate(cloudflareConfig(p.window, p.limit)); }, true,
                                         {{p.window * kNanosPerSecond, p.limit}}));
        else // a burst passes until a check sees it: no count bounds it
            out.push_back(windowRowModel([p] { return wafRule(p.window, p.limit); }, true, {}));
    return out;
}

WindowAdvice adviseCloudflare(const KeyedTraces& traces, std::int64_t keep)
{
    return adviseWindows(traces, keep, kCloudflarePeriods, kCloudflareRecommended, cloudflareLeast,
                         [](std::int64_t least) { return least; }, cloudflareDenied);
}

std::string cloudflareAdviceConfig(std::int64_t period, std::int64_t limit)
{
    const std::string p = std::to_string(period), l = std::to_string(limit);
    return "{\n"
           "  \"rules\": [\n"
           "    {\n"
           "      \"description\": \"ratelab: " + l + " requests per " + p + " s per IP\",\n"
           "      \"expression\": \"true\",\n"
           "      \"action\": \"block\",\n"
           "      \"ratelimit\": {\n"
           "        \"characteristics\": [\"cf.colo.id\", \"ip.src\"],\n"
           "        \"period\": " + p + ",\n"
           "        \"requests_per_period\": " + l + ",\n"
           "        \"mitigation_timeout\": " + p + "\n"
           "      }\n"
           "    }\n"
           "  ]\n"
           "}\n";
}

AwsWafRate wafRule(std::int64_t windowSec, std::int64_t limit)
{
    return AwsWafRate(LimiterConfig{}.withProductOptions(
        {{"Limit", std::to_string(limit)}, {"EvaluationWindowSec", std::to_string(windowSec)}}));
}

std::int64_t wafMostCount(KeyTrace trace, std::int64_t windowSec)
{
    const AwsWafRate model = wafRule(windowSec, kWafMinLimit);
    const Nanos check = model.checkInterval(), delay = model.detectionDelay(), window = model.window();
    const std::size_t n = trace.times.size();
    const auto time = [&](std::size_t i) { return trace.clock + trace.times[i]; }; // checks on the clock
    std::int64_t most = 0, count = 0;
    std::size_t from = 0, to = 0; // the requests [from, to) are the check's: in [T - window, T)
    for (std::size_t i = 0; i < n; ++i) {
        if (time(i) - delay < check)
            continue; // no check in force yet
        const Nanos at = (time(i) - delay) / check * check;
        for (; to < n && time(to) < at; ++to)
            count += trace.cost(to);
        for (; from < to && time(from) < at - window; ++from)
            count -= trace.cost(from);
        most = std::max(most, count);
    }
    return most;
}

std::int64_t wafDenied(KeyTrace trace, std::int64_t windowSec, std::int64_t limit)
{
    AwsWafRate rule = wafRule(windowSec, limit);
    return deniedOn(rule, trace, trace.clock);
}

WindowAdvice adviseAwsWaf(const KeyedTraces& traces, std::int64_t keep)
{
    return adviseWindows(traces, keep, kWafWindows, kWafRecommended, wafMostCount,
                         [](std::int64_t least) { return std::max(least, kWafMinLimit); }, wafDenied);
}

std::string wafAdviceConfig(std::int64_t windowSec, std::int64_t limit)
{
    return "{\n"
           "  \"Name\": \"ratelab-rate-limit\",\n"
           "  \"Priority\": 0,\n"
           "  \"Statement\": {\n"
           "    \"RateBasedStatement\": {\n"
           "      \"Limit\": " + std::to_string(limit) + ",\n"
           "      \"EvaluationWindowSec\": " + std::to_string(windowSec) + ",\n"
           "      \"AggregateKeyType\": \"IP\"\n"
           "    }\n"
           "  },\n"
           "  \"Action\": {\n"
           "    \"Block\": {}\n"
           "  },\n"
           "  \"VisibilityConfig\": {\n"
           "    \"SampledRequestsEnabled\": true,\n"
           "    \"CloudWatchMetricsEnabled\": true,\n"
           "    \"MetricName\": \"ratelab-rate-limit\"\n"
           "  }\n"
           "}\n";
}

} // namespace ratelab
