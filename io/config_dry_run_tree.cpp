// A YAML or JSON file as a tree for the route readers (config_dry_run_routes.h), and a product
// policy made a rule of a dry run.
#include "config_dry_run_routes.h"

#include "arithmetic/decimal.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <yaml.h>

#include <memory>

namespace ratelab::io {

namespace {

constexpr int kMaxDepth = 64;
constexpr int kMaxNodes = 200'000; // aliases expanded

class YamlTree {
public:
    explicit YamlTree(yaml_document_t& doc) : m_doc(doc) {}

    QJsonValue node(yaml_node_t* n, int depth)
    {
        if (!n)
            return {};
        if (depth > kMaxDepth)
            throw InputError("YAML: nested more than " + std::to_string(kMaxDepth) + " deep");
        if (++m_nodes > kMaxNodes)
            throw InputError("YAML: more than " + std::to_string(kMaxNodes) + " values (aliases expanded)");
        switch (n->type) {
        case YAML_SCALAR_NODE: return QString::fromStdString(scalar(n));
        case YAML_SEQUENCE_NODE: {
            QJsonArray a;
            for (yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i)
                a.append(node(yaml_document_get_node(&m_doc, *i), depth + 1));
            return a;
        }
        case YAML_MAPPING_NODE: {
            QJsonObject o;
            mapping(n, o, depth);
            return o;
        }
        case YAML_NO_NODE: break;
        }
        return {};
    }

private:
    static std::string scalar(const yaml_node_t* n)
    {
        return std::string(reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length);
    }

    // mapping adds a mapping's pairs to o, a key written beside a merge key (<<) winning over
    // the merged ones, an earlier merged mapping over a later.
    void mapping(yaml_node_t* n, QJsonObject& o, int depth)
    {
        std::vector<yaml_node_t*> merged;
        for (yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
            yaml_node_t* key = yaml_document_get_node(&m_doc, p->key);
            yaml_node_t* value = yaml_document_get_node(&m_doc, p->value);
            if (!key || key->type != YAML_SCALAR_NODE)
                continue;
            const std::string k = scalar(key);
            if (k == "<<" && key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && value)
                merged.push_back(value);
            else
                o.insert(QString::fromStdString(k), node(value, depth + 1));
        }
        for (yaml_node_t* v : merged) {
            std::vector<yaml_node_t*> sources;
            if (v->type == YAML_MAPPING_NODE)
                sources.push_back(v);
            else if (v->type == YAML_SEQUENCE_NODE)
                for (yaml_node_item_t* i = v->data.sequence.items.start; i < v->data.sequence.items.top; ++i)
                    sources.push_back(yaml_document_get_node(&m_doc, *i));
            for (yaml_node_t* m : sources) {
                if (!m || m->type != YAML_MAPPING_NODE)
                    throw InputError("YAML: a merge key (<<) takes a mapping or a list of mappings");
                QJsonObject inner;
                mapping(m, inner, depth + 1);
                for (auto it = inner.begin(); it != inner.end(); ++it)
                    if (!o.contains(it.key()))
                        o.insert(it.key(), it.value());
            }
        }
    }

    yaml_document_t& m_doc;
    int m_nodes = 0;
};

} // namespace

QJsonValue configTree(const QByteArray& input)
{
    QByteArray text = input;
    if (text.startsWith("\xEF\xBB\xBF"))
        text.remove(0, 3);
    const QByteArray trimmed = text.trimmed();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
        if (error.error == QJsonParseError::NoError)
            return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        throw InputError("YAML: cannot start the parser");
    const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> closer(&parser, yaml_parser_delete);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.constData()), std::size_t(text.size()));
    yaml_document_t doc;
    if (!yaml_parser_load(&parser, &doc))
        throw InputError("YAML line " + std::to_string(parser.problem_mark.line + 1) + ": "
                         + (parser.problem ? parser.problem : "not valid YAML"));
    const std::unique_ptr<yaml_document_t, void (*)(yaml_document_t*)> free(&doc, yaml_document_delete);
    return YamlTree(doc).node(yaml_document_get_root_node(&doc), 0);
}

std::string treeText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString().toStdString();
    if (v.isDouble()) {
        const double d = v.toDouble();
        return d == double(qint64(d)) ? std::to_string(qint64(d)) : QString::number(d, 'g', 17).toStdString();
    }
    if (v.isBool())
        return v.toBool() ? "true" : "false";
    return "";
}

void bindFallback(DryRunConfig& out, const std::string& field, const std::string& words, const std::string& logKey)
{
    DryRunRule& rule = out.rules.back();
    rule.fallbackField = field;
    if (field.empty())
        return;
    if (field == logKey) {
        rule.fallbackSource = -1;
        return;
    }
    out.notReplayed.push_back(rule.name + ": a request without its key is keyed by " + words + ", which is not the log's key ("
                              + logKey + "): such requests are let through (a log with " + field + " replays them)");
    rule.fallbackNote = int(out.notReplayed.size()) - 1;
}

std::size_t addPolicyRule(DryRunConfig& out, const std::string& name, const std::string& zone, const Layer& layer,
                          const RuleKey& key, const std::string& logKey)
{
    out.zones.push_back({zone, 0});
    out.rules.push_back({name, out.zones.size() - 1, 0, 0, {layer}, key.shared, false});
    const bool mapped = key.shared || key.field == logKey;
    out.mapped.push_back(mapped);
    if (!mapped) {
        out.notReplayed.push_back(name + ": it keys by " + key.words + ", not the log's key (" + logKey + ")"
                                  + (key.field.empty() ? ", nor a log field: not replayed"
                                                       : ": not replayed (--key " + key.field + " replays it)"));
        out.rules.back().keyField = key.field;
        out.rules.back().keyNote = int(out.notReplayed.size()) - 1;
    }
    bindFallback(out, key.fallback, key.fallbackWords, logKey);
    return out.rules.size() - 1;
}

} // namespace ratelab::io
