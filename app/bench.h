// `ratelab bench`: the speed figures of the README, measured on this machine.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

#include "arithmetic/vector_state.h"
#include "scenario/scenario.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace ratelab::app {

// runBench measures decisions, simulation, dashboard updates and export, and prints a table or
// (with --json) one JSON object. Each figure is the median of several runs after a warm-up.
int runBench(QCommandLineParser& parser, const QStringList& args);

// kRuns is how many measured runs a figure is the median of.
inline constexpr int kRuns = 5;

// medianMs times fn over a warm-up run and `runs` measured runs, in milliseconds. Each run
// starts with the vector registers' upper halves clean, as in a command of its own: the bench's
// earlier painting on this thread can leave them dirty (clearVectorUpperState).
template <typename F>
double medianMs(F&& fn, int runs = kRuns)
{
    using Clock = std::chrono::steady_clock;
    fn();
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        clearVectorUpperState();
        const auto start = Clock::now();
        fn();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
}

// benchScenario is a seeded Poisson stream at twice the limit's rate, so every algorithm both
// admits and denies: limit 100 per second, 200 requests a second on average.
Scenario benchScenario(std::int64_t n);

// g_sink keeps the measured loops from being optimised away.
inline volatile std::int64_t g_sink;

} // namespace ratelab::app
