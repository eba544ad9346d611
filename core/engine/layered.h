// LayeredPolicy: several limiters, each with its own config, that a request must all pass
// (semantics.md, "Layered policies"), e.g. a token bucket for bursts over a sliding window
// counter for the hourly quota.
//
// Layers are asked in order. A layer that admits has consumed, and a later layer's denial does
// not refund it (the common middleware behaviour): those units are counted as the layer's
// `wasted`. A denied request's retry_after is the least d such that a request of the same cost at
// t + d passes every layer. Since no layer's verdict for a lone request can turn from admit back
// to deny as time passes (tokens refill, water drains, windows and entries expire, the counter's
// estimate decays), that is the largest of the layers' own least waits, each taken on its state
// after this request: a layer that admitted and consumed may now need time too, which is why
// the largest retry_after of the layers' decisions is not the answer.
#pragma once

#include "limiters/any_limiter.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

struct Layer {
    Algorithm algorithm = Algorithm::TokenBucket;
    LimiterConfig config;

    friend bool operator==(const Layer&, const Layer&) = default;
};

// parseLayer reads a layer written as `ALG:key=value,...` (keys: limit, window, capacity, rate;
// unset keys take the documented defaults: limit 10, window 10 s, capacity = limit, rate =
// limit / window), the one grammar of --layer, scenario files and the app. nginx is the nginx
// options a nginx_limit_req layer reads. It throws InputError naming the key that is wrong.
Layer parseLayer(std::string_view text, const NginxOptions& nginx = {});

// layerText writes a layer in parseLayer's grammar, every key exact:
// "token_bucket:limit=10,window=10,capacity=100,rate=10".
std::string layerText(const Layer& layer);

// LayerMetrics counts, for one layer: requests it admitted (also those a later layer then
// denied), requests it denied, and the units it consumed for requests a later layer denied.
struct LayerMetrics {
    std::int64_t allowed = 0;
    std::int64_t deniedHere = 0;
    std::int64_t wasted = 0;
};

class LayeredPolicy {
public:
    // The constructor throws InputError for no layers, or a config a layer cannot use. clock is
    // added to every time a layer onTheClock sees (a replayed log's start since 1970); the others
    // see the times as given.
    explicit LayeredPolicy(const std::vector<Layer>& layers, Nanos clock = 0);

    // decide asks the layers in order; the decision is admitted iff every layer admits. delay is
    // the largest layer delay; remaining the fewest cost-1 requests any layer would still admit;
    // level the first layer's level; retry_after as above (never when a layer's quota < cost).
    Decision decide(Nanos t, std::int64_t cost = 1);
    Nanos waitFor(Nanos t, std::int64_t cost) const;
    std::int32_t remainingAt(Nanos t) const;
    // quota is the smallest layer quota: the largest cost that can ever pass.
    std::int64_t quota() const;
    // reset is, as for a limiter, the least d after which a request of the whole quota passes:
    // waitFor(t, quota()).
    Nanos reset(Nanos t) const;
    double levelAt(Nanos t) const { return m_layers.front().levelAt(m_clock.front() + t); }

    std::size_t size() const { return m_layers.size(); }
    const std::vector<LayerMetrics>& layerMetrics() const { return m_metrics; }

private:
    std::vector<AnyLimiter> m_layers;
    std::vector<Nanos> m_clock; // per layer: what its times are given beside t
    std::vector<LayerMetrics> m_metrics;
};

} // namespace ratelab
