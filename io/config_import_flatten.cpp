// flattenConfig: YAML (through libyaml, Debian's libyaml-dev: block and flow style, anchors,
// aliases, merge keys, several documents), TOML (through toml++, Debian's libtomlplusplus-dev)
// and JSON (Qt) into dotted paths and scalar values.
#include "config_import.h"

#include "arithmetic/decimal.h"

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
#include <set>
#include <sstream>

namespace ratelab::io {

namespace {

using Flat = std::vector<std::pair<std::string, std::string>>;

constexpr std::size_t kMaxValues = 100'000; // an alias bomb stops here, not in memory
constexpr int kMaxDepth = 64;

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

// TomlLeaf is one scalar of a TOML file: its dotted path, its text and where the file wrote it.
struct TomlLeaf {
    std::string path, value;
    toml::source_position at;
};

// tomlText is a TOML scalar as the other formats give theirs: a string as it is, a number in its
// shortest decimal form, a boolean as true or false, a date or time as TOML writes it.
std::string tomlText(const toml::node& n)
{
    if (const auto* s = n.as_string())
        return s->get();
    if (const auto* i = n.as_integer())
        return std::to_string(i->get());
    if (const auto* b = n.as_boolean())
        return b->get() ? "true" : "false";
    if (const auto* d = n.as_floating_point()) {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, d->get());
        return std::string(buf, r.ptr);
    }
    std::ostringstream out;
    if (const auto* d = n.as_date())
        out << *d;
    else if (const auto* t = n.as_time())
        out << *t;
    else if (const auto* dt = n.as_date_time())
        out << *dt;
    return out.str();
}

// tomlLeaves walks a TOML node as flattenJson walks JSON: a table's keys join the path, an
// array's items (an array of tables' tables too) each take the path of the array.
void tomlLeaves(const toml::node& n, const std::string& path, std::vector<TomlLeaf>& out, int depth)
{
    if (depth > kMaxDepth)
        throw InputError("TOML: nested more than " + std::to_string(kMaxDepth) + " deep");
    if (const toml::table* t = n.as_table()) {
        for (const auto& [key, value] : *t)
            tomlLeaves(value, join(path, std::string(key.str())), out, depth + 1);
    } else if (const toml::array* a = n.as_array()) {
        for (const toml::node& item : *a)
            tomlLeaves(item, path, out, depth + 1);
    } else {
        if (out.size() >= kMaxValues)
            throw InputError("TOML: more than " + std::to_string(kMaxValues) + " values");
        out.push_back({path, tomlText(n), n.source().begin});
    }
}

// flattenToml reads TOML with toml++ (Debian's libtomlplusplus-dev): tables, [[arrays of tables]],
// inline tables and arrays, dotted and quoted keys, every string form. The values come in the
// file's order, as YAML's and JSON's do (toml++ keeps a table's keys sorted).
Flat flattenToml(const QByteArray& text)
{
    toml::table root;
    try {
        root = toml::parse(std::string_view(text.constData(), std::size_t(text.size())));
    } catch (const toml::parse_error& e) {
        throw InputError("TOML line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
    }
    std::vector<TomlLeaf> leaves;
    tomlLeaves(root, "", leaves, 0);
    std::stable_sort(leaves.begin(), leaves.end(), [](const TomlLeaf& a, const TomlLeaf& b) {
        return a.at.line != b.at.line ? a.at.line < b.at.line : a.at.column < b.at.column;
    });
    Flat out;
    out.reserve(leaves.size());
    for (TomlLeaf& leaf : leaves)
        out.emplace_back(std::move(leaf.path), std::move(leaf.value));
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
        return flattenToml(text);
    try {
        return flattenYaml(text); // a flow-style document that is not JSON is YAML
    } catch (const InputError&) {
        if (jsonError)
            throw InputError(*jsonError);
        throw;
    }
}

} // namespace ratelab::io
