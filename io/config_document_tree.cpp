// parseConfigTree: YAML (libyaml, Debian's libyaml-dev), JSON (Qt) and TOML (toml++, Debian's
// libtomlplusplus-dev) into one ConfigNode tree, with one node cap, one depth cap and one rule
// for several YAML documents; and the tree as dotted paths or as Qt JSON.
#include "config_document.h"

#include "arithmetic/decimal.h"
#include "arithmetic/text.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>

#include <toml++/toml.h>
#include <yaml.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <sstream>

namespace ratelab::io {

namespace {

// Budget counts a file's nodes and depth against the caps, whatever its syntax.
class Budget {
public:
    explicit Budget(const char* syntax) : m_syntax(syntax) {}
    void take(int depth)
    {
        if (depth > kMaxConfigDepth)
            throw InputError(std::string(m_syntax) + ": nested more than " + std::to_string(kMaxConfigDepth) + " deep");
        if (++m_nodes > kMaxConfigNodes)
            throw InputError(std::string(m_syntax) + ": more than " + grouping(kMaxConfigNodes)
                             + " nodes (every map, list and value, aliases expanded)");
    }

private:
    const char* m_syntax;
    int m_nodes = 0;
};

ConfigNode scalarNode(ConfigNode::Kind kind, std::string text)
{
    ConfigNode n;
    n.kind = kind;
    n.text = std::move(text);
    return n;
}

ConfigNode fromJson(const QJsonValue& v, Budget& budget, int depth)
{
    budget.take(depth);
    ConfigNode n;
    if (v.isObject()) {
        n.kind = ConfigNode::Kind::Map;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            n.items.emplace_back(it.key().toStdString(), fromJson(it.value(), budget, depth + 1));
    } else if (v.isArray()) {
        n.kind = ConfigNode::Kind::List;
        for (const QJsonValue& item : v.toArray())
            n.items.emplace_back("", fromJson(item, budget, depth + 1));
    } else if (v.isString()) {
        return scalarNode(ConfigNode::Kind::Text, v.toString().toStdString());
    } else if (v.isDouble()) {
        return scalarNode(ConfigNode::Kind::Number, v.toVariant().typeId() == QMetaType::LongLong
                                                        ? std::to_string(v.toInteger())
                                                        : QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest).toStdString());
    } else if (v.isBool()) {
        return scalarNode(ConfigNode::Kind::Bool, v.toBool() ? "true" : "false");
    }
    return n;
}

// tomlScalar is a TOML scalar as the other formats give theirs: a string as it is, a number in its
// shortest decimal form, a boolean as true or false, a date or time as TOML writes it.
ConfigNode tomlScalar(const toml::node& n)
{
    if (const auto* s = n.as_string())
        return scalarNode(ConfigNode::Kind::Text, s->get());
    if (const auto* i = n.as_integer())
        return scalarNode(ConfigNode::Kind::Number, std::to_string(i->get()));
    if (const auto* b = n.as_boolean())
        return scalarNode(ConfigNode::Kind::Bool, b->get() ? "true" : "false");
    if (const auto* d = n.as_floating_point()) {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, d->get());
        return scalarNode(ConfigNode::Kind::Number, std::string(buf, r.ptr));
    }
    std::ostringstream out;
    if (const auto* d = n.as_date())
        out << *d;
    else if (const auto* t = n.as_time())
        out << *t;
    else if (const auto* dt = n.as_date_time())
        out << *dt;
    return scalarNode(ConfigNode::Kind::Text, out.str());
}

// fromToml walks a TOML node; a table's keys come in the file's order (toml++ keeps them sorted).
ConfigNode fromToml(const toml::node& n, Budget& budget, int depth)
{
    budget.take(depth);
    ConfigNode out;
    if (const toml::table* t = n.as_table()) {
        out.kind = ConfigNode::Kind::Map;
        std::vector<std::pair<std::string, const toml::node*>> keys;
        for (const auto& [key, value] : *t)
            keys.emplace_back(std::string(key.str()), &value);
        std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
            const toml::source_position x = a.second->source().begin, y = b.second->source().begin;
            return x.line != y.line ? x.line < y.line : x.column < y.column;
        });
        for (const auto& [key, value] : keys)
            out.items.emplace_back(key, fromToml(*value, budget, depth + 1));
    } else if (const toml::array* a = n.as_array()) {
        out.kind = ConfigNode::Kind::List;
        for (const toml::node& item : *a)
            out.items.emplace_back("", fromToml(item, budget, depth + 1));
    } else {
        return tomlScalar(n);
    }
    return out;
}

