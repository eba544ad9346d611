// flattenConfig: YAML (through libyaml, Debian's libyaml-dev: block and flow style, anchors,
// aliases, merge keys, several documents), TOML (the tables-and-keys subset product configs use,
// read by hand) and JSON (Qt) into dotted paths and scalar values.
#include "config_import.h"

#include "arithmetic/decimal.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <yaml.h>

#include <memory>
#include <set>

namespace ratelab::io {

namespace {

using Flat = std::vector<std::pair<std::string, std::string>>;

constexpr std::size_t kMaxValues = 100'000; // an alias bomb stops here, not in memory
constexpr int kMaxDepth = 64;

QString unquote(QString v)
{
    v = v.trimmed();
    if (v.size() >= 2 && ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
        return v.mid(1, v.size() - 2);
    return v;
}

// stripComment drops a TOML comment: '#' at the start or after a space, outside quotes.
QString stripComment(const QString& line)
{
    QChar quote;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '#' && (i == 0 || line[i - 1].isSpace())) {
            return line.left(i);
        }
    }
    return line;
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

void flattenJson(const QJsonValue& v, const std::string& path, Flat& out)
{
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            flattenJson(it.value(), join(path, it.key().toStdString()), out);
    } else if (v.isArray()) {
        for (const QJsonValue& item : v.toArray())
            flattenJson(item, path, out);
    } else if (v.isString()) {
        out.emplace_back(path, v.toString().toStdString());
    } else if (v.isDouble()) {
        const double d = v.toDouble();
        out.emplace_back(path, v.toVariant().typeId() == QMetaType::LongLong ? std::to_string(v.toInteger())
                                                                               : QString::number(d, 'g', 17).toStdString());
    } else if (v.isBool()) {
        out.emplace_back(path, v.toBool() ? "true" : "false");
    }
}

Flat flattenToml(const QStringList& lines)
{
    Flat out;
    std::string prefix;
    static const QRegularExpression table(R"(^\s*\[+\s*([^\]]+?)\s*\]+\s*$)");
    for (const QString& raw : lines) {
        const QString line = stripComment(raw).trimmed();
        if (line.isEmpty())
            continue;
        if (const auto m = table.match(line); m.hasMatch()) {
            prefix = unquote(m.captured(1)).toStdString();
            continue;
        }
        const qsizetype eq = line.indexOf('=');
        if (eq <= 0)
            continue;
        const std::string key = unquote(line.left(eq)).toStdString();
        out.emplace_back(join(prefix, key), unquote(line.mid(eq + 1)).toStdString());
    }
    return out;
}

// Yaml walks one libyaml document into Flat.
class Yaml {
public:
    Yaml(yaml_document_t& doc, Flat& out) : m_doc(doc), m_out(out) {}

    void node(yaml_node_t* n, const std::string& path, int depth)
    {
        if (!n)
            return;
        if (depth > kMaxDepth)
            throw InputError("YAML: nested more than " + std::to_string(kMaxDepth) + " deep");
        switch (n->type) {
        case YAML_SCALAR_NODE:
            if (m_out.size() >= kMaxValues)
                throw InputError("YAML: more than " + std::to_string(kMaxValues) + " values (aliases expanded)");
            m_out.emplace_back(path, scalar(n));
            break;
        case YAML_SEQUENCE_NODE:
            for (yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i)
                node(yaml_document_get_node(&m_doc, *i), path, depth + 1);
            break;
        case YAML_MAPPING_NODE: {
            std::set<std::string> taken;
            mapping(n, path, depth, taken);
            break;
        }
        case YAML_NO_NODE: break;
        }
    }

private:
    static std::string scalar(const yaml_node_t* n)
    {
        return std::string(reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length);
    }

