// All limiter implementations, and `visitLimiter`, which hands a callable the concrete type so
// hot loops (the simulator, the benchmark) call `decide` without a virtual dispatch.
#pragma once

#include "fixed_window.h"
#include "gcra.h"
#include "leaky_bucket.h"
#include "nginx_limit_req.h"
#include "sliding_window_counter.h"
#include "sliding_window_log.h"
#include "token_bucket.h"

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
    case Algorithm::Gcra: break;
    }
    Gcra l(config);
    return f(l);
}

} // namespace ratelab
