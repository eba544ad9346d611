// Reading scenario files: JSON in, a validated Scenario or one line saying what is wrong.
#include "scenariofile.h"

#include "arithmetic/decimal.h"
#include "limiters/products/product.h"
#include "scenario/rows.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

namespace ratelab::io {

namespace {

// kMaxFileBytes bounds what loadScenarioFile reads: kMaxArrivals times of up to ~20 characters
// each, with room to spare.
constexpr qint64 kMaxFileBytes = 256LL * 1024 * 1024;

QString q(const std::string& s) { return QString::fromStdString(s); }
QString q(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

[[noreturn]] void refuse(const QString& message) { throw InputError(message.toStdString()); }

QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "a boolean";
    case QJsonValue::Double: return "a number";
    case QJsonValue::String: return "a string";
    case QJsonValue::Array: return "an array";
    case QJsonValue::Object: return "an object";
    case QJsonValue::Undefined: break;
    }
    return "nothing";
}

QString knownAlgorithms()
{
    QStringList ids;
    for (Algorithm a : kAllAlgorithms)
        ids << q(algorithmId(a));
    return ids.join(", ");
}

// Reader turns a JSON object into a Scenario, naming the field in every refusal and noting every
// default it applies.
class Reader {
public:
    Scenario read(const QJsonObject& root);
    QStringList notes;

private:
    // text returns the exact text of a scalar field: a string as it is, a number as written
    // (an integer exactly, a fraction in its shortest form). nullopt when the field is absent.
    std::optional<std::string> text(const QJsonObject& o, const QString& key, const QString& path,
                                    const QString& expected) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            return std::nullopt;
        return scalar(v, path, expected);
    }

    static std::string scalar(const QJsonValue& v, const QString& path, const QString& expected)
    {
        if (v.isString())
            return v.toString().toStdString();
        if (v.isDouble()) {
            if (v.toVariant().typeId() == QMetaType::LongLong)
                return std::to_string(v.toInteger());
            return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest).toStdString();
        }
        refuse(QString("\"%1\" must be %2 (got %3)").arg(path, expected, typeName(v)));
    }

    // parsed runs a core parser on a field's text, prefixing its message with the field.
    template <typename T, typename Parse>
    static T parsed(const std::string& s, const QString& path, Parse parse)
    {
        try {
            return parse(s);
        } catch (const InputError& e) {
            refuse(QString("\"%1\": %2").arg(path, q(std::string(e.what()))));
        }
    }

    void missing(const QString& path, const QString& value)
    {
        notes << QString("no \"%1\": using %2").arg(path, value);
    }

    std::vector<Nanos> times(const QJsonObject& o, const QString& key, bool sorted);
    std::vector<std::int64_t> integers(const QJsonObject& o, const QString& key, std::int64_t min, std::int64_t max,
                                       std::size_t count);
    void readProduction(const QJsonObject& root, Scenario& s);
    // duration reads o[key], when present, as a time in seconds into field ("cluster.sync").
    void duration(const QJsonObject& o, const char* prefix, const char* key, Nanos& field) const
    {
        const QString path = QString(prefix) + key;
        if (const auto t = text(o, key, path, "a time in seconds"))
            field = parsed<Nanos>(*t, path, [](std::string_view x) { return parseSeconds(x); });
    }
    std::optional<ClusterConfig> readCluster(const QJsonValue& v);
    std::optional<ClientConfig> readClients(const QJsonValue& v);
    void readPattern(const QJsonObject& o, Pattern& p, bool used);
    void unknownKeys(const QJsonObject& o, const QStringList& known, const QString& prefix);
};

void Reader::unknownKeys(const QJsonObject& o, const QStringList& known, const QString& prefix)
{
    QStringList unknown;
    for (const QString& key : o.keys())
        if (!known.contains(key))
            unknown << q(ratelab::quoted((prefix + key).toStdString()));
    if (unknown.size() > 5) { // a note, not a flood
        const auto more = unknown.size() - 5;
        unknown = unknown.mid(0, 5);
        unknown << QString("%1 more").arg(more);
    }
    if (!unknown.isEmpty())
        notes << QString("ignored unknown field%1 %2").arg(unknown.size() > 1 ? "s" : "", unknown.join(", "));
}

