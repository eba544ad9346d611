// The scenario file reader's parts, shared by the files that read a scenario: scenariofile.cpp
// (the root and the traffic), scenariofile_parts.cpp (the pattern and what production adds) and
// scenariofile_settings.cpp (the cluster and the clients, through the settings codec). Internal
// to io/.
#pragma once

#include "scenariofile.h"

#include "arithmetic/decimal.h"
#include "scenario/settings_codec.h"

#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include "qtext.h"

#include <QLocale>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab::io::reading {

// refuse throws the InputError that refuses the file: one printable line whatever the file held,
// each control character of a key or value it names shown as '?'.
[[noreturn]] inline void refuse(QString message)
{
    for (QChar& c : message)
        if (c.category() == QChar::Other_Control)
            c = u'?';
    throw InputError(message.toStdString());
}

// typeName says what a JSON value is, for a refusal: "a number", "an object".
QString typeName(const QJsonValue& v);

// checkNumbersExact refuses a number literal of the JSON text that a double cannot hold exactly
// (write it as a string, which is read exactly).
void checkNumbersExact(const QByteArray& json);

// placeInJson names where a byte offset of JSON text is, as an editor shows it: "line 3, column
// 14" (both from 1, the column counted in characters, so a multi-byte character is one).
QString placeInJson(const QByteArray& json, qsizetype offset);

// jsonSyntaxError is the refusal of text Qt could not parse as JSON: what is wrong and where (the
// first character of the token Qt stopped at), and whether the text looks cut short (the error
// at its very end).
QString jsonSyntaxError(const QByteArray& json, const QJsonParseError& error);

// knownAlgorithms lists every algorithm id, comma-separated.
QString knownAlgorithms();

// Reader turns a JSON object into a Scenario, naming the field in every refusal and noting every
// default it applies.
class Reader {
public:
    Scenario read(const QJsonObject& root);
    QStringList notes;

    // text returns the exact text of a scalar field: a string as it is, a number as written
    // (an integer exactly, a fraction in its shortest form). nullopt when the field is absent.
    static std::optional<std::string> text(const QJsonObject& o, const QString& key, const QString& path,
                                           const QString& expected)
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

private:
    void missing(const QString& path, const QString& value)
    {
        notes << QString("no \"%1\": using %2").arg(path, value);
    }

    // read's parts, in the order read calls them (the order of its notes).
    void readIdentity(const QJsonObject& root);
    void readTexts(const QJsonObject& root, Scenario& s);
    void readAlgorithms(const QJsonObject& root, Scenario& s);
    void readConfig(const QJsonObject& root, Scenario& s);
    void readServerParts(const QJsonObject& root, Scenario& s);
    void readArrivals(const QJsonObject& root, Scenario& s);
    void checkSimulable(const Scenario& s);
    std::vector<Nanos> times(const QJsonObject& o, const QString& key, bool sorted);
    std::vector<std::int64_t> integers(const QJsonObject& o, const QString& key, std::int64_t min, std::int64_t max,
                                       std::size_t count);
    void readProduction(const QJsonObject& root, Scenario& s);
    void readNginx(const QJsonObject& root, Scenario& s);
    void readProductOptions(const QJsonObject& root, Scenario& s);
    void readLayers(const QJsonObject& root, Scenario& s);
    void readRequestColumns(const QJsonObject& root, Scenario& s, bool service, bool priority);
    // readSettings reads the object `name` ("cluster") through a table of the settings codec.
    template <typename Options>
    void readSettings(const QJsonObject& o, const QString& name, std::span<const Setting<Options>> table,
                      Options& out);
    std::optional<ClusterConfig> readCluster(const QJsonValue& v);
    std::optional<ClientConfig> readClients(const QJsonValue& v);
    void readPattern(const QJsonObject& o, Pattern& p, bool used);
    void readPatternKind(const QJsonObject& o, Pattern& p, bool used);
    void unknownKeys(const QJsonObject& o, const QStringList& known, const QString& prefix);
};

} // namespace ratelab::io::reading
