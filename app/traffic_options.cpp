#include "traffic_options.h"

#include "command.h"
#include "arithmetic/decimal.h"

#include "replay/replay_memory.h"
#include "traffic/traffic_warnings.h"
#include "scenario_options.h"

#include <QFile>

#include <unistd.h>

#include <algorithm>

#include <iostream>

namespace ratelab::app {

namespace {

// given: the option was given. Unlike isSet, it asks nothing of an option the command leaves out.
bool given(const QCommandLineParser& p, const char* name) { return p.optionNames().contains(QLatin1String(name)); }

} // namespace

void addTrafficOptions(QCommandLineParser& parser, bool costAndPath)
{
    parser.addPositionalArgument("LOG", "The access log (plain or .gz): nginx/Apache combined or common, an nginx "
                                        "log_format with $msec, JSON lines, or CSV with a header.");
    parser.addOptions({
        {"log-format", "The log's format: auto (default: what most of the first 100 lines look like), combined, common, "
                       "msec, json, csv, or 'nginx:FORMAT' with the nginx log_format string (or the whole log_format "
                       "directive), read by its named variables ($msec, $time_local, $remote_addr, $request...).",
         "name"},
        {"key", "Whose limiter a request counts against: ip (default, the client address), user ($remote_user), or a "
                "JSON/CSV field or log_format variable (http_x_api_key).",
         "ip|user|FIELD"},
        {"time-field", "JSON/CSV: the field holding the time (epoch seconds, ISO 8601; default time); log_format: the "
                       "variable (default $msec, else $time_iso8601, else $time_local).",
         "FIELD"},
    });
    if (costAndPath)
        parser.addOptions({
            {"cost-field", "JSON/CSV/log_format: the field or variable holding each request's cost (default: every "
                           "request costs --cost).",
             "FIELD"},
            {"path", "Replay only requests whose path starts with this (e.g. /api/login).", "PREFIX"},
        });
    parser.addOptions({
        {"path-field", "JSON/CSV/log_format: the field or variable holding the path (default path, else the request "
                       "line in 'request').",
         "FIELD"},
        {"strict", "Refuse the log at its first unreadable line instead of counting and skipping it."},
        {"max-keys", "Refuse a log with more distinct keys than this, before replaying it (default: as many as half "
                     "of the memory available now holds, at the replay's bytes per key; see docs/logs.md).",
         "N"},
    });
}

std::int64_t availableMemoryBytes()
{
    QFile meminfo("/proc/meminfo");
    if (meminfo.open(QIODevice::ReadOnly))
        for (const QByteArray& line : meminfo.readAll().split('\n'))
            if (line.startsWith("MemAvailable:")) {
                bool ok = false;
                const std::int64_t kb = line.mid(13).trimmed().split(' ').value(0).toLongLong(&ok);
                if (ok && kb > 0)
                    return kb * 1024;
            }
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? std::int64_t(pages) * size : std::int64_t(1) << 30;
}

bool parseWithLog(QCommandLineParser& parser, const QStringList& args, QString& log, int& status)
{
    parser.addHelpOption();
    if (!parseOrAnswer(parser, args, status))
        return false;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        status = fail("unexpected argument '" + positional.at(1).toStdString() + "' (one LOG at most)");
        return false;
    }
    log = positional.value(0);
    return true;
}

void refusePatternOptions(const QCommandLineParser& parser, const char* command)
{
    for (const char* name : {"pattern", "n", "delay", "start", "size", "period", "lambda", "seed", "gap", "window-of", "arrivals",
                             "save-scenario"})
        if (parser.isSet(name))
            throw InputError(std::string(command) + ": --" + name + " does not apply: the log is the traffic");
}

