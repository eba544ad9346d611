// The replay figures of `ratelab bench`: a 1,000,000-line combined log with 10,000
// keys replayed through the seven algorithms, and a 20-point sweep of it.
#pragma once

namespace ratelab::app {

struct ReplayBenchFigures {
    double linesPerSecond = 0; // parsing the log and deciding every line with seven algorithms, one thread
    double configLinesPerSecond = 0; // the same log through a 3-zone nginx config (replay --config), parsing included
    // combinedLinesPerSecond: the same log read from memory into requests (time and key, as plain
    // replay reads it) and each decided by nginx_limit_req, one limiter per key, one thread: the
    // plain replay a --config run is weighed against
    double combinedLinesPerSecond = 0;
    double pointMs = 0;        // deciding one point (seven algorithms) on the parsed log, one thread
    double sweepMs = 0;        // 20 points on the parsed log, on `threads` threads
    unsigned threads = 1;
    double bytesPerKey = 0;    // peak memory a key adds, seven algorithms: 1,000,000 keys against 100 (-1: not measured)
    // adviseMs: `advise --for nginx --compare` on the parsed log: its keys grouped, nginx's exact
    // front and the textbook token bucket's and GCRA's capacities at the advised rate, one thread.
    // familiesReplayMs: one plain replay of the log per family searched (nginx_limit_req,
    // token_bucket, gcra) at that rate, which advise is weighed against.
    double adviseMs = 0;
    double familiesReplayMs = 0;
};

// benchReplay measures the figures (medians of several runs after a warm-up).
ReplayBenchFigures benchReplay();

} // namespace ratelab::app
