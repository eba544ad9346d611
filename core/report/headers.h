// The response headers a server built on a limiter sends with each decision (semantics.md,
// "What a server tells the client"): X-RateLimit-*, Retry-After and the IETF draft-10
// RateLimit-Policy / RateLimit fields. A pure function of the decision and the limiter's facts.
#pragma once

#include "limiters/limiter.h"
#include "engine/simulator.h"

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

struct Header {
    std::string name;
    std::string value;

    friend bool operator==(const Header&, const Header&) = default;
};

// kHeaderNames lists every header in the order responseHeaders writes them (CSV columns).
inline constexpr std::array<std::string_view, 6> kHeaderNames = {
    "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "RateLimit-Policy", "RateLimit",
};

// quotaOf returns the X-RateLimit-Limit of an algorithm: L for the window limiters, B + 1 for
// nginx_limit_req (what one instant admits), C for the other buckets.
std::int64_t quotaOf(Algorithm a, const LimiterConfig& config);

// policyWindowSeconds returns the `w` of RateLimit-Policy: W in whole seconds, rounded up, for the
// window limiters; ceil(quota / r) for the buckets.
std::int64_t policyWindowSeconds(Algorithm a, const LimiterConfig& config);

// LayerResponse is one layer's part of a response: its policy, what it has left and its reset.
struct LayerResponse {
    Algorithm algorithm = Algorithm::FixedWindow;
    LimiterConfig config;
    std::int64_t remaining = 0;
    Nanos reset = 0;
};

// responseHeaders returns the headers of decision d of a request at t under a policy of these
// layers (at least one), X-RateLimit-* telling layer `top`'s figures: the one builder of every
// response (one limiter, the engine's layered and clustered rows).
//   X-RateLimit-Limit      quotaOf the top layer
//   X-RateLimit-Remaining  d.remaining
//   X-RateLimit-Reset      ceil(t + the top layer's reset) in whole seconds
//   Retry-After            denied only: ceil(retry_after) in whole seconds, at least 1; left out
//                          for a request that is never admitted (no wait helps)
//   RateLimit-Policy       "ID";q=QUOTA;w=WINDOW_SECONDS, a list item per layer
//   RateLimit              "ID";r=REMAINING;t=ceil(reset), a list item per layer
std::vector<Header> responseHeaders(Nanos t, const Decision& d, std::span<const LayerResponse> layers, std::size_t top);

// responseHeaders returns the headers for the decision of a request at t, `reset` being the
// limiter's reset(t) after it (the least d after which it is back to its full quota):
//   X-RateLimit-Limit      quotaOf
//   X-RateLimit-Remaining  remaining
//   X-RateLimit-Reset      ceil(t + reset) in whole seconds
//   Retry-After            denied only: ceil(retry_after) in whole seconds, at least 1; left out
//                          for a request that is never admitted (no wait helps)
//   RateLimit-Policy       "ID";q=QUOTA;w=WINDOW_SECONDS
//   RateLimit              "ID";r=REMAINING;t=ceil(reset)
std::vector<Header> responseHeaders(Algorithm a, const LimiterConfig& config, Nanos t, const Decision& d, Nanos reset);

// resetsOf replays result `row` of a trace and returns reset(t) after each decision.
std::vector<Nanos> resetsOf(const Trace& trace, std::size_t row);

// headersAt returns the headers of decision i of result `row`: a plain row replays its limiter
// from the checkpoint before i; a row the engine ran (a cluster, clients, layers) reads the
// response the state that decided gave.
std::vector<Header> headersAt(const Trace& trace, std::size_t row, std::size_t i);

// httpResponse writes a decision's headers as a server sends them: the status line
// ("HTTP/1.1 200 OK" or "HTTP/1.1 429 Too Many Requests") and one "Name: value" line each.
std::string httpResponse(const Decision& d, const std::vector<Header>& headers);

} // namespace ratelab