std::vector<Nanos> Reader::times(const QJsonObject& o, const QString& key, bool sorted)
{
    const QJsonValue v = o.value(key);
    if (!v.isArray())
        refuse(QString("\"%1\" must be an array of times in seconds (got %2)").arg(key, typeName(v)));
    const QJsonArray a = v.toArray();
    if (a.size() > kMaxArrivals)
        refuse(QString("\"%1\" holds %2 times; at most %3 requests per scenario").arg(key).arg(a.size()).arg(kMaxArrivals));
    std::vector<Nanos> out;
    out.reserve(std::size_t(a.size()));
    for (qsizetype i = 0; i < a.size(); ++i) {
        // The path is only built for a message: there may be millions of times.
        const auto path = [&] { return QString("%1[%2]").arg(key).arg(i); };
        const QJsonValue item = a.at(i);
        Nanos t = 0;
        try {
            if (!item.isString() && !item.isDouble())
                refuse(QString("\"%1\" must be a time in seconds (got %2)").arg(path(), typeName(item)));
            t = parseSeconds(scalar(item, key, "a time in seconds"));
        } catch (const InputError& e) {
            refuse(QString("\"%1\": %2").arg(path(), q(std::string(e.what()))));
        }
        if (t < 0)
            refuse(QString("\"%1\": %2 s is negative; times start at 0").arg(path(), q(formatSeconds(t))));
        if (sorted && !out.empty() && t < out.back())
            refuse(QString("\"%1\": %2 s is earlier than the time before it (%3 s); times must not decrease")
                       .arg(path(), q(formatSeconds(t)), q(formatSeconds(out.back()))));
        out.push_back(t);
    }
    return out;
}

// integers reads an array of `count` whole numbers in [min, max], one per explicit arrival.
std::vector<std::int64_t> Reader::integers(const QJsonObject& o, const QString& key, std::int64_t min,
                                           std::int64_t max, std::size_t count)
{
    const QJsonValue v = o.value(key);
    if (!v.isArray())
        refuse(QString("\"%1\" must be an array of whole numbers, one per arrival (got %2)").arg(key, typeName(v)));
    const QJsonArray a = v.toArray();
    if (std::size_t(a.size()) != count)
        refuse(QString("\"%1\" holds %2 values; \"arrivals\" holds %3 times: one each").arg(key).arg(a.size()).arg(count));
    std::vector<std::int64_t> out;
    out.reserve(count);
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = QString("%1[%2]").arg(key).arg(i);
        out.push_back(parsed<std::int64_t>(scalar(a.at(i), path, "a whole number"), path,
                                           [&](std::string_view x) { return parseIntegerIn(x, min, max); }));
    }
    return out;
}