ConfigNode parseToml(const QByteArray& text)
{
    toml::table root;
    try {
        root = toml::parse(std::string_view(text.constData(), std::size_t(text.size())));
    } catch (const toml::parse_error& e) {
        // toml++ quotes the byte it stopped at, which may be a control byte: one printable line.
        throw InputError("TOML line " + std::to_string(e.source().begin.line) + ": " + messageText(e.description()));
    }
    Budget budget("TOML");
    return fromToml(root, budget, 0);
}

// Yaml walks one libyaml document into a ConfigNode.
class Yaml {
public:
    explicit Yaml(yaml_document_t& doc) : m_doc(doc) {}

    ConfigNode node(yaml_node_t* n, int depth)
    {
        if (!n)
            return {};
        m_budget.take(depth);
        ConfigNode out;
        switch (n->type) {
        case YAML_SCALAR_NODE: return scalarNode(ConfigNode::Kind::Text, scalar(n));
        case YAML_SEQUENCE_NODE:
            out.kind = ConfigNode::Kind::List;
            for (yaml_node_item_t* i = n->data.sequence.items.start; i < n->data.sequence.items.top; ++i)
                out.items.emplace_back("", node(yaml_document_get_node(&m_doc, *i), depth + 1));
            break;
        case YAML_MAPPING_NODE:
            out.kind = ConfigNode::Kind::Map;
            mapping(n, out, depth);
            break;
        case YAML_NO_NODE: break;
        }
        return out;
    }

private:
    static std::string scalar(const yaml_node_t* n)
    {
        return std::string(reinterpret_cast<const char*>(n->data.scalar.value), n->data.scalar.length);
    }

    // mapping adds a mapping's pairs to out in the file's order; a merge key ("<<: *base" or
    // "<<: [*a, *b]", YAML 1.1) then brings the pairs of the mappings it names that out does not
    // hold yet: a key written beside the merge wins, an earlier merged mapping over a later.
    void mapping(yaml_node_t* n, ConfigNode& out, int depth)
    {
        std::vector<yaml_node_t*> merged;
        for (yaml_node_pair_t* p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
            yaml_node_t* key = yaml_document_get_node(&m_doc, p->key);
            yaml_node_t* value = yaml_document_get_node(&m_doc, p->value);
            if (!key || key->type != YAML_SCALAR_NODE)
                continue; // a complex key names no setting
            const std::string k = scalar(key);
            if (k == "<<" && key->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && value) {
                merged.push_back(value);
                continue;
            }
            if (out.find(k))
                throw InputError("YAML line " + std::to_string(key->start_mark.line + 1) + ": the key "
                                 + ratelab::quoted(k) + " a second time in one mapping");
            out.items.emplace_back(k, node(value, depth + 1));
        }
        for (yaml_node_t* v : merged)
            for (yaml_node_t* m : mergedMappings(v)) {
                ConfigNode inner;
                mapping(m, inner, depth + 1);
                for (auto& [k, value] : inner.items)
                    if (!out.find(k))
                        out.items.emplace_back(k, std::move(value));
            }
    }

    std::vector<yaml_node_t*> mergedMappings(yaml_node_t* v)
    {
        std::vector<yaml_node_t*> sources;
        if (v->type == YAML_MAPPING_NODE)
            sources.push_back(v);
        else if (v->type == YAML_SEQUENCE_NODE)
            for (yaml_node_item_t* i = v->data.sequence.items.start; i < v->data.sequence.items.top; ++i)
                sources.push_back(yaml_document_get_node(&m_doc, *i));
        if (sources.empty() || std::any_of(sources.begin(), sources.end(), [](yaml_node_t* m) { return !m || m->type != YAML_MAPPING_NODE; }))
            throw InputError("YAML line " + std::to_string(v->start_mark.line + 1)
                             + ": a merge key (<<) takes a mapping or a list of mappings");
        return sources;
    }

    yaml_document_t& m_doc;
    Budget m_budget{"YAML"};
};

using YamlDoc = std::unique_ptr<yaml_document_t, void (*)(yaml_document_t*)>;

