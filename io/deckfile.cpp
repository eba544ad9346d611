#include "deckfile.h"

#include "limiters/follows.h"
#include "outputpath.h"
#include "presets.h"
#include "scenariofile_reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace ratelab::io {

namespace {

using reading::refuse;

// The shipped decks in the order they are taught; each is resources/decks/ID.ratelab-deck.json,
// compiled in as :/decks/ID.ratelab-deck.json.
const char* const kDeckIds[] = {"fixed-window-2x", "buckets-burst-now", "estimates-and-memory",
                                "retries-and-retry-after", "many-servers-one-limit",
                                "redis-scripts-and-failures", "nginx-limit-req", "layered-limits",
                                "managed-services", "the-server-behind", "choosing-a-limit"};

constexpr qint64 kMaxDeckBytes = 64LL * 1024 * 1024;

// layOver returns base with each key of change in place of base's; an object over an object is
// laid over it key by key, anything else replaces what was there.
QJsonObject layOver(QJsonObject base, const QJsonObject& change)
{
    for (auto it = change.begin(); it != change.end(); ++it) {
        const QJsonValue old = base.value(it.key());
        if (old.isObject() && it.value().isObject())
            base.insert(it.key(), layOver(old.toObject(), it.value().toObject()));
        else
            base.insert(it.key(), it.value());
    }
    return base;
}

QString stringField(const QJsonObject& o, const QString& key, const QString& where)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return {};
    if (!v.isString())
        refuse(QString("%1: \"%2\" must be a string (got %3)").arg(where, key, reading::typeName(v)));
    return v.toString();
}

Nanos seconds(const QJsonObject& o, const QString& key, const QString& where)
{
    const std::string text = reading::Reader::scalar(o.value(key), where + ": \"focus\"." + key, "seconds");
    return reading::Reader::parsed<Nanos>(text, where + ": \"focus\"." + key,
                                          [](const std::string& s) { return parseSeconds(s); });
}

// followingLimits returns the scenario a change is laid over. A change of the limit or the window
// moves capacity and rate along when they follow them (C = L, r = L / W) and the change names
// neither, as the app's ticked "follow" box does: {"limit": 20} over capacity 10 of limit 10
// gives capacity 20. Otherwise they stay what they were, written out, as the app's unticked box
// keeps them (naming one of them in the change unticks it, as typing one does in the app).
QJsonObject followingLimits(QJsonObject scenario, const QJsonObject& change)
{
    if (!change.contains("limit") && !change.contains("window"))
        return scenario;
    try {
        reading::Reader reader;
        const LimiterConfig base = reader.read(scenario).config;
        if (followsLimits(base) && !change.contains("capacity") && !change.contains("rate")) {
            scenario.remove("capacity");
            scenario.remove("rate");
        } else {
            scenario.insert("capacity", qint64(base.capacity()));
            scenario.insert("rate", q(base.rate().exactText()));
        }
    } catch (const InputError&) {
        // A scenario that reads only with the change laid over it: refused, if at all, then.
    }
    return scenario;
}

// readFocus applies a step's "focus": its span and pin to the step, its rows to the scenario.
void readFocus(const QJsonObject& focus, DeckStep& step, QJsonObject& scenario, const QString& where)
{
    for (auto it = focus.begin(); it != focus.end(); ++it)
        if (!QStringList{"from", "to", "rows", "pin"}.contains(it.key()))
            refuse(QString("%1: unknown \"focus\" key \"%2\" (known: from, to, rows, pin)").arg(where, it.key().left(40)));
    if (focus.contains("from") != focus.contains("to"))
        refuse(QString("%1: \"focus\" frames a span: give both \"from\" and \"to\", or neither").arg(where));
    if (focus.contains("from")) {
        step.from = seconds(focus, "from", where);
        step.to = seconds(focus, "to", where);
        if (*step.to <= *step.from)
            refuse(QString("%1: \"focus\".to must be later than \"focus\".from").arg(where));
    }
    if (focus.contains("rows")) {
        // A row is named by its algorithm's id; a wrong one is a wrong row id to the author, who
        // wrote rows, not algorithms.
        const QJsonValue rows = focus.value("rows");
        if (!rows.isArray())
            refuse(QString("%1: \"focus\".rows must be a list of row ids (got %2)").arg(where, reading::typeName(rows)));
        for (const QJsonValue& row : rows.toArray())
            if (!row.isString() || !algorithmFromId(row.toString().toStdString()))
                refuse(QString("%1: \"focus\".rows: unknown row id %2 (the row ids: %3)")
                           .arg(where,
                                row.isString() ? q(ratelab::quoted(row.toString().toStdString()))
                                               : reading::typeName(row),
                                reading::knownAlgorithms()));
        scenario.insert("algorithms", rows); // then read as the scenario's rows
    }
    if (focus.contains("pin")) {
        const QJsonValue pin = focus.value("pin");
        if (!pin.isDouble() || pin.toDouble() < 0 || pin.toDouble() != double(pin.toInteger()))
            refuse(QString("%1: \"focus\".pin must be a request's index, a whole number from 0").arg(where));
        step.pin = std::size_t(pin.toInteger());
    }
}