// readCluster reads "cluster". Its seed stays the default: simulateRow draws from pattern.seed.
std::optional<ClusterConfig> Reader::readCluster(const QJsonValue& v)
{
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isObject())
        refuse(QString("\"cluster\" must be an object (got %1)").arg(typeName(v)));
    const QJsonObject o = v.toObject();
    unknownKeys(o, {"nodes", "balancer", "coordination", "latency", "sync", "skew", "outage", "joins", "leaves", "autoscale"},
                "cluster.");
    ClusterConfig::Options c;
    if (const auto t = text(o, "nodes", "cluster.nodes", "a whole number"))
        c.nodes = int(parsed<std::int64_t>(*t, "cluster.nodes",
                                           [](std::string_view x) { return parseIntegerIn(x, 1, ClusterConfig::kMaxNodes); }));
    if (const auto t = text(o, "balancer", "cluster.balancer", "a balancer id")) {
        const auto b = balancerFromId(*t);
        if (!b)
            refuse(QString("\"cluster.balancer\": unknown balancer %1 (known: round_robin, random, hash)").arg(q(ratelab::quoted(*t))));
        c.balancer = *b;
    }
    if (const auto t = text(o, "coordination", "cluster.coordination", "a coordination id")) {
        const auto m = coordinationFromId(*t);
        if (!m)
            refuse(QString("\"cluster.coordination\": unknown coordination %1 (known: local, split, shared, racy, hybrid)")
                       .arg(q(ratelab::quoted(*t))));
        c.coordination = *m;
    }
    duration(o, "cluster.", "latency", c.latencyNanos);
    duration(o, "cluster.", "sync", c.syncNanos);
    duration(o, "cluster.", "skew", c.skewNanos);
    if (o.contains("outage")) { // {"from": T1, "to": T2, "fallback": "open|closed|local"}
        if (!o.value("outage").isObject())
            refuse(QString("\"cluster.outage\" must be an object (got %1)").arg(typeName(o.value("outage"))));
        const QJsonObject out = o.value("outage").toObject();
        unknownKeys(out, {"from", "to", "fallback"}, "cluster.outage.");
        duration(out, "cluster.outage.", "from", c.outageFromNanos);
        duration(out, "cluster.outage.", "to", c.outageToNanos);
        if (const auto t = text(out, "fallback", "cluster.outage.fallback", "a fallback id")) {
            const auto f = fallbackFromId(*t);
            if (!f)
                refuse(QString("\"cluster.outage.fallback\": unknown fallback %1 (known: open, closed, local)")
                           .arg(q(ratelab::quoted(*t))));
            c.fallback = *f;
        }
    }
    if (o.contains("autoscale")) { // {"min": MIN, "max": MAX, "scale_at": R}
        if (!o.value("autoscale").isObject())
            refuse(QString("\"cluster.autoscale\" must be an object (got %1)").arg(typeName(o.value("autoscale"))));
        const QJsonObject a = o.value("autoscale").toObject();
        unknownKeys(a, {"min", "max", "scale_at"}, "cluster.autoscale.");
        for (const auto& [key, field] : {std::pair{"min", &c.autoscaleMin}, std::pair{"max", &c.autoscaleMax}}) {
            const QString path = QString("cluster.autoscale.") + key;
            const auto t = text(a, key, path, "a whole number");
            if (!t)
                refuse(QString("\"%1\" is missing").arg(path));
            *field = int(parsed<std::int64_t>(*t, path, [](std::string_view x) {
                return parseIntegerIn(x, 1, ClusterConfig::kMaxNodes);
            }));
        }
        if (const auto t = text(a, "scale_at", "cluster.autoscale.scale_at", "a rate per second"))
            c.scaleAt = parsed<Rate>(*t, "cluster.autoscale.scale_at", [](std::string_view x) { return parseRate(x); });
    }
    for (const auto& [key, events] : {std::pair{"joins", &c.joins}, std::pair{"leaves", &c.leaves}}) {
        if (!o.contains(key))
            continue;
        const QString path = QString("cluster.") + key;
        if (!o.value(key).isArray())
            refuse(QString("\"%1\" must be an array of \"N@T\" (got %2)").arg(path, typeName(o.value(key))));
        for (const QJsonValue& item : o.value(key).toArray()) {
            const std::string v = scalar(item, path, "\"N@T\"");
            const auto at = v.find('@');
            if (at == std::string::npos)
                refuse(QString("\"%1\": %2 is not N@T").arg(path, q(ratelab::quoted(v))));
            events->push_back({int(parsed<std::int64_t>(v.substr(0, at), path,
                                                        [](std::string_view x) { return parseIntegerIn(x, 0, ClusterConfig::kMaxNodes - 1); })),
                               parsed<Nanos>(v.substr(at + 1), path, [](std::string_view x) { return parseSeconds(x); })});
        }
    }
    return parsed<ClusterConfig>(std::string(), "cluster", [&](std::string_view) { return ClusterConfig::make(c); });
}

