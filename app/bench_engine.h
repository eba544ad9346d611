// The engine's figures for `ratelab bench` (issue 20): one attempt through clients that retry,
// a three-node shared store and a policy of two layers.
#pragma once

namespace ratelab::app {

struct EngineFigures {
    double nsPerAttempt = 0;    // engine_ns: median over runs, per attempt decided and logged
    double bytesPerAttempt = -1; // engine_bytes_per_attempt: the run's peak memory per attempt
    double attempts = 0;        // attempts in one run
};

// engineFigures measures them on a seeded Poisson stream of 1,000,000 first attempts at twice
// the policy's rate, from 1,000 clients retrying after Retry-After at most twice.
EngineFigures engineFigures();

} // namespace ratelab::app
