// Writing scenario files: readable JSON in a fixed field order, exact times and rates, saved
// atomically.
#include "scenariofile.h"

#include "arithmetic/decimal.h"
#include "outputpath.h"
#include "qtext.h"
#include "scenario/settings_codec.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <charconv>
#include <limits>
#include <string>

namespace ratelab::io {

namespace {

// jsonString writes a string as a JSON string literal, escaped by Qt's own writer.
QByteArray jsonString(const QString& s)
{
    const QByteArray array = QJsonDocument(QJsonArray{s}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

QByteArray jsonString(const std::string& s) { return jsonString(q(s)); }

// seconds writes a time as a JSON string of its exact decimal: digits, a point and a sign only,
// so nothing needs escaping.
QByteArray seconds(Nanos t) { return '"' + QByteArray::fromStdString(formatSeconds(t)) + '"'; }

void writeIntegers(QByteArray& out, const char* key, const std::vector<std::int64_t>& values)
{
    out += QByteArray(",\n  \"") + key + "\": [";
    for (std::size_t i = 0; i < values.size(); ++i) {
        out += i == 0 ? "\n    " : i % 16 == 0 ? ",\n    " : ", ";
        out += QByteArray::number(qint64(values[i]));
    }
    out += values.empty() ? "]" : "\n  ]";
}

void writeTimes(QByteArray& out, const char* key, const std::vector<Nanos>& times);

// writeProductOptions writes the nginx options and the product models' own, when given.
void writeProductOptions(QByteArray& out, const LimiterConfig& config)
{
    const NginxOptions& n = config.nginx();
    if (n != NginxOptions{}) {
        QByteArray fields;
        if (n.burst)
            fields += "\"burst\": " + QByteArray::number(qint64(*n.burst));
        if (n.nodelay)
            fields += QByteArray(fields.isEmpty() ? "" : ", ") + "\"nodelay\": true";
        if (n.delay != 0)
            fields += QByteArray(fields.isEmpty() ? "" : ", ") + "\"delay\": " + QByteArray::number(qint64(n.delay));
        out += ",\n  \"nginx\": {" + fields + "}";
    }
    if (!config.productOptions().empty()) {
        // The effective value of each name: the last one given.
        std::vector<ProductOption> last;
        for (const ProductOption& o : config.productOptions()) {
            std::erase_if(last, [&](const ProductOption& l) { return l.name == o.name; });
            last.push_back(o);
        }
        out += ",\n  \"product_options\": {";
        for (std::size_t i = 0; i < last.size(); ++i)
            out += QByteArray(i ? ", " : "") + jsonString(last[i].name) + ": " + jsonString(last[i].value);
        out += "}";
    }
}

// writePriorities writes the arrivals' priority column: "critical" or "normal" each (a stripe
// row's), or numbers (a throttle's).
void writePriorities(QByteArray& out, const Scenario& s)
{
    if (s.explicitArrivals && !s.explicitCritical.empty()) { // and their priority column
        out += ",\n  \"priority_of\": [";
        for (std::size_t i = 0; i < s.explicitCritical.size(); ++i)
            out += QByteArray(i == 0 ? "\n    " : i % 8 == 0 ? ",\n    " : ", ")
                   + (s.explicitCritical[i] ? "\"critical\"" : "\"normal\"");
        out += "\n  ]";
    }
    if (s.explicitArrivals && !s.explicitPriority.empty()) { // or numbers, a throttle's priorities
        out += ",\n  \"priority_of\": [";
        for (std::size_t i = 0; i < s.explicitPriority.size(); ++i) {
            char number[32]; // the shortest text that reads back as the same double
            const auto end = std::to_chars(number, number + sizeof number, s.explicitPriority[i]).ptr;
            out += QByteArray(i == 0 ? "\n    " : i % 8 == 0 ? ",\n    " : ", ") + QByteArray(number, end - number);
        }
        out += "\n  ]";
    }
}

// writeProduction writes what production adds, each only when it is not the default, so a
// scenario without them reads as it always did.
void writeProduction(QByteArray& out, const Scenario& s)
{
    if (s.cost != 1)
        out += ",\n  \"cost\": " + QByteArray::number(qint64(s.cost));
    if (s.explicitArrivals && !s.explicitCosts.empty())
        writeIntegers(out, "costs", s.explicitCosts);
    writeProductOptions(out, s.config);
    if (!s.layers.empty()) {
        out += ",\n  \"layers\": [";
        for (std::size_t i = 0; i < s.layers.size(); ++i)
            out += QByteArray(i ? ",\n    " : "\n    ") + jsonString(layerText(s.layers[i]));
        out += "\n  ]";
    }
    // The settings codec writes both, key by key, as the reader reads them.
    if (s.cluster)
        out += ",\n  \"cluster\": {" + QByteArray::fromStdString(clusterJson(s.cluster->options(), SecondsAs::String))
               + "}";
    if (s.clients)
        out += ",\n  \"clients\": {" + QByteArray::fromStdString(clientsJson(s.clients->options(), SecondsAs::String))
               + "}";
    if (s.explicitArrivals && !s.explicitClients.empty())
        writeIntegers(out, "client_of", s.explicitClients);
    if (s.explicitArrivals && !s.explicitService.empty()) // the arrivals' service column
        writeTimes(out, "service_of", s.explicitService);
    writePriorities(out, s);
}

void writeTimes(QByteArray& out, const char* key, const std::vector<Nanos>& times)
{
    out += QByteArray(",\n  \"") + key + "\": [";
    for (std::size_t i = 0; i < times.size(); ++i) {
        out += i == 0 ? "\n    " : i % 8 == 0 ? ",\n    " : ", ";
        out += seconds(times[i]);
    }
    out += times.empty() ? "]" : "\n  ]";
}

// writePattern writes "pattern": every field, and window_of and worst_of only when set, so older
// files are written as they were.
void writePattern(QByteArray& out, const Pattern& p)
{
    // A JSON number past 2^53 is read back as a double by QJsonDocument (and by most readers), so
    // a seed past it is written as a string, which the reader takes exactly.
    const QByteArray seed = p.seed <= (std::uint64_t(1) << 53)
                                ? QByteArray::number(qulonglong(p.seed))
                                : jsonString(std::to_string(p.seed));
    out += "  \"pattern\": {\n";
    out += "    \"kind\": " + jsonString(std::string(patternId(p.kind))) + ",\n";
    out += "    \"n\": " + QByteArray::number(qint64(p.count)) + ",\n";
    out += "    \"delay\": " + seconds(p.delayNanos) + ",\n";
    out += "    \"start\": " + seconds(p.startNanos) + ",\n";
    out += "    \"size\": " + QByteArray::number(qint64(p.burstSize)) + ",\n";
    out += "    \"period\": " + seconds(p.periodNanos) + ",\n";
    out += "    \"lambda\": " + jsonString(p.lambda.exactText()) + ",\n";
    out += "    \"seed\": " + seed + ",\n";
    out += "    \"gap\": " + seconds(p.gapNanos);
    if (p.windowOfNanos > 0) // written only when set, so older files are written as they were
        out += ",\n    \"window_of\": " + seconds(p.windowOfNanos);
    if (p.kind == PatternKind::Worst)
        out += ",\n    \"worst_of\": " + jsonString(std::string(algorithmId(p.worstOf)));
    out += "\n";
    out += "  }";
}

// writeChangesAndServer writes the limit changes, the server with its concurrency limiters and
// the throttle, each only when there is one.
void writeChangesAndServer(QByteArray& out, const Scenario& s)
{
    if (!s.changes.empty()) { // limit changes, only when there are some
        out += ",\n  \"changes\": [";
        for (std::size_t i = 0; i < s.changes.size(); ++i)
            out += (i ? ", " : "") + jsonString(limitChangeText(s.changes[i]));
        out += "]";
    }
    if (s.server) { // the server and its concurrency limiters, only when there is one
        out += ",\n  \"server\": " + jsonString(s.server->text());
        if (!s.concurrency.empty()) {
            out += ",\n  \"concurrency\": [";
            for (std::size_t i = 0; i < s.concurrency.size(); ++i)
                out += (i ? ", " : "") + jsonString(s.concurrency[i].text());
            out += "]";
        }
        if (!s.layeredGate.empty())
            out += ",\n  \"layered_gate\": " + jsonString(s.layeredGate.text());
    }
    if (!s.throttle.empty())
        out += ",\n  \"throttle\": " + jsonString(s.throttle.text());
}

} // namespace

QByteArray serializeScenario(const Scenario& s)
{
    QByteArray out = "{\n";
    out += QByteArray("  \"format\": ") + jsonString(QString(kScenarioFormat)) + ",\n";
    out += "  \"version\": " + QByteArray::number(kScenarioFormatVersion) + ",\n";
    out += "  \"title\": " + jsonString(s.title) + ",\n";
    out += "  \"lesson\": " + jsonString(s.lesson) + ",\n";
    out += "  \"algorithms\": [";
    for (std::size_t i = 0; i < s.algorithms.size(); ++i)
        out += (i ? ", " : "") + jsonString(std::string(algorithmId(s.algorithms[i])));
    out += "],\n";
    const LimiterConfig& c = s.config;
    out += "  \"limit\": " + QByteArray::number(qint64(c.limit())) + ",\n";
    out += "  \"window\": " + seconds(c.windowNanos()) + ",\n";
    out += "  \"capacity\": " + QByteArray::number(qint64(c.capacity())) + ",\n";
    out += "  \"rate\": " + jsonString(c.rate().exactText()) + ",\n";
    writePattern(out, s.pattern);
    if (s.explicitArrivals)
        writeTimes(out, "arrivals", *s.explicitArrivals);
    if (!s.addedArrivals.empty())
        writeTimes(out, "added", s.addedArrivals);
    writeProduction(out, s);
    if (!s.trafficLog.empty()) // written only when set, so other files read as before
        out += ",\n  \"traffic_log\": " + jsonString(s.trafficLog);
    writeChangesAndServer(out, s);
    if (s.bucketsStartEmpty) // only when not the default, full
        out += ",\n  \"buckets_start\": \"empty\"";
    if (s.playbackNanos > 0) // the app's playback length, only when set
        out += ",\n  \"playback\": " + seconds(s.playbackNanos);
    out += "\n}\n";
    return out;
}

QString saveScenario(const Scenario& s, const QString& path)
{
    try {
        return writeFileAtomically(path, serializeScenario(s));
    } catch (const std::exception& e) {
        return QString("cannot save %1: %2").arg(path, q(std::string(e.what())));
    }
}

} // namespace ratelab::io