// readClients reads "clients". Its seed stays the default: simulateRow draws from pattern.seed.
std::optional<ClientConfig> Reader::readClients(const QJsonValue& v)
{
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isObject())
        refuse(QString("\"clients\" must be an object (got %1)").arg(typeName(v)));
    const QJsonObject o = v.toObject();
    unknownKeys(o, {"clients", "key", "retry", "retry_delay", "max_retries", "backoff_base", "backoff_cap", "jitter",
                    "cohorts"},
                "clients.");
    ClientOptions c;
    if (const auto t = text(o, "clients", "clients.clients", "a whole number"))
        c.clients = parsed<std::int64_t>(*t, "clients.clients",
                                         [](std::string_view x) { return parseIntegerIn(x, 1, ClientConfig::kMaxClients); });
    if (const auto t = text(o, "key", "clients.key", "client or global")) {
        const auto k = keyModeFromId(*t);
        if (!k)
            refuse(QString("\"clients.key\": unknown key %1 (known: client, global)").arg(q(ratelab::quoted(*t))));
        c.key = *k;
    }
    if (const auto t = text(o, "retry", "clients.retry", "a retry policy id")) {
        const auto r = retryPolicyFromId(*t);
        if (!r)
            refuse(QString("\"clients.retry\": unknown retry policy %1 (known: none, immediate, retry_after, "
                           "retry_after_header, backoff)")
                       .arg(q(ratelab::quoted(*t))));
        c.retry = *r;
    }
    if (const auto t = text(o, "max_retries", "clients.max_retries", "a whole number"))
        c.maxRetries = parsed<std::int64_t>(*t, "clients.max_retries",
                                            [](std::string_view x) { return parseIntegerIn(x, 0, ClientConfig::kMaxRetries); });
    duration(o, "clients.", "retry_delay", c.retryDelayNanos);
    duration(o, "clients.", "backoff_base", c.backoffBaseNanos);
    duration(o, "clients.", "backoff_cap", c.backoffCapNanos);
    if (const auto t = text(o, "jitter", "clients.jitter", "a string")) {
        const auto j = jitterFromId(*t);
        if (!j)
            refuse(QString("\"clients.jitter\": unknown jitter %1 (known: full, equal, decorrelated, none)")
                       .arg(q(ratelab::quoted(*t))));
        c.jitter = *j;
    }
    if (o.contains("cohorts")) { // ["K:POLICY[:key=value,...]", ...]: they hold every client
        if (!o.value("cohorts").isArray())
            refuse(QString("\"clients.cohorts\" must be an array of \"K:POLICY\" (got %1)").arg(typeName(o.value("cohorts"))));
        std::vector<Cohort> cohorts;
        for (const QJsonValue& item : o.value("cohorts").toArray()) {
            const std::string v = scalar(item, "clients.cohorts", "\"K:POLICY[:key=value,...]\"");
            cohorts.push_back(parsed<Cohort>(v, "clients.cohorts", [](std::string_view x) { return parseCohort(x); }));
        }
        c.cohorts = std::move(cohorts);
    }
    return parsed<ClientConfig>(std::string(), "clients", [&](std::string_view) { return ClientConfig::make(c); });
}

// readProduction reads what production adds: cost, nginx, layers, cluster, clients.
void Reader::readProduction(const QJsonObject& root, Scenario& s)
{
    if (const auto t = text(root, "cost", "cost", "a whole number"))
        s.cost = parsed<std::int64_t>(*t, "cost", [](std::string_view x) { return parseIntegerIn(x, 1, kMaxCost); });
    const std::size_t explicitCount = s.explicitArrivals ? s.explicitArrivals->size() : 0;
    const auto perArrival = [&](const char* key) {
        if (root.contains(key) && !s.explicitArrivals)
            refuse(QString("\"%1\" gives one value per arrival, but there is no \"arrivals\"").arg(key));
        return root.contains(key);
    };
    if (perArrival("costs"))
        s.explicitCosts = integers(root, "costs", 1, kMaxCost, explicitCount);

    const QJsonValue nginx = root.value("nginx");
    if (!nginx.isUndefined()) {
        if (!nginx.isObject())
            refuse(QString("\"nginx\" must be an object (got %1)").arg(typeName(nginx)));
        const QJsonObject o = nginx.toObject();
        unknownKeys(o, {"burst", "nodelay", "delay"}, "nginx.");
        NginxOptions n;
        const auto whole = [](std::string_view x) { return parseIntegerIn(x, 0, LimiterConfig::kMaxLimit); };
        if (const auto t = text(o, "burst", "nginx.burst", "a whole number"))
            n.burst = parsed<std::int64_t>(*t, "nginx.burst", whole);
        if (o.contains("nodelay")) {
            if (!o.value("nodelay").isBool())
                refuse(QString("\"nginx.nodelay\" must be true or false (got %1)").arg(typeName(o.value("nodelay"))));
            n.nodelay = o.value("nodelay").toBool();
        }
        if (const auto t = text(o, "delay", "nginx.delay", "a whole number"))
            n.delay = parsed<std::int64_t>(*t, "nginx.delay", whole);
        if (n.nodelay && n.delay != 0)
            refuse("\"nginx\": nodelay and delay cannot be combined: choose one");
        s.config = s.config.withNginx(n);
    }

    // "product_options": {"windowMs": 60000, "traefik.period": "1m"}: the product models' own
    // options (--product-option); each product checks its values when the scenario is checked.
    const QJsonValue products = root.value("product_options");
    if (!products.isUndefined()) {
        if (!products.isObject())
            refuse(QString("\"product_options\" must be an object of name: value (got %1)").arg(typeName(products)));
        const QJsonObject o = products.toObject();
        std::vector<ProductOption> options;
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString path = "product_options." + it.key();
            const std::string value = scalar(it.value(), path, "a number or a string");
            try {
                options.push_back(parseProductOption(it.key().toStdString() + "=" + value));
            } catch (const InputError& e) {
                refuse(QString("\"%1\": %2").arg(path, QString::fromStdString(e.what())));
            }
        }
        s.config = s.config.withProductOptions(std::move(options));
    }

    const QJsonValue layers = root.value("layers");
    if (!layers.isUndefined()) {
        if (!layers.isArray())
            refuse(QString("\"layers\" must be an array of layers like \"token_bucket:capacity=100,rate=10\" (got %1)")
                       .arg(typeName(layers)));
        const QJsonArray a = layers.toArray();
        for (qsizetype i = 0; i < a.size(); ++i) {
            const QString path = QString("layers[%1]").arg(i);
            if (!a.at(i).isString())
                refuse(QString("\"%1\" must be a layer like \"token_bucket:capacity=100,rate=10\" (got %2)")
                           .arg(path, typeName(a.at(i))));
            const NginxOptions n = s.config.nginx();
            s.layers.push_back(parsed<Layer>(a.at(i).toString().toStdString(), path,
                                             [&](std::string_view x) { return parseLayer(x, n); }));
        }
    }

    s.cluster = readCluster(root.value("cluster"));
    s.clients = readClients(root.value("clients"));
    if (perArrival("client_of")) {
        const std::int64_t k = s.clients ? s.clients->clients() : 1;
        s.explicitClients = integers(root, "client_of", 0, k - 1, explicitCount);
    }
}

