// All limiter implementations, and `visitLimiter`, which hands a callable the concrete type so
// hot loops (the simulator, the benchmark) call `decide` without a virtual dispatch.
#pragma once

#include "limiters/fixed_window.h"
#include "limiters/gcra.h"
#include "limiters/leaky_bucket.h"
#include "limiters/nginx_limit_req.h"
#include "limiters/products/aws_api_gateway.h"
#include "limiters/products/aws_waf.h"
#include "limiters/products/cloudflare.h"
#include "limiters/products/envoy_local.h"
#include "limiters/products/express_rate_limit.h"
#include "limiters/products/guava.h"
#include "limiters/products/kong.h"
#include "limiters/products/node_limiter.h"
#include "limiters/products/own_limit.h"
#include "limiters/products/python_limits.h"
#include "limiters/products/rate_limiter_flexible.h"
#include "limiters/products/redis_cell.h"
#include "limiters/products/spring_gateway.h"
#include "limiters/products/traefik.h"
#include "limiters/products/upstash.h"
#include "limiters/sliding_window_counter.h"
#include "limiters/sliding_window_log.h"
#include "limiters/token_bucket.h"

namespace ratelab {

// visitLimiter builds a limiter of algorithm a and calls f(limiter) with its concrete type.
template <typename F>
decltype(auto) visitLimiter(Algorithm a, const LimiterConfig& config, F&& f)
{
    switch (a) {
    case Algorithm::FixedWindow: { FixedWindow l(config); return f(l); }
    case Algorithm::SlidingWindowLog: { SlidingWindowLog l(config); return f(l); }
    case Algorithm::SlidingWindowCounter: { SlidingWindowCounter l(config); return f(l); }
    case Algorithm::TokenBucket: { TokenBucket l(config); return f(l); }
    case Algorithm::LeakyBucket: { LeakyBucket l(config); return f(l); }
    case Algorithm::LeakyBucketQueue: { LeakyBucketQueue l(config); return f(l); }
    case Algorithm::NginxLimitReq: { NginxLimitReq l(config); return f(l); }
    case Algorithm::ExpressRateLimit: { ExpressRateLimit l(config); return f(l); }
    case Algorithm::RateLimiterFlexible: { RateLimiterFlexible l(config); return f(l); }
    case Algorithm::PythonLimits: { PythonLimits l(config); return f(l); }
    case Algorithm::Guava: { GuavaRateLimiter l(config); return f(l); }
    case Algorithm::EnvoyLocal: { EnvoyLocal l(config); return f(l); }
    case Algorithm::Traefik: { Traefik l(config); return f(l); }
    case Algorithm::SpringGateway: { SpringGateway l(config); return f(l); }
    case Algorithm::Kong: { Kong l(config); return f(l); }
    case Algorithm::RedisCell: { RedisCell l(config); return f(l); }
    case Algorithm::NodeLimiter: { NodeLimiter l(config); return f(l); }
    case Algorithm::UpstashRatelimit: { UpstashRatelimit l(config); return f(l); }
    case Algorithm::CloudflareRate: { CloudflareRate l(config); return f(l); }
    case Algorithm::AwsWafRate: { AwsWafRate l(config); return f(l); }
    case Algorithm::AwsApiGateway: { AwsApiGateway l(config); return f(l); }
    case Algorithm::Gcra: break;
    }
    Gcra l(config);
    return f(l);
}

} // namespace ratelab
