// The engine's figures for `ratelab bench`: one attempt through clients that retry,
// a three-node shared store and a policy of two layers.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ratelab::app {

struct EngineFigures {
    double nsPerAttempt = 0;    // engine_ns: median over runs, per attempt decided and logged
    double bytesPerAttempt = -1; // engine_bytes_per_attempt: the run's peak memory per attempt
    double attempts = 0;        // attempts in one run
    // engine_log_ns: per coordination (shared, racy, hybrid), ns an attempt for a sliding window
    // log of L = 100,000 on 3 nodes: the modes whose nodes copy the store must stay linear.
    std::vector<std::pair<std::string, double>> logModesNs;
    // server_ns: per request, the same stream through the 2 layers, a gradient2 concurrency limit
    // and a 64-worker server (exponential service, 1 s client timeout), retries included.
    double serverNsPerRequest = 0;
    // server_ns_per_attempt: the same run per attempt it decided, retries included (2.9 a request
    // here): the unit engine_ns is in, so the two compare like for like.
    double serverNsPerAttempt = 0;
};

// engineFigures measures them on a seeded Poisson stream of 1,000,000 first attempts at twice
// the policy's rate, from 1,000 clients retrying after Retry-After at most twice.
EngineFigures engineFigures();

} // namespace ratelab::app
