#include "scenario_options.h"

#include "client_options.h"
#include "server_options.h"
#include "outputpath.h"

#include <QDir>
#include <QFileInfo>
#include "cluster_options.h"

#include "traffic/arrivals.h"
#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"
#include "limiters/products/product.h"
#include "presets.h"
#include "scenariofile.h"

#include <QStringList>

#include <algorithm>
#include <functional>
#include <limits>

namespace ratelab::app {

namespace {

QString knownAlgorithms()
{
    QStringList ids;
    for (Algorithm a : kEveryAlgorithm)
        ids << QString::fromUtf8(algorithmId(a).data(), qsizetype(algorithmId(a).size()));
    return ids.join(", ");
}

// read parses option `name` with `parse` when it was given, prefixing errors with the flag, so
// every message names what to change: "--limit: must be at least 1 (got 0)".
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

// seconds parses a duration that must be >= 0, or > 0 when `positive`.
std::function<Nanos(std::string_view)> seconds(bool positive)
{
    return [positive](std::string_view text) { return parseDuration(text, positive); };
}

std::function<std::int64_t(std::string_view)> integerIn(std::int64_t min, std::int64_t max)
{
    return [min, max](std::string_view text) { return parseIntegerIn(text, min, max); };
}

// patternFlags names the options a pattern's combination error is about.
const char* patternFlags(PatternKind kind)
{
    switch (kind) {
    case PatternKind::Uniform: return "--n, --delay, --start";
    case PatternKind::Burst: return "--n, --size, --period, --start";
    case PatternKind::Poisson: return "--n, --lambda, --start";
    case PatternKind::Edge: return "--pattern edge, --limit, --window, --gap, --start";
    case PatternKind::Worst: break;
    }
    return "--pattern worst, --window-of, --algorithms, --limit, --window, --capacity, --rate";
}

std::vector<Algorithm> parseAlgorithms(const QString& list)
{
    std::vector<Algorithm> out;
    for (const QString& part : list.split(',', Qt::SkipEmptyParts)) {
        const std::string id = part.trimmed().toStdString();
        const auto a = algorithmFromId(id);
        if (!a)
            throw InputError("--algorithms: unknown algorithm " + ratelab::quoted(id) + " (known: " + knownAlgorithms().toStdString()
                             + ")");
        if (std::find(out.begin(), out.end(), *a) == out.end())
            out.push_back(*a);
    }
    if (out.empty())
        throw InputError("--algorithms: name at least one of " + knownAlgorithms().toStdString());
    return out;
}


// --- Request cost, layered policies, nginx_limit_req ---------------------------------------------
// Kept in one block, apart from the options above, so the scenario-options code can move freely.

void addCostLayerNginxOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"cost", "Cost of every request, 1 to 1000000000 (default 1); an arrivals file may give each its own (t,cost).",
         "K"},
        {"layer",
         "Add a layer of a layered policy (repeatable), e.g. token_bucket:capacity=100,rate=10; keys: limit, window, "
         "capacity, rate. Adds the result 'layered'.",
         "ALG:key=value,..."},
        {"burst", "nginx_limit_req: burst=B (default: capacity - 1).", "B"},
        {"nodelay", "nginx_limit_req: nodelay (admitted requests never wait)."},
        {"nginx-delay", "nginx_limit_req: delay=D (default 0: every request beyond the first of a burst waits).", "D"},
        {"product-option",
         "A product model's own option, by the product's name for it (repeatable): windowMs=60000, "
         "traefik.period=1m, max_burst=15.",
         "NAME=VALUE"},
    });
}

// layerOption reads one --layer value (core's grammar), naming the option and the value in a refusal.
Layer layerOption(const QString& text, const NginxOptions& nginx)
{
    try {
        return ratelab::parseLayer(text.toStdString(), nginx);
    } catch (const InputError& e) {
        throw InputError("--layer " + ratelab::quoted(text.toStdString()) + ": " + e.what());
    }
}

