#include "advise/let_by.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include <algorithm>

namespace ratelab {

void checkLetBy(const LetBy& letBy)
{
    if (!letBy.path.empty() && !letBy.agent.empty())
        throw InputError("--pass-path and --pass-agent: give one (nginx would need two maps, one reading the other)");
    try { // the pattern alone first, so that a refusal's offset is in what was typed
        ProductRegex(letBy.pattern(), RegexEngine::Pcre, RegexSpan::Anywhere);
        ProductRegex(letBy.written(), RegexEngine::Pcre, RegexSpan::Anywhere);
    } catch (const InputError& e) {
        throw InputError(letBy.option() + ": " + e.what());
    }
}

namespace {

// matchedIds says of each of the names whether the pattern matches it (asked once per name). An
// empty value ("-" as logged: a header not sent) matches nothing: nginx's map tries its regexes
// on a non-empty value only, and gives the default.
std::vector<std::uint8_t> matchedIds(const std::vector<std::string>& names, const ProductRegex& re)
{
    std::vector<std::uint8_t> out(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        out[i] = !keylessName(names[i]) && re.matches(names[i]);
    return out;
}

} // namespace

std::vector<std::uint8_t> letByOf(const Traffic& traffic, const LetBy& letBy)
{
    if (!letBy.any())
        return {};
    checkLetBy(letBy);
    const ProductRegex re(letBy.written(), RegexEngine::Pcre, RegexSpan::Anywhere);
    const std::size_t n = traffic.times.size();
    std::vector<std::uint8_t> out(n);
    if (!letBy.path.empty()) {
        if (traffic.noPaths)
            throw InputError("--pass-path: the log has no paths (a path or request field; --path-field names another)");
        if (traffic.pathIsUri) // the written map reads $request_uri, which the log does not hold
            throw InputError("--pass-path: the log's paths are nginx's $uri (decoded, without the query string), not the "
                             "$request_uri nginx's map is written on: log $request or $request_uri");
        if (traffic.paths.size() != n)
            throw std::logic_error("letByOf: the traffic was read without its paths");
        const std::vector<std::uint8_t> matched = matchedIds(traffic.pathNames, re);
        for (std::size_t i = 0; i < n; ++i)
            out[i] = matched[traffic.paths[i]];
    } else {
        const auto field = std::find(traffic.keyFields.begin(), traffic.keyFields.end(), kAgentField);
        const auto f = std::size_t(field - traffic.keyFields.begin());
        if (field == traffic.keyFields.end())
            throw std::logic_error("letByOf: the traffic was read without its User-Agent");
        if (traffic.fieldSeen[f] == 0)
            throw InputError("--pass-agent: the log has no User-Agent (a combined log's last field, a log_format's "
                             "$http_user_agent, or a JSON or CSV field " + std::string(kAgentField) + ")");
        const std::vector<std::uint8_t> matched = matchedIds(traffic.keyNames, re);
        for (std::size_t i = 0; i < n; ++i)
            out[i] = matched[traffic.fieldKeys[f][i]];
    }
    const auto let = std::count(out.begin(), out.end(), std::uint8_t(1));
    const std::string what = letBy.path.empty() ? "User-Agent" : "path";
    if (let == 0)
        throw InputError(letBy.option() + ": " + ratelab::quoted(letBy.pattern()) + " matches no request's " + what
                         + " (the whole " + what + " as logged must match" + (letBy.path.empty() ? "" : ", its query string included")
                         + ")");
    if (std::size_t(let) == n)
        throw InputError(letBy.option() + ": " + ratelab::quoted(letBy.pattern()) + " matches every request's " + what
                         + ": no request is left to limit");
    return out;
}

} // namespace ratelab