Traffic readTrafficFromOptions(const QCommandLineParser& p, const QString& log, std::int64_t bytesPerKey, bool keepPaths,
                               const std::vector<std::string>& keyFields)
{
    TrafficOptions o;
    o.keepPaths = keepPaths;
    o.keyFields = keyFields;
    o.emptyKeys = keepPaths; // a dry run: a request without the key's header meets no limit keyed by it
    o.bytesPerKey = bytesPerKey;
    o.maxKeys = integerOption(p, "max-keys", 1, std::int64_t(1) << 32).value_or(0);
    const std::int64_t available = availableMemoryBytes();
    if (!p.isSet("max-keys"))
        o.maxKeys = defaultMaxKeys(available, bytesPerKey);
    o.bytesPerRequest = kReplayRequestBytes;
    o.maxRequests = std::max<std::int64_t>(1'000'000, available / 2 / kReplayRequestBytes);
    if (p.isSet("log-format")) {
        const QString value = p.value("log-format");
        const auto f = logFormatFromId(value.toStdString());
        if (value.startsWith("nginx:")) {
            o.format = LogFormat::Nginx;
            o.nginxLogFormat = value.mid(6).toStdString();
        } else if (!f || *f == LogFormat::Nginx) {
            throw InputError("--log-format: unknown format " + ratelab::quoted(value.toStdString())
                             + " (known: auto, combined, common, msec, json, csv, 'nginx:LOG_FORMAT')");
        } else {
            o.format = *f;
        }
    }
    const auto field = [&](const char* name, std::string& out) {
        if (!given(p, name))
            return;
        out = p.value(name).toStdString();
        if (out.empty())
            throw InputError(std::string("--") + name + ": no field name given");
    };
    field("key", o.key);
    field("time-field", o.timeField);
    field("cost-field", o.costField);
    field("path-field", o.pathField);
    o.pathPrefix = given(p, "path") ? p.value("path").toStdString() : std::string();
    if (given(p, "path") && o.pathPrefix.empty())
        throw InputError("--path: no prefix given");
    o.strict = p.isSet("strict");
    if (log.isEmpty())
        throw InputError("name the LOG to replay (or a --preset that has one)");
    if (log.startsWith(":/")) { // a compiled-in example
        QFile file(log);
        if (!file.open(QIODevice::ReadOnly))
            throw InputError(log.toStdString() + ": not in this build");
        const QByteArray bytes = file.readAll();
        return parseTraffic(std::string_view(bytes.constData(), std::size_t(bytes.size())), o, log.toStdString());
    }
    return readTrafficLog(log.toStdString(), o);
}

QStringList trafficWarningList(const Traffic& t)
{
    QStringList w;
    for (const std::string& warning : ratelab::trafficWarnings(t))
        w << QString::fromStdString(warning);
    return w;
}

void printWarnings(const QStringList& warnings)
{
    for (const QString& w : warnings)
        std::cerr << "ratelab: warning: " << w.toStdString() << "\n";
    std::cerr.flush();
}

namespace {

// keysUsed is how many names some request is keyed by: keyNames holds key fields' values too.
std::size_t keysUsed(const Traffic& t)
{
    std::vector<std::uint8_t> used(t.keyNames.size(), 0);
    for (std::uint32_t k : t.keys)
        used[k] = 1;
    return std::size_t(std::count(used.begin(), used.end(), std::uint8_t(1)));
}

} // namespace

void writeTrafficJson(std::ostream& out, const QString& log, const Traffic& t, const QCommandLineParser& p)
{
    out << "{\"log\": " << jsonString(log.toStdString()) << ", \"format\": " << jsonString(logFormatId(t.format))
        << ", \"key\": " << jsonString(t.key)
        << ", \"path\": " << (given(p, "path") ? jsonString(p.value("path").toStdString()) : "null")
        << ", \"start\": " << jsonString(formatEpoch(t.startEpochNanos + t.times.front()))
        << ", \"start_epoch\": " << jsonString(formatSeconds(t.startEpochNanos + t.times.front()))
        << ", \"duration\": " << jsonString(formatSeconds(t.times.back() - t.times.front())) << ", \"lines\": " << t.lines
        << ", \"requests\": " << t.times.size() << ", \"keys\": " << keysUsed(t)
        << ", \"filtered\": " << t.filtered << ", \"unreadable\": " << t.unreadable << ", \"unreadable_lines\": [";
    for (std::size_t i = 0; i < t.firstErrors.size(); ++i)
        out << (i ? ", " : "") << "{\"line\": " << t.firstErrors[i].line
            << ", \"reason\": " << jsonString(t.firstErrors[i].reason) << "}";
    out << "], \"out_of_order\": " << t.outOfOrder << ", \"largest_step_back\": "
        << jsonString(formatSeconds(t.largestStepBack)) << ", \"whole_seconds\": " << (t.wholeSeconds ? "true" : "false")
        << "}";
}

} // namespace ratelab::app