// stepScenario is a step's scenario object: a preset's, its own, or the previous step's, with
// the step's "change" laid over it.
QJsonObject stepScenario(const QJsonObject& o, const QJsonObject& previous, const QString& where)
{
    if (o.contains("preset") && o.contains("scenario"))
        refuse(QString("%1: give \"preset\" or \"scenario\", not both").arg(where));
    QJsonObject scenario;
    if (o.contains("preset")) {
        const QString id = stringField(o, "preset", where);
        if (const LoadResult preset = loadPreset(id); !preset.scenario)
            refuse(QString("%1: %2").arg(where, preset.error));
        QFile file(":/presets/" + id + ".ratelab.json"); // its object, which a "change" may lay keys over
        if (!file.open(QIODevice::ReadOnly))
            refuse(QString("%1: preset '%2' is missing from this build").arg(where, id));
        scenario = QJsonDocument::fromJson(file.readAll()).object();
    } else if (o.contains("scenario")) {
        if (!o.value("scenario").isObject())
            refuse(QString("%1: \"scenario\" must be an object (a scenario file's)").arg(where));
        scenario = o.value("scenario").toObject();
    } else if (previous.isEmpty()) {
        refuse(QString("%1: the first step needs a \"preset\" or a \"scenario\"").arg(where));
    } else {
        scenario = previous;
        scenario.remove("lesson"); // the previous step's narrative is not this one's
    }
    if (o.contains("change")) {
        if (!o.value("change").isObject())
            refuse(QString("%1: \"change\" must be an object of scenario keys").arg(where));
        const QJsonObject change = o.value("change").toObject();
        scenario = layOver(followingLimits(scenario, change), change);
    }
    return scenario;
}

// readStepTexts reads a step's title, narrative, question and answer.
void readStepTexts(const QJsonObject& o, DeckStep& step, QJsonObject& scenario, const QString& where)
{
    const QString title = stringField(o, "title", where);
    if (title.trimmed().isEmpty())
        refuse(QString("%1: a step needs a \"title\"").arg(where));
    scenario.insert("title", title);
    step.question = stringField(o, "question", where).toStdString();
    if (o.contains("narrative"))
        scenario.insert("lesson", stringField(o, "narrative", where));
    else if (!step.question.empty())
        scenario.insert("lesson", QString()); // a preset's own lesson would answer the question
    step.answer = stringField(o, "answer", where).toStdString();
    if (!step.answer.empty() && step.question.empty())
        refuse(QString("%1: an \"answer\" needs the \"question\" it answers").arg(where));
}

// readStepScenario reads the step's scenario object as a scenario file, but stricter.
void readStepScenario(DeckStep& step, const QJsonObject& scenario, const QString& where)
{
    reading::Reader reader;
    try {
        step.scenario = reader.read(scenario);
    } catch (const InputError& e) {
        refuse(QString("%1: %2").arg(where, q(std::string(e.what()))));
    }
    // A scenario file ignores an unknown key with a note; in a class the typo would be found
    // in front of the room ("nn": 40 leaves 20 requests), so a deck refuses it.
    for (const QString& note : reader.notes)
        if (note.startsWith("ignored unknown field"))
            refuse(QString("%1: %2, a typo? (a deck refuses what a scenario file would ignore)")
                       .arg(where, QString(note).replace("ignored unknown", "unknown")));
    if (step.pin && *step.pin >= resolveArrivals(step.scenario).size())
        refuse(QString("%1: \"focus\".pin is request %2, but the step has %3 requests")
                   .arg(where)
                   .arg(*step.pin)
                   .arg(resolveArrivals(step.scenario).size()));
}

// readStep reads step i over the previous step's scenario object (empty for the first).
DeckStep readStep(const QJsonObject& o, int i, QJsonObject& previous)
{
    const QString where = QString("step %1").arg(i + 1);
    static const QStringList known{"title", "narrative", "preset", "scenario", "change", "focus", "question", "answer"};
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!known.contains(it.key()))
            refuse(QString("%1: unknown key \"%2\" (known: %3)").arg(where, it.key().left(40), known.join(", ")));
    QJsonObject scenario = stepScenario(o, previous, where);
    DeckStep step;
    if (o.contains("focus")) {
        if (!o.value("focus").isObject())
            refuse(QString("%1: \"focus\" must be an object").arg(where));
        readFocus(o.value("focus").toObject(), step, scenario, where);
    }
    readStepTexts(o, step, scenario, where);
    previous = scenario;
    readStepScenario(step, scenario, where);
    return step;
}

