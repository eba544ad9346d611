#include "bench_redis.h"

#include "arithmetic/decimal.h"
#include "report/report.h"
#include "engine/layered.h"
#include "redis_store.h"
#include "server_script.h"
#include "traffic_options.h"

#include <QElapsedTimer>

#ifndef RATELAB_NO_REDIS
#include <hiredis/hiredis.h>
#endif

#include <memory>
#include <sstream>

namespace ratelab::app {

namespace {

constexpr int kCalls = 10'000;

std::string number0(double v) { return std::to_string(static_cast<long long>(v + 0.5)); }

#ifndef RATELAB_NO_REDIS
// The two workloads every script runs: `admit`, a limit no caller reaches (10^9 per ms: every
// call admitted and written, the sliding log holding about a millisecond of entries), and `deny`,
// 100 per s (all but the first 100 calls of each second denied: the path under attack).
LimiterConfig workload(bool admit)
{
    return admit ? LimiterConfig::make(1'000'000'000, 1'000'000) : LimiterConfig::make(100, kNanosPerSecond);
}

struct Connection {
    std::unique_ptr<redisContext, void (*)(redisContext*)> c;
    explicit Connection(const std::string& address) : c(redisConnectUnix(address.substr(5).c_str()), redisFree)
    {
        if (!c || c->err)
            throw io::RedisError("bench: cannot connect to " + address);
    }
    // call runs one command and returns its reply (an error reply throws).
    std::unique_ptr<redisReply, void (*)(void*)> call(const std::vector<std::string>& args)
    {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (const std::string& a : args) {
            argv.push_back(a.data());
            lens.push_back(a.size());
        }
        std::unique_ptr<redisReply, void (*)(void*)> r(
            static_cast<redisReply*>(redisCommandArgv(c.get(), int(argv.size()), argv.data(), lens.data())), freeReplyObject);
        if (!r || r->type == REDIS_REPLY_ERROR)
            throw io::RedisError("bench: " + args.front() + " failed: " + (r ? std::string(r->str, r->len) : "no reply"));
        return r;
    }
    // usecPerCall reads usec_per_call of one command from INFO commandstats.
    double usecPerCall(const std::string& command)
    {
        const auto r = call({"INFO", "commandstats"});
        const std::string info(r->str, r->len), tag = "cmdstat_" + command + ":";
        const auto at = info.find(tag);
        const auto u = info.find("usec_per_call=", at);
        return at == std::string::npos || u == std::string::npos ? 0 : std::stod(info.substr(u + 14));
    }
};

// measure runs kCalls calls made by `args(i)` and reads the server's figures for `command`.
template <typename Args>
RedisBenchRow measure(Connection& c, const std::string& name, const std::string& command, Args&& args, int allowedAt)
{
    (void)c.call({"CONFIG", "RESETSTAT"});
    RedisBenchRow row{name, 0, 0, 0};
    int admitted = 0;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kCalls; ++i) {
        const auto r = c.call(args(i));
        if (allowedAt >= 0 && r->type == REDIS_REPLY_ARRAY && r->elements > std::size_t(allowedAt))
            admitted += r->element[allowedAt]->integer != 0;
    }
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    row.callsPerS = kCalls / seconds;
    row.usedCpuUsPerCall = c.usecPerCall(command);
    row.admittedShare = allowedAt >= 0 ? double(admitted) / kCalls : 1.0;
    return row;
}

// benchWorkload measures every script on one workload, appending one row per script.
void benchWorkload(Connection& c, const LimiterConfig& config, const std::string& tag, std::vector<RedisBenchRow>& rows)
{
    QElapsedTimer clock;
    clock.start();
    for (Algorithm a : kAllAlgorithms) {
        const std::string id(algorithmId(a));
        const auto loaded = c.call({"SCRIPT", "LOAD", io::luaScript(a)});
        const std::string sha(loaded->str, loaded->len);
        const std::string key = "{bench:" + tag + "}:" + id;
        rows.push_back(measure(c, id, "evalsha", [&](int) {
            std::vector<std::string> args{"EVALSHA", sha, a == Algorithm::SlidingWindowLog ? "2" : "1", key};
            if (a == Algorithm::SlidingWindowLog)
                args.push_back(key + ":log");
            args.push_back(std::to_string(clock.nsecsElapsed()));
            if (isWindowAlgorithm(a)) {
                args.push_back(std::to_string(config.limit()));
                args.push_back(std::to_string(config.windowNanos()));
            } else {
                args.push_back(std::to_string(config.capacity()));
                args.push_back(std::to_string(config.rate().tokens));
                args.push_back(std::to_string(config.rate().perNanos));
            }
            args.push_back("60000");
            return args;
        }, 0));
    }
    std::vector<std::pair<std::string, std::vector<Layer>>> policies;
    for (Algorithm a : kAllAlgorithms)
        policies.push_back({"server_clock/" + std::string(algorithmId(a)), {Layer{a, config}}});
    policies.push_back({"server_clock/token_bucket+sliding_window_counter",
                        {Layer{Algorithm::TokenBucket, config}, Layer{Algorithm::SlidingWindowCounter, config}}});
    for (const auto& [name, layers] : policies) {
        const auto loaded = c.call({"SCRIPT", "LOAD", io::serverClockScript(layers)});
        std::vector<std::string> args{"EVALSHA", std::string(loaded->str, loaded->len), std::to_string(layers.size())};
        for (std::size_t i = 0; i < layers.size(); ++i)
            args.push_back("rl:{bench:" + tag + ":" + name + "}:" + std::to_string(i + 1));
        rows.push_back(measure(c, name, "evalsha", [&](int) { return args; }, 0));
    }
}

#endif

} // namespace

RedisBench benchRedis()
{
    RedisBench out;
#ifdef RATELAB_NO_REDIS
    out.absent = std::string("redis: ") + io::kNoRedisBackend;
#else
    try {
        io::PrivateRedis server;
        Connection c(server.address());
        out.rows.push_back(measure(c, "incr", "incr", [](int) { return std::vector<std::string>{"INCR", "bench:incr"}; }, -1));
        std::vector<RedisBenchRow> admit, deny;
        benchWorkload(c, workload(true), "admit", admit);
        benchWorkload(c, workload(false), "deny", deny);
        for (std::size_t i = 0; i < admit.size(); ++i) {
            RedisBenchRow row = admit[i];
            row.deniedCallsPerS = deny[i].callsPerS;
            row.deniedUsedCpuUsPerCall = deny[i].usedCpuUsPerCall;
            row.deniedShare = 1.0 - deny[i].admittedShare;
            out.rows.push_back(row);
        }
    } catch (const std::exception& e) {
        out.rows.clear();
        out.absent = e.what();
    }
#endif
    return out;
}

std::string redisBenchJson(const RedisBench& bench)
{
    std::ostringstream out;
    out << "\"redis\": {";
    if (!bench.absent.empty()) {
        out << "\"absent\": " << jsonString(bench.absent) << "}";
        return out.str();
    }
    out << "\"calls\": " << kCalls << ", \"scripts\": {";
    for (std::size_t i = 0; i < bench.rows.size(); ++i) {
        const RedisBenchRow& r = bench.rows[i];
        out << (i ? ",\n   " : "\n   ") << "\"" << r.script << "\": {\"redis_calls_per_s\": " << formatNumber(r.callsPerS)
            << ", \"used_cpu_us_per_call\": " << formatNumber(r.usedCpuUsPerCall);
        if (r.script != "incr")
            out << ", \"denied\": {\"redis_calls_per_s\": " << formatNumber(r.deniedCallsPerS)
                << ", \"used_cpu_us_per_call\": " << formatNumber(r.deniedUsedCpuUsPerCall) << ", \"denied_share\": "
                << formatNumber(r.deniedShare) << "}";
        out << "}";
    }
    out << "}}";
    return out.str();
}

std::string redisBenchText(const RedisBench& bench)
{
    if (!bench.absent.empty())
        return "Redis scripts: absent (" + bench.absent + ")\n";
    std::ostringstream out;
    out << "Redis scripts (" << kCalls << " calls a figure, one connection, no pipelining): calls/s and server us/call,\n"
        << "admitted (10^9 per ms) and denied (100 per s)\n";
    for (const RedisBenchRow& r : bench.rows) {
        out << "  " << r.script << std::string(50 - std::min<std::size_t>(49, r.script.size()), ' ')
            << number0(r.callsPerS) << " /s " << formatNumber(r.usedCpuUsPerCall) << " us";
        if (r.script != "incr")
            out << "   denied " << number0(r.deniedCallsPerS) << " /s " << formatNumber(r.deniedUsedCpuUsPerCall) << " us";
        out << "\n";
    }
    return out.str();
}

} // namespace ratelab::app
