#include "bench_replay.h"

#include "bench.h"
#include "bench_memory.h"

#include "config_dry_run.h"
#include "advise/nginx_advice.h"
#include "advise/textbook_advice.h"
#include "replay/dry_run.h"
#include "replay/replay.h"
#include "replay/sweep.h"


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ratelab::app {

namespace {

constexpr int kLines = 1'000'000;
constexpr int kKeys = 10'000;
constexpr int kReplayRuns = 3; // a run parses a million lines: fewer runs than bench's

// benchLog is an hour of combined-format lines (278 a second): half from 100 heavy addresses
// (about 83 a minute each, so a limit of 10 a minute denies them), half spread over all 10,000.
std::string benchLog()
{
    std::mt19937_64 rng(22);
    std::string text;
    text.reserve(std::size_t(kLines) * 130);
    char line[256];
    for (int i = 0; i < kLines; ++i) {
        const int s = int(std::int64_t(i) * 3600 / kLines);
        const int k = rng() % 2 ? int(rng() % 100) : int(rng() % kKeys);
        const int n = std::snprintf(line, sizeof line,
                                    "10.%d.%d.%d - - [23/Nov/2026:%02d:%02d:%02d +0000] \"GET /api/items/%d HTTP/1.1\" "
                                    "200 %d \"-\" \"Mozilla/5.0 (X11; Linux) Chrome/131.0\"\n",
                                    k / 65536, k / 256 % 256, k % 256, s / 3600, s / 60 % 60, s % 60, k % 97,
                                    300 + k % 500);
        text.append(line, std::size_t(n));
    }
    return text;
}

volatile std::int64_t g_replaySink;

// keyLog is kLines combined-format lines over an hour, line i from address i % keys.
std::string keyLog(int keys)
{
    std::string text;
    text.reserve(std::size_t(kLines) * 100);
    char line[256];
    for (int i = 0; i < kLines; ++i) {
        const int s = int(std::int64_t(i) * 3600 / kLines), k = i % keys;
        const int n = std::snprintf(line, sizeof line,
                                    "10.%d.%d.%d - - [23/Nov/2026:%02d:%02d:%02d +0000] \"GET /api/x HTTP/1.1\" 200 5 "
                                    "\"-\" \"curl\"\n",
                                    k / 65536, k / 256 % 256, k % 256, s / 3600, s / 60 % 60, s % 60);
        text.append(line, std::size_t(n));
    }
    return text;
}

// replayPeakKb is how far replaying keyLog(keys) through the seven algorithms raises a child's
// resident size, the text made and parsed included, in kB (-1 when it cannot be measured;
// childGrowthPer).
long replayPeakKb(int keys)
{
    const double bytes = childGrowthPer({}, [&] {
        const Traffic t = parseTraffic(keyLog(keys), {}, "bench");
        ReplayPolicy policy;
        policy.config = LimiterConfig::make(10, 60 * kNanosPerSecond);
        g_replaySink = replay(t, policy).back().denied;
        return std::int64_t(1);
    });
    return bytes < 0 ? -1 : long(bytes / 1024);
}

// benchAdvise times advise's search against the replays it stands beside: what an SRE waits for
// beside what one look at the log costs.
void benchAdvise(const Traffic& traffic, ReplayBenchFigures& f)
{
    const NginxBurstFamily nginx;
    Advice advice;
    f.adviseMs = medianMs([&] {
        const KeyedTraces traces = keyedTraces(traffic);
        advice = advise(traces, nginx, AdviceOptions{});
        g_replaySink = std::int64_t(textbookRows(traces, advice.kept, nginx.rate(advice.recommended.step)).size());
    }, kReplayRuns);
    const Rate rate = nginx.rate(advice.recommended.step);
    const std::int64_t burst = advice.recommended.burst;
    const LimiterConfig bucket = LimiterConfig::make(burst + 1, kNanosPerSecond, burst + 1, rate);
    const LimiterConfig limitReq = bucket.withNginx(NginxOptions{.burst = burst});
    f.familiesReplayMs = medianMs([&] {
        g_replaySink = replayOne(traffic, Algorithm::NginxLimitReq, limitReq).denied
                     + replayOne(traffic, Algorithm::TokenBucket, bucket).denied
                     + replayOne(traffic, Algorithm::Gcra, bucket).denied;
    }, kReplayRuns);
}

} // namespace

ReplayBenchFigures benchReplay()
{
    ReplayBenchFigures f;
    const std::string log = benchLog();
    ReplayPolicy policy;
    policy.config = LimiterConfig::make(10, 60 * kNanosPerSecond);
    const double replayMs = medianMs([&] {
        const Traffic t = parseTraffic(log, {}, "bench");
        g_replaySink = replay(t, policy).back().denied;
    }, kReplayRuns);
    f.linesPerSecond = kLines / (replayMs / 1000);
    // One algorithm, so the figure is mostly the parse: nginx's, as the --config run below decides.
    const double combinedMs = medianMs([&] {
        const Traffic t = parseTraffic(log, {}, "bench");
        g_replaySink = replayOne(t, Algorithm::NginxLimitReq, policy.config).denied;
    }, kReplayRuns);
    f.combinedLinesPerSecond = kLines / (combinedMs / 1000);
    // The same log through a 3-zone nginx config (replay --config), parsing with paths included.
    const DryRunConfig nginx = io::dryRunConfig("limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\n"
                                                "limit_req_zone $binary_remote_addr zone=items:10m rate=100r/m;\n"
                                                "limit_req_zone $binary_remote_addr zone=all:10m rate=50r/s;\n"
                                                "server {\n  limit_req zone=all burst=100;\n"
                                                "  location /api/ { limit_req zone=api burst=20 nodelay; limit_req zone=all burst=100; }\n"
                                                "  location /api/items/1 { limit_req zone=items burst=5; }\n"
                                                "  location = /login { limit_req zone=api; }\n}\n",
                                                "ip");
    TrafficOptions withPaths;
    withPaths.keepPaths = true;
    const double configMs = medianMs([&] {
        const Traffic t = parseTraffic(log, withPaths, "bench");
        g_replaySink = dryRun(t, nginx).denied;
    }, kReplayRuns);
    f.configLinesPerSecond = kLines / (configMs / 1000);
    const Traffic traffic = parseTraffic(log, {}, "bench");
    f.pointMs = medianMs([&] { g_replaySink = replay(traffic, policy).back().denied; }, kReplayRuns);
    f.threads = std::max(1u, std::thread::hardware_concurrency());
    SweepBase base;
    base.windowNanos = 60 * kNanosPerSecond;
    const std::vector<SweepAxis> axes = {parseSweepAxis(SweepParameter::Limit, "5:100:5")}; // 20 points
    f.sweepMs = medianMs([&] { g_replaySink = runSweep(traffic, base, axes, f.threads).cells.back().denied; }, kReplayRuns);
    benchAdvise(traffic, f);
    const long many = replayPeakKb(kLines), few = replayPeakKb(100);
    f.bytesPerKey = many < 0 || few < 0 ? -1 : double(many - few) * 1024 / (kLines - 100);
    return f;
}

} // namespace ratelab::app
