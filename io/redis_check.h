// checkAgainstRedis runs a scenario through the real Lua scripts on a Redis and compares every
// decision with the simulation of `shared` coordination (the scenario's cluster, or one node):
// what File > Check against Redis reports.
#pragma once

#include "scenario/scenario.h"

#include <QString>

#include <atomic>
#include <cstddef>

namespace ratelab::io {

struct RedisCheck {
    bool agreed = false;
    QString summary; // one paragraph: every decision agreed, or the first disagreement, or why not run
};

// checkAgainstRedis starts a private redis-server when address is empty. It never throws: a
// scenario the scripts cannot run (cost, clients, layers, nginx_limit_req, outside their exact
// domain) or a Redis that fails is reported in the summary.
RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address = {});

// RedisProgress follows a check from another thread: decisions done of the total, and a flag
// that stops it (the result then says it was cancelled).
struct RedisProgress {
    std::atomic<std::size_t> done{0};
    std::atomic<std::size_t> total{0};
    std::atomic<bool> cancel{false};
};

// checkAgainstRedis with progress: `progress` is updated after every decision and read for
// cancellation.
RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address, RedisProgress* progress);

// redisDecisions is how many decisions a check of s makes: requests x algorithms.
std::size_t redisDecisions(const Scenario& s);

} // namespace ratelab::io
