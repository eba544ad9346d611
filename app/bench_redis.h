// `ratelab bench`'s Redis figures: each script's calls per second on one connection,
// without pipelining, and the server's CPU per call from INFO commandstats, beside a plain INCR.
#pragma once

#include <string>
#include <vector>

namespace ratelab::app {

struct RedisBenchRow {
    std::string script;       // "incr", "token_bucket" (injected time), "server_clock/token_bucket", ...
    double callsPerS = 0;     // one connection, one call at a time
    double usedCpuUsPerCall = 0; // usec_per_call of EVALSHA (INCR) in INFO commandstats
    double admittedShare = 0; // the share of calls admitted (the scripts' write path)
    // The same script where (nearly) every call is denied: 100 per s.
    double deniedCallsPerS = 0;
    double deniedUsedCpuUsPerCall = 0;
    double deniedShare = 0;
};

struct RedisBench {
    std::vector<RedisBenchRow> rows;
    std::string absent; // why there are no figures (redis-server cannot start), else empty
};

// benchRedis measures every script on a private redis-server; if none can start, the figures
// are absent (with the reason), not a failure.
RedisBench benchRedis();

// redisBenchJson writes the figures as the JSON member "redis": {...}.
std::string redisBenchJson(const RedisBench& bench);
// redisBenchText writes them as lines of the table.
std::string redisBenchText(const RedisBench& bench);

} // namespace ratelab::app