void Reader::readPattern(const QJsonObject& o, Pattern& p, bool used)
{
    unknownKeys(o, {"kind", "n", "delay", "start", "size", "period", "lambda", "seed", "gap", "window_of", "worst_of"},
                "pattern.");
    const Pattern defaults;
    if (const auto kind = text(o, "kind", "pattern.kind", "a pattern name")) {
        if (!o.value("kind").isString())
            refuse(QString("\"pattern.kind\" must be a pattern name (got %1)").arg(typeName(o.value("kind"))));
        const auto k = patternFromId(*kind);
        if (!k)
            refuse(QString("\"pattern.kind\": unknown pattern %1 (known: uniform, burst, poisson, edge, worst)").arg(q(ratelab::quoted(*kind))));
        p.kind = *k;
    } else if (used) {
        missing("pattern.kind", "uniform");
    }
    const PatternKind k = p.kind;
    // A field the kind reads that is missing is reported; the others quietly keep their default.
    const auto note = [&](const char* key, bool readBy, const QString& value) {
        if (used && readBy)
            missing(QString("pattern.") + key, value);
    };
    const bool counted = k != PatternKind::Edge && k != PatternKind::Worst;

    const auto seconds = [&](const char* key, Nanos& field, bool readBy) {
        const QString path = QString("pattern.") + key;
        if (const auto s = text(o, key, path, "a time in seconds")) {
            field = parsed<Nanos>(*s, path, [](std::string_view x) { return parseSeconds(x); });
            if (field < 0)
                refuse(QString("\"%1\" must not be negative (got %2 s)").arg(path, q(formatSeconds(field))));
        } else {
            note(key, readBy, q(formatSeconds(field)) + " s");
        }
    };

    if (const auto s = text(o, "n", "pattern.n", "a whole number"))
        p.count = parsed<std::int64_t>(*s, "pattern.n", [](std::string_view x) { return parseCount(x, kMaxArrivals); });
    else
        note("n", counted, QString::number(p.count));
    seconds("delay", p.delayNanos, k == PatternKind::Uniform);
    seconds("start", p.startNanos, true);
    if (const auto s = text(o, "size", "pattern.size", "a whole number")) {
        p.burstSize = parsed<std::int64_t>(*s, "pattern.size", [](std::string_view x) { return parseInteger(x); });
        if (p.burstSize < 1)
            refuse(QString("\"pattern.size\" must be at least 1 (got %1)").arg(p.burstSize));
    } else {
        note("size", k == PatternKind::Burst, QString::number(p.burstSize));
    }
    seconds("period", p.periodNanos, k == PatternKind::Burst);
    if (const auto s = text(o, "lambda", "pattern.lambda", "a rate per second")) {
        p.lambda = parsed<Rate>(*s, "pattern.lambda", [](std::string_view x) { return parseRate(x); });
        // Keep the default's own representation when the value is the default (2 per second is
        // written unreduced in Pattern), so that a saved scenario reopens equal to itself.
        if (Int128(p.lambda.tokens) * defaults.lambda.perNanos == Int128(defaults.lambda.tokens) * p.lambda.perNanos)
            p.lambda = defaults.lambda;
    } else {
        note("lambda", k == PatternKind::Poisson, q(p.lambda.exactText()) + " per s");
    }
    if (const auto s = text(o, "seed", "pattern.seed", "a whole number"))
        p.seed = parsed<std::uint64_t>(*s, "pattern.seed", [](std::string_view x) { return parseSeed(x); });
    else
        note("seed", k == PatternKind::Poisson, QString::number(p.seed));
    seconds("gap", p.gapNanos, k == PatternKind::Edge);
    // The worst case (issue 25): T of every row's bound and of the worst pattern (0: the window),
    // and whose worst case the pattern is (default: the first algorithm, set by read()).
    if (o.contains("window_of"))
        seconds("window_of", p.windowOfNanos, false);
    if (const auto id = text(o, "worst_of", "pattern.worst_of", "an algorithm id")) {
        const auto a = algorithmFromId(*id);
        if (!a)
            refuse(QString("\"pattern.worst_of\": unknown algorithm %1 (known: %2)").arg(q(ratelab::quoted(*id)), knownAlgorithms()));
        p.worstOf = *a;
    }
}

