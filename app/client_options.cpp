#include "client_options.h"

#include "engine/clients.h"
#include "arithmetic/decimal.h"
#include "scenario_options.h"

#include <algorithm>

namespace ratelab::app {

namespace {

const char* const kClientOptionNames[] = {"clients", "key", "retry", "retry-delay", "max-retries", "backoff-base",
                                          "backoff-cap", "jitter", "cohort"};

std::string knownPolicies()
{
    std::string out;
    for (RetryPolicy p : kAllRetryPolicies)
        out += (out.empty() ? "" : ", ") + std::string(retryPolicyId(p));
    return out;
}

} // namespace

void addClientOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"clients", "Number of clients K, 1 to 100000: request i is client i mod K (default 1).", "K"},
        {"key", "Limit per client (one limiter each) or global (one for all) (default client).", "client|global"},
        {"retry", "Retry policy for a denied attempt: " + QString::fromStdString(knownPolicies()) + " (default none).",
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
    const bool given = std::any_of(std::begin(kClientOptionNames), std::end(kClientOptionNames),
                                   [&](const char* name) { return p.isSet(name); });
    std::int64_t named = 0; // the arrivals name clients 0 .. named - 1
    for (std::int64_t c : s.explicitClients)
        named = std::max(named, c + 1);
    if (!given && !s.clients && named == 0)
        return;
    ClientOptions o = s.clients ? s.clients->options() : ClientOptions{};
    if (p.isSet("clients"))
        o.clients = *integerOption(p, "clients", 1, ClientConfig::kMaxClients);
    else
        o.clients = std::max(o.clients, named);
    if (p.isSet("key")) {
        const auto k = keyModeFromId(p.value("key").toStdString());
        if (!k)
            throw InputError("--key: unknown key " + quoted(p.value("key").toStdString()) + " (known: client, global)");
        o.key = *k;
    }
    if (p.isSet("retry")) {
        const auto r = retryPolicyFromId(p.value("retry").toStdString());
        if (!r)
            throw InputError("--retry: unknown policy " + quoted(p.value("retry").toStdString()) + " (known: "
                             + knownPolicies() + ")");
        o.retry = *r;
    }
    o.retryDelayNanos = secondsOption(p, "retry-delay").value_or(o.retryDelayNanos);
    o.maxRetries = integerOption(p, "max-retries", 0, ClientConfig::kMaxRetries).value_or(o.maxRetries);
    o.backoffBaseNanos = secondsOption(p, "backoff-base", Sign::Positive).value_or(o.backoffBaseNanos);
    o.backoffCapNanos = secondsOption(p, "backoff-cap", Sign::Positive).value_or(o.backoffCapNanos);
    if (p.isSet("jitter")) {
        const auto j = jitterFromId(p.value("jitter").toStdString());
        if (!j)
            throw InputError("--jitter: unknown jitter " + quoted(p.value("jitter").toStdString())
                             + " (known: full, equal, decorrelated, none)");
        o.jitter = *j;
    }
    for (const char* name : {"retry", "retry-delay", "max-retries", "backoff-base", "backoff-cap", "jitter"})
        if (p.isSet(name) && (p.isSet("cohort") || !o.cohorts.empty()))
            throw InputError(std::string("--") + name + ": the cohorts give each client its policy; give it in --cohort");
    if (p.isSet("cohort")) {
        std::vector<Cohort> cohorts;
        for (const QString& v : p.values("cohort")) {
            try {
                cohorts.push_back(parseCohort(v.toStdString()));
            } catch (const InputError& e) {
                throw InputError("--cohort " + quoted(v.toStdString()) + ": " + e.what());
            }
        }
        const std::int64_t asked = o.clients;
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
