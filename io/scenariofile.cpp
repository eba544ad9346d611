// Reading scenario files: JSON in, a validated Scenario or one line saying what is wrong.
#include "scenariofile_reader.h"

#include "scenario/rows.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

namespace ratelab::io {

namespace {

// kMaxFileBytes bounds what loadScenarioFile reads: kMaxArrivals times of up to ~20 characters
// each, with room to spare.
constexpr qint64 kMaxFileBytes = 256LL * 1024 * 1024;

} // namespace

namespace reading {

void Reader::readIdentity(const QJsonObject& root)
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
                 "client_of", "traffic_log", "playback", "buckets_start", "changes", "server", "concurrency", "layered_gate", "throttle", "service_of", "priority_of"},
                "");
}

void Reader::readTexts(const QJsonObject& root, Scenario& s)
{
    for (const char* key : {"title", "lesson", "traffic_log"}) {
        const QJsonValue v = root.value(key);
        if (v.isUndefined())
            continue;
        if (!v.isString())
            refuse(QString("\"%1\" must be a string (got %2)").arg(key, typeName(v)));
        (std::string(key) == "title" ? s.title : std::string(key) == "lesson" ? s.lesson : s.trafficLog) =
            v.toString().toStdString();
    }
}

void Reader::readAlgorithms(const QJsonObject& root, Scenario& s)
{
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
    }
}

void Reader::readConfig(const QJsonObject& root, Scenario& s)
{
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
    std::optional<Rate> rate;
    if (const auto t = text(root, "rate", "rate", "a rate per second"))
        rate = parsed<Rate>(*t, "rate", [](std::string_view x) { return parseRate(x); });
    s.config = LimiterConfig::make(limit, window, capacity, rate);
    if (!capacity)
        missing("capacity", QString("the limit, %1").arg(s.config.capacity()));
    if (!rate)
        missing("rate", QString("limit / window, %1 per s").arg(q(s.config.rate().exactText())));
}

// readServerParts reads the timeline (playback, limit changes), the server and its concurrency
// limiters, the client throttle and how buckets start.
void Reader::readServerParts(const QJsonObject& root, Scenario& s)
{
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
    if (const auto t = text(root, "server", "server", "\"workers=8,service=exp:50ms,...\""))
        s.server = parsed<ServerConfig>(*t, "server", [](std::string_view x) { return ServerConfig::parse(x); });
    if (root.contains("concurrency")) { // ["aimd", "gradient2:initial_limit=20", ...]: a row each
        if (!root.value("concurrency").isArray())
            refuse(QString("\"concurrency\" must be an array of \"KIND[:key=value,...]\" (got %1)")
                       .arg(typeName(root.value("concurrency"))));
        for (const QJsonValue& item : root.value("concurrency").toArray())
            s.concurrency.push_back(parsed<GateSpec>(scalar(item, "concurrency", "\"KIND[:key=value,...]\""), "concurrency",
                                                     &GateSpec::parse));
    }
    if (const auto t = text(root, "layered_gate", "layered_gate", "\"KIND[:key=value,...]\""))
        s.layeredGate = t->empty() ? GateSpec() : parsed<GateSpec>(*t, "layered_gate", &GateSpec::parse);
    if (const auto t = text(root, "throttle", "throttle", "\"KIND[:key=value,...]\""))
        s.throttle = t->empty() ? ClientThrottleSpec() : parsed<ClientThrottleSpec>(*t, "throttle", &ClientThrottleSpec::parse);
    if (const auto t = text(root, "buckets_start", "buckets_start", "full or empty")) {
        if (*t != "full" && *t != "empty")
            refuse(QString("\"buckets_start\" must be \"full\" or \"empty\" (got %1)").arg(q(ratelab::quoted(*t))));
        s.bucketsStartEmpty = *t == "empty";
    }
}

void Reader::readArrivals(const QJsonObject& root, Scenario& s)
{
    const bool hasArrivals = root.contains("arrivals");
    const QJsonValue pattern = root.value("pattern");
    if (pattern.isUndefined()) {
        if (!hasArrivals)
            missing("pattern", "15 requests 0.1 s apart");
    } else {
        if (!pattern.isObject())
            refuse(QString("\"pattern\" must be an object (got %1)").arg(typeName(pattern)));
        readPattern(pattern.toObject(), s.pattern, !hasArrivals);
        if (s.pattern.kind == PatternKind::Worst && !pattern.toObject().contains("worst_of") && !s.algorithms.empty())
            s.pattern.worstOf = s.algorithms.front(); // the first row's worst case
    }
    if (hasArrivals)
        s.explicitArrivals = times(root, "arrivals", true);
    if (root.contains("added"))
        s.addedArrivals = times(root, "added", false);
}

// checkSimulable refuses what could not be simulated: no row at all, a pattern beyond its own
// range checks, too many requests, rows that cannot run together.
void Reader::checkSimulable(const Scenario& s)
{
    // No algorithm row is a scenario of other rows: the layered policy, or concurrency limiters
    // ("concurrency": ["none"] is the server alone); with none of those it would show nothing.
    if (s.algorithms.empty() && s.layers.empty() && s.concurrency.empty())
        refuse("\"algorithms\" is empty: name at least one of " + knownAlgorithms()
               + ", or give \"layers\" or \"concurrency\"");

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
}

Scenario Reader::read(const QJsonObject& root)
{
    readIdentity(root);
    Scenario s;
    readTexts(root, s);
    readAlgorithms(root, s);
    readConfig(root, s);
    readServerParts(root, s);
    readArrivals(root, s);
    readProduction(root, s);
    checkSimulable(s);
    return s;
}

} // namespace reading

using reading::refuse;

namespace reading {

QString placeInJson(const QByteArray& json, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, json.size());
    const QByteArrayView before(json.constData(), offset);
    const qsizetype lineStart = before.lastIndexOf('\n') + 1;
    const qsizetype line = before.count('\n') + 1;
    const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).size() + 1;
    return QString("line %1, column %2").arg(line).arg(column);
}

QString jsonSyntaxError(const QByteArray& json, const QJsonParseError& error)
{
    // Qt's offset is where its parser stopped: just past the first character of the token it
    // could not take ("[1 2]": 4, past the 2). The place named is that character's.
    return QString("not valid JSON: %1 at %2%3")
        .arg(error.errorString(), placeInJson(json, std::max<qsizetype>(0, error.offset - 1)),
             error.offset >= json.size() - 1 ? " (the file looks cut short)" : "");
}

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
                refuse(QString("the number %1 at %2 cannot be read exactly as a JSON number: write it as a "
                               "string (\"%1\"), which is read exactly")
                           .arg(QString::fromLatin1(token), placeInJson(json, start)));
        }
    }
}

} // namespace reading

LoadResult parseScenario(const QByteArray& json)
{
    LoadResult result;
    try {
        if (json.trimmed().isEmpty())
            refuse("not a RateLab scenario: the input is empty");
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        if (error.error != QJsonParseError::NoError)
            refuse(reading::jsonSyntaxError(json, error));
        if (!doc.isObject())
            refuse("not a RateLab scenario: the top level must be a JSON object");
        reading::checkNumbersExact(json);
        reading::Reader reader;
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
