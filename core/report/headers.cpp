#include "report/headers.h"

#include "engine/decide.h"

#include "limiters/limiters.h"
#include "report/report_run.h"

namespace ratelab {

namespace {

std::string wholeSecondsUp(Int128 nanos) { return std::to_string(static_cast<long long>(ceilDiv(nanos, kNanosPerSecond))); }

} // namespace

std::int64_t quotaOf(Algorithm a, const LimiterConfig& config)
{
    if (isWindowAlgorithm(a))
        return config.limit();
    if (a == Algorithm::NginxLimitReq)
        return config.nginxBurst() + 1;
    if (isProduct(a))
        return visitLimiter(a, config, [](const auto& l) { return l.quota(); });
    return config.capacity();
}

std::int64_t policyWindowSeconds(Algorithm a, const LimiterConfig& config)
{
    if (isWindowAlgorithm(a))
        return static_cast<std::int64_t>(ceilDiv(config.windowNanos(), kNanosPerSecond));
    // quota / r seconds = quota * perNanos / (tokens * 1e9), rounded up.
    const Rate r = config.rate();
    return static_cast<std::int64_t>(ceilDiv(r.unitsFromTokens(quotaOf(a, config)), Int128(r.tokens) * kNanosPerSecond));
}

std::vector<Header> responseHeaders(Nanos t, const Decision& d, std::span<const LayerResponse> layers, std::size_t top)
{
    const LayerResponse& shown = layers[top];
    std::vector<Header> h;
    h.push_back({"X-RateLimit-Limit", std::to_string(quotaOf(shown.algorithm, shown.config))});
    h.push_back({"X-RateLimit-Remaining", std::to_string(d.remaining)});
    h.push_back({"X-RateLimit-Reset", wholeSecondsUp(Int128(t) + shown.reset)});
    if (!d.allowed && !d.retryNever()) {
        const Int128 seconds = ceilDiv(d.retryAfter, kNanosPerSecond);
        h.push_back({"Retry-After", std::to_string(static_cast<long long>(seconds < 1 ? 1 : seconds))});
    }
    std::string policy, state;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const LayerResponse& r = layers[l];
        const std::string id = "\"" + std::string(algorithmId(r.algorithm)) + "\"";
        policy += (l ? ", " : "") + id + ";q=" + std::to_string(quotaOf(r.algorithm, r.config))
                  + ";w=" + std::to_string(policyWindowSeconds(r.algorithm, r.config));
        state += (l ? ", " : "") + id + ";r=" + std::to_string(r.remaining) + ";t=" + wholeSecondsUp(r.reset);
    }
    h.push_back({"RateLimit-Policy", policy});
    h.push_back({"RateLimit", state});
    return h;
}

std::vector<Header> responseHeaders(Algorithm a, const LimiterConfig& config, Nanos t, const Decision& d, Nanos reset)
{
    const LayerResponse one{a, config, d.remaining, reset};
    return responseHeaders(t, d, std::span(&one, 1), 0);
}

std::vector<Nanos> resetsOf(const Trace& trace, std::size_t row)
{
    const AlgorithmTrace& result = trace.results.at(row);
    return visitLimiter(result.algorithm, trace.config, [&](auto& limiter) {
        std::vector<Nanos> out;
        out.reserve(trace.arrivals.size());
        for (std::size_t i = 0; i < trace.arrivals.size(); ++i) {
            limiter.decide(trace.arrivals[i], costOf(trace, i));
            out.push_back(resetOf(limiter, trace.arrivals[i]));
        }
        return out;
    });
}

std::vector<Header> headersAt(const Trace& trace, std::size_t row, std::size_t i)
{
    const AlgorithmTrace& result = trace.results.at(row);
    if (result.engine) // the engine kept what the response of the state that decided says
        return engineHeaders(result.engine->setup, result.engine->run, i);
    if (!result.kind.oneLimiter())
        return {};
    return visitLimiter(result.algorithm, trace.config, [&](auto& limiter) {
        for (std::size_t j = detail::restoreCheckpoint(limiter, result, i); j < i; ++j)
            limiter.decide(trace.arrivals[j], costOf(trace, j));
        const Nanos t = trace.arrivals.at(i);
        const Decision d = limiter.decide(t, costOf(trace, i));
        return responseHeaders(result.algorithm, trace.config, t, d, resetOf(limiter, t));
    });
}

std::string httpResponse(const Decision& d, const std::vector<Header>& headers)
{
    std::string out = d.allowed ? "HTTP/1.1 200 OK" : "HTTP/1.1 429 Too Many Requests";
    for (const Header& h : headers)
        out += "\n" + h.name + ": " + h.value;
    return out;
}

} // namespace ratelab
