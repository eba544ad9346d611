#include "engine/layered.h"

#include "engine/layer_loop.h"

#include "arithmetic/decimal.h"
#include "limiters/nginx_limit_req.h"

#include <algorithm>

namespace ratelab {

LayeredPolicy::LayeredPolicy(const std::vector<Layer>& layers, Nanos clock)
{
    if (layers.empty())
        throw InputError("a layered policy needs at least one layer");
    for (const Layer& l : layers) {
        m_layers.push_back(makeLimiter(l.algorithm, l.config));
        m_clock.push_back(onTheClock(l.algorithm) ? clock : 0);
    }
    m_metrics.resize(layers.size());
}


Decision LayeredPolicy::decide(Nanos t, std::int64_t cost)
{
    const LayersAsked asked = askLayers(m_layers.size(), cost, m_metrics,
                                        [&](std::size_t l) { return m_layers[l].decide(m_clock[l] + t, cost); });
    Decision d;
    layeredAnswer(
        asked, m_layers.size(), cost, quota(), [&](std::size_t l) { return m_layers[l].waitFor(m_clock[l] + t, cost); },
        [&](std::size_t l) { return m_layers[l].remainingAt(m_clock[l] + t); }, d);
    return d;
}

Nanos LayeredPolicy::waitFor(Nanos t, std::int64_t cost) const
{
    Nanos d = 0;
    for (std::size_t l = 0; l < m_layers.size(); ++l)
        d = std::max(d, m_layers[l].waitFor(m_clock[l] + t, cost));
    return d;
}

std::int32_t LayeredPolicy::remainingAt(Nanos t) const
{
    std::int32_t r = m_layers.front().remainingAt(m_clock.front() + t);
    for (std::size_t l = 0; l < m_layers.size(); ++l)
        r = std::min(r, m_layers[l].remainingAt(m_clock[l] + t));
    return r;
}

std::int64_t LayeredPolicy::quota() const
{
    std::int64_t q = m_layers.front().quota();
    for (const auto& l : m_layers)
        q = std::min(q, l.quota());
    return q;
}

Nanos LayeredPolicy::reset(Nanos t) const
{
    // One layer is its limiter, whose reset may be its product's own (semantics.md: a policy of
    // one layer reduces to the limiter).
    return m_layers.size() == 1 ? m_layers.front().reset(m_clock.front() + t) : waitFor(t, quota());
}

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string knownAlgorithmIds()
{
    std::string ids;
    for (Algorithm a : kEveryAlgorithm)
        ids += (ids.empty() ? "" : ", ") + std::string(algorithmId(a));
    return ids;
}

} // namespace

Layer parseLayer(std::string_view text, const NginxOptions& nginx)
{
    const std::size_t colon = text.find(':');
    const std::string id(trim(text.substr(0, colon)));
    const auto algorithm = algorithmFromId(id);
    if (!algorithm)
        throw InputError("unknown algorithm " + quoted(id) + " (known: " + knownAlgorithmIds() + ")");
    std::int64_t limit = 10;
    Nanos window = 10 * kNanosPerSecond;
    std::optional<std::int64_t> capacity;
    std::optional<Rate> rate;
    std::string_view rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string_view pair = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        if (trim(pair).empty())
            continue;
        const std::size_t eq = pair.find('=');
        const std::string key(trim(pair.substr(0, eq)));
        const std::string_view value = eq == std::string_view::npos ? std::string_view() : trim(pair.substr(eq + 1));
        try {
            if (key == "limit")
                limit = parseIntegerIn(value, 1, LimiterConfig::kMaxLimit);
            else if (key == "window") {
                window = parseSeconds(value);
                if (window <= 0)
                    throw InputError("must be greater than 0 s (got " + formatSeconds(window) + ")");
            } else if (key == "capacity")
                capacity = parseIntegerIn(value, 1, LimiterConfig::kMaxLimit);
            else if (key == "rate")
                rate = parseRate(value);
            else
                throw InputError("unknown key " + quoted(key) + " (known: limit, window, capacity, rate)");
        } catch (const InputError& e) {
            const std::string message = e.what();
            throw InputError(message.starts_with("unknown key") ? message : key + ": " + message);
        }
    }
    Layer layer{*algorithm, LimiterConfig::make(limit, window, capacity, rate).withNginx(nginx)};
    if (layer.algorithm == Algorithm::NginxLimitReq)
        (void)nginxRateThousandths(layer.config.rate());
    return layer;
}

std::string layerText(const Layer& layer)
{
    const LimiterConfig& c = layer.config;
    return std::string(algorithmId(layer.algorithm)) + ":limit=" + std::to_string(c.limit())
        + ",window=" + formatSeconds(c.windowNanos()) + ",capacity=" + std::to_string(c.capacity())
        + ",rate=" + c.rate().exactText();
}

} // namespace ratelab