// loadYaml loads the parser's next document into doc, false at the end of the stream.
bool loadYaml(yaml_parser_t& parser, yaml_document_t& doc)
{
    if (!yaml_parser_load(&parser, &doc)) {
        const std::string problem = parser.problem ? parser.problem : "not valid YAML";
        throw InputError("YAML line " + std::to_string(parser.problem_mark.line + 1) + ": " + problem
                         + (parser.context ? std::string(" (") + parser.context + ")" : std::string()));
    }
    if (yaml_document_get_root_node(&doc))
        return true;
    yaml_document_delete(&doc);
    return false;
}

// parseYaml reads the first document as the tree. The later ones are parsed too (a file YAML
// refuses is refused whole), their lines kept for whoever reads the tree to name them.
ConfigTree parseYaml(const QByteArray& text)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        throw InputError("YAML: cannot start the parser");
    const std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> closer(&parser, yaml_parser_delete);
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.constData()), std::size_t(text.size()));
    ConfigTree out;
    for (bool first = true;; first = false) {
        yaml_document_t doc;
        if (!loadYaml(parser, doc))
            break;
        const YamlDoc free(&doc, yaml_document_delete);
        yaml_node_t* root = yaml_document_get_root_node(&doc);
        if (first)
            out.root = Yaml(doc).node(root, 0);
        else if (!(root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)) // "---" and nothing
            out.unreadDocuments.push_back(int(doc.start_mark.line) + 1);
    }
    return out;
}

// looksLikeToml says whether more lines read as TOML's `key = value` than as YAML's `key: value`.
bool looksLikeToml(const QByteArray& text)
{
    static const QRegularExpression tomlKey(R"(^\s*[\w."-]+\s*=)");
    static const QRegularExpression yamlKey(R"(^\s*(- )?[\w."-]+:(\s|$))");
    qsizetype toml = 0, yaml = 0;
    for (const QString& l : QString::fromUtf8(text).split('\n')) {
        toml += tomlKey.match(l).hasMatch() ? 1 : 0;
        yaml += yamlKey.match(l).hasMatch() ? 1 : 0;
    }
    return toml > yaml;
}

} // namespace

const ConfigNode* ConfigNode::find(const std::string& key) const
{
    if (kind != Kind::Map)
        return nullptr;
    for (const auto& [k, v] : items)
        if (k == key)
            return &v;
    return nullptr;
}

ConfigTree parseConfigTree(const QByteArray& input)
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
            Budget budget("JSON");
            return {fromJson(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array()), budget, 0), {}};
        }
        jsonError = "JSON at character " + std::to_string(error.offset) + ": " + error.errorString().toStdString();
    }
    if (looksLikeToml(text))
        return {parseToml(text), {}};
    try {
        return parseYaml(text); // a flow-style document that is not JSON is YAML
    } catch (const InputError& e) {
        if (jsonError && std::string(e.what()).find("nodes") == std::string::npos)
            throw InputError(*jsonError);
        throw;
    }
}

namespace {

void flattenInto(const ConfigNode& n, const std::string& path, FlatConfig& out)
{
    switch (n.kind) {
    case ConfigNode::Kind::Null: break;
    case ConfigNode::Kind::Text:
    case ConfigNode::Kind::Number:
    case ConfigNode::Kind::Bool: out.emplace_back(path, n.text); break;
    case ConfigNode::Kind::List:
        for (const auto& [k, v] : n.items)
            flattenInto(v, path, out);
        break;
    case ConfigNode::Kind::Map:
        for (const auto& [k, v] : n.items)
            flattenInto(v, path.empty() ? k : path + "." + k, out);
        break;
    }
}

} // namespace

FlatConfig flattenTree(const ConfigNode& node)
{
    FlatConfig out;
    flattenInto(node, "", out);
    return out;
}

QJsonValue jsonOf(const ConfigNode& n)
{
    switch (n.kind) {
    case ConfigNode::Kind::Null: return QJsonValue(QJsonValue::Null);
    case ConfigNode::Kind::Text: return QString::fromStdString(n.text);
    case ConfigNode::Kind::Bool: return n.text == "true";
    case ConfigNode::Kind::Number: {
        qint64 i = 0;
        const auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), i);
        if (ec == std::errc() && end == n.text.data() + n.text.size())
            return i;
        return QString::fromStdString(n.text).toDouble();
    }
    case ConfigNode::Kind::List: {
        QJsonArray a;
        for (const auto& [k, v] : n.items)
            a.append(jsonOf(v));
        return a;
    }
    case ConfigNode::Kind::Map: {
        QJsonObject o;
        for (const auto& [k, v] : n.items)
            o.insert(QString::fromStdString(k), jsonOf(v));
        return o;
    }
    }
    return {};
}

} // namespace ratelab::io
