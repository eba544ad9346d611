#include "bench_engine.h"

#include "bench.h"
#include "bench_memory.h"

#include "engine/engine.h"
#include "traffic/pattern.h"
#include "scenario/scenario.h"

#include <algorithm>
#include <span>
#include <chrono>
#include <string>
#include <vector>

namespace ratelab::app {

namespace {


struct Setup {
    EngineSetup setup;
    std::vector<Nanos> arrivals;
};

Setup benchSetup()
{
    Setup b;
    Scenario s;
    s.config = LimiterConfig::make(100, kNanosPerSecond);
    s.pattern.kind = PatternKind::Poisson;
    s.pattern.count = 1'000'000;
    s.pattern.lambda = Rate{200, kNanosPerSecond};
    s.pattern.seed = 42;
    b.arrivals = resolveArrivals(s);
    b.setup.layers = {{Algorithm::TokenBucket, LimiterConfig::make(100, kNanosPerSecond)},
                      {Algorithm::SlidingWindowCounter, LimiterConfig::make(6000, 60 * kNanosPerSecond)}};
    b.setup.cluster = ClusterConfig::make({3, Balancer::RoundRobin, Coordination::Shared, 0, 0, 0, 42});
    ClientOptions o;
    o.clients = 1000;
    o.key = KeyMode::Global;
    o.retry = RetryPolicy::RetryAfter;
    o.maxRetries = 2;
    b.setup.clients = ClientConfig::make(o);
    b.setup.seed = 42;
    return b;
}

// medianNsPerRequest runs the row `runs` times after a warm-up: the median ns a first attempt.
double medianNsPerRequest(const EngineSetup& setup, std::span<const Nanos> arrivals, int runs)
{
    std::vector<double> ns;
    for (int run = 0; run <= runs; ++run) {
        clearVectorUpperState(); // as medianMs
        const auto start = std::chrono::steady_clock::now();
        (void)runRow(setup, {arrivals, {}, {}});
        const double elapsed = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
        if (run > 0)
            ns.push_back(elapsed / double(arrivals.size()));
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

// medianNsPerAttempt runs the row `runs` times after a warm-up: the median ns an attempt.
double medianNsPerAttempt(const EngineSetup& setup, std::span<const Nanos> arrivals, int runs)
{
    std::vector<double> ns;
    for (int run = 0; run <= runs; ++run) {
        clearVectorUpperState(); // as medianMs
        const auto start = std::chrono::steady_clock::now();
        const RowRun r = runRow(setup, {arrivals, {}, {}});
        const double elapsed = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
        if (run > 0)
            ns.push_back(elapsed / double(r.log.size()));
    }
    std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
    return ns[ns.size() / 2];
}

// logModes measures a sliding window log of 100,000 a minute on 3 nodes, 1,000,000 requests
// 0.1 ms apart, per coordination (racy: a 0.1 ms round trip; hybrid: syncs every 1 ms).
std::vector<std::pair<std::string, double>> logModes()
{
    std::vector<Nanos> arrivals(1'000'000);
    for (std::size_t i = 0; i < arrivals.size(); ++i)
        arrivals[i] = Nanos(i) * 100'000;
    std::vector<std::pair<std::string, double>> out;
    for (const auto& [name, mode] : {std::pair{"shared", Coordination::Shared}, std::pair{"racy", Coordination::Racy},
                                     std::pair{"hybrid", Coordination::Hybrid}}) {
        EngineSetup setup;
        setup.layers = {{Algorithm::SlidingWindowLog, LimiterConfig::make(100'000, 60 * kNanosPerSecond)}};
        setup.cluster = ClusterConfig::make({3, Balancer::RoundRobin, mode, mode == Coordination::Racy ? 100'000 : 0,
                                             mode == Coordination::Hybrid ? 1'000'000 : 0, 0, 42});
        out.emplace_back(name, medianNsPerAttempt(setup, arrivals, 3));
    }
    return out;
}

} // namespace

EngineFigures engineFigures()
{
    EngineFigures f;
    f.logModesNs = logModes();
    const Setup b = benchSetup();
    f.attempts = double(runRow(b.setup, {b.arrivals, {}, {}}).log.size());
    f.nsPerAttempt = medianNsPerAttempt(b.setup, b.arrivals, 5);
    EngineSetup served = b.setup;
    served.server = ServerConfig::parse("workers=64,service=exp:200ms,queue=1000,timeout=1s");
    served.gate = GateSpec::parse("gradient2");
    f.serverNsPerRequest = medianNsPerRequest(served, b.arrivals, 3);
    const double servedAttempts = double(runRow(served, {b.arrivals, {}, {}}).log.size());
    f.serverNsPerAttempt = servedAttempts > 0 ? f.serverNsPerRequest * double(b.arrivals.size()) / servedAttempts : 0;

    // Memory in a forked child: one run, over the attempts it made.
    f.bytesPerAttempt = childGrowthPer({}, [&] { return std::int64_t(runRow(b.setup, {b.arrivals, {}, {}}).log.size()); });
    return f;
}

} // namespace ratelab::app
