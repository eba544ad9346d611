// RedisRun: one run through the real store, asked by the engine (EngineSetup::external).
//
// The engine decides every attempt of a row on its model of the store, and asks Redis the same
// question for each layer it asks: the layer's script, on the deciding node's connection (handing
// its node clock), on the Redis key of that (limiter key, layer). The two must agree, so a retry,
// a balancer pick or a header built from the model is one Redis would have led to. Keys live
// under a prefix unique to the run, {ratelab:RUN:KEY}:ALG[:layerN], and are deleted when the run
// ends, however it ends (an error, a cancel, SIGINT or SIGTERM).
#pragma once

#include "engine/engine.h"
#include "redis_store.h"
#include "scenario/scenario.h"

#include <functional>
#include <map>
#include <tuple>
#include <string>
#include <vector>

namespace ratelab::io {

// checkLuaDomain throws InputError when a scenario's rows (every algorithm and every layer) would
// make a script form an integer at or above 2^53, at its last arrival (plus skew) and largest cost.
void checkLuaDomain(const Scenario& s);

// disagreement says where a run's store and model parted, in one line: the layer's algorithm, the
// attempt, its time, and both answers.
std::string disagreement(const StoreDisagrees& e);

class RedisRun {
public:
    // RedisRun starts a run on `store`: its keys are named from `key` ("ratelab"; a client's key
    // is KEY.client-N). `decided`, when given, is called after each attempt's first layer with
    // how many attempts are done; returning false stops the run (RedisError "cancelled").
    explicit RedisRun(RedisStore& store, std::string key = "ratelab", std::function<bool(std::size_t)> decided = {});
    ~RedisRun();
    RedisRun(const RedisRun&) = delete;
    RedisRun& operator=(const RedisRun&) = delete;

    // decide asks the layer's script. It throws InputError when the ask is outside the script's
    // exact domain, RedisError, or Interrupted (SIGINT/SIGTERM seen, the keys deleted).
    Decision decide(const StoreAsk& ask);
    // asker returns decide as the engine's external store.
    std::function<Decision(const StoreAsk&)> asker();
    // finish deletes the run's keys now, then throws Interrupted if a signal came since the
    // last ask. After the run is destroyed, the caller calls honourPendingSignal() for one that
    // came after that.
    void finish();

private:
    const std::vector<std::string>& keysOf(const StoreAsk& ask);
    void deleteKeys();

    RedisStore& m_store;
    RunScope m_scope; // SIGINT/SIGTERM are seen between two asks
    std::string m_run;
    std::string m_key;
    std::function<bool(std::size_t)> m_decided;
    std::map<std::tuple<std::int64_t, std::size_t, Algorithm>, std::vector<std::string>> m_keys;
    std::vector<std::string> m_args;
    std::size_t m_attempts = 0;
};

} // namespace ratelab::io
