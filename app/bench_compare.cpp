// The ratios of one `bench --json` run to another (bench_compare.h).
#include "bench_compare.h"

#include "report/report.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cstdio>
#include <map>
#include <set>

namespace ratelab::app {

namespace {

// kParameters are the leaves that say what was measured, not how fast: two runs whose
// parameters differ measured different things.
const std::set<std::string> kParameters = {"requests", "changes", "nodes", "calls", "sweep_threads"};
// kIgnored are measured leaves that are neither costs nor parameters: Redis's denied share moves
// by a thousandth between runs of the same script and would call every pair "not comparable".
const std::set<std::string> kIgnored = {"denied_share"};

std::string lastKey(const std::string& path)
{
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

// flatten collects the numeric leaves of o under their dotted paths.
void flatten(const QJsonObject& o, const std::string& prefix, std::map<std::string, double>& out)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        const std::string path = prefix + it.key().toStdString();
        if (it.value().isObject())
            flatten(it.value().toObject(), path + ".", out);
        else if (it.value().isDouble())
            out[path] = it.value().toDouble();
    }
}

std::string padded(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

} // namespace

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::optional<double> BenchDelta::ratio() const
{
    if (!before || !after || *before == 0)
        return std::nullopt;
    return *after / *before;
}

std::string BenchDelta::verdict() const
{
    const auto r = ratio();
    if (!r)
        return {};
    const bool better = higherIsBetter ? *r > 1 + kNoise : *r < 1 - kNoise;
    const bool worse = higherIsBetter ? *r < 1 - kNoise : *r > 1 + kNoise;
    return better ? "faster" : worse ? "slower" : "";
}

BenchComparison compareBench(const QJsonObject& before, const QJsonObject& after)
{
    std::map<std::string, double> a, b;
    flatten(before, "", a);
    flatten(after, "", b);
    std::set<std::string> paths;
    for (const auto& [p, v] : a)
        paths.insert(p);
    for (const auto& [p, v] : b)
        paths.insert(p);
    BenchComparison c;
    for (const std::string& p : paths) {
        const auto ia = a.find(p), ib = b.find(p);
        const std::string key = lastKey(p);
        if (kIgnored.count(key))
            continue;
        if (kParameters.count(key)) {
            if (ia == a.end() || ib == b.end() || ia->second != ib->second)
                c.differingParameters.push_back(p);
            continue;
        }
        BenchDelta d;
        d.path = p;
        if (ia != a.end())
            d.before = ia->second;
        if (ib != b.end())
            d.after = ib->second;
        d.higherIsBetter = key.size() >= 6 && key.compare(key.size() - 6, 6, "_per_s") == 0;
        c.figures.push_back(std::move(d));
    }
    return c;
}

std::optional<QJsonObject> readBenchJson(const QString& path, QString& error)
{
    const QFileInfo info(path);
    QFile f(path);
    if (!info.exists() || !info.isFile() || !f.open(QIODevice::ReadOnly)) {
        const QString why = !info.exists() ? QStringLiteral("no such file")
                            : !info.isFile() ? QStringLiteral("not a regular file")
                                             : f.errorString();
        error = QStringLiteral("cannot read %1: %2").arg(path, why);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(f.read(64 * 1024 * 1024), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        error = QStringLiteral("%1 is not the JSON object `ratelab bench --json` prints").arg(path);
        return std::nullopt;
    }
    return doc.object();
}

std::string comparisonText(const BenchComparison& c)
{
    // The figure's path goes last: Redis's paths run to 90 characters and would push the numbers
    // off a terminal.
    std::string out = "Ratios of the new run to the old (run both in one sitting; within " +
                      std::to_string(int(kNoise * 100)) + "% is noise)\n";
    out += padded("old", 12) + padded("new", 12) + padded("new/old", 17) + "figure\n";
    for (const BenchDelta& d : c.figures) {
        const auto r = d.ratio();
        out += padded(d.before ? shortNumber(*d.before) : "-", 12) + padded(d.after ? shortNumber(*d.after) : "-", 12) +
               padded(r ? shortNumber(*r) : "-", 9) + padded(d.verdict(), 8) + d.path + "\n";
    }
    for (const std::string& p : c.differingParameters)
        out += "Not comparable: " + p + " differs between the runs\n";
    return out;
}

std::string comparisonJson(const BenchComparison& c)
{
    const auto value = [](const std::optional<double>& v) { return v ? formatNumber(*v) : std::string("null"); };
    std::string out = "{\"figures\": {";
    bool first = true;
    for (const BenchDelta& d : c.figures) {
        out += (first ? "\n  \"" : ",\n  \"") + d.path + "\": {\"before\": " + value(d.before) + ", \"after\": " +
               value(d.after) + ", \"ratio\": " + value(d.ratio()) + ", \"verdict\": \"" + d.verdict() + "\"}";
        first = false;
    }
    out += "},\n \"differing_parameters\": [";
    first = true;
    for (const std::string& p : c.differingParameters) {
        out += (first ? "\"" : ", \"") + p + "\"";
        first = false;
    }
    return out + "]}\n";
}

} // namespace ratelab::app
