#include "engine/limit_change.h"

#include "arithmetic/decimal.h"

#include <algorithm>

namespace ratelab {

LimiterConfig changedConfig(const LimiterConfig& before, const LimitChange& c)
{
    const std::int64_t limit = c.limit.value_or(before.limit());
    const LimiterConfig followed = LimiterConfig::make(before.limit(), before.windowNanos());
    const bool capacityFollows = before.capacity() == followed.capacity();
    const bool rateFollows = before.rate() == followed.rate();
    std::optional<std::int64_t> capacity = c.capacity;
    if (!capacity && !capacityFollows)
        capacity = before.capacity();
    std::optional<Rate> rate = c.rate;
    if (!rate && !rateFollows)
        rate = before.rate();
    return LimiterConfig::make(limit, before.windowNanos(), capacity, rate)
        .withNginx(before.nginx())
        .withProductOptions(before.productOptions());
}

std::vector<std::pair<Nanos, LimiterConfig>> changedConfigs(const LimiterConfig& base, std::span<const LimitChange> changes)
{
    std::vector<LimitChange> sorted(changes.begin(), changes.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const LimitChange& a, const LimitChange& b) { return a.at < b.at; });
    std::vector<std::pair<Nanos, LimiterConfig>> out;
    LimiterConfig now = base;
    for (const LimitChange& c : sorted) {
        now = changedConfig(now, c);
        out.emplace_back(c.at, now);
    }
    return out;
}

LimitChange parseLimitChange(std::string_view text)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw InputError("expected T:limit=L,capacity=C,rate=R (got " + quoted(text) + ")");
    LimitChange c;
    c.at = parseSeconds(text.substr(0, colon));
    if (c.at < 0)
        throw InputError("a change's time must not be negative (got " + std::string(text.substr(0, colon)) + ")");
    std::string_view rest = text.substr(colon + 1);
    if (rest.empty())
        throw InputError("a change names at least one of limit, capacity, rate (got " + quoted(text) + ")");
    forEachKeyValue(rest, [&](std::string_view key, std::string_view value) {
        const auto once = [&](bool given) {
            if (given)
                throw InputError(std::string(key) + " is named twice");
        };
        if (key == "limit") {
            once(c.limit.has_value());
            c.limit = parseIntegerIn(value, 1, LimiterConfig::kMaxLimit);
        } else if (key == "capacity") {
            once(c.capacity.has_value());
            c.capacity = parseIntegerIn(value, 1, LimiterConfig::kMaxLimit);
        } else if (key == "rate") {
            once(c.rate.has_value());
            c.rate = parseRate(value);
        } else {
            throw InputError("unknown key " + quoted(key) + " (known: limit, capacity, rate; the window stays)");
        }
    });
    return c;
}

std::string limitChangeText(const LimitChange& c)
{
    std::string out = formatSeconds(c.at) + ":";
    const auto add = [&](const char* key, const std::string& value) {
        out += (out.back() == ':' ? "" : ",") + std::string(key) + "=" + value;
    };
    if (c.limit)
        add("limit", std::to_string(*c.limit));
    if (c.capacity)
        add("capacity", std::to_string(*c.capacity));
    if (c.rate)
        add("rate", c.rate->exactText());
    return out;
}

} // namespace ratelab
