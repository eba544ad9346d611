// Whose requests an advice is made on and must let through (advise.h): the log grouped by key,
// the keys kept, the key shown, and the goals' text as typed. The front and its searches are
// advise.cpp's.
#include "advise/advise.h"
#include "advise/let_by.h"

#include "arithmetic/decimal.h"
#include "replay/log_keys.h"
#include "replay/product_regex.h"

#include <algorithm>

namespace ratelab {
KeyTrace KeyedTraces::trace(std::size_t key) const
{
    const std::size_t from = start[key], n = start[key + 1] - from;
    return {std::span<const Nanos>(times).subspan(from, n),
            costs.empty() ? std::span<const std::int64_t>() : std::span<const std::int64_t>(costs).subspan(from, n),
            clock};
}

void checkPassPattern(const std::string& pass)
{
    try {
        ProductRegex(pass, RegexEngine::Re2, RegexSpan::Whole);
    } catch (const InputError& e) {
        throw InputError("--pass: " + std::string(e.what()));
    }
}

KeyedTraces keyedTraces(const Traffic& traffic, const std::string& pass, const std::vector<std::uint8_t>& letBy)
{
    KeyedTraces out;
    const std::size_t keys = traffic.keyNames.size(), n = traffic.times.size();
    const auto counted = [&](std::size_t i) { return letBy.empty() || !letBy[i]; };
    out.clock = traffic.startEpochNanos;
    out.start.assign(keys + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        out.start[traffic.keys[i] + 1] += counted(i);
    for (std::size_t k = 0; k < keys; ++k)
        out.start[k + 1] += out.start[k];
    // Not counted: those the pattern lets by (1), and those no route takes (kUnrouted).
    out.unrouted = letBy.empty() ? 0 : std::int64_t(std::count(letBy.begin(), letBy.end(), kUnrouted));
    out.letBy = std::int64_t(n - out.start[keys]) - out.unrouted;
    if (out.letBy > 0) {
        std::vector<std::int64_t> perKey(keys, 0);
        for (std::size_t i = 0; i < n; ++i)
            perKey[traffic.keys[i]] += !letBy.empty() && letBy[i] == 1;
        const auto most = std::max_element(perKey.begin(), perKey.end());
        out.letByMostKey = std::size_t(most - perKey.begin());
        out.letByMostRequests = *most;
    }
    std::vector<std::size_t> next(out.start.begin(), out.start.end() - 1);
    out.times.resize(out.start[keys]);
    if (!traffic.costs.empty())
        out.costs.resize(out.start[keys]);
    for (std::size_t i = 0; i < n; ++i) { // in time order, so each key's requests stay in it
        if (!counted(i)) {
            out.letByTimes.push_back(traffic.times[i]);
            continue;
        }
        const std::size_t at = next[traffic.keys[i]]++;
        out.times[at] = traffic.times[i];
        if (!traffic.costs.empty())
            out.costs[at] = traffic.costs[i];
    }
    // keyNames holds other key fields' values too (a dry run's): a name no request is keyed by is no key.
    out.limited.resize(keys);
    for (std::size_t k = 0; k < keys; ++k)
        out.limited[k] = !keylessName(traffic.keyNames[k]) && out.start[k + 1] > out.start[k];
    if (!pass.empty()) {
        checkPassPattern(pass);
        const ProductRegex re(pass, RegexEngine::Re2, RegexSpan::Whole);
        out.mustPass.assign(keys, 0);
        for (std::size_t k = 0; k < keys; ++k)
            out.mustPass[k] = out.limited[k] && re.matches(traffic.keyNames[k]);
        if (std::find(out.mustPass.begin(), out.mustPass.end(), 1) == out.mustPass.end())
            throw InputError("--pass: " + ratelab::quoted(pass) + " matches no key of the log"
                             + (out.letBy > 0 ? " with a request the limit counts" : "") + " (a whole key must match)");
    }
    return out;
}

// keepKeys: the nearest rank is ceil(keep * n / 100 %), from the fewest.
void keepKeys(const KeyedTraces& traces, std::int64_t keep, KeptKeys& out)
{
    out.letByRequests = traces.letBy;
    out.unroutedRequests = traces.unrouted;
    out.letByMostKey = traces.letByMostKey;
    out.letByMostRequests = traces.letByMostRequests;
    std::vector<std::int64_t> counts;
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (traces.limited[k])
            counts.push_back(traces.requests(k));
        else
            out.unlimitedRequests += traces.requests(k);
    }
    if (counts.empty())
        throw InputError(traces.letBy > 0 ? "advise: every request not let by has an empty key, so no limit keyed by it counts any"
                                          : "advise: every request's key is empty, so no limit keyed by it counts any");
    const auto n = std::int64_t(counts.size());
    const bool byRule = !traces.keptBy.empty();
    if (!byRule) {
        const auto rank = std::int64_t(ceilDiv(Int128(keep) * n, kPercentUnit)); // 1..n: keep is in (0, 100 %]
        std::nth_element(counts.begin(), counts.begin() + (rank - 1), counts.end());
        out.keptMost = counts[std::size_t(rank - 1)];
    }
    out.limitedKeys = n;
    out.kept.assign(traces.keys(), 0);
    for (std::size_t k = 0; k < traces.keys(); ++k) {
        if (!traces.limited[k])
            continue;
        out.limitedRequests += traces.requests(k);
        const bool few = byRule ? traces.keptBy[k] != 0 : traces.requests(k) <= out.keptMost;
        const bool must = !traces.mustPass.empty() && traces.mustPass[k];
        if (byRule && few)
            out.keptMost = std::max(out.keptMost, traces.requests(k));
        if (few || must) {
            out.kept[k] = 1;
            ++out.keptKeys;
            out.passedKeys += !few;
            out.keptRequests += traces.requests(k);
        }
    }
    if (byRule && out.keptKeys == out.passedKeys)
        throw InputError("--keep current: no key the limit counts is one the current config denies nothing (give --keep P)");
}

std::optional<std::string> headerOfField(const std::string& logKey)
{
    if (!logKey.starts_with("http_") || logKey.size() == 5
        || !std::all_of(logKey.begin() + 5, logKey.end(),
                        [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }))
        return std::nullopt;
    std::string header = logKey.substr(5);
    std::replace(header.begin(), header.end(), '_', '-');
    return header;
}

WindowCap parseWindowCap(std::string_view text)
{
    const std::size_t slash = text.find('/');
    if (slash == std::string_view::npos || text.find('/', slash + 1) != std::string_view::npos)
        throw InputError("must be requests/window, as 600/1m (got " + quoted(text) + ")");
    WindowCap cap;
    try {
        cap.requests = parseIntegerIn(text.substr(0, slash), 1, std::numeric_limits<std::int64_t>::max());
    } catch (const InputError& e) {
        throw InputError(std::string("the requests ") + e.what());
    }
    try {
        cap.window = parseDurationText(text.substr(slash + 1), kNanosPerSecond);
    } catch (const InputError& e) {
        throw InputError(std::string("the window: ") + e.what());
    }
    if (cap.window < 1)
        throw InputError("the window must be more than 0 s (got " + quoted(text.substr(slash + 1)) + ")");
    return cap;
}

std::optional<std::size_t> shownKey(const KeyedTraces& traces, const DenialCount& denied)
{
    if (denied.mostDenied)
        return denied.mostDenied;
    std::optional<std::size_t> busiest;
    for (std::size_t k = 0; k < traces.keys(); ++k)
        if (traces.limited[k] && (!busiest || traces.requests(k) > traces.requests(*busiest)))
            busiest = k;
    return busiest;
}

} // namespace ratelab
