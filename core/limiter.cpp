#include "limiter.h"

#include "limiters.h"

namespace ratelab {

namespace {

struct Names {
    std::string_view id, title, unit;
};

constexpr Names names(Algorithm a)
{
    switch (a) {
    case Algorithm::FixedWindow: return {"fixed_window", "Fixed window", "requests in window"};
    case Algorithm::SlidingWindowLog: return {"sliding_window_log", "Sliding window log", "entries in log"};
    case Algorithm::SlidingWindowCounter:
        return {"sliding_window_counter", "Sliding window counter", "estimated requests"};
    case Algorithm::TokenBucket: return {"token_bucket", "Token bucket", "tokens"};
    case Algorithm::LeakyBucket: return {"leaky_bucket", "Leaky bucket (meter)", "water"};
    case Algorithm::LeakyBucketQueue: return {"leaky_bucket_queue", "Leaky bucket (queue)", "requests waiting"};
    case Algorithm::NginxLimitReq: return {"nginx_limit_req", "nginx limit_req", "excess (requests)"};
    case Algorithm::Gcra: break;
    }
    return {"gcra", "GCRA", "backlog (s)"};
}

} // namespace

std::string_view algorithmId(Algorithm a) { return names(a).id; }
std::string_view algorithmTitle(Algorithm a) { return names(a).title; }
std::string_view levelUnit(Algorithm a) { return names(a).unit; }

std::optional<Algorithm> algorithmFromId(std::string_view id)
{
    for (Algorithm a : kEveryAlgorithm)
        if (names(a).id == id)
            return a;
    return std::nullopt;
}

std::unique_ptr<Limiter> makeLimiter(Algorithm a, const LimiterConfig& config)
{
    return visitLimiter(a, config, [](auto& l) -> std::unique_ptr<Limiter> { return l.clone(); });
}

} // namespace ratelab
