#include "client_options.h"

#include "arrivals_clients.h"
#include "clients.h"
#include "decimal.h"
#include "report_clients.h"
#include "scenario_options.h"

#include <algorithm>

namespace ratelab::app {

namespace {

const char* const kClientOptionNames[] = {"clients", "key", "retry", "retry-delay", "max-retries", "backoff-base",
                                          "backoff-cap"};

std::string knownPolicies()
{
    std::string out;
    for (RetryPolicy p : kAllRetryPolicies)
        out += (out.empty() ? "" : ", ") + std::string(retryPolicyId(p));
    return out;
}

ClientConfig clientConfigFromOptions(const QCommandLineParser& p, std::uint64_t seed, std::int64_t namedClients)
{
    ClientOptions o;
    o.seed = seed;
    if (p.isSet("clients"))
        o.clients = *integerOption(p, "clients", 1, ClientConfig::kMaxClients);
    else if (namedClients > 0) // the arrivals file names clients 0 .. namedClients - 1
        o.clients = namedClients;
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
    return ClientConfig::make(o);
}

// withoutArrivals returns args without --arrivals and its value (or --arrivals=VALUE).
QStringList withoutArrivals(const QStringList& args)
{
    QStringList out;
    for (qsizetype i = 0; i < args.size(); ++i) {
        if (args[i] == "--arrivals") {
            ++i;
            continue;
        }
        if (args[i].startsWith("--arrivals="))
            continue;
        out << args[i];
    }
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
    });
}

bool clientOptionsGiven(const QCommandLineParser& parser)
{
    return std::any_of(std::begin(kClientOptionNames), std::end(kClientOptionNames),
                       [&](const char* name) { return parser.isSet(name); });
}

void compareWithClients(const QCommandLineParser& parser, const QStringList& args, bool csv, std::ostream& out)
{
    std::optional<ArrivalsWithClients> file;
    if (parser.isSet("arrivals")) {
        const std::string path = parser.value("arrivals").toStdString();
        if (path.empty())
            throw InputError("--arrivals: no file name given");
        if (parser.isSet("save-scenario"))
            throw InputError("--save-scenario cannot record arrivals read with the client options; save without them");
        file = readArrivalsWithClientsFile(path);
    }
    // The scenario without --arrivals (read above, since it may hold a client column).
    QCommandLineParser rest;
    addScenarioOptions(rest);
    addClientOptions(rest);
    rest.addOption({"format", "", "json|csv"});
    rest.addHelpOption();
    if (!rest.parse(withoutArrivals(args)))
        throw InputError(rest.errorText().toStdString());
    Scenario scenario = scenarioFromOptions(rest);
    std::int64_t namedClients = 0;
    if (file) {
        scenario.explicitArrivals = std::move(file->times);
        for (std::int64_t c : file->clients)
            namedClients = std::max(namedClients, c + 1);
    }
    if (!scenario.layers.empty())
        throw InputError("--layer and the client options cannot be combined yet: choose one");
    if (!resolveCosts(scenario).empty())
        throw InputError("request cost is not simulated with clients that retry yet: leave out --cost with the client "
                         "options");
    for (Algorithm a : scenario.algorithms)
        if (isProduct(a))
            throw InputError(std::string(algorithmId(a)) + " is not simulated with clients that retry yet: leave it "
                             "out of --algorithms with the client options");
        else if (a == Algorithm::NginxLimitReq)
            throw InputError("nginx_limit_req is not simulated with clients that retry yet: leave it out of "
                             "--algorithms with the client options");
    const ClientConfig clients = clientConfigFromOptions(parser, scenario.pattern.seed, namedClients);
    const std::vector<std::int64_t> clientOf = file ? std::move(file->clients) : std::vector<std::int64_t>{};
    if (!clientOf.empty() && namedClients > clients.clients())
        throw InputError("--clients: the arrivals file names client " + std::to_string(namedClients - 1)
                         + ", but --clients " + std::to_string(clients.clients()) + " numbers them 0 to "
                         + std::to_string(clients.clients() - 1));
    const ClientsTrace trace =
        simulateClients(scenario.config, clients, scenario.algorithms, resolveArrivals(scenario), clientOf);
    if (csv)
        writeClientsCsv(out, trace);
    else
        writeClientsJson(out, scenario, trace);
}

} // namespace ratelab::app
