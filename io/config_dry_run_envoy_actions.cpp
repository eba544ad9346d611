// Envoy's rate_limits actions read backwards (config_dry_run_routes.h, envoyDescriptorWays): which
// requests make a descriptor, as conditions on what the log holds of a request.
#include "config_dry_run_routes.h"
#include "config_import.h"

#include "arithmetic/decimal.h"
#include "replay/product_regex.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

namespace ratelab::io {

namespace {

// headerSubject makes a condition read a request header: :method the log's request_method,
// :authority (or host) its host, :path the target as logged, any other its field http_NAME.
DryRunCondition headerSubject(const std::string& header, const std::string& where)
{
    const std::string name = lowerAscii(header);
    DryRunCondition c;
    if (name == ":path") {
        c.subject = DryRunCondition::Subject::Target;
    } else if (name == ":method") {
        c.field = "request_method";
    } else if (name == ":authority" || name == "host") {
        c.field = "host";
    } else if (name.starts_with(':')) {
        throw InputError("Envoy: " + where + ": the header " + header + " is not in a log");
    } else {
        c.field = "http_" + name;
        std::replace(c.field.begin(), c.field.end(), '-', '_');
    }
    return c;
}

// headerCondition reads one HeaderMatcher of a header_value_match (Http::HeaderUtility's:
// exact, prefix, suffix, contains, a safe_regex on the whole value, present), negated when the
// action expects no match.
DryRunCondition headerCondition(const QJsonObject& m, bool negate, const std::string& where)
{
    DryRunCondition c = headerSubject(treeText(m.value("name")), where);
    QJsonObject match = m.value("string_match").toObject();
    for (const char* old : {"exact_match", "prefix_match", "suffix_match", "contains_match"}) // the deprecated forms
        if (m.contains(old))
            match.insert(QString(old).chopped(6), m.value(old));
    if (m.contains("safe_regex_match"))
        match.insert("safe_regex", m.value("safe_regex_match"));
    // StringMatcherImpl: ignore_case applies to exact, prefix, suffix and contains, never to a regex.
    const bool caseless = treeText(match.value("ignore_case")) == "true" && !match.contains("safe_regex");
    const auto text = [&](const char* k) { return caseless ? lowerAscii(treeText(match.value(k))) : treeText(match.value(k)); };
    c.caseless = caseless;
    if (match.contains("exact"))
        c.values = {text("exact")};
    else if (match.contains("prefix"))
        c.prefixes = {text("prefix")};
    else if (match.contains("suffix"))
        c.suffixes = {text("suffix")};
    else if (match.contains("contains"))
        c.regexes = {re2Quote(text("contains"))};
    else if (match.contains("safe_regex"))
        c.regexes = {"^(?:" + treeText(match.value("safe_regex").toObject().value("regex")) + ")$"};
    else if (m.contains("present_match"))
        c.prefixes = {""}; // any value: a header sent
    else
        throw InputError("Envoy: " + where + ": a header matcher of " + treeText(m.value("name")) + " that --config does not read");
    const bool invert = treeText(m.value("invert_match")) == "true";
    // An absent header fails every matcher, inverted or not, but an inverted present_match.
    if ((invert && !m.contains("present_match")) || treeText(m.value("treat_missing_header_as_empty")) == "true")
        throw InputError("Envoy: " + where + ": invert_match or treat_missing_header_as_empty on " + treeText(m.value("name"))
                         + " is not modelled");
    c.negate = negate != (invert || treeText(m.value("present_match")) == "false");
    return c;
}

// extend follows a rate_limits entry's actions from action i, the descriptor's entries made up to
// entry j, with the conditions `sofar` on the request, and adds to `ways` each way the actions
// end having made exactly `entries`.
void extend(const QJsonArray& actions, qsizetype i, const EnvoyEntries& entries, std::size_t j, std::vector<DryRunCondition> sofar,
            EnvoyWays& ways, const std::string& where)
{
    if (i == actions.size()) {
        if (j == entries.size())
            ways.push_back(std::move(sofar));
        return;
    }
    const QJsonObject a = actions[i].toObject();
    const auto next = [&](std::size_t entry, std::vector<DryRunCondition> more) {
        sofar.insert(sofar.end(), more.begin(), more.end());
        extend(actions, i + 1, entries, entry, std::move(sofar), ways, where);
    };
    if (a.contains("request_headers")) { // (descriptor_key, the header's first value)
        const QJsonObject h = a.value("request_headers").toObject();
        const DryRunCondition header = headerSubject(treeText(h.value("header_name")), where);
        if (treeText(h.value("skip_if_absent")) == "true") { // absent: no entry, the others go on
            std::vector<DryRunCondition> without = sofar;
            without.push_back(header);
            without.back().prefixes = {""}; // any value sent, negated
            without.back().negate = true;
            extend(actions, i + 1, entries, j, std::move(without), ways, where);
        }
        if (j == entries.size() || treeText(h.value("descriptor_key")) != entries[j].first)
            return;
        DryRunCondition present = header;
        present.values = {entries[j].second};
        return next(j + 1, {present});
    }
    if (j == entries.size())
        return; // every other action makes an entry, or no descriptor
    const auto& [key, value] = entries[j];
    if (a.contains("generic_key")) { // (descriptor_key or "generic_key", descriptor_value)
        const QJsonObject g = a.value("generic_key").toObject();
        const std::string k = treeText(g.value("descriptor_key")).empty() ? "generic_key" : treeText(g.value("descriptor_key"));
        if (k == key && treeText(g.value("descriptor_value")) == value)
            next(j + 1, {});
    } else if (a.contains("remote_address")) { // ("remote_address", the client's address)
        if (key == "remote_address")
            next(j + 1, {DryRunCondition{"ip", {value}}});
    } else if (a.contains("header_value_match")) { // ("header_match", descriptor_value) when the headers match as expected
        const QJsonObject h = a.value("header_value_match").toObject();
        const std::string k = treeText(h.value("descriptor_key")).empty() ? "header_match" : treeText(h.value("descriptor_key"));
        if (k != key || treeText(h.value("descriptor_value")) != value)
            return;
        const bool expect = treeText(h.value("expect_match")) != "false";
        const QJsonArray headers = h.value("headers").toArray();
        if (!expect && headers.size() != 1)
            throw InputError("Envoy: " + where + ": header_value_match expecting no match of several headers is not modelled");
        std::vector<DryRunCondition> conditions;
        for (const QJsonValue& m : headers)
            conditions.push_back(headerCondition(m.toObject(), !expect, where));
        next(j + 1, std::move(conditions));
    } else {
        throw InputError("Envoy: " + where + ": the rate_limits action " + (a.isEmpty() ? std::string("(none)") : a.keys().front().toStdString())
                         + " is not modelled (request_headers, remote_address, generic_key, header_value_match are)");
    }
}

} // namespace

EnvoyWays envoyDescriptorWays(const QJsonArray& actions, const EnvoyEntries& entries, const std::string& where)
{
    qsizetype skippable = 0;
    for (const QJsonValue& a : actions)
        skippable += treeText(a.toObject().value("request_headers").toObject().value("skip_if_absent")) == "true" ? 1 : 0;
    EnvoyWays ways;
    if (qsizetype(entries.size()) > actions.size() || qsizetype(entries.size()) < actions.size() - skippable)
        return ways; // too many or too few entries for these actions, whatever the request
    extend(actions, 0, entries, 0, {}, ways, where);
    return ways;
}

} // namespace ratelab::io
