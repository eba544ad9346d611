// Reading a scenario file's parts: the arrays of times and values, the pattern, and what
// production adds (cost, nginx, product options, layers; the cluster and the clients are
// scenariofile_settings.cpp's).
#include "scenariofile_reader.h"

#include "limiters/products/product.h"
#include "traffic/arrivals.h"

#include <QJsonArray>

#include <cmath>

namespace ratelab::io::reading {

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
    readNginx(root, s);
    readProductOptions(root, s);
    readLayers(root, s);
    s.cluster = readCluster(root.value("cluster"));
    s.clients = readClients(root.value("clients"));
    if (perArrival("client_of")) {
        const std::int64_t k = s.clients ? s.clients->clients() : 1;
        s.explicitClients = integers(root, "client_of", 0, k - 1, explicitCount);
    }
    readRequestColumns(root, s, perArrival("service_of"), perArrival("priority_of"));
}

// readNginx reads "nginx": burst, nodelay and delay, as nginx's limit_req takes them.
void Reader::readNginx(const QJsonObject& root, Scenario& s)
{
    const QJsonValue nginx = root.value("nginx");
    if (nginx.isUndefined())
        return;
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
void Reader::readProductOptions(const QJsonObject& root, Scenario& s)
{
    const QJsonValue products = root.value("product_options");
    if (products.isUndefined())
        return;
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

// readLayers reads "layers", each a layer like "token_bucket:capacity=100,rate=10" that takes the
// scenario's nginx options.
void Reader::readLayers(const QJsonObject& root, Scenario& s)
{
    const QJsonValue layers = root.value("layers");
    if (layers.isUndefined())
        return;
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

// readRequestColumns reads the arrivals file's service and priority columns:
// "service_of", a time in seconds per arrival, and "priority_of", "critical" or "normal" each
// (a stripe row's priority=file) or a number each (a client throttle's priorities),
// one kind in the array.
void Reader::readRequestColumns(const QJsonObject& root, Scenario& s, bool service, bool priority)
{
    const std::size_t count = s.explicitArrivals ? s.explicitArrivals->size() : 0;
    const auto oneEach = [&](const char* key, qsizetype size) {
        if (std::size_t(size) != count)
            refuse(QString("\"%1\" holds %2 values; \"arrivals\" holds %3 times: one each").arg(key).arg(size).arg(count));
    };
    if (service) {
        s.explicitService = times(root, "service_of", false);
        oneEach("service_of", qsizetype(s.explicitService.size()));
        for (std::size_t i = 0; i < count; ++i)
            if (s.explicitService[i] > kMaxServiceNanos)
                refuse(QString("\"service_of[%1]\": %2 s is longer than %3 s").arg(i).arg(
                    q(formatSeconds(s.explicitService[i])), q(formatSeconds(kMaxServiceNanos))));
    }
    if (priority) {
        const QJsonValue v = root.value("priority_of");
        if (!v.isArray())
            refuse(QString("\"priority_of\" must be an array of \"critical\" or \"normal\", or of numbers, one per "
                           "arrival (got %1)")
                       .arg(typeName(v)));
        const QJsonArray a = v.toArray();
        oneEach("priority_of", a.size());
        const bool numbers = !a.isEmpty() && a.at(0).isDouble();
        if (numbers)
            s.explicitPriority.reserve(count);
        else
            s.explicitCritical.reserve(count);
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (numbers) {
                if (!a.at(i).isDouble() || !std::isfinite(a.at(i).toDouble()))
                    refuse(QString("\"priority_of[%1]\" must be a number, as \"priority_of[0]\" is (got %2): "
                                   "numbers for a client throttle or \"critical\" and \"normal\" for a stripe row's "
                                   "priority=file, not both")
                               .arg(i).arg(typeName(a.at(i))));
                s.explicitPriority.push_back(a.at(i).toDouble());
                continue;
            }
            const QString word = a.at(i).toString();
            if (word != "critical" && word != "normal")
                refuse(QString("\"priority_of[%1]\" must be \"critical\" or \"normal\"%3 (got %2)")
                           .arg(i)
                           .arg(a.at(i).isString() ? q(ratelab::quoted(word.toStdString())) : typeName(a.at(i)))
                           .arg(i == 0 ? ", or a number" : ", as \"priority_of[0]\" is"));
            s.explicitCritical.push_back(word == "critical");
        }
    }
}
// inDefaultForm keeps the default's own representation of a lambda equal to it (2 per second is
// written unreduced in Pattern), so that a saved scenario reopens equal to itself.
namespace {
Rate inDefaultForm(Rate lambda)
{
    const Rate standard = Pattern{}.lambda;
    return Int128(lambda.tokens) * standard.perNanos == Int128(standard.tokens) * lambda.perNanos ? standard : lambda;
}
} // namespace

// readPatternKind reads "pattern.kind"; a pattern used without one is noted as uniform.
void Reader::readPatternKind(const QJsonObject& o, Pattern& p, bool used)
{
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
}

void Reader::readPattern(const QJsonObject& o, Pattern& p, bool used)
{
    unknownKeys(o, {"kind", "n", "delay", "start", "size", "period", "lambda", "seed", "gap", "window_of", "worst_of"},
                "pattern.");
    readPatternKind(o, p, used);
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
        p.lambda = inDefaultForm(parsed<Rate>(*s, "pattern.lambda", [](std::string_view x) { return parseRate(x); }));
    } else {
        note("lambda", k == PatternKind::Poisson, q(p.lambda.exactText()) + " per s");
    }
    if (const auto s = text(o, "seed", "pattern.seed", "a whole number"))
        p.seed = parsed<std::uint64_t>(*s, "pattern.seed", [](std::string_view x) { return parseSeed(x); });
    else
        note("seed", k == PatternKind::Poisson, QString::number(p.seed));
    seconds("gap", p.gapNanos, k == PatternKind::Edge);
    // The worst case: T of every row's bound and of the worst pattern (0: the window),
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
} // namespace ratelab::io::reading
