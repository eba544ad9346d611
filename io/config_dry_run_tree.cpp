// A tree's scalar as text for the route readers (config_dry_run_routes.h), and a product policy
// made a rule of a dry run.
#include "config_dry_run_routes.h"

#include "arithmetic/decimal.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>


namespace ratelab::io {

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
