#include "advise/kong_advice.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab {

std::int64_t kongWindowMost(KeyTrace trace, int period, Nanos clock)
{
    std::int64_t most = 0, count = 0, start = -1;
    for (std::size_t i = 0; i < trace.times.size(); ++i) {
        // Kong's clock is whole seconds (ngx.time()), as the model reads it.
        const std::int64_t window = Kong::periodStart(period, (clock + trace.times[i]) / kNanosPerSecond);
        if (window != start) {
            start = window;
            count = 0;
        }
        count += trace.cost(i);
        most = std::max(most, count);
    }
    return most;
}

LimiterConfig kongConfig(const KongLimits& limits)
{
    std::vector<ProductOption> options;
    for (int p = 0; p < Kong::kPeriods; ++p)
        if (limits[std::size_t(p)] != 0)
            options.push_back({std::string(Kong::periodName(p)), std::to_string(limits[std::size_t(p)])});
    return LimiterConfig{}.withProductOptions(std::move(options));
}

std::int64_t kongDenied(KeyTrace trace, const KongLimits& limits, Nanos clock)
{
    Kong kong(kongConfig(limits));
    return deniedOn(kong, trace, clock);
}

namespace {

// measure runs the limits on every limited key; perKey, when given, receives each key's denials.
KongPoint measure(const KeyedTraces& traces, const KeptKeys& keys, const KongLimits& limits, Nanos clock,
                  std::vector<std::int64_t>* perKey = nullptr)
{
    const DenialCount d =
        countDenials(traces, keys.kept, [&](KeyTrace trace) { return kongDenied(trace, limits, clock); }, perKey);
    return {limits, d};
}

} // namespace

KongAdvice adviseKong(const KeyedTraces& traces, std::int64_t keep)
{
    const Nanos clock = traces.clock;
    if (keep <= 0 || keep > kPercentUnit)
        throw InputError("advise: keep must be in (0, 100] %");
    KongAdvice out;
    keepKeys(traces, keep, out.keys);
    KongLimits least{};
    for (std::size_t k = 0; k < traces.keys(); ++k)
        if (out.keys.kept[k])
            for (int p = 0; p < kKongShownPeriods; ++p)
                least[std::size_t(p)] = std::max(least[std::size_t(p)], kongWindowMost(traces.trace(k), p, clock));
    for (int p = 0; p < kKongShownPeriods; ++p) {
        KongLimits alone{};
        alone[std::size_t(p)] = least[std::size_t(p)];
        out.windows.push_back(measure(traces, out.keys, alone, clock));
    }
    KongLimits recommended{};
    recommended[1] = least[1];
    if (least[0] < least[1])
        recommended[0] = least[0];
    out.recommended = measure(traces, out.keys, recommended, clock, &out.deniedPerKey);
    return out;
}

std::vector<KongPoint> kongRows(const KongAdvice& k)
{
    std::vector<KongPoint> out = k.windows;
    if (std::none_of(out.begin(), out.end(), [&](const KongPoint& w) { return w.limits == k.recommended.limits; }))
        out.push_back(k.recommended);
    return out;
}

std::size_t kongRecommendedRow(const KongAdvice& k)
{
    const std::vector<KongPoint> rows = kongRows(k);
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (rows[r].limits == k.recommended.limits)
            return r;
    throw std::logic_error("kongRecommendedRow: the recommendation is no row");
}

std::vector<WindowRowModel> kongRowModels(const KongAdvice& k, bool consumer)
{
    std::vector<WindowRowModel> out;
    for (const KongPoint& row : kongRows(k)) {
        const KongLimits limits = row.limits;
        // Each configured period lets its limit through in each of its windows of the clock.
        std::vector<std::pair<Nanos, std::int64_t>> counts;
        for (int p = 0; p < kKongShownPeriods; ++p)
            if (limits[std::size_t(p)] != 0)
                counts.emplace_back(Kong::periodNanos(p), limits[std::size_t(p)]);
        out.push_back(windowRowModel([=] { return Kong(kongConfig(limits)); }, true, std::move(counts)));
        out.back().unlimitedReach = !consumer;
    }
    return out;
}

std::optional<KongLimitBy> kongLimitBy(const std::string& logKey)
{
    if (logKey == "ip")
        return KongLimitBy{"    limit_by: ip\n"};
    if (logKey == "user")
        return KongLimitBy{"    limit_by: consumer\n", true};
    if (const std::optional<std::string> header = headerOfField(logKey))
        return KongLimitBy{"    limit_by: header\n    header_name: " + *header + "\n"};
    return std::nullopt;
}

std::string kongLimitsText(const KongLimits& limits)
{
    std::string out;
    for (int p = 0; p < Kong::kPeriods; ++p)
        if (limits[std::size_t(p)] != 0)
            out += (out.empty() ? "" : ", ") + std::string(Kong::periodName(p)) + " " + grouping(limits[std::size_t(p)]);
    return out;
}

std::string kongAdviceConfig(const KongLimits& limits, const KongLimitBy& limitBy, const LetBy& letBy)
{
    // A regex path begins "~/" in Kong 3 (schema: typedefs.router_path); "/{0}" matches nothing,
    // so that the regex is letBy's, anchored at the path's start by Kong and at its end by '$'.
    const std::string letByRoute = !letBy.any() ? ""
                                                : "  - name: ratelab-let-by\n"
                                                  "    paths:\n"
                                                  "    - " + yamlQuoted("~/{0}" + letBy.written().substr(1)) + "\n";
    const std::string scope = letBy.any() ? "  route: ratelab-every-path\n" : "";
    std::string out = "_format_version: \"3.0\"\n"
                      "services:\n"
                      "- name: ratelab-upstream\n"
                      "  url: http://upstream.invalid\n"
                      "  routes:\n" + letByRoute +
                      "  - name: ratelab-every-path\n"
                      "    paths:\n"
                      "    - /\n"
                      "plugins:\n";
    if (limitBy.consumer)
        out += "- name: basic-auth\n" + scope;
    out += "- name: rate-limiting\n" + scope +
           "  config:\n";
    for (int p = 0; p < Kong::kPeriods; ++p)
        if (limits[std::size_t(p)] != 0)
            out += "    " + std::string(Kong::periodName(p)) + ": " + std::to_string(limits[std::size_t(p)]) + "\n";
    return out + "    policy: local\n" + limitBy.lines;
}

} // namespace ratelab