// applyCostLayerNginxOptions reads --cost, --layer, --burst, --nodelay and --nginx-delay into s,
// and checks that nginx can express the rate when nginx_limit_req is asked for.
void applyCostLayerNginxOptions(const QCommandLineParser& p, Scenario& s)
{
    s.cost = read(p, "cost", integerIn(1, kMaxCost)).value_or(s.cost);
    if (!s.explicitArrivals)
        s.explicitCosts.clear(); // a pattern replaced the file's arrivals, and their costs
    if (p.isSet("cost") && s.explicitArrivals && !s.explicitCosts.empty()
        && std::find(s.explicitCosts.begin(), s.explicitCosts.end(), 0) == s.explicitCosts.end())
        throw InputError("--cost: every arrival gives its own cost, so --cost would change nothing; leave it out "
                         "(it applies to the lines without one)");
    NginxOptions nginx = s.config.nginx();
    if (const auto burst = read(p, "burst", integerIn(0, LimiterConfig::kMaxLimit)))
        nginx.burst = burst;
    if (p.isSet("nodelay"))
        nginx.nodelay = true;
    nginx.delay = read(p, "nginx-delay", integerIn(0, LimiterConfig::kMaxLimit)).value_or(nginx.delay);
    if (p.isSet("nodelay") && p.isSet("nginx-delay"))
        throw InputError("--nodelay and --nginx-delay cannot be combined: choose one");
    s.config = s.config.withNginx(nginx);
    if (std::find(s.algorithms.begin(), s.algorithms.end(), Algorithm::NginxLimitReq) != s.algorithms.end())
        (void)nginxRateThousandths(s.config.rate()); // "nginx_limit_req: rate ... nearest: ..."
    if (p.isSet("product-option")) {
        std::vector<ProductOption> options = s.config.productOptions(); // a preset's or file's stay, given ones win
        for (const QString& text : p.values("product-option"))
            options.push_back(parseProductOption(text.toStdString()));
        s.config = s.config.withProductOptions(std::move(options));
    }
    checkProductOptions(s.config, s.algorithms);
    if (p.isSet("layer")) {
        s.layers.clear();
        for (const QString& text : p.values("layer"))
            s.layers.push_back(layerOption(text, nginx));
    }
}

// --- end of the request cost, layered policies and nginx_limit_req block ------------------------

} // namespace

std::optional<std::int64_t> integerOption(const QCommandLineParser& parser, const QString& name, std::int64_t min,
                                          std::int64_t max)
{
    return read(parser, name, integerIn(min, max));
}

std::optional<Nanos> secondsOption(const QCommandLineParser& parser, const QString& name, Sign sign)
{
    return read(parser, name, seconds(sign == Sign::Positive));
}

std::optional<Rate> rateOption(const QCommandLineParser& parser, const QString& name)
{
    return read<Rate>(parser, name, [](std::string_view t) { return parseRate(t); });
}

std::optional<double> scaleOption(const QCommandLineParser& parser, const QString& name)
{
    const std::function<double(std::string_view)> scale = [](std::string_view text) {
        const Rate r = parseRate(text); // any exact positive decimal or fraction: value = tokens * 1e9 / perNanos
        const Int128 value = Int128(r.tokens) * kNanosPerSecond;
        if (4 * value < r.perNanos)
            throw InputError("must be at least 0.25 (got " + std::string(text) + ")");
        if (value > 8 * Int128(r.perNanos))
            throw InputError("must be at most 8 (got " + std::string(text) + ")");
        return double(value) / double(r.perNanos);
    };
    return read(parser, name, scale);
}

namespace {

QString flagOf(std::string_view flag) { return QString::fromUtf8(flag.data(), qsizetype(flag.size())); }

} // namespace

template <typename Options>
void readSettingFlags(const QCommandLineParser& p, std::span<const Setting<Options>> table, Options& o)
{
    for (const Setting<Options>& s : table) {
        if (s.flag.empty() || !p.isSet(flagOf(s.flag)))
            continue;
        const std::string flag = "--" + std::string(s.flag);
        if (s.form != SettingForm::List) {
            const std::string text = p.value(flagOf(s.flag)).toStdString();
            try {
                s.read(o, text);
            } catch (const InputError& e) {
                throw InputError(flag + ": " + e.what());
            }
            continue;
        }
        s.clear(o);
        for (const QString& value : p.values(flagOf(s.flag))) {
            const std::string text = value.toStdString();
            try {
                s.read(o, text);
            } catch (const InputError& e) {
                throw InputError(flag + " " + ratelab::quoted(text) + ": " + e.what());
            }
        }
    }
}

template <typename Options>
bool anySettingFlag(const QCommandLineParser& p, std::span<const Setting<Options>> table)
{
    return std::any_of(table.begin(), table.end(),
                       [&](const Setting<Options>& s) { return !s.flag.empty() && p.isSet(flagOf(s.flag)); });
}

template void readSettingFlags(const QCommandLineParser&, std::span<const ClusterSetting>, ClusterConfig::Options&);
template void readSettingFlags(const QCommandLineParser&, std::span<const ClientSetting>, ClientOptions&);
template bool anySettingFlag(const QCommandLineParser&, std::span<const ClusterSetting>);
template bool anySettingFlag(const QCommandLineParser&, std::span<const ClientSetting>);

void addScenarioOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"algorithms", "Algorithms to run, comma-separated: " + knownAlgorithms() + " (default: all but nginx_limit_req).", "ids"},
        {"limit", "Requests allowed per window (default 10).", "L"},
        {"window", "Window length in seconds (default 10).", "seconds"},
        {"capacity", "Bucket capacity (default: the limit).", "C"},
        {"rate", "Refill/drain rate per second, a decimal or a fraction such as 3/7 (default: limit / window, exact).", "per-second"},
        {"pattern", "Traffic pattern: uniform, burst, poisson, edge or worst (default uniform).", "name"},
        {"n", "Number of requests (uniform, burst, poisson; default 15).", "N"},
        {"delay", "Seconds between requests (uniform; default 0.1).", "seconds"},
        {"start", "Time of the first request in seconds (default 0, a window boundary).", "seconds"},
        {"size", "Requests per burst (burst; default 5).", "K"},
        {"period", "Seconds between bursts (burst; default 1).", "seconds"},
        {"lambda", "Mean requests per second (poisson; default 2).", "per-second"},
        {"seed", "Random seed: poisson arrivals, the random balancer, backoff jitter (default 1).", "K"},
        {"gap", "Seconds from the first burst to the window boundary (edge; default 0.001).", "seconds"},
        {"window-of", "T of the bound 'at most X in any T' every row reports, and of the worst pattern: the traffic that "
                      "makes the first algorithm admit its bound in one T (default: the window).", "seconds"},
        {"arrivals", "Read arrivals from a file instead of a pattern: one per line, t[,cost[,client]], or a header line "
                     "naming the columns (t, cost, client, service, priority; service for --server service=file, "
                     "priority critical|normal for a stripe row's priority=file, or a number per request for --throttle).", "file"},
        {"preset", "Start from a built-in scenario (see 'ratelab presets'); the other options override its values.",
         "id"},
        {"scenario", "Start from a scenario file (.ratelab.json); the other options override its values.", "file"},
        {"save-scenario", "Also save the scenario as used, overrides included, to this file (.ratelab.json).", "file"},
    });
    addCostLayerNginxOptions(parser);
}

void addRunOptions(QCommandLineParser& parser)
{
    addClientOptions(parser);
    addClusterOptions(parser);
    addServerOptions(parser);
}