    // mapping writes a mapping's pairs under path, but no key already `taken`, and adds its keys
    // to taken; a merge key ("<<: *base" or "<<: [*a, *b]", YAML 1.1) brings the pairs of the
    // mappings it names after those written beside it, an earlier mapping's before a later's.
    void mapping(yaml_node_t* n, const std::string& path, int depth, std::set<std::string>& taken)
    {
        std::vector<std::pair<std::string, yaml_node_t*>> own, merged;
        for (yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
            yaml_node_t* key = yaml_document_get_node(&m_doc, p->key);
            yaml_node_t* value = yaml_document_get_node(&m_doc, p->value);
            if (!key || key->type != YAML_SCALAR_NODE)
                continue; // a complex key names no setting
            const std::string k = scalar(key);
            if (k == "<<" && key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && value)
                merged.emplace_back(k, value);
            else if (!taken.count(k)) // a key merged in yields to one written beside the merge
                own.emplace_back(k, value);
        }
        for (const auto& [k, v] : own)
            taken.insert(k);
        for (const auto& [k, v] : own)
            node(v, join(path, k), depth + 1);
        for (const auto& [k, v] : merged) {
            if (v->type == YAML_MAPPING_NODE) {
                mapping(v, path, depth + 1, taken);
                continue;
            }
            if (v->type != YAML_SEQUENCE_NODE)
                throw InputError("YAML: a merge key (<<) takes a mapping or a list of mappings");
            for (yaml_node_item_t* i = v->data.sequence.items.start; i < v->data.sequence.items.top; ++i)
                if (yaml_node_t* m = yaml_document_get_node(&m_doc, *i); m && m->type == YAML_MAPPING_NODE)
                    mapping(m, path, depth + 1, taken);
        }
    }

    yaml_document_t& m_doc;
    Flat& m_out;
};

Flat flattenYaml(const QByteArray& text)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        throw InputError("YAML: cannot start the parser");
    const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> closer(&parser, yaml_parser_delete);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.constData()), std::size_t(text.size()));
    Flat out;
    for (;;) {
        yaml_document_t doc;
        if (!yaml_parser_load(&parser, &doc)) {
            const std::string problem = parser.problem ? parser.problem : "not valid YAML";
            throw InputError("YAML line " + std::to_string(parser.problem_mark.line + 1) + ": " + problem
                             + (parser.context ? std::string(" (") + parser.context + ")" : std::string()));
        }
        const std::unique_ptr<yaml_document_t, void (*)(yaml_document_t*)> free(&doc, yaml_document_delete);
        yaml_node_t* root = yaml_document_get_root_node(&doc);
        if (!root)
            break; // the end of the stream
        Yaml(doc, out).node(root, "", 0);
    }
    return out;
}

} // namespace

FlatConfig flattenConfig(const QByteArray& input)
{
    QByteArray text = input;
    if (text.startsWith("\xEF\xBB\xBF"))
        text.remove(0, 3); // a UTF-8 byte order mark
    const QByteArray trimmed = text.trimmed();
    std::optional<std::string> jsonError;
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
        if (error.error == QJsonParseError::NoError) {
            Flat out;
            flattenJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), "", out);
            return out;
        }
        jsonError = "JSON at character " + std::to_string(error.offset) + ": " + error.errorString().toStdString();
    }
    const QStringList lines = QString::fromUtf8(text).split('\n');
    static const QRegularExpression tomlKey(R"(^\s*[\w."-]+\s*=)");
    static const QRegularExpression yamlKey(R"(^\s*(- )?[\w."-]+:(\s|$))");
    qsizetype toml = 0, yaml = 0;
    for (const QString& l : lines) {
        toml += tomlKey.match(l).hasMatch() ? 1 : 0;
        yaml += yamlKey.match(l).hasMatch() ? 1 : 0;
    }
    if (toml > yaml)
        return flattenToml(lines);
    try {
        return flattenYaml(text); // a flow-style document that is not JSON is YAML
    } catch (const InputError&) {
        if (jsonError)
            throw InputError(*jsonError);
        throw;
    }
}

} // namespace ratelab::io
