#include "scenario_options.h"

#include "arrivals.h"
#include "decimal.h"

#include <QStringList>

#include <functional>

namespace ratelab::app {

namespace {

QString knownAlgorithms()
{
    QStringList ids;
    for (Algorithm a : kAllAlgorithms)
        ids << QString::fromUtf8(algorithmId(a).data(), qsizetype(algorithmId(a).size()));
    return ids.join(", ");
}

// read parses option `name` with `parse` when it was given, prefixing errors with the flag.
template <typename T>
std::optional<T> read(const QCommandLineParser& p, const QString& name, const std::function<T(std::string_view)>& parse)
{
    if (!p.isSet(name))
        return std::nullopt;
    const std::string text = p.value(name).toStdString();
    try {
        return parse(text);
    } catch (const InputError& e) {
        throw InputError("--" + name.toStdString() + ": " + e.what());
    }
}

std::vector<Algorithm> parseAlgorithms(const QString& list)
{
    std::vector<Algorithm> out;
    for (const QString& part : list.split(',', Qt::SkipEmptyParts)) {
        const std::string id = part.trimmed().toStdString();
        const auto a = algorithmFromId(id);
        if (!a)
            throw InputError("--algorithms: unknown algorithm " + quoted(id) + " (known: " + knownAlgorithms().toStdString()
                             + ")");
        if (std::find(out.begin(), out.end(), *a) == out.end())
            out.push_back(*a);
    }
    if (out.empty())
        throw InputError("--algorithms: name at least one of " + knownAlgorithms().toStdString());
    return out;
}

} // namespace

void addScenarioOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"algorithms", "Algorithms to run, comma-separated: " + knownAlgorithms() + " (default: all).", "ids"},
        {"limit", "Requests allowed per window (default 10).", "L"},
        {"window", "Window length in seconds (default 10).", "seconds"},
        {"capacity", "Bucket capacity (default: the limit).", "C"},
        {"rate", "Refill/drain rate per second (default: limit / window, exact).", "per-second"},
        {"pattern", "Traffic pattern: uniform, burst, poisson or edge (default uniform).", "name"},
        {"n", "Number of requests (uniform, burst, poisson; default 15).", "N"},
        {"delay", "Seconds between requests (uniform; default 0.1).", "seconds"},
        {"start", "Time of the first request in seconds (default 0, a window boundary).", "seconds"},
        {"size", "Requests per burst (burst; default 5).", "K"},
        {"period", "Seconds between bursts (burst; default 1).", "seconds"},
        {"lambda", "Mean requests per second (poisson; default 2).", "per-second"},
        {"seed", "Random seed (poisson; default 1).", "K"},
        {"gap", "Seconds from the first burst to the window boundary (edge; default 0.001).", "seconds"},
        {"arrivals", "Read arrival times (seconds, one per line) from a file instead of a pattern.", "file"},
    });
}

Scenario scenarioFromOptions(const QCommandLineParser& p)
{
    using std::string_view;
    const std::function<std::int64_t(string_view)> integer = [](string_view s) { return parseInteger(s); };
    const std::function<Nanos(string_view)> seconds = [](string_view s) { return parseSeconds(s); };
    const std::function<Rate(string_view)> rate = [](string_view s) { return parseRate(s); };

    Scenario s;
    if (p.isSet("algorithms"))
        s.algorithms = parseAlgorithms(p.value("algorithms"));
    s.config = LimiterConfig::make(read(p, "limit", integer).value_or(10),
                                   read(p, "window", seconds).value_or(10 * kNanosPerSecond),
                                   read(p, "capacity", integer), read(p, "rate", rate));

    Pattern& pat = s.pattern;
    if (p.isSet("pattern")) {
        const auto kind = patternFromId(p.value("pattern").toStdString());
        if (!kind)
            throw InputError("--pattern: unknown pattern " + quoted(p.value("pattern").toStdString())
                             + " (known: uniform, burst, poisson, edge)");
        pat.kind = *kind;
    }
    pat.count = read(p, "n", integer).value_or(pat.count);
    pat.delayNanos = read(p, "delay", seconds).value_or(pat.delayNanos);
    pat.startNanos = read(p, "start", seconds).value_or(pat.startNanos);
    pat.burstSize = read(p, "size", integer).value_or(pat.burstSize);
    pat.periodNanos = read(p, "period", seconds).value_or(pat.periodNanos);
    pat.lambda = read(p, "lambda", rate).value_or(pat.lambda);
    const std::function<std::int64_t(string_view)> seed = [](string_view v) {
        return parseCount(v, std::numeric_limits<std::int64_t>::max());
    };
    pat.seed = static_cast<std::uint64_t>(read(p, "seed", seed).value_or(1));
    pat.gapNanos = read(p, "gap", seconds).value_or(pat.gapNanos);
    if (p.isSet("arrivals"))
        s.explicitArrivals = readArrivalsFile(p.value("arrivals").toStdString());
    return s;
}

} // namespace ratelab::app