Scenario Reader::read(const QJsonObject& root)
{
    // Identity first: a file of another kind or a newer version is refused before anything else.
    const QJsonValue format = root.value("format");
    if (format.isUndefined())
        refuse(QString("not a RateLab scenario: it has no \"format\": \"%1\"").arg(kScenarioFormat));
    if (!format.isString())
        refuse(QString("\"format\" must be a string (got %1)").arg(typeName(format)));
    if (format.toString() != kScenarioFormat)
        refuse(QString("not a RateLab scenario: \"format\" is %1, expected \"%2\"")
                   .arg(q(ratelab::quoted(format.toString().toStdString())), kScenarioFormat));
    const QJsonValue version = root.value("version");
    if (version.isUndefined()) {
        missing("version", QString::number(kScenarioFormatVersion));
    } else {
        if (!version.isDouble())
            refuse(QString("\"version\" must be a whole number (got %1)").arg(typeName(version)));
        const double v = version.toDouble();
        if (v != std::floor(v) || v < 1)
            refuse(QString("\"version\" %1 is not a version this RateLab knows (it reads version %2)")
                       .arg(QString::number(v, 'g', QLocale::FloatingPointShortest))
                       .arg(kScenarioFormatVersion));
        if (v > kScenarioFormatVersion)
            refuse(QString("made by a newer RateLab: version %1, this one reads %2")
                       .arg(QString::number(v, 'g', QLocale::FloatingPointShortest))
                       .arg(kScenarioFormatVersion));
    }
    unknownKeys(root,
                {"format", "version", "title", "lesson", "algorithms", "limit", "window", "capacity", "rate",
                 "pattern", "arrivals", "added", "cost", "costs", "nginx", "product_options", "layers", "cluster", "clients",
                 "client_of", "traffic_log", "playback", "buckets_start", "changes"},
                "");

    Scenario s;
    for (const char* key : {"title", "lesson", "traffic_log"}) {
        const QJsonValue v = root.value(key);
        if (v.isUndefined())
            continue;
        if (!v.isString())
            refuse(QString("\"%1\" must be a string (got %2)").arg(key, typeName(v)));
        (std::string(key) == "title" ? s.title : std::string(key) == "lesson" ? s.lesson : s.trafficLog) =
            v.toString().toStdString();
    }

    const QJsonValue algorithms = root.value("algorithms");
    if (algorithms.isUndefined()) {
        missing("algorithms", "all seven");
    } else {
        if (!algorithms.isArray())
            refuse(QString("\"algorithms\" must be an array of algorithm ids (got %1)").arg(typeName(algorithms)));
        s.algorithms.clear();
        const QJsonArray list = algorithms.toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            const QJsonValue v = list.at(i);
            if (!v.isString())
                refuse(QString("\"algorithms[%1]\" must be an algorithm id (got %2)").arg(i).arg(typeName(v)));
            const auto a = algorithmFromId(v.toString().toStdString());
            if (!a)
                refuse(QString("\"algorithms\": unknown algorithm %1 (known: %2)")
                           .arg(q(ratelab::quoted(v.toString().toStdString())), knownAlgorithms()));
            if (std::find(s.algorithms.begin(), s.algorithms.end(), *a) == s.algorithms.end())
                s.algorithms.push_back(*a);
        }
        if (s.algorithms.empty())
            refuse("\"algorithms\" is empty: name at least one of " + knownAlgorithms());
    }

    // The config: each value through core's parsers, then LimiterConfig::make's range checks.
    const LimiterConfig defaults;
    std::int64_t limit = defaults.limit();
    if (const auto t = text(root, "limit", "limit", "a whole number"))
        limit = parsed<std::int64_t>(*t, "limit", [](std::string_view x) { return parseInteger(x); });
    else
        missing("limit", QString::number(limit));
    Nanos window = defaults.windowNanos();
    if (const auto t = text(root, "window", "window", "a time in seconds"))
        window = parsed<Nanos>(*t, "window", [](std::string_view x) { return parseSeconds(x); });
    else
        missing("window", q(formatSeconds(window)) + " s");
    std::optional<std::int64_t> capacity;
    if (const auto t = text(root, "capacity", "capacity", "a whole number"))
        capacity = parsed<std::int64_t>(*t, "capacity", [](std::string_view x) { return parseInteger(x); });
    if (const auto t = text(root, "playback", "playback", "a time in seconds")) {
        s.playbackNanos = parsed<Nanos>(*t, "playback", [](std::string_view x) { return parseSeconds(x); });
        if (s.playbackNanos <= 0)
            refuse(QString("\"playback\" must be a positive time in seconds (got %1)").arg(QString::fromStdString(*t)));
    }
    if (root.contains("changes")) { // ["T:limit=L,capacity=C,rate=R", ...]
        if (!root.value("changes").isArray())
            refuse(QString("\"changes\" must be an array of \"T:limit=L,...\" (got %1)").arg(typeName(root.value("changes"))));
        for (const QJsonValue& item : root.value("changes").toArray()) {
            const std::string v = scalar(item, "changes", "\"T:limit=L,capacity=C,rate=R\"");
            s.changes.push_back(parsed<LimitChange>(v, "changes", [](std::string_view x) { return parseLimitChange(x); }));
        }
    }
    if (const auto t = text(root, "buckets_start", "buckets_start", "full or empty")) {
        if (*t != "full" && *t != "empty")
            refuse(QString("\"buckets_start\" must be \"full\" or \"empty\" (got %1)").arg(q(ratelab::quoted(*t))));
        s.bucketsStartEmpty = *t == "empty";
    }
    std::optional<Rate> rate;
    if (const auto t = text(root, "rate", "rate", "a rate per second"))
        rate = parsed<Rate>(*t, "rate", [](std::string_view x) { return parseRate(x); });
    s.config = LimiterConfig::make(limit, window, capacity, rate);
    if (!capacity)
        missing("capacity", QString("the limit, %1").arg(s.config.capacity()));
    if (!rate)
        missing("rate", QString("limit / window, %1 per s").arg(q(s.config.rate().exactText())));

    const bool hasArrivals = root.contains("arrivals");
    const QJsonValue pattern = root.value("pattern");
    if (pattern.isUndefined()) {
        if (!hasArrivals)
            missing("pattern", "15 requests 0.1 s apart");
    } else {
        if (!pattern.isObject())
            refuse(QString("\"pattern\" must be an object (got %1)").arg(typeName(pattern)));
        readPattern(pattern.toObject(), s.pattern, !hasArrivals);
        if (s.pattern.kind == PatternKind::Worst && !pattern.toObject().contains("worst_of"))
            s.pattern.worstOf = s.algorithms.front(); // the first row's worst case
    }
    if (hasArrivals)
        s.explicitArrivals = times(root, "arrivals", true);
    if (root.contains("added"))
        s.addedArrivals = times(root, "added", false);
    readProduction(root, s);

    // What will be simulated must be simulable: the pattern's own range checks (times beyond
    // about 292 years, an edge pattern of more than kMaxArrivals) and the total count.
    std::int64_t count = 0;
    if (s.explicitArrivals) {
        count = std::int64_t(s.explicitArrivals->size());
    } else {
        try {
            count = std::int64_t(generateArrivals(s.pattern, s.config).size());
        } catch (const InputError& e) {
            refuse(QString("\"pattern\": %1").arg(q(std::string(e.what()))));
        }
    }
    if (count + std::int64_t(s.addedArrivals.size()) > kMaxArrivals)
        refuse(QString("\"added\": %1 requests in all; at most %2 per scenario")
                   .arg(count + std::int64_t(s.addedArrivals.size()))
                   .arg(kMaxArrivals));
    try {
        (void)resolveRowInputs(s); // combinations not simulated together, a client past the count
    } catch (const InputError& e) {
        refuse(q(std::string(e.what())));
    }
    return s;
}

} // namespace

