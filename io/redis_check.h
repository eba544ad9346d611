// checkAgainstRedis runs a scenario through the real Lua scripts on a Redis and compares every
// decision with the simulation of `shared` coordination (the scenario's cluster, or one node):
// what File > Check against Redis reports.
#pragma once

#include "scenario.h"

#include <QString>

namespace ratelab::io {

struct RedisCheck {
    bool agreed = false;
    QString summary; // one paragraph: every decision agreed, or the first disagreement, or why not run
};

// checkAgainstRedis starts a private redis-server when address is empty. It never throws: a
// scenario the scripts cannot run (cost, clients, layers, nginx_limit_req, outside their exact
// domain) or a Redis that fails is reported in the summary.
RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address = {});

} // namespace ratelab::io
