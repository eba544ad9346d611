// Reading a scenario file's "cluster" and "clients": each key through the settings codec
// (core/scenario/settings_codec.h), the one table the command line and the report use too.
#include "scenariofile_reader.h"

#include <QJsonArray>

namespace ratelab::io::reading {

namespace {

// splitKey splits a setting's key into its group and its name in the group ("outage.from": outage
// and from; "nodes": no group).
std::pair<std::string_view, std::string_view> splitKey(std::string_view key)
{
    const auto dot = key.find('.');
    return dot == std::string_view::npos ? std::pair{std::string_view{}, key} : std::pair{key.substr(0, dot), key.substr(dot + 1)};
}

// keysIn lists the keys a table's settings take in the object of group g ("": the top object, where
// a group is one key).
template <typename Options>
QStringList keysIn(std::span<const Setting<Options>> table, std::string_view g)
{
    QStringList keys;
    for (const Setting<Options>& s : table) {
        const auto [group, key] = splitKey(s.key);
        const QString k = g.empty() ? q(group.empty() ? key : group) : group == g ? q(key) : QString();
        if (!k.isEmpty() && !keys.contains(k))
            keys << k;
    }
    return keys;
}

// readSetting reads setting s, its key `key` in holder, its path `path` for a refusal.
template <typename Options>
void readSetting(const Setting<Options>& s, const QJsonObject& holder, std::string_view key, const QString& path,
                 Options& out)
{
    const QString expected = q(s.expected);
    const auto read = [&](const std::string& text, const QString& where) {
        try {
            s.read(out, text);
        } catch (const InputError& e) {
            refuse(QString("\"%1\": %2").arg(where, q(std::string(e.what()))));
        }
    };
    if (s.form == SettingForm::List) {
        const QJsonValue v = holder.value(q(key));
        if (v.isUndefined())
            return;
        if (!v.isArray())
            refuse(QString("\"%1\" must be an array of %2 (got %3)").arg(path, expected, typeName(v)));
        s.clear(out);
        const QJsonArray items = v.toArray();
        for (qsizetype i = 0; i < items.size(); ++i) {
            const QString where = QString("%1[%2]").arg(path).arg(i);
            read(Reader::scalar(items.at(i), where, expected), where);
        }
    } else if (const auto t = Reader::text(holder, q(key), path, expected)) {
        read(*t, path);
    } else if (s.required) {
        refuse(QString("\"%1\" is missing").arg(path));
    }
}

} // namespace

// readSettings reads each setting of the table that o holds, a nested one ("outage.from") from
// the object of its group; a refusal names the setting's path ("cluster.outage.from",
// "cluster.joins[1]").
template <typename Options>
void Reader::readSettings(const QJsonObject& o, const QString& name, std::span<const Setting<Options>> table,
                          Options& out)
{
    unknownKeys(o, keysIn(table, {}), name + ".");
    std::string_view group;     // the group of the setting before
    QJsonObject groupObject;    // its object
    bool groupPresent = false;  // whether o holds it
    for (const Setting<Options>& s : table) {
        const auto [g, key] = splitKey(s.key);
        if (!g.empty() && g != group) { // a group's first setting: its object, and its own unknown keys
            const QString path = name + "." + q(g);
            const QJsonValue v = o.value(q(g));
            groupPresent = !v.isUndefined();
            if (groupPresent && !v.isObject())
                refuse(QString("\"%1\" must be an object (got %2)").arg(path, typeName(v)));
            groupObject = v.toObject();
            if (groupPresent)
                unknownKeys(groupObject, keysIn(table, g), path + ".");
        }
        group = g;
        if (!g.empty() && !groupPresent)
            continue;
        readSetting(s, g.empty() ? o : groupObject, key, name + "." + q(s.key), out);
    }
}

// readCluster reads "cluster". Its seed stays the default: simulateRow draws from pattern.seed.
std::optional<ClusterConfig> Reader::readCluster(const QJsonValue& v)
{
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isObject())
        refuse(QString("\"cluster\" must be an object (got %1)").arg(typeName(v)));
    ClusterConfig::Options c;
    readSettings(v.toObject(), "cluster", clusterSettings(), c);
    return parsed<ClusterConfig>(std::string(), "cluster", [&](std::string_view) { return ClusterConfig::make(c); });
}

// readClients reads "clients". Its seed stays the default: simulateRow draws from pattern.seed.
std::optional<ClientConfig> Reader::readClients(const QJsonValue& v)
{
    if (v.isUndefined())
        return std::nullopt;
    if (!v.isObject())
        refuse(QString("\"clients\" must be an object (got %1)").arg(typeName(v)));
    ClientOptions c;
    readSettings(v.toObject(), "clients", clientSettings(), c);
    return parsed<ClientConfig>(std::string(), "clients", [&](std::string_view) { return ClientConfig::make(c); });
}

} // namespace ratelab::io::reading