namespace {

// checkNumbersExact refuses a number literal that a double cannot hold exactly (Qt's JSON keeps
// no number's text, only its double): 9000000000.123456789 would silently run at ...123457.
// Such a value must be written as a string, which the reader parses exactly.
void checkNumbersExact(const QByteArray& json)
{
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const qsizetype start = i;
            while (i + 1 < json.size() && QByteArrayView("+-.eE0123456789").contains(json[i + 1]))
                ++i;
            const QByteArray token = json.mid(start, i - start + 1);
            if (!token.contains('.') && !token.contains('e') && !token.contains('E') && token.size() < 19)
                continue; // a whole number Qt keeps as a 64-bit integer
            const QString shortest = QString::number(token.toDouble(), 'g', QLocale::FloatingPointShortest);
            if (!sameDecimal(token.toStdString(), shortest.toStdString()))
                refuse(QString("the number %1 at offset %2 cannot be read exactly as a JSON number: write it as a "
                               "string (\"%1\"), which is read exactly")
                           .arg(QString::fromLatin1(token))
                           .arg(start));
        }
    }
}

} // namespace

LoadResult parseScenario(const QByteArray& json)
{
    LoadResult result;
    try {
        if (json.trimmed().isEmpty())
            refuse("not a RateLab scenario: the input is empty");
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        if (error.error != QJsonParseError::NoError)
            refuse(QString("not valid JSON: %1 at offset %2%3")
                       .arg(error.errorString())
                       .arg(error.offset)
                       .arg(error.offset >= json.size() - 1 ? " (the file looks cut short)" : ""));
        if (!doc.isObject())
            refuse("not a RateLab scenario: the top level must be a JSON object");
        checkNumbersExact(json);
        Reader reader;
        result.scenario = reader.read(doc.object());
        result.notes = reader.notes;
    } catch (const InputError& e) {
        result.scenario.reset();
        result.error = q(std::string(e.what()));
    } catch (const std::bad_alloc&) {
        result.scenario.reset();
        result.error = "not enough memory to read the scenario";
    } catch (const std::exception& e) {
        result.scenario.reset();
        result.error = "cannot read the scenario: " + q(std::string(e.what()));
    }
    if (!result.scenario)
        result.notes.clear();
    // One line each, whatever the input held.
    result.error.replace('\n', ' ').replace('\r', ' ');
    for (QString& note : result.notes)
        note.replace('\n', ' ').replace('\r', ' ');
    return result;
}

LoadResult loadScenarioFile(const QString& path)
{
    LoadResult result;
    QFile file(path);
    if (QFileInfo(path).isDir()) {
        result.error = QString("cannot open %1: it is a folder").arg(path);
        return result;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QString("cannot open %1: %2").arg(path, file.errorString());
        return result;
    }
    if (file.size() > kMaxFileBytes) {
        result.error = QString("cannot open %1: larger than %2 MB, too large for a scenario")
                           .arg(path)
                           .arg(kMaxFileBytes / (1024 * 1024));
        return result;
    }
    const QByteArray data = file.read(kMaxFileBytes + 1);
    if (file.error() != QFileDevice::NoError) {
        result.error = QString("cannot read %1: %2").arg(path, file.errorString());
        return result;
    }
    if (data.size() > kMaxFileBytes) { // a pipe or device reports no size up front
        result.error = QString("cannot open %1: larger than %2 MB, too large for a scenario")
                           .arg(path)
                           .arg(kMaxFileBytes / (1024 * 1024));
        return result;
    }
    result = parseScenario(data);
    if (!result.scenario)
        result.error = path + ": " + result.error;
    return result;
}

} // namespace ratelab::io
