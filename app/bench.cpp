#include "bench.h"

#include "dashboard.h"
#include "limiters.h"
#include "report.h"
#include "scenario.h"

#include <QApplication>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace ratelab::app {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRuns = 5;

// median times fn over a warm-up run and kRuns measured runs, in milliseconds.
template <typename F>
double medianMs(F&& fn, int runs = kRuns)
{
    fn();
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        fn();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
}

// benchScenario is a seeded Poisson stream at twice the limit's rate, so every algorithm both
// admits and denies: limit 100 per second, 200 requests a second on average.
Scenario benchScenario(std::int64_t n)
{
    Scenario s;
    s.config = LimiterConfig::make(100, kNanosPerSecond);
    s.pattern.kind = PatternKind::Poisson;
    s.pattern.count = n;
    s.pattern.lambda = Rate{200, kNanosPerSecond};
    s.pattern.seed = 42;
    return s;
}

volatile std::int64_t g_sink; // keeps the measured loops from being optimised away

// MutexTokenBucket is the shape of golang.org/x/time/rate's Limiter: a token bucket whose
// every call takes a lock. It is the reference the O(1) limiters are compared with.
class MutexTokenBucket {
public:
    explicit MutexTokenBucket(const LimiterConfig& c) : m_bucket(c) {}
    bool allow(Nanos t)
    {
        std::lock_guard lock(m_mutex);
        return m_bucket.decide(t).allowed;
    }

private:
    std::mutex m_mutex;
    TokenBucket m_bucket;
};

std::map<std::string, double> decideNs(const std::vector<Nanos>& arrivals, const LimiterConfig& config)
{
    std::map<std::string, double> out;
    const double n = double(arrivals.size());
    for (Algorithm a : kAllAlgorithms) {
        out[std::string(algorithmId(a))] = medianMs([&] {
            visitLimiter(a, config, [&](auto& limiter) {
                std::int64_t allowed = 0;
                for (Nanos t : arrivals)
                    allowed += limiter.decide(t).allowed;
                g_sink = allowed;
            });
        }) * 1e6 / n;
    }
    out["baseline_read_arrivals"] = medianMs([&] {
        std::int64_t sum = 0;
        for (Nanos t : arrivals)
            sum += t;
        g_sink = sum;
    }) * 1e6 / n;
    out["reference_mutex_token_bucket"] = medianMs([&] {
        MutexTokenBucket limiter(config);
        std::int64_t allowed = 0;
        for (Nanos t : arrivals)
            allowed += limiter.allow(t);
        g_sink = allowed;
    }) * 1e6 / n;
    return out;
}

double updateMs(std::int64_t n)
{
    // A slider change: a new scenario is simulated, reduced to the rows' pixels, laid out and
    // painted, on a 1600x900 dashboard. The limit alternates so every run is a real change.
    ui::Dashboard dashboard;
    int flip = 0;
    return medianMs([&] {
        Scenario s = benchScenario(n);
        s.config = LimiterConfig::make(100 + (flip++ % 2), kNanosPerSecond);
        ui::layoutOffscreen(dashboard, s, QSize(1600, 900));
        g_sink = dashboard.render(1.0).pixel(800, 450);
    });
}

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

} // namespace

int runBench(QCommandLineParser& parser, const QStringList& args)
{
    parser.addOption({"json", "Print one JSON object instead of a table."});
    parser.addHelpOption();
    if (!parser.parse(args)) {
        std::cerr << "ratelab: " << parser.errorText().toStdString() << std::endl;
        return 2;
    }
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    const std::vector<std::int64_t> sizes = {10'000, 100'000, 1'000'000};
    const Scenario big = benchScenario(1'000'000);
    const std::vector<Nanos> arrivals = resolveArrivals(big);
    const auto decide = decideNs(arrivals, big.config);
    std::map<std::int64_t, double> simulateMs, update;
    for (std::int64_t n : sizes) {
        const Scenario s = benchScenario(n);
        simulateMs[n] = medianMs([&] { g_sink = std::int64_t(simulate(s).results.size()); });
    }
    for (std::int64_t n : sizes)
        update[n] = updateMs(n);
    QTemporaryDir dir;
    const Scenario exportScenario = benchScenario(100'000);
    const double exportMs = medianMs([&] {
        const QImage image = ui::renderOffscreen(exportScenario, QSize(1600, 900), 1.0);
        if (!ui::writeImage(image, dir.filePath("bench.png")).isEmpty())
            throw std::runtime_error("cannot write the export benchmark's image");
    });
    const double rss = peakRssMb();

    std::ostringstream out;
    if (parser.isSet("json")) {
        out << "{\"decide_ns\": {";
        bool first = true;
        for (const auto& [id, ns] : decide) {
            out << (first ? "" : ", ") << "\"" << id << "\": " << formatNumber(ns);
            first = false;
        }
        const auto series = [&](const std::map<std::int64_t, double>& m) {
            std::string s;
            for (const auto& [n, ms] : m)
                s += (s.empty() ? "" : ", ") + ("\"" + std::to_string(n) + "\": ") + formatNumber(ms);
            return "{" + s + "}";
        };
        out << "},\n \"simulate_ms\": " << series(simulateMs) << ",\n \"update_ms\": " << series(update)
            << ",\n \"export_ms\": {\"100000\": " << formatNumber(exportMs) << "},\n \"peak_rss_mb\": "
            << formatNumber(rss) << "}\n";
    } else {
        out << "Decisions (median ns each, over 1,000,000 Poisson arrivals at 2x the limit)\n";
        for (const auto& [id, ns] : decide)
            out << "  " << id << std::string(30 - std::min<std::size_t>(29, id.size()), ' ') << number(ns) << " ns\n";
        out << "Whole scenario, all 7 algorithms (median ms)\n  requests        simulate    update (1600x900)\n";
        for (std::int64_t n : sizes)
            out << "  " << n << std::string(16 - std::to_string(n).size(), ' ') << number(simulateMs[n])
                << std::string(12 - number(simulateMs[n]).size(), ' ') << number(update[n]) << "\n";
        out << "PNG export of 100,000 requests: " << number(exportMs) << " ms\nPeak memory: " << number(rss) << " MB\n";
    }
    std::cout << out.str();
    return 0;
}

} // namespace ratelab::app