namespace {

// baseScenario returns the scenario named by --preset or --scenario, or nullopt for neither.
std::optional<Scenario> baseScenario(const QCommandLineParser& p)
{
    if (p.isSet("preset") && p.isSet("scenario"))
        throw InputError("--preset and --scenario cannot be combined: choose one");
    if (!p.isSet("preset") && !p.isSet("scenario"))
        return std::nullopt;
    const bool preset = p.isSet("preset");
    const io::LoadResult r = preset ? io::loadPreset(p.value("preset")) : io::loadScenarioFile(p.value("scenario"));
    if (!r.scenario)
        throw InputError((preset ? "--preset: " : "--scenario: ") + r.error.toStdString());
    // A misspelt field ("coordinaton") would silently run another scenario: on the command line
    // it is refused (the app shows it as a note).
    for (const QString& note : r.notes)
        if (note.startsWith("ignored unknown field"))
            throw InputError((preset ? "--preset: " : "--scenario: ") + p.value(preset ? "preset" : "scenario").toStdString()
                             + ": " + note.mid(QString("ignored ").size()).toStdString() + " (misspelt?)");
    return r.scenario;
}

// parseRateText reads a rate ("2.5", "3/7") for read(), which takes a std::function.
const std::function<Rate(std::string_view)> parseRateText = [](std::string_view s) { return parseRate(s); };

// applyLimitOptions sets --algorithms and the limits over the base. Each value is checked on its
// own as it is read, so the message names its flag ("--limit: must be at least 1 (got 0)");
// LimiterConfig::make then only sees values in range.
void applyLimitOptions(const QCommandLineParser& p, Scenario& s, bool fromBase)
{
    const auto limits = integerIn(1, LimiterConfig::kMaxLimit);
    if (p.isSet("algorithms"))
        s.algorithms = parseAlgorithms(p.value("algorithms"));
    std::optional<std::int64_t> capacity = read(p, "capacity", limits);
    std::optional<Rate> r = read(p, "rate", parseRateText);
    if (fromBase) {
        capacity = capacity.value_or(s.config.capacity());
        r = r.value_or(s.config.rate());
    }
    s.config = s.config.withLimits(read(p, "limit", limits).value_or(s.config.limit()), // nginx's and products' stay
                                   read(p, "window", seconds(true)).value_or(s.config.windowNanos()), capacity, r);
}

// applyPatternOptions sets the pattern's values given; a pattern option asks for the pattern, so
// it replaces the base's explicit arrival times and their columns.
void applyPatternOptions(const QCommandLineParser& p, Scenario& s)
{
    Pattern& pat = s.pattern;
    if (p.isSet("pattern")) {
        const auto kind = patternFromId(p.value("pattern").toStdString());
        if (!kind)
            throw InputError("--pattern: unknown pattern " + ratelab::quoted(p.value("pattern").toStdString())
                             + " (known: uniform, burst, poisson, edge, worst)");
        pat.kind = *kind;
    }
    pat.count = read(p, "n", integerIn(0, kMaxArrivals)).value_or(pat.count);
    pat.delayNanos = read(p, "delay", seconds(false)).value_or(pat.delayNanos);
    pat.startNanos = read(p, "start", seconds(false)).value_or(pat.startNanos);
    pat.burstSize = read(p, "size", integerIn(1, kMaxArrivals)).value_or(pat.burstSize);
    pat.periodNanos = read(p, "period", seconds(false)).value_or(pat.periodNanos);
    pat.lambda = read(p, "lambda", parseRateText).value_or(pat.lambda);
    pat.seed = read<std::uint64_t>(p, "seed", [](std::string_view t) { return parseSeed(t); }).value_or(pat.seed);
    pat.gapNanos = read(p, "gap", seconds(false)).value_or(pat.gapNanos);
    pat.windowOfNanos = read(p, "window-of", seconds(true)).value_or(pat.windowOfNanos);
    if (pat.kind == PatternKind::Worst && !s.algorithms.empty() && (p.isSet("algorithms") || p.isSet("pattern")))
        pat.worstOf = s.algorithms.front(); // the worst pattern is the first row's
    for (const char* name : {"pattern", "n", "delay", "start", "size", "period", "lambda", "gap"})
        if (p.isSet(name))
            s.explicitArrivals.reset();
    if (!s.explicitArrivals) {
        s.explicitClients.clear();
        s.explicitService.clear();
        s.explicitCritical.clear();
        s.explicitPriority.clear();
    }
}

// applyArrivalsFile reads --arrivals (t[,cost[,client]] lines, or named columns) over the pattern.
void applyArrivalsFile(const QCommandLineParser& p, Scenario& s)
{
    if (!p.isSet("arrivals"))
        return;
    const std::string path = p.value("arrivals").toStdString();
    if (path.empty())
        throw InputError("--arrivals: no file name given");
    Arrivals read = readArrivalsFileWithCosts(path);
    s.explicitArrivals = std::move(read.times);
    s.explicitCosts = std::move(read.costs);
    s.explicitClients = std::move(read.clients);
    s.explicitService = std::move(read.services);
    s.explicitCritical = std::move(read.critical);
    s.explicitPriority = std::move(read.priorities);
}

// checkPatternFits refuses a pattern whose values are each fine but overflow together (a huge
// --n with a huge --delay): the message states the cap and names the options that meet in it.
void checkPatternFits(const Scenario& s)
{
    if (s.explicitArrivals)
        return;
    try {
        if (s.pattern.kind == PatternKind::Poisson)
            (void)generateArrivals(s.pattern, s.config); // random: only generating finds the last time
        else
            checkPattern(s.pattern, s.config);
    } catch (const InputError& e) {
        throw InputError(std::string(patternFlags(s.pattern.kind)) + ": " + e.what());
    }
}

// checkSavePath refuses --save-scenario's path before the run; the file is written after it.
void checkSavePath(const QCommandLineParser& p)
{
    if (!p.isSet("save-scenario"))
        return;
    const QString path = p.value("save-scenario");
    QString problem = io::outputPathProblem(path);
    if (problem.isEmpty() && !QFileInfo(path).absoluteDir().exists())
        problem = "cannot save " + path + ": no folder " + QFileInfo(path).absolutePath();
    if (!problem.isEmpty())
        throw InputError("--save-scenario: " + problem.toStdString());
}

} // namespace

Scenario scenarioFromOptions(const QCommandLineParser& p, RunOptions run)
{
    // A preset or a scenario file is the base; each option given overrides one of its values.
    const std::optional<Scenario> base = baseScenario(p);
    Scenario s = base.value_or(Scenario{});
    applyLimitOptions(p, s, base.has_value());
    applyPatternOptions(p, s);
    applyArrivalsFile(p, s);
    checkPatternFits(s);
    applyCostLayerNginxOptions(p, s);
    if (run == RunOptions::Declared) {
        applyClientOptions(p, s);
        applyServerOptions(p, s);
    }
    if (run != RunOptions::Absent)
        applyClusterOptions(p, s);
    checkSavePath(p);
    return s;
}

void saveScenarioIfAsked(const QCommandLineParser& p, const Scenario& s)
{
    if (!p.isSet("save-scenario"))
        return;
    const QString error = io::saveScenario(s, p.value("save-scenario"));
    if (!error.isEmpty())
        throw InputError("--save-scenario: " + error.toStdString());
}

} // namespace ratelab::app