Deck readDeck(const QJsonObject& root)
{
    const QJsonValue format = root.value("format");
    if (!format.isString() || format.toString() != kDeckFormat)
        refuse(QString("not a RateLab deck: it needs \"format\": \"%1\"").arg(kDeckFormat));
    const QJsonValue version = root.value("version");
    if (!version.isDouble() || version.toInteger() < 1)
        refuse("\"version\" must be a whole number from 1");
    if (version.toInteger() > kDeckFormatVersion)
        refuse(QString("a deck of version %1, newer than this RateLab reads (%2): update RateLab")
                   .arg(version.toInteger())
                   .arg(kDeckFormatVersion));
    Deck deck;
    deck.title = stringField(root, "title", "the deck").toStdString();
    const QJsonValue steps = root.value("steps");
    if (!steps.isArray() || steps.toArray().isEmpty())
        refuse("a deck needs \"steps\": a list of at least one step");
    QJsonObject previous;
    const QJsonArray list = steps.toArray();
    for (int i = 0; i < list.size(); ++i) {
        if (!list[i].isObject())
            refuse(QString("step %1 must be an object").arg(i + 1));
        deck.steps.push_back(readStep(list[i].toObject(), i, previous));
    }
    return deck;
}

} // namespace

DeckLoad parseDeck(const QByteArray& json)
{
    DeckLoad result;
    try {
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        if (json.trimmed().isEmpty())
            refuse("not a RateLab deck: the input is empty");
        if (error.error != QJsonParseError::NoError)
            refuse(reading::jsonSyntaxError(json, error));
        if (!doc.isObject())
            refuse("not a RateLab deck: the top level must be a JSON object");
        reading::checkNumbersExact(json);
        result.deck = readDeck(doc.object());
    } catch (const InputError& e) {
        result.deck.reset();
        result.error = q(std::string(e.what()));
    } catch (const std::exception& e) {
        result.deck.reset();
        result.error = "cannot read the deck: " + q(std::string(e.what()));
    }
    result.error.replace('\n', ' ').replace('\r', ' ');
    return result;
}

QByteArray serializeDeck(const Deck& deck)
{
    QJsonArray steps;
    for (const DeckStep& step : deck.steps) {
        QJsonObject scenario = QJsonDocument::fromJson(serializeScenario(step.scenario)).object();
        QJsonObject o{{"title", scenario.take("title")}, {"narrative", scenario.take("lesson")}};
        o.insert("scenario", scenario);
        QJsonObject focus;
        if (step.hasFocus()) {
            focus.insert("from", q(formatSeconds(*step.from)));
            focus.insert("to", q(formatSeconds(*step.to)));
        }
        if (step.pin)
            focus.insert("pin", qint64(*step.pin));
        if (!focus.isEmpty())
            o.insert("focus", focus);
        if (!step.question.empty())
            o.insert("question", q(step.question));
        if (!step.answer.empty())
            o.insert("answer", q(step.answer));
        steps.append(o);
    }
    const QJsonObject root{{"format", kDeckFormat}, {"version", kDeckFormatVersion}, {"title", q(deck.title)}, {"steps", steps}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString saveDeck(const Deck& deck, const QString& path) { return writeFileAtomically(path, serializeDeck(deck)); }

DeckLoad loadDeckFile(const QString& path)
{
    QString file = path;
    if (!QFileInfo::exists(path) && shippedDecks().contains(path))
        file = ":/decks/" + path + ".ratelab-deck.json";
    DeckLoad result;
    QFile f(file);
    if (QFileInfo(file).isDir()) {
        result.error = QString("cannot open %1: it is a folder").arg(path);
        return result;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        result.error = QString("cannot open %1: %2 (shipped decks: %3)").arg(path, f.errorString(), shippedDecks().join(", "));
        return result;
    }
    if (f.size() > kMaxDeckBytes) {
        result.error = QString("cannot open %1: larger than %2 MB, too large for a deck").arg(path).arg(kMaxDeckBytes >> 20);
        return result;
    }
    result = parseDeck(f.readAll());
    if (!result.deck)
        result.error = QString("%1: %2").arg(path, result.error);
    return result;
}

QStringList shippedDecks()
{
    QStringList ids;
    for (const char* id : kDeckIds)
        ids << id;
    return ids;
}

} // namespace ratelab::io
