#include "client_options.h"

#include "engine/clients.h"
#include "arithmetic/decimal.h"
#include "scenario_options.h"

#include <algorithm>

namespace ratelab::app {

void addClientOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"clients", "Number of clients K, 1 to 100000: request i is client i mod K (default 1).", "K"},
        {"key", "Limit per client (one limiter each) or global (one for all) (default client).", "client|global"},
        {"retry",
         "Retry policy for a denied attempt: " + QString::fromStdString(idList(kAllRetryPolicies, retryPolicyId))
             + " (default none).",
         "policy"},
        {"retry-delay", "Seconds before an immediate retry (default 0).", "seconds"},
        {"max-retries", "Retries per request at most, 0 to 100 (default 3).", "M"},
        {"backoff-base", "Backoff: base seconds, doubled per attempt (default 0.1).", "seconds"},
        {"backoff-cap", "Backoff: cap on base * 2^attempt, in seconds (default 10).", "seconds"},
        {"jitter", "Backoff: full, equal, decorrelated or none (default full); each client draws from its own stream.",
         "name"},
        {"cohort",
         "A cohort of K clients with its own retry policy (repeatable; clients are numbered cohort by cohort), e.g. "
         "9:retry_after or 1:immediate:retry_delay=0.1,max_retries=20; options retry_delay, max_retries, "
         "backoff_base, backoff_cap, jitter. Cohorts replace --retry and its options.",
         "K:POLICY[:key=value,...]"},
    });
}

void applyClientOptions(const QCommandLineParser& p, Scenario& s)
{
    const bool given = anySettingFlag(p, clientSettings());
    std::int64_t named = 0; // the arrivals name clients 0 .. named - 1
    for (std::int64_t c : s.explicitClients)
        named = std::max(named, c + 1);
    if (!given && !s.clients && named == 0)
        return;
    // Each value through the settings codec, as a scenario file's; then what the options given
    // mean together, named by option.
    ClientOptions o = s.clients ? s.clients->options() : ClientOptions{};
    readSettingFlags(p, clientSettings(), o);
    if (!p.isSet("clients"))
        o.clients = std::max(o.clients, named);
    for (const char* name : {"retry", "retry-delay", "max-retries", "backoff-base", "backoff-cap", "jitter"})
        if (p.isSet(name) && !o.cohorts.empty())
            throw InputError(std::string("--") + name + ": the cohorts give each client its policy; give it in --cohort");
    if (p.isSet("cohort")) { // the cohorts hold every client, each with its own policy
        const std::int64_t asked = o.clients;
        std::vector<Cohort> cohorts = o.cohorts;
        o = withCohorts(o, std::move(cohorts));
        if (p.isSet("clients") && asked != o.clients)
            throw InputError("--clients " + std::to_string(asked) + ": the cohorts hold " + std::to_string(o.clients)
                             + " clients");
    }
    if (named > o.clients)
        throw InputError("--clients: the arrivals name client " + std::to_string(named - 1) + ", but --clients "
                         + std::to_string(o.clients) + " numbers them 0 to " + std::to_string(o.clients - 1));
    o.seed = s.pattern.seed;
    s.clients = ClientConfig::make(o);
}

} // namespace ratelab::app
