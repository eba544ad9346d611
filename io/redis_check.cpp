#include "redis_check.h"

#include "algorithm_facts.h"
#include "decimal.h"
#include "redis_store.h"
#include "report_run.h"
#include "rows.h"

#include <functional>
#include <memory>

namespace ratelab::io {

namespace {

QString q(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

QString verdict(const Decision& d)
{
    return d.allowed ? QString("admitted, %1 left").arg(d.remaining)
                     : QString("denied, retry after %1 s").arg(q(formatSeconds(d.retryAfter)));
}

} // namespace

RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address) { return checkAgainstRedis(s, address, nullptr); }

std::size_t redisDecisions(const Scenario& s)
{
    try {
        return resolveArrivals(s).size() * s.algorithms.size();
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
        ClusterConfig cluster = s.cluster.value_or(ClusterConfig{});
        // Redis is one atomic store: it models `shared` on the same nodes and clocks. For another
        // coordination the check says so, and checks the shared variant of the same scenario.
        QString variant;
        if (cluster.coordination() != Coordination::Shared)
            variant = QString("This scenario's nodes coordinate as %1; Redis models one shared store (an atomic "
                              "script a decision), so this checked the shared variant of the same scenario, not "
                              "the chart on screen. ")
                          .arg(q(coordinationId(cluster.coordination())));
        cluster = ClusterConfig::make({cluster.nodes(), cluster.balancer(), Coordination::Shared, 0, 0,
                                       cluster.skewNanos(), s.pattern.seed});
        Scenario shared = s;
        shared.cluster = cluster;
        if (const std::string why = refusedThroughRedis(shared); !why.empty())
            return {false, "Not checked: " + q(why) + "."};
        const RowInputs in = resolveRowInputs(shared);
        const std::vector<Nanos>& arrivals = in.arrivals;
        std::unique_ptr<PrivateRedis> server;
        if (address.empty())
            server = std::make_unique<PrivateRedis>();
        RedisStore store(server ? server->address() : address);
        if (progress)
            progress->total = arrivals.size() * s.algorithms.size();
        std::size_t before = 0;
        const std::function<bool(std::size_t)> decided = [&](std::size_t n) {
            progress->done.store(before + n, std::memory_order_relaxed);
            return !progress->cancel.load(std::memory_order_relaxed);
        };
        for (std::size_t row = 0; row < s.algorithms.size(); ++row) {
            const Algorithm a = s.algorithms[row];
            const std::vector<Decision> redis = store.run(a, s.config, cluster, arrivals, "ratelab", {}, in.costs,
                                                          progress ? decided : std::function<bool(std::size_t)>{});
            before += arrivals.size();
            const RowRun simulated = runRow(engineSetup(shared, row), {in.arrivals, in.costs, in.clientOf});
            for (std::size_t i = 0; i < arrivals.size(); ++i) {
                const Decision r = redis[i], e = simulated.log[i].decision();
                if (r.allowed != e.allowed || r.delay != e.delay || r.remaining != e.remaining || r.retryAfter != e.retryAfter)
                    return {false, variant + QString("%1 disagrees at request %2 of %3 (t = %4 s): Redis %5, the simulation %6.")
                                       .arg(q(facts(a).title))
                                       .arg(i + 1)
                                       .arg(arrivals.size())
                                       .arg(q(formatSeconds(arrivals[i])), verdict(r), verdict(e))};
            }
        }
        out.agreed = true;
        out.summary = variant + QString("Every decision agreed: %1 requests x %2 algorithms through the Lua scripts on %3, "
                              "the same as the simulation with one shared store%4.")
                          .arg(arrivals.size())
                          .arg(s.algorithms.size())
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
