// Reading a scenario file's "cluster" and "clients": each key through the settings codec
// (core/scenario/settings_codec.h), the one table the command line and the report use too.
#include "scenariofile_reader.h"

#include <QJsonArray>

namespace ratelab::io::reading {

// readSettings reads each setting of the table that o holds, a nested one ("outage.from") from
// the object of its group; a refusal names the setting's path ("cluster.outage.from",
// "cluster.joins[1]").
template <typename Options>
void Reader::readSettings(const QJsonObject& o, const QString& name, std::span<const Setting<Options>> table,
                          Options& out)
{
    const auto split = [](std::string_view key) {
        const auto dot = key.find('.');
        return dot == std::string_view::npos ? std::pair{std::string_view{}, key}
                                             : std::pair{key.substr(0, dot), key.substr(dot + 1)};
    };
    QStringList keys;
    for (const Setting<Options>& s : table) {
        const auto [group, key] = split(s.key);
        if (const QString k = q(group.empty() ? key : group); !keys.contains(k))
            keys << k;
    }
    unknownKeys(o, keys, name + ".");

    std::string_view group;     // the group of the setting before
    QJsonObject groupObject;    // its object
    bool groupPresent = false;  // whether o holds it
    for (const Setting<Options>& s : table) {
        const auto [g, key] = split(s.key);
        if (!g.empty() && g != group) { // a group's first setting: its object, and its own unknown keys
            const QString path = name + "." + q(g);
            const QJsonValue v = o.value(q(g));
            groupPresent = !v.isUndefined();
            if (groupPresent && !v.isObject())
                refuse(QString("\"%1\" must be an object (got %2)").arg(path, typeName(v)));
            groupObject = v.toObject();
            if (groupPresent) {
                QStringList members;
                for (const Setting<Options>& m : table)
                    if (split(m.key).first == g)
                        members << q(split(m.key).second);
                unknownKeys(groupObject, members, path + ".");
            }
        }
        group = g;
        if (!g.empty() && !groupPresent)
            continue;
        const QJsonObject& holder = g.empty() ? o : groupObject;
        const QString path = name + "." + q(s.key);
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
                continue;
            if (!v.isArray())
                refuse(QString("\"%1\" must be an array of %2 (got %3)").arg(path, expected, typeName(v)));
            s.clear(out);
            const QJsonArray items = v.toArray();
            for (qsizetype i = 0; i < items.size(); ++i) {
                const QString where = QString("%1[%2]").arg(path).arg(i);
                read(scalar(items.at(i), where, expected), where);
            }
        } else if (const auto t = text(holder, q(key), path, expected)) {
            read(*t, path);
        } else if (s.required) {
            refuse(QString("\"%1\" is missing").arg(path));
        }
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
