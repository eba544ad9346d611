#include "redis_run.h"

#include "limiters/algorithm_facts.h"
#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab::io {

namespace {

// kTtlMs is the expiry RateLab hands the scripts: an hour of wall time. Simulated time runs far
// faster than the wall, so a TTL derived from the window could drop a key mid-run; an hour
// still lets the keys of a finished run go away.
constexpr const char* kTtlMs = "3600000";

std::string verdict(const Decision& d)
{
    if (d.allowed)
        return "admitted" + (d.delay > 0 ? " after " + formatSeconds(d.delay) + " s" : std::string()) + ", "
               + std::to_string(d.remaining) + " left";
    return d.retryNever() ? std::string("denied, never to pass")
                          : "denied, retry after " + formatSeconds(d.retryAfter) + " s";
}

} // namespace

void checkLuaDomain(const Scenario& s)
{
    const std::vector<Nanos> arrivals = resolveArrivals(s);
    const std::vector<std::int64_t> costs = resolveCosts(s);
    const Nanos skew = s.cluster ? s.cluster->skewNanos() : 0;
    const Nanos last = arrivals.empty() ? 0 : arrivals.back();
    const Nanos clock = last > kMaxNanos - skew ? kMaxNanos : last + skew;
    const std::int64_t maxCost = costs.empty() ? 1 : *std::max_element(costs.begin(), costs.end());
    for (Algorithm a : s.algorithms)
        checkLuaDomain(a, s.config, clock, maxCost);
    for (const Layer& l : s.layers)
        checkLuaDomain(l.algorithm, l.config, clock, maxCost);
}

std::string disagreement(const StoreDisagrees& e)
{
    return std::string(algorithmId(e.ask.algorithm)) + (e.ask.layer > 0 ? " (layer " + std::to_string(e.ask.layer + 1) + ")" : "")
           + " disagrees at attempt " + std::to_string(e.ask.attempt + 1) + " (t = " + formatSeconds(e.t)
           + " s): Redis " + verdict(e.store) + "; the simulation " + verdict(e.model);
}

RedisRun::RedisRun(RedisStore& store, std::string key, std::function<bool(std::size_t)> decided)
    : m_store(store)
    , m_run(store.takeRunPrefix())
    , m_key(std::move(key))
    , m_decided(std::move(decided))
{
}

RedisRun::~RedisRun() { deleteKeys(); }

const std::vector<std::string>& RedisRun::keysOf(const StoreAsk& ask)
{
    auto [at, added] = m_keys.try_emplace({ask.key, ask.layer, ask.algorithm});
    if (added) {
        const std::string key = ask.key < 0 ? m_key : m_key + ".client-" + std::to_string(ask.key);
        std::string k1 = "{ratelab:" + m_run + ":" + key + "}:" + std::string(algorithmId(ask.algorithm));
        if (ask.layer > 0)
            k1 += ":layer" + std::to_string(ask.layer + 1);
        at->second.push_back(k1);
        if (ask.algorithm == Algorithm::SlidingWindowLog)
            at->second.push_back(k1 + ":log");
    }
    return at->second;
}

Decision RedisRun::decide(const StoreAsk& ask)
{
    if (const int sig = pendingSignal()) {
        deleteKeys();
        throw Interrupted(sig);
    }
    const LimiterConfig& config = *ask.config;
    checkLuaDomain(ask.algorithm, config, ask.clock, ask.cost);
    m_args.clear();
    m_args.push_back(std::to_string(ask.clock));
    if (isWindowAlgorithm(ask.algorithm)) {
        m_args.push_back(std::to_string(config.limit()));
        m_args.push_back(std::to_string(config.windowNanos()));
    } else {
        const Rate r = config.rate();
        m_args.push_back(std::to_string(config.capacity()));
        m_args.push_back(std::to_string(r.tokens));
        m_args.push_back(std::to_string(r.perNanos));
    }
    m_args.push_back(kTtlMs);
    if (ask.cost != 1)
        m_args.push_back(std::to_string(ask.cost));
    const std::array<long long, 6> v = m_store.evalScript(std::size_t(ask.node), ask.algorithm, keysOf(ask), m_args);
    Decision d;
    d.allowed = v[0] != 0;
    d.remaining = static_cast<std::int32_t>(v[1]);
    d.retryAfter = v[2];
    d.delay = v[3];
    d.level = static_cast<double>(v[4]) / static_cast<double>(v[5]);
    if (ask.algorithm == Algorithm::Gcra) // backlog in seconds, computed as Gcra computes it
        d.level = v[4] > 0 ? d.level / 1e9 : 0.0;
    if (ask.layer == 0 && m_decided && !m_decided(++m_attempts))
        throw RedisError("cancelled");
    return d;
}

std::function<Decision(const StoreAsk&)> RedisRun::asker()
{
    return [this](const StoreAsk& ask) { return decide(ask); };
}

void RedisRun::finish()
{
    deleteKeys();
    if (const int sig = pendingSignal())
        throw Interrupted(sig);
}

void RedisRun::deleteKeys()
{
    std::vector<std::string> all;
    for (const auto& [id, keys] : m_keys)
        all.insert(all.end(), keys.begin(), keys.end());
    m_keys.clear();
    if (!all.empty())
        m_store.deleteKeys(all);
}

} // namespace ratelab::io
