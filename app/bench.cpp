#include "bench.h"

#include "bench_compare.h"
#include "bench_engine.h"
#include "bench_redis.h"

#include "bench_frames.h"
#include "bench_memory.h"
#include "bench_replay.h"
#include "bench_targets.h"
#include "command.h"

#include "chart/dashboard.h"
#include "limiters/limiters.h"
#include "window/mainwindow.h"
#include "model/pipeline.h"
#include "report/report.h"
#include "scenario/rows.h"
#include "scenario/scenario.h"
#include "model/scenariodocument.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <QWindow>


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

namespace ratelab::app {

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

namespace {

using Clock = std::chrono::steady_clock;


// countAllowed runs a limiter over the arrivals in a loop of its own, never inlined into the
// timing code around it, so decide is inlined here and the compiler keeps only what the loop
// reads: the verdict and the state. That is decide_ns: remaining, retry_after and level are
// computed where they are read (simulate_ms holds the whole Decision).
template <typename L>
[[gnu::noinline]] std::int64_t countAllowed(L& limiter, const std::vector<Nanos>& arrivals)
{
    std::int64_t allowed = 0;
    for (Nanos t : arrivals)
        allowed += limiter.decide(t).allowed;
    return allowed;
}

// MutexTokenBucket is the shape of golang.org/x/time/rate's Limiter: a token bucket whose
// every call takes a lock. It is the reference the O(1) limiters are compared with.
class MutexTokenBucket {
public:
    explicit MutexTokenBucket(const LimiterConfig& c) : m_bucket(c) {}
    Decision decide(Nanos t)
    {
        std::lock_guard lock(m_mutex);
        return m_bucket.decide(t);
    }

private:
    std::mutex m_mutex;
    TokenBucket m_bucket;
};

// FloorBucket is the floor every decide_ns is compared with: a token bucket in 64-bit integers
// with a branch-free verdict and nothing else (no retry_after, remaining or level). It holds only
// configs whose units fit 64 bits over the bench's arrivals, which benchScenario's does.
class FloorBucket {
public:
    explicit FloorBucket(const LimiterConfig& c)
        : m_tokensPerNanos(c.rate().tokens)
        , m_unitsPerToken(c.rate().perNanos)
        , m_capacityUnits(c.capacity() * c.rate().perNanos)
        , m_units(m_capacityUnits)
    {
    }

