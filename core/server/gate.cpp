#include "server/gate.h"

#include "arithmetic/decimal.h"
#include "server/envoy_gradient.h"
#include "server/netflix_limits.h"
#include "server/apf.h"
#include "server/bulkhead.h"
#include "server/stripe_shedder.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ratelab {

namespace {

// NoGate admits everything: the row of the server alone.
class NoGate final : public Gate {
public:
    Verdict offer(Nanos, std::int64_t, std::int64_t) override
    {
        ++m_inflight;
        return Verdict::Admit;
    }
    void release(Nanos, std::int64_t, bool, std::vector<std::int64_t>&) override { --m_inflight; }
    std::int64_t limit() const override { return kUnlimited; }
    std::int64_t inflight() const override { return m_inflight; }

private:
    std::int64_t m_inflight = 0;
};

GateRecipe readNoGate(GateOptions& o)
{
    o.done();
    return {[](std::uint64_t) -> std::unique_ptr<Gate> { return std::make_unique<NoGate>(); }};
}

struct Kind {
    std::string_view id;
    GateReader read;
};

// kKinds is every gate kind, in the order Help lists them. A kind's reader lives in its own
// file, beside the source it is transcribed from.
const Kind kKinds[] = {
    {"fixed", readFixedGate},
    {"aimd", readAimdGate},
    {"vegas", readVegasGate},
    {"gradient2", readGradient2Gate},
    {"envoy", readEnvoyGate},
    {"bulkhead", readBulkhead},
    {"apf", readApfGate},
    {"stripe", readStripeShedder},
    {"none", readNoGate},
};

} // namespace

GateOptions::GateOptions(std::string kind, std::string_view list) : m_kind(std::move(kind))
{
    forEachKeyValue(list, [&](std::string_view key, std::string_view value) {
        if (!m_values.emplace(std::string(key), std::string(value)).second)
            throw InputError(std::string(key) + ": given twice");
    });
}

const std::string* GateOptions::take(std::string_view key)
{
    m_known.emplace_back(key);
    const auto it = m_values.find(key);
    return it == m_values.end() ? nullptr : &it->second;
}

Nanos GateOptions::duration(std::string_view key, Nanos fallback, bool positive)
{
    const std::string* v = take(key);
    if (!v)
        return fallback;
    try {
        const Nanos d = parseDurationText(*v, kNanosPerSecond);
        if (positive && d == 0)
            throw InputError("must be more than 0 s (got " + quoted(*v) + ")");
        return d;
    } catch (const InputError& e) {
        throw InputError(m_kind + ": " + std::string(key) + ": " + e.what());
    }
}

std::int64_t GateOptions::integer(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max)
{
    const std::string* v = take(key);
    if (!v)
        return fallback;
    try {
        return parseIntegerIn(*v, min, max);
    } catch (const InputError& e) {
        throw InputError(m_kind + ": " + std::string(key) + ": " + e.what());
    }
}

double GateOptions::real(std::string_view key, double fallback, double min, double max)
{
    const std::string* v = take(key);
    if (!v)
        return fallback;
    double x = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(x))
        throw InputError(m_kind + ": " + std::string(key) + ": not a number (got " + quoted(*v) + ")");
    if (x < min || x > max) {
        char lo[32], hi[32];
        *std::to_chars(lo, lo + 31, min).ptr = 0;
        *std::to_chars(hi, hi + 31, max).ptr = 0;
        throw InputError(m_kind + ": " + std::string(key) + ": must be from " + lo + " to " + hi + " (got " + *v + ")");
    }
    return x;
}

bool GateOptions::flag(std::string_view key, bool fallback)
{
    return word(key, fallback ? "true" : "false", {"true", "false"}) == "true";
}

std::string GateOptions::word(std::string_view key, std::string_view fallback, std::initializer_list<std::string_view> known)
{
    const std::string* v = take(key);
    if (!v)
        return std::string(fallback);
    if (std::find(known.begin(), known.end(), *v) == known.end()) {
        std::string list;
        for (std::string_view k : known)
            list += (list.empty() ? "" : ", ") + std::string(k);
        throw InputError(m_kind + ": " + std::string(key) + ": unknown value " + quoted(*v) + " (known: " + list + ")");
    }
    return *v;
}

void GateOptions::done() const
{
    for (const auto& [key, value] : m_values)
        if (std::find(m_known.begin(), m_known.end(), key) == m_known.end()) {
            std::string list;
            for (const std::string& k : m_known)
                list += (list.empty() ? "" : ", ") + k;
            throw InputError("unknown key " + quoted(key) + " for " + m_kind
                             + (list.empty() ? std::string(", which takes no options") : " (known: " + list + ")"));
        }
}

GateSpec GateSpec::parse(std::string_view text)
{
    std::string_view options;
    const Kind& kind = findKind(kKinds, text, "concurrency limiter", options);
    GateOptions o(std::string(kind.id), options);
    GateSpec spec;
    spec.m_recipe = kind.read(o);
    spec.m_text = text;
    return spec;
}

std::vector<std::string_view> gateKinds()
{
    std::vector<std::string_view> ids;
    for (const Kind& k : kKinds)
        ids.push_back(k.id);
    return ids;
}

} // namespace ratelab
