#include "redis_check.h"

#include "limiters/algorithm_facts.h"
#include "arithmetic/decimal.h"
#include "qtext.h"
#include "redis_run.h"
#include "scenario/rows.h"
#include "scenario/scenario_parts.h"

#include <functional>
#include <memory>

namespace ratelab::io {

namespace {

// sharedVariant is the scenario Redis models: one atomic store, on the same nodes and clocks. For
// another coordination, note says so (the check is of the shared variant, not the chart on screen).
Scenario sharedVariant(const Scenario& s, QString& note)
{
    const ClusterConfig cluster = s.cluster.value_or(ClusterConfig{});
    if (cluster.coordination() != Coordination::Shared)
        note = QString("This scenario's nodes coordinate as %1; Redis models one shared store (an atomic "
                       "script a decision), so this checked the shared variant of the same scenario, not "
                       "the chart on screen. ")
                   .arg(q(coordinationId(cluster.coordination())));
    ClusterConfig::Options shared = cluster.options();
    shared.coordination = Coordination::Shared;
    shared.latencyNanos = shared.syncNanos = 0;
    Scenario checked = s;
    if (s.cluster)
        checked.cluster = ClusterConfig::make(shared);
    return checked;
}

// attemptsOf counts the attempts every row makes, retries included: the progress bar's total.
std::size_t attemptsOf(const Scenario& checked, const EngineRequests& requests)
{
    std::size_t attempts = 0;
    for (std::size_t row = 0; row < rowCount(checked); ++row) {
        EngineSetup counting = engineSetup(checked, row);
        counting.keepLog = false;
        attempts += std::size_t(runRow(counting, requests).clients.attempts);
    }
    return attempts;
}

// askRedis runs every row with its decisions asked of the store; it throws StoreDisagrees at
// the first that differs from the simulation's.
void askRedis(RedisStore& store, const Scenario& checked, const EngineRequests& requests, RedisProgress* progress)
{
    std::size_t before = 0;
    for (std::size_t row = 0; row < rowCount(checked); ++row) {
        std::function<bool(std::size_t)> decided;
        if (progress)
            decided = [&](std::size_t n) {
                progress->done.store(before + n, std::memory_order_relaxed);
                return !progress->cancel.load(std::memory_order_relaxed);
            };
        RedisRun run(store, "ratelab", decided);
        EngineSetup setup = engineSetup(checked, row);
        setup.keepLog = false;
        setup.external = run.asker();
        before += std::size_t(runRow(setup, requests).clients.attempts);
        run.finish();
    }
}

} // namespace

RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address) { return checkAgainstRedis(s, address, nullptr); }

std::size_t redisDecisions(const Scenario& s)
{
    try {
        return resolveArrivals(s).size() * rowCount(s);
    } catch (const InputError&) {
        return 0;
    }
}

RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address, RedisProgress* progress)
{
    RedisCheck out;
    int interrupted = 0;
    try {
        checkScenario(s);
        QString variant;
        const Scenario checked = sharedVariant(s, variant);
        if (const std::string why = refusedThroughRedis(checked); !why.empty())
            return {false, "Not checked: " + q(why) + "."};
        checkLuaDomain(checked);
        const RowInputs in = resolveRowInputs(checked);
        const EngineRequests requests{in.arrivals, in.costs, in.clientOf};
        const std::size_t rows = rowCount(checked);
        const std::size_t attempts = attemptsOf(checked, requests);
        std::unique_ptr<PrivateRedis> server;
        if (address.empty())
            server = std::make_unique<PrivateRedis>();
        RedisStore store(server ? server->address() : address);
        if (progress)
            progress->total = attempts;
        try {
            askRedis(store, checked, requests, progress);
        } catch (const StoreDisagrees& e) {
            return {false, variant + q(disagreement(e)) + "."};
        }
        const ClusterConfig cluster = checked.cluster.value_or(ClusterConfig{});
        out.agreed = true;
        const QString what = checked.layers.empty() ? QString("%1 algorithms").arg(checked.algorithms.size())
                                                     : QString("%1 rows").arg(rows);
        out.summary = variant + QString("Every decision agreed: %1 attempts (%2 requests) x %3 through the Lua scripts on %4, "
                              "the same as the simulation with one shared store%5.")
                          .arg(attempts)
                          .arg(in.arrivals.size())
                          .arg(what)
                          .arg(server ? QString("a private redis-server") : q(address))
                          .arg(cluster.nodes() > 1 ? QString(" on %1 nodes").arg(cluster.nodes()) : QString());
    } catch (const Interrupted& e) { // the keys are deleted and the server stopped by now
        interrupted = e.signal();
    } catch (const InputError& e) {
        out = {false, "Not checked: " + q(e.what())};
    } catch (const RedisError& e) {
        if (progress && progress->cancel)
            out = {false, QString("Cancelled after %1 of %2 decisions.").arg(progress->done.load()).arg(progress->total.load())};
        else
            out = {false, "Not checked: " + q(e.what())};
    } catch (const std::exception& e) {
        out = {false, "Not checked: " + q(e.what())};
    }
    if (interrupted)
        endBySignal(interrupted);
    return out;
}

} // namespace ratelab::io
