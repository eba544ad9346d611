// The real store: the limiters as Redis Lua scripts, run through hiredis (redis_store.cpp; a
// build without hiredis has redis_none.cpp in its place).
//
// Each algorithm has a script (resources/lua/ID.lua, compiled in as :/lua/ID.lua) that decides
// one request atomically, handed the node clock in integer nanoseconds; the script keeps the store
// clock itself (never back in time), so a scenario run through it gives exactly the decisions of
// coordination `shared` while every integer it forms stays below 2^53 (Lua numbers are doubles).
//
// Nothing here waits without a bound: connecting, each call, and starting a private server all
// have timeouts, and every failure is a RedisError whose message is one line naming the address.
#pragma once

#include "engine/cluster.h"
#include "limiters/config.h"
#include "arithmetic/decimal.h"
#include "interrupt.h"
#include "limiters/limiter.h"

#include <array>
#include <chrono>
#include <memory>
#include <span>
#include <stdexcept>
#include <functional>
#include <string>
#include <vector>

namespace ratelab::io {

// RedisError: Redis missing, unreachable, or an error reply. One line, naming the address.
class RedisError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// redisBackendBuilt is false in a build without hiredis (no libhiredis-dev, or configured with
// -DRATELAB_REDIS=OFF): there every PrivateRedis and RedisStore throws RedisError saying
// kNoRedisBackend, and the commands refuse --backend redis by name before any work.
bool redisBackendBuilt();
inline constexpr const char* kNoRedisBackend =
    "this ratelab was built without hiredis (libhiredis-dev), so it has no Redis backend";

// kLuaExactBound is 2^53: the scripts are exact while every integer they form is below it.
inline constexpr std::int64_t kLuaExactBound = std::int64_t(1) << 53;

// luaScript returns the script of an algorithm (the text `ratelab lua ALG` prints).
std::string luaScript(Algorithm algorithm);

// checkLuaDomain throws InputError when a scenario would make the algorithm's script form an
// integer at or above 2^53: maxClock is the latest node clock handed (last arrival + skew),
// maxCost the largest request cost (a cost above 1 doubles some of the scripts' bounds).
void checkLuaDomain(Algorithm algorithm, const LimiterConfig& config, Nanos maxClock, std::int64_t maxCost = 1);

// PrivateRedis runs `redis-server` on a unix socket in a temporary directory, without
// persistence or a TCP port, for as long as it lives.
class PrivateRedis {
public:
    // It throws RedisError when redis-server cannot be started or does not answer PING within
    // startTimeout. extraArguments go to redis-server after RateLab's own (e.g. "--cluster-enabled",
    // "yes" for a one-node Redis Cluster in the tests).
    explicit PrivateRedis(std::chrono::milliseconds startTimeout = std::chrono::seconds(10),
                          const std::vector<std::string>& extraArguments = {});
    ~PrivateRedis();
    PrivateRedis(const PrivateRedis&) = delete;
    PrivateRedis& operator=(const PrivateRedis&) = delete;

    // address is "unix:/path/to/redis.sock", for RedisStore.
    std::string address() const;
    // stop shuts the server down (also done by the destructor).
    void stop();

private:
    SignalCleanup m_cleanup; // first: the handler outlives the server
    struct State;
    std::unique_ptr<State> m;
};

struct RedisTimeouts {
    std::chrono::milliseconds connect{2000};
    std::chrono::milliseconds command{5000};
};

// RedisStore runs scenarios through the scripts on one Redis: "host:port" or "unix:/path".
class RedisStore {
public:
    explicit RedisStore(std::string address, RedisTimeouts timeouts = {});
    ~RedisStore();
    RedisStore(const RedisStore&) = delete;
    RedisStore& operator=(const RedisStore&) = delete;

    // run decides every arrival through the algorithm's script, one EVALSHA per decision in
    // arrival order, on one connection per node (each handing its node clock), with each
    // request's cost (costs empty: all 1), through one RedisRun (keys under a prefix unique to the
    // run, deleted when it ends, however it ends). The decisions equal the engine's (runRow) with
    // coordination shared on the same cluster. Throws InputError (domain, checked first),
    // RedisError or Interrupted. `decided`, when given, is called after each decision with how
    // many are done; returning false stops the run (RedisError "cancelled").
    std::vector<Decision> run(Algorithm algorithm, const LimiterConfig& config, const ClusterConfig& cluster,
                              std::span<const Nanos> arrivals, const std::string& key = "ratelab",
                              std::span<const std::uint64_t> clients = {}, std::span<const std::int64_t> costs = {},
                              const std::function<bool(std::size_t)>& decided = {});

    // evalScript runs the algorithm's script on node `node`'s connection (loading it there once)
    // with `keys` and `args`, and returns the six integers every script answers.
    std::array<long long, 6> evalScript(std::size_t node, Algorithm algorithm, const std::vector<std::string>& keys,
                                        const std::vector<std::string>& args);
    // deleteKeys deletes keys, in batches; a store already gone is no error (its keys are gone or
    // expire).
    void deleteKeys(const std::vector<std::string>& keys) noexcept;

    // runPrefix returns the RUN part of the next run's keys: this process, this store and a
    // count of its runs, with a random part ("4242.9f3a1c.3").
    std::string runPrefix() const;
    // takeRunPrefix returns runPrefix() and counts the run.
    std::string takeRunPrefix();

    const std::string& address() const { return m_address; }

private:
    struct Connection;
    Connection& connection(std::size_t node);

    SignalCleanup m_cleanup;
    std::string m_address;
    RedisTimeouts m_timeouts;
    std::string m_storeId;
    std::uint64_t m_runs = 0;
    std::vector<std::unique_ptr<Connection>> m_connections;
};

} // namespace ratelab::io