    // decide admits iff a whole token is there, then takes it (a compare and a mask, no branch).
    // It answers the verdict only.
    Decision decide(Nanos t)
    {
        const std::int64_t refilled = std::min(m_units + (t - m_lastNanos) * m_tokensPerNanos, m_capacityUnits);
        const bool ok = refilled >= m_unitsPerToken;
        m_units = refilled - (m_unitsPerToken & -std::int64_t(ok));
        m_lastNanos = t;
        Decision d;
        d.allowed = ok;
        return d;
    }

private:
    std::int64_t m_tokensPerNanos, m_unitsPerToken, m_capacityUnits, m_units;
    Nanos m_lastNanos = 0;
};

// floorNs times FloorBucket over the arrivals: nanoseconds per decision, median of kRuns.
double floorNs(const std::vector<Nanos>& arrivals, const LimiterConfig& config)
{
    return medianMs([&] {
        FloorBucket bucket(config);
        g_sink = countAllowed(bucket, arrivals);
    }) * 1e6 / double(arrivals.size());
}

std::map<std::string, double> decideNs(const std::vector<Nanos>& arrivals, const LimiterConfig& config)
{
    std::map<std::string, double> out;
    const double n = double(arrivals.size());
    for (Algorithm a : kAllAlgorithms) {
        out[std::string(algorithmId(a))] = medianMs([&] {
            visitLimiter(a, config, [&](auto& limiter) { g_sink = countAllowed(limiter, arrivals); });
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
        g_sink = countAllowed(limiter, arrivals);
    }) * 1e6 / n;
    return out;
}

// NullBuffer discards what is written to it, as `> /dev/null` does, without a system call.
class NullBuffer : public std::streambuf {
protected:
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// bytesPerRequest measures the memory of the run `ratelab compare --n N --format csv` makes over
// all seven algorithms (streamCsv, as compare calls it), the arrivals (8 bytes a request) left
// out: everything the simulation and the writing hold at their peak, over N (childGrowthPer).
double bytesPerRequest(std::int64_t n)
{
    const Scenario s = benchScenario(n);
    std::vector<Nanos> arrivals;
    return childGrowthPer([&] { arrivals = resolveArrivals(s); },
                          [&] {
                              NullBuffer discard;
                              std::ostream out(&discard);
                              streamCsv(out, s.config, s.algorithms, arrivals, {});
                              return n;
                          });
}

// BenchRun is every figure of one run of the bench.
struct BenchRun {
    static constexpr std::int64_t kDragRequests = 1'000'000;
    static constexpr int kDragChanges = 60;
    std::vector<std::int64_t> sizes = {10'000, 100'000, 1'000'000};
    std::map<std::string, double> decide;
    double floor = 0;
    std::map<std::int64_t, double> simulateMs, update;
    UpdateStages stages;
    double exportMs = 0;
    double rss = 0;
    DragFigures drag, drag100k, dragCluster, dragServer, dragCluster100k, dragServer100k;
    UpdateStages serverStage, clusterStage;
    double bytes = 0;
    EngineFigures engine;
    RedisBench redis;
    ReplayBenchFigures replay;
};

BenchRun measureBench()
{
    BenchRun b;
    const Scenario big = benchScenario(1'000'000);
    const std::vector<Nanos> arrivals = resolveArrivals(big);
    b.decide = decideNs(arrivals, big.config);
    b.floor = floorNs(arrivals, big.config);
    for (std::int64_t n : b.sizes) {
        const Scenario s = benchScenario(n);
        b.simulateMs[n] = medianMs([&] { // every row with all its decisions, as simulateRow gives them
            const RowInputs in = resolveRowInputs(s);
            std::int64_t decided = 0;
            for (std::size_t r = 0; r < rowCount(s); ++r)
                decided += std::int64_t(decisionCount(simulateRow(s, in, r)));
            g_sink = decided;
        });
    }
    for (std::int64_t n : b.sizes)
        b.update[n] = updateMs(n);
    b.stages = updateStages(1'000'000); // where a frame's time goes
    QTemporaryDir dir;
    const Scenario exportScenario = benchScenario(100'000);
    b.exportMs = medianMs([&] {
        const QImage image = ui::renderOffscreen(exportScenario, QSize(1600, 900), 1.0);
        if (!ui::writeImage(image, dir.filePath("bench.png")).isEmpty())
            throw std::runtime_error("cannot write the export benchmark's image");
    });
    b.rss = peakRssMb(); // before the drag's windows and the forked child
    b.drag = dragFigures(BenchRun::kDragRequests, BenchRun::kDragChanges);
    b.drag100k = dragFigures(100'000, BenchRun::kDragChanges);
    b.dragCluster = dragFigures(BenchRun::kDragRequests, BenchRun::kDragChanges, true); // every row on the engine
    b.dragServer = dragServerFigures(BenchRun::kDragRequests, BenchRun::kDragChanges); // the server's workers
    b.dragCluster100k = dragFigures(100'000, BenchRun::kDragChanges, true);
    b.dragServer100k = dragServerFigures(100'000, BenchRun::kDragChanges);
    b.serverStage = serverStages(BenchRun::kDragRequests);
    b.clusterStage = clusterStages(BenchRun::kDragRequests);
    b.bytes = bytesPerRequest(5'000'000);
    b.engine = engineFigures();
    b.redis = benchRedis(); // absent, not a failure, without redis-server
    b.replay = benchReplay(); // after peak_rss_mb: its log is 125 MB
    return b;
}

// combinedFloorRatio is a line of replay_combined_lines_per_s (read, parsed, decided) in floors
// of the same run, as decide_floor_ratio weighs a decision: this machine's speed varies between
// runs by more than a change would move it.
double combinedFloorRatio(const BenchRun& b)
{
    return b.floor > 0 && b.replay.combinedLinesPerSecond > 0 ? 1e9 / b.replay.combinedLinesPerSecond / b.floor : 0;
}

// jsonMap writes {"key": value, ...} of a map's figures, each through `value`.
template <typename Map, typename F>
std::string jsonMap(const Map& m, F value)
{
    std::string s;
    for (const auto& [key, v] : m) {
        std::ostringstream k;
        k << key;
        s += (s.empty() ? "\"" : ", \"") + k.str() + "\": " + formatNumber(value(v));
    }
    return "{" + s + "}";
}

std::string stagesJson(const UpdateStages& s)
{
    return "\"stage_ms\": {\"simulate_reduce\": " + formatNumber(s.simulateReduceMs) + ", \"lay_out\": "
           + formatNumber(s.layOutMs) + ", \"paint\": " + formatNumber(s.paintMs) + "}";
}

// floorUnitMs is the work a frame of s stands for, in ms: its rows x its requests x floor_ns of the
// same run. A frame's figures are also given in these units, which travel between machines.
double floorUnitMs(const BenchRun& b, const Scenario& s)
{
    return double(rowCount(s)) * double(s.pattern.count) * b.floor / 1e6;
}

double inUnits(double ms, double unitMs) { return unitMs > 0 ? ms / unitMs : 0; }

// dragJson writes a drag's figures after `head` ("\"requests\": 1000000, ..."), in ms and in the
// floor units of its scenario (a frame's ms being 1000 / frames_per_s), and its stages when given.
std::string dragJson(const std::string& head, const DragFigures& d, double unitMs, const UpdateStages* stages = nullptr)
{
    // No frame during the drag has no frame time: null, which a target counts as missed.
    const std::string frameUnits = d.framesPerS > 0 ? formatNumber(inUnits(1000 / d.framesPerS, unitMs)) : "null";
    return "{" + head + ", \"changes\": " + std::to_string(BenchRun::kDragChanges) + ", \"max_gui_stall_ms\": "
           + formatNumber(d.maxGuiStallMs) + ", \"settle_ms\": " + formatNumber(d.settleMs) + ", \"frames_per_s\": "
           + formatNumber(d.framesPerS) + ", \"frame_floor_ratio\": " + frameUnits
           + ", \"settle_floor_ratio\": " + formatNumber(inUnits(d.settleMs, unitMs))
           + (stages ? ", " + stagesJson(*stages) : std::string()) + "}";
}

std::string benchJson(const BenchRun& b)
{
    const std::string requests = "\"requests\": " + std::to_string(BenchRun::kDragRequests);
    const auto same = [](double v) { return v; };
    const double unit = floorUnitMs(b, benchScenario(BenchRun::kDragRequests));
    const double serverUnit = floorUnitMs(b, dragServerScenario(BenchRun::kDragRequests));
    std::map<std::int64_t, double> updateUnits;
    for (const auto& [n, ms] : b.update)
        updateUnits[n] = inUnits(ms, floorUnitMs(b, benchScenario(n)));
    std::ostringstream out;
    // Each decision against the floor measured in the same run: a ratio travels between
    // machines where nanoseconds do not.
    out << "{\"decide_ns\": " << jsonMap(b.decide, same)
        << ",\n \"decide_floor_ratio\": " << jsonMap(b.decide, [&](double ns) { return b.floor > 0 ? ns / b.floor : 0; })
        << ",\n \"floor_ns\": " << formatNumber(b.floor) << ",\n \"simulate_ms\": " << jsonMap(b.simulateMs, same)
        << ",\n \"update_ms\": " << jsonMap(b.update, same) << ",\n \"update_floor_ratio\": " << jsonMap(updateUnits, same) << ",\n \"export_ms\": {\"100000\": " << formatNumber(b.exportMs)
        << "},\n \"peak_rss_mb\": " << formatNumber(b.rss) << ",\n \"drag\": " << dragJson(requests, b.drag, unit, &b.stages)
        << ",\n \"drag_100000\": " << dragJson("\"requests\": 100000", b.drag100k, floorUnitMs(b, benchScenario(100'000)))
        << ",\n \"drag_cluster8\": " << dragJson(requests + ", \"nodes\": 8", b.dragCluster, unit, &b.clusterStage)
        << ",\n \"drag_server\": " << dragJson(requests, b.dragServer, serverUnit, &b.serverStage)
        << ",\n \"drag_cluster8_100000\": "
        << dragJson("\"requests\": 100000, \"nodes\": 8", b.dragCluster100k, floorUnitMs(b, benchScenario(100'000)))
        << ",\n \"drag_server_100000\": "
        << dragJson("\"requests\": 100000", b.dragServer100k, floorUnitMs(b, dragServerScenario(100'000)))
        << ",\n \"bytes_per_request\": " << formatNumber(b.bytes) << ",\n \"engine_ns\": " << formatNumber(b.engine.nsPerAttempt)
        << ", \"engine_floor_ratio\": " << formatNumber(b.floor > 0 ? b.engine.nsPerAttempt / b.floor : 0)
        << ",\n \"engine_bytes_per_attempt\": " << formatNumber(b.engine.bytesPerAttempt)
        << ",\n \"server_ns\": " << formatNumber(b.engine.serverNsPerRequest)
        << ",\n \"server_ns_per_attempt\": " << formatNumber(b.engine.serverNsPerAttempt) << ",\n \"engine_log_ns\": {";
    for (std::size_t i = 0; i < b.engine.logModesNs.size(); ++i)
        out << (i ? ", " : "") << "\"" << b.engine.logModesNs[i].first << "\": " << formatNumber(b.engine.logModesNs[i].second);
    out << "},\n " << redisBenchJson(b.redis) << ",\n \"replay_lines_per_s\": " << formatNumber(b.replay.linesPerSecond)
        << ", \"sweep_ms\": " << formatNumber(b.replay.sweepMs) << ", \"sweep_point_ms\": " << formatNumber(b.replay.pointMs)
        << ", \"sweep_threads\": " << b.replay.threads << ", \"replay_bytes_per_key\": " << formatNumber(b.replay.bytesPerKey)
        << ", \"replay_config_lines_per_s\": " << formatNumber(b.replay.configLinesPerSecond)
        << ",\n \"replay_combined_lines_per_s\": " << formatNumber(b.replay.combinedLinesPerSecond)
        << ", \"replay_combined_floor_ratio\": " << formatNumber(combinedFloorRatio(b))
        << ",\n \"advise_ms\": " << formatNumber(b.replay.adviseMs) << ", \"advise_replay_ratio\": "
        << formatNumber(b.replay.familiesReplayMs > 0 ? b.replay.adviseMs / b.replay.familiesReplayMs : 0) << "}\n";
    return out.str();
}

// dragText writes the drag paragraphs of the table.
std::string dragText(const BenchRun& b)
{
    std::ostringstream out;
    out << "Dragging the limit (" << BenchRun::kDragChanges << " changes, 16 ms apart, 1,000,000 requests): longest GUI stall "
        << shortNumber(b.drag.maxGuiStallMs) << " ms, last frame painted " << shortNumber(b.drag.settleMs)
        << " ms after the last change, " << shortNumber(b.drag.framesPerS) << " frames/s during the drag (100,000 requests: "
        << shortNumber(b.drag100k.framesPerS) << " frames/s, stall " << shortNumber(b.drag100k.maxGuiStallMs) << " ms, settle "
        << shortNumber(b.drag100k.settleMs) << " ms; 8 local nodes: stall " << shortNumber(b.dragCluster.maxGuiStallMs)
        << " ms, settle " << shortNumber(b.dragCluster.settleMs) << " ms, " << shortNumber(b.dragCluster.framesPerS) << " frames/s; a frame: simulated and reduced "
        << shortNumber(b.clusterStage.simulateReduceMs) << " ms, laid out " << shortNumber(b.clusterStage.layOutMs)
        << " ms, painted " << shortNumber(b.clusterStage.paintMs) << " ms)\n"
        << "Dragging a server's workers (1,000,000 requests, a fixed window and a gradient2 row, 64 workers on): stall "
        << shortNumber(b.dragServer.maxGuiStallMs) << " ms, settle " << shortNumber(b.dragServer.settleMs) << " ms, "
        << shortNumber(b.dragServer.framesPerS) << " frames/s (100,000 requests: " << shortNumber(b.dragServer100k.framesPerS)
        << " frames/s, settle " << shortNumber(b.dragServer100k.settleMs) << " ms; 8 local nodes at 100,000: "
        << shortNumber(b.dragCluster100k.framesPerS) << " frames/s, settle " << shortNumber(b.dragCluster100k.settleMs)
        << " ms); a frame: simulated and reduced "
        << shortNumber(b.serverStage.simulateReduceMs) << " ms, laid out " << shortNumber(b.serverStage.layOutMs) << " ms, painted "
        << shortNumber(b.serverStage.paintMs) << " ms\n"
        << "A frame at 1,000,000 requests, stage by stage: simulated and reduced " << shortNumber(b.stages.simulateReduceMs)
        << " ms (off the GUI thread), laid out " << shortNumber(b.stages.layOutMs) << " ms, painted " << shortNumber(b.stages.paintMs)
        << " ms\n";
    return out.str();
}

std::string benchText(const BenchRun& b)
{
    std::ostringstream out;
    out << "Decisions (median ns each, over 1,000,000 Poisson arrivals at 2x the limit)\n";
    for (const auto& [id, ns] : b.decide)
        out << "  " << id << std::string(30 - std::min<std::size_t>(29, id.size()), ' ') << shortNumber(ns) << " ns ("
            << shortNumber(b.floor > 0 ? ns / b.floor : 0) << "x the floor)\n";
    out << "  floor" << std::string(25, ' ') << shortNumber(b.floor) << " ns (a 64-bit token bucket, branch-free)\n";
    out << "Whole scenario, all 7 algorithms (median ms)\n  requests        simulate    update (1600x900)\n";
    for (std::int64_t n : b.sizes)
        out << "  " << n << std::string(16 - std::to_string(n).size(), ' ') << shortNumber(b.simulateMs.at(n))
            << std::string(12 - shortNumber(b.simulateMs.at(n)).size(), ' ') << shortNumber(b.update.at(n)) << "\n";
    out << "PNG export of 100,000 requests: " << shortNumber(b.exportMs) << " ms\nPeak memory: " << shortNumber(b.rss) << " MB\n"
        << dragText(b) << "Memory of compare --n 5000000 --format csv: " << shortNumber(b.bytes)
        << " bytes a request (arrivals excluded)\n"
        << "Engine (1000 clients retrying, 3 nodes on a shared store, 2 layers; " << shortNumber(b.engine.attempts)
        << " attempts): " << shortNumber(b.engine.nsPerAttempt) << " ns and " << shortNumber(b.engine.bytesPerAttempt)
        << " bytes an attempt\nThe same behind a gradient2 limit and a 64-worker server: "
        << shortNumber(b.engine.serverNsPerRequest) << " ns a request (" << shortNumber(b.engine.serverNsPerAttempt)
        << " ns an attempt)\nSliding window log of 100,000 on 3 nodes, ns an attempt:";
    for (const auto& [mode, ns] : b.engine.logModesNs)
        out << " " << mode << " " << shortNumber(ns);
    out << "\n"
        << redisBenchText(b.redis) << "Replay of a 1,000,000-line log, 10,000 keys, 7 algorithms, parsing included: "
        << shortNumber(b.replay.linesPerSecond) << " lines/s\nSweep of 20 points: " << shortNumber(b.replay.sweepMs) << " ms on "
        << b.replay.threads << " threads (one point: " << shortNumber(b.replay.pointMs) << " ms)\n"
        << "Replay's memory at 1,000,000 keys, 7 algorithms: " << shortNumber(b.replay.bytesPerKey) << " B a key\n"
        << "Replay through a 3-zone nginx config (--config): " << shortNumber(b.replay.configLinesPerSecond) << " lines/s\n"
        << "Replay of the log through nginx_limit_req, parsing included: " << shortNumber(b.replay.combinedLinesPerSecond)
        << " lines/s (a line " << shortNumber(combinedFloorRatio(b)) << "x the floor)\n"
        << "advise --for nginx --compare on that log: " << shortNumber(b.replay.adviseMs) << " ms (one replay through each of "
        << "nginx_limit_req, token_bucket and gcra: " << shortNumber(b.replay.familiesReplayMs) << " ms)\n"
        << targetsText(checkTargets(QJsonDocument::fromJson(QByteArray::fromStdString(benchJson(b))).object()));
    return out.str();
}

// readComparison reads --compare's OLD.json and, when named, NEW.json: before the two-minute
// run, so a bad path fails at once. It returns false after saying why on stderr.
bool readComparison(const QCommandLineParser& parser, std::optional<QJsonObject>& old, std::optional<QJsonObject>& saved)
{
    const QStringList positional = parser.positionalArguments();
    QString error;
    old = readBenchJson(parser.value("compare"), error);
    if (old && !positional.isEmpty())
        saved = readBenchJson(positional.front(), error);
    if (!old || (!positional.isEmpty() && !saved)) {
        std::cerr << "ratelab: " << error.toStdString() << std::endl;
        return false;
    }
    return true;
}

} // namespace

int runBench(QCommandLineParser& parser, const QStringList& args)
{
    parser.addOption({"json", "Print one JSON object instead of a table."});
    parser.addOption({"compare", "Print the ratios of this run (or of NEW.json) to the run saved in OLD.json.", "OLD.json"});
    parser.addPositionalArgument("NEW.json", "With --compare: a saved run to compare instead of running the bench.", "[NEW.json]");
    parser.addHelpOption();
    if (QString error; !parseOptions(parser, args, error))
        return fail(error.toStdString());
    if (parser.isSet("help")) {
        std::cout << helpText(parser);
        return 0;
    }
    const bool comparing = parser.isSet("compare");
    if (parser.positionalArguments().size() > (comparing ? 1 : 0)) {
        std::cerr << "ratelab: bench takes no arguments"
                  << (comparing ? " but one saved run to compare" : " (a saved run needs --compare OLD.json)") << std::endl;
        return 2;
    }
    std::optional<QJsonObject> old, saved;
    if (comparing && !readComparison(parser, old, saved))
        return 2;
    if (!saved) {
        const BenchRun run = measureBench();
        if (!old) {
            std::cout << (parser.isSet("json") ? benchJson(run) : benchText(run));
            return 0;
        }
        saved = QJsonDocument::fromJson(QByteArray::fromStdString(benchJson(run))).object();
    }
    const BenchComparison c = compareBench(*old, *saved);
    std::cout << (parser.isSet("json") ? comparisonJson(c)
                                       : comparisonText(c) + "In the new run: " + targetsText(checkTargets(*saved)));
    return 0;
}

} // namespace ratelab::app
