#include "redis_check.h"

#include "algorithm_facts.h"
#include "decimal.h"
#include "redis_store.h"
#include "rows.h"

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

RedisCheck checkAgainstRedis(const Scenario& s, const std::string& address)
{
    RedisCheck out;
    try {
        checkScenario(s);
        if (s.clients || !s.layers.empty() || !resolveCosts(s).empty())
            return {false, "The Redis scripts decide one request of cost 1 at a time: turn off clients, layers and "
                           "request cost to check this scenario."};
        for (Algorithm a : s.algorithms) {
            if (a == Algorithm::NginxLimitReq)
                return {false, "nginx_limit_req has no Redis script (it is nginx's own module): untick it to check "
                               "the others."};
            if (isProduct(a))
                return {false, QString::fromStdString(std::string(algorithmId(a)))
                                   + " has no RateLab Redis script (it models a product's own code): untick it to check "
                                     "the others."};
        }
        ClusterConfig cluster = s.cluster.value_or(ClusterConfig{});
        // Redis is one atomic store: it is compared with `shared` on the same nodes and clocks.
        cluster = ClusterConfig::make({cluster.nodes(), cluster.balancer(), Coordination::Shared, 0, 0,
                                       cluster.skewNanos(), s.pattern.seed});
        const std::vector<Nanos> arrivals = resolveArrivals(s);
        std::unique_ptr<PrivateRedis> server;
        if (address.empty())
            server = std::make_unique<PrivateRedis>();
        RedisStore store(server ? server->address() : address);
        for (Algorithm a : s.algorithms) {
            const std::vector<Decision> redis = store.run(a, s.config, cluster, arrivals);
            const ClusterTrace simulated = simulateCluster(s.config, cluster, a, arrivals);
            const auto& expected = simulated.trace.decisions;
            for (std::size_t i = 0; i < arrivals.size(); ++i) {
                const Decision &r = redis[i], &e = expected[i];
                if (r.allowed != e.allowed || r.delay != e.delay || r.remaining != e.remaining || r.retryAfter != e.retryAfter)
                    return {false, QString("%1 disagrees at request %2 of %3 (t = %4 s): Redis %5, the simulation %6.")
                                       .arg(q(facts(a).title))
                                       .arg(i + 1)
                                       .arg(arrivals.size())
                                       .arg(q(formatSeconds(arrivals[i])), verdict(r), verdict(e))};
            }
        }
        out.agreed = true;
        out.summary = QString("Every decision agreed: %1 requests x %2 algorithms through the Lua scripts on %3, "
                              "the same as the simulation with one shared store%4.")
                          .arg(arrivals.size())
                          .arg(s.algorithms.size())
                          .arg(server ? QString("a private redis-server") : q(address))
                          .arg(cluster.nodes() > 1 ? QString(" on %1 nodes").arg(cluster.nodes()) : QString());
    } catch (const InputError& e) {
        out = {false, "Not checked: " + q(e.what())};
    } catch (const RedisError& e) {
        out = {false, "Not checked: " + q(e.what())};
    } catch (const std::exception& e) {
        out = {false, "Not checked: " + q(e.what())};
    }
    return out;
}

} // namespace ratelab::io
